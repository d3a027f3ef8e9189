"""Features of (reaction, candidate gene) pairs with structurally absent blocks.

After Chechik, Heitz, Elidan, Abbeel & Koller (JMLR 2008), section on the
metabolic task. An instance is a directed reaction ``r`` and a candidate gene
``g``. For each motif type ``t`` (fork, funnel, chain_up, chain_down) the
neighbour genes of ``r`` are the genes of the reactions related to ``r`` by
``t``, minus ``g`` and minus ``r``'s own genes. No neighbour: the whole block of
type ``t`` is absent (NaN). Otherwise, per data source, ``g``'s relatedness to
its neighbours averaged over the neighbours that have data of that source:

``expr``
    one feature per condition k: ``z_g(k) * mean_h z_h(k)`` where each profile
    is centred (its mean over present conditions subtracted) and divided by its
    norm over present values, so that summing the terms over k gives Pearson's
    r. The mean runs over neighbours with a value at k; the feature is NaN
    where g has no value or no neighbour has one. Profiles with fewer than two
    values or zero variance count as no expression data.
``domain``
    one feature per InterPro domain seen in at least ``min_domain_genes``
    genes of the network: the point-wise symmetric Kullback-Leibler term
    ``(p_g(k) - p_h(k)) (log p_g(k) - log p_h(k))`` on smoothed
    domain-content distributions ``p_g = (a_g + eps) / sum_k (a_g(k) + eps)``
    with ``eps = domain_eps`` (default 0.01, a pseudo-count per domain), averaged over
    neighbours. A gene is without domain data if it has no domain at all in
    the table given (before the column filter); a gene whose domains are all
    rare gets the uniform distribution.
``loc``
    one feature per compartment: the point-wise Hamming distance
    ``|a_g(k) - a_h(k)|`` averaged over neighbours, ``a_g + m - 2 a_g m`` with
    ``m`` the neighbours' mean.
``net`` (``adjacency=True``, the default; from the network itself)
    two features: ``log(1 + c)`` and ``c / n`` where ``n`` is the number of
    reactions related to ``r`` by ``t`` that have a gene and ``c`` how many of
    them ``g`` catalyses (its gene rule names ``g``). Absent when ``n = 0``.
    The expression, domain and localization blocks compare ``g`` with its
    neighbours and so leave ``g`` out of them; this block says what they
    cannot: that ``g`` already catalyses a reaction next to ``r``
    (multifunctional enzymes, complexes, isozymes of a pathway). It is read
    from the configured network's gene rules of the *other* reactions only,
    so an orphan reaction gets it exactly as a reaction held out in
    validation does (the two directions of one model reaction are never
    related, :func:`featurize.metabolic.motifs.find_motifs`).
    With ``reaction_kinds=True`` two more features count only the related
    reactions of ``r``'s own kind (``net.reactions.reaction_kind``:
    enzymatic, transport, spontaneous): ``log(1 + c_k)`` and ``c_k / n``. A
    transporter next to an orphan transport reaction is evidence; the
    enzyme that makes the transported compound is not.
``role_<kind>`` (``reaction_kinds=True``; one block per reaction kind, not
per motif type)
    what the candidate does elsewhere in the network: ``log(1 + m_k)`` and
    ``m_k / m`` where ``m`` is the number of *other* model reactions (not
    ``r`` in either direction) whose gene rule names ``g`` and ``m_k`` how
    many of them have ``r``'s kind ``k``. Only the block of ``r``'s own kind
    is present: "how much of a transporter is g" is a question about a
    transport reaction and undefined for an enzymatic one, so each kind's
    block gets its own weights and its own place in the geometric margin's
    ``||w^(i)||``. Also absent when ``m = 0``: a gene that catalyses nothing
    else has no role to compare. Feature names
    ``candidate:role_<kind>:<item>``, kinds in
    :data:`featurize.metabolic.reaction_kinds.REACTION_KINDS` order, for the
    kinds that at least one reaction with a gene has (``role_kinds_``).
``subsystem`` (``subsystems=True``; one block, not per motif type)
    whether the candidate already works in ``r``'s pathway, as the
    configured network's own subsystem annotation says (no gene rule of
    another model): ``log(1 + s)``, ``s / m`` and ``s / n_s``, where ``m``
    is the number of *other* model reactions (not ``r`` in either direction)
    whose gene rule names ``g``, ``s`` how many of them share a subsystem
    with ``r``, and ``n_s`` how many other model reactions with a gene share
    a subsystem with ``r``. Absent when ``r`` has no subsystem, when no
    other reaction of its subsystem has a gene (``n_s = 0``: nothing to
    compare with) and when ``m = 0`` (a gene that catalyses nothing else).
    The motif blocks see only reactions that share a metabolite with ``r``;
    the enzymes of one pathway a step or more away are seen here. The block
    exists only when some reaction with a gene has a subsystem
    (``subsystem_block_``; iFF708 has none). Feature names
    ``candidate:subsystem:<item>``, after the ``role`` blocks.
``compound_<kind>`` (``compounds=True``, needs ``reaction_kinds``; one block
per reaction kind, only the block of ``r``'s kind present)
    whether the candidate acts on compounds *like* ``r``'s elsewhere: over
    the other model reactions of ``r``'s kind whose gene rule names ``g``
    (not ``r`` in either direction), the largest and the mean similarity
    ``sim(r, o) = max_{a in T(r), b in T(o)} exp(-||v_a - v_b||)`` where
    ``T`` are the compounds a reaction is about (for a transport reaction
    the carried ones) and ``v`` the log element counts of the model's own
    formulas (:mod:`featurize.metabolic.compounds`). The other blocks know
    which membrane a transport reaction crosses, not what it carries; with
    this one an amino acid permease looks unlike the carrier of a sugar or an
    alcohol. Absent when ``g`` has no other reaction of ``r``'s kind with a
    compound that has a formula, and for every gene when no compound of
    ``T(r)`` has one. Feature names ``candidate:compound_<kind>:<item>``, last.

With ``representation="summary"`` every (motif, source) block is replaced by
a few numbers that summarise it, and that a linear model cannot derive from
the point-wise terms: ``expr``: the mean r (the sum of the point-wise terms),
the largest r with one neighbour and the mean of the three largest; ``domain``:
the mean symmetric KL divergence (the sum of the point-wise terms), the
fraction of neighbours that share a domain with ``g`` and ``log(1 + the most
domains shared with one neighbour)``; ``loc``: the mean Hamming distance and
the fraction of neighbours that share a compartment. Absent exactly where
the point-wise block is.

All three are separable in ``g`` and the neighbours, so per (reaction, motif,
source) the neighbours' sums and counts are computed once and removing ``g``
(or one more neighbour ``h``, to explain a score) is an exact subtraction.

Gene ids are compared after :func:`featurize.metabolic.expression.normalize_gene_id`
(upper case, ``YER060W_A`` == ``YER060W-A``).

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

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import scipy.sparse as sp

from common.exceptions import GeomarginInputError
from featurize.metabolic.compounds import (characteristic_compounds, compound_similarity,
                                           compound_vectors)
from featurize.metabolic.expression import normalize_gene_id
from featurize.metabolic.motifs import MOTIF_TYPES
from featurize.metabolic.reaction_kinds import REACTION_KINDS

__all__ = ["PairFeaturizer", "build_instances", "MOTIF_ORDER", "SOURCE_KINDS", "ADJACENCY_ITEMS",
           "SAME_KIND_ITEMS", "ROLE_ITEMS", "ROLE_KINDS", "ROLE_MOTIF", "SUBSYSTEM_ITEMS", "COMPOUND_ITEMS",
           "SUMMARY_ITEMS", "REPRESENTATIONS"]

#: Motif types in feature order: those of :mod:`featurize.metabolic.motifs`, one definition.
MOTIF_ORDER = MOTIF_TYPES
SOURCE_KINDS = ("expr", "domain", "loc")
#: Features of the ``net`` block of every motif type (see the module docstring).
ADJACENCY_ITEMS = ("adjacent_log1p_count", "adjacent_fraction")
#: Extra ``net`` features with ``reaction_kinds=True``: related reactions of r's kind only.
SAME_KIND_ITEMS = ("same_kind_log1p_count", "same_kind_fraction")
#: Features of each ``role_<kind>`` block (``reaction_kinds=True``).
ROLE_ITEMS = ("same_kind_log1p_count", "same_kind_fraction")
#: Reaction kinds with a ``role_<kind>`` block, in feature order.
ROLE_KINDS = REACTION_KINDS
#: Pseudo motif type of the motif-independent ``role`` block in ``blocks_``.
ROLE_MOTIF = "candidate"
#: Features of the ``subsystem`` block (``subsystems=True``).
SUBSYSTEM_ITEMS = ("same_subsystem_log1p_count", "same_subsystem_fraction", "subsystem_coverage")
#: Features of each ``compound_<kind>`` block (``compounds=True``).
COMPOUND_ITEMS = ("max_similarity", "mean_similarity")
#: Features of each (motif, source) block with ``representation="summary"``.
SUMMARY_ITEMS = {"expr": ("r_mean", "r_max", "r_top3"),
                 "domain": ("kl_mean", "share_fraction", "shared_max_log1p"),
                 "loc": ("hamming_mean", "share_fraction")}
#: Values of the ``representation`` parameter of :class:`PairFeaturizer`.
REPRESENTATIONS = ("pointwise", "summary")


class _Source:
    """One data source as dense arrays over the genes that have its data, with
    one extra last row that contributes nothing (for 'no data' / 'not
    excluded')."""

    def __init__(self, kind: str, items: list[str], genes: list[str], arrays: dict):
        self.kind = kind
        self.items = items
        self.row = {g: i for i, g in enumerate(genes)}
        self.n = len(genes)          # index of the null row
        self.arrays = arrays         # each of shape (n + 1, n_items) or (n + 1,)


def _normalized_index(df: pd.DataFrame, name: str) -> pd.DataFrame:
    if not isinstance(df, pd.DataFrame):
        raise GeomarginInputError(f"sources[{name!r}] must be a pandas DataFrame "
                                  f"(genes x items); got {type(df).__name__}")
    df = df.copy()
    df.index = [normalize_gene_id(g) for g in df.index]
    if df.index.has_duplicates:
        dup = sorted(set(df.index[df.index.duplicated()]))[:5]
        raise GeomarginInputError(f"sources[{name!r}] has duplicate genes {dup} "
                                  "(after upper-casing); give one row per gene")
    try:
        df = df.astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise GeomarginInputError(f"sources[{name!r}] has non-numeric values: {exc}") from exc
    if np.isinf(df.to_numpy()).any():
        raise GeomarginInputError(f"sources[{name!r}] contains infinite values")
    return df


class PairFeaturizer:
    """Absent-feature matrix for (directed reaction, candidate gene) pairs.

    Parameters
    ----------
    net : DirectedNetwork-like
        ``net.reactions`` DataFrame indexed by directed reaction id with a
        ``genes`` column of tuples of gene ids.
    motifs : dict
        ``motifs[t][r]`` = set of directed reaction ids related to ``r`` by
        motif type ``t`` (see :func:`featurize.metabolic.motifs.find_motifs`).
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
    representation : {"pointwise", "summary"}, default "pointwise"
        The paper's point-wise features per condition / domain / compartment,
        or a few summaries per block (module docstring).
    reaction_kinds : bool, default False
        Add the same-kind ``net`` features and the ``role_<kind>`` blocks (module
        docstring). Needs ``net.reactions.reaction_kind`` (as built by
        :func:`featurize.metabolic.network.build_directed_network`) and ``adjacency``.
    subsystems : bool, default False
        Add the ``subsystem`` block (module docstring). Needs
        ``net.reactions.subsystem`` (";"-joined names, "" for none).
    compounds : bool, default False
        Add the ``compound_<kind>`` blocks (module docstring). Needs
        ``reaction_kinds`` and ``net.formulas``, ``net.substrates`` and
        ``net.products`` (as built by
        :func:`featurize.metabolic.network.build_directed_network`).

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
        ``("candidate", "compound_<kind>", slice)`` blocks, last.
    role_kinds_ : list of str
        Reaction kinds with a ``role_<kind>`` block.
    subsystem_block_ : bool
        Whether the ``subsystem`` block is there (``subsystems`` and some
        reaction with a gene has a subsystem).
    genes_with_data_ : list of str
        Normalized ids of genes with data of at least one source.
    feature_scale_ : ndarray or None
        Per-feature multiplier applied to every matrix this featurizer returns
        once :meth:`fit_feature_scale` has been called (None before).
    """

    def __init__(self, net, motifs: Mapping[str, Mapping[str, frozenset]],
                 sources: Mapping[str, pd.DataFrame], min_domain_genes: int = 2,
                 domain_eps: float = 0.01, adjacency: bool = True,
                 representation: str = "pointwise", reaction_kinds: bool = False,
                 subsystems: bool = False, compounds: bool = False):
        reactions = getattr(net, "reactions", None)
        if not isinstance(reactions, pd.DataFrame) or "genes" not in reactions.columns:
            raise GeomarginInputError(
                "PairFeaturizer: net.reactions must be a DataFrame with a 'genes' column "
                "(tuples of gene ids), as built by featurize.metabolic.network.build_directed_network")
        if not isinstance(min_domain_genes, (int, np.integer)) or min_domain_genes < 1:
            raise ValueError("The 'min_domain_genes' parameter of PairFeaturizer must be an "
                             f"int >= 1. Got {min_domain_genes!r} instead.")
        if not (isinstance(domain_eps, (int, float)) and np.isfinite(domain_eps) and domain_eps > 0):
            raise ValueError("The 'domain_eps' parameter of PairFeaturizer must be a float > 0. "
                             f"Got {domain_eps!r} instead.")
        unknown = set(sources) - set(SOURCE_KINDS)
        if unknown or not sources:
            raise GeomarginInputError(
                f"PairFeaturizer: source names must be a non-empty subset of {SOURCE_KINDS}; "
                f"got {sorted(sources)}")
        self.net = net
        self.motifs = motifs
        self.min_domain_genes = int(min_domain_genes)
        self.domain_eps = float(domain_eps)
        self.adjacency = _bool_param("adjacency", adjacency)
        if representation not in REPRESENTATIONS:
            raise ValueError("The 'representation' parameter of PairFeaturizer must be one of "
                             f"{REPRESENTATIONS}. Got {representation!r} instead.")
        self.representation = representation
        self.reaction_kinds = _bool_param("reaction_kinds", reaction_kinds)
        if self.reaction_kinds and not self.adjacency:
            raise ValueError("The 'reaction_kinds' parameter of PairFeaturizer needs adjacency=True "
                             "(its features extend the net block); set both or neither.")
        if self.reaction_kinds and "reaction_kind" not in reactions.columns:
            raise GeomarginInputError(
                "PairFeaturizer(reaction_kinds=True): net.reactions has no 'reaction_kind' column; "
                "build the network with featurize.metabolic.network.build_directed_network, or pass "
                "reaction_kinds=False")

        self.subsystems = _bool_param("subsystems", subsystems)
        if self.subsystems and "subsystem" not in reactions.columns:
            raise GeomarginInputError(
                "PairFeaturizer(subsystems=True): net.reactions has no 'subsystem' column; "
                "build the network with featurize.metabolic.network.build_directed_network, or pass "
                "subsystems=False")

        self.compounds = _bool_param("compounds", compounds)
        if self.compounds and not self.reaction_kinds:
            raise ValueError("The 'compounds' parameter of PairFeaturizer needs reaction_kinds=True "
                             "(one block per reaction kind); set both or neither.")
        if self.compounds and not all(isinstance(getattr(net, a, None), Mapping)
                                      for a in ("formulas", "substrates", "products")):
            raise GeomarginInputError(
                "PairFeaturizer(compounds=True): net has no 'formulas', 'substrates' and "
                "'products' mappings; build the network with "
                "featurize.metabolic.network.build_directed_network, or pass compounds=False")

        self._rgenes: dict[str, tuple[str, ...]] = {}
        for r, gs in reactions["genes"].items():
            if isinstance(gs, str) or not isinstance(gs, (tuple, list, frozenset, set)):
                raise GeomarginInputError(
                    f"net.reactions.genes of reaction {r!r} is {gs!r}; expected a tuple of gene ids")
            self._rgenes[str(r)] = tuple(sorted({normalize_gene_id(g) for g in gs}))
        self.motif_types_ = [t for t in MOTIF_ORDER if t in motifs] + \
            sorted(t for t in motifs if t not in MOTIF_ORDER)
        for t in self.motif_types_:
            for r, others in motifs[t].items():
                missing = [o for o in others if o not in self._rgenes]
                if r not in self._rgenes or missing:
                    bad = r if r not in self._rgenes else missing[0]
                    raise GeomarginInputError(
                        f"motifs[{t!r}] names reaction {bad!r}, which is not in net.reactions")
        network_genes = sorted({g for gs in self._rgenes.values() for g in gs})

        self._src: dict[str, _Source] = {}
        for kind in SOURCE_KINDS:
            if kind in sources:
                df = _normalized_index(sources[kind], kind)
                self._src[kind] = getattr(self, f"_prepare_{kind}")(df, network_genes)
        self.sources_ = list(self._src)

        universe = sorted(set(network_genes).union(*[s.row for s in self._src.values()]))
        self._gid = {g: i for i, g in enumerate(universe)}
        self._universe = universe
        # src_row[kind][gid] -> row in that source's arrays; last entry (gid -1) = null row
        self._src_row = {}
        for kind, s in self._src.items():
            rows = np.full(len(universe) + 1, s.n, dtype=np.intp)
            for g, i in s.row.items():
                rows[self._gid[g]] = i
            self._src_row[kind] = rows
        # one-entry caches, each a (key, value) tuple replaced as a whole
        # (safe when threads share the featurizer)
        self._gid_cache: tuple = (None, None)
        self._gather: tuple = (None, {})
        # per-reaction counts of the net and subsystem blocks over every gene
        # (explaining a reaction's candidates builds its matrices ~60 times)
        self._reaction_cache: tuple = (None, {})
        self.genes_with_data_ = sorted(set().union(*[s.row for s in self._src.values()]))
        # reactions x genes (universe, plus a last all-zero column for gid -1)
        rid = {r: i for i, r in enumerate(self._rgenes)}
        self._rid = rid
        pairs = [(rid[r], self._gid[g]) for r, gs in self._rgenes.items() for g in gs]
        rows_, cols_ = (np.array(v, dtype=np.intp) for v in zip(*pairs)) if pairs else \
            (np.empty(0, np.intp), np.empty(0, np.intp))
        self._catalyses = sp.csr_matrix((np.ones(len(pairs)), (rows_, cols_)),
                                        shape=(len(rid), len(universe) + 1))
        self.role_kinds_: list[str] = []
        if self.reaction_kinds or self.subsystems:
            self._prepare_model_reactions(reactions)
        if self.reaction_kinds:
            self._prepare_roles(reactions)
        self.subsystem_block_ = False
        if self.subsystems:
            self._prepare_subsystems(reactions)
        self.compound_kinds_: list[str] = []
        if self.compounds:
            self._prepare_compounds(net)

        if "domain" in self._src:  # 0/1 kept-domain membership, last row = nothing
            a = self._src["domain"].arrays
            n_rows = self._src["domain"].n
            self._dom_bin = sp.csr_matrix(
                (np.ones(len(a["cols"])), a["cols"], np.r_[a["indptr"][:n_rows + 1],
                                                            a["indptr"][n_rows]]),
                shape=(n_rows + 1, len(self._src["domain"].items)))

        kinds = self.sources_ + (["net"] if self.adjacency else [])

        def layout(items_of):
            names, groups, blocks = [], [], []
            start = 0
            for ti, t in enumerate(self.motif_types_):
                for si, kind in enumerate(kinds):
                    items = list(items_of(kind))
                    names += [f"{t}:{kind}:{it}" for it in items]
                    groups += [ti * len(kinds) + si] * len(items)
                    blocks.append((t, kind, slice(start, start + len(items))))
                    start += len(items)
            if self.reaction_kinds:
                for j, k in enumerate(self.role_kinds_):
                    names += [f"{ROLE_MOTIF}:role_{k}:{it}" for it in ROLE_ITEMS]
                    groups += [len(self.motif_types_) * len(kinds) + j] * len(ROLE_ITEMS)
                    blocks.append((ROLE_MOTIF, f"role_{k}", slice(start, start + len(ROLE_ITEMS))))
                    start += len(ROLE_ITEMS)
            if self.subsystem_block_:
                names += [f"{ROLE_MOTIF}:subsystem:{it}" for it in SUBSYSTEM_ITEMS]
                groups += [(max(groups) + 1 if groups else 0)] * len(SUBSYSTEM_ITEMS)
                blocks.append((ROLE_MOTIF, "subsystem", slice(start, start + len(SUBSYSTEM_ITEMS))))
                start += len(SUBSYSTEM_ITEMS)
            for k in self.compound_kinds_:
                names += [f"{ROLE_MOTIF}:compound_{k}:{it}" for it in COMPOUND_ITEMS]
                groups += [(max(groups) + 1 if groups else 0)] * len(COMPOUND_ITEMS)
                blocks.append((ROLE_MOTIF, f"compound_{k}", slice(start, start + len(COMPOUND_ITEMS))))
                start += len(COMPOUND_ITEMS)
            return names, np.asarray(groups, dtype=np.intp), blocks, start

        net_items = ADJACENCY_ITEMS + (SAME_KIND_ITEMS if self.reaction_kinds else ())

        def pointwise_items(kind):
            return net_items if kind == "net" else self._src[kind].items
        # the point-wise layout is always computed; "summary" derives from it
        _, _, self._pw_blocks, self._pw_n = layout(pointwise_items)
        if representation == "pointwise":
            items_of = pointwise_items
        else:
            def items_of(kind):
                return net_items if kind == "net" else SUMMARY_ITEMS[kind]
        self.feature_names_, self.groups_, self.blocks_, self.n_features_ = layout(items_of)
        self.feature_scale_: np.ndarray | None = None

    def fit_feature_scale(self, X: np.ndarray) -> np.ndarray:
        """Scale every feature to unit standard deviation over its present values.

        The blocks have very different natural scales (point-wise Pearson
        terms are ~1/n_conditions, symmetric-KL terms can be large, Hamming
        terms are 0/1), which would let one source dominate any kernel. The
        scale is label-free and is *not* a centring: 0 keeps its meaning, so
        zero imputation stays zero imputation. Features with fewer than two
        present values or no spread keep scale 1. ``X`` must be unscaled
        output of this featurizer (e.g. the training pairs); afterwards every
        matrix this featurizer returns is multiplied by the scale.

        Returns
        -------
        scale : ndarray of shape (n_features,)
        """
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.n_features_:
            raise ValueError(f"fit_feature_scale: X must have shape (n, {self.n_features_}); "
                             f"got {X.shape}")
        present = (~np.isnan(X)).sum(axis=0)
        sd = np.zeros(self.n_features_)
        cols = present >= 2
        if cols.any():
            sd[cols] = np.nanstd(X[:, cols], axis=0)
        ok = (present >= 2) & np.isfinite(sd) & (sd > 1e-12)
        scale = np.ones(self.n_features_)
        scale[ok] = 1.0 / sd[ok]
        self.feature_scale_ = scale
        return scale

    def block_sums(self, X: np.ndarray, kind: str) -> np.ndarray:
        """Per motif type, the sum of the ``kind`` block of each row, unscaled.

        For ``expr`` this is the mean Pearson r between the candidate's
        profile and those of the motif type's neighbours (over the
        conditions both have; the features are its point-wise terms); for
        ``domain`` the mean symmetric KL divergence of the domain contents;
        for ``loc`` the mean Hamming distance of the compartments. NaN where
        the block is absent.

        Parameters
        ----------
        X : ndarray of shape (n, n_features)
            Rows as returned by this featurizer (scaled or not: the
            feature scale, if fitted, is undone).
        kind : {"expr", "domain", "loc"}

        Returns
        -------
        ndarray of shape (n, len(motif_types_))
        """
        if kind not in self.sources_:
            raise ValueError(f"block_sums: kind must be one of {self.sources_}. Got {kind!r} instead.")
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.n_features_:
            raise ValueError(f"block_sums: X must have shape (n, {self.n_features_}); got {X.shape}")
        out = np.full((X.shape[0], len(self.motif_types_)), np.nan)
        for j, t in enumerate(self.motif_types_):
            for t2, k2, sl in self.blocks_:
                if t2 != t or k2 != kind or sl.stop == sl.start:
                    continue
                B = X[:, sl]
                if self.feature_scale_ is not None:
                    B = B / self.feature_scale_[sl]
                if self.representation == "summary":  # the first summary is the mean
                    out[:, j] = B[:, 0]
                    continue
                present = ~np.isnan(B).all(axis=1)
                out[present, j] = np.nansum(B[present], axis=1)
        return out

    # ---------------------------------------------------------------- sources
    @staticmethod
    def _prepare_expr(df: pd.DataFrame, network_genes) -> _Source:
        x = df.to_numpy(dtype=np.float64)
        present = ~np.isnan(x)
        n_present = present.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.nansum(x, axis=1) / n_present
            xc = x - mean[:, None]
            norm = np.sqrt(np.nansum(xc * xc, axis=1))
        keep = (n_present >= 2) & (norm > 1e-12 * np.maximum(1.0, np.nanmax(np.abs(x), axis=1, initial=0)))
        z = xc[keep] / norm[keep, None]
        genes = list(df.index[keep])
        k = x.shape[1]
        Z = np.vstack([z, np.full((1, k), np.nan)])
        return _Source("expr", [str(c) for c in df.columns], genes, {
            "Z": Z, "Zn": Z, "Z0": np.nan_to_num(Z, nan=0.0),
            "P": np.vstack([present[keep], np.zeros((1, k), bool)]).astype(np.float64)})

    def _prepare_domain(self, df: pd.DataFrame, network_genes) -> _Source:
        x = df.to_numpy(dtype=np.float64)
        if np.isnan(x).any() or (x < 0).any():
            raise GeomarginInputError("sources['domain'] must hold counts >= 0 "
                                      "(0/1 presence), without NaN")
        has_any = x.sum(axis=1) > 0
        in_net = df.index.isin(network_genes)
        n_net = (x[in_net] > 0).sum(axis=0)
        cols = n_net >= self.min_domain_genes
        a = x[has_any][:, cols]
        genes = list(df.index[has_any])
        eps = self.domain_eps
        d = a.shape[1]
        n_g = a.sum(axis=1)
        denom = n_g + eps * d
        p = (a + eps) / denom[:, None]
        lp = np.log(p) if p.size else p
        zero = np.zeros((1, d))
        # Fast path: a gene's distribution is the constant c = eps / denom on
        # the domains it lacks, so rows are one of a few "background" rows
        # (one per distinct domain total) plus sparse corrections.
        totals, grp = np.unique(n_g, return_inverse=True)
        gc = eps / (totals + eps * d)
        gl = np.log(gc)
        ri, ki = np.nonzero(a > 0)
        c, lc = eps / denom, np.log(eps / denom)
        pv = p[ri, ki]
        indptr = np.r_[np.searchsorted(ri, np.arange(len(genes) + 1)), len(ri)]
        return _Source("domain", [str(c_) for c_ in df.columns[cols]], genes, {
            "P": np.vstack([p, zero]), "L": np.vstack([lp, zero]),
            "PL": np.vstack([p * lp, zero]),
            "has": np.r_[np.ones(len(genes)), 0.0],
            "grp": np.r_[grp.reshape(-1), len(totals)].astype(np.intp),
            "gc": gc, "gl": gl, "indptr": indptr.astype(np.intp), "cols": ki.astype(np.intp),
            "dP": pv - c[ri], "dL": np.log(pv) - lc[ri], "dPL": pv * np.log(pv) - c[ri] * lc[ri]})

    @staticmethod
    def _prepare_loc(df: pd.DataFrame, network_genes) -> _Source:
        x = df.to_numpy(dtype=np.float64)
        if np.isnan(x).any() or (x < 0).any() or (x > 1).any():
            raise GeomarginInputError("sources['loc'] must hold 0/1 values without NaN "
                                      "(genes without localization data: leave them out)")
        genes = list(df.index)
        return _Source("loc", [str(c) for c in df.columns], genes, {
            "A": np.vstack([x, np.zeros((1, x.shape[1]))]),
            "An": np.vstack([x, np.full((1, x.shape[1]), np.nan)]),
            "has": np.r_[np.ones(len(genes)), 0.0]})

    # -------------------------------------------------------------- neighbours
    def _check_reaction(self, r: str) -> None:
        if r not in self._rgenes:
            raise GeomarginInputError(f"reaction {r!r} is not in net.reactions")

    def _base_neighbours(self, r: str, t: str) -> list[str]:
        own = set(self._rgenes[r])
        out = set()
        for o in self.motifs[t].get(r, ()):
            out.update(self._rgenes[o])
        return sorted(out - own)

    def neighbour_genes(self, reaction: str, gene: str) -> dict[str, list[str]]:
        """Neighbour genes of ``reaction`` per motif type for candidate ``gene``
        (``gene`` and the reaction's own genes excluded; normalized ids)."""
        self._check_reaction(reaction)
        g = normalize_gene_id(gene)
        return {t: [h for h in self._base_neighbours(reaction, t) if h != g]
                for t in self.motif_types_}

    def _gids(self, genes: Sequence[str]) -> np.ndarray:
        get = self._gid.get
        return np.fromiter((get(normalize_gene_id(g), -1) for g in genes),
                           dtype=np.intp, count=len(genes))

    # ---------------------------------------------------------------- features
    def _block(self, kind: str, B_rows: np.ndarray, g_rows: np.ndarray,
               sub_rows: list[np.ndarray], special: np.ndarray) -> np.ndarray:
        """Features of one (motif, source) block for genes at ``g_rows`` (rows
        of the source's arrays); neighbour rows ``B_rows``; for the rows
        flagged ``special`` the neighbours in ``sub_rows`` (source rows, null
        row = nothing to remove) are subtracted from the sums."""
        a = self._src[kind].arrays
        n = len(g_rows)
        sp = np.flatnonzero(special)
        if kind == "expr":
            S = a["Z0"][B_rows].sum(axis=0)[None, :]
            C = a["P"][B_rows].sum(axis=0)[None, :]
            Zg = a["Z"][g_rows]
            with np.errstate(invalid="ignore", divide="ignore"):
                out = Zg * np.where(C > 0, S / np.where(C > 0, C, 1.0), np.nan)
                if sp.size:
                    Ss = S - sum(a["Z0"][s[sp]] for s in sub_rows)
                    Cs = C - sum(a["P"][s[sp]] for s in sub_rows)
                    out[sp] = Zg[sp] * np.where(Cs > 0.5, Ss / np.where(Cs > 0.5, Cs, 1.0), np.nan)
            return out
        has = a["has"]
        Cn = np.full(n, has[B_rows].sum())
        if sp.size:
            Cn[sp] -= sum(has[s[sp]] for s in sub_rows)
        ok = (Cn > 0.5) & (has[g_rows] > 0)
        safe = np.where(Cn > 0.5, Cn, 1.0)[:, None]
        if kind == "loc":
            SA = np.broadcast_to(a["A"][B_rows].sum(axis=0), (n, a["A"].shape[1])).copy()
            if sp.size:
                SA[sp] -= sum(a["A"][s[sp]] for s in sub_rows)
            m = SA / safe
            ag = a["A"][g_rows]
            out = ag + m - 2.0 * ag * m
        else:  # domain
            d = a["P"].shape[1]
            sums = {}
            for key in ("P", "L", "PL"):
                v = np.broadcast_to(a[key][B_rows].sum(axis=0), (n, d)).copy()
                if sp.size:
                    v[sp] -= sum(a[key][s[sp]] for s in sub_rows)
                sums[key] = v / safe
            pg, lg = a["P"][g_rows], a["L"][g_rows]
            out = pg * lg - pg * sums["L"] - lg * sums["P"] + sums["PL"]
        out[~ok] = np.nan
        return out

    def _gathered(self, g_gids: np.ndarray) -> dict[str, dict[str, np.ndarray]]:
        """Per-source data of the candidate genes (NaN rows for genes without
        data). The last gathering is cached: scoring many reactions against
        the same candidate batch gathers once. The cache is one (key, value)
        tuple, read and replaced as a whole, so threads sharing the
        featurizer never see a key with another key's value."""
        key = g_gids.tobytes()
        cached_key, cached = self._gather
        if cached_key == key:
            return cached
        out = {}
        for kind, src in self._src.items():
            rows = self._src_row[kind][g_gids]
            a = src.arrays
            if kind == "expr":
                Z = a["Zn"][rows]
                out[kind] = {"Z": Z, "Z0": a["Z0"][rows], "P": a["P"][rows]}
            elif kind == "domain":
                starts = a["indptr"][rows]
                counts = a["indptr"][rows + 1] - starts
                total = int(counts.sum())
                offs = np.cumsum(counts) - counts
                idx = np.arange(total) - np.repeat(offs - starts, counts)
                out[kind] = {"grp": a["grp"][rows], "ii": np.repeat(np.arange(len(rows)), counts),
                             "kk": a["cols"][idx], "dP": a["dP"][idx], "dL": a["dL"][idx],
                             "dPL": a["dPL"][idx]}
            else:
                out[kind] = {"A": a["An"][rows]}
        self._gather = (key, out)
        return out

    def _fast_block(self, kind: str, B_rows: np.ndarray, gd: dict, out: np.ndarray) -> None:
        """Block for candidates that are not among the neighbours: the
        neighbour means are shared by every row. Writes into ``out``."""
        a = self._src[kind].arrays
        if kind == "expr":
            S = a["Z0"][B_rows].sum(axis=0)
            C = a["P"][B_rows].sum(axis=0)
            with np.errstate(invalid="ignore", divide="ignore"):
                mean = np.where(C > 0.5, S / np.where(C > 0.5, C, 1.0), np.nan)
            np.multiply(gd["Z"], mean, out=out)
            return
        cn = a["has"][B_rows].sum()
        if cn < 0.5:
            out[...] = np.nan
            return
        if kind == "loc":
            m = a["A"][B_rows].sum(axis=0) / cn
            np.multiply(gd["A"], 1.0 - 2.0 * m, out=out)
            out += m
            return
        mP = a["P"][B_rows].sum(axis=0) / cn
        mL = a["L"][B_rows].sum(axis=0) / cn
        mPL = a["PL"][B_rows].sum(axis=0) / cn
        # p_g lp_g - p_g mean(lp_h) - lp_g mean(p_h) + mean(p_h lp_h):
        # background rows, then the sparse corrections of each gene's domains
        gc, gl = a["gc"][:, None], a["gl"][:, None]
        R = np.vstack([gc * gl - gc * mL - gl * mP + mPL, np.full((1, len(mP)), np.nan)])
        out[...] = R[gd["grp"]]
        kk = gd["kk"]
        out[gd["ii"], kk] += gd["dPL"] - gd["dP"] * mL[kk] - gd["dL"] * mP[kk]

    def _fast_sum(self, kind: str, B_rows: np.ndarray, gd: dict) -> np.ndarray:
        """Row sums of :meth:`_fast_block` without building it (NaN where the
        block is absent): the block mean of the summary representation."""
        a = self._src[kind].arrays
        if kind == "expr":
            S = a["Z0"][B_rows].sum(axis=0)
            C = a["P"][B_rows].sum(axis=0)
            with np.errstate(invalid="ignore", divide="ignore"):
                mean = np.where(C > 0.5, S / np.where(C > 0.5, C, 1.0), 0.0)
            out = gd["Z0"] @ mean
            out[gd["P"] @ (C > 0.5) < 0.5] = np.nan   # no condition with both values
            return out
        n = gd["grp"].shape[0] if kind == "domain" else gd["A"].shape[0]
        cn = a["has"][B_rows].sum()
        if cn < 0.5:
            return np.full(n, np.nan)
        if kind == "loc":
            m = a["A"][B_rows].sum(axis=0) / cn
            return gd["A"] @ (1.0 - 2.0 * m) + m.sum()   # NaN rows stay NaN
        mP = a["P"][B_rows].sum(axis=0) / cn
        mL = a["L"][B_rows].sum(axis=0) / cn
        mPL = a["PL"][B_rows].sum(axis=0) / cn
        gc, gl = a["gc"], a["gl"]
        R = np.r_[gc * gl * len(mP) - gc * mL.sum() - gl * mP.sum() + mPL.sum(), np.nan]
        kk = gd["kk"]
        corr = gd["dPL"] - gd["dP"] * mL[kk] - gd["dL"] * mP[kk]
        return R[gd["grp"]] + np.bincount(gd["ii"], weights=corr, minlength=n)

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
        if self.representation == "pointwise":
            self._pointwise(reaction, g_gids, h_gids, X)
        else:
            self._summarise(reaction, g_gids, h_gids, X)
        if self.feature_scale_ is not None:
            X *= self.feature_scale_
        return X

    def _summarise(self, reaction: str, g_gids: np.ndarray, h_gids: np.ndarray | None,
                   X: np.ndarray) -> None:
        """Summary features into ``X``: the block means straight from the
        neighbour sums (never the point-wise matrix), then the per-neighbour
        comparisons of every block."""
        means = self._pointwise(reaction, g_gids, h_gids, X, reduce=True)
        for t, kind, sl in self.blocks_:
            if t == ROLE_MOTIF or kind == "net":
                continue  # written by _pointwise
            X[:, sl] = np.nan
            mean = means[t, kind]
            X[:, sl.start] = mean
            absent = np.isnan(mean)
            if absent.all():
                continue
            nb = self._neighbour_gids(reaction, t)
            rows = self._src_row[kind]
            null = self._src[kind].n
            keep = rows[nb] != null
            nb, nb_rows = nb[keep], rows[nb][keep]
            ok = np.flatnonzero(~absent)
            g_rows = rows[g_gids[ok]]
            if kind == "expr":
                Z0 = self._src[kind].arrays["Z0"]
                S = Z0[g_rows] @ Z0[nb_rows].T
            elif kind == "domain":
                S = (self._dom_bin[g_rows] @ self._dom_bin[nb_rows].T).toarray()
            else:
                A = self._src[kind].arrays["A"]
                S = A[g_rows] @ A[nb_rows].T
            drop = nb[None, :] == g_gids[ok, None]
            if h_gids is not None:
                drop |= nb[None, :] == h_gids[ok, None]
            S[drop] = np.nan
            with np.errstate(all="ignore"):
                if kind == "expr":
                    X[ok, sl.start + 1] = np.nanmax(S, axis=1)
                    filled = np.where(np.isnan(S), -np.inf, S)
                    k = min(3, S.shape[1])
                    top = -np.sort(-np.partition(filled, S.shape[1] - k, axis=1)[:, -k:], axis=1)
                    top[np.isinf(top)] = np.nan
                    X[ok, sl.start + 2] = np.nanmean(top, axis=1)
                else:
                    shared = np.where(np.isnan(S), np.nan, S > 0)
                    X[ok, sl.start + 1] = np.nanmean(shared, axis=1)
                    if kind == "domain":
                        X[ok, sl.start + 2] = np.log1p(np.nanmax(S, axis=1))

    def _pointwise(self, reaction: str, g_gids: np.ndarray, h_gids: np.ndarray | None,
                   X: np.ndarray, reduce: bool = False) -> dict | None:
        """The point-wise features (layout ``_pw_blocks``, unscaled) into ``X``.

        With ``reduce`` the data blocks are not written: their row sums (NaN
        where the block is absent) are returned per (motif, source), and the
        ``net`` and ``role`` blocks go to their places in ``blocks_``."""
        n = len(g_gids)
        layout = self.blocks_ if reduce else self._pw_blocks
        means = {} if reduce else None
        gd = self._gathered(g_gids) if h_gids is None else None
        if self.reaction_kinds:
            roles = [sl for _, kind, sl in layout if kind.startswith("role_")]
            X[:, roles[0].start:roles[-1].stop] = self._role_block(reaction, g_gids)
        if self.subsystem_block_:
            sl = next(sl for t, kind, sl in layout if t == ROLE_MOTIF and kind == "subsystem")
            X[:, sl] = self._subsystem_block(reaction, g_gids)
        if getattr(self, "compound_kinds_", []):  # older pickles: no compound blocks
            sls = [sl for t, kind, sl in layout if t == ROLE_MOTIF and kind.startswith("compound_")]
            X[:, sls[0].start:sls[-1].stop] = self._compound_block(reaction, g_gids)
        for t in self.motif_types_:
            blocks = [(kind, sl) for t2, kind, sl in self._pw_blocks if t2 == t and kind != "net"]
            if self.adjacency:
                sl = next(sl for t2, kind, sl in layout if t2 == t and kind == "net")
                X[:, sl] = self._adjacency_block(reaction, t, g_gids)
            B = self._neighbour_gids(reaction, t)
            if B.size == 0:
                for kind, sl in blocks:
                    if reduce:
                        means[t, kind] = np.full(n, np.nan)
                    else:
                        X[:, sl] = np.nan
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
            for kind, sl in blocks:
                if sl.stop == sl.start:
                    if reduce:
                        means[t, kind] = np.full(n, np.nan)
                    continue
                rows = self._src_row[kind]
                if gd is not None:
                    if reduce:
                        means[t, kind] = self._fast_sum(kind, rows[B], gd[kind])
                    else:
                        self._fast_block(kind, rows[B], gd[kind], X[:, sl])
                elif reduce:
                    means[t, kind] = np.full(n, np.nan)
                if sp.size:
                    null = self._src[kind].n
                    g_rows = rows[g_gids[sp]]
                    subs = [np.where(ex_g[sp], g_rows, null)]
                    if ex_h is not None:
                        subs.append(np.where(ex_h[sp], rows[h_gids[sp]], null))
                    block = self._block(kind, rows[B], g_rows, subs, np.ones(sp.size, bool))
                    block[~nonempty] = np.nan
                    if reduce:
                        present = ~np.isnan(block).all(axis=1)
                        means[t, kind][sp] = np.where(present, np.nansum(block, axis=1), np.nan)
                    else:
                        X[sp, sl] = block
        return means

    def _cached(self, reaction: str, key, compute):
        """``compute()`` for ``(reaction, key)``, kept while the same reaction
        is asked for (a one-reaction cache, replaced as a whole: safe when
        threads share the featurizer)."""
        cached_reaction, store = getattr(self, "_reaction_cache", (None, {}))  # older pickles: none
        if cached_reaction != reaction:
            store = {}
            self._reaction_cache = (reaction, store)
        if key not in store:
            store[key] = compute()
        return store[key]

    def _neighbour_gids(self, reaction: str, t: str) -> np.ndarray:
        """Gene indices of ``reaction``'s neighbour genes of type ``t`` (cached
        per reaction; callers index it, never write to it)."""
        return self._cached(reaction, ("nb", t), lambda: self._gids(self._base_neighbours(reaction, t)))

    def _adjacency_counts(self, reaction: str, t: str):
        """Per gene (every gid, the last column all-zero), how many of the
        related reactions of type ``t`` with a gene it catalyses (all, and
        of ``reaction``'s kind), and their number; None without one."""
        related = sorted(o for o in self.motifs[t].get(reaction, ()) if self._rgenes[o])
        adj = [self._rid[o] for o in related]
        if not adj:
            return None
        counts = np.asarray(self._catalyses[adj].sum(axis=0)).reshape(-1)
        same_counts = None
        if self.reaction_kinds:
            kind = self._kind_of[reaction]
            same = [i for o, i in zip(related, adj) if self._kind_of[o] == kind]
            same_counts = np.asarray(self._catalyses[same].sum(axis=0)).reshape(-1) if same \
                else np.zeros_like(counts)
        return counts, same_counts, len(adj)

    def _adjacency_block(self, reaction: str, t: str, g_gids: np.ndarray) -> np.ndarray:
        """The ``net`` block of motif type ``t``: ``log(1 + c)`` and ``c / n``
        per candidate (NaN when no related reaction has a gene)."""
        got = self._cached(reaction, ("net", t), lambda: self._adjacency_counts(reaction, t))
        if got is None:
            width = len(ADJACENCY_ITEMS) + (len(SAME_KIND_ITEMS) if self.reaction_kinds else 0)
            return np.full((len(g_gids), width), np.nan)
        counts, same_counts, n = got
        c = counts[g_gids]  # gid -1 -> the all-zero last column
        cols = [np.log1p(c), c / n]
        if self.reaction_kinds:
            cs = same_counts[g_gids]
            cols += [np.log1p(cs), cs / n]
        return np.column_stack(cols)

    def _prepare_model_reactions(self, reactions: pd.DataFrame) -> None:
        """Directed reaction -> model reaction (``_model_of``) and, per model
        reaction (both directions counted once), the union of its genes
        (``_model_genes``, sorted tuples, in model order): what the ``role``,
        ``subsystem`` and ``compound`` blocks count; the model reactions in
        that order (``_model_ids``, ``_model_index``) and which genes each
        names, as a (model reactions x genes) 0/1 matrix (``_model_catalyses``;
        the last column, gid -1, all zero)."""
        model = reactions["reaction_id"] if "reaction_id" in reactions.columns \
            else pd.Series(reactions.index, index=reactions.index)
        self._model_of = {str(r): str(m) for r, m in model.items()}
        genes: dict[str, set] = {}
        for r, m in self._model_of.items():
            genes.setdefault(m, set()).update(self._rgenes[r])
        self._model_genes = {m: tuple(sorted(gs)) for m, gs in genes.items()}
        self._model_ids = list(self._model_genes)
        self._model_index = {m: i for i, m in enumerate(self._model_ids)}
        rows = [i for i, m in enumerate(self._model_ids) for _ in self._model_genes[m]]
        cols = [self._gid[g] for m in self._model_ids for g in self._model_genes[m]]
        self._model_catalyses = sp.csr_matrix((np.ones(len(rows)), (rows, cols)),
                                              shape=(len(self._model_ids), len(self._universe) + 1))

    def _prepare_roles(self, reactions: pd.DataFrame) -> None:
        """Per gene, how many model reactions (each counted once, whatever its
        directions) it catalyses in all and per kind."""
        self._kind_of = {str(r): str(k) for r, k in reactions["reaction_kind"].items()}
        unknown = sorted(set(self._kind_of.values()) - set(ROLE_KINDS))
        if unknown:
            bad = next(r for r, k in self._kind_of.items() if k == unknown[0])
            raise GeomarginInputError(
                f"net.reactions.reaction_kind of reaction {bad!r} is {unknown[0]!r}; expected one "
                f"of {ROLE_KINDS} (featurize.metabolic.reaction_kinds)")
        kind_of_model = {m: self._kind_of[r] for r, m in self._model_of.items()}
        seen = {m: (kind_of_model[m], gs) for m, gs in self._model_genes.items()}
        # a kind without any reaction that has a gene has no role to measure
        self.role_kinds_ = [k for k in ROLE_KINDS if any(kk == k and gs for kk, gs in seen.values())]
        n = len(self._universe) + 1
        self._role_total = np.zeros(n)
        self._role_kind: dict[str, np.ndarray] = {}
        for m, (kind, gs) in seen.items():
            idx = [self._gid[g] for g in gs]
            self._role_total[idx] += 1
            self._role_kind.setdefault(kind, np.zeros(n))[idx] += 1

    def _role_block(self, reaction: str, g_gids: np.ndarray) -> np.ndarray:
        """The ``role_<kind>`` blocks: ``log(1 + m_k)`` and ``m_k / m`` over the
        other model reactions the candidate catalyses, in the block of the
        reaction's kind (NaN when ``m = 0``, and in every other kind's block)."""
        kind = self._kind_of[reaction]
        own = np.zeros(len(self._universe) + 1)
        own[[self._gid[g] for g in self._model_genes[self._model_of[reaction]]]] = 1.0
        m = (self._role_total - own)[g_gids]
        k = self._role_kind.get(kind, np.zeros_like(own)) - own
        mk = k[g_gids]
        width = len(ROLE_ITEMS)
        out = np.full((len(g_gids), width * len(self.role_kinds_)), np.nan)
        if kind not in self.role_kinds_:
            return out
        j = self.role_kinds_.index(kind) * width
        ok = m > 0
        out[ok, j] = np.log1p(mk[ok])
        out[ok, j + 1] = mk[ok] / m[ok]
        return out

    def _prepare_subsystems(self, reactions: pd.DataFrame) -> None:
        """Model reactions (each counted once, whatever its directions) with
        their subsystems and genes, as a (model reactions x genes) matrix."""
        sub_of: dict[str, frozenset] = {}
        for r, m in self._model_of.items():
            text = reactions.at[r, "subsystem"]
            subs = frozenset(x.strip() for x in str(text).split(";") if x.strip()) \
                if isinstance(text, str) else frozenset()
            sub_of[m] = sub_of.get(m, frozenset()) | subs
        mids = self._model_ids
        self._sub_mid = self._model_index
        self._sub_of = [sub_of[m] for m in mids]
        self._sub_genes = self._model_catalyses
        self._sub_has_gene = np.array([bool(self._model_genes[m]) for m in mids])
        self._sub_total = np.asarray(self._sub_genes.sum(axis=0)).reshape(-1)
        self.subsystem_block_ = bool(any(s and g for s, g in zip(self._sub_of, self._sub_has_gene)))

    def _subsystem_counts(self, reaction: str):
        """Per gene (every gid), ``s`` and ``m`` of the subsystem block, and
        ``n_s``; None where the block is absent for every gene."""
        i = self._sub_mid[self._model_of[reaction]]
        subs = self._sub_of[i]
        if not subs:
            return None
        same = np.fromiter((bool(subs & s) for s in self._sub_of), dtype=bool, count=len(self._sub_of))
        same[i] = False
        same &= self._sub_has_gene
        n_s = int(same.sum())
        if n_s == 0:
            return None
        own = self._sub_genes[i].toarray().reshape(-1)
        s = np.asarray(self._sub_genes[np.flatnonzero(same)].sum(axis=0)).reshape(-1)
        return s, self._sub_total - own, n_s

    def _subsystem_block(self, reaction: str, g_gids: np.ndarray) -> np.ndarray:
        """The ``subsystem`` block: ``log(1 + s)``, ``s / m`` and ``s / n_s``
        (module docstring); NaN when r has no subsystem, ``n_s = 0`` or ``m = 0``."""
        out = np.full((len(g_gids), len(SUBSYSTEM_ITEMS)), np.nan)
        got = self._cached(reaction, "subsystem", lambda: self._subsystem_counts(reaction))
        if got is None:
            return out
        s_all, m_all, n_s = got
        m, s = m_all[g_gids], s_all[g_gids]
        ok = m > 0
        out[ok, 0] = np.log1p(s[ok])
        out[ok, 1] = s[ok] / m[ok]
        out[ok, 2] = s[ok] / n_s
        return out

    def _prepare_compounds(self, net) -> None:
        """Per model reaction its characteristic compounds (as indices into
        the compound similarity matrix) and, per reaction kind, the (model
        reactions x genes) catalysis matrix the ``compound`` blocks reduce."""
        keys, self._cmp_sim = compound_similarity(compound_vectors(net.formulas))
        index = {k: i for i, k in enumerate(keys)}
        first: dict[str, str] = {}
        for r, m in self._model_of.items():
            first.setdefault(m, r)
        mids = self._model_ids
        self._cmp_of = []
        for m in mids:
            r = first[m]
            t = characteristic_compounds(net.substrates.get(r, frozenset()),
                                         net.products.get(r, frozenset()), self._kind_of[r])
            self._cmp_of.append(np.array(sorted(index[k] for k in t if k in index), dtype=np.intp))
        kinds = np.array([self._kind_of[first[m]] for m in mids])
        has_cmp = np.array([c.size > 0 for c in self._cmp_of])
        self._cmp_catalyses = {}
        for k in self.role_kinds_:
            keep = sp.diags(((kinds == k) & has_cmp).astype(float))
            self._cmp_catalyses[k] = (keep @ self._model_catalyses).tocsc()
        self.compound_kinds_ = [k for k in self.role_kinds_ if self._cmp_catalyses[k].nnz]

    def _compound_sims(self, reaction: str):
        """``sim(reaction, o)`` for every model reaction o (0 for o without a
        compound of known formula and for reaction's own), or None when no
        compound of the reaction has a formula."""
        i = self._model_index[self._model_of[reaction]]
        mine = self._cmp_of[i]
        if mine.size == 0:
            return None
        to_mine = self._cmp_sim[mine].max(axis=0)  # each compound's best match in T(r)
        sims = np.array([to_mine[c].max() if c.size else 0.0 for c in self._cmp_of])
        sims[i] = 0.0
        return sims

    def _compound_stats(self, reaction: str):
        """Per gene (every gid): the largest and the mean ``sim(r, o)`` over its
        other reactions of r's kind, and how many there are; None when no
        compound of the reaction has a formula."""
        sims = self._cached(reaction, "compound", lambda: self._compound_sims(reaction))
        if sims is None:
            return None
        C = _drop_row(self._cmp_catalyses[self._kind_of[reaction]], self._model_index[self._model_of[reaction]])
        count = np.asarray(C.sum(axis=0)).reshape(-1)
        weighted = C.multiply(sims[:, None]).tocsc()
        best = np.asarray(weighted.max(axis=0).todense()).reshape(-1)
        total = np.asarray(weighted.sum(axis=0)).reshape(-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(count > 0, total / np.maximum(count, 1), np.nan)
        return np.where(count > 0, best, np.nan), mean

    def _compound_block(self, reaction: str, g_gids: np.ndarray) -> np.ndarray:
        """The ``compound_<kind>`` blocks: the largest and mean ``sim(r, o)``
        over the candidate's other reactions of r's kind (module docstring);
        NaN without such a reaction and in every other kind's block."""
        width = len(COMPOUND_ITEMS)
        out = np.full((len(g_gids), width * len(self.compound_kinds_)), np.nan)
        kind = self._kind_of[reaction]
        if kind not in self.compound_kinds_:
            return out
        got = self._cached(reaction, "compound_stats", lambda: self._compound_stats(reaction))
        if got is None:
            return out
        best, mean = got
        j = self.compound_kinds_.index(kind) * width
        out[:, j] = best[g_gids]  # gid -1 -> the all-zero last column: NaN
        out[:, j + 1] = mean[g_gids]
        return out

    def compound_reactions(self, reaction: str, gene: str, top: int = 3) -> list[tuple[str, float]]:
        """The other model reactions of ``reaction``'s kind that ``gene``
        catalyses whose compounds are most like ``reaction``'s (the evidence
        of the ``compound`` block), as ``(model reaction, similarity)``,
        most similar first; empty without the block."""
        self._check_reaction(reaction)
        if not self.compound_kinds_ or self._kind_of[reaction] not in self.compound_kinds_:
            return []
        g = self._gid.get(normalize_gene_id(gene))
        sims = self._cached(reaction, "compound", lambda: self._compound_sims(reaction))
        if g is None or sims is None:
            return []
        col = self._cmp_catalyses[self._kind_of[reaction]][:, g].toarray().reshape(-1)
        own = self._model_index[self._model_of[reaction]]
        hits = [(self._model_ids[j], float(sims[j])) for j in np.flatnonzero(col) if j != own]
        return sorted(hits, key=lambda x: (-x[1], x[0]))[:top]

    def subsystem_reactions(self, reaction: str, gene: str) -> list[str]:
        """The other model reactions of ``reaction``'s subsystem(s) that
        ``gene`` catalyses (the evidence of the ``subsystem`` block), sorted;
        empty without the block."""
        self._check_reaction(reaction)
        if not self.subsystem_block_:
            return []
        g = self._gid.get(normalize_gene_id(gene))
        i = self._sub_mid[self._model_of[reaction]]
        subs = self._sub_of[i]
        if g is None or not subs:
            return []
        mids = list(self._sub_mid)
        col = self._sub_genes[:, g].toarray().reshape(-1)
        return sorted(mids[j] for j in np.flatnonzero(col) if j != i and subs & self._sub_of[j])

    def adjacent_reactions(self, reaction: str, gene: str) -> dict[str, list[str]]:
        """Per motif type, the reactions related to ``reaction`` that ``gene``
        catalyses (the evidence of the ``net`` block), sorted."""
        self._check_reaction(reaction)
        g = normalize_gene_id(gene)
        return {t: sorted(o for o in self.motifs[t].get(reaction, ()) if g in self._rgenes[o])
                for t in self.motif_types_}

    def candidate_matrix(self, reaction: str, genes: Sequence[str],
                         out: np.ndarray | None = None) -> np.ndarray:
        """Features of ``reaction`` paired with every gene in ``genes``
        (n_genes, n_features), NaN = absent. One vectorised pass per block:
        memory is O(len(genes) x n_features).

        ``out``: optional C-contiguous float64 buffer of that shape to write
        into (reusing one buffer across reactions saves page faults).
        Scoring many reactions against the same gene list reuses the gathered
        per-gene data (a one-entry cache)."""
        self._check_reaction(reaction)
        key = tuple(genes)
        cached_key, gids = self._gid_cache
        if cached_key != key:
            gids = self._gids(list(key))
            self._gid_cache = (key, gids)
        return self._matrix(reaction, gids, out=out)

    def transform(self, reactions: Sequence[str], genes: Sequence[str]) -> np.ndarray:
        """Features of the pairs ``(reactions[i], genes[i])``."""
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
        for r, idx in order.items():
            self._check_reaction(r)
            idx = np.asarray(idx)
            X[idx] = self._matrix(r, gids[idx])
        return X

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
        nb = self.neighbour_genes(reaction, gene)
        hs = sorted(set().union(*nb.values())) if nb else []
        if not hs:
            return [], np.empty((0, self.n_features_))
        g = self._gids([gene])
        X = self._matrix(reaction, np.repeat(g, len(hs)), self._gids(hs))
        return hs, X

    def expression_zscores(self, genes: Sequence[str]) -> pd.DataFrame:
        """Standardized expression profiles of ``genes`` (rows) over the
        conditions (columns): each profile minus its mean over its present
        conditions, divided by its (population) standard deviation there.
        NaN where the gene has no value, whole rows of NaN for genes without
        expression data (also fewer than two values or zero variance). The
        pair features use the same profiles divided by ``sqrt(n_present)``.
        """
        if "expr" not in self._src:
            raise GeomarginInputError("expression_zscores: the featurizer has no 'expr' source")
        src = self._src["expr"]
        rows = self._src_row["expr"][self._gids(list(genes))]
        Z = src.arrays["Zn"][rows]
        n = src.arrays["P"][rows].sum(axis=1)
        return pd.DataFrame(Z * np.sqrt(n)[:, None], index=list(genes), columns=src.items)


def _bool_param(name: str, value) -> bool:
    """``value`` of PairFeaturizer's ``name`` parameter, checked to be a bool."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"The {name!r} parameter of PairFeaturizer must be a bool. Got {value!r} instead.")
    return bool(value)


def _drop_row(M: sp.csc_matrix, row: int) -> sp.csc_matrix:
    """``M`` with the entries of one row set to zero (removed)."""
    keep = np.ones(M.shape[0])
    keep[row] = 0.0
    out = (sp.diags(keep) @ M).tocsc()
    out.eliminate_zeros()
    return out


def build_instances(net, genes: Sequence[str], negatives_per_positive: int,
                    seed: int, *, mix_genes: Sequence[str] | None = None,
                    mix_fraction: float = 0.0) -> pd.DataFrame:
    """Training pairs: every (directed reaction with genes, annotated gene) as a
    positive and, per positive, ``negatives_per_positive`` impostors.

    Impostors of a reaction are drawn with ``numpy.random.default_rng(seed)``
    from ``genes`` minus the reaction's own genes, without replacement within
    the reaction (with replacement only if the pool is smaller than needed).
    Reactions are visited in ``net.reactions`` order, so the draw is
    reproducible. With ``mix_genes`` and ``mix_fraction`` > 0 each impostor
    is drawn from ``mix_genes`` instead with probability ``mix_fraction``
    (one more uniform draw per impostor, from the same generator; with
    ``mix_fraction`` = 0 the draws are those without a mix). Gene ids (of
    the pools and of the reactions) are used in their canonical form
    (:func:`featurize.metabolic.genes.canonical_gene_id`), so the
    ids' case or stray invisible characters never change the draw.

    Returns
    -------
    DataFrame
        Columns ``reaction`` (directed id), ``gene``, ``label`` (1 positive,
        0 negative), ``instance_group`` (the model reaction id, column
        ``reaction_id`` when present, so both directions of a reversible
        reaction fall in the same fold).
    """
    if not isinstance(negatives_per_positive, (int, np.integer)) or negatives_per_positive < 0:
        raise ValueError("The 'negatives_per_positive' parameter of build_instances must be an "
                         f"int >= 0. Got {negatives_per_positive!r} instead.")
    reactions = net.reactions
    if "genes" not in reactions.columns:
        raise GeomarginInputError("build_instances: net.reactions needs a 'genes' column")
    # canonical ids everywhere: a model's case convention must not change the draw
    if not (isinstance(mix_fraction, (int, float)) and 0.0 <= mix_fraction <= 1.0):
        raise ValueError("The 'mix_fraction' parameter of build_instances must be a float in "
                         f"[0, 1]. Got {mix_fraction!r} instead.")
    if mix_fraction > 0 and not mix_genes:
        raise ValueError("build_instances: mix_fraction > 0 needs a non-empty mix_genes pool")
    pool = list(dict.fromkeys(normalize_gene_id(g) for g in genes))
    pool_norm = np.array(pool, dtype=object)
    mix = list(dict.fromkeys(normalize_gene_id(g) for g in (mix_genes or [])))
    mix_norm = np.array(mix, dtype=object)
    if negatives_per_positive and not pool:
        raise ValueError("build_instances: the gene pool for negatives is empty")
    rng = np.random.default_rng(seed)
    group_col = reactions["reaction_id"] if "reaction_id" in reactions.columns \
        else pd.Series(reactions.index, index=reactions.index)
    rows = []
    for r, gs in reactions["genes"].items():
        if not gs:
            continue
        grp = group_col.loc[r]
        own = {normalize_gene_id(g) for g in gs}
        for g in sorted(own):
            rows.append((r, g, 1, grp))
        if negatives_per_positive == 0:
            continue
        need = len(own) * negatives_per_positive
        n_mix = int((rng.random(need) < mix_fraction).sum()) if mix_fraction > 0 else 0
        for genes_, norm, k in ((pool, pool_norm, need - n_mix), (mix, mix_norm, n_mix)):
            if k == 0:
                continue
            cand = np.flatnonzero(~np.isin(norm, list(own)))
            if cand.size == 0:
                raise ValueError(f"build_instances: no impostor gene available for reaction {r!r}")
            pick = rng.choice(cand, size=k, replace=cand.size < k)
            rows.extend((r, genes_[i], 0, grp) for i in pick)
    return pd.DataFrame(rows, columns=["reaction", "gene", "label", "instance_group"])
