"""The soft-margin linear SVM's QP in its primal form, solved by an
interior-point method: a drop-in for ``sklearn.svm.SVC(kernel="linear")``
where the rows are short.

The problem is the one libsvm solves (the same unpenalised bias)::

    min_{w, b, xi}  1/2 ||w||^2 + C sum_i xi_i
    s.t.  y_i (w . z_i + b) >= 1 - xi_i,  xi_i >= 0

Clarabel [1]_ solves it with ``d + 1 + n`` variables and ``2 n`` linear
inequalities; its Newton steps factor a sparse KKT system with ``n d``
entries, so its cost grows with ``n d`` per step, about 70 steps whatever
``C``. libsvm's SMO instead needs more and more passes as ``C`` grows on
nearly separable data. The multipliers of the margin constraints are the
dual variables ``alpha_i``: the support vectors are the rows with
``alpha_i > SUPPORT_THRESHOLD * max(alpha)`` (an interior-point method never returns
an exact 0; see :data:`SUPPORT_THRESHOLD`).

References
----------
.. [1] P. J. Goulart and Y. Chen, "Clarabel: An interior-point solver for
   conic programs with quadratic objectives", arXiv:2405.12762, 2024.

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
import scipy.sparse as sp

__all__ = ["PrimalLinearSVM", "SUPPORT_THRESHOLD"]

#: A row is a support vector when its multiplier exceeds this times the
#: largest multiplier: at Clarabel's 1e-8 duality gap, rows strictly outside
#: the margin keep multipliers of about 1e-8 / (their margin - 1), a few 1e-7
#: for rows just off it; dropping a true multiplier below 1e-5 of the largest
#: moves ``w`` by less than that share of one support vector's term.
SUPPORT_THRESHOLD = 1e-5


class PrimalLinearSVM:
    """The linear soft-margin SVM by Clarabel on the primal QP, with
    ``SVC``'s fitted attributes for a binary problem with labels ``-1/+1``.

    Parameters
    ----------
    C : float, default 1.0
    tol : float, default 1e-3
        Accepted for ``SVC``'s interface (``set_params(tol=...)``) and not
        used: Clarabel stops at its own duality-gap tolerance (1e-8).

    Attributes
    ----------
    coef_ : ndarray of shape (1, d)
    intercept_ : ndarray of shape (1,)
    support_ : ndarray of int
    dual_coef_ : ndarray of shape (1, n_support)
        ``y_i alpha_i`` of the support vectors.
    n_iter_ : int
        Interior-point iterations.
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
        import clarabel

        Z = np.asarray(Z, dtype=np.float64)
        ys = np.asarray(y, dtype=np.float64).reshape(-1)
        n, d = Z.shape
        if not np.isin(ys, (-1.0, 1.0)).all() or len(np.unique(ys)) != 2:
            raise ValueError("PrimalLinearSVM.fit: y must hold both labels -1 and +1")
        C = float(self.C)
        # variables (w, b, xi); P = diag(1 on w); constraints A x + s = rhs, s >= 0:
        # -y_i (z_i . w + b) - xi_i + s = -1 and -xi_i + s = 0
        P = sp.block_diag([sp.identity(d), sp.csc_matrix((n + 1, n + 1))], format="csc")
        q = np.r_[np.zeros(d + 1), np.full(n, C)]
        eye = sp.identity(n, format="csc")
        A = sp.vstack([sp.hstack([sp.csc_matrix(-ys[:, None] * Z), sp.csc_matrix(-ys[:, None]), -eye]),
                       sp.hstack([sp.csc_matrix((n, d + 1)), -eye])], format="csc")
        rhs = np.r_[-np.ones(n), np.zeros(n)]
        settings = clarabel.DefaultSettings()
        settings.verbose = False
        sol = clarabel.DefaultSolver(P, q, A, rhs, [clarabel.NonnegativeConeT(2 * n)], settings).solve()
        status = str(sol.status)
        if status not in ("Solved", "AlmostSolved"):
            raise RuntimeError(f"PrimalLinearSVM: Clarabel stopped with status {status} on {n} rows x {d} "
                               "features; use representation='rows' (libsvm) for this problem")
        x = np.asarray(sol.x)
        alpha = np.clip(np.asarray(sol.z)[:n], 0.0, C)
        self.support_ = np.flatnonzero(alpha > SUPPORT_THRESHOLD * alpha.max()).astype(np.int32)
        self.dual_coef_ = (ys * alpha)[self.support_][None, :]
        self.coef_ = x[:d][None, :].copy()
        self.intercept_ = np.array([float(x[d])])
        self.n_iter_ = int(sol.iterations)
        self.status_ = status
        return self

    def decision_function(self, Z) -> np.ndarray:
        return np.asarray(Z, dtype=np.float64) @ self.coef_[0] + self.intercept_[0]
