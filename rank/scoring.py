"""Score candidate genes for reactions and rank them.

Scores come from a caller-supplied ``score_fn(reaction, genes) -> scores``
(typically features from :class:`geomargin.featurize.metabolic.pairs.PairFeaturizer` then a
fitted model's ``decision_function``, :func:`pair_score_fn`). Candidates are
scored in batches so memory is bounded by ``batch_size`` rows whatever the
numbers of reactions and genes. Ties are broken by gene id (ascending), NaN
scores rank last: rankings are deterministic. A candidate without evidence
(every feature absent) gets NaN (:func:`no_evidence_last`). The margin rules
of a geometric-margin model (:func:`ranking_decision`), the per-gene hub
correction (:func:`correct_scores`) and the names of rankings in the
validation tables (:func:`ranking_name`) live here too.

Example
-------
>>> import numpy as np
>>> score = lambda r, genes: np.array([len(g) for g in genes], float)
>>> rank_candidates(score, ["R1"], ["A", "CCC", "BB", "DD"], top_n=3, batch_size=2)
  reaction  rank gene  score  model_score
0       R1     1  CCC    3.0          3.0
1       R1     2   BB    2.0          2.0
2       R1     3   DD    2.0          2.0
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from geomargin.common.checks import check_param, check_positive_int, none_or_positive_int, one_of
from geomargin.common.parallel import contiguous_parts, fork_map

__all__ = ["score_matrix", "rank_candidates", "true_gene_ranks", "ranks_in_order", "candidate_order", "gene_id_ranks", "row_independent",
           "no_evidence_last", "pair_score_fn", "MARGIN_RULES", "ranking_decision", "ranking_decisions",
           "GENE_CORRECTIONS", "correct_scores", "ranking_name", "split_ranking_name"]

#: Ranking scores of a geometric-margin model (see :func:`ranking_decision`).
MARGIN_RULES = ("unscaled", "scaled")

#: Per-gene corrections over the reactions ranked together (see :func:`correct_scores`).
GENE_CORRECTIONS = ("none", "centred", "z")


def _scores(score_fn, reaction, candidates, batch_size, n_scores=None) -> np.ndarray:
    shape = (len(candidates),) if n_scores is None else (len(candidates), n_scores)
    out = np.empty(shape)
    for start in range(0, len(candidates), batch_size):
        batch = candidates[start:start + batch_size]
        s = np.asarray(score_fn(reaction, batch), dtype=np.float64)
        if n_scores is None:
            s = s.reshape(-1)
            if s.shape[0] != len(batch):
                raise ValueError(f"score_fn returned {s.shape[0]} scores for {len(batch)} genes "
                                 f"(reaction {reaction!r}); expected one score per gene")
        elif s.shape != (len(batch), n_scores):
            raise ValueError(f"score_fn returned scores of shape {s.shape} for {len(batch)} genes "
                             f"(reaction {reaction!r}); expected {(len(batch), n_scores)}")
        out[start:start + len(batch)] = s
    return out


def score_matrix(score_fn: Callable[[str, list[str]], np.ndarray], reactions: Sequence[str],
                 candidates: Sequence[str], batch_size: int = 2000,
                 n_scores: int | None = None, n_jobs: int = 1) -> np.ndarray:
    """``(reactions x candidates)`` scores of ``score_fn`` (as for
    :func:`rank_candidates`), reaction by reaction, each on the same batches
    of ``batch_size`` genes: a featurizer computes a reaction's own
    statistics once for all its batches and keeps the gathering of recent
    batches for the next reaction.

    With ``n_scores`` = k, ``score_fn`` returns k scores per gene (an array
    of shape ``(len(genes), k)``, e.g. several models scoring one candidate
    matrix) and the result has shape ``(reactions, candidates, k)``.

    With ``n_jobs`` > 1, forked processes score contiguous parts of
    ``reactions`` (:func:`geomargin.common.parallel.fork_map`); each reaction is scored
    on the same batches of genes, so the matrix is the same.

    >>> score_matrix(lambda r, genes: [len(r) + len(g) for g in genes], ["R1", "R22"],
    ...              ["a", "bb", "ccc"], batch_size=2).tolist()
    [[3.0, 4.0, 5.0], [4.0, 5.0, 6.0]]
    >>> score_matrix(lambda r, genes: [[len(g), -len(g)] for g in genes], ["R1"], ["a", "bb"],
    ...              n_scores=2)[0].tolist()
    [[1.0, -1.0], [2.0, -2.0]]
    """
    batch_size = check_positive_int("score_matrix", "batch_size", batch_size)
    check_param("score_matrix", "n_scores", n_scores, *none_or_positive_int())
    reactions, candidates = list(reactions), list(candidates)
    if n_jobs > 1:
        return _score_matrix_jobs(score_fn, reactions, candidates, batch_size, n_jobs, n_scores)
    S = np.empty((len(reactions), len(candidates)) + (() if n_scores is None else (n_scores,)))
    for i, r in enumerate(reactions):
        S[i] = _scores(score_fn, r, candidates, batch_size, n_scores)
    return S


def _score_matrix_jobs(score_fn, reactions: list, candidates: list, batch_size: int, n_jobs: int,
                       n_scores: int | None = None) -> np.ndarray:
    """:func:`score_matrix` by ``n_jobs`` forked processes, each scoring
    contiguous parts of ``reactions`` (at least a few reactions per part, so
    that a featurizer still reuses its per-batch gathering across them)."""
    parts = contiguous_parts(reactions, max(1, int(n_jobs)) * 4)
    if n_jobs <= 1 or len(parts) < 2:
        return score_matrix(score_fn, reactions, candidates, batch_size, n_scores)
    return np.concatenate(fork_map(lambda part: score_matrix(score_fn, part, candidates, batch_size, n_scores),
                                   parts, n_jobs=n_jobs, chunks_per_job=1))


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
                    gene_correction: str = "none", standardised: bool = False,
                    n_jobs: int = 1) -> pd.DataFrame:
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
    standardised : bool, default False
        Add the columns ``score_z``, ``gap_next_z`` and ``gap_top_z`` of
        :func:`geomargin.rank.calibration.calibration_rows` (the score standardised over
        the reaction's scored candidates; NaN for a candidate without one).
    n_jobs : int, default 1
        Processes that score the reactions (:func:`geomargin.common.parallel.fork_map`,
        contiguous parts of the reactions); the scores do not depend on it.

    Returns
    -------
    DataFrame
        Columns ``reaction, rank, gene, score, model_score``; ``score`` is
        the ranking score (after the gene correction), ``model_score`` the
        model's score (equal to ``score`` without a correction); ``rank``
        1-based; sorted by reaction (input order) then rank. Ties: gene id
        ascending.
    """
    from geomargin.rank.calibration import calibration_rows
    from geomargin.rank.evidence_flags import CANDIDATE_FLAGS

    batch_size = check_positive_int("rank_candidates", "batch_size", batch_size)
    check_param("rank_candidates", "top_n", top_n, *none_or_positive_int())
    check_param("rank_candidates", "gene_correction", gene_correction, *one_of(*GENE_CORRECTIONS))
    cands = list(dict.fromkeys(candidates))
    gene_rank = gene_id_ranks(cands)
    reactions = list(reactions)
    frames = []
    # Scores are held for a chunk of reactions at a time (at most ~4 million
    # floats; all reactions when a gene correction needs them together).
    chunk = max(1, min(len(reactions), 4_000_000 // max(1, len(cands))))
    if gene_correction != "none":
        chunk = max(1, len(reactions))
    for c0 in range(0, len(reactions), chunk):
        rs = reactions[c0:c0 + chunk]
        S = _score_matrix_jobs(score_fn, rs, cands, batch_size, n_jobs)
        C = correct_scores(S, gene_correction)
        for i, r in enumerate(rs):
            s = C[i]
            full = candidate_order(s, gene_rank)
            order = full[:top_n] if top_n is not None else full
            frame = pd.DataFrame({"reaction": r, "rank": np.arange(1, len(order) + 1),
                                  "gene": [cands[j] for j in order], "score": s[order],
                                  "model_score": S[i, order]})
            if standardised:
                c = calibration_rows(s, full, max(1, len(order)), np.zeros((len(s), len(CANDIDATE_FLAGS)), dtype=bool))
                for col in ("score_z", "gap_next_z", "gap_top_z"):
                    # the scored candidates come first in the order, so row k is c's row k
                    frame[col] = np.r_[c[col], np.full(len(order) - len(c[col]), np.nan)]
            frames.append(frame)
    if not frames:
        empty = pd.DataFrame({"reaction": pd.Series(dtype=object), "rank": pd.Series(dtype=int),
                              "gene": pd.Series(dtype=object), "score": pd.Series(dtype=float),
                              "model_score": pd.Series(dtype=float)})
        if standardised:
            empty = empty.assign(score_z=pd.Series(dtype=float), gap_next_z=pd.Series(dtype=float),
                                 gap_top_z=pd.Series(dtype=float))
        return empty
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
    batch_size = check_positive_int("true_gene_ranks", "batch_size", batch_size)
    cands = list(dict.fromkeys(candidates))
    s = _scores(score_fn, reaction, cands, batch_size)
    return ranks_in_order(candidate_order(s, gene_id_ranks(cands)), {g: i for i, g in enumerate(cands)},
                          true_genes, filtered)


def ranks_in_order(order: np.ndarray, where: Mapping[str, int], true_genes: Sequence[str],
                   filtered: bool = True) -> dict[str, int]:
    """:func:`true_gene_ranks` from a ranking already made: ``order`` the
    candidates' indices best first (:func:`candidate_order`) and ``where``
    each distinct candidate's index. Scoring many rankings of the same
    candidates, build ``where`` once.

    Examples
    --------
    >>> ranks_in_order(np.array([2, 0, 1]), {"A": 0, "B": 1, "C": 2}, ["B", "C", "X"])
    {'B': 2, 'C': 1}
    """
    pos = np.empty(len(order), dtype=np.intp)
    pos[order] = np.arange(1, len(order) + 1)
    present = [g for g in dict.fromkeys(true_genes) if g in where]
    true_pos = np.array([pos[where[g]] for g in present], dtype=np.intp)
    out = {}
    for g, p in zip(present, true_pos):
        out[g] = int(p - np.sum(true_pos < p)) if filtered else int(p)
    return out


def no_evidence_last(scores, X: np.ndarray) -> np.ndarray:
    """``scores`` of the rows of ``X`` (a copy, float64), NaN where the row's
    features are *all* absent, so that the candidate ranks last.

    Such a candidate has no data of any source the reaction's neighbours
    have: there is no evidence to rank it on, and an estimator's constant
    score for an empty instance must not place it above genes with evidence.

    Examples
    --------
    >>> X = np.array([[1.0, np.nan], [np.nan, np.nan]])
    >>> no_evidence_last([0.3, 0.9], X).tolist()
    [0.3, nan]
    """
    s = np.array(scores, dtype=np.float64).reshape(-1)
    s[np.isnan(X).all(axis=1)] = np.nan
    return s


def pair_score_fn(featurizer, decision_function: Callable[[np.ndarray], np.ndarray]
                  ) -> Callable[[str, list[str]], np.ndarray]:
    """``score_fn(reaction, genes)`` for :func:`rank_candidates`: features from
    ``featurizer.candidate_matrix`` scored by ``decision_function``, a
    candidate without evidence last (:func:`no_evidence_last`).
    """
    def score(reaction: str, genes: list[str]) -> np.ndarray:
        X = featurizer.candidate_matrix(reaction, genes)
        return no_evidence_last(decision_function(X), X)
    return score


def ranking_decision(model, margin_rule: str = "scaled") -> Callable[[np.ndarray], np.ndarray]:
    """The function that scores candidates for ranking with a fitted ``model``.

    A geometric-margin model (one with a ``scales(X)`` method, e.g.
    :class:`geomargin.models.geometric.GeometricMarginSVC`) is trained to maximise
    the margin in each instance's own subspace, ``f(x) = <w, phi(x)> / s(x) + b``
    with ``s(x) = ||w^(x)|| / ||w||``; its sign is the classification.
    Ranking compares the candidates of one reaction, whose absence patterns
    differ. ``margin_rule="scaled"`` ranks by ``f(x)``;
    ``"unscaled"`` by ``<w, phi(x)> + b = (f(x) - b) s(x) + b``, the same
    hyperplane without the division by ``s(x)``, which inflates the scores of
    candidates with few valid features. Which one ranks better is measured
    by the ranking validation (docs/metabolic.md). Any other model ranks by its
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
    check_param("ranking_decision", "margin_rule", margin_rule, *one_of(*MARGIN_RULES))
    if margin_rule == "scaled" or not hasattr(model, "scales"):
        return model.decision_function

    def unscaled(X):
        if hasattr(model, "decision_and_scales"):
            return _unscale(model, *model.decision_and_scales(X))
        return _unscale(model, model.decision_function(X), model.scales(X))
    return unscaled


def row_independent(decision_function) -> bool:
    """Whether ``decision_function`` scores every row on its own, bit for bit:
    the bound ``decision_function`` of an estimator whose class sets
    ``row_independent_decision = True`` (a row's score does not depend on
    the other rows scored with it, as for tree ensembles; a BLAS product may
    round a row differently inside a larger batch, so a linear model does not
    qualify). Such a function may score many candidates' rows in one call
    with the same result as one call per candidate.

    Examples
    --------
    >>> class _Trees:
    ...     row_independent_decision = True
    ...     def decision_function(self, X): return X[:, 0]
    >>> row_independent(_Trees().decision_function), row_independent(lambda X: X[:, 0])
    (True, False)
    """
    owner = getattr(decision_function, "__self__", None)
    return (getattr(decision_function, "__name__", "") == "decision_function"
            and bool(getattr(type(owner), "row_independent_decision", False)))


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
    check_param("ranking_decisions", "margin_rules", rules, lambda v: all(r in MARGIN_RULES for r in v),
                "a list of " + ", ".join(repr(r) for r in MARGIN_RULES))
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
    check_param("correct_scores", "gene_correction", gene_correction, *one_of(*GENE_CORRECTIONS))
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
    check_param("ranking_name", "gene_correction", gene_correction, *one_of(*GENE_CORRECTIONS))
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
