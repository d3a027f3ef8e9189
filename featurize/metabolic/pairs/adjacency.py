"""The ``net`` block (adjacency): the candidate already catalyses reactions next to ``r``.

Per motif type: ``log(1 + c)`` and ``c / n`` where ``n`` is the number of
reactions related to ``r`` by the motif type that have a gene and ``c`` how
many of them ``g`` catalyses (its gene rule names ``g``). Absent when
``n = 0``. The data blocks compare ``g`` with its neighbours and so leave
``g`` out of them; this block says what they cannot: that ``g`` already
catalyses a reaction next to ``r`` (multifunctional enzymes, complexes,
isozymes of a pathway). It is read from the configured network's gene rules
of the *other* reactions only, so an orphan reaction gets it exactly as a
reaction held out in validation does (the two directions of one model
reaction are never related, :func:`geomargin.featurize.metabolic.motifs.find_motifs`).

With ``reaction_kinds=True`` two more features count only the related
reactions of ``r``'s own kind (``net.reactions.reaction_kind``: enzymatic,
transport, spontaneous): ``log(1 + c_k)`` and ``c_k / n``. A transporter next
to an orphan transport reaction is evidence; the enzyme that makes the
transported compound is not.
"""

from __future__ import annotations

import numpy as np

from geomargin.featurize.metabolic.pairs.base import NetworkBlock

__all__ = ["AdjacencyBlock", "ADJACENCY_ITEMS", "SAME_KIND_ITEMS"]

#: Features of the ``net`` block of every motif type.
ADJACENCY_ITEMS = ("adjacent_log1p_count", "adjacent_fraction")
#: Features over the reactions of ``r``'s kind only (``reaction_kinds=True``):
#: the extra ``net`` features, and those of each ``role_<kind>`` block.
SAME_KIND_ITEMS = ("same_kind_log1p_count", "same_kind_fraction")


class AdjacencyBlock(NetworkBlock):
    """The ``net`` block of each motif type.

    Parameters
    ----------
    reaction_kinds : bool
        Add the :data:`SAME_KIND_ITEMS` features.
    """

    name = "net"
    param = "adjacency"
    config_key = "metabolic.adjacency_features"
    items = ADJACENCY_ITEMS
    per_motif = True

    def __init__(self, reaction_kinds: bool):
        self.reaction_kinds = reaction_kinds

    @classmethod
    def create(cls, featurizer):
        return cls(featurizer.reaction_kinds)

    def prepare(self, index, cache):
        self.index, self.cache = index, cache

    def block_items(self, source_features):
        return ADJACENCY_ITEMS + (SAME_KIND_ITEMS if self.reaction_kinds else ())

    def counts(self, reaction: str, motif: str):
        """Per gene (every gene index, the last column all-zero), how many of
        the related reactions of type ``motif`` with a gene it catalyses (all,
        and of ``reaction``'s kind), and their number; None without one."""
        index = self.index
        related = sorted(o for o in index.motifs[motif].get(reaction, ()) if index.reaction_genes[o])
        adj = [index.rid[o] for o in related]
        if not adj:
            return None
        counts = np.asarray(index.catalyses[adj].sum(axis=0)).reshape(-1)
        same_counts = None
        if self.reaction_kinds:
            kind = index.kind_of[reaction]
            same = [i for o, i in zip(related, adj) if index.kind_of[o] == kind]
            same_counts = np.asarray(index.catalyses[same].sum(axis=0)).reshape(-1) if same \
                else np.zeros_like(counts)
        return counts, same_counts, len(adj)

    def block(self, reaction, g_gids, motif=None):
        """``log(1 + c)`` and ``c / n`` per candidate (NaN when no related
        reaction has a gene)."""
        got = self.cache.get(reaction, ("net", motif), lambda: self.counts(reaction, motif))
        if got is None:
            return np.full((len(g_gids), len(self.block_items("pointwise"))), np.nan)
        counts, same_counts, n = got
        c = counts[g_gids]  # gene -1 -> the all-zero last column
        cols = [np.log1p(c), c / n]
        if self.reaction_kinds:
            cs = same_counts[g_gids]
            cols += [np.log1p(cs), cs / n]
        return np.column_stack(cols)
