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

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.special import gammaln

from common.checks import check_param, int_at_least, open_unit_interval
from rank.scoring import candidate_order, gene_id_ranks

__all__ = ["HIT_KS", "later_genes", "best_later_ranks", "random_expectation", "time_split_metrics"]

#: The k of the hit@k columns.
HIT_KS = (1, 5, 20, 50)


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


def best_later_ranks(scores: np.ndarray, candidates: Sequence[str], genes: frozenset) -> tuple[int, int]:
    """1-based rank of the best-ranked later gene among ``candidates``
    (ordered as every ranking of :mod:`rank.scoring`: score descending, NaN
    last, ties by gene id), and how many later genes are candidates.
    The rank is 0 when none is.

    Examples
    --------
    >>> best_later_ranks(np.array([0.1, 0.9, 0.5]), ["A", "B", "C"], frozenset({"A", "C"}))
    (2, 2)
    >>> best_later_ranks(np.array([0.1, 0.9]), ["A", "B"], frozenset({"Z"}))
    (0, 0)
    """
    cands = list(candidates)
    order = candidate_order(np.asarray(scores, dtype=np.float64), gene_id_ranks(cands))
    hits = [i + 1 for i, j in enumerate(order) if cands[j] in genes]
    return (hits[0] if hits else 0), len(hits)


def _log_comb(n, k):
    return gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)


def random_expectation(n_candidates: int, n_later: int, ks: Sequence[int] = HIT_KS) -> dict[str, float]:
    """Hit@k and reciprocal rank of the best of ``n_later`` later genes when
    ``n_candidates`` candidates are put in a uniformly random order.

    P(best rank > k) = C(n - m, k) / C(n, k); E[1 / best rank] sums
    P(best rank = r) / r.

    Examples
    --------
    >>> e = random_expectation(10, 1, ks=(1, 5))
    >>> round(e["hit@1"], 3), round(e["hit@5"], 3), round(e["mrr"], 4)
    (0.1, 0.5, 0.2929)
    >>> random_expectation(10, 0)["mrr"]
    0.0
    """
    n, m = int(n_candidates), int(n_later)
    out = {}
    for k in ks:
        if m <= 0 or n <= 0:
            out[f"hit@{k}"] = 0.0
        elif k >= n - m + 1:
            out[f"hit@{k}"] = 1.0
        else:
            out[f"hit@{k}"] = float(1.0 - np.exp(_log_comb(n - m, k) - _log_comb(n, k)))
    if m <= 0 or n <= 0:
        out["mrr"] = 0.0
        return out
    r = np.arange(1, n - m + 2, dtype=np.float64)
    # P(best >= r) = C(n - r + 1, m) / C(n, m)
    at_least = np.exp(_log_comb(n - r + 1, m) - _log_comb(n, m))
    exactly = at_least - np.r_[at_least[1:], 0.0]
    out["mrr"] = float(np.sum(exactly / r))
    return out


def time_split_metrics(rows: pd.DataFrame, n_boot: int = 1000, seed: int = 0, level: float = 0.95,
                       ks: Sequence[int] = HIT_KS) -> dict[str, float]:
    """Metrics over benchmark reactions with bootstrap intervals over reactions.

    Parameters
    ----------
    rows : DataFrame
        One row per benchmark reaction: ``best_rank`` (0 = not ranked, or no
        later gene among the candidates), ``n_candidates`` and
        ``n_later_candidates`` (later genes among them).
    n_boot, seed, level
        Percentile bootstrap over reactions (``numpy.random.default_rng(seed)``).

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
        picks = rng.integers(0, len(rows), size=(n_boot, len(rows)))
        for name, v in values.items():
            lo, hi = np.quantile(v[picks].mean(axis=1), [alpha, 1.0 - alpha])
            out[f"{name}_lo"], out[f"{name}_hi"] = float(lo), float(hi)
    else:
        for name in values:
            out[f"{name}_lo"] = out[f"{name}_hi"] = float("nan")
    expected = [random_expectation(n, m, ks) for n, m in
                zip(rows["n_candidates"].to_numpy(), rows["n_later_candidates"].to_numpy())]
    for name in values:
        out[f"random_{name}"] = float(np.mean([e[name] for e in expected])) if expected else float("nan")
    return out
