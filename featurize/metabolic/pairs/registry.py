"""The block families, in feature order.

Every motif type gets the blocks of the ``per_motif`` families in this order
(``expr``, ``domain``, ``loc``, then ``net``), motif type after motif type;
the motif-independent blocks of the candidate follow, under the pseudo motif
type :data:`CANDIDATE_MOTIF`: the ``role_<kind>`` blocks, ``subsystem``, the
``compound_<kind>`` blocks, the ``domain_kind_<kind>`` blocks, ``site``, the ``membrane_<kind>`` blocks, ``homology``. A new block is a module with one
:class:`~geomargin.featurize.metabolic.pairs.base.SourceBlock` or
:class:`~geomargin.featurize.metabolic.pairs.base.NetworkBlock` subclass, registered
here at its place in that order (and the :class:`PairFeaturizer` parameter
its ``param`` names).
"""

from __future__ import annotations

from geomargin.featurize.metabolic.pairs.adjacency import AdjacencyBlock
from geomargin.featurize.metabolic.pairs.compound import CompoundBlock
from geomargin.featurize.metabolic.pairs.domain import DomainBlock
from geomargin.featurize.metabolic.pairs.domain_kind import DomainKindBlock
from geomargin.featurize.metabolic.pairs.expr import ExprBlock
from geomargin.featurize.metabolic.pairs.homology import HomologyBlock
from geomargin.featurize.metabolic.pairs.loc import LocBlock
from geomargin.featurize.metabolic.pairs.membrane import MembraneBlock
from geomargin.featurize.metabolic.pairs.role import RoleBlock
from geomargin.featurize.metabolic.pairs.site import SiteBlock
from geomargin.featurize.metabolic.pairs.subsystem import SubsystemBlock

__all__ = ["BLOCKS", "SOURCE_KINDS", "SUMMARY_ITEMS", "CANDIDATE_MOTIF"]

#: Block families in feature order.
BLOCKS = (ExprBlock, DomainBlock, LocBlock, AdjacencyBlock, RoleBlock, SubsystemBlock, CompoundBlock,
          DomainKindBlock, SiteBlock, MembraneBlock, HomologyBlock)
#: Names of the data sources (keys of ``sources``), in feature order.
SOURCE_KINDS = tuple(b.name for b in BLOCKS if b.param == "sources")
#: Features of each (motif, source) block with ``source_features="summary"``.
SUMMARY_ITEMS = {b.name: b.items for b in BLOCKS if b.param == "sources"}
#: Pseudo motif type of the motif-independent blocks of the candidate in ``blocks_``.
CANDIDATE_MOTIF = "candidate"
