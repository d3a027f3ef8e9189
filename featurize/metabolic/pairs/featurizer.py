"""PairFeaturizer: composes the feature blocks, owns the layout, the transform and the caches.

The features themselves are defined in the block modules
(:mod:`geomargin.featurize.metabolic.pairs.registry` lists them in feature order); the
explanation methods are in :mod:`geomargin.featurize.metabolic.pairs.explanations`, the
feature scale and the float32 grid in :mod:`geomargin.featurize.metabolic.pairs.scale`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from geomargin.common.checks import boolean, int_at_least, one_of, positive_float, validate_params
from geomargin.common.exceptions import GeomarginInputError
from geomargin.common.parallel import contiguous_parts, fork_map
from geomargin.featurize.metabolic.genes import canonical_gene_id
from geomargin.featurize.metabolic.motifs import MOTIF_TYPES
from geomargin.featurize.metabolic.pairs.base import NetworkBlock, ReactionCache, SourceBlock, source_table
from geomargin.featurize.metabolic.pairs.explanations import PairExplanations
from geomargin.featurize.metabolic.pairs.index import NetworkIndex
from geomargin.featurize.metabolic.pairs.registry import BLOCKS, CANDIDATE_MOTIF, SOURCE_KINDS
from geomargin.featurize.metabolic.pairs.scale import FeatureScale, float32_grid

__all__ = ["PairFeaturizer", "SOURCE_FEATURES"]

#: Values of the ``source_features`` parameter of :class:`PairFeaturizer`.
SOURCE_FEATURES = ("pointwise", "summary")

#: Candidate batches whose gene ids and gathered per-gene data a featurizer
#: keeps (:meth:`PairFeaturizer.candidate_matrix`): scoring one reaction on
#: every batch of a candidate list, then the next reaction, gathers each
#: batch once.
RECENT_BATCHES = 8


class PairFeaturizer(PairExplanations, FeatureScale):
    """Absent-feature matrix for (directed reaction, candidate gene) pairs.

    Parameters
    ----------
    net : DirectedNetwork-like
        ``net.reactions`` DataFrame indexed by directed reaction id with a
        ``genes`` column of tuples of gene ids.
    motifs : dict
        ``motifs[t][r]`` = set of directed reaction ids related to ``r`` by
        motif type ``t`` (see :func:`geomargin.featurize.metabolic.motifs.find_motifs`).
    sources : dict
        Any subset of ``{"expr": genes x conditions (float, NaN missing),
        "domain": genes x domains (0/1 or counts), "loc": genes x compartments
        (0/1)}``.
    min_domain_genes : int, default 2
        Keep domains present in at least this many genes of the network.
    domain_eps : float, default 0.01
        Pseudo-count added to every domain count before normalizing.
    adjacency : bool, default True
        Add the ``net`` block per motif type (how many of the related
        reactions the candidate already catalyses).
    source_features : {"pointwise", "summary"}, default "pointwise"
        How each data source (expression, domains, localization) fills a
        (motif, source) block: the paper's point-wise features, one per
        condition / domain / compartment, or a few summaries per block
        (package docstring).
    reaction_kinds : bool, default False
        Add the same-kind ``net`` features and the ``role_<kind>`` blocks (package
        docstring). Needs ``net.reactions.reaction_kind`` (as built by
        :func:`geomargin.featurize.metabolic.network.build_directed_network`) and ``adjacency``.
    subsystems : bool, default False
        Add the ``subsystem`` block (package docstring). Needs
        ``net.reactions.subsystem`` (";"-joined names, "" for none).
    compounds : bool, default False
        Add the ``compound_<kind>`` blocks (package docstring). Needs
        ``reaction_kinds`` and ``net.formulas``, ``net.substrates`` and
        ``net.products`` (as built by
        :func:`geomargin.featurize.metabolic.network.build_directed_network`).
    domain_kinds : bool, default False
        Add the ``domain_kind_<kind>`` blocks (package docstring). Needs
        ``reaction_kinds`` for its kinds and the ``domain`` source.
    sites : bool, default False
        Add the ``site`` block (package docstring): the candidate's
        localization against the reaction's compartments. Needs the ``loc``
        source and ``net.reactions.compartments`` (as built by
        :func:`geomargin.featurize.metabolic.network.build_directed_network`).
    membrane_genes : collection of str or None, default None
        Add the ``membrane_<kind>`` blocks (package docstring): the genes
        that are membrane proteins by their domains
        (:attr:`geomargin.featurize.metabolic.annotation.GeneAnnotation.membrane`);
        the other genes of the ``domain`` source are not. Needs
        ``reaction_kinds`` for its kinds and the ``domain`` source. None:
        no such block.
    homology : Homology or None, default None
        Add the ``homology`` block (package docstring): the phmmer hits
        between the model's genes and the proteome, and which genes have a
        sequence (:class:`geomargin.featurize.metabolic.homology.Homology`). Its
        ``compound_max`` item needs ``net.reactions.reaction_kind`` and
        ``net.formulas``, ``net.substrates`` and ``net.products`` (absent
        without them), its ``subsystem_max`` item
        ``net.reactions.subsystem``. None: no such block.
    fold_groups : mapping or None, default None
        Directed reaction id -> label of its fold group, e.g. a
        :func:`geomargin.featurize.metabolic.pairs.sampling.fold_groups` Series (one
        acyltransferase written once per acyl-chain combination). The
        features of a reaction never read the gene rules of its group: its
        group's reactions are not its motif neighbours, and the network
        blocks count them as its own model reaction. The validation holds a
        group out together; without this its held-out members would still
        see each other's genes through the features, which no orphan whose
        near-copies are all orphans does. None: each model reaction (both
        directions) is its own group.

    Attributes
    ----------
    motif_types_ : list of str
    sources_ : list of str
        Data source kinds in feature order (expr, domain, loc); the ``net``
        block, when ``adjacency``, follows them in every motif type.
    feature_names_ : list of str
        ``"<motif>:<source>:<item>"``.
    groups_ : ndarray of int
        Block id per feature: one id per (motif type, source) block, in
        feature order.
    blocks_ : list of (motif, source, slice)
        The ``role_<kind>`` blocks are ``("candidate", "role_<kind>", slice)``, then
        the ``("candidate", "subsystem", slice)`` block, then the
        ``("candidate", "compound_<kind>", slice)`` blocks, then the
        ``("candidate", "domain_kind_<kind>", slice)`` blocks, then the
        ``("candidate", "site", slice)`` block, then the
        ``("candidate", "membrane_<kind>", slice)`` blocks, then the
        ``("candidate", "homology", slice)`` block, last.
    role_kinds_ : list of str
        Reaction kinds with a ``role_<kind>`` block.
    subsystem_block_ : bool
        Whether the ``subsystem`` block is there (``subsystems`` and some
        reaction with a gene has a subsystem).
    compound_kinds_ : list of str
        Reaction kinds with a ``compound_<kind>`` block.
    domain_kinds_ : list of str
        Reaction kinds with a ``domain_kind_<kind>`` block.
    site_block_ : bool
        Whether the ``site`` block is there.
    membrane_kinds_ : list of str
        Reaction kinds with a ``membrane_<kind>`` block.
    homology_block_ : bool
        Whether the ``homology`` block is there.
    genes_with_data_ : list of str
        Canonical ids of genes with data of at least one source.
    feature_scale_ : ndarray or None
        Per-feature multiplier applied to every matrix this featurizer returns
        once :meth:`fit_feature_scale` has been called (None before).

    Every matrix it returns, and the scale, are rounded to float32 values
    (:func:`float32_grid`): the same features on any CPU.
    """

    _parameter_constraints = {
        "min_domain_genes": int_at_least(1),
        "domain_eps": positive_float(),
        "adjacency": boolean(),
        "source_features": one_of(*SOURCE_FEATURES),
        "reaction_kinds": boolean(),
        "subsystems": boolean(),
        "compounds": boolean(),
        "domain_kinds": boolean(),
        "sites": boolean(),
        "membrane_genes": (lambda v: v is None or (isinstance(v, (set, frozenset, list, tuple))
                                                    and all(isinstance(g, str) for g in v)),
                           "None or a collection of gene ids (str)"),
        "homology": (lambda v: v is None or (hasattr(v, "shares") and hasattr(v, "sequenced")),
                     "None or a featurize.metabolic.homology.Homology"),
    }

    def __init__(self, net, motifs: Mapping[str, Mapping[str, frozenset]],
                 sources: Mapping[str, pd.DataFrame], min_domain_genes: int = 2,
                 domain_eps: float = 0.01, adjacency: bool = True,
                 source_features: str = "pointwise", reaction_kinds: bool = False,
                 subsystems: bool = False, compounds: bool = False, domain_kinds: bool = False,
                 sites: bool = False, membrane_genes=None, homology=None,
                 fold_groups: Mapping[str, object] | None = None):
        reactions = getattr(net, "reactions", None)
        if not isinstance(reactions, pd.DataFrame) or "genes" not in reactions.columns:
            raise GeomarginInputError(
                "PairFeaturizer: net.reactions must be a DataFrame with a 'genes' column "
                "(tuples of gene ids), as built by featurize.metabolic.network.build_directed_network")
        self.net = net
        self.motifs = motifs
        self.min_domain_genes = min_domain_genes
        self.domain_eps = domain_eps
        self.adjacency = adjacency
        self.source_features = source_features
        self.reaction_kinds = reaction_kinds
        self.subsystems = subsystems
        self.compounds = compounds
        self.domain_kinds = domain_kinds
        self.sites = sites
        self.membrane_genes = membrane_genes
        self.homology = homology
        self.fold_groups = fold_groups
        validate_params(self)
        self.min_domain_genes = int(min_domain_genes)
        self.domain_eps = float(domain_eps)
        self.adjacency, self.reaction_kinds = bool(adjacency), bool(reaction_kinds)
        self.subsystems, self.compounds = bool(subsystems), bool(compounds)
        self.domain_kinds, self.sites = bool(domain_kinds), bool(sites)
        self._check_inputs(net, sources)

        genes_of: dict[str, tuple[str, ...]] = {}
        for r, gs in reactions["genes"].items():
            if isinstance(gs, str) or not isinstance(gs, (tuple, list, frozenset, set)):
                raise GeomarginInputError(
                    f"net.reactions.genes of reaction {r!r} is {gs!r}; expected a tuple of gene ids")
            genes_of[str(r)] = tuple(sorted({canonical_gene_id(g)[0] for g in gs}))
        self.motif_types_ = [t for t in MOTIF_TYPES if t in motifs] + \
            sorted(t for t in motifs if t not in MOTIF_TYPES)
        for t in self.motif_types_:
            for r, others in motifs[t].items():
                missing = [o for o in others if o not in genes_of]
                if r not in genes_of or missing:
                    bad = r if r not in genes_of else missing[0]
                    raise GeomarginInputError(
                        f"motifs[{t!r}] names reaction {bad!r}, which is not in net.reactions")
        network_genes = sorted({g for gs in genes_of.values() for g in gs})
        if fold_groups is not None:
            if not isinstance(fold_groups, (Mapping, pd.Series)):
                raise GeomarginInputError(
                    f"fold_groups is a {type(fold_groups).__name__}; expected a mapping or a "
                    "pandas Series from directed reaction id to group label, or None")
            missing = [r for r in genes_of if r not in fold_groups]
            if missing:
                raise GeomarginInputError(
                    f"fold_groups has no group for reaction {missing[0]!r} ({len(missing)} of "
                    f"{len(genes_of)} reactions of net.reactions); expected one label per directed reaction "
                    "(featurize.metabolic.pairs.sampling.fold_groups)")

        families = [cls.create(self) for cls in BLOCKS if cls.enabled(self, sources)]
        self._sources: dict[str, SourceBlock] = {}
        for b in families:
            if isinstance(b, SourceBlock):
                b.prepare(source_table(sources[b.name], b.name), network_genes)
                self._sources[b.name] = b
        self.sources_ = list(self._sources)
        universe = sorted(set(network_genes).union(*[s.row for s in self._sources.values()]))
        self._index = NetworkIndex(reactions, genes_of, motifs, universe, fold_groups)
        # _src_row[kind][gid] -> row in that source's arrays; last entry (gid -1) = null row
        self._src_row = {}
        for kind, s in self._sources.items():
            rows = np.full(len(universe) + 1, s.null, dtype=np.intp)
            for g, i in s.row.items():
                rows[self._index.gid[g]] = i
            self._src_row[kind] = rows
        # the gene ids and gathered data of recent candidate batches (_recent)
        self._gid_recent: tuple = ()
        self._gather_recent: tuple = ()
        self._cache = ReactionCache()
        self.genes_with_data_ = sorted(set().union(*[s.row for s in self._sources.values()]))
        self._network_blocks: dict[str, NetworkBlock] = {}
        for b in families:
            if isinstance(b, NetworkBlock):
                if b.source_name:  # a network block that reads a data source
                    b.source = self._sources[b.source_name]
                b.prepare(self._index, self._cache)
                self._network_blocks[b.name] = b
        self._families = families
        self.role_kinds_ = list(getattr(self._network_blocks.get("role"), "kinds", []))
        self.subsystem_block_ = bool(self._network_blocks.get("subsystem") and
                                     self._network_blocks["subsystem"].block_names())
        self.compound_kinds_ = list(getattr(self._network_blocks.get("compound"), "kinds", []))
        self.domain_kinds_ = list(getattr(self._network_blocks.get("domain_kind"), "kinds", []))
        self.site_block_ = "site" in self._network_blocks
        self.membrane_kinds_ = list(getattr(self._network_blocks.get("membrane"), "kinds", []))
        self.homology_block_ = "homology" in self._network_blocks

        # the point-wise layout is always computed; "summary" derives from it
        _, _, self._pw_blocks, self._pw_n = self._layout("pointwise")
        self.feature_names_, self.groups_, self.blocks_, self.n_features_ = self._layout(source_features)
        self._pw_at = {(t, kind): sl for t, kind, sl in self._pw_blocks}
        self._block_at = {(t, kind): sl for t, kind, sl in self.blocks_}
        self.feature_scale_: np.ndarray | None = None

    def __setstate__(self, state: dict) -> None:
        """Load a pickled featurizer; one that holds ``representation``, the
        former name of ``source_features`` (:data:`geomargin.common.config_checks.RENAMED_KEYS`),
        loads with it as ``source_features``."""
        if "representation" in state and "source_features" not in state:
            state = {**state, "source_features": state["representation"]}
            del state["representation"]
        self.__dict__.update(state)

    def _check_inputs(self, net, sources) -> None:
        """Parameters that need each other, and what they need of the data."""
        reactions = net.reactions
        unknown = set(sources) - set(SOURCE_KINDS)
        if unknown or not sources:
            raise GeomarginInputError(
                f"PairFeaturizer: source names must be a non-empty subset of {SOURCE_KINDS}; "
                f"got {sorted(sources)}")
        if self.reaction_kinds and not self.adjacency:
            raise ValueError("The 'reaction_kinds' parameter of PairFeaturizer needs adjacency=True "
                             "(its features extend the net block); set both or neither.")
        if self.reaction_kinds and "reaction_kind" not in reactions.columns:
            raise GeomarginInputError(
                "PairFeaturizer(reaction_kinds=True): net.reactions has no 'reaction_kind' column; "
                "build the network with featurize.metabolic.network.build_directed_network, or pass "
                "reaction_kinds=False")
        if self.subsystems and "subsystem" not in reactions.columns:
            raise GeomarginInputError(
                "PairFeaturizer(subsystems=True): net.reactions has no 'subsystem' column; "
                "build the network with featurize.metabolic.network.build_directed_network, or pass "
                "subsystems=False")
        if self.compounds and not self.reaction_kinds:
            raise ValueError("The 'compounds' parameter of PairFeaturizer needs reaction_kinds=True "
                             "(one block per reaction kind); set both or neither.")
        if self.compounds and not all(isinstance(getattr(net, a, None), Mapping)
                                      for a in ("formulas", "substrates", "products")):
            raise GeomarginInputError(
                "PairFeaturizer(compounds=True): net has no 'formulas', 'substrates' and "
                "'products' mappings; build the network with "
                "featurize.metabolic.network.build_directed_network, or pass compounds=False")
        if self.domain_kinds and not self.reaction_kinds:
            raise ValueError("The 'domain_kinds' parameter of PairFeaturizer needs reaction_kinds=True "
                             "(one block per reaction kind); set both or neither.")
        if self.domain_kinds and "domain" not in sources:
            raise GeomarginInputError(
                "PairFeaturizer(domain_kinds=True): sources has no 'domain' table (genes x InterPro "
                f"domains; it has {sorted(sources)}); give one, or pass domain_kinds=False")
        if self.membrane_genes is not None and not self.reaction_kinds:
            raise ValueError("The 'membrane_genes' parameter of PairFeaturizer needs reaction_kinds=True "
                             "(one block per reaction kind); give both or neither.")
        if self.membrane_genes is not None and "domain" not in sources:
            raise GeomarginInputError(
                "PairFeaturizer(membrane_genes=...): sources has no 'domain' table (genes x InterPro "
                f"domains; it has {sorted(sources)}); give one, or pass membrane_genes=None")
        if self.sites and "loc" not in sources:
            raise GeomarginInputError(
                "PairFeaturizer(sites=True): sources has no 'loc' table (genes x compartments; it has "
                f"{sorted(sources)}); give one, or pass sites=False")
        if self.sites and "compartments" not in reactions.columns:
            raise GeomarginInputError(
                "PairFeaturizer(sites=True): net.reactions has no 'compartments' column; build the "
                "network with featurize.metabolic.network.build_directed_network, or pass sites=False")

    def _layout(self, source_features: str):
        """Feature names, group ids, ``(motif, block, slice)`` and the width
        of ``source_features``, in the order of
        :data:`~geomargin.featurize.metabolic.pairs.registry.BLOCKS`."""
        per_motif = [(b, kind) for b in self._families if b.per_motif for kind in b.block_names()]
        names, groups, blocks = [], [], []
        start = 0

        def add(motif, kind, items, group):
            nonlocal start
            names.extend(f"{motif}:{kind}:{it}" for it in items)
            groups.extend([group] * len(items))
            blocks.append((motif, kind, slice(start, start + len(items))))
            start += len(items)

        for ti, t in enumerate(self.motif_types_):
            for si, (b, kind) in enumerate(per_motif):
                add(t, kind, b.block_items(source_features), ti * len(per_motif) + si)
        for b in self._families:
            if not b.per_motif:
                for kind in b.block_names():
                    add(CANDIDATE_MOTIF, kind, b.block_items(source_features),
                        max(groups) + 1 if groups else 0)
        return names, np.asarray(groups, dtype=np.intp), blocks, start

    # -------------------------------------------------------------- neighbours
    def _check_reaction(self, r: str) -> None:
        if r not in self._index.reaction_genes:
            raise GeomarginInputError(f"reaction {r!r} is not in net.reactions")

    def _gids(self, genes: Sequence[str]) -> np.ndarray:
        return self._index.gids(genes)

    def _neighbour_gids(self, reaction: str, t: str) -> np.ndarray:
        """Gene indices of ``reaction``'s neighbour genes of type ``t`` (cached
        per reaction; callers index it, never write to it)."""
        return self._cache.get(reaction, ("nb", t),
                               lambda: self._gids(self._index.neighbours(reaction, t)))

    # ---------------------------------------------------------------- features
    def _gathered(self, g_gids: np.ndarray) -> dict[str, dict[str, np.ndarray]]:
        """Per-source data of the candidate genes (NaN rows for genes without
        data), kept for the last :data:`RECENT_BATCHES` batches: scoring many
        reactions on the same candidate batches gathers each once."""
        return self._recent("_gather_recent", g_gids.tobytes(), lambda: {
            kind: src.gather(self._src_row[kind][g_gids]) for kind, src in self._sources.items()})

    def _recent(self, name: str, key, compute):
        """``compute()`` for ``key``, from the cache ``name``: a tuple of the
        last :data:`RECENT_BATCHES` ``(key, value)`` pairs, newest first,
        read and replaced as a whole (threads sharing the featurizer never
        see a key with another key's value)."""
        entries = getattr(self, name, ())
        for cached_key, value in entries:
            if cached_key == key:
                return value
        value = compute()
        setattr(self, name, ((key, value),) + entries[:RECENT_BATCHES - 1])
        return value

    def _matrix(self, reaction: str, g_gids: np.ndarray, h_gids: np.ndarray | None = None,
                out: np.ndarray | None = None) -> np.ndarray:
        """Rows: candidate gene ``g_gids[i]`` with neighbour ``h_gids[i]``
        (if given, -1 for none) additionally removed."""
        n = len(g_gids)
        if out is None:
            X = np.empty((n, self.n_features_))
        else:
            if not (isinstance(out, np.ndarray) and out.dtype == np.float64
                    and out.shape == (n, self.n_features_) and out.flags.c_contiguous):
                raise ValueError("out must be a C-contiguous float64 array of shape "
                                 f"{(n, self.n_features_)}; got "
                                 f"{getattr(out, 'shape', None)} {getattr(out, 'dtype', None)}")
            X = out
        if self.source_features == "pointwise":
            self._pointwise(reaction, g_gids, h_gids, X)
        else:
            self._summarise(reaction, g_gids, h_gids, X)
        float32_grid(X)
        if self.feature_scale_ is not None:
            X *= self.feature_scale_
            float32_grid(X)
        return X

    def _summarise(self, reaction: str, g_gids: np.ndarray, h_gids: np.ndarray | None,
                   X: np.ndarray) -> None:
        """Summary features into ``X``: the block means straight from the
        neighbour sums (never the point-wise matrix), then the per-neighbour
        comparisons of every block."""
        means = self._pointwise(reaction, g_gids, h_gids, X, reduce=True)
        for t, kind, sl in self.blocks_:
            src = self._sources.get(kind)
            if src is None:
                continue  # a network block: written by _pointwise
            X[:, sl] = np.nan
            mean = means[t, kind]
            X[:, sl.start] = mean
            absent = np.isnan(mean)
            if absent.all():
                continue
            nb = self._neighbour_gids(reaction, t)
            rows = self._src_row[kind]
            keep = rows[nb] != src.null
            nb, nb_rows = nb[keep], rows[nb][keep]
            ok = np.flatnonzero(~absent)
            S = src.similarity(rows[g_gids[ok]], nb_rows)
            drop = nb[None, :] == g_gids[ok, None]
            if h_gids is not None:
                drop |= nb[None, :] == h_gids[ok, None]
            S[drop] = np.nan
            with np.errstate(all="ignore"):
                for j, column in enumerate(src.summaries(S), start=1):
                    X[ok, sl.start + j] = column

    def _pointwise(self, reaction: str, g_gids: np.ndarray, h_gids: np.ndarray | None,
                   X: np.ndarray, reduce: bool = False) -> dict | None:
        """The point-wise features (layout ``_pw_blocks``, unscaled) into ``X``.

        With ``reduce`` the data blocks are not written: their row sums (NaN
        where the block is absent) are returned per (motif, source), and the
        network blocks go to their places in ``blocks_``."""
        n = len(g_gids)
        at = self._block_at if reduce else self._pw_at
        means = {} if reduce else None
        gd = self._gathered(g_gids) if h_gids is None else None
        for b in self._network_blocks.values():
            kinds = b.block_names()
            if not b.per_motif and kinds:
                span = slice(at[CANDIDATE_MOTIF, kinds[0]].start, at[CANDIDATE_MOTIF, kinds[-1]].stop)
                X[:, span] = b.block(reaction, g_gids)
        for t in self.motif_types_:
            for b in self._network_blocks.values():
                if b.per_motif:
                    X[:, at[t, b.name]] = b.block(reaction, g_gids, t)
            B = self._neighbour_gids(reaction, t)
            if B.size == 0:
                for kind in self._sources:
                    if reduce:
                        means[t, kind] = np.full(n, np.nan)
                    else:
                        X[:, self._pw_at[t, kind]] = np.nan
                continue
            ex_g = np.isin(g_gids, B)
            removed = ex_g.astype(np.intp)
            ex_h = None
            if h_gids is not None:
                ex_h = np.isin(h_gids, B) & (h_gids != g_gids)
                removed = removed + ex_h
                special = np.ones(n, dtype=bool)
            else:
                special = ex_g
            sp = np.flatnonzero(special)
            nonempty = (B.size - removed[sp]) > 0
            for kind, src in self._sources.items():
                sl = self._pw_at[t, kind]
                if sl.stop == sl.start:
                    if reduce:
                        means[t, kind] = np.full(n, np.nan)
                    continue
                rows = self._src_row[kind]
                if gd is not None:
                    if reduce:
                        means[t, kind] = src.fast_sum(rows[B], gd[kind])
                    else:
                        src.fast_block(rows[B], gd[kind], X[:, sl])
                elif reduce:
                    means[t, kind] = np.full(n, np.nan)
                if sp.size:
                    g_rows = rows[g_gids[sp]]
                    subs = [np.where(ex_g[sp], g_rows, src.null)]
                    if ex_h is not None:
                        subs.append(np.where(ex_h[sp], rows[h_gids[sp]], src.null))
                    block = src.block(rows[B], g_rows, subs)
                    block[~nonempty] = np.nan
                    if reduce:
                        present = ~np.isnan(block).all(axis=1)
                        means[t, kind][sp] = np.where(present, np.nansum(block, axis=1), np.nan)
                    else:
                        X[sp, sl] = block
        return means

    def candidate_matrix(self, reaction: str, genes: Sequence[str],
                         out: np.ndarray | None = None) -> np.ndarray:
        """Features of ``reaction`` paired with every gene in ``genes``
        (n_genes, n_features), NaN = absent. One vectorised pass per block:
        memory is O(len(genes) x n_features).

        ``out``: optional C-contiguous float64 buffer of that shape to write
        into (reusing one buffer across reactions saves page faults).
        Scoring many reactions on the same gene lists reuses the gene ids
        and gathered per-gene data of the last :data:`RECENT_BATCHES` lists."""
        self._check_reaction(reaction)
        key = tuple(genes)
        gids = self._recent("_gid_recent", key, lambda: self._gids(list(key)))
        return self._matrix(reaction, gids, out=out)

    def transform(self, reactions: Sequence[str], genes: Sequence[str], n_jobs: int = 1) -> np.ndarray:
        """Features of the pairs ``(reactions[i], genes[i])``.

        ``n_jobs`` > 1 builds the rows of different reactions in that many
        forked processes (:func:`geomargin.common.parallel.fork_map`); every reaction's
        rows are built as in one process, so the matrix is the same."""
        reactions = [str(r) for r in reactions]
        genes = list(genes)
        if len(reactions) != len(genes):
            raise ValueError(f"transform: {len(reactions)} reactions but {len(genes)} genes; "
                             "give one gene per reaction (pairs)")
        X = np.full((len(genes), self.n_features_), np.nan)
        gids = self._gids(genes)
        order: dict[str, list[int]] = {}
        for i, r in enumerate(reactions):
            order.setdefault(r, []).append(i)
        for r in order:
            self._check_reaction(r)
        groups = [(r, np.asarray(idx)) for r, idx in order.items()]

        def build(part: list) -> list[np.ndarray]:
            return [self._matrix(r, gids[idx]) for r, idx in part]

        parts = contiguous_parts(groups, max(1, int(n_jobs)) * 4)
        for part, blocks in zip(parts, fork_map(build, parts, n_jobs=n_jobs, chunks_per_job=1)):
            for (_, idx), block in zip(part, blocks):
                X[idx] = block
        return X
