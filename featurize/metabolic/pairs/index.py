"""The network as integer indices, shared by the feature blocks.

Genes are numbered over the *universe* (the network's genes and every gene
with data of a source, sorted); index -1 (the last column of every gene
matrix) stands for a gene nobody knows and is always zero. Directed
reactions are numbered in ``net.reactions`` order, model reactions (both
directions of a reversible reaction counted once) in their first
appearance.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import scipy.sparse as sp

from geomargin.common.exceptions import GeomarginInputError
from geomargin.featurize.metabolic.genes import canonical_gene_id
from geomargin.featurize.metabolic.reaction_kinds import REACTION_KINDS

__all__ = ["NetworkIndex", "ModelReactions", "ReactionUnits", "binary"]


@dataclass(frozen=True)
class ModelReactions:
    """Directed reaction -> model reaction (``of``) and, per model reaction,
    the union of the genes of its directions (``genes``, sorted tuples, in
    model order), the model reactions in that order (``ids``, ``index``) and
    which genes each names as a (model reactions x genes) 0/1 matrix
    (``catalyses``; the last column, gene -1, all zero)."""

    of: dict[str, str]
    genes: dict[str, tuple[str, ...]]
    ids: list[str]
    index: dict[str, int]
    catalyses: sp.csr_matrix


@dataclass(frozen=True)
class ReactionUnits:
    """The model reactions counted as distinct reactions: each fold group
    (``fold_groups``) is one unit, every other model reaction
    its own. ``of_model[i]`` is the unit of model reaction ``i``; ``members``
    is a (units x model reactions) 0/1 matrix; ``catalyses`` (units x genes,
    0/1) says which genes some member names. yeast-GEM writes one lipid
    reaction once per acyl-chain combination, with the same gene rule: a gene
    that catalyses eight such copies catalyses one reaction."""

    of_model: np.ndarray
    members: sp.csr_matrix
    catalyses: sp.csr_matrix


class NetworkIndex:
    """Reactions, their genes and the motifs of a network, as indices.

    Parameters
    ----------
    reactions : DataFrame
        ``net.reactions`` (directed reactions).
    reaction_genes : dict
        Directed reaction id -> sorted tuple of canonical gene ids.
    motifs : dict
        ``motifs[t][r]`` = directed reactions related to ``r`` by motif type ``t``.
    universe : list of str
        Every gene id the featurizer knows, sorted.
    fold_groups : mapping or None
        Directed reaction id -> the label of its fold group
        (:func:`geomargin.featurize.metabolic.pairs.sampling.fold_groups`). A reaction
        never reads the gene rules of its own group: its group's reactions
        are dropped from its motifs (``motifs`` here is the filtered copy) and
        counted as its own model reactions (:meth:`own_models`). None: each
        model reaction (both directions) is its own group.
    """

    def __init__(self, reactions: pd.DataFrame, reaction_genes: dict[str, tuple[str, ...]],
                 motifs: Mapping[str, Mapping[str, frozenset]], universe: list[str],
                 fold_groups: Mapping[str, object] | None = None):
        self.reactions = reactions
        self.reaction_genes = reaction_genes
        self.group_of = None if fold_groups is None else \
            {str(r): fold_groups[r] for r in reaction_genes}
        if self.group_of is not None:
            group_of = self.group_of
            motifs = {t: {r: frozenset(o for o in others if group_of[o] != group_of[r])
                          for r, others in rel.items()} for t, rel in motifs.items()}
        self.motifs = motifs
        self.universe = universe
        self.gid = {g: i for i, g in enumerate(universe)}
        #: reactions x genes (universe, plus a last all-zero column for gene -1)
        self.rid = {r: i for i, r in enumerate(reaction_genes)}
        pairs = [(self.rid[r], self.gid[g]) for r, gs in reaction_genes.items() for g in gs]
        rows, cols = (np.array(v, dtype=np.intp) for v in zip(*pairs)) if pairs else \
            (np.empty(0, np.intp), np.empty(0, np.intp))
        self.catalyses = sp.csr_matrix((np.ones(len(pairs)), (rows, cols)),
                                       shape=(len(self.rid), len(universe) + 1))

    @property
    def n_genes(self) -> int:
        """Number of gene indices, with the last (-1) one for unknown genes."""
        return len(self.universe) + 1

    def gids(self, genes: Sequence[str]) -> np.ndarray:
        """Gene indices of ``genes`` (any id form), -1 for unknown genes."""
        get = self.gid.get
        return np.fromiter((get(canonical_gene_id(g)[0], -1) for g in genes),
                           dtype=np.intp, count=len(genes))

    def neighbours(self, reaction: str, motif: str) -> list[str]:
        """Genes of the reactions related to ``reaction`` by ``motif``, minus
        ``reaction``'s own genes, sorted."""
        own = set(self.reaction_genes[reaction])
        out = set()
        for o in self.motifs[motif].get(reaction, ()):
            out.update(self.reaction_genes[o])
        return sorted(out - own)

    @cached_property
    def model(self) -> ModelReactions:
        """The model reactions (computed on first use)."""
        reactions = self.reactions
        model = reactions["reaction_id"] if "reaction_id" in reactions.columns \
            else pd.Series(reactions.index, index=reactions.index)
        model_of = {str(r): str(m) for r, m in model.items()}
        genes: dict[str, set] = {}
        for r, m in model_of.items():
            genes.setdefault(m, set()).update(self.reaction_genes[r])
        model_genes = {m: tuple(sorted(gs)) for m, gs in genes.items()}
        ids = list(model_genes)
        rows = [i for i, m in enumerate(ids) for _ in model_genes[m]]
        cols = [self.gid[g] for m in ids for g in model_genes[m]]
        catalyses = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(ids), self.n_genes))
        return ModelReactions(model_of, model_genes, ids, {m: i for i, m in enumerate(ids)}, catalyses)

    @cached_property
    def _members(self) -> dict[object, tuple[str, ...]]:
        """Group label -> its directed reactions, sorted (empty without groups)."""
        members: dict[object, list] = {}
        for r, label in (self.group_of or {}).items():
            members.setdefault(label, []).append(r)
        return {label: tuple(sorted(rs)) for label, rs in members.items()}

    @cached_property
    def _own_models(self) -> dict[str, np.ndarray]:
        """Directed reaction -> indices of the model reactions of its group."""
        model = self.model
        if self.group_of is None:
            return {r: np.array([model.index[m]], dtype=np.intp) for r, m in model.of.items()}
        arrays = {label: np.array(sorted({model.index[model.of[r]] for r in rs}), dtype=np.intp)
                  for label, rs in self._members.items()}
        return {r: arrays[label] for r, label in self.group_of.items()}

    @cached_property
    def units(self) -> ReactionUnits:
        """The model reactions as distinct reactions (:class:`ReactionUnits`);
        without ``fold_groups`` each model reaction is its own unit. Both
        directions of a model reaction must be in one group."""
        model = self.model
        if self.group_of is None:
            labels: list = list(range(len(model.ids)))
        else:
            label_of: dict[str, object] = {}
            for r, label in self.group_of.items():
                first = label_of.setdefault(model.of[r], label)
                if first != label:
                    raise GeomarginInputError(
                        f"fold_groups puts the directions of model reaction {model.of[r]!r} in "
                        f"groups {first!r} and {label!r}; expected one group per model reaction")
            labels = [label_of[m] for m in model.ids]
        number: dict[object, int] = {}
        of_model = np.fromiter((number.setdefault(x, len(number)) for x in labels),
                               dtype=np.intp, count=len(labels))
        members = sp.csr_matrix((np.ones(len(labels)), (of_model, np.arange(len(labels)))),
                                shape=(len(number), len(labels)))
        return ReactionUnits(of_model, members, binary(members @ model.catalyses))

    def unit(self, reaction: str) -> int:
        """The unit (:attr:`units`) of directed ``reaction``: its fold group."""
        model = self.model
        return int(self.units.of_model[model.index[model.of[reaction]]])

    def near_copies(self, reaction: str) -> tuple[str, ...]:
        """The other directed reactions of ``reaction``'s group, sorted
        (empty without ``fold_groups``)."""
        if self.group_of is None:
            return ()
        return tuple(o for o in self._members[self.group_of[reaction]] if o != reaction)

    def own_models(self, reaction: str) -> np.ndarray:
        """Indices (into ``model.ids``) of the model reactions whose gene rules
        ``reaction``'s features never read: its own (both directions) and,
        with ``fold_groups``, those of its near-copies; sorted."""
        return self._own_models[reaction]

    @cached_property
    def kind_of(self) -> dict[str, str]:
        """Directed reaction -> reaction kind (``net.reactions.reaction_kind``, checked)."""
        kind_of = {str(r): str(k) for r, k in self.reactions["reaction_kind"].items()}
        unknown = sorted(set(kind_of.values()) - set(REACTION_KINDS))
        if unknown:
            bad = next(r for r, k in kind_of.items() if k == unknown[0])
            raise GeomarginInputError(
                f"net.reactions.reaction_kind of reaction {bad!r} is {unknown[0]!r}; expected one "
                f"of {REACTION_KINDS} (featurize.metabolic.reaction_kinds)")
        return kind_of

    @cached_property
    def unit_kind(self) -> dict[str, sp.csr_matrix]:
        """Per reaction kind, a (units x genes) 0/1 matrix: a member of the
        unit that has this kind names the gene (:attr:`units`; a model
        reaction's kind is that of its last direction)."""
        model, units = self.model, self.units
        kind_of_model = {m: self.kind_of[r] for r, m in model.of.items()}
        model_kind = np.array([kind_of_model[m] for m in model.ids])
        return {k: binary(units.members[:, np.flatnonzero(model_kind == k)] @ model.catalyses[model_kind == k])
                for k in sorted(set(model_kind))}

    @cached_property
    def unit_kind_counts(self) -> dict[str, np.ndarray]:
        """Per reaction kind, per gene: how many units of that kind name it
        (column sums of :attr:`unit_kind`)."""
        return {k: np.asarray(m.sum(axis=0)).reshape(-1) for k, m in self.unit_kind.items()}

    @cached_property
    def kinds_with_genes(self) -> list[str]:
        """Reaction kinds, in :data:`REACTION_KINDS` order, that some model
        reaction with a gene has (a model reaction's kind: that of its last
        direction)."""
        kind_of_model = {m: self.kind_of[r] for r, m in self.model.of.items()}
        return [k for k in REACTION_KINDS
                if any(kind_of_model[m] == k and gs for m, gs in self.model.genes.items())]


def binary(matrix: sp.spmatrix) -> sp.csr_matrix:
    """``matrix`` with every stored non-zero set to 1 (CSR)."""
    out = sp.csr_matrix(matrix)
    out.eliminate_zeros()
    out.data[:] = 1.0
    return out
