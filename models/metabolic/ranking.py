"""Rank candidate genes for reactions and measure how good a ranking is.

Scores come from a caller-supplied ``score_fn(reaction, genes) -> scores``
(typically features from :class:`featurize.metabolic.pairs.PairFeaturizer` then a
fitted model's ``decision_function``). Candidates are scored in batches so
memory is bounded by ``batch_size`` rows whatever the numbers of reactions and
genes. Ties are broken by gene id (ascending), NaN scores rank last: rankings
are deterministic.

Example
-------
>>> import numpy as np
>>> score = lambda r, genes: np.array([len(g) for g in genes], float)
>>> rank_candidates(score, ["R1"], ["A", "CCC", "BB", "DD"], top_n=3, batch_size=2)
  reaction  rank gene  score  model_score
0       R1     1  CCC    3.0          3.0
1       R1     2   BB    2.0          2.0
2       R1     3   DD    2.0          2.0
>>> ranking_metrics([1, 4, 60], n_candidates=100)["mrr"]
0.4222222222222222
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

__all__ = ["rank_candidates", "score_matrix", "true_gene_ranks", "ranking_metrics", "supporting_neighbours",
           "pair_score_fn", "consensus_params", "bootstrap_ranking_metrics", "top1_concentration",
           "top1_record",
           "choose_ranking_method", "coexpression_scores", "RANKING_METRICS",
           "COEXPR", "ADJACENCY", "BASELINES", "adjacency_scores", "baseline_scores",
           "ranking_decision", "ranking_decisions", "MARGIN_RULES", "candidate_order", "gene_id_ranks",
           "GENE_CORRECTIONS", "correct_scores", "ranking_name", "split_ranking_name", "top1_by_kind"]

#: Name of the non-learned co-expression baseline in rankings and tables.
COEXPR = "coexpr"
#: Name of the non-learned adjacency baseline (candidates that already
#: catalyse related reactions first).
ADJACENCY = "adjacency"
#: The non-learned baselines, scored in every ranking validation.
BASELINES = (COEXPR, ADJACENCY)

#: Ranking scores of a geometric-margin model (see :func:`ranking_decision`).
MARGIN_RULES = ("unscaled", "scaled")

#: Per-gene corrections over the reactions ranked together (see :func:`correct_scores`).
GENE_CORRECTIONS = ("none", "centred", "z")

#: Metrics of :func:`ranking_metrics` that get a bootstrap interval.
RANKING_METRICS = ("hit@1", "hit@10", "hit@50", "mrr", "median_rank")


def _check_batch(batch_size) -> int:
    if not isinstance(batch_size, (int, np.integer)) or isinstance(batch_size, bool) \
            or batch_size < 1:
        raise ValueError("The 'batch_size' parameter must be an int >= 1. "
                         f"Got {batch_size!r} instead.")
    return int(batch_size)


def _scores(score_fn, reaction, candidates, batch_size) -> np.ndarray:
    out = np.empty(len(candidates))
    for start in range(0, len(candidates), batch_size):
        batch = candidates[start:start + batch_size]
        s = np.asarray(score_fn(reaction, batch), dtype=np.float64).reshape(-1)
        if s.shape[0] != len(batch):
            raise ValueError(f"score_fn returned {s.shape[0]} scores for {len(batch)} genes "
                             f"(reaction {reaction!r}); expected one score per gene")
        out[start:start + len(batch)] = s
    return out


def score_matrix(score_fn: Callable[[str, list[str]], np.ndarray], reactions: Sequence[str],
                 candidates: Sequence[str], batch_size: int = 2000) -> np.ndarray:
    """``(reactions x candidates)`` scores of ``score_fn`` (as for
    :func:`rank_candidates`), batches of genes outside and reactions inside,
    so that a featurizer reuses its per-batch gathering across reactions.

    >>> score_matrix(lambda r, genes: [len(r) + len(g) for g in genes], ["R1", "R22"],
    ...              ["a", "bb", "ccc"], batch_size=2).tolist()
    [[3.0, 4.0, 5.0], [4.0, 5.0, 6.0]]
    """
    batch_size = _check_batch(batch_size)
    reactions, candidates = list(reactions), list(candidates)
    S = np.empty((len(reactions), len(candidates)))
    for start in range(0, len(candidates), batch_size):
        batch = candidates[start:start + batch_size]
        for i, r in enumerate(reactions):
            S[i, start:start + len(batch)] = _scores(score_fn, r, batch, batch_size)
    return S


def candidate_order(scores: np.ndarray, gene_rank: np.ndarray) -> np.ndarray:
    """Indices sorted by score descending (NaN last), then by ``gene_rank``
    ascending (the rank of each candidate's gene id among the candidates):
    the order of every ranking of this module.

    Examples
    --------
    >>> candidate_order(np.array([1.0, np.nan, 3.0, 1.0]), np.array([3, 0, 1, 2])).tolist()
    [2, 3, 0, 1]
    """
    key = np.where(np.isnan(scores), np.inf, -scores)
    return np.lexsort((gene_rank, key))


def gene_id_ranks(genes: Sequence[str]) -> np.ndarray:
    """Rank of each gene id among ``genes`` (0 = smallest): the tie-breaker of
    :func:`candidate_order`.

    Examples
    --------
    >>> gene_id_ranks(["B", "A", "C"]).tolist()
    [1, 0, 2]
    """
    return np.argsort(np.argsort(np.asarray(list(genes), dtype=str), kind="stable"), kind="stable")


def rank_candidates(score_fn: Callable[[str, list[str]], np.ndarray],
                    reactions: Sequence[str], candidates: Sequence[str],
                    top_n: int | None = 20, batch_size: int = 2000,
                    gene_correction: str = "none") -> pd.DataFrame:
    """Top candidates per reaction.

    Parameters
    ----------
    score_fn : callable
        ``score_fn(reaction, genes)`` -> array of one score per gene (higher =
        more likely the enzyme). Called with at most ``batch_size`` genes.
    reactions : sequence of str
    candidates : sequence of str
        Candidate gene ids (duplicates are dropped, first kept).
    top_n : int or None, default 20
        Rows kept per reaction; None keeps every candidate.
    batch_size : int, default 2000
    gene_correction : {"none", "centred", "z"}, default "none"
        Rank by the scores corrected per gene over all ``reactions``
        (:func:`correct_scores`): the reactions passed are the reference
        set, so the whole ``reactions x candidates`` matrix is held at once.

    Returns
    -------
    DataFrame
        Columns ``reaction, rank, gene, score, model_score``; ``score`` is
        the ranking score (after the gene correction), ``model_score`` the
        model's score (equal to ``score`` without a correction); ``rank``
        1-based; sorted by reaction (input order) then rank. Ties: gene id
        ascending.
    """
    batch_size = _check_batch(batch_size)
    if top_n is not None and (not isinstance(top_n, (int, np.integer)) or top_n < 1):
        raise ValueError(f"The 'top_n' parameter must be an int >= 1 or None. Got {top_n!r} instead.")
    _check_correction(gene_correction)
    cands = list(dict.fromkeys(candidates))
    gene_rank = gene_id_ranks(cands)
    reactions = list(reactions)
    frames = []
    # Batches of genes outside, reactions inside: a featurizer can reuse its
    # per-batch gathering across reactions. Scores are held for a chunk of
    # reactions at a time (at most ~4 million floats; all reactions when a
    # gene correction needs them together).
    chunk = max(1, min(len(reactions), 4_000_000 // max(1, len(cands))))
    if gene_correction != "none":
        chunk = max(1, len(reactions))
    for c0 in range(0, len(reactions), chunk):
        rs = reactions[c0:c0 + chunk]
        S = score_matrix(score_fn, rs, cands, batch_size)
        C = correct_scores(S, gene_correction)
        for i, r in enumerate(rs):
            s = C[i]
            order = candidate_order(s, gene_rank)
            if top_n is not None:
                order = order[:top_n]
            frames.append(pd.DataFrame({"reaction": r, "rank": np.arange(1, len(order) + 1),
                                        "gene": [cands[j] for j in order], "score": s[order],
                                        "model_score": S[i, order]}))
    if not frames:
        return pd.DataFrame({"reaction": pd.Series(dtype=object), "rank": pd.Series(dtype=int),
                             "gene": pd.Series(dtype=object), "score": pd.Series(dtype=float),
                             "model_score": pd.Series(dtype=float)})
    return pd.concat(frames, ignore_index=True)


def true_gene_ranks(score_fn: Callable[[str, list[str]], np.ndarray], reaction: str,
                    candidates: Sequence[str], true_genes: Sequence[str],
                    batch_size: int = 2000, filtered: bool = True) -> dict[str, int]:
    """1-based rank of each true gene among ``candidates`` for ``reaction``
    (same ordering as :func:`rank_candidates`).

    With ``filtered=True`` (the default, the usual protocol for link
    prediction) the *other* true genes of the reaction are removed from the
    ranking of each true gene, so a reaction with several known genes is not
    penalised for ranking them all highly. True genes missing from the
    candidates are not ranked (left out of the result).

    Examples
    --------
    >>> score = lambda r, genes: np.array([{"A": 3.0, "B": 2.0, "C": 1.0}[g] for g in genes])
    >>> true_gene_ranks(score, "R", ["A", "B", "C"], ["A", "B"])
    {'A': 1, 'B': 1}
    >>> true_gene_ranks(score, "R", ["A", "B", "C"], ["A", "B"], filtered=False)
    {'A': 1, 'B': 2}
    """
    batch_size = _check_batch(batch_size)
    cands = list(dict.fromkeys(candidates))
    gene_rank = gene_id_ranks(cands)
    s = _scores(score_fn, reaction, cands, batch_size)
    pos = np.empty(len(cands), dtype=np.intp)
    pos[candidate_order(s, gene_rank)] = np.arange(1, len(cands) + 1)
    where = {g: i for i, g in enumerate(cands)}
    present = [g for g in dict.fromkeys(true_genes) if g in where]
    true_pos = np.array([pos[where[g]] for g in present], dtype=np.intp)
    out = {}
    for g, p in zip(present, true_pos):
        out[g] = int(p - np.sum(true_pos < p)) if filtered else int(p)
    return out


def pair_score_fn(featurizer, decision_function: Callable[[np.ndarray], np.ndarray]
                  ) -> Callable[[str, list[str]], np.ndarray]:
    """``score_fn(reaction, genes)`` for :func:`rank_candidates`: features from
    ``featurizer.candidate_matrix`` scored by ``decision_function``.

    A candidate whose features are *all* absent for this reaction (no data of
    any source the reaction's neighbours have) gets NaN and so ranks last:
    there is no evidence to rank it on, and an estimator's constant score for
    an empty instance must not place it above genes with evidence.
    """
    def score(reaction: str, genes: list[str]) -> np.ndarray:
        X = featurizer.candidate_matrix(reaction, genes)
        s = np.asarray(decision_function(X), dtype=np.float64).reshape(-1)
        s[np.isnan(X).all(axis=1)] = np.nan
        return s
    return score


def consensus_params(best_params: Sequence[dict]) -> dict:
    """The hyperparameters chosen by the most outer folds (ties: the earliest
    fold's choice), used to refit a final model on all known data.

    Examples
    --------
    >>> consensus_params([{"C": 1.0}, {"C": 10.0}, {"C": 10.0}])
    {'C': 10.0}
    >>> consensus_params([{"C": 1.0}, {"C": 10.0}])
    {'C': 1.0}
    """
    if not best_params:
        raise ValueError("consensus_params needs the parameters chosen in at least one fold")
    keys = [tuple(sorted((k, repr(v)) for k, v in p.items())) for p in best_params]
    counts = {k: keys.count(k) for k in keys}
    best = max(counts.values())
    first = next(i for i, k in enumerate(keys) if counts[k] == best)
    return dict(best_params[first])


def ranking_metrics(ranks_of_true_genes, n_candidates) -> dict[str, float]:
    """Summary of 1-based ranks of the true genes.

    Parameters
    ----------
    ranks_of_true_genes : array-like of int >= 1
        One rank per (reaction, true gene).
    n_candidates : int or array-like
        Number of candidates each rank was taken among (scalar or one per
        rank); reported as its median.

    Returns
    -------
    dict
        ``hit@1``, ``hit@10``, ``hit@50`` (fraction of true genes ranked at
        or above k), ``mrr`` (mean of 1/rank), ``median_rank``, ``n_true``,
        ``n_candidates``. With no ranks the metrics are NaN.
    """
    r = np.asarray(ranks_of_true_genes, dtype=np.float64).reshape(-1)
    n = np.broadcast_to(np.asarray(n_candidates, dtype=np.float64), r.shape) if r.size else \
        np.asarray(n_candidates, dtype=np.float64).reshape(-1)
    if r.size and (np.isnan(r).any() or (r < 1).any() or (r != np.round(r)).any()):
        raise ValueError("ranks_of_true_genes must be integers >= 1 (1 = best); "
                         f"got {r[(r < 1) | (r != np.round(r)) | np.isnan(r)][:5].tolist()}")
    if r.size and (r > n).any():
        raise ValueError("a rank exceeds its number of candidates: "
                         f"rank {r[r > n][0]:.0f} > n_candidates {n[r > n][0]:.0f}")
    if r.size == 0:
        nan = float("nan")
        return {"hit@1": nan, "hit@10": nan, "hit@50": nan, "mrr": nan, "median_rank": nan,
                "n_true": 0, "n_candidates": float(np.median(n)) if n.size else nan}
    return {"hit@1": float(np.mean(r <= 1)), "hit@10": float(np.mean(r <= 10)),
            "hit@50": float(np.mean(r <= 50)), "mrr": float(np.mean(1.0 / r)),
            "median_rank": float(np.median(r)), "n_true": int(r.size),
            "n_candidates": float(np.median(n))}


def supporting_neighbours(featurizer, decision_function: Callable[[np.ndarray], np.ndarray],
                          reaction: str, gene: str, top: int = 3) -> list[tuple[str, str, float]]:
    """Neighbour genes that support the score of ``(reaction, gene)`` most.

    Each neighbour h is removed in turn (leave-one-neighbour-out, exact, see
    :meth:`featurize.metabolic.pairs.PairFeaturizer.leave_one_out`); its support is the
    drop of ``decision_function`` when it is removed. Returns up to ``top``
    tuples ``(gene, motif types joined by '+', drop)`` with positive drops,
    largest first (ties by gene id).
    """
    hs, Xh = featurizer.leave_one_out(reaction, gene)
    if not hs:
        return []
    x = featurizer.candidate_matrix(reaction, [gene])
    base = float(np.asarray(decision_function(x)).reshape(-1)[0])
    drops = base - np.asarray(decision_function(Xh), dtype=np.float64).reshape(-1)
    nb = featurizer.neighbour_genes(reaction, gene)
    motifs_of = {h: "+".join(t for t, genes in nb.items() if h in genes) for h in hs}
    order = sorted(range(len(hs)), key=lambda i: (-drops[i], hs[i]))
    return [(hs[i], motifs_of[hs[i]], float(drops[i])) for i in order[:top] if drops[i] > 0]


def bootstrap_ranking_metrics(ranks: pd.DataFrame, n_candidates, n_boot: int = 1000,
                              seed: int = 0, level: float = 0.95) -> dict[str, float]:
    """:func:`ranking_metrics` with percentile bootstrap intervals over reactions.

    The true pairs of one reaction are not independent (they share the
    reaction's neighbours), so the resampling unit is the reaction: each
    replicate draws as many reactions as there are, with replacement, and
    pools all their ranks.

    Parameters
    ----------
    ranks : DataFrame
        Columns ``reaction`` and ``rank`` (one row per true pair).
    n_candidates : int
        Candidates each rank was taken among.
    n_boot : int, default 1000
    seed : int, default 0
        Seeds :func:`numpy.random.default_rng`.
    level : float, default 0.95

    Returns
    -------
    dict
        Every key of :func:`ranking_metrics`, plus ``<metric>_lo`` and
        ``<metric>_hi`` for each metric in :data:`RANKING_METRICS`, plus
        ``n_reactions``.

    Examples
    --------
    >>> df = pd.DataFrame({"reaction": ["a", "a", "b", "c"], "rank": [1, 3, 60, 2]})
    >>> m = bootstrap_ranking_metrics(df, n_candidates=100, n_boot=200, seed=0)
    >>> m["hit@10"], m["n_reactions"]
    (0.75, 3)
    >>> bool(m["hit@10_lo"] <= 0.75 <= m["hit@10_hi"])
    True
    """
    if not isinstance(n_boot, (int, np.integer)) or isinstance(n_boot, bool) or n_boot < 1:
        raise ValueError(f"The 'n_boot' parameter must be an int >= 1. Got {n_boot!r} instead.")
    if not (isinstance(level, float) and 0 < level < 1):
        raise ValueError(f"The 'level' parameter must be a float in (0, 1). Got {level!r} instead.")
    missing = {"reaction", "rank"} - set(ranks.columns)
    if missing:
        raise ValueError(f"ranks needs the columns 'reaction' and 'rank'; missing {sorted(missing)}")
    point = ranking_metrics(ranks["rank"].to_numpy(), n_candidates)
    codes, uniq = pd.factorize(ranks["reaction"], sort=True)
    out = {**point, "n_reactions": int(len(uniq))}
    if len(uniq) == 0:
        for m in RANKING_METRICS:
            out[f"{m}_lo"] = out[f"{m}_hi"] = float("nan")
        return out
    r = ranks["rank"].to_numpy(dtype=np.float64)
    order = np.argsort(codes, kind="stable")
    r_sorted = r[order]
    counts = np.bincount(codes, minlength=len(uniq))
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    # per-reaction sums make hit@k and MRR exact weighted means of a replicate
    sums = {f"hit@{k}": np.add.reduceat((r_sorted <= k).astype(float), starts) for k in (1, 10, 50)}
    sums["mrr"] = np.add.reduceat(1.0 / r_sorted, starts)
    rng = np.random.default_rng(seed)
    boot = {m: np.empty(n_boot) for m in RANKING_METRICS}
    for b in range(n_boot):
        pick = rng.integers(0, len(uniq), size=len(uniq))
        w = np.bincount(pick, minlength=len(uniq))
        total = float(w @ counts)
        for m, v in sums.items():
            boot[m][b] = float(w @ v) / total
        boot["median_rank"][b] = np.median(np.repeat(r_sorted, np.repeat(w, counts)))
    alpha = (1.0 - level) / 2.0
    for m in RANKING_METRICS:
        lo, hi = np.quantile(boot[m], [alpha, 1.0 - alpha])
        out[f"{m}_lo"], out[f"{m}_hi"] = float(lo), float(hi)
    return out


def top1_concentration(ranking: pd.DataFrame) -> tuple[str, int, float]:
    """The gene ranked first for the most reactions.

    Parameters
    ----------
    ranking : DataFrame
        Columns ``reaction``, ``rank`` and ``gene`` (as from
        :func:`rank_candidates`).

    Returns
    -------
    (gene, n_reactions, share)
        ``share`` = that gene's rank-1 count / number of reactions with a
        rank-1 row. Ties: the smallest gene id. ``("", 0, nan)`` for an
        empty ranking.

    Examples
    --------
    >>> df = pd.DataFrame({"reaction": ["a", "b", "c", "c"], "rank": [1, 1, 1, 2],
    ...                    "gene": ["G2", "G1", "G2", "G1"]})
    >>> top1_concentration(df)
    ('G2', 2, 0.6666666666666666)
    """
    first = ranking[ranking["rank"] == 1]
    if first.empty:
        return "", 0, float("nan")
    counts = first["gene"].value_counts()
    best = int(counts.max())
    gene = sorted(counts.index[counts == best])[0]
    return str(gene), best, best / float(first["reaction"].nunique())


def top1_record(tops: pd.DataFrame, method: str, gene: str,
                orphan_share: float | None = None) -> dict:
    """How often ``gene`` was ranked first in the validation, and how often rightly.

    Whether a gene that tops many orphan rankings has earned it: on the
    held-out reactions (whose genes are known), how often did ``method``
    put ``gene`` first, and for how many of those was it a true gene? The
    concentration is *earned* when the validation shows it: the gene was
    first for at least as large a share of the held-out reactions as it is
    of the orphans (``orphan_share``), and when first it was right at least
    as often as the method's first candidates are overall (its hit@1 over
    the same reactions).

    Parameters
    ----------
    tops : DataFrame
        One row per (method, held-out reaction): columns ``method``,
        ``reaction``, ``top_gene`` (the method's first candidate, "" when
        nothing was scored) and ``top_is_true`` (bool), as
        ``results/metabolic/ranking/top_genes.tsv``.
    method, gene : str
    orphan_share : float, optional
        The share of the orphan reactions that ``gene`` tops; without it
        only the precision is compared.

    Returns
    -------
    dict
        ``tops`` (held-out reactions ``gene`` topped), ``share`` (tops / the
        method's held-out reactions), ``correct`` (of the tops, where it is a
        true gene), ``precision`` (correct / tops, NaN for 0 tops), ``hit1``
        (the method's share of reactions whose first candidate is a true
        gene), ``earned`` and ``reactions`` (the method's held-out reactions
        with a first candidate).

    Examples
    --------
    >>> tops = pd.DataFrame({"method": ["m"] * 4, "reaction": list("abcd"),
    ...                      "top_gene": ["G1", "G1", "G2", "G1"],
    ...                      "top_is_true": [True, True, False, True]})
    >>> r = top1_record(tops, "m", "G1", orphan_share=0.5)
    >>> r["tops"], r["share"], r["correct"], r["precision"], r["hit1"], r["earned"]
    (3, 0.75, 3, 1.0, 0.75, True)
    >>> top1_record(tops, "m", "G1", orphan_share=0.9)["earned"]   # more than validated
    False
    """
    mine = tops[(tops["method"] == method) & (tops["top_gene"].astype(str) != "")]
    is_true = mine["top_is_true"].astype(bool)
    hit1 = float(is_true.mean()) if len(mine) else float("nan")
    of_gene = mine["top_gene"].astype(str) == str(gene)
    n = int(of_gene.sum())
    share = n / len(mine) if len(mine) else float("nan")
    correct = int((of_gene & is_true).sum())
    precision = correct / n if n else float("nan")
    earned = bool(n and precision >= hit1 and (orphan_share is None or orphan_share <= share))
    return {"tops": n, "share": share, "correct": correct, "precision": precision, "hit1": hit1,
            "earned": earned, "reactions": len(mine)}


def top1_by_kind(tops: pd.DataFrame, method: str, gene: str,
                 orphan_first: pd.DataFrame) -> pd.DataFrame:
    """:func:`top1_record` within each reaction kind.

    The orphan reactions and the held-out reactions of the validation can
    differ in composition (on the default data 79% of the ranked orphans are
    transport reactions, against 15% of the held-out ones), and a gene that
    is right for many reactions of one kind (a broad-specificity
    transporter) then tops a larger share of the orphans than of the
    held-out reactions without being any less right. This compares like with
    like: for every kind whose orphans ``gene`` tops, its share of that
    kind's orphans against its share of that kind's held-out reactions, and
    its precision there against the method's hit@1 on that kind.

    Parameters
    ----------
    tops : DataFrame
        As for :func:`top1_record`, with a ``reaction_kind`` column.
    method, gene : str
    orphan_first : DataFrame
        One row per ranked orphan reaction: ``reaction_kind`` and ``gene``
        (its rank-1 candidate).

    Returns
    -------
    DataFrame
        One row per kind whose orphans ``gene`` tops: ``reaction_kind``,
        ``orphans`` (of that kind), ``orphan_tops``, ``orphan_share`` and
        the :func:`top1_record` fields over that kind's held-out reactions
        (``tops``, ``share``, ``correct``, ``precision``, ``hit1``,
        ``earned``). A kind without held-out reactions is not earned.

    Examples
    --------
    >>> tops = pd.DataFrame({"method": ["m"] * 4, "reaction": list("abcd"),
    ...                      "top_gene": ["T", "T", "E", "E"], "top_is_true": [True, False, True, True],
    ...                      "reaction_kind": ["transport", "transport", "enzymatic", "enzymatic"]})
    >>> orphans = pd.DataFrame({"reaction_kind": ["transport"] * 3 + ["enzymatic"],
    ...                         "gene": ["T", "T", "X", "E"]})
    >>> t = top1_by_kind(tops, "m", "T", orphans)
    >>> t[["reaction_kind", "orphan_share", "share", "precision", "hit1", "earned"]].to_dict("records")
    [{'reaction_kind': 'transport', 'orphan_share': 0.6666666666666666, 'share': 1.0, 'precision': 0.5, 'hit1': 0.5, 'earned': True}]
    """
    if "reaction_kind" not in tops.columns:
        raise ValueError("the validation's top genes need a 'reaction_kind' column; rerun the "
                         "ranking validation")
    rows = []
    for kind, first in orphan_first.groupby("reaction_kind", sort=True):
        n_top = int((first["gene"].astype(str) == str(gene)).sum())
        if not n_top:
            continue
        share = n_top / len(first)
        record = top1_record(tops[tops["reaction_kind"].astype(str) == str(kind)], method, gene,
                             orphan_share=share)
        rows.append({"reaction_kind": kind, "orphans": len(first), "orphan_tops": n_top,
                     "orphan_share": share, **record})
    return pd.DataFrame(rows, columns=["reaction_kind", "orphans", "orphan_tops", "orphan_share", "tops",
                                       "share", "correct", "precision", "hit1", "earned", "reactions"])


def choose_ranking_method(table: pd.DataFrame, metric: str = "mrr") -> str:
    """The method with the best validated ``metric`` (ties: the earlier row).

    ``table`` has one row per method (column ``method``), as
    ``ranking_validation.tsv``. Rows ``<method>@<rule>`` (a geometric-margin
    model scored by the margin rule that is *not* configured, kept to
    measure that choice) are never chosen.

    Examples
    --------
    >>> t = pd.DataFrame({"method": ["coexpr", "hgb", "geometric", "geometric@scaled"],
    ...                   "mrr": [0.03, 0.25, 0.25, 0.4]})
    >>> choose_ranking_method(t)
    'hgb'
    """
    table = table[~table["method"].astype(str).str.contains("@")] if "method" in table else table
    if metric not in table.columns or "method" not in table.columns:
        raise ValueError(f"the validation table needs the columns 'method' and {metric!r}; "
                         f"it has {list(table.columns)}")
    values = pd.to_numeric(table[metric], errors="coerce").to_numpy()
    if np.isnan(values).all():
        raise ValueError(f"no method has a validated {metric!r}: the validation ranked no "
                         "held-out reaction (too few reactions with known genes?)")
    return str(table["method"].iloc[int(np.nanargmax(values))])


def coexpression_scores(featurizer, X: np.ndarray) -> np.ndarray:
    """The non-learned co-expression baseline (Kharchenko, Vitkup & Church 2004).

    A candidate's score is the largest, over the motif types, of the mean
    Pearson r between its expression profile and those of the reaction's
    neighbours of that type (:meth:`featurize.metabolic.pairs.PairFeaturizer.block_sums`
    of the ``expr`` blocks). NaN (ranked last) when no motif type has an
    expression block for the pair.

    Examples
    --------
    >>> class _F:
    ...     def block_sums(self, X, kind):
    ...         return np.array([[0.2, np.nan], [np.nan, np.nan], [-0.1, -0.3]])
    >>> coexpression_scores(_F(), np.zeros((3, 1))).tolist()
    [0.2, nan, -0.1]
    """
    S = featurizer.block_sums(X, "expr")
    out = np.full(S.shape[0], np.nan)
    ok = ~np.isnan(S).all(axis=1)
    out[ok] = np.nanmax(S[ok], axis=1)
    return out


def ranking_decision(model, margin_rule: str = "unscaled") -> Callable[[np.ndarray], np.ndarray]:
    """The function that scores candidates for ranking with a fitted ``model``.

    A geometric-margin model (one with a ``scales(X)`` method, e.g.
    :class:`models.geometric.GeometricMarginSVC`) is trained to maximise
    the margin in each instance's own subspace, ``f(x) = <w, phi(x)> / s(x) + b``
    with ``s(x) = ||w^(x)|| / ||w||``; its sign is the classification.
    Ranking compares the candidates of one reaction, whose absence patterns
    differ. ``margin_rule="scaled"`` ranks by ``f(x)``;
    ``"unscaled"`` by ``<w, phi(x)> + b = (f(x) - b) s(x) + b``, the same
    hyperplane without the division by ``s(x)``, which inflates the scores of
    candidates with few valid features. Which one ranks better is measured
    by the ranking validation (README). Any other model ranks by its
    ``decision_function``.

    Examples
    --------
    >>> class _Geo:
    ...     intercept_ = np.array([0.5])
    ...     def decision_function(self, X): return np.array([2.5, -1.5])
    ...     def scales(self, X): return np.array([0.5, 1.0])
    >>> ranking_decision(_Geo(), "unscaled")(None).tolist()    # (2.5 - 0.5) * 0.5 + 0.5
    [1.5, -1.5]
    >>> ranking_decision(_Geo(), "scaled")(None).tolist()
    [2.5, -1.5]
    """
    _check_margin_rule(margin_rule)
    if margin_rule == "scaled" or not hasattr(model, "scales"):
        return model.decision_function

    def unscaled(X):
        return _unscale(model, model.decision_function(X), model.scales(X))
    return unscaled


def _check_margin_rule(margin_rule: str) -> None:
    if margin_rule not in MARGIN_RULES:
        raise ValueError(f"The 'margin_rule' parameter must be one of {MARGIN_RULES}. "
                         f"Got {margin_rule!r} instead.")


def _unscale(model, f, s) -> np.ndarray:
    """``<w, phi(x)> + b = (f(x) - b) s(x) + b`` from the geometric margins ``f``."""
    b = float(np.ravel(model.intercept_)[0])
    return (np.asarray(f, dtype=np.float64) - b) * np.asarray(s, dtype=np.float64) + b


def ranking_decisions(model, margin_rules: Sequence[str]) -> Callable[[np.ndarray], dict]:
    """Scores of ``model`` under several margin rules from one pass over ``X``.

    Returns a function ``X -> {rule: scores}`` whose values equal
    ``ranking_decision(model, rule)(X)`` for every rule in ``margin_rules``,
    computing ``decision_function`` once and ``scales`` at most once (one
    call of ``decision_and_scales`` where the model has it: the
    block-kernel map is then built once instead of three times). A model
    without ``scales`` scores every rule by its ``decision_function``.

    Examples
    --------
    >>> class _Geo:
    ...     intercept_ = np.array([0.5])
    ...     def decision_function(self, X): return np.array([2.5, -1.5])
    ...     def scales(self, X): return np.array([0.5, 1.0])
    >>> both = ranking_decisions(_Geo(), ["scaled", "unscaled"])(None)
    >>> {k: v.tolist() for k, v in both.items()}
    {'scaled': [2.5, -1.5], 'unscaled': [1.5, -1.5]}
    """
    rules = list(margin_rules)
    for rule in rules:
        _check_margin_rule(rule)
    needs_scales = hasattr(model, "scales") and "unscaled" in rules

    def score(X) -> dict:
        if needs_scales and hasattr(model, "decision_and_scales"):
            f, s = model.decision_and_scales(X)
        else:
            f = model.decision_function(X)
            s = model.scales(X) if needs_scales else None
        return {rule: _unscale(model, f, s) if rule == "unscaled" and needs_scales else f
                for rule in rules}
    return score


def adjacency_scores(featurizer, X: np.ndarray) -> np.ndarray:
    """The non-learned adjacency baseline: how many related reactions the
    candidate already catalyses, summed over the motif types (a reaction
    related by two motif types counts twice), read from the ``net`` blocks
    of :class:`featurize.metabolic.pairs.PairFeaturizer` (``adjacency=True``). NaN
    (ranked last) when no motif type has a related reaction with a gene.

    Examples
    --------
    >>> class _F:
    ...     feature_scale_ = None
    ...     blocks_ = [("fork", "net", slice(0, 2)), ("funnel", "net", slice(2, 4))]
    >>> X = np.array([[np.log(3.0), 0.5, np.log(2.0), 1.0], [np.nan, np.nan, np.nan, np.nan]])
    >>> adjacency_scores(_F(), X).round(6).tolist()    # 2 + 1 related reactions
    [3.0, nan]
    """
    cols = [sl.start for _, kind, sl in featurizer.blocks_ if kind == "net"]
    if not cols:
        raise ValueError("the adjacency baseline needs the featurizer's net blocks "
                         "(PairFeaturizer(adjacency=True), config adjacency_features: true)")
    L = np.asarray(X, dtype=np.float64)[:, cols]
    if featurizer.feature_scale_ is not None:
        L = L / np.asarray(featurizer.feature_scale_)[cols]
    out = np.full(L.shape[0], np.nan)
    ok = ~np.isnan(L).all(axis=1)
    out[ok] = np.nansum(np.expm1(L[ok]), axis=1)
    return out


def baseline_scores(name: str, featurizer, X: np.ndarray) -> np.ndarray:
    """Scores of the non-learned baseline ``name`` (one of :data:`BASELINES`)."""
    if name == COEXPR:
        return coexpression_scores(featurizer, X)
    if name == ADJACENCY:
        return adjacency_scores(featurizer, X)
    raise ValueError(f"unknown baseline {name!r}; expected one of {BASELINES}")


def _check_correction(gene_correction: str) -> None:
    if gene_correction not in GENE_CORRECTIONS:
        raise ValueError(f"The 'gene_correction' parameter must be one of {GENE_CORRECTIONS}. "
                         f"Got {gene_correction!r} instead.")


def correct_scores(S: np.ndarray, gene_correction: str = "none") -> np.ndarray:
    """Each gene's scores compared with its scores for the other reactions
    ranked together: a correction for "hub" genes.

    Some candidates score high for almost every reaction (a broad-specificity
    transporter, a gene with many neighbours); ranked raw they come first for
    a large share of the reactions. The corrections compare a gene's score for
    a reaction with its scores over the *reference set*, the rows of ``S``
    (the reactions ranked together: a fold's held-out reactions in the
    validation, the orphan reactions in the final ranking). No label is used.

    - ``"none"``: ``S`` itself (a copy);
    - ``"centred"``: ``S[r, g]`` minus the mean of gene ``g``'s scores over
      the reactions;
    - ``"z"``: that difference divided by their standard deviation (0 for a
      gene whose scores are all equal).

    NaN (no evidence for the pair) stays NaN and is left out of the means.
    Within one reaction ``"centred"`` ranks by ``score - gene mean``; it is
    the model's score with the gene's main effect removed.

    Parameters
    ----------
    S : array of shape (n_reactions, n_candidates)
    gene_correction : {"none", "centred", "z"}

    Returns
    -------
    ndarray of the same shape

    Raises
    ------
    ValueError
        For an unknown correction, or a correction with fewer than 2
        reactions (one reaction has no reference to compare with).

    Examples
    --------
    >>> S = np.array([[3.0, 1.0], [5.0, 0.0], [4.0, np.nan]])
    >>> correct_scores(S, "centred")
    array([[-1. ,  0.5],
           [ 1. , -0.5],
           [ 0. ,  nan]])
    >>> correct_scores(S, "z")[:, 0].round(4).tolist()
    [-1.2247, 1.2247, 0.0]
    """
    _check_correction(gene_correction)
    S = np.array(S, dtype=np.float64)
    if S.ndim != 2:
        raise ValueError(f"scores must be a (reactions x candidates) matrix; got shape {S.shape}")
    if gene_correction == "none":
        return S
    if S.shape[0] < 2:
        raise ValueError(f"the {gene_correction!r} gene correction compares each gene's scores over "
                         f"the reactions ranked together and needs at least 2 of them; got "
                         f"{S.shape[0]}. Rank more reactions together or set the gene correction "
                         "to 'none'.")
    valid = ~np.isnan(S)
    n = valid.sum(axis=0)
    mean = np.where(valid, S, 0.0).sum(axis=0) / np.maximum(n, 1)
    out = S - mean
    if gene_correction == "z":
        sd = np.sqrt((np.where(valid, out, 0.0) ** 2).sum(axis=0) / np.maximum(n, 1))
        # a gene with one score everywhere: its SD is rounding error, its z is 0
        flat = sd <= 1e-12 * np.maximum(1.0, np.abs(mean))
        out = np.where(flat, np.where(valid, 0.0, np.nan), out / np.where(flat, 1.0, sd))
    return out


def ranking_name(method: str, gene_correction: str = "none") -> str:
    """Name of a ranking in the validation tables: ``method``, or
    ``"<method>+<correction>"`` with a gene correction.

    >>> ranking_name("hgb"), ranking_name("hgb", "centred")
    ('hgb', 'hgb+centred')
    """
    _check_correction(gene_correction)
    return method if gene_correction == "none" else f"{method}+{gene_correction}"


def split_ranking_name(name: str) -> tuple[str, str]:
    """``(method, gene correction)`` of a ranking name (:func:`ranking_name`).

    >>> split_ranking_name("hgb+centred"), split_ranking_name("coexpr")
    (('hgb', 'centred'), ('coexpr', 'none'))
    """
    method, sep, correction = str(name).partition("+")
    if not sep:
        return method, "none"
    if correction not in GENE_CORRECTIONS[1:] or not method:
        raise ValueError(f"{name!r} is not a ranking name: expected '<method>' or "
                         f"'<method>+<correction>' with a correction of {GENE_CORRECTIONS[1:]}")
    return method, correction
