"""Training pairs: positives from the network's gene rules, impostors drawn from a pool.

:func:`candidate_pools` chooses, from the configuration, the genes the
ranking scores and the pools impostors are drawn from; :func:`build_instances`
draws the pairs; :func:`fold_groups` says which reactions must share a
cross-validation fold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from geomargin.common.exceptions import ConfigValueError, GeomarginInputError
from geomargin.featurize.metabolic.genes import canonical_gene_id

__all__ = ["build_instances", "candidate_pools", "fold_groups", "CANDIDATE_SETS", "IMPOSTOR_POOLS"]

#: Values of config key ``metabolic.ranking.candidates``.
CANDIDATE_SETS = ("all", "model")
#: Values of config key ``metabolic.impostor_pool`` ("network" and any other
#: value than "candidates" and "mix" draw from the model's genes).
IMPOSTOR_POOLS = ("network", "candidates", "mix")


def candidate_pools(candidates: str, impostor_pool: str, impostor_mix: float,
                    model_genes: Sequence[str], sources: Mapping[str, pd.DataFrame]
                    ) -> tuple[list[str], list[str], float]:
    """The candidate genes of the ranking and where impostors come from.

    Parameters
    ----------
    candidates : str
        ``"model"``: the model's genes; anything else (``"all"``): every gene
        with at least one value in one of ``sources``.
    impostor_pool : str
        ``"candidates"``: impostors from the candidates; ``"mix"``: from the
        model's genes, each from the candidates instead with probability
        ``impostor_mix``; anything else (``"network"``): from the model's genes.
    impostor_mix : float
        Used with ``impostor_pool="mix"`` only.
    model_genes : sequence of str
        The model's gene ids, sorted.
    sources : dict
        The data sources (genes x items).

    Returns
    -------
    candidates : list of str
        Sorted.
    pool : list of str
        The impostor pool (:func:`build_instances`' ``genes``).
    mix_fraction : float
        :func:`build_instances`' ``mix_fraction`` (the mix is drawn from ``candidates``).

    Examples
    --------
    >>> expr = pd.DataFrame({"c0": [1.0, np.nan]}, index=["G2", "G9"])
    >>> candidate_pools("all", "mix", 0.5, ["G1", "G2"], {"expr": expr})
    (['G2'], ['G1', 'G2'], 0.5)
    """
    model_genes = list(model_genes)
    if candidates == "model":
        chosen = model_genes
    else:
        with_data = set()
        for table in sources.values():
            with_data.update(table.index[table.notna().any(axis=1)])
        chosen = sorted(with_data)
    pool = chosen if impostor_pool == "candidates" else model_genes
    mix = impostor_mix if impostor_pool == "mix" else 0.0
    return chosen, pool, mix


def _check_pool_supplies(genes_of: pd.Series, pool: list[str], negatives_per_positive: int) -> None:
    """Stop when some reaction would need more impostors than the pool holds
    apart from its own genes: the draw would repeat pairs (and a large value
    multiplies every fit's size)."""
    if not negatives_per_positive:
        return
    pool_set = set(pool)
    worst = None
    for r, gs in genes_of.items():
        own = {canonical_gene_id(g)[0] for g in gs}
        if not own:
            continue
        allowed = len(pool_set - own) // len(own)
        if worst is None or allowed < worst[0]:
            worst = (allowed, r, len(own), len(pool_set - own))
    if worst is not None and negatives_per_positive > worst[0]:
        allowed, r, n_own, available = worst
        raise ConfigValueError(
            f"config: metabolic.negatives_per_positive is {negatives_per_positive}, but reaction {r!r} "
            f"({n_own} genes) can draw only {available} distinct impostors from the pool; expected at most "
            f"{allowed} (more would repeat training pairs)")


def fold_groups(net) -> pd.Series:
    """The cross-validation group of every directed reaction: its model
    reaction (both directions of a reversible reaction together), joined with
    every reaction that is the same reaction once its acyl chains are
    stripped (``net.lipid_reactions``: the same lipid classes and acyl
    groups, :func:`geomargin.featurize.metabolic.network.chain_class`, in the same
    compartments, with the same cofactors; yeast-GEM writes one
    acyltransferase, one beta-oxidation step or one acyl-CoA transport as
    many such reactions, with the same genes).

    Holding out one of those near-copies while its twins train would test
    the ranking on a reaction it has in effect seen. A transport of the same
    lipid class between other compartments, or a reaction of the same lipid
    classes with other cofactors (a kinase and a phosphatase), is another
    reaction and keeps its own group. A group is labelled by the smallest
    model reaction id in it, so a reaction without lipid species keeps its
    model id as its group.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> er_to_lp = frozenset({frozenset({("PE", "er")}), frozenset({("PE", "lp")})})
    >>> net = SimpleNamespace(
    ...     reactions=pd.DataFrame({"reaction_id": ["r2", "r1", "r1", "r3", "r4"]},
    ...                            index=["r2", "r1", "r1__rev", "r3", "r4"]),
    ...     lipid_reactions={"r2": er_to_lp, "r1": er_to_lp, "r1__rev": er_to_lp,
    ...                      "r4": frozenset({frozenset({("PE", "er")}), frozenset({("PE", "m")})})})
    >>> fold_groups(net).to_dict()
    {'r2': 'r1', 'r1': 'r1', 'r1__rev': 'r1', 'r3': 'r3', 'r4': 'r4'}
    """
    import networkx as nx

    reactions = net.reactions
    model_id = reactions["reaction_id"] if "reaction_id" in reactions.columns \
        else pd.Series(reactions.index, index=reactions.index)
    graph = nx.Graph()
    for r in reactions.index:
        graph.add_edge(("directed", r), ("model", model_id.loc[r]))
        if r in net.lipid_reactions:
            graph.add_edge(("directed", r), ("lipid", net.lipid_reactions[r]))
    label = {}
    for component in nx.connected_components(graph):
        name = min(str(v) for kind, v in component if kind == "model")
        label.update({v: name for kind, v in component if kind == "directed"})
    return pd.Series([label[r] for r in reactions.index], index=reactions.index, name="fold_group")


def build_instances(net, genes: Sequence[str], negatives_per_positive: int,
                    seed: int, *, mix_genes: Sequence[str] | None = None,
                    mix_fraction: float = 0.0) -> pd.DataFrame:
    """Training pairs: every (directed reaction with genes, annotated gene) as a
    positive and, per positive, ``negatives_per_positive`` impostors.

    Impostors of a reaction are drawn with ``numpy.random.default_rng(seed)``
    from ``genes`` minus the reaction's own genes, without replacement within
    the reaction; a value the pool cannot supply without repeats for every
    reaction raises :class:`geomargin.common.exceptions.ConfigValueError`.
    Reactions are visited in ``net.reactions`` order, so the draw is
    reproducible. With ``mix_genes`` and ``mix_fraction`` > 0 each impostor
    is drawn from ``mix_genes`` instead with probability ``mix_fraction``
    (one more uniform draw per impostor, from the same generator; with
    ``mix_fraction`` = 0 the draws are those without a mix). Gene ids (of
    the pools and of the reactions) are used in their canonical form
    (:func:`geomargin.featurize.metabolic.genes.canonical_gene_id`), so the
    ids' case or stray invisible characters never change the draw.

    Returns
    -------
    DataFrame
        Columns ``reaction`` (directed id), ``gene``, ``label`` (1 positive,
        0 negative), ``instance_group`` (the model reaction id, column
        ``reaction_id`` when present: the query of a ranking objective) and,
        when ``net`` has ``lipid_reactions``, ``fold_group`` (:func:`fold_groups`:
        the pairs that must share a cross-validation fold).
    """
    if not isinstance(negatives_per_positive, (int, np.integer)) or negatives_per_positive < 0:
        raise ValueError("The 'negatives_per_positive' parameter of build_instances must be an "
                         f"int >= 0. Got {negatives_per_positive!r} instead.")
    reactions = net.reactions
    if "genes" not in reactions.columns:
        raise GeomarginInputError("build_instances: net.reactions needs a 'genes' column")
    if not (isinstance(mix_fraction, (int, float)) and 0.0 <= mix_fraction <= 1.0):
        raise ValueError("The 'mix_fraction' parameter of build_instances must be a float in "
                         f"[0, 1]. Got {mix_fraction!r} instead.")
    if mix_fraction > 0 and not mix_genes:
        raise ValueError("build_instances: mix_fraction > 0 needs a non-empty mix_genes pool")
    # canonical ids everywhere: a model's case convention must not change the draw
    pool = list(dict.fromkeys(canonical_gene_id(g)[0] for g in genes))
    pool_norm = np.array(pool, dtype=object)
    mix = list(dict.fromkeys(canonical_gene_id(g)[0] for g in (mix_genes or [])))
    mix_norm = np.array(mix, dtype=object)
    if negatives_per_positive and not pool:
        raise ValueError("build_instances: the gene pool for negatives is empty")
    _check_pool_supplies(reactions["genes"], pool, negatives_per_positive)
    rng = np.random.default_rng(seed)
    group_col = reactions["reaction_id"] if "reaction_id" in reactions.columns \
        else pd.Series(reactions.index, index=reactions.index)
    rows = []
    for r, gs in reactions["genes"].items():
        if not gs:
            continue
        grp = group_col.loc[r]
        own = {canonical_gene_id(g)[0] for g in gs}
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
    out = pd.DataFrame(rows, columns=["reaction", "gene", "label", "instance_group"])
    if hasattr(net, "lipid_reactions"):
        out["fold_group"] = fold_groups(net).reindex(out["reaction"]).to_numpy()
    return out
