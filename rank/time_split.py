"""Time-split validation: rank an older release's orphans, count the genes a later release gave them.

Cross-validation holds out reactions that *have* genes, and those are the
easy ones. The honest test of an orphan ranking is prospective: take an
older release of the model, rank its orphan reactions exactly as today's
are ranked (features, labels, folds and method choice from the older
release alone), then look up each orphan, by its reaction id, in a later
release. An orphan that the later release gave genes is a *benchmark
reaction*; its *later genes* are the genes of its later gene rule.

For every benchmark reaction and ranking, the score is the rank of the
best-ranked later gene among the older run's candidates
(:func:`best_later_ranks`). A benchmark reaction that the older run did not
rank (no evidence, or a kind left out) or whose later genes are none of the
candidates counts as a miss: hit@k and MRR are taken over *every*
benchmark reaction, so a method cannot look better by ranking fewer.

:func:`random_expectation` gives what a uniformly random order of the same
candidates would score, reaction by reaction; :func:`time_split_metrics`
adds percentile bootstrap intervals over reactions.

This table is a test, never a tuning set: nothing in the pipeline reads it.

Example
-------
>>> import pandas as pd
>>> orphans = pd.DataFrame({"model_reactions": ["r_1", "r_2", "r_1"]},
...                        index=["r_1", "r_2", "r_1__rev"])
>>> later_genes(orphans, {"r_1": {"YAL001C"}, "r_2": set()})
{'r_1': frozenset({'YAL001C'}), 'r_1__rev': frozenset({'YAL001C'})}
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.stats import hypergeom

from geomargin.common.checks import check_param, int_at_least, open_unit_interval
from geomargin.featurize.metabolic.network import REVERSE_SUFFIX
from geomargin.rank.scoring import candidate_order, correct_scores, gene_id_ranks, no_evidence_last, score_matrix

__all__ = ["HIT_KS", "later_genes", "orphan_gain_table", "best_later_ranks", "later_gene_ranks",
           "random_expectation", "shown_order_rows", "time_split_metrics", "time_split_rows", "time_split_table",
           "first_candidate_standing", "reaction_clusters", "bootstrap_counts"]

#: The k of the hit@k columns.
HIT_KS = (1, 5, 20, 50)


def reaction_clusters(reactions) -> np.ndarray:
    """The bootstrap unit of each benchmark row: its model reaction, the
    directed id without :data:`~geomargin.featurize.metabolic.network.REVERSE_SUFFIX`. Both directions of a
    reversible orphan gain the same later genes from one gene rule, so they
    are resampled together, not as two independent reactions.

    >>> reaction_clusters(["r_1", "r_1__rev", "r_2"]).tolist()
    ['r_1', 'r_1', 'r_2']
    """
    return np.array([str(r).removesuffix(REVERSE_SUFFIX) for r in reactions], dtype=object)


def bootstrap_counts(n: int, n_boot: int, rng: np.random.Generator, clusters=None) -> np.ndarray:
    """How often each of ``n`` rows is drawn in each of ``n_boot`` bootstrap
    resamples, an ``(n_boot, n)`` integer array: rows drawn with
    replacement, or with ``clusters`` (a label per row) the labels drawn
    with replacement and each drawn label's rows taken together. A
    statistic's resampled values are weighted means, ``counts @ v /
    counts.sum(axis=1)``. With every label alone the draws are those without
    clusters.

    >>> w = bootstrap_counts(3, 20, np.random.default_rng(0), ["a", "a", "b"])
    >>> w.shape, bool((w[:, 0] == w[:, 1]).all()), bool((w.sum(axis=1) >= 1).all())
    ((20, 3), True, True)
    >>> a, b = (bootstrap_counts(5, 3, np.random.default_rng(1), c) for c in (None, list("vwxyz")))
    >>> bool((a == b).all())
    True
    """
    if clusters is None:
        codes, n_units = np.arange(n), n
    else:
        codes, labels = pd.factorize(np.asarray(clusters))
        if len(codes) != n:
            raise ValueError(f"bootstrap_counts: {len(codes)} cluster labels for {n} rows")
        n_units = len(labels)
    picks = rng.integers(0, n_units, size=(n_boot, n_units))
    drawn = np.bincount((picks + n_units * np.arange(n_boot)[:, None]).ravel(),
                        minlength=n_boot * n_units).reshape(n_boot, n_units)
    return drawn[:, codes]


def later_genes(orphans: pd.DataFrame, later_rules: Mapping[str, set]) -> dict[str, frozenset]:
    """Genes a later release gives each older orphan, by model reaction id.

    Parameters
    ----------
    orphans : DataFrame
        The older release's orphan directed reactions (index: directed id),
        with column ``model_reactions`` (``;``-joined model reaction ids: a
        merged isozyme group names all of its reactions).
    later_rules : mapping
        Model reaction id -> set of gene ids of the later release (empty or
        missing: still no gene, or the reaction is gone).

    Returns
    -------
    dict
        Directed id -> frozenset of later genes, for the orphans that gained
        at least one (the benchmark reactions).
    """
    out = {}
    for did, ids in orphans["model_reactions"].items():
        genes = frozenset(g for rid in str(ids).split(";") if rid for g in later_rules.get(rid, ()))
        if genes:
            out[did] = genes
    return out


def orphan_gain_table(orphans: pd.DataFrame, benchmark: Mapping[str, frozenset]) -> pd.DataFrame:
    """Per reaction kind, the older release's orphans, how many it ranked
    (column ``eligible`` of ``orphans``), and how many of each gained a gene
    in the newer release (the keys of ``benchmark``).

    >>> orphans = pd.DataFrame({"reaction_kind": ["transport", "transport", "enzymatic"],
    ...                         "eligible": [True, False, True]}, index=["a", "b", "c"])
    >>> orphan_gain_table(orphans, {"a": frozenset({"G"})}).to_dict("records")[1]
    {'reaction_kind': 'transport', 'orphans': 2, 'ranked': 1, 'gained': 1, 'ranked_gained': 1}
    """
    gained = orphans.index.isin(list(benchmark))
    eligible = orphans["eligible"].astype(bool).to_numpy()
    frame = pd.DataFrame({"reaction_kind": orphans["reaction_kind"].astype(str).to_numpy(), "orphans": 1,
                          "ranked": eligible.astype(int), "gained": gained.astype(int),
                          "ranked_gained": (eligible & gained).astype(int)})
    return frame.groupby("reaction_kind", sort=True).sum().reset_index()


def best_later_ranks(scores: np.ndarray, candidates: Sequence[str], genes: frozenset,
                     gene_rank: np.ndarray | None = None) -> tuple[int, int, str]:
    """1-based rank of the best-ranked later gene among ``candidates``
    (ordered as every ranking of :mod:`geomargin.rank.scoring`: score descending, NaN
    last, ties by gene id), how many later genes are candidates, and the
    best-ranked one. The rank is 0 (and the gene "") when none is.
    ``gene_rank`` (:func:`geomargin.rank.scoring.gene_id_ranks` of ``candidates``)
    may be passed to save its computation.

    Examples
    --------
    >>> best_later_ranks(np.array([0.1, 0.9, 0.5]), ["A", "B", "C"], frozenset({"A", "C"}))
    (2, 2, 'C')
    >>> best_later_ranks(np.array([0.1, 0.9]), ["A", "B"], frozenset({"Z"}))
    (0, 0, '')
    """
    cands = list(candidates)
    gene_rank = gene_id_ranks(cands) if gene_rank is None else gene_rank
    order = candidate_order(np.asarray(scores, dtype=np.float64), gene_rank)
    hits = [i + 1 for i, j in enumerate(order) if cands[j] in genes]
    return (hits[0] if hits else 0), len(hits), (cands[order[hits[0] - 1]] if hits else "")


def later_gene_ranks(scores: np.ndarray, candidates: Sequence[str], genes: frozenset,
                     gene_rank: np.ndarray | None = None) -> dict[str, int]:
    """1-based rank of every later gene among ``candidates``, in the order of
    :func:`best_later_ranks` (the other later genes are not removed: the
    rank is the row a reader of the ranking finds the gene at); 0 for a
    gene that is not a candidate.

    Examples
    --------
    >>> later_gene_ranks(np.array([0.1, 0.9, 0.5]), ["A", "B", "C"], frozenset({"A", "C", "Z"}))
    {'A': 3, 'C': 2, 'Z': 0}
    """
    cands = list(candidates)
    gene_rank = gene_id_ranks(cands) if gene_rank is None else gene_rank
    order = candidate_order(np.asarray(scores, dtype=np.float64), gene_rank)
    at = {cands[j]: i + 1 for i, j in enumerate(order) if cands[j] in genes}
    return {g: at.get(g, 0) for g in sorted(genes)}


def _best_later(ranks: Mapping[str, int]) -> tuple[int, str]:
    """The best-ranked later gene of ``{gene: rank}`` (0 = not ranked) and its
    rank; ``(0, "")`` when none is ranked."""
    found = [(k, g) for g, k in ranks.items() if k]
    return min(found) if found else (0, "")


def shown_order_rows(rows: pd.DataFrame, shown: pd.DataFrame, positions, ranking: str) -> pd.DataFrame:
    """:func:`time_split_rows` with ``ranking``'s shown rows listed at
    ``positions`` (:func:`geomargin.rank.shown_order.shown_positions`): every later
    gene among ``shown`` (columns ``reaction``, ``gene``: the ranking's
    best candidates of each benchmark reaction) takes its position there,
    the others keep their rank; ``best_rank`` and ``best_gene`` follow, and
    ``homology_ranks`` where the rows have it (the positions of the shown
    rows whose column ``homology`` is set). Rows of other rankings are
    returned unchanged.

    Examples
    --------
    >>> rows = pd.DataFrame({"ranking": ["m"], "reaction": ["a"], "best_rank": [2], "best_gene": ["Y"],
    ...                      "later_genes": ["W;Y"], "later_gene_ranks": ["30;2"]})
    >>> shown = pd.DataFrame({"reaction": ["a", "a"], "gene": ["X", "Y"]})
    >>> shown_order_rows(rows, shown, [2, 1], "m")[["best_rank", "later_gene_ranks"]].values.tolist()
    [[1, '30;1']]
    """
    at = {(r, g): int(k) for r, g, k in zip(shown["reaction"], shown["gene"], np.asarray(positions))}
    out = rows.copy()
    if "homology_ranks" in out.columns:
        if "homology" not in shown.columns:
            raise ValueError("shown_order_rows: the rows have 'homology_ranks' but the shown rows no column "
                             "'homology'; pass shown rows with the candidate flags (rank.evidence_flags.shown_rows)")
        similar: dict[str, list[int]] = {}
        for r, k, h in zip(shown["reaction"], np.asarray(positions), shown["homology"].astype(bool)):
            similar.setdefault(r, [])
            if h:
                similar[r].append(int(k))
        col = out.columns.get_loc("homology_ranks")
        for i in np.flatnonzero((out["ranking"] == ranking).to_numpy()):
            r = out["reaction"].iat[i]
            if r in similar:
                out.iat[i, col] = ";".join(map(str, sorted(similar[r])))
    for i in np.flatnonzero((out["ranking"] == ranking).to_numpy()):
        r = out["reaction"].iat[i]
        genes = [g for g in str(out["later_genes"].iat[i]).split(";") if g]
        ranks = [int(k) for k in str(out["later_gene_ranks"].iat[i]).split(";") if k]
        ranks = [at.get((r, g), k) if k else 0 for g, k in zip(genes, ranks)]
        out.iat[i, out.columns.get_loc("later_gene_ranks")] = ";".join(map(str, ranks))
        best, best_gene = _best_later(dict(zip(genes, ranks)))
        out.iat[i, out.columns.get_loc("best_rank")] = best
        out.iat[i, out.columns.get_loc("best_gene")] = best_gene
    return out


def random_expectation(n_candidates: int, n_later: int, ks: Sequence[int] = HIT_KS) -> dict[str, float]:
    """Hit@k and reciprocal rank of the best of ``n_later`` later genes when
    ``n_candidates`` candidates are put in a uniformly random order.

    The number of later genes among the first ``k`` is hypergeometric
    (:data:`scipy.stats.hypergeom`): hit@k is its probability of being at
    least 1, and the best later gene is at rank ``r`` when none is among the
    first ``r - 1`` and the ``r``-th is one (probability ``m / (n - r + 1)``).

    Examples
    --------
    >>> e = random_expectation(10, 1, ks=(1, 5))
    >>> round(e["hit@1"], 3), round(e["hit@5"], 3), round(e["mrr"], 4)
    (0.1, 0.5, 0.2929)
    >>> random_expectation(10, 0)["mrr"]
    0.0
    """
    return dict(_random_expectation(int(n_candidates), int(n_later), tuple(int(k) for k in ks)))


@functools.lru_cache(maxsize=4096)
def _random_expectation(n: int, m: int, ks: tuple[int, ...]) -> tuple[tuple[str, float], ...]:
    """:func:`random_expectation`, kept per ``(n, m, ks)``: the tables ask
    for the same few pairs once per reaction, and the pmf over every rank
    is the costly part."""
    if m <= 0 or n <= 0:
        return (*((f"hit@{k}", 0.0) for k in ks), ("mrr", 0.0))
    hits = tuple((f"hit@{k}", 1.0 if k >= n - m + 1 else float(hypergeom.sf(0, n, m, k))) for k in ks)
    r = np.arange(1, n - m + 2)
    return (*hits, ("mrr", float(np.sum(hypergeom.pmf(0, n, m, r - 1) * m / (n - r + 1) / r))))


def time_split_metrics(rows: pd.DataFrame, n_boot: int = 1000, seed: int = 0, level: float = 0.95,
                       ks: Sequence[int] = HIT_KS, clusters=None) -> dict[str, float]:
    """Metrics over benchmark reactions with bootstrap intervals over reactions.

    Parameters
    ----------
    rows : DataFrame
        One row per benchmark reaction: ``best_rank`` (0 = not ranked, or no
        later gene among the candidates), ``n_candidates`` and
        ``n_later_candidates`` (later genes among them).
    n_boot, seed, level
        Percentile bootstrap over reactions (``numpy.random.default_rng(seed)``).
    clusters : array-like, optional
        A label per row: the bootstrap resamples the labels and keeps their
        rows together (rows that are (reaction, later gene) pairs, resampled
        by reaction). Without it every row is resampled alone.

    Returns
    -------
    dict
        ``reactions``; ``hit@k`` and ``mrr`` over every reaction (a miss
        scores 0), each with ``_lo``/``_hi``; ``median_rank`` over the
        reactions whose later genes were ranked; ``random_hit@k`` and
        ``random_mrr``, the means of :func:`random_expectation`.

    Examples
    --------
    >>> rows = pd.DataFrame({"best_rank": [1, 30, 0], "n_candidates": [100, 100, 100],
    ...                      "n_later_candidates": [1, 1, 0]})
    >>> m = time_split_metrics(rows, n_boot=100)
    >>> m["reactions"], round(m["hit@1"], 3), round(m["hit@50"], 3), m["median_rank"]
    (3, 0.333, 0.667, 15.5)
    """
    check_param("time_split_metrics", "n_boot", n_boot, *int_at_least(1))
    check_param("time_split_metrics", "level", level, *open_unit_interval())
    best = rows["best_rank"].to_numpy(dtype=np.float64)
    ranked = best > 0
    recip = np.where(ranked, 1.0 / np.where(ranked, best, 1.0), 0.0)
    values = {f"hit@{k}": (ranked & (best <= k)).astype(float) for k in ks}
    values["mrr"] = recip
    out: dict[str, float] = {"reactions": int(len(rows))}
    for name, v in values.items():
        out[name] = float(v.mean()) if len(v) else float("nan")
    out["median_rank"] = float(np.median(best[ranked])) if ranked.any() else float("nan")
    rng = np.random.default_rng(seed)
    alpha = (1.0 - level) / 2.0
    if len(rows):
        counts = bootstrap_counts(len(rows), n_boot, rng, clusters)
        sizes = counts.sum(axis=1)
        for name, v in values.items():
            lo, hi = np.quantile(counts @ v / sizes, [alpha, 1.0 - alpha])
            out[f"{name}_lo"], out[f"{name}_hi"] = float(lo), float(hi)
    else:
        for name in values:
            out[f"{name}_lo"] = out[f"{name}_hi"] = float("nan")
    expected = [random_expectation(n, m, ks) for n, m in
                zip(rows["n_candidates"].to_numpy(), rows["n_later_candidates"].to_numpy())]
    for name in values:
        out[f"random_{name}"] = float(np.mean([e[name] for e in expected])) if expected else float("nan")
    return out


def time_split_table(rows: pd.DataFrame, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """One row per ranking and reaction kind (``all`` first) of
    :func:`time_split_metrics`.

    Parameters
    ----------
    rows : DataFrame
        One row per (ranking, benchmark reaction): ``ranking``,
        ``reaction``, ``reaction_kind``, ``ranked`` (bool: the older run
        ranked the reaction), ``best_rank``, ``n_candidates``,
        ``n_later_genes``, ``n_later_candidates``.

    Returns
    -------
    DataFrame
        ``ranking, reaction_kind, reactions, model_reactions, not_ranked,
        later_genes, later_genes_not_candidates``, then the metrics with
        their intervals (the bootstrap resamples model reactions:
        :func:`reaction_clusters`) and the random expectation, in the
        rankings' first-seen order.

    Examples
    --------
    >>> rows = pd.DataFrame({"ranking": ["m"] * 2, "reaction": ["a", "b"],
    ...     "reaction_kind": ["transport", "enzymatic"], "ranked": [True, False],
    ...     "best_rank": [3, 0], "n_candidates": [50, 0], "n_later_genes": [1, 2],
    ...     "n_later_candidates": [1, 0]})
    >>> t = time_split_table(rows, n_boot=50)
    >>> t[["reaction_kind", "reactions", "not_ranked", "later_genes", "hit@5"]].to_dict("records")[0]
    {'reaction_kind': 'all', 'reactions': 2, 'not_ranked': 1, 'later_genes': 3, 'hit@5': 0.5}
    """
    out = []
    for ranking in dict.fromkeys(rows["ranking"]):
        r = rows[rows["ranking"] == ranking]
        groups = [("all", r)] + [(k, g) for k, g in r.groupby("reaction_kind", sort=True)]
        for kind, g in groups:
            units = reaction_clusters(g["reaction"])
            m = time_split_metrics(g, n_boot=n_boot, seed=seed, clusters=units)
            out.append({"ranking": ranking, "reaction_kind": kind, "reactions": m.pop("reactions"),
                        "model_reactions": len(set(units)),
                        "not_ranked": int((~g["ranked"].astype(bool)).sum()),
                        "later_genes": int(g["n_later_genes"].sum()),
                        "later_genes_not_candidates": int((g["n_later_genes"] - g["n_later_candidates"]).sum()),
                        **m})
    return pd.DataFrame(out)


def time_split_rows(featurizer, orphans: pd.DataFrame, candidates: Sequence[str],
                    benchmark: Mapping[str, frozenset],
                    decisions: Mapping[str, Callable[[np.ndarray], np.ndarray]],
                    rankings: Sequence[tuple[str, str, str]], batch_size: int = 2048,
                    shown: tuple[str, int] | None = None,
                    n_jobs: int = 1, homology_top_n: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Best later-gene rank of every benchmark reaction under every ranking.

    Each model scores *every* eligible orphan (the reference set of a gene
    correction is the orphans ranked together, as in the final ranking),
    then each of its rankings is read off for the benchmark reactions. Each
    candidate matrix is built once and scored by every model; the scores are
    those of :func:`geomargin.rank.scoring.pair_score_fn` per model.

    Parameters
    ----------
    featurizer : PairFeaturizer
        The older release's.
    orphans : DataFrame
        :func:`geomargin.rank.evidence.orphan_reactions` of the older release (index:
        directed id; columns ``reaction_kind``, ``eligible``).
    candidates : sequence of str
    benchmark : mapping
        :func:`later_genes`: directed id -> later genes.
    decisions : mapping
        Model name -> decision function (:func:`geomargin.rank.refit.ranking_decision_for`).
    rankings : sequence of (name, model, gene correction)
        The rankings to evaluate, e.g. ``("hgb+centred", "hgb", "centred")``.
    shown : (ranking name, top_n), optional
        Also give the rows that ranking shows for every ranked benchmark
        reaction: its ``top_n`` best candidates with ``reaction``, ``rank``,
        ``gene``, ``score`` and the standardised ``score_z``, ``gap_next_z``,
        ``gap_top_z`` (:func:`geomargin.rank.calibration.calibration_rows`), and
        ``label`` (a later gene): the time split's check of the confidence.
    n_jobs : int, default 1
        Forked processes scoring the orphans (:func:`geomargin.rank.scoring.score_matrix`;
        the scores are the same).
    homology_top_n : int, default 0
        With the ``homology`` block in the features and ``homology_top_n`` >
        0, the column ``homology_ranks``: which of each ranking's first
        ``homology_top_n`` candidates have homology evidence
        (:func:`geomargin.rank.evidence_flags.homology_flags`; what the release
        history's confidence reads).

    Returns
    -------
    rows : DataFrame
        One row per (ranking, benchmark reaction), the input of
        :func:`time_split_table`, plus ``later_genes`` (``;``-joined),
        ``later_gene_ranks`` (:func:`later_gene_ranks` of each, in the same
        order; all 0 when the reaction was not ranked) and ``best_gene``
        (the best-ranked later gene, "" if none); ``first_score_z`` and
        ``first_gap_z`` (:func:`first_candidate_standing` in that ranking's
        score order; NaN when the reaction was not ranked or has no scored
        candidate); and ``homology_ranks``
        (above; their ranks ``;``-joined, "" for none or a reaction not
        ranked).
    shown_rows : DataFrame
        The shown rows above; without ``shown``, none (its columns only).
    """
    from geomargin.rank.calibration import calibration_rows
    from geomargin.rank.evidence_flags import CANDIDATE_FLAGS, HOMOLOGY_FLAG, candidate_flag_names

    cands = list(dict.fromkeys(candidates))
    in_cands = set(cands)
    eligible = [r for r in orphans.index[orphans["eligible"].astype(bool)]]
    bench = [r for r in orphans.index if r in benchmark]
    rows = []
    # one candidate matrix per (orphan, batch of genes), scored by every model:
    # the scores of pair_score_fn(featurizer, decisions[model]), built once
    models = list(dict.fromkeys(m for _, m, _ in rankings))

    def score(reaction: str, genes: list[str]) -> np.ndarray:
        X = featurizer.candidate_matrix(reaction, genes)
        return np.column_stack([no_evidence_last(decisions[m](X), X) for m in models])
    S3 = score_matrix(score, eligible, cands, batch_size, n_scores=len(models), n_jobs=n_jobs)
    scores = {m: S3[:, :, j] for j, m in enumerate(models)}
    where = {r: i for i, r in enumerate(eligible)}
    gene_rank = gene_id_ranks(cands)
    shown_frames = []
    homology = homology_top_n > 0 and HOMOLOGY_FLAG in candidate_flag_names(featurizer)
    firsts = []  # with homology: per row, the candidate indices of its first homology_top_n (None: not ranked)
    if shown is not None and shown[0] not in [name for name, _, _ in rankings]:
        raise ValueError(f"time_split_rows: shown ranking {shown[0]!r} is not one of the rankings")
    for name, model, correction in rankings:
        C = correct_scores(scores[model], correction)
        if shown is not None and name == shown[0]:
            for r in bench:
                if r not in where:
                    continue
                s = C[where[r]]
                c = calibration_rows(s, candidate_order(s, gene_rank), shown[1], np.zeros((len(s), len(CANDIDATE_FLAGS)), dtype=bool))
                genes = [cands[j] for j in c["index"]]
                shown_frames.append(pd.DataFrame({
                    "reaction": r, "rank": c["rank"], "gene": genes, "score": c["score"],
                    "score_z": c["score_z"], "gap_next_z": c["gap_next_z"], "gap_top_z": c["gap_top_z"],
                    "label": [int(g in benchmark[r]) for g in genes]}))
        for r in bench:
            genes = benchmark[r]
            n_later_cands = len(genes & in_cands)
            best, best_gene, ranks, order = 0, "", {}, None
            first_z = first_gap = np.nan
            if r in where:
                # one ordering per reaction: the best later gene is the one at the smallest rank
                order = candidate_order(C[where[r]], gene_rank)
                ranks = later_gene_ranks(C[where[r]], cands, genes, gene_rank)
                best, best_gene = _best_later(ranks)
                first_z, first_gap = first_candidate_standing(C[where[r]], order)
            if homology:
                firsts.append(None if order is None else order[:homology_top_n])
            rows.append({"ranking": name, "reaction": r, "reaction_kind": orphans.loc[r, "reaction_kind"],
                         "ranked": r in where, "best_rank": best, "best_gene": best_gene,
                         "n_candidates": len(cands), "n_later_genes": len(genes),
                         "n_later_candidates": n_later_cands, "later_genes": ";".join(sorted(genes)),
                         "later_gene_ranks": ";".join(str(ranks.get(g, 0)) for g in sorted(genes)),
                         "first_score_z": first_z, "first_gap_z": first_gap})
    out = pd.DataFrame(rows, columns=["ranking", "reaction", "reaction_kind", "ranked", "best_rank", "best_gene",
                                      "n_candidates", "n_later_genes", "n_later_candidates", "later_genes",
                                      "later_gene_ranks", "first_score_z", "first_gap_z"])
    if homology:
        out["homology_ranks"] = _homology_ranks(featurizer, out["reaction"].tolist(), firsts, cands)
    columns = ["reaction", "rank", "gene", "score", "score_z", "gap_next_z", "gap_top_z", "label"]
    return out, (pd.concat(shown_frames, ignore_index=True) if shown_frames else pd.DataFrame(columns=columns))


def first_candidate_standing(scores: np.ndarray, order: np.ndarray) -> tuple[float, float]:
    """How far a reaction's first candidate stands out, in the units of
    :func:`geomargin.rank.calibration.calibration_rows`: its score
    standardised over the reaction's scored candidates (``score_z``), and
    its lead over the second candidate (``gap_next_z``; 0 with one scored
    candidate). NaN without a scored candidate.

    >>> z, gap = first_candidate_standing(np.array([0.0, 2.0, np.nan, 1.0]), np.array([1, 3, 0, 2]))
    >>> round(z, 6), round(gap, 6)
    (1.224745, 1.224745)
    """
    from geomargin.rank.calibration import calibration_rows

    c = calibration_rows(scores, order, 1, np.zeros((len(scores), 0), dtype=bool), flags=())
    if not len(c["rank"]):
        return float("nan"), float("nan")
    return float(c["score_z"][0]), float(c["gap_next_z"][0])


def _homology_ranks(featurizer, reactions: Sequence[str], firsts: Sequence, cands: Sequence[str]) -> list[str]:
    """Per row, the ranks (``;``-joined) among its first candidates
    (``firsts``: candidate indices in rank order, None for a reaction not
    ranked) whose candidate has homology evidence; one candidate matrix per
    reaction, of the union of its rows' first candidates."""
    from geomargin.rank.evidence_flags import homology_flags

    union: dict[str, dict[int, None]] = {}
    for r, first in zip(reactions, firsts):
        if first is not None:
            union.setdefault(r, {}).update(dict.fromkeys(int(j) for j in first))
    flag = {}
    for r, idx in union.items():
        genes = [cands[j] for j in idx]
        flag[r] = dict(zip(idx, homology_flags(featurizer, featurizer.candidate_matrix(r, genes))))
    return ["" if first is None else ";".join(str(k + 1) for k, j in enumerate(first) if flag[r][int(j)])
            for r, first in zip(reactions, firsts)]
