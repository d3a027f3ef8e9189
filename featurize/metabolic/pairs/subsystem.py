"""The ``subsystem`` block: the candidate already works in ``r``'s pathway.

As the configured network's own subsystem annotation says (no gene rule of
another model): ``log(1 + s)``, ``s / m`` and ``s / n_s``, where ``m`` is the
number of *other* reactions (not ``r`` in either direction, nor its
near-copies: ``NetworkIndex.own_models``) whose gene rule names ``g``, ``s``
how many of them share a subsystem with ``r``, and ``n_s`` how many other
reactions with a gene share a subsystem with ``r``. A reaction is a model
reaction, and a fold group (``NetworkIndex.units``: one lipid
reaction written once per acyl-chain combination) counts as one, with the
union of its members' genes and subsystems: a gene whose rule yeast-GEM
repeats on eight acyl forms of one transport has done one transport, not
eight. Absent when ``r`` has no subsystem, when no other reaction of its
subsystem has a gene (``n_s = 0``: nothing to compare with) and when ``m = 0``
(a gene that catalyses nothing else). The motif blocks see only reactions
that share a metabolite with ``r``; the enzymes of one pathway a step or more
away are seen here. The block exists only when some reaction with a gene has
a subsystem (``subsystem_block_``; iFF708 has none).
"""

from __future__ import annotations

import numpy as np

from geomargin.featurize.metabolic.pairs.base import NetworkBlock

__all__ = ["SubsystemBlock", "SUBSYSTEM_ITEMS"]

#: Features of the ``subsystem`` block.
SUBSYSTEM_ITEMS = ("same_subsystem_log1p_count", "same_subsystem_fraction", "subsystem_coverage")


class SubsystemBlock(NetworkBlock):
    """The ``subsystem`` block (motif-independent)."""

    name = "subsystem"
    param = "subsystems"
    config_key = "metabolic.subsystem_features"
    items = SUBSYSTEM_ITEMS
    per_motif = False
    evidence_name = "subsystem"

    def prepare(self, index, cache):
        """Model reactions and units (each counted once, whatever its
        directions) with their subsystems and genes."""
        self.index, self.cache = index, cache
        model, units = index.model, index.units
        sub_of: dict[str, frozenset] = {}
        for r, m in model.of.items():
            text = index.reactions.at[r, "subsystem"]
            subs = frozenset(x.strip() for x in str(text).split(";") if x.strip()) \
                if isinstance(text, str) else frozenset()
            sub_of[m] = sub_of.get(m, frozenset()) | subs
        self._sub_of = [sub_of[m] for m in model.ids]
        unit_subs: list[frozenset] = [frozenset()] * units.members.shape[0]
        for i, u in enumerate(units.of_model):
            unit_subs[u] = unit_subs[u] | self._sub_of[i]
        self._unit_sub_of = unit_subs
        has_gene = np.array([bool(model.genes[m]) for m in model.ids])
        self._unit_has_gene = (units.members @ has_gene.astype(float)) > 0
        self._total = np.asarray(units.catalyses.sum(axis=0)).reshape(-1)
        self.present = bool(any(s and g for s, g in zip(self._sub_of, has_gene)))

    def block_names(self):
        return [self.name] if self.present else []

    def counts(self, reaction: str):
        """Per gene (every gene index), ``s`` and ``m`` of the block, and
        ``n_s``, over units; None where the block is absent for every gene."""
        units = self.index.units
        u = self.index.unit(reaction)
        subs = self._unit_sub_of[u]
        if not subs:
            return None
        same = np.fromiter((bool(subs & s) for s in self._unit_sub_of), dtype=bool,
                           count=len(self._unit_sub_of))
        same[u] = False
        same &= self._unit_has_gene
        n_s = int(same.sum())
        if n_s == 0:
            return None
        own = units.catalyses[u].toarray().reshape(-1)
        s = np.asarray(units.catalyses[np.flatnonzero(same)].sum(axis=0)).reshape(-1)
        return s, self._total - own, n_s

    def _cached_counts(self, reaction: str):
        return self.cache.get(reaction, "subsystem", lambda: self.counts(reaction))

    def has_evidence(self, reaction: str) -> bool:
        """Another model reaction of ``reaction``'s subsystem has a gene
        (``n_s > 0``); its genes then have ``m > 0``, so the block is present."""
        return self.present and self._cached_counts(reaction) is not None

    def block(self, reaction, g_gids, motif=None):
        """``log(1 + s)``, ``s / m`` and ``s / n_s``; NaN when r has no
        subsystem, ``n_s = 0`` or ``m = 0``."""
        out = np.full((len(g_gids), len(self.items)), np.nan)
        got = self._cached_counts(reaction)
        if got is None:
            return out
        s_all, m_all, n_s = got
        m, s = m_all[g_gids], s_all[g_gids]
        ok = m > 0
        out[ok, 0] = np.log1p(s[ok])
        out[ok, 1] = s[ok] / m[ok]
        out[ok, 2] = s[ok] / n_s
        return out

    def reactions(self, reaction: str, gid: int | None) -> list[str]:
        """The other model reactions of ``reaction``'s subsystem(s) that the
        gene at ``gid`` catalyses, sorted: the evidence of the block."""
        model = self.index.model
        i = model.index[model.of[reaction]]
        subs = self._sub_of[i]
        if gid is None or not subs:
            return []
        col = model.catalyses[:, gid].toarray().reshape(-1)
        col[self.index.own_models(reaction)] = 0
        return sorted(model.ids[j] for j in np.flatnonzero(col) if subs & self._sub_of[j])
