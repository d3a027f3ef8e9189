"""The non-learned baselines of the ranking: co-expression (:data:`COEXPR`)
and adjacency (:data:`ADJACENCY`), scored from a featurizer's candidate
matrix like a fitted model, and :data:`BASELINES`, the one list of their
names (the workflow's rules read it too).
"""

from __future__ import annotations

import numpy as np

__all__ = ["COEXPR", "ADJACENCY", "BASELINES", "coexpression_scores", "adjacency_scores",
           "baseline_scores"]

#: Name of the non-learned co-expression baseline in rankings and tables.
COEXPR = "coexpr"
#: Name of the non-learned adjacency baseline (candidates that already
#: catalyse related reactions first).
ADJACENCY = "adjacency"
#: The non-learned baselines, scored in every ranking validation.
BASELINES = (COEXPR, ADJACENCY)


def coexpression_scores(featurizer, X: np.ndarray) -> np.ndarray:
    """The non-learned co-expression baseline (Kharchenko, Vitkup & Church 2004).

    A candidate's score is the largest, over the motif types, of the mean
    Pearson r between its expression profile and those of the reaction's
    neighbours of that type (:meth:`geomargin.featurize.metabolic.pairs.PairFeaturizer.block_sums`
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


def adjacency_scores(featurizer, X: np.ndarray) -> np.ndarray:
    """The non-learned adjacency baseline: how many related reactions the
    candidate already catalyses, summed over the motif types (a reaction
    related by two motif types counts twice), read from the ``net`` blocks
    of :class:`geomargin.featurize.metabolic.pairs.PairFeaturizer` (``adjacency=True``). NaN
    (ranked last) when no motif type has a related reaction with a gene.

    Examples
    --------
    >>> class _F:
    ...     blocks_ = [("fork", "net", slice(0, 2)), ("funnel", "net", slice(2, 4))]
    ...     def unscaled(self, X, columns): return X[:, columns]
    >>> X = np.array([[np.log(3.0), 0.5, np.log(2.0), 1.0], [np.nan, np.nan, np.nan, np.nan]])
    >>> adjacency_scores(_F(), X).round(6).tolist()    # 2 + 1 related reactions
    [3.0, nan]
    """
    cols = [sl.start for _, kind, sl in featurizer.blocks_ if kind == "net"]
    if not cols:
        raise ValueError("the adjacency baseline needs the featurizer's net blocks "
                         "(PairFeaturizer(adjacency=True), config adjacency_features: true)")
    L = featurizer.unscaled(X, cols)
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
