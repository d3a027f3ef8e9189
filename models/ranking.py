"""Rank candidate genes for reactions and measure how good a ranking is.

Scores come from a caller-supplied ``score_fn(reaction, genes) -> scores``
(typically features from :class:`featurize.pairs.PairFeaturizer` then a
fitted model's ``decision_function``). Candidates are scored in batches so
memory is bounded by ``batch_size`` rows whatever the numbers of reactions and
genes. Ties are broken by gene id (ascending), NaN scores rank last: rankings
are deterministic.

Example
-------
>>> import numpy as np
>>> score = lambda r, genes: np.array([len(g) for g in genes], float)
>>> rank_candidates(score, ["R1"], ["A", "CCC", "BB", "DD"], top_n=3, batch_size=2)
  reaction  rank gene  score
0       R1     1  CCC    3.0
1       R1     2   BB    2.0
2       R1     3   DD    2.0
>>> ranking_metrics([1, 4, 60], n_candidates=100)["mrr"]
0.4222222222222222
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

__all__ = ["rank_candidates", "true_gene_ranks", "ranking_metrics", "supporting_neighbours",
           "pair_score_fn", "consensus_params"]


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


def _order(scores: np.ndarray, gene_rank: np.ndarray) -> np.ndarray:
    """Indices sorted by score descending (NaN last), then gene id ascending."""
    key = np.where(np.isnan(scores), np.inf, -scores)
    return np.lexsort((gene_rank, key))


def rank_candidates(score_fn: Callable[[str, list[str]], np.ndarray],
                    reactions: Sequence[str], candidates: Sequence[str],
                    top_n: int | None = 20, batch_size: int = 2000) -> pd.DataFrame:
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

    Returns
    -------
    DataFrame
        Columns ``reaction, rank, gene, score``; ``rank`` 1-based; sorted by
        reaction (input order) then rank. Ties: gene id ascending.
    """
    batch_size = _check_batch(batch_size)
    if top_n is not None and (not isinstance(top_n, (int, np.integer)) or top_n < 1):
        raise ValueError(f"The 'top_n' parameter must be an int >= 1 or None. Got {top_n!r} instead.")
    cands = list(dict.fromkeys(candidates))
    gene_rank = np.argsort(np.argsort(np.asarray(cands, dtype=str), kind="stable"), kind="stable")
    reactions = list(reactions)
    frames = []
    # Batches of genes outside, reactions inside: a featurizer can reuse its
    # per-batch gathering across reactions. Scores are held for a chunk of
    # reactions at a time (at most ~4 million floats).
    chunk = max(1, min(len(reactions), 4_000_000 // max(1, len(cands))))
    for c0 in range(0, len(reactions), chunk):
        rs = reactions[c0:c0 + chunk]
        S = np.empty((len(rs), len(cands)))
        for start in range(0, len(cands), batch_size):
            batch = cands[start:start + batch_size]
            for i, r in enumerate(rs):
                S[i, start:start + len(batch)] = _scores(score_fn, r, batch, batch_size)
        for i, r in enumerate(rs):
            s = S[i]
            order = _order(s, gene_rank)
            if top_n is not None:
                order = order[:top_n]
            frames.append(pd.DataFrame({"reaction": r, "rank": np.arange(1, len(order) + 1),
                                        "gene": [cands[j] for j in order], "score": s[order]}))
    if not frames:
        return pd.DataFrame({"reaction": pd.Series(dtype=object), "rank": pd.Series(dtype=int),
                             "gene": pd.Series(dtype=object), "score": pd.Series(dtype=float)})
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
    gene_rank = np.argsort(np.argsort(np.asarray(cands, dtype=str), kind="stable"), kind="stable")
    s = _scores(score_fn, reaction, cands, batch_size)
    pos = np.empty(len(cands), dtype=np.intp)
    pos[_order(s, gene_rank)] = np.arange(1, len(cands) + 1)
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
    :meth:`featurize.pairs.PairFeaturizer.leave_one_out`); its support is the
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
