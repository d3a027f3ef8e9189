"""Features of (reaction, candidate gene) pairs with structurally absent blocks.

After Chechik, Heitz, Elidan, Abbeel & Koller (JMLR 2008), section on the
metabolic task. An instance is a directed reaction ``r`` and a candidate gene
``g``. For each motif type ``t`` (fork, funnel, chain_up, chain_down) the
neighbour genes of ``r`` are the genes of the reactions related to ``r`` by
``t``, minus ``g`` and minus ``r``'s own genes. No neighbour: every data block
of type ``t`` is absent (NaN). Otherwise, per data source, ``g``'s relatedness
to its neighbours averaged over the neighbours that have data of that source.

One module per block family, in feature order (:mod:`.registry`):

===================  ================================  ========================  ========================
module               blocks (names in features)        PairFeaturizer parameter  config key
===================  ================================  ========================  ========================
:mod:`.expr`         ``<motif>:expr``                  ``sources["expr"]``       dataset ``expression``
:mod:`.domain`       ``<motif>:domain``                ``sources["domain"]``     dataset ``annotation``
:mod:`.loc`          ``<motif>:loc``                   ``sources["loc"]``        dataset ``localization``
:mod:`.adjacency`    ``<motif>:net``                   ``adjacency``             ``adjacency_features``
:mod:`.role`         ``candidate:role_<kind>``         ``reaction_kinds``        ``kind_features``
:mod:`.subsystem`    ``candidate:subsystem``           ``subsystems``            ``subsystem_features``
:mod:`.compound`     ``candidate:compound_<kind>``     ``compounds``             ``compound_features``
:mod:`.domain_kind`  ``candidate:domain_kind_<kind>``  ``domain_kinds``          ``domain_kind_features``
:mod:`.site`         ``candidate:site``                ``sites``                 ``site_features``
:mod:`.membrane`     ``candidate:membrane_<kind>``     ``membrane_genes``        ``membrane_features``
:mod:`.homology`     ``candidate:homology``            ``homology``              ``homology_features``
===================  ================================  ========================  ========================

(config keys under ``metabolic:``, dataset keys under
``metabolic.datasets.<dataset>``). :mod:`.featurizer` composes them
(:class:`PairFeaturizer`: layout, transform, caches), :mod:`.explanations`
holds the explanation API the ranking's evidence reads and :mod:`.sampling`
the training pairs (:func:`build_instances`, :func:`candidate_pools`).

Names. In code the concept "the candidate already catalyses reactions next
to ``r``" is *adjacency* (parameter ``adjacency``, :mod:`.adjacency`,
``AdjacencyBlock``, :meth:`PairFeaturizer.adjacency_reactions`). The strings
written to results keep their earlier spelling and are not renamed: the
config key ``adjacency_features``, the block name ``net``, its features
``adjacent_log1p_count`` and ``adjacent_fraction``, and the ranking's
evidence column ``catalyses_adjacent``. Restricting it to ``r``'s reaction
kind is *reaction kinds* (parameter ``reaction_kinds``, config key
``kind_features``): the ``same_kind_*`` features of the ``net`` block and the
``role_<kind>`` blocks (same item names). Blocks that do not depend on a
motif type are filed under the pseudo motif type ``candidate``
(:data:`.registry.CANDIDATE_MOTIF`).

With ``source_features="summary"`` every (motif, source) block is replaced by
a few numbers that summarise it, and that a linear model cannot derive from
the point-wise terms (:data:`SUMMARY_ITEMS`; each source module says which).
Absent exactly where the point-wise block is.

All three data sources are separable in ``g`` and the neighbours, so per
(reaction, motif, source) the neighbours' sums and counts are computed once
and removing ``g`` (or one more neighbour ``h``, to explain a score) is an
exact subtraction.

Gene ids are compared in their canonical form
(:func:`geomargin.featurize.metabolic.genes.canonical_gene_id`: upper case,
``YER060W_A`` == ``YER060W-A``).

Example
-------
>>> import pandas as pd
>>> from types import SimpleNamespace
>>> net = SimpleNamespace(reactions=pd.DataFrame(
...     {"reaction_id": ["A", "B"], "genes": [("G1",), ("G2",)]}, index=["A", "B"]))
>>> motifs = {"fork": {"A": frozenset({"B"}), "B": frozenset({"A"})}}
>>> loc = pd.DataFrame({"nucleus": [1, 0, 1]}, index=["G1", "G2", "G3"])
>>> f = PairFeaturizer(net, motifs, {"loc": loc})
>>> f.feature_names_
['fork:loc:nucleus', 'fork:net:adjacent_log1p_count', 'fork:net:adjacent_fraction']
>>> f.transform(["A", "A"], ["G3", "G2"]).round(3).tolist()   # G2 is A's only neighbour
[[1.0, 0.0, 0.0], [nan, 0.693, 1.0]]
"""

from geomargin.featurize.metabolic.pairs.featurizer import SOURCE_FEATURES, PairFeaturizer
from geomargin.featurize.metabolic.pairs.registry import SUMMARY_ITEMS
from geomargin.featurize.metabolic.pairs.sampling import build_instances, candidate_pools, fold_groups

__all__ = ["PairFeaturizer", "build_instances", "candidate_pools", "fold_groups", "SUMMARY_ITEMS", "SOURCE_FEATURES"]
