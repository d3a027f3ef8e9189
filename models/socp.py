"""Separable geometric-margin classifier by bisection over SOCPs.

Chechik et al. (JMLR 9, 2008, eq. 4): for linearly separable data with
structurally absent features find::

    max_{w, b} min_i  y_i (w.x_i + b) / ||w^(i)||

with ``w^(i)`` the restriction of ``w`` to the features valid in ``x_i``.
For fixed ``gamma`` the feasibility problem
``y_i (w.x_i + b) >= gamma ||w^(i)||`` is a convex second-order cone
program, so ``gamma`` is found by bisection, one SOCP per step (cvxpy).
"""

from __future__ import annotations


import cvxpy as cp
import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from geomargin.common.checks import int_at_least, open_unit_interval, validate_params

from ._validation import (full_width, kept_columns, AbsentFeatureClassifierMixin, cvxpy_solver, validate_binary_y,
                          validate_feature_groups, validate_X_fit, validate_X_predict)
from ._pattern_norms import S_MIN

__all__ = ["GeometricMarginSOCP", "NotSeparableError"]

_FEASIBLE = (cp.OPTIMAL, cp.OPTIMAL_INACCURATE)


class NotSeparableError(ValueError):
    """The training data have no positive geometric margin."""


class GeometricMarginSOCP(AbsentFeatureClassifierMixin, BaseEstimator):
    """Maximum geometric margin for separable data with absent features.

    Bisection over the margin ``gamma``; each step solves the convex
    feasibility SOCP::

        find w, b, t_P   s.t.  y_i (w.x_i + b) >= gamma * t_{P(i)},
                              ||w restricted to P|| <= t_P  (one cone per
                              distinct missingness pattern P),
                              sum_i y_i (w.x_i + b) = 1.

    Each step is solved in phase-I form, ``max u`` subject to
    ``y_i (w.x_i + b) >= gamma t_{P(i)} + u`` (always feasible, better
    conditioned near the optimal ``gamma`` than a pure feasibility problem);
    ``gamma`` is accepted when ``u >= 0`` and the returned ``(w, b)``
    satisfies the margin constraints when re-checked with numpy.

    **Normalisation.** The constraints are positively homogeneous in
    ``(w, b)``, so the trivial ``w = 0, b = 0`` must be excluded. Instead of
    the JMLR paper's ``|w_k| >= 1`` for each ``k`` in turn (``2d`` SOCPs per
    step) we fix the linear functional ``sum_i y_i (w.x_i + b) = 1``: for
    ``gamma > 0`` every feasible non-degenerate ``(w, b)`` has
    ``sum_i y_i (w.x_i + b) >= gamma sum_i ||w^(i)|| > 0`` and can be rescaled
    to satisfy it, while ``(0, 0)`` cannot; a ``w`` vanishing on every
    training instance's valid features forces ``y_i b >= 0`` for both
    classes, i.e. ``b = 0``, and is excluded too. So one SOCP per step is
    exact. ``gamma`` lies in ``(0, max_i ||x_i||]`` (a positive and a
    negative instance bound it by ``max(||x_i||, ||x_j||)``).

    Parameters
    ----------
    groups : array-like of int of shape (n_features,), default=None
        Accepted and validated for a uniform interface; cones are built per
        distinct feature-level missingness pattern, so it is not needed.
    tol : float, default=1e-4
        Bisection stops when ``hi - lo <= tol * gamma_max``.
    solver : str, default="CLARABEL"
        A cvxpy SOCP solver ("CLARABEL", "ECOS", "SCS").
    max_features : int, default=200
        Largest number of features accepted (the SOCP has one cone of
        dimension up to ``n_features + 1`` per pattern; beyond a few hundred
        features use :class:`~geomargin.models.geometric.GeometricMarginSVC`).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    n_features_in_ : int
    coef_ : ndarray of shape (1, n_features)
        ``w`` (scaled so that ``||w|| = 1``); one entry per input column, 0 for a column absent in every training row.
    intercept_ : ndarray of shape (1,)
        ``b`` (same scaling).
    margin_ : float
        Geometric margin achieved on the training set,
        ``min_i y_i (w.x_i + b) / ||w^(i)||`` over instances with
        ``||w^(i)|| > 0``.
    n_bisections_ : int
        Number of SOCPs solved.

    Notes
    -----
    ``decision_function(x) = (w.x + b) / s(x)`` with
    ``s(x) = max(||w^(x)|| / ||w||, S_MIN)``: the instance's geometric margin
    times ``||w||`` (here 1). A row with no valid feature scores
    ``intercept_``. Training rows with no valid feature are rejected (they
    have no geometric margin). Non-separable data raise
    :class:`NotSeparableError` (a ``ValueError``) pointing to
    :class:`~geomargin.models.geometric.GeometricMarginSVC`; a solver failure raises
    ``RuntimeError``.

    Examples
    --------
    >>> import numpy as np
    >>> from geomargin.models.socp import GeometricMarginSOCP
    >>> X = np.array([[1.0, 1.0], [1.6, np.nan], [-1.0, -1.0], [-1.6, np.nan]])
    >>> clf = GeometricMarginSOCP().fit(X, [1, 1, 0, 0])
    >>> round(clf.margin_, 3)  # direction (1, 1)/sqrt(2): margin sqrt(2)
    1.414
    >>> clf.predict([[np.nan, 2.0]])
    array([1])
    """

    _parameter_constraints: dict = {"tol": open_unit_interval(), "solver": cvxpy_solver(),
                                    "max_features": int_at_least(1)}

    def __init__(self, groups=None, *, tol=1e-4, solver="CLARABEL", max_features=200):
        self.groups = groups
        self.tol = tol
        self.solver = solver
        self.max_features = max_features

    def fit(self, X, y):
        """Maximise the minimum geometric margin by bisection.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            NaN marks an absent feature; every row needs a valid feature.
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        validate_params(self)
        tol, max_features = float(self.tol), int(self.max_features)
        X = validate_X_fit(self, X, allow_all_absent_rows=False)
        self.classes_, ys = validate_binary_y(self, y, X)
        n, d = X.shape
        validate_feature_groups(self, self.groups, d)
        if d > max_features:
            raise ValueError(
                f"GeometricMarginSOCP got {d} features but max_features={max_features}: the "
                "SOCP grows as n_patterns x n_features. Use GeometricMarginSVC for large d, "
                "or raise max_features if you accept the cost."
            )
        M = ~np.isnan(X)
        X0 = np.where(M, X, 0.0)
        patterns, inv = np.unique(M, axis=0, return_inverse=True)
        inv = inv.reshape(-1)

        w = cp.Variable(d)
        b = cp.Variable()
        t = cp.Variable(patterns.shape[0])
        g = cp.Parameter(nonneg=True)
        margins = cp.multiply(ys, X0 @ w + b)
        W = cp.multiply(patterns.T.astype(float), cp.reshape(w, (d, 1), order="F"))  # (d, n_pat)
        u = cp.Variable()  # phase-I slack: feasible for gamma iff max u >= 0
        cons = [cp.SOC(t, W, axis=0), margins >= g * t[inv] + u, cp.sum(margins) == 1]
        prob = cp.Problem(cp.Maximize(u), cons)
        scale = float(np.abs(X0).max())

        def feasible(gamma):
            g.value = gamma
            try:
                prob.solve(solver=self.solver.upper())
            except cp.SolverError as exc:
                raise RuntimeError(
                    f"GeometricMarginSOCP: solver {self.solver} failed at gamma={gamma:.6g}: {exc}. "
                    "Try solver='ECOS' or 'SCS'.") from exc
            self.n_bisections_ += 1
            if prob.status in _FEASIBLE:
                wv, bv = np.asarray(w.value, dtype=float).copy(), float(b.value)
                # verify independently of the solver's report
                slack = ys * (X0 @ wv + bv) - gamma * np.sqrt(M @ (wv * wv))
                feas = float(u.value) >= 0 and float(slack.min()) >= -1e-9 * max(
                    1.0, scale * float(np.abs(wv).max()))
                return feas, ((wv, bv) if feas else None)
            if prob.status in (cp.INFEASIBLE, cp.INFEASIBLE_INACCURATE):
                # The phase-I problem is infeasible only when the normalising
                # functional sum_i y_i (w.x_i + b) is identically 0, and then no
                # (w, b) has all margins > 0: not separable.
                return False, None
            raise RuntimeError(
                f"GeometricMarginSOCP: solver {self.solver} returned status {prob.status!r} at "
                f"gamma={gamma:.6g}; the result cannot be trusted. Try another solver or "
                "rescale X.")

        self.n_bisections_ = 0
        gamma_max = float(np.sqrt((X0 * X0).sum(axis=1)).max())
        lo = tol * gamma_max
        ok, best = feasible(lo)
        if not ok:
            raise NotSeparableError(
                "GeometricMarginSOCP: the training data are not separable with a positive "
                f"geometric margin (infeasible already at gamma={lo:.3g}). Use "
                "GeometricMarginSVC (soft margin) for non-separable data.")
        hi = gamma_max * (1 + tol)
        while hi - lo > tol * gamma_max:
            mid = 0.5 * (lo + hi)
            ok, sol = feasible(mid)
            if ok:
                lo, best = mid, sol
            else:
                hi = mid
        wv, bv = best
        norm = float(np.linalg.norm(wv))
        if not np.isfinite(norm) or norm == 0.0:
            raise RuntimeError("GeometricMarginSOCP: the solver returned w = 0; cannot normalise.")
        wv, bv = wv / norm, bv / norm
        sub = np.sqrt(M @ (wv * wv))
        pos = sub > 0
        if not pos.any():
            raise RuntimeError("GeometricMarginSOCP: w vanishes on every training instance.")
        self.coef_ = full_width(self, wv[None, :])
        self.intercept_ = np.array([bv])
        self.margin_ = float(np.min(ys[pos] * (X0[pos] @ wv + bv) / sub[pos]))
        return self

    def decision_function(self, X):
        """``(w.x + b) / s(x)``: the instance's geometric margin (``||w|| = 1``);
        ``intercept_`` for a row with no valid feature.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        X = validate_X_predict(self, X)
        M = ~np.isnan(X)
        X0 = np.where(M, X, 0.0)
        w, b = kept_columns(self, self.coef_)[0], float(self.intercept_[0])
        s = np.maximum(np.sqrt(M @ (w * w)), S_MIN)  # ||w|| = 1
        f = (X0 @ w + b) / s
        f[~M.any(axis=1)] = b
        return f
