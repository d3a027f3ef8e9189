"""The ``role_<kind>`` blocks: how much of the candidate's other work is of ``r``'s kind.

What the candidate does elsewhere in the network: ``log(1 + m_k)`` and
``m_k / m`` where ``m`` is the number of *other* reactions (not ``r`` in
either direction, nor its near-copies: ``NetworkIndex.own_models``) whose
gene rule names ``g`` and ``m_k`` how many of them have ``r``'s kind ``k``. A
reaction is a model reaction, and a fold group
(``NetworkIndex.units``) counts as one: of kind ``k`` when a member of that
kind names ``g``. Only the block of ``r``'s own kind is present: "how
much of a transporter is g" is a question about a transport reaction and
undefined for an enzymatic one, so each kind's block gets its own weights
and its own place in the geometric margin's ``||w^(i)||``. Also absent when
``m = 0``: a gene that catalyses nothing else has no role to compare. One
block per reaction kind that at least one reaction with a gene has, in
:data:`geomargin.featurize.metabolic.reaction_kinds.REACTION_KINDS` order
(``role_kinds_``).
"""

from __future__ import annotations

import numpy as np

from geomargin.featurize.metabolic.pairs.adjacency import SAME_KIND_ITEMS
from geomargin.featurize.metabolic.pairs.base import NetworkBlock

__all__ = ["RoleBlock"]


class RoleBlock(NetworkBlock):
    """The ``role_<kind>`` blocks (motif-independent)."""

    name = "role"
    param = "reaction_kinds"
    config_key = "metabolic.kind_features"
    items = SAME_KIND_ITEMS
    per_motif = False

    def prepare(self, index, cache):
        """Per gene, how many units (model reactions, each counted once
        whatever its directions, near-copies together) it catalyses in all
        and per kind."""
        self.index = index
        self.kinds = index.kinds_with_genes
        self._total = np.asarray(index.units.catalyses.sum(axis=0)).reshape(-1)
        #: per kind, (units x genes) 0/1: a member of that kind names the gene
        self._unit_kind = index.unit_kind
        self._per_kind = index.unit_kind_counts

    def block_names(self):
        return [f"{self.name}_{k}" for k in self.kinds]

    def block(self, reaction, g_gids, motif=None):
        """``log(1 + m_k)`` and ``m_k / m`` over the other units the
        candidate catalyses, in the block of the reaction's kind (NaN when
        ``m = 0``, and in every other kind's block)."""
        index = self.index
        kind = index.kind_of[reaction]
        u = index.unit(reaction)
        own = index.units.catalyses[u].toarray().reshape(-1)
        m = (self._total - own)[g_gids]
        width = len(self.items)
        out = np.full((len(g_gids), width * len(self.kinds)), np.nan)
        if kind not in self.kinds:
            return out
        own_k = self._unit_kind[kind][u].toarray().reshape(-1)
        mk = (self._per_kind[kind] - own_k)[g_gids]
        j = self.kinds.index(kind) * width
        ok = m > 0
        out[ok, j] = np.log1p(mk[ok])
        out[ok, j + 1] = mk[ok] / m[ok]
        return out
