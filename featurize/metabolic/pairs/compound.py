"""The ``compound_<kind>`` blocks: the candidate acts on compounds like ``r``'s elsewhere.

Over the other model reactions of ``r``'s kind whose gene rule names ``g``
(not ``r`` in either direction, nor its near-copies:
``NetworkIndex.own_models``), the largest and the mean similarity
``sim(r, o) = max_{a in T(r), b in T(o)} exp(-||v_a - v_b||)`` where ``T`` are
the compounds a reaction is about (for a transport reaction the carried ones)
and ``v`` the log element counts of the model's own formulas
(:mod:`geomargin.featurize.metabolic.compounds`). The other blocks know which membrane
a transport reaction crosses, not what it carries; with this one an amino
acid permease looks unlike the carrier of a sugar or an alcohol. One block
per reaction kind (``compound_kinds_``), only the block of ``r``'s kind
present. Absent when ``g`` has no other reaction of ``r``'s kind with a
compound that has a formula, and for every gene when no compound of ``T(r)``
has one.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from geomargin.featurize.metabolic.compounds import (characteristic_compounds, compound_similarity,
                                           compound_vectors)
from geomargin.featurize.metabolic.pairs.base import NetworkBlock

__all__ = ["CompoundBlock", "COMPOUND_ITEMS"]

#: Features of each ``compound_<kind>`` block.
COMPOUND_ITEMS = ("max_similarity", "mean_similarity")


class CompoundBlock(NetworkBlock):
    """The ``compound_<kind>`` blocks (motif-independent).

    Parameters
    ----------
    net : DirectedNetwork-like
        With ``formulas``, ``substrates`` and ``products`` mappings.
    """

    name = "compound"
    param = "compounds"
    config_key = "metabolic.compound_features"
    items = COMPOUND_ITEMS
    per_motif = False
    evidence_name = "compounds"

    def __init__(self, net):
        self.net = net

    @classmethod
    def create(cls, featurizer):
        return cls(featurizer.net)

    def prepare(self, index, cache):
        """Per model reaction its characteristic compounds (as indices into
        the compound similarity matrix) and, per reaction kind, the (model
        reactions x genes) catalysis matrix the blocks reduce."""
        self.index, self.cache = index, cache
        net, model = self.net, index.model
        keys, self._sim = compound_similarity(compound_vectors(net.formulas))
        position = {k: i for i, k in enumerate(keys)}
        first: dict[str, str] = {}
        for r, m in model.of.items():
            first.setdefault(m, r)
        self._compounds = []
        for m in model.ids:
            r = first[m]
            t = characteristic_compounds(net.substrates.get(r, frozenset()),
                                         net.products.get(r, frozenset()), index.kind_of[r])
            self._compounds.append(np.array(sorted(position[k] for k in t if k in position), dtype=np.intp))
        kinds = np.array([index.kind_of[first[m]] for m in model.ids])
        has_cmp = np.array([c.size > 0 for c in self._compounds])
        self._catalyses = {}
        for k in index.kinds_with_genes:
            keep = sp.diags(((kinds == k) & has_cmp).astype(float))
            self._catalyses[k] = (keep @ model.catalyses).tocsc()
        self.kinds = [k for k in index.kinds_with_genes if self._catalyses[k].nnz]
        del self.net  # not needed after prepare (the featurizer keeps the network)

    def block_names(self):
        return [f"{self.name}_{k}" for k in self.kinds]

    def _sims(self, reaction: str):
        """``sim(reaction, o)`` for every model reaction o (0 for o without a
        compound of known formula and for reaction's own), or None when no
        compound of the reaction has a formula."""
        model = self.index.model
        i = model.index[model.of[reaction]]
        mine = self._compounds[i]
        if mine.size == 0:
            return None
        to_mine = self._sim[mine].max(axis=0)  # each compound's best match in T(r)
        flat, starts, has = self._segments()
        sims = np.zeros(len(self._compounds))
        if has.any():  # each model reaction's largest to_mine over its compounds
            sims[has] = np.maximum.reduceat(to_mine[flat], starts[has])
        sims[self.index.own_models(reaction)] = 0.0
        return sims

    def _segments(self):
        """``(flat, starts, has)``: every model reaction's compounds end to
        end, where each reaction's start, and which have any (for
        ``np.maximum.reduceat``); computed once."""
        seg = getattr(self, "_segments_", None)
        if seg is None:
            sizes = np.array([c.size for c in self._compounds], dtype=np.intp)
            flat = np.concatenate(self._compounds) if self._compounds else np.zeros(0, dtype=np.intp)
            seg = self._segments_ = (flat, np.r_[0, np.cumsum(sizes)[:-1]].astype(np.intp), sizes > 0)
        return seg

    def _cached_sims(self, reaction: str):
        return self.cache.get(reaction, "compound", lambda: self._sims(reaction))

    def _stats(self, reaction: str):
        """Per gene (every gene index): the largest and the mean ``sim(r, o)``
        over its other reactions of r's kind; None when no compound of the
        reaction has a formula."""
        sims = self._cached_sims(reaction)
        if sims is None:
            return None
        C = _drop_rows(self._catalyses[self.index.kind_of[reaction]], self.index.own_models(reaction))
        count = np.asarray(C.sum(axis=0)).reshape(-1)
        weighted = C.multiply(sims[:, None]).tocsc()
        best = np.asarray(weighted.max(axis=0).todense()).reshape(-1)
        total = np.asarray(weighted.sum(axis=0)).reshape(-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(count > 0, total / np.maximum(count, 1), np.nan)
        return np.where(count > 0, best, np.nan), mean

    def has_evidence(self, reaction: str) -> bool:
        """A compound of ``reaction`` has a formula and some gene catalyses
        another reaction of its kind with such a compound."""
        if self.index.kind_of[reaction] not in self.kinds:
            return False
        got = self.cache.get(reaction, "compound_stats", lambda: self._stats(reaction))
        return got is not None and bool(np.isfinite(got[0]).any())

    def block(self, reaction, g_gids, motif=None):
        """The largest and mean ``sim(r, o)`` over the candidate's other
        reactions of r's kind; NaN without such a reaction and in every other
        kind's block."""
        width = len(self.items)
        out = np.full((len(g_gids), width * len(self.kinds)), np.nan)
        kind = self.index.kind_of[reaction]
        if kind not in self.kinds:
            return out
        got = self.cache.get(reaction, "compound_stats", lambda: self._stats(reaction))
        if got is None:
            return out
        best, mean = got
        j = self.kinds.index(kind) * width
        out[:, j] = best[g_gids]  # gene -1 -> the all-zero last column: NaN
        out[:, j + 1] = mean[g_gids]
        return out

    def reactions(self, reaction: str, gid: int | None, top: int = 3) -> list[tuple[str, float]]:
        """The other model reactions of ``reaction``'s kind that the gene at
        ``gid`` catalyses whose compounds are most like ``reaction``'s, as
        ``(model reaction, similarity)``, most similar first: the evidence of
        the block."""
        kind = self.index.kind_of[reaction]
        if kind not in self.kinds:
            return []
        sims = self._cached_sims(reaction)
        if gid is None or sims is None:
            return []
        model = self.index.model
        col = self._catalyses[kind][:, gid].toarray().reshape(-1)
        col[self.index.own_models(reaction)] = 0
        hits = [(model.ids[j], float(sims[j])) for j in np.flatnonzero(col)]
        return sorted(hits, key=lambda x: (-x[1], x[0]))[:top]


def _drop_rows(M: sp.csc_matrix, rows: np.ndarray) -> sp.csc_matrix:
    """``M`` with the entries of ``rows`` set to zero (removed)."""
    keep = np.ones(M.shape[0])
    keep[rows] = 0.0
    out = (sp.diags(keep) @ M).tocsc()
    out.eliminate_zeros()
    return out
