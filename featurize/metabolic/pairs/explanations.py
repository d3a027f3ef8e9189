"""What a pair's features are made of: the explanation API of :class:`PairFeaturizer`.

The ranking's evidence (:mod:`geomargin.rank.evidence`, the browser) reads
the neighbour genes behind each motif block, the features with one
neighbour removed at a time, the reactions behind the network blocks and the
standardized expression profiles. :class:`PairFeaturizer` inherits these
methods from :class:`PairExplanations`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from geomargin.common.exceptions import GeomarginInputError
from geomargin.featurize.metabolic.genes import canonical_gene_id

__all__ = ["PairExplanations", "homology_phrase"]


class PairExplanations:
    """Explanation methods of :class:`~geomargin.featurize.metabolic.pairs.PairFeaturizer`."""

    def neighbour_genes(self, reaction: str, gene: str) -> dict[str, list[str]]:
        """Neighbour genes of ``reaction`` per motif type for candidate ``gene``
        (``gene`` and the reaction's own genes excluded; canonical ids)."""
        self._check_reaction(reaction)
        g = canonical_gene_id(gene)[0]
        return {t: [h for h in self._index.neighbours(reaction, t) if h != g]
                for t in self.motif_types_}

    @property
    def evidence_names_(self) -> list[str]:
        """What :meth:`reaction_evidence` can name with this featurizer's
        blocks: ``"motifs"``, then the ``evidence_name`` of each
        motif-independent block family it has."""
        return ["motifs"] + [b.evidence_name for b in self._network_blocks.values()
                             if b.evidence_name is not None]

    def has_motif_gene(self, reaction: str) -> bool:
        """Whether some motif neighbour of ``reaction`` has a gene other than
        the reaction's own: the motif blocks can be present for its candidates."""
        return any(self.neighbour_genes(reaction, "").values())

    def reaction_evidence(self, reaction: str) -> list[str]:
        """What ties candidate genes to ``reaction`` at all, before any gene is scored.

        ``"motifs"`` when some motif neighbour of the reaction has a gene
        (the motif blocks can be present), then the ``evidence_name`` of
        each motif-independent block family that is present for some gene
        (``"subsystem"``: another reaction of its subsystem has a gene;
        ``"compounds"``: a gene catalyses another reaction of its kind on
        compounds with a formula), in feature order. Empty when nothing
        does: such a reaction cannot be ranked on evidence.
        """
        out = ["motifs"] if self.has_motif_gene(reaction) else []
        for b in self._network_blocks.values():
            if b.evidence_name is not None and b.has_evidence(reaction):
                out.append(b.evidence_name)
        return out

    def leave_one_out(self, reaction: str, gene: str) -> tuple[list[str], np.ndarray]:
        """Features of ``(reaction, gene)`` with one neighbour removed at a time.

        Returns
        -------
        neighbours : list of str
            Every neighbour gene of the pair (any motif type), sorted.
        X : ndarray (len(neighbours), n_features)
            Row i = the pair's features computed as if ``neighbours[i]`` were
            not a neighbour (in every motif where it is one).
        """
        (hs,), X = self.leave_one_out_many(reaction, [gene])
        return hs, X

    def leave_one_out_many(self, reaction: str, genes: Sequence[str]) -> tuple[list[list[str]], np.ndarray]:
        """:meth:`leave_one_out` for several candidates of one reaction, in one
        pass over the feature blocks (every row is computed as it would be
        alone).

        Returns
        -------
        neighbours : list of list of str
            Per candidate, its neighbour genes (any motif type), sorted.
        X : ndarray (sum of their lengths, n_features)
            The candidates' leave-one-out rows, stacked in candidate order.
        """
        hss = []
        for gene in genes:
            nb = self.neighbour_genes(reaction, gene)
            hss.append(sorted(set().union(*nb.values())) if nb else [])
        counts = [len(hs) for hs in hss]
        if not sum(counts):
            return hss, np.empty((0, self.n_features_))
        g = np.repeat(self._gids(list(genes)), counts)
        X = self._matrix(reaction, g, self._gids([h for hs in hss for h in hs]))
        return hss, X

    def related_reactions(self, reaction: str, motif: str) -> list[str]:
        """The reactions related to ``reaction`` by ``motif`` that its
        features read (its near-copies left out), sorted."""
        self._check_reaction(reaction)
        return sorted(self._index.motifs.get(motif, {}).get(reaction, ()))

    def near_copy_genes(self, reaction: str) -> list[str]:
        """Genes of ``reaction``'s near-copies (the other reactions of its
        ``fold_groups`` group), which its features never read; sorted,
        canonical ids."""
        self._check_reaction(reaction)
        genes_of = self._index.reaction_genes
        return sorted({g for o in self._index.near_copies(reaction) for g in genes_of[o]})

    def distinct_reactions(self, model_reactions) -> int:
        """How many distinct reactions the model reaction ids
        ``model_reactions`` are, a fold group counted once (as the
        ``role`` and ``subsystem`` blocks count them: ``NetworkIndex.units``)."""
        model, units = self._index.model, self._index.units
        return len({int(units.of_model[model.index[m]]) for m in model_reactions})

    def adjacency_reactions(self, reaction: str, gene: str) -> dict[str, list[str]]:
        """Per motif type, the reactions related to ``reaction`` that ``gene``
        catalyses (the evidence of the ``net`` block), sorted."""
        self._check_reaction(reaction)
        g = canonical_gene_id(gene)[0]
        genes_of = self._index.reaction_genes
        motifs = self._index.motifs
        return {t: sorted(o for o in motifs[t].get(reaction, ()) if g in genes_of[o])
                for t in self.motif_types_}

    def subsystem_reactions(self, reaction: str, gene: str) -> list[str]:
        """The other model reactions of ``reaction``'s subsystem(s) that
        ``gene`` catalyses (the evidence of the ``subsystem`` block), sorted;
        empty without the block."""
        self._check_reaction(reaction)
        if not self.subsystem_block_:
            return []
        gid = self._index.gid.get(canonical_gene_id(gene)[0])
        return self._network_blocks["subsystem"].reactions(reaction, gid)

    def compound_reactions(self, reaction: str, gene: str, top: int = 3) -> list[tuple[str, float]]:
        """The other model reactions of ``reaction``'s kind that ``gene``
        catalyses whose compounds are most like ``reaction``'s (the evidence
        of the ``compound`` block), as ``(model reaction, similarity)``, most
        similar first; empty without the block."""
        self._check_reaction(reaction)
        if not self.compound_kinds_:
            return []
        gid = self._index.gid.get(canonical_gene_id(gene)[0])
        return self._network_blocks["compound"].reactions(reaction, gid, top)

    def kind_domains(self, reaction: str, gene: str, top: int = 1) -> list[tuple[str, int, int]]:
        """The InterPro domains of ``gene`` whose other carriers most often
        catalyse a reaction of ``reaction``'s kind (the evidence of the
        ``domain_kind`` block), as ``(domain, carriers of that kind, other
        carriers)``, largest share first; empty without the block."""
        self._check_reaction(reaction)
        if not getattr(self, "domain_kinds_", []):
            return []
        gid = self._index.gid.get(canonical_gene_id(gene)[0])
        b = self._network_blocks["domain_kind"]
        return [(b.source.items_[d], n, m) for d, n, m in b.domains(reaction, gid, top)]

    def gene_sites(self, reaction: str, gene: str) -> tuple[list[str], list[str], list[str]]:
        """The evidence of the ``site`` block: ``(sites of the reaction's
        compartments, the gene's sites among them, the gene's other sites)``
        (:data:`geomargin.featurize.metabolic.pairs.site.SITES` order); three empty
        lists without the block."""
        self._check_reaction(reaction)
        if not getattr(self, "site_block_", False):
            return [], [], []
        b = self._network_blocks["site"]
        mine = b.gene_sites(self._index.gid.get(canonical_gene_id(gene)[0]))
        where = b.reaction_sites(reaction)
        return where, [s for s in mine if s in where], [s for s in mine if s not in where]

    def homologs(self, reaction: str, gene: str, top: int = 1) -> list[tuple[str, float, float, str, str]]:
        """The genes of the ``homology`` block most like ``gene`` for
        ``reaction`` (its evidence), as ``(gene, share of that gene's
        self-score, E-value, model reaction it catalyses there, that
        reaction's name)``, most similar first; empty without the block or
        without a homolog."""
        self._check_reaction(reaction)
        if not getattr(self, "homology_block_", False):
            return []
        b = self._network_blocks["homology"]
        gid = self._index.gid.get(canonical_gene_id(gene)[0])
        return [(self._index.universe[h], share, evalue, o, b.reaction_name(o) if o else "")
                for h, share, evalue, _, o in b.homologs(reaction, gid, top)]

    def expression_zscores(self, genes: Sequence[str]) -> pd.DataFrame:
        """Standardized expression profiles of ``genes`` (rows) over the
        conditions (columns): each profile minus its mean over its present
        conditions, divided by its (population) standard deviation there.
        NaN where the gene has no value, whole rows of NaN for genes without
        expression data (also fewer than two values or zero variance). The
        pair features use the same profiles divided by ``sqrt(n_present)``.
        """
        if "expr" not in self._sources:
            raise GeomarginInputError("expression_zscores: the featurizer has no 'expr' source")
        src = self._sources["expr"]
        rows = self._src_row["expr"][self._gids(list(genes))]
        return pd.DataFrame(src.zscores(rows), index=list(genes), columns=src.items_)


def homology_phrase(homologs: Sequence[tuple], names: Mapping[str, str]) -> str:
    """The evidence sentence's part for the best homolog of
    :meth:`PairExplanations.homologs`: who it is, what it does there, its
    share of its self-score and the E-value; "" without one.

    >>> homology_phrase([("YBR021W", 0.412, 1e-80, "r_1", "uracil transport")], {"YBR021W": "FUR4"})
    'similar to FUR4 (uracil transport), 41% of its self-score, E 1e-80'
    >>> homology_phrase([("YBR021W", 1.0, 0.0, "", "")], {})
    'similar to YBR021W, 100% of its self-score, E 0'
    """
    if not homologs:
        return ""
    gene, share, evalue, _, what = homologs[0]
    who = names.get(gene, "") or gene
    does = f" ({what})" if what else ""
    return f"similar to {who}{does}, {share:.0%} of its self-score, E {evalue:.0e}".replace("E 0e+00", "E 0")
