"""The ``domain_kind_<kind>`` blocks: how often genes with the candidate's domains do ``r``'s kind of work.

A prior read from the candidate's own sequence, for the genes the network
blocks know nothing about. The ``role_<kind>`` blocks say how much of a
transporter a gene *is* in the network; a gene the model has never placed
(no other reaction) has no role, and the motif blocks only compare it with
``r``'s neighbours. This block asks instead what genes *like it* do: for each
InterPro domain ``d`` of the candidate ``g`` (the ``domain`` source's kept
domains), the share of the other genes with ``d`` that catalyse a reaction of
``r``'s kind ``k``,

    p_k(d) = (C_k(d) - [g catalyses k]) / (N(d) - 1),

where ``N(d)`` counts the genes with ``d`` and ``C_k(d)`` those of them that
catalyse a unit (a model reaction, near-copies together:
``NetworkIndex.units``) of kind ``k`` other than ``r``'s own. Items: the
largest ``p_k(d)`` over the candidate's domains, their mean, and
``log(1 + the largest count C_k(d) - [g catalyses k])``. A candidate with a
domain shared only with transporters looks like a transporter, whether or
not the model names it anywhere.

Only the block of ``r``'s kind is present (as ``role_<kind>``); it is absent
for a gene without a kept domain that another gene also has. ``g`` never
counts for itself, and ``r``'s own unit is never read, so a held-out
reaction gets the block exactly as an orphan does. InterPro2GO-style domain
calls are computed from sequence (the annotation source keeps only IEA rows
with an InterPro id), so the block does not postdate an older model release
in the time split.
"""

from __future__ import annotations

import numpy as np

from geomargin.featurize.metabolic.pairs.base import NetworkBlock

__all__ = ["DomainKindBlock"]


class DomainKindBlock(NetworkBlock):
    """The ``domain_kind_<kind>`` blocks (motif-independent; need the ``domain`` source)."""

    name = "domain_kind"
    param = "domain_kinds"
    config_key = "metabolic.domain_kind_features"
    items = ("max_share", "mean_share", "log1p_max_genes")
    per_motif = False
    source_name = "domain"

    def prepare(self, index, cache):
        """Per kind, how many genes with each domain catalyse a unit of that kind."""
        src = self.source  # the prepared DomainBlock, set by the featurizer
        self.index, self.cache = index, cache
        self.kinds = index.kinds_with_genes
        #: gene index (universe, -1 last) -> row of the domain matrix (src.null: none)
        drow = np.full(index.n_genes, src.null, dtype=np.intp)
        for g, i in src.row.items():
            drow[index.gid[g]] = i
        self._drow = drow
        self._B = src.presence.tocsr()  # domain rows x kept domains, last row empty
        self._N = np.asarray(self._B.sum(axis=0)).reshape(-1)
        self._unit_kind = index.unit_kind
        self._per_kind = index.unit_kind_counts
        self._C = {k: np.asarray(self._B.T @ (np.bincount(drow, weights=(c > 0).astype(float),
                                                          minlength=src.null + 1))).reshape(-1)
                   for k, c in self._per_kind.items()}

    def block_names(self):
        return [f"{self.name}_{k}" for k in self.kinds]

    def _counts(self, reaction):
        """``(C, left)`` for ``reaction``'s kind: per kept domain, the genes
        with it that catalyse a unit of that kind other than ``reaction``'s
        own, and per gene how many such units it catalyses (computed once
        per reaction: explaining its candidates asks for every one)."""
        return self.cache.get(reaction, "domain_kind", lambda: self._compute_counts(reaction))

    def _compute_counts(self, reaction):
        index = self.index
        kind = index.kind_of[reaction]
        # genes whose only units of this kind are r's own stop counting
        own = self._unit_kind[kind][index.unit(reaction)].toarray().reshape(-1)
        left = self._per_kind[kind] - own
        lost = np.flatnonzero((self._per_kind[kind] > 0) & (left <= 0))
        C = self._C[kind]
        if lost.size:
            C = C - np.asarray(self._B[self._drow[lost]].sum(axis=0)).reshape(-1)
        return C, left

    def domains(self, reaction, gid, top: int = 1) -> list[tuple[int, int, int]]:
        """The candidate's domains with the largest share (the block's
        evidence), as ``(column of the domain source's kept domains, genes of
        the reaction's kind, other genes with the domain)``, largest share
        first (then most genes); empty where the block is absent."""
        if gid is None or self.index.kind_of[reaction] not in self.kinds:
            return []
        C, left = self._counts(reaction)
        row = self._B[self._drow[gid]]
        mine = float(left[gid] > 0)
        found = [(int(d), int(round(C[d] - mine)), int(self._N[d] - 1)) for d in row.indices
                 if self._N[d] > 1]
        found.sort(key=lambda t: (-t[1] / t[2], -t[1], t[0]))
        return found[:top]

    def block(self, reaction, g_gids, motif=None):
        """The three items over the candidate's domains, in the block of the
        reaction's kind (NaN in every other kind's block, and where the
        candidate has no domain another gene has)."""
        index = self.index
        width = len(self.items)
        out = np.full((len(g_gids), width * len(self.kinds)), np.nan)
        kind = index.kind_of[reaction]
        if kind not in self.kinds:
            return out
        C, left = self._counts(reaction)
        sub = self._B[self._drow[np.asarray(g_gids, dtype=np.intp)]]
        counts = np.diff(sub.indptr)
        mine = np.repeat((left[g_gids] > 0).astype(float), counts)
        others = self._N[sub.indices] - 1.0
        genes = C[sub.indices] - mine
        valid = others > 0
        share = np.where(valid, genes / np.where(valid, others, 1.0), np.nan)
        rows = np.flatnonzero(counts > 0)
        if rows.size == 0:
            return out
        # segments of the candidates with a kept domain (the others hold no entry)
        starts = sub.indptr[:-1][rows]
        n_valid = np.add.reduceat(valid.astype(float), starts)
        j = self.kinds.index(kind) * width
        present = n_valid > 0
        rows = rows[present]
        out[rows, j] = np.fmax.reduceat(share, starts)[present]
        out[rows, j + 1] = np.add.reduceat(np.nan_to_num(share), starts)[present] / n_valid[present]
        out[rows, j + 2] = np.log1p(np.fmax.reduceat(np.where(valid, genes, np.nan), starts)[present])
        return out
