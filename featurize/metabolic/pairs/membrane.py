"""The ``membrane_<kind>`` blocks: is the candidate a membrane protein at all?

A transport reaction is carried by a protein in a membrane; most enzymes
are soluble. The motif blocks compare the candidate with the reaction's
neighbour genes, and ``domain_kind_<kind>`` asks what the other genes with
the candidate's domains do in the network; neither says whether the
candidate's own sequence has the domains of a membrane protein, which
matters most for a gene of a family of its own, or one whose relatives the
network names nowhere. The item ``membrane`` is 1 when the candidate has an
InterPro2GO row (``IEA``, computed from its sequence) for a GO id of
:data:`geomargin.featurize.metabolic.annotation.MEMBRANE_TERMS` (membrane, integral
component of membrane, transmembrane transport, transmembrane transporter
activity; :attr:`geomargin.featurize.metabolic.annotation.GeneAnnotation.membrane`),
0 when it has domain data (a row of the ``domain`` source) but no such row.

Only the block of ``r``'s kind is present (as ``role_<kind>``): a membrane
protein says one thing for a transport reaction and another for an
enzymatic one, so each kind gets its own weight. Absent for a candidate
without domain data (nothing is known of its sequence's domains). The block
reads no gene rule, so a held-out reaction gets it exactly as an orphan
does. The InterPro2GO mapping is curated per InterPro entry, not per gene:
in the time split it tells of a protein family, as the domain calls do, not
of a later finding about the gene.
"""

from __future__ import annotations

import numpy as np

from geomargin.featurize.metabolic.genes import canonical_gene_id
from geomargin.featurize.metabolic.pairs.base import NetworkBlock

__all__ = ["MembraneBlock"]


class MembraneBlock(NetworkBlock):
    """The ``membrane_<kind>`` blocks (motif-independent; need the ``domain``
    source and the membrane genes, ``PairFeaturizer(membrane_genes=...)``)."""

    name = "membrane"
    param = "membrane_genes"
    config_key = "metabolic.membrane_features"
    items = ("membrane",)
    per_motif = False
    source_name = "domain"

    def __init__(self, genes=frozenset()):
        self.genes = frozenset(canonical_gene_id(g)[0] for g in genes)

    @classmethod
    def enabled(cls, featurizer, sources) -> bool:
        return featurizer.membrane_genes is not None and "domain" in sources

    @classmethod
    def create(cls, featurizer):
        return cls(featurizer.membrane_genes)

    def prepare(self, index, cache):
        """Each gene's item: 1 (a membrane protein), 0 (domain data, not
        one) or NaN (no domain data); the last entry for an unknown gene."""
        self.index = index
        self.kinds = index.kinds_with_genes
        value = np.full(index.n_genes + 1, np.nan)
        for g in self.source.row:
            value[index.gid[g]] = 1.0 if g in self.genes else 0.0
        self._value = value

    def block_names(self):
        return [f"{self.name}_{k}" for k in self.kinds]

    def block(self, reaction, g_gids, motif=None):
        """The item in the block of the reaction's kind (NaN in every other
        kind's block, and for a candidate without domain data)."""
        out = np.full((len(g_gids), len(self.kinds)), np.nan)
        kind = self.index.kind_of[reaction]
        if kind in self.kinds:
            out[:, self.kinds.index(kind)] = self._value[np.asarray(g_gids, dtype=np.intp)]
        return out
