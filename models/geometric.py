"""Max-margin classification with structurally absent features.

:class:`GeometricMarginSVC` is the iterative non-separable algorithm of
Chechik, Heitz, Elidan, Abbeel & Koller ("Max-margin classification of data
with absent features", JMLR 9, 2008, Sec. 4; NIPS 2006); the paper's
``avg|w|`` variant is :class:`geomargin.models.average_norm.AverageNormSVC`. Both take ``X`` with NaN where a feature is
structurally absent and solve every QP with libsvm (``sklearn.svm.SVC``, on a
precomputed kernel or, for the linear kernel with few features, on the
rows; see ``representation``); for large linear problems
GeometricMarginSVC can use liblinear instead (``solver="liblinear"``).
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC
from sklearn.utils.validation import check_is_fitted

from geomargin.common.checks import (int_at_least, none_or_positive_float, one_of, positive_float, validate_params)

from ._pattern_norms import S_MIN, PatternNorms, _scales
from ._kernels import (QP_REPRESENTATIONS, _resolve_representation, _use_rows, columns_dot,
                       resolve_gamma)
from ._geometric_grid import grid_decisions
from ._masked_svc import _MaskedSVCBase
from ._validation import (full_width, kept_columns, validate_binary_y,
                          validate_feature_groups, validate_X_fit, validate_X_predict)

__all__ = ["GeometricMarginSVC", "S_MIN"]

#: liblinear settings of ``solver="liblinear"``: the bias is a feature of this
#: constant value (liblinear regularises it, adding ``b^2 / (2 * 3^2)`` to the
#: objective; a larger value weakens that penalty but slows liblinear's
#: convergence: ``benchmarks/geometric_vs_reference.py`` measures the error
#: against the paper's QP), and the dual coordinate descent's iteration cap.
LIBLINEAR_INTERCEPT_SCALING = 3.0
LIBLINEAR_MAX_ITER = 20000


class GeometricMarginSVC(_MaskedSVCBase):
    """Geometric-margin SVM for instances with structurally absent features.

    Each instance lives in the subspace of its valid features; its margin is
    measured there: ``y_i w.x_i / ||w^(i)||`` with ``w^(i)`` the restriction
    of ``w`` to the features valid in ``x_i`` (Chechik et al., JMLR 2008).
    The non-convex problem is solved by the paper's iteration: start with
    ``s_i = 1``; repeat ``n_iter`` times: solve a standard SVM dual (libsvm)
    on the kernel ``K_ij / (s_i s_j)``, then set ``s_i = ||w^(i)|| / ||w||``.
    The QP at fixed ``s`` is::

        min 1/2 ||w||^2 + C sum_i xi_i  s.t.  y_i (<w, phi(x_i)> / s_i + b) >= 1 - xi_i

    whose solution is ``w = sum_j beta_j phi(x_j)`` with
    ``beta_j = alpha_j y_j / s_j`` (libsvm's ``dual_coef_`` divided by ``s_j``).

    **Bias convention.** The paper is not consistent here: its eq. 6 writes
    the constraint as ``y_i (w.x_i + b) / s_i >= 1 - xi_i`` (the bias divided
    by ``s_i``), while its eq. 7 (the dual, a standard SVM on
    ``K_ij / (s_i s_j)``) implies an unscaled ``b``. This estimator uses the
    unscaled bias above (eq. 7), because (i) at fixed ``s`` the QP is then
    exactly a standard soft-margin SVM on the rows ``phi(x_i) / s_i``, with
    the usual unpenalised bias and dual constraint ``sum_i alpha_i y_i = 0``,
    so libsvm solves it as is (with ``b / s_i`` the bias would be a feature of
    value ``1 / s_i`` that differs per row), and (ii) the decision function
    ``<w, phi(x)> / s(x) + b`` compares every instance's margin with one
    threshold, whatever its missingness. The reference of the tests
    (``tests/reference_geometric.py``) follows the same convention. The
    separable :class:`geomargin.models.socp.GeometricMarginSOCP` solves eq. 4, where
    the bias is inside the ratio: ``y_i (w.x_i + b) / ||w^(i)||``.

    Parameters
    ----------
    C : float, default=1.0
        Soft-margin penalty, > 0.
    kernel : {"linear", "poly", "rbf"}, default="linear"
        Masked kernel, over the features valid in both instances:
        ``<x, z>``, ``(gamma <x, z> + coef0) ** degree`` or
        ``exp(-gamma ||x - z||^2)`` (see :func:`geomargin.models._kernels.masked_kernel`).
    degree : int, default=2
        Polynomial degree (``kernel="poly"``).
    gamma : {"scale", "auto"} or float, default="scale"
        ``"scale"``: ``1 / (mean number of valid features per instance *
        variance of the valid values)`` (scikit-learn's value when nothing is
        absent); ``"auto"``: ``1 / mean number of valid features``.
    coef0 : float, default=1.0
        Independent term of the polynomial kernel.
    n_iter : int, default=3
        Largest number of QP solves (``1`` = a plain SVM on the masked
        kernel; the paper found 2-5 best). The loop stops earlier when ``s``
        has converged (``max_i |delta s_i| <= s_tol``).
    groups : array-like of int of shape (n_features,), default=None
        Blocks of features present or absent together. A hint only: blocks
        are refined automatically from the observed missingness patterns.
    tol : float, default=1e-3
        libsvm stopping tolerance.
    cache_size : float or "auto", default="auto"
        libsvm's kernel cache in MB. ``"auto"``: 500 on the rows, 64 on a
        precomputed kernel (already in memory: the cache would only copy
        its rows, in single precision). The solution does not depend on it.
    s_tol : float, default=1e-3
        Convergence tolerance of the scales: once no ``s_i`` (in ``(0, 1]``)
        moves by more than this, a further QP would change the kernel by at
        most ``~2 s_tol`` relatively, so the iteration stops.
    first_tol : float or None, default=None
        Solver tolerance of the first QP (at ``s = 1``) when more QPs follow.
        ``None`` (default) means ``tol``: every QP is solved to ``tol``, the
        paper's iteration. A larger value (e.g. ``10 * tol``) is an opt-in
        speed-up that changes the result: the first scales come from a less
        accurate solution and the later QPs start from them (its error
        against the paper's iteration: ``python
        benchmarks/geometric_vs_reference.py``, which compares the scales
        and the test decision values with ``first_tol = 10 tol`` and at the
        default). The iteration never stops on a QP solved at ``first_tol``:
        the returned solution is always a QP solved to ``tol``.
    solver : {"libsvm", "liblinear"}, default="libsvm"
        QP solver of each iteration. ``"libsvm"`` (``sklearn.svm.SVC`` on the
        precomputed scaled kernel) solves the paper's QP exactly and works
        with every kernel, but needs the n x n kernel and slows down sharply
        on large, nearly separable problems. ``"liblinear"``
        (``sklearn.svm.LinearSVC``, hinge loss, dual coordinate descent on
        the rows ``x_i / s_i``; ``kernel="linear"`` only) needs no kernel
        matrix: its memory grows with n d instead of n^2
        (``benchmarks/bench_geometric.py`` measures both). It does **not**
        solve the paper's QP: liblinear also penalises the bias, as a
        feature of value :data:`LIBLINEAR_INTERCEPT_SCALING` (the penalty is
        ``b^2 / 18``), and a larger value makes liblinear fail to converge.
        The error against the paper's iteration, which can flip the sign of
        test decisions, is measured by ``python
        benchmarks/geometric_vs_reference.py --settings liblinear`` (the
        decision log, ``docs/decisions.md``, says why the solver stays an
        option). Where liblinear stops at its iteration cap a
        ``ConvergenceWarning`` is raised. Every fit with ``"liblinear"``
        warns (``UserWarning``) that the result is an approximation. With
        ``"liblinear"``, ``dual_coef_`` and ``beta_`` are not available and
        ``support_`` holds the instances on or inside the margin.
    representation : {"auto", "gram", "rows", "primal"}, default="auto"
        What each QP is solved on (``solver="libsvm"``). ``"gram"``: libsvm
        on the precomputed n x n scaled kernel ``K_ij / (s_i s_j)``.
        ``"rows"`` (``kernel="linear"`` only): libsvm's linear kernel on the
        rows ``x_i / s_i`` (zero-filled), the same QP with the same
        unpenalised bias, solved to the same ``tol``, without any n x n
        matrix (memory grows with n d instead of n^2; libsvm then computes
        each kernel entry as a dot product over the features); it differs
        from ``"gram"`` only in how the kernel values are rounded, which
        libsvm's iterates can carry to the level of its stopping tolerance,
        as a permutation of the features would. ``"primal"``
        (``kernel="linear"`` only): the same QP on the same rows in its
        primal form, by an interior-point method
        (:class:`geomargin.models._linear_qp.PrimalLinearSVM`, Mehrotra's method on
        ``(d + 1)``-sized normal equations, relative duality gap 1e-12;
        ``tol`` and ``first_tol`` do not apply): its steps cost ``n d^2``
        whatever ``C``, where libsvm slows down sharply on large,
        nearly separable problems. ``"auto"``, for ``kernel="linear"`` and
        ``4 * n_features <= n_samples``: ``"primal"`` up to
        :data:`geomargin.models._kernels.MAX_PRIMAL_FEATURES` (100) features; above,
        ``"gram"`` up to :data:`geomargin.models._kernels.MAX_GRAM_ROWS` (20000) rows,
        ``"rows"`` beyond; else ``"gram"``. With ``"gram"`` :meth:`fit`
        rescales its one kernel matrix in place between QPs. Ignored with
        ``solver="liblinear"``.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        Class labels; ``classes_[1]`` is the positive class.
    n_features_in_ : int
    gamma_ : float
        The kernel coefficient used.
    representation_ : {"gram", "rows", "primal"}
        What the QPs were solved on (``representation`` resolved; ``"rows"``
        with ``solver="liblinear"``).
    n_iter_ : int
        Number of QPs solved.
    s_ : ndarray of shape (n_samples,)
        Final scales ``||w^(i)|| / ||w||`` of the training instances (from the
        last solution; the ones ``decision_function`` uses on them).
    s_history_ : list of ndarray
        ``s_history_[0]`` is all ones; ``s_history_[t]`` are the scales
        computed from the solution of QP ``t`` (QP ``t`` used
        ``s_history_[t-1]``). Length ``n_iter_ + 1``.
    objective_ : list of float
        Per QP ``t``: the geometric-margin objective
        ``1/2 ||w||^2 + C sum_i max(0, 1 - y_i (<w, phi(x_i)> / s_i + b))``
        of its solution, evaluated with ``s_history_[t]``.
    support_ : ndarray of int
        Indices of the support vectors of the last QP.
    support_vectors_ : ndarray of shape (n_sv, n_features)
        The support vectors (NaN = absent, also in a column absent in every
        training row).
    dual_coef_ : ndarray of shape (1, n_sv)
        libsvm's ``alpha_j y_j`` of the last QP (on the scaled kernel).
    beta_ : ndarray of shape (n_sv,)
        ``dual_coef_ / s_j``: ``w = sum_j beta_j phi(x_j)``.
    intercept_ : ndarray of shape (1,)
    w_norm_ : float
        ``||w||``.
    coef_ : ndarray of shape (1, n_features)
        Explicit ``w`` (linear kernel only; scikit-learn's binary shape):
        one entry per input column, 0 for a column absent in every training row.

    Notes
    -----
    **Decision function.** For a new instance ``x`` with valid-feature set
    ``P`` the score is its margin in its own subspace, times ``||w||``::

        f(x) = <w, phi(x)> / s(x) + b,   s(x) = ||w^(P)|| / ||w||

    with ``s(x)`` computed for the instance's own pattern (so scores are
    comparable across instances with different missingness, and on a
    training instance it is the function the QP fitted, with updated ``s``).
    With no absent value ``s = 1`` and ``f`` is a standard SVM's decision
    function. ``s(x)`` is floored at :data:`S_MIN`.

    **Instances with no valid feature** carry no evidence: they are treated
    as ``phi(x) = 0`` with ``s = 1`` (in training their kernel row is 0) and
    their score is exactly ``intercept_``. No division by zero occurs.

    **Non-linear kernels.** ``||w^(P)||^2 = sum_jk beta_j beta_k K_P(x_j, x_k)``
    where ``K_P`` is the masked kernel with every feature outside ``P``
    treated as absent (Chechik et al. 2008, Sec. 4: the support vectors are
    restricted to the instance's valid features). It is computed once per
    distinct missingness pattern (see :mod:`geomargin.models._kernels`). The masked
    RBF kernel (distance over features valid in both) is in general *not*
    positive semi-definite; negative pattern norms are clipped to 0, and if
    ``||w||^2 <= 0`` the iteration stops with ``s = 1`` and a ``UserWarning``
    (the model is then a plain SVM on the masked kernel).

    Examples
    --------
    >>> import numpy as np
    >>> from geomargin.models.geometric import GeometricMarginSVC
    >>> X = np.array([[1.0, 1.0], [2.0, np.nan], [-1.0, -1.0], [-2.0, np.nan]])
    >>> y = np.array([1, 1, 0, 0])
    >>> clf = GeometricMarginSVC(C=10.0, n_iter=3).fit(X, y)
    >>> clf.predict([[1.5, np.nan], [-1.0, -2.0]])
    array([1, 0])
    """

    _parameter_constraints: dict = {
        **_MaskedSVCBase._parameter_constraints,
        "n_iter": int_at_least(1), "s_tol": positive_float(),
        "solver": one_of("libsvm", "liblinear"), "first_tol": none_or_positive_float(),
        "representation": one_of(*QP_REPRESENTATIONS),
    }

    def __init__(self, C=1.0, *, kernel="linear", degree=2, gamma="scale", coef0=1.0,
                 n_iter=3, groups=None, tol=1e-3, cache_size="auto", s_tol=1e-3,
                 solver="libsvm", first_tol=None, representation="auto"):
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.n_iter = n_iter
        self.groups = groups
        self.tol = tol
        self.cache_size = cache_size
        self.s_tol = s_tol
        self.solver = solver
        self.first_tol = first_tol
        self.representation = representation

    def _check_solver(self) -> None:
        if self.solver == "liblinear" and self.kernel != "linear":
            raise ValueError(f"GeometricMarginSVC: solver='liblinear' needs kernel='linear'. "
                             f"Got kernel={self.kernel!r}; use solver='libsvm' for it.")

    def _check_iteration_params(self) -> int:
        """Validate the iteration's own parameters; returns ``n_iter``."""
        self._check_solver()
        self._check_representation()
        if self.solver == "liblinear":
            warnings.warn(
                "GeometricMarginSVC: solver='liblinear' penalises the bias, so it only "
                "approximates the paper's QP (its error: benchmarks/geometric_vs_reference.py "
                "--settings liblinear); use solver='libsvm' for the exact problem.",
                UserWarning, stacklevel=3)
        return int(self.n_iter)

    def _first_tol(self, M) -> float:
        """Tolerance of a first QP that is not the last: ``first_tol`` (``None``
        = ``tol``), unless no instance lacks a feature that another instance
        has (then every ``s_i`` stays 1 and QP 1 is final)."""
        cols = M.any(axis=0)
        if M[:, cols].all() or self.first_tol is None:
            return float(self.tol)
        return float(self.first_tol)

    def _solve_liblinear(self, X0, s, ys, tol):
        """One iteration's QP with liblinear on the rows ``x_i / s_i``:
        ``(w, b)``."""
        lin = LinearSVC(loss="hinge", dual=True, C=float(self.C), tol=tol,
                        max_iter=LIBLINEAR_MAX_ITER,
                        intercept_scaling=LIBLINEAR_INTERCEPT_SCALING, random_state=0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", category=ConvergenceWarning)
            lin.fit(X0 / s[:, None], ys)
        for w in caught:  # re-raise what is not liblinear's convergence report
            if not issubclass(w.category, ConvergenceWarning):
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        if any(issubclass(w.category, ConvergenceWarning) for w in caught):
            warnings.warn(f"GeometricMarginSVC: liblinear did not converge in {LIBLINEAR_MAX_ITER} "
                          f"iterations (C={self.C}, tol={tol}); the solution is approximate. "
                          "Use a smaller C, a larger tol or solver='libsvm'.",
                          ConvergenceWarning, stacklevel=4)
        return lin.coef_[0].copy(), float(lin.intercept_[0])

    def fit(self, X, y):
        """Fit by alternating libsvm QPs and scale updates.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            NaN marks a structurally absent feature; ``inf`` is rejected.
        y : array-like of shape (n_samples,)
            Two classes.

        Returns
        -------
        self
        """
        validate_params(self)
        n_iter = self._check_iteration_params()
        X = validate_X_fit(self, X)
        self.classes_, ys = validate_binary_y(self, y, X)
        groups = validate_feature_groups(self, self.groups, X.shape[1])
        self.gamma_ = resolve_gamma(self, self.gamma, X)
        M = ~np.isnan(X)
        X0 = np.where(M, X, 0.0)
        rows = self._rows_or_liblinear(X0)
        self.representation_ = ("rows" if self.solver == "liblinear"
                                else _resolve_representation(self.representation, self.kernel, *X0.shape))
        K = None if rows else self._kernel(X0, M, X0, M)
        state = None
        first_tol = self._first_tol(M) if n_iter > 1 else float(self.tol)
        for state in self._iterate(K, X0, M, ys, groups, n_iter, first_tol, own_kernel=True):
            pass
        self._set_state(state, X, X0, M)
        return self

    def _rows_or_liblinear(self, X0) -> bool:
        """True when the QPs need no kernel matrix: liblinear, or libsvm on
        the rows (``representation``, see :func:`_use_rows`)."""
        return self.solver == "liblinear" or _use_rows(self.representation, self.kernel,
                                                       *X0.shape)

    def _iterate(self, K, X0, M, ys, groups, n_iter, first_tol, own_kernel=False):
        """Generator over the QPs: after QP ``t`` yields its solution
        ``(s_new, sv, dual, beta, b, norms, wn2)`` and appends to
        ``self.objective_`` / ``self.s_history_`` (reset here). ``K`` is the
        unscaled training kernel, not modified unless ``own_kernel`` (then it
        is rescaled in place, ``K_ij / (s_i s_j)``, instead of copied: one
        n x n matrix in memory instead of two); None with liblinear, which
        yields ``dual = beta = None``, and with libsvm on the rows (linear
        kernel), which fits ``SVC(kernel="linear")`` on ``X0 / s`` instead:
        the same QP as on ``X0 @ X0.T / (s_i s_j)``. QP 1 is solved to
        ``first_tol``, the others to ``tol``; the iteration does not stop on
        a QP solved to a looser tolerance than ``tol``."""
        n = X0.shape[0]
        rows = K is None and self.solver != "liblinear"
        empty = ~M.any(axis=1)
        C = float(self.C)
        s = np.ones(n)
        self.s_history_ = [s]
        self.objective_ = []
        Ks = None
        cur = np.ones(n)  # with own_kernel: K holds K_ij / (cur_i cur_j)
        for t in range(n_iter):
            tol = first_tol if t == 0 else float(self.tol)
            if K is None and not rows:  # liblinear: w explicitly, as one pseudo support vector
                w, b = self._solve_liblinear(X0, s, ys, tol)
                raw = X0 @ w
                sv = np.flatnonzero(ys * (raw / s + b) <= 1.0 + 1e-8)
                dual = beta = None
                norms = PatternNorms(w[None, :], np.ones((1, X0.shape[1]), dtype=bool),
                                     np.ones(1), "linear", self.degree, self.gamma_,
                                     self.coef0, groups)
            else:
                if rows:  # the rows phi(x_i) / s_i, phi(x_i) = 0 for an empty row
                    Kt = X0 if t == 0 else X0 / s[:, None]
                elif t == 0:
                    Kt = K
                elif own_kernel:
                    ratio = cur / s
                    K *= ratio[:, None]
                    K *= ratio[None, :]
                    cur = s
                    Kt = K
                else:
                    if Ks is None:
                        Ks = np.empty_like(K)
                    inv = 1.0 / s
                    np.multiply(K, inv[:, None], out=Ks)
                    Ks *= inv[None, :]
                    Kt = Ks
                svc = self._svc(rows, X0.shape).set_params(tol=tol).fit(Kt, ys)
                sv = svc.support_
                dual = svc.dual_coef_[0].copy()
                b = float(svc.intercept_[0])
                beta = dual / s[sv]
                # phi(x_j) = 0 for an empty support vector: it is not part of w
                # (its kernel row is 0 in the QP). PatternNorms would otherwise
                # give it the raw masked value coef0**degree (poly) / 1 (rbf).
                beta_w = np.where(empty[sv], 0.0, beta)
                norms = PatternNorms(X0[sv], M[sv], beta_w, self.kernel, self.degree,
                                     self.gamma_, self.coef0, groups)
                if rows:
                    raw = X0 @ (X0[sv].T @ beta)
                elif own_kernel:  # the unscaled kernel's K[:, sv] @ beta
                    raw = cur * columns_dot(K, sv, cur[sv] * beta)
                else:
                    raw = columns_dot(K, sv, beta)
            nrm, wn2 = norms.norms_and_full(M)
            s_new, ok = _scales(norms, M, wn2, nrm)
            if not ok:
                warnings.warn(
                    f"GeometricMarginSVC: ||w||^2 = {wn2:.3g} <= 0 at iteration {t + 1} "
                    f"(the masked {self.kernel!r} kernel is indefinite on these support "
                    "vectors); scales are reset to 1 and the iteration stops, i.e. the "
                    "model is a plain SVM on the masked kernel. Consider kernel='linear' "
                    "or 'poly' with coef0 >= 0.", UserWarning, stacklevel=3)
            f = raw / s_new + b
            f[empty] = b
            obj = 0.5 * max(wn2, 0.0) + C * float(np.maximum(0.0, 1.0 - ys * f).sum())
            self.objective_.append(obj)
            self.s_history_.append(s_new)
            converged = (not ok) or (tol <= self.tol
                                     and float(np.max(np.abs(s_new - s))) <= self.s_tol)
            s = s_new
            yield s_new, sv, dual, beta, b, norms, wn2
            if converged:
                break

    def _set_state(self, state, X, X0, M):
        s, sv, dual, beta, b, norms, wn2 = state
        self.n_iter_ = len(self.objective_)
        self.s_ = s
        self.support_ = sv
        self.support_vectors_ = full_width(self, X[sv], np.nan)
        if dual is not None:  # not with liblinear
            self.dual_coef_ = dual[None, :]
            self.beta_ = beta
        self.intercept_ = np.array([b])
        self.w_norm_ = float(np.sqrt(max(wn2, 0.0)))
        self._norms = norms
        self._wn2 = wn2
        if self.kernel == "linear":
            self.coef_ = full_width(self, norms.w[None, :].copy())
        else:  # the kernel expansion over the support vectors (decision_function)
            self._X0_sv, self._M_sv = X0[sv], M[sv]

    def grid_decision_function(self, param_list, X_train, y_train, X_val):
        """Validation decision values for many parameter settings at once.

        Equivalent to ``[clone(self).set_params(**p).fit(X_train,
        y_train).decision_function(X_val) for p in param_list]`` (used by
        :func:`geomargin.models.selection.select_params`), but points that differ only
        in ``n_iter`` share one run of the iteration (the validation scores
        are taken after every QP up to the largest ``n_iter``), and points
        with the same kernel share its Gram matrix (linear and polynomial
        kernels share one ``X0 @ X0.T``; linear points that give libsvm the
        rows, see ``representation``, build no Gram matrix). One difference: when ``n_iter=1``
        is among the settings, the longer runs continue from its first QP,
        solved to ``tol`` rather than ``first_tol``; their scores then differ
        from separate fits by the first QP's tolerance only (exactly equal
        with ``first_tol=tol``).

        Parameters
        ----------
        param_list : sequence of dict
            Parameter settings (any of this estimator's parameters).
        X_train, y_train : training data (NaN = absent).
        X_val : array-like of shape (n_val, n_features)

        Returns
        -------
        list of ndarray of shape (n_val,), one per setting, in order.

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(40, 4)); y = (X[:, 0] > 0).astype(int)
        >>> X[::3, 1] = np.nan
        >>> grid = [{"n_iter": 1}, {"n_iter": 3}, {"kernel": "poly", "n_iter": 2}]
        >>> out = GeometricMarginSVC().grid_decision_function(grid, X[:30], y[:30], X[30:])
        >>> [o.shape for o in out]
        [(10,), (10,), (10,)]
        """
        return grid_decisions(self, param_list, X_train, y_train, X_val)

    def prepare_scoring(self) -> "GeometricMarginSVC":
        """Precompute what makes scoring many distinct missingness patterns
        cheap (:meth:`geomargin.models._pattern_norms.PatternNorms.prepare`: the moment
        tensors of a degree-3 polynomial kernel; nothing for other kernels).
        Scores are unchanged up to rounding. Worth it before scoring the
        windows of many scenes."""
        check_is_fitted(self)
        self._norms.prepare()
        return self

    def scales(self, X):
        """``s(x) = ||w^(x)|| / ||w||`` for each row (1 for rows with no
        valid feature; floored at :data:`S_MIN`).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        s : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        X = validate_X_predict(self, X)
        return _scales(self._norms, ~np.isnan(X), self._wn2)[0]

    def decision_function(self, X):
        """Margin of each instance in its own subspace (times ``||w||``):
        ``<w, phi(x)> / s(x) + b``; ``intercept_`` for a row with no valid
        feature.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            NaN marks an absent feature.

        Returns
        -------
        scores : ndarray of shape (n_samples,)
            Positive scores predict ``classes_[1]``.
        """
        return self.decision_and_scales(X)[0]

    def decision_and_scales(self, X) -> tuple[np.ndarray, np.ndarray]:
        """``(decision_function(X), scales(X))``, bit for bit, from one pass
        over ``X`` (the absence mask and the restricted norms are computed
        once)."""
        check_is_fitted(self)
        X = validate_X_predict(self, X)
        M = ~np.isnan(X)
        X0 = np.where(M, X, 0.0)
        empty = ~M.any(axis=1)
        b = float(self.intercept_[0])
        if self.kernel == "linear":
            raw = X0 @ kept_columns(self, self.coef_)[0]
        else:
            raw = self._kernel(X0, M, self._X0_sv, self._M_sv) @ self.beta_
        s, _ = _scales(self._norms, M, self._wn2)
        f = raw / s + b
        f[empty] = b
        return f, s
