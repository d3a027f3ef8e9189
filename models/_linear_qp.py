"""The soft-margin linear SVM's QP in its primal form, solved by a
primal-dual interior-point method whose Newton steps are ``(d + 1) x (d + 1)``
systems: a drop-in for ``sklearn.svm.SVC(kernel="linear")`` where the rows
are short.

The problem is the one libsvm solves (the same unpenalised bias)::

    min_{w, b, xi}  1/2 ||w||^2 + C sum_i xi_i
    s.t.  y_i (w . z_i + b) >= 1 - xi_i,  xi_i >= 0

It is solved by Mehrotra's predictor-corrector method [1]_ on the ``2 n``
inequalities with their slacks and multipliers. Each Newton system in
``(w, b, xi)`` is reduced to the normal equations in ``(w, b)`` alone,
``(diag(1, ..., 1, 0) + U^T F U) (dw, db) = r`` with ``U`` the rows
``y_i [z_i, 1]`` and ``F`` a positive diagonal from the current iterate
(the slacks ``xi`` drop out row by row), as Ferris and Munson do for
massive SVMs [2]_: one dense ``n (d + 1)^2`` product and one Cholesky
factorisation per step, a few dozen steps whatever ``C``. libsvm's SMO
instead needs more and more passes as ``C`` grows on nearly separable
data. A general sparse conic solver (Clarabel) solves the same QP but
factors the ``3 n + d + 1`` KKT matrix with the dense ``n x d`` block in
it, much more slowly (``python benchmarks/bench_geometric.py
--representations`` measures this solver against libsvm).

It stops when the duality gap and both residuals are below
:data:`GAP_TOLERANCE` and :data:`FEASIBILITY_TOLERANCE`, relative to the
problem's scale. A highly degenerate problem (many rows tied, the bias
fixed by rows without features) takes many more steps, as it does for
Clarabel; where the steps stall outside :data:`REDUCED_TOLERANCE` the QP
is handed to Clarabel. The multipliers of the
margin constraints are the dual variables ``alpha_i``: the support vectors
are the rows with ``alpha_i > SUPPORT_THRESHOLD * max(alpha)`` (an
interior-point method never returns an exact 0; see :data:`SUPPORT_THRESHOLD`).

References
----------
.. [1] S. Mehrotra, "On the implementation of a primal-dual interior point
   method", SIAM Journal on Optimization 2(4), 575-601, 1992.
.. [2] M. C. Ferris and T. S. Munson, "Interior-point methods for massive
   support vector machines", SIAM Journal on Optimization 13(3), 783-804,
   2002.
.. [3] L. Vandenberghe, "The CVXOPT linear and quadratic cone program
   solvers", 2010, https://www.seas.ucla.edu/~vandenbe/publications/coneprog.pdf

Examples
--------
>>> import numpy as np
>>> from sklearn.svm import SVC
>>> rng = np.random.default_rng(0)
>>> Z = rng.normal(size=(200, 3)); y = np.where(Z[:, 0] + 0.3 * rng.normal(size=200) > 0, 1.0, -1.0)
>>> qp = PrimalLinearSVM(C=1.0).fit(Z, y)
>>> svc = SVC(kernel="linear", C=1.0, tol=1e-8).fit(Z, y)
>>> bool(np.abs(qp.decision_function(Z) - svc.decision_function(Z)).max() < 1e-5)
True
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

__all__ = ["PrimalLinearSVM", "SUPPORT_THRESHOLD", "GAP_TOLERANCE", "FEASIBILITY_TOLERANCE"]

#: A row is a support vector when its multiplier exceeds this times the
#: largest multiplier: at the interior point's final duality gap, rows
#: strictly outside the margin keep multipliers of about the gap over ``2 n``
#: over (their margin - 1), orders of magnitude below this; dropping a true
#: multiplier below 1e-8 of the largest moves ``w`` by less than that share
#: of one support vector's term.
SUPPORT_THRESHOLD = 1e-8

#: Stopping rule of the interior point on the duality gap: ``s . lambda <=
#: GAP_TOLERANCE * max(1, |objective|)``. Tighter than Clarabel's default
#: (1e-8; why: ``docs/decisions.md``, "The interior point, not Clarabel"):
#: the geometric margin's QPs see rows divided by small scales, and rows that tie in exact
#: arithmetic (features whose optimal weight is 0) are ordered by the
#: solver's error, so a ROC AUC over many such rows moves with it
#: (``tests/models/test_linear_qp.py`` compares with a tightly solved cvxpy
#: model and with Clarabel's default).
GAP_TOLERANCE = 1e-12

#: Stopping rule on the residuals of stationarity and of the constraints,
#: each relative to the largest term it sums (at least 1), as in Clarabel.
FEASIBILITY_TOLERANCE = 1e-9

#: Most interior-point steps before ``fit`` gives up.
MAX_ITER = 300

#: A run that stalls (a step shorter than 1e-10, ``MAX_ITER`` steps, no
#: better iterate for ``STALL_STEPS`` steps once one is within this looser
#: tolerance, gap and residuals, or a gap below 1e-3 of its tolerance while a
#: residual is not: the steps cannot reduce the residual any more) returns
#: its best iterate when that is within it; otherwise ``fit`` solves the
#: problem again with Clarabel.
REDUCED_TOLERANCE = 1e-8
STALL_STEPS = 5


class _Stalled(RuntimeError):
    """The interior point could not reach :data:`REDUCED_TOLERANCE`."""


def _max_step(*pairs) -> float:
    """Largest step in (0, 1] keeping every ``x + a dx`` nonnegative."""
    a = 1.0
    for x, dx in pairs:
        neg = dx < 0
        if neg.any():
            a = min(a, float((-x[neg] / dx[neg]).min()))
    return a


def _cholesky(S: np.ndarray):
    """Cholesky factor of the normal matrix ``S``; near the optimum ``F``
    spans many orders of magnitude and ``S`` may lose definiteness to
    rounding: then a diagonal shift of 1e-14, 1e-12, ... times its largest
    diagonal entry is added until it factors (the steps stay descent
    directions, and convergence is judged on the unshifted residuals); if
    none does, the run counts as stalled (``fit`` hands it to Clarabel)."""
    try:
        return sla.cho_factor(S, lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        pass
    top = float(np.abs(np.diag(S)).max())
    for exp in range(-14, -3, 2):
        try:
            return sla.cho_factor(S + (top * 10.0 ** exp) * np.eye(len(S)), lower=True, check_finite=False)
        except np.linalg.LinAlgError:
            continue
    raise _Stalled("the normal matrix does not factor")


def _start(U: np.ndarray, pv: np.ndarray, C: float):
    """The starting point of CVXOPT's ``coneqp`` [3]_: ``(v, xi)`` minimising
    ``1/2 v' diag(pv) v + C sum(xi) + 1/2 ||slacks||^2`` (the Newton system with
    unit scaling), slacks ``s = (U v + xi - 1, xi)`` and multipliers ``-s``, each
    shifted to be positive (by ``1 + |min|`` where not)."""
    n, k = U.shape
    S = 0.5 * (U.T @ U)                      # diag(pv) + U' F U with D1 = D2 = 1, F = 1/2
    S[np.diag_indices(k)] += pv
    gx = np.full(n, 1.0 - C)                 # -q + G'h, xi part
    v = sla.cho_solve(_cholesky(S), U.sum(axis=0) - 0.5 * (U.T @ gx), check_finite=False)
    xi = 0.5 * (gx - U @ v)
    s = np.r_[U @ v + xi - 1.0, xi]
    z = -s

    def shift(x):
        a = -float(x.min())
        return x if a < 0 else x + (1.0 + a)
    s, z = shift(s), shift(z)
    return v, xi, s[:n], s[n:], z[:n], z[n:]


def _solve(Z: np.ndarray, ys: np.ndarray, C: float) -> tuple[np.ndarray, np.ndarray, int, str]:
    """``(w and b, alpha, steps, status)`` of the primal QP (module docstring).

    The inequalities are ``s1 = U v + xi - 1 >= 0`` (multipliers ``l1`` =
    alpha) and ``s2 = xi >= 0`` (multipliers ``l2``), with ``v = (w, b)``.
    """
    n, d = Z.shape
    U = np.empty((n, d + 1))
    U[:, :d] = ys[:, None] * Z
    U[:, d] = ys
    pv = np.r_[np.ones(d), 0.0]            # the Hessian's diagonal on v (the bias is free)
    v, xi, s1, s2, l1, l2 = _start(U, pv, C)
    m = 2 * n
    best, best_score, since_best = None, np.inf, 0
    step = 1.0
    for it in range(MAX_ITER + 1):
        # residuals of stationarity (rxv, rxx) and of the inequalities (rz1, rz2)
        Utl1, Uv = U.T @ l1, U @ v
        rxv = pv * v - Utl1
        rxx = C - l1 - l2
        rz1 = s1 + 1.0 - Uv - xi
        rz2 = s2 - xi
        pobj = 0.5 * float(v[:d] @ v[:d]) + C * float(xi.sum())
        mu = float(s1 @ l1 + s2 @ l2) / m
        gap = mu * m / max(1.0, abs(pobj))
        res_d = max(float(np.abs(rxv).max()), float(np.abs(rxx).max())) / max(
            1.0, C, float(np.abs(v[:d]).max(initial=0.0)), float(np.abs(Utl1).max()), float(l1.max()), float(l2.max()))
        res_p = max(float(np.abs(rz1).max()), float(np.abs(rz2).max())) / max(
            1.0, float(np.abs(Uv).max()), float(xi.max()), float(s1.max()), float(s2.max()))
        score = max(gap / GAP_TOLERANCE, res_d / FEASIBILITY_TOLERANCE, res_p / FEASIBILITY_TOLERANCE)
        if score <= 1.0:
            return v, l1, it, "solved"
        if score < best_score:
            best, best_score, since_best = (v.copy(), l1.copy(), it, max(gap, res_d, res_p)), score, 0
        else:
            since_best += 1
        if (it == MAX_ITER or step < 1e-10 or (since_best >= STALL_STEPS and best[3] <= REDUCED_TOLERANCE)
                or gap < 1e-3 * GAP_TOLERANCE):
            if best[3] <= REDUCED_TOLERANCE:
                return best[0], best[1], best[2], "almost solved"
            raise _Stalled(f"after {it} steps (relative gap {gap:.1e}, residuals {res_p:.1e}, {res_d:.1e})")
        D1, D2 = l1 / s1, l2 / s2
        E = D1 + D2
        F = D1 * D2 / E
        W = U * np.sqrt(F)[:, None]
        S = W.T @ W
        S[np.diag_indices(d + 1)] += pv
        cho = _cholesky(S)

        def newton(rc1, rc2):
            # P dx + G' dl = -rx, G dx + ds = -rz, l * ds + s * dl = rc, reduced to v
            t1, t2 = rz1 + rc1 / l1, rz2 + rc2 / l2
            gv = U.T @ (D1 * t1) - rxv
            gx = D1 * t1 + D2 * t2 - rxx
            dv = sla.cho_solve(cho, gv - U.T @ (D1 * gx / E), check_finite=False)
            Udv = U @ dv
            dxi = (gx - D1 * Udv) / E
            dl1 = D1 * (t1 - Udv - dxi)
            dl2 = D2 * (t2 - dxi)
            return dv, dxi, dl1, dl2, (rc1 - s1 * dl1) / l1, (rc2 - s2 * dl2) / l2

        dv, dxi, dl1, dl2, ds1, ds2 = newton(-s1 * l1, -s2 * l2)   # affine (predictor) step
        a = _max_step((s1, ds1), (s2, ds2), (l1, dl1), (l2, dl2))
        mu_aff = float((s1 + a * ds1) @ (l1 + a * dl1) + (s2 + a * ds2) @ (l2 + a * dl2)) / m
        sigma = (mu_aff / mu) ** 3
        dv, dxi, dl1, dl2, ds1, ds2 = newton(-s1 * l1 - ds1 * dl1 + sigma * mu,
                                              -s2 * l2 - ds2 * dl2 + sigma * mu)
        step = min(1.0, 0.99 * _max_step((s1, ds1), (s2, ds2), (l1, dl1), (l2, dl2)))
        v += step * dv
        xi += step * dxi
        l1 += step * dl1
        l2 += step * dl2
        s1 += step * ds1
        s2 += step * ds2
    raise AssertionError("unreachable")  # pragma: no cover


def _solve_clarabel(Z: np.ndarray, ys: np.ndarray, C: float) -> tuple[np.ndarray, np.ndarray, int, str]:
    """The same QP by Clarabel on its whole sparse KKT system (default
    tolerances): the fallback where :func:`_solve` stalls."""
    import clarabel
    import scipy.sparse as sp

    n, d = Z.shape
    # variables (w, b, xi); P = diag(1 on w); constraints A x + s = rhs, s >= 0:
    # -y_i (z_i . w + b) - xi_i + s = -1 and -xi_i + s = 0
    P = sp.block_diag([sp.identity(d), sp.csc_matrix((n + 1, n + 1))], format="csc")
    q = np.r_[np.zeros(d + 1), np.full(n, C)]
    eye = sp.identity(n, format="csc")
    A = sp.vstack([sp.hstack([sp.csc_matrix(-ys[:, None] * Z), sp.csc_matrix(-ys[:, None]), -eye]),
                   sp.hstack([sp.csc_matrix((n, d + 1)), -eye])], format="csc")
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    sol = clarabel.DefaultSolver(P, q, A, np.r_[-np.ones(n), np.zeros(n)], [clarabel.NonnegativeConeT(2 * n)],
                                 settings).solve()
    status = str(sol.status)
    if status not in ("Solved", "AlmostSolved"):
        raise RuntimeError(f"PrimalLinearSVM: neither the interior point nor Clarabel (status {status}) "
                           f"solved the QP on {n} rows x {d} features; use representation='rows' (libsvm) "
                           "for this problem")
    x = np.asarray(sol.x)
    return x[:d + 1], np.asarray(sol.z)[:n], int(sol.iterations), "solved by Clarabel"


class PrimalLinearSVM:
    """The linear soft-margin SVM by a primal-dual interior point on the
    primal QP, with ``SVC``'s fitted attributes for a binary problem with
    labels ``-1/+1``.

    Parameters
    ----------
    C : float, default 1.0
    tol : float, default 1e-3
        Accepted for ``SVC``'s interface (``set_params(tol=...)``) and not
        used: the interior point stops at :data:`GAP_TOLERANCE`.

    Attributes
    ----------
    coef_ : ndarray of shape (1, d)
    intercept_ : ndarray of shape (1,)
    support_ : ndarray of int
    dual_coef_ : ndarray of shape (1, n_support)
        ``y_i alpha_i`` of the support vectors.
    n_iter_ : int
        Interior-point steps.
    status_ : {"solved", "almost solved", "solved by Clarabel"}
        "almost solved": the steps stalled within :data:`REDUCED_TOLERANCE`;
        "solved by Clarabel": they stalled outside it and Clarabel solved
        the QP (``fit`` raises ``RuntimeError`` if it does not).
    """

    def __init__(self, C: float = 1.0, tol: float = 1e-3):
        self.C = C
        self.tol = tol

    def set_params(self, **params) -> PrimalLinearSVM:
        for key, value in params.items():
            if key not in ("C", "tol"):
                raise ValueError(f"PrimalLinearSVM: unknown parameter {key!r}; expected 'C' or 'tol'")
            setattr(self, key, value)
        return self

    def fit(self, Z, y) -> PrimalLinearSVM:
        Z = np.asarray(Z, dtype=np.float64)
        ys = np.asarray(y, dtype=np.float64).reshape(-1)
        if not np.isin(ys, (-1.0, 1.0)).all() or len(np.unique(ys)) != 2:
            raise ValueError("PrimalLinearSVM.fit: y must hold both labels -1 and +1")
        if not np.isfinite(Z).all():
            raise ValueError("PrimalLinearSVM.fit: the rows hold NaN or infinite values; expected finite "
                             "(imputed or rescaled) rows")
        C = float(self.C)
        try:
            v, alpha, steps, status = _solve(Z, ys, C)
        except _Stalled:
            v, alpha, steps, status = _solve_clarabel(Z, ys, C)
        d = Z.shape[1]
        alpha = np.clip(alpha, 0.0, C)
        self.support_ = np.flatnonzero(alpha > SUPPORT_THRESHOLD * alpha.max()).astype(np.int32)
        self.dual_coef_ = (ys * alpha)[self.support_][None, :]
        self.coef_ = v[:d][None, :].copy()
        self.intercept_ = np.array([float(v[d])])
        self.n_iter_ = steps
        self.status_ = status
        return self

    def decision_function(self, Z) -> np.ndarray:
        return np.asarray(Z, dtype=np.float64) @ self.coef_[0] + self.intercept_[0]
