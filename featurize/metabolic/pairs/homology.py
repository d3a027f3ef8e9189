"""The ``homology`` block: the candidate's protein is like those that work around ``r``.

For a candidate ``g`` and a model gene ``h``, ``s(g, h) = bits(h -> g) /
bits(h -> h)``: the phmmer bit score of ``h``'s sequence against ``g``'s
over ``h``'s self-score (the query's self-score, the query being the model
gene: :meth:`geomargin.featurize.metabolic.homology.Homology.shares`); 0 when the
search reports no hit. Three items, each the largest over a set of model
genes ``h``:

``motif_max``
    ``s(g, h)`` over the genes of ``r``'s motif neighbours (any motif type);
``compound_max``
    ``c(r, o) * s(g, h)`` over the genes of the other model reactions ``o``
    of ``r``'s kind, ``c`` the compound similarity of the ``compound_<kind>``
    blocks (:mod:`geomargin.featurize.metabolic.compounds`);
``subsystem_max``
    ``s(g, h)`` over the genes of the other model reactions of ``r``'s
    subsystem(s).

Leak rule (as the other blocks): ``h`` is never ``g`` itself, never a gene
of ``r`` or of its near-copies (``NetworkIndex.own_models``), and ``o``
never one of those reactions; a held-out reaction gets the block exactly as
an orphan does. An item is absent (NaN, never 0) when ``g`` has no
sequence, when its set holds no gene with a self-score other than ``g``,
and (``compound_max``) when no compound of ``r`` has a formula.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp

from geomargin.common.exceptions import GeomarginInputError
from geomargin.featurize.metabolic.compounds import characteristic_compounds, compound_vectors
from geomargin.featurize.metabolic.pairs.base import NetworkBlock

__all__ = ["HomologyBlock", "HOMOLOGY_ITEMS"]

#: Features of the ``homology`` block, in order.
HOMOLOGY_ITEMS = ("motif_max", "compound_max", "subsystem_max")


class HomologyBlock(NetworkBlock):
    """The ``homology`` block (motif-independent; ``PairFeaturizer(homology=...)``,
    a :class:`geomargin.featurize.metabolic.homology.Homology`)."""

    name = "homology"
    param = "homology"
    config_key = "metabolic.homology_features"
    items = HOMOLOGY_ITEMS
    per_motif = False
    evidence_name = "homology"

    def __init__(self, homology, net):
        self.homology = homology
        self.net = net

    @classmethod
    def enabled(cls, featurizer, sources) -> bool:
        return featurizer.homology is not None

    @classmethod
    def create(cls, featurizer):
        return cls(featurizer.homology, featurizer.net)

    def prepare(self, index, cache):
        """The (genes x genes) matrix of ``s(g, h)`` (rows candidates,
        columns model genes, gene indices of ``index``), which genes have a
        sequence or a self-score, and per model reaction its subsystems,
        kind and characteristic compounds."""
        self.index, self.cache = index, cache
        n = index.n_genes
        gid = index.gid
        shares = self.homology.shares()
        dup = shares.duplicated(["query", "target"])
        if dup.any():
            q, t = shares.loc[dup, ["query", "target"]].iloc[0]
            raise GeomarginInputError(f"PairFeaturizer(homology=...): the hits name the pair ({q}, {t}) more "
                                      "than once; expected one row per (query, target)")
        rows = shares["target"].map(gid)
        cols = shares["query"].map(gid)
        keep = rows.notna().to_numpy() & cols.notna().to_numpy()
        r, c = rows[keep].to_numpy(dtype=np.intp), cols[keep].to_numpy(dtype=np.intp)
        # a gene's hit on itself is never a homolog (its self-score is the scale)
        other = r != c
        share = shares["share"].to_numpy(dtype=float)[keep][other]
        evalue = shares["evalue"].to_numpy(dtype=float)[keep][other]
        # the hits' positions as the data (1-based: 0 is no entry), so that
        # the shares and E-values can be laid out on one sparsity pattern
        P = sp.csr_matrix((np.arange(1, share.size + 1, dtype=float), (r[other], c[other])), shape=(n, n))
        P.sort_indices()
        at = P.data.astype(np.intp) - 1
        S = sp.csr_matrix((share[at], P.indices, P.indptr), shape=(n, n))
        self._S, self._S_rows = S.tocsc(), S
        self._E_data = evalue[at]  # E-value of each entry of S's rows (CSR order)
        self._has_seq = np.zeros(n, dtype=bool)
        for g in self.homology.sequenced:
            i = gid.get(g)
            if i is not None:
                self._has_seq[i] = True
        self._has_self = np.zeros(n, dtype=bool)
        for g in self.homology.self_bits():
            i = gid.get(g)
            if i is not None:
                self._has_self[i] = True
        self._has_seq[n - 1] = self._has_self[n - 1] = False  # gene -1: unknown
        model = index.model
        self._C = model.catalyses.tocsc()
        first: dict[str, str] = {}
        for d, m in model.of.items():
            first.setdefault(m, d)
        self._first = first
        reactions = index.reactions
        self._name = {m: str(reactions.at[d, "name"]) if "name" in reactions.columns else m
                      for m, d in first.items()}
        self._kind = np.array([index.kind_of[first[m]] for m in model.ids]) \
            if "reaction_kind" in reactions.columns else None
        subs = []
        for m in model.ids:
            text = reactions.at[first[m], "subsystem"] if "subsystem" in reactions.columns else ""
            subs.append(frozenset(x.strip() for x in str(text).split(";") if x.strip())
                        if isinstance(text, str) else frozenset())
        self._sub_of = subs
        self._compounds = None
        net = self.net
        if self._kind is not None and all(isinstance(getattr(net, a, None), Mapping)
                                          for a in ("formulas", "substrates", "products")):
            vectors = compound_vectors(net.formulas)
            keys = sorted(vectors)
            # the vectors, not compound_similarity's dense matrix: one row of it
            # per compound of a reaction is computed when asked (_similar_to)
            self._V = np.vstack([vectors[k] for k in keys]) if keys else np.zeros((0, 0))
            position = {k: i for i, k in enumerate(keys)}
            self._compounds = []
            for m in model.ids:
                d = first[m]
                t = characteristic_compounds(net.substrates.get(d, frozenset()),
                                             net.products.get(d, frozenset()), index.kind_of[d])
                self._compounds.append(np.array(sorted(position[k] for k in t if k in position), dtype=np.intp))
            sizes = np.array([c.size for c in self._compounds], dtype=np.intp)
            self._flat = np.concatenate(self._compounds) if self._compounds else np.zeros(0, dtype=np.intp)
            self._starts = np.r_[0, np.cumsum(sizes)[:-1]].astype(np.intp)
            self._has_cmp = sizes > 0
        del self.net, self.homology  # not needed after prepare

    # ------------------------------------------------------------ gene sets
    def _own_genes(self, reaction: str) -> np.ndarray:
        """Gene indices of ``reaction``'s model reaction and its near-copies."""
        model = self.index.model
        own = self.index.own_models(reaction)
        return np.asarray(model.catalyses[own].sum(axis=0)).reshape(-1) > 0

    def _motif_weights(self, reaction: str) -> np.ndarray:
        """1 for the genes of ``reaction``'s motif neighbours, else 0."""
        w = np.zeros(self.index.n_genes)
        genes = set()
        for t in self.index.motifs:
            genes.update(self.index.neighbours(reaction, t))
        for g in genes:
            w[self.index.gid[g]] = 1.0
        return w

    def _reaction_genes(self, weights_per_model: np.ndarray) -> np.ndarray:
        """Per gene, the largest weight of a model reaction that names it."""
        W = self._C.multiply(weights_per_model[:, None]).tocsc()
        return np.asarray(W.max(axis=0).todense()).reshape(-1)

    def _compound_model_weights(self, reaction: str) -> np.ndarray | None:
        """``c(reaction, o)`` per model reaction ``o`` of its kind (0 for the
        others and its own), or None when no compound of it has a formula."""
        if self._compounds is None:
            return None
        model = self.index.model
        i = model.index[model.of[reaction]]
        mine = self._compounds[i]
        if mine.size == 0:
            return None
        to_mine = self._similar_to(mine).max(axis=0)  # each compound's best match among the reaction's
        w = np.zeros(len(self._compounds))
        if self._has_cmp.any():
            w[self._has_cmp] = np.maximum.reduceat(to_mine[self._flat], self._starts[self._has_cmp])
        w[self._kind != self.index.kind_of[reaction]] = 0.0
        w[self.index.own_models(reaction)] = 0.0
        return w

    def _similar_to(self, rows: np.ndarray) -> np.ndarray:
        """``exp(-||v_a - v_b||)`` of the compounds ``rows`` with every
        compound (:func:`geomargin.featurize.metabolic.compounds.compound_similarity`'s
        rows, 1 for a compound with itself)."""
        V = self._V
        sq = (V ** 2).sum(axis=1)
        d2 = np.maximum(sq[rows, None] + sq[None, :] - 2 * V[rows] @ V.T, 0.0)
        out = np.exp(-np.sqrt(d2))
        out[np.arange(len(rows)), rows] = 1.0
        return out

    def _subsystem_model_weights(self, reaction: str) -> np.ndarray | None:
        """1 for the other model reactions sharing a subsystem with
        ``reaction``, else 0; None when it has no subsystem."""
        model = self.index.model
        subs = self._sub_of[model.index[model.of[reaction]]]
        if not subs:
            return None
        w = np.array([1.0 if subs & s else 0.0 for s in self._sub_of])
        w[self.index.own_models(reaction)] = 0.0
        return w

    def weights(self, reaction: str) -> list[np.ndarray | None]:
        """Per item, the weight of every gene (0: not in the item's set;
        never ``reaction``'s own genes nor a gene without a self-score), or
        None when the item is absent for every gene."""
        def compute():
            own = self._own_genes(reaction)
            out = []
            per_model = [None, self._compound_model_weights(reaction), self._subsystem_model_weights(reaction)]
            for j, wm in enumerate(per_model):
                if j == 0:
                    w = self._motif_weights(reaction)
                elif wm is None:
                    out.append(None)
                    continue
                else:
                    w = self._reaction_genes(wm)
                w[own | ~self._has_self] = 0.0
                out.append(w)
            return out
        return self.cache.get(reaction, "homology_weights", compute)

    # ------------------------------------------------------------ features
    def _item(self, w: np.ndarray) -> np.ndarray:
        """Per gene (every gene index), ``max_h w_h s(g, h)`` over the genes
        with ``w_h > 0`` other than ``g``; NaN where ``g`` has no sequence or
        no such gene is left."""
        cols = np.flatnonzero(w > 0)
        n = self.index.n_genes
        out = np.full(n, np.nan)
        if cols.size == 0:
            return out
        W = self._S[:, cols] @ sp.diags(w[cols])
        best = np.asarray(W.max(axis=1).todense()).reshape(-1)  # S has no diagonal: g != h
        left = cols.size - (w > 0).astype(int)   # the genes of the set other than g
        ok = self._has_seq & (left > 0)
        out[ok] = best[ok]
        return out

    def _values(self, reaction: str) -> list[np.ndarray]:
        return self.cache.get(reaction, "homology_values", lambda: [
            np.full(self.index.n_genes, np.nan) if w is None else self._item(w)
            for w in self.weights(reaction)])

    def block(self, reaction, g_gids, motif=None):
        """The three items of the module docstring for the genes ``g_gids``."""
        values = self._values(reaction)
        return np.column_stack([v[np.asarray(g_gids, dtype=np.intp)] for v in values])

    def has_evidence(self, reaction: str) -> bool:
        """Some gene with a sequence has a homolog among the item sets'
        genes (an item above 0 for some gene)."""
        return any(bool(np.nan_to_num(v, nan=0.0).max() > 0) for v in self._values(reaction))

    def homologs(self, reaction: str, gid: int | None, top: int = 1) -> list[tuple]:
        """The block's genes most like the gene at ``gid``, as ``(gene
        index, s(g, h), E-value, item, model reaction)`` with the largest
        ``s`` first (ties by gene index): the reaction is one that ``h``
        catalyses and that puts it in the item's set (the most similar
        compounds for ``compound_max``)."""
        if gid is None or gid < 0 or not self._has_seq[gid]:
            return []
        row = slice(self._S_rows.indptr[gid], self._S_rows.indptr[gid + 1])
        hs, vals, evalues = (self._S_rows.indices[row], self._S_rows.data[row], self._E_data[row])
        best: dict[int, tuple] = {}
        for item, w in zip(self.items, self.weights(reaction)):
            if w is None:
                continue
            for h, v, e in zip(hs, vals, evalues):
                if w[h] > 0 and v > 0 and (h not in best or v > best[h][1]):
                    best[int(h)] = (int(h), float(v), float(e), item, self._reaction_of(reaction, int(h), item))
        return sorted(best.values(), key=lambda x: (-x[1], x[0]))[:top]

    def _reaction_of(self, reaction: str, h: int, item: str) -> str:
        """A model reaction of gene ``h`` that puts it in ``item``'s set for ``reaction``."""
        model = self.index.model
        col = model.catalyses[:, h].toarray().reshape(-1) > 0
        col[self.index.own_models(reaction)] = False
        if item == "motif_max":
            related = {model.of[o] for t in self.index.motifs
                       for o in self.index.motifs[t].get(reaction, ())}
            col &= np.array([m in related for m in model.ids])
        elif item == "compound_max":
            w = self._compound_model_weights(reaction)
            if w is not None:
                cand = np.flatnonzero(col & (w > 0))
                if cand.size:
                    return model.ids[int(cand[np.argmax(w[cand])])]
        else:
            w = self._subsystem_model_weights(reaction)
            if w is not None:
                col &= w > 0
        found = np.flatnonzero(col)
        return model.ids[int(found[0])] if found.size else ""

    def reaction_name(self, model_reaction: str) -> str:
        """The name of a model reaction (its id when the network has no names)."""
        return self._name.get(model_reaction, model_reaction)
