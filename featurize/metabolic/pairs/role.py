"""The ``role_<kind>`` blocks: how much of the candidate's other work is of ``r``'s kind.

What the candidate does elsewhere in the network: ``log(1 + m_k)`` and
``m_k / m`` where ``m`` is the number of *other* model reactions (not ``r`` in
either direction, nor its near-copies: ``NetworkIndex.own_models``) whose
gene rule names ``g`` and ``m_k`` how many of them have ``r``'s kind ``k``. Only the block of ``r``'s own kind is present: "how
much of a transporter is g" is a question about a transport reaction and
undefined for an enzymatic one, so each kind's block gets its own weights
and its own place in the geometric margin's ``||w^(i)||``. Also absent when
``m = 0``: a gene that catalyses nothing else has no role to compare. One
block per reaction kind that at least one reaction with a gene has, in
:data:`featurize.metabolic.reaction_kinds.REACTION_KINDS` order
(``role_kinds_``).
"""

from __future__ import annotations

import numpy as np

from featurize.metabolic.pairs.adjacency import SAME_KIND_ITEMS
from featurize.metabolic.pairs.base import NetworkBlock

__all__ = ["RoleBlock"]


class RoleBlock(NetworkBlock):
    """The ``role_<kind>`` blocks (motif-independent)."""

    name = "role"
    param = "reaction_kinds"
    config_key = "metabolic.kind_features"
    items = SAME_KIND_ITEMS
    per_motif = False

    def prepare(self, index, cache):
        """Per gene, how many model reactions (each counted once, whatever its
        directions) it catalyses in all and per kind."""
        self.index = index
        model = index.model
        kind_of_model = {m: index.kind_of[r] for r, m in model.of.items()}
        self._model_kind = np.array([kind_of_model[m] for m in model.ids])
        self.kinds = index.kinds_with_genes
        n = index.n_genes
        self._total = np.zeros(n)
        self._per_kind: dict[str, np.ndarray] = {}
        for m, gs in model.genes.items():
            idx = [index.gid[g] for g in gs]
            self._total[idx] += 1
            self._per_kind.setdefault(kind_of_model[m], np.zeros(n))[idx] += 1

    def block_names(self):
        return [f"{self.name}_{k}" for k in self.kinds]

    def block(self, reaction, g_gids, motif=None):
        """``log(1 + m_k)`` and ``m_k / m`` over the other model reactions the
        candidate catalyses, in the block of the reaction's kind (NaN when
        ``m = 0``, and in every other kind's block)."""
        index = self.index
        kind = index.kind_of[reaction]
        mine = index.own_models(reaction)
        catalyses = index.model.catalyses
        own = np.asarray(catalyses[mine].sum(axis=0)).reshape(-1)
        own_k = np.asarray(catalyses[mine[self._model_kind[mine] == kind]].sum(axis=0)).reshape(-1)
        m = (self._total - own)[g_gids]
        k = self._per_kind.get(kind, np.zeros_like(own)) - own_k
        mk = k[g_gids]
        width = len(self.items)
        out = np.full((len(g_gids), width * len(self.kinds)), np.nan)
        if kind not in self.kinds:
            return out
        j = self.kinds.index(kind) * width
        ok = m > 0
        out[ok, j] = np.log1p(mk[ok])
        out[ok, j + 1] = mk[ok] / m[ok]
        return out
