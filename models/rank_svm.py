"""A pairwise ranking objective with the geometric margin.

:class:`GeometricMarginRankSVC` learns a linear score ``f(x) = w.x`` (absent
features contribute nothing) from *pairs* within a query: for every positive
``i`` and negative ``j`` of the same query (in the metabolic task: the same
reaction, its true genes against its impostors) it asks that ``i`` outscore
``j`` by a margin, the hinge loss of RankSVM (Herbrich, Graepel & Obermayer
2000; Joachims 2002) with the margin of Chechik et al. (JMLR 2008):

.. math::

    \\min_w \\frac12 \\|w\\|^2 + C \\sum_{(i, j)} \\xi_{ij}
    \\quad \\text{s.t.} \\quad \\frac{w \\cdot (x_i - x_j)}{s_{ij}} \\ge 1 - \\xi_{ij},
    \\quad \\xi_{ij} \\ge 0,

where ``x_i - x_j`` is taken with absent features as 0 (``w.x_i - w.x_j``
compares the two scores, each over its own valid features) and
``s_ij = ||w^(ij)|| / ||w||`` with ``w^(ij)`` the restriction of ``w`` to the
features valid in ``i`` *or* ``j``: the subspace where the pair's difference
lives. As in the paper's non-separable algorithm the scales are fixed, the
convex problem solved, the scales recomputed from the new ``w``, ``n_iter``
times, starting from ``s = 1`` (``n_iter=1``: plain RankSVM on the zero-filled
differences). With ``s`` fixed the problem is a linear SVM without bias on the
rescaled differences ``(x_i - x_j) / s_ij``, which liblinear's dual coordinate
descent solves exactly (``LinearSVC(fit_intercept=False, loss="hinge")``: no
bias, so nothing is regularised that the equations do not regularise). Half
of the pairs are presented with their sign flipped and label -1; the hinge
term of a flipped pair is unchanged, so this is the same problem.

A ranking model scores candidates against each other and has no threshold
of its own. ``intercept_`` is fitted afterwards, with ``w`` fixed, as the
``b`` that minimises the hinge loss ``sum_i max(0, 1 - y_i (f(x_i) + b))``
over the training instances (a one-dimensional convex problem solved exactly
at its breakpoints), so that ``predict`` is a usable classifier and the
accuracy table can list the method; rankings never use ``b``.

Example
-------
>>> import numpy as np
>>> X = np.array([[2.0, 0.0], [1.0, 1.0], [3.0, np.nan], [1.0, np.nan]])
>>> y = np.array([1, 0, 1, 0])
>>> r = GeometricMarginRankSVC(C=10.0).fit(X, y, query=[0, 0, 1, 1])
>>> r.coef_.round(3).tolist()     # hard margin: w0 - w1 >= 1 and 2 w0 >= 1
[[0.5, -0.5]]
>>> (r.decision_function(X)[[0, 2]] > r.decision_function(X)[[1, 3]]).tolist()
[True, True]
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC
from sklearn.utils.validation import check_is_fitted

from geomargin.common.checks import int_at_least, none_or_positive_int, positive_float, validate_params

from ._validation import (full_width, kept_columns, AbsentFeatureClassifierMixin, validate_binary_y, validate_X_fit,
                          validate_X_predict)
from ._pattern_norms import _scales

__all__ = ["GeometricMarginRankSVC", "ranking_pairs", "best_hinge_intercept"]


def ranking_pairs(y_signed: np.ndarray, query: np.ndarray | None,
                  max_pairs_per_query: int | None = None,
                  random_state: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Indices ``(i, j)`` of every (positive, negative) pair within a query.

    With ``max_pairs_per_query`` a query with more pairs keeps that many,
    drawn without replacement with ``numpy.random.default_rng(random_state)``
    (queries in sorted order).

    Examples
    --------
    >>> ranking_pairs(np.array([1., -1., -1., 1., -1.]), np.array([0, 0, 0, 1, 1]))
    (array([0, 0, 3]), array([1, 2, 4]))
    """
    n = y_signed.shape[0]
    q = np.zeros(n, dtype=np.intp) if query is None else np.unique(query, return_inverse=True)[1]
    rng = np.random.default_rng(random_state)
    pi, pj = [], []
    order = np.argsort(q, kind="stable")
    bounds = np.flatnonzero(np.diff(q[order])) + 1
    for idx in np.split(order, bounds):
        pos, neg = idx[y_signed[idx] > 0], idx[y_signed[idx] < 0]
        if not pos.size or not neg.size:
            continue
        a, b = np.repeat(pos, neg.size), np.tile(neg, pos.size)
        if max_pairs_per_query is not None and a.size > max_pairs_per_query:
            keep = np.sort(rng.choice(a.size, size=max_pairs_per_query, replace=False))
            a, b = a[keep], b[keep]
        pi.append(a)
        pj.append(b)
    if not pi:
        return np.empty(0, np.intp), np.empty(0, np.intp)
    return np.concatenate(pi), np.concatenate(pj)


def best_hinge_intercept(f: np.ndarray, y_signed: np.ndarray) -> float:
    """``argmin_b sum_i max(0, 1 - y_i (f_i + b))``, exactly.

    The objective is convex and piecewise linear in ``b`` with breakpoints
    ``b = y_i - f_i``; its minimum is at one of them (the smallest minimiser
    when a whole interval is optimal).

    Examples
    --------
    >>> best_hinge_intercept(np.array([3.0, 2.0, 0.0]), np.array([1.0, -1.0, -1.0]))
    -3.0
    """
    f = np.asarray(f, dtype=np.float64)
    y = np.asarray(y_signed, dtype=np.float64)
    cand = np.unique(y - f)
    # loss(b) = sum_{y=+1} max(0, 1 - f - b) + sum_{y=-1} max(0, 1 + f + b):
    # evaluated at every breakpoint with sorted cumulative sums (O(n log n))
    up = np.sort(1.0 - f[y > 0])    # positive terms are active where b < up
    dn = np.sort(-1.0 - f[y < 0])   # negative terms are active where b > dn
    cu = np.r_[0.0, np.cumsum(up)]
    cd = np.r_[0.0, np.cumsum(dn)]
    k_up = np.searchsorted(up, cand, side="right")      # up[:k] <= b: inactive
    loss_pos = (cu[-1] - cu[k_up]) - cand * (up.size - k_up)
    k_dn = np.searchsorted(dn, cand, side="left")        # dn[:k] < b: active
    loss_neg = cand * k_dn - cd[k_dn]
    return float(cand[np.argmin(loss_pos + loss_neg)])


class GeometricMarginRankSVC(AbsentFeatureClassifierMixin, BaseEstimator):
    """Pairwise (RankSVM) objective with the geometric margin; linear scores.

    Parameters
    ----------
    C : float, default=1.0
        Weight of the pairs' hinge losses (summed over pairs).
    n_iter : int, default=3
        Alternations of (solve with fixed ``s``, recompute ``s``); 1 gives
        the plain RankSVM on zero-filled differences.
    max_pairs_per_query : int or None, default=None
        Keep at most this many pairs per query (a random subset). None: all.
    tol : float, default=1e-4
        liblinear's stopping tolerance.
    max_iter : int, default=100000
        liblinear's iteration cap (a ``ConvergenceWarning`` when reached).
    random_state : int or None, default=None
        Seeds the pair subsampling and liblinear's coordinate order.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    n_features_in_ : int
    coef_ : ndarray of shape (1, n_features)
        ``w``; the ranking score is ``coef_[0] . x`` with absent features 0;
        one entry per input column, 0 for a column absent in every training row.
    intercept_ : ndarray of shape (1,)
        The hinge-optimal threshold for ``predict`` (module docstring).
    pair_scales_ : ndarray
        ``s_ij`` of the training pairs used in the last solve.
    n_pairs_ : int
    n_iter_ : int
        Alternations run.

    Notes
    -----
    :meth:`decision_function` is ``w.x / s(x) + b`` with
    ``s(x) = ||w^(x)|| / ||w||`` (the instance's geometric margin, as in
    :class:`geomargin.models.geometric.GeometricMarginSVC`); :meth:`scales` gives
    ``s(x)``, so :func:`geomargin.rank.scoring.ranking_decision` can rank by either
    rule. A row with no valid feature scores ``intercept_``.
    """

    _parameter_constraints: dict = {
        "C": positive_float(), "n_iter": int_at_least(1),
        "max_pairs_per_query": none_or_positive_int(), "tol": positive_float(),
        "max_iter": int_at_least(1),
    }

    def __init__(self, C=1.0, *, n_iter=3, max_pairs_per_query=None, tol=1e-4,
                 max_iter=100000, random_state=None):
        self.C = C
        self.n_iter = n_iter
        self.max_pairs_per_query = max_pairs_per_query
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state

    def fit(self, X, y, query=None):
        """Fit on the (positive, negative) pairs of every query.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            NaN marks an absent feature.
        y : array-like of shape (n_samples,)
            Two classes; ``classes_[1]`` is the relevant one.
        query : array-like of shape (n_samples,), default=None
            Query id per row (pairs are formed within a query). None: one
            query, i.e. every positive against every negative.

        Returns
        -------
        self
        """
        validate_params(self)
        X = validate_X_fit(self, X)
        self.classes_, ys = validate_binary_y(self, y, X)
        if query is not None:
            query = np.asarray(query)
            if query.shape != (X.shape[0],):
                raise ValueError(f"The 'query' argument of {type(self).__name__}.fit must have one "
                                 f"id per row of X, shape ({X.shape[0]},). Got shape {query.shape} "
                                 "instead.")
        pi, pj = ranking_pairs(ys, query, self.max_pairs_per_query, self.random_state)
        if pi.size == 0:
            raise ValueError(f"{type(self).__name__}.fit: no query holds both a positive and a "
                             "negative row, so there is no pair to rank; give query ids that group "
                             "each positive with its negatives")
        M = ~np.isnan(X)
        X0 = np.where(M, X, 0.0)
        D = X0[pi] - X0[pj]
        Mp = M[pi] | M[pj]
        sign = np.where(np.arange(pi.size) % 2 == 0, 1.0, -1.0)
        s = np.ones(pi.size)
        w = np.zeros(X.shape[1])
        for it in range(int(self.n_iter)):
            svm = LinearSVC(C=float(self.C), loss="hinge", fit_intercept=False, dual=True,
                            tol=float(self.tol), max_iter=int(self.max_iter),
                            random_state=self.random_state)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ConvergenceWarning)
                svm.fit(D / s[:, None] * sign[:, None], sign)
            if any(issubclass(c.category, ConvergenceWarning) for c in caught):
                warnings.warn(f"{type(self).__name__}: liblinear did not converge in "
                              f"{self.max_iter} iterations (iteration {it + 1}); raise max_iter or "
                              "tol", ConvergenceWarning, stacklevel=2)
            w = svm.coef_[0].copy()
            self.pair_scales_ = s
            self.n_iter_ = it + 1
            if it + 1 < int(self.n_iter):
                s = self._scale_of(Mp, w)
        self.coef_ = full_width(self, w[None, :])
        self.n_pairs_ = int(pi.size)
        self.intercept_ = np.zeros(1)
        f = self._decision(X)
        self.intercept_ = np.array([best_hinge_intercept(f, ys)])
        return self

    @staticmethod
    def _scale_of(M: np.ndarray, w: np.ndarray) -> np.ndarray:
        """``s = ||w restricted to each row of M|| / ||w||``: the geometric
        margin's own scale function (:func:`geomargin.models.geometric._scales`) on the
        linear squared norms ``M @ w^2``."""
        return _scales(None, M, float(w @ w), num=M.astype(np.float64) @ (w * w))[0]

    def scales(self, X):
        """``s(x) = ||w^(x)|| / ||w||`` per row (1 for rows with no valid
        feature; floored at :data:`geomargin.models.geometric.S_MIN`)."""
        check_is_fitted(self)
        X = validate_X_predict(self, X)
        return self._scale_of(~np.isnan(X), kept_columns(self, self.coef_)[0])

    def decision_function(self, X):
        """``w.x / s(x) + b`` (absent features contribute 0); ``intercept_``
        for a row with no valid feature.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        return self._decision(validate_X_predict(self, X))

    def _decision(self, X: np.ndarray) -> np.ndarray:
        """:meth:`decision_function` of validated rows (the training columns)."""
        M = ~np.isnan(X)
        b = float(self.intercept_[0])
        w = kept_columns(self, self.coef_)[0]
        f = np.where(M, X, 0.0) @ w / self._scale_of(M, w) + b
        f[~M.any(axis=1)] = b
        return f
