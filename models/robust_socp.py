"""Chance-constrained SOCP classifier for missing data.

Shivaswamy, Bhattacharyya & Smola, "Second order cone programming approaches
for handling missing and uncertain data", JMLR 7 (2006) 1283-1314 (and
Bhattacharyya, Shivaswamy & Smola, NIPS 2004).

What is solved
--------------
1. A Gaussian ``N(mu, Sigma)`` of ``x`` is estimated from the incomplete
   training data by EM (:class:`geomargin.models.gaussian_em.GaussianMixtureEM`, one
   component, ridge ``reg_covar``), either on all rows (``em="joint"``) or
   per class (``em="per_class"``, the paper's choice).
2. Each instance ``i`` becomes ``x_i ~ N(mu_i, Sigma_i)``: ``mu_i`` is ``x_i``
   with its missing coordinates replaced by their conditional mean given the
   observed ones, ``Sigma_i`` is the conditional covariance on the missing
   block and zero elsewhere (complete instances: ``Sigma_i = 0``).
3. The chance constraint ``P(y_i (w.x_i + b) >= 1 - xi_i) >= eta`` becomes the
   second-order cone constraint of their eq. 14, solved here in the
   soft-margin (C-) form rather than their ``||w|| <= W`` form::

       min_{w,b,xi}  1/2 ||w||^2 + C sum_i xi_i
       s.t.  y_i (w.mu_i + b) >= 1 - xi_i + kappa ||Sigma_i^{1/2} w||,  xi_i >= 0

   with ``kappa = Phi^{-1}(eta)`` (``bound="normal"``, Gaussian x_i) or
   ``kappa = sqrt(eta / (1 - eta))`` (``bound="chebyshev"``, any distribution
   with these moments, multivariate Chebyshev).  cvxpy + CLARABEL.  With no
   missing values every constraint is the ordinary SVM constraint and the
   problem *is* the soft-margin SVM (their eq. 2).

Prediction (their eqs. 15-16, reconstructed)
--------------------------------------------
A test instance with missing values is completed twice, once under each
class's Gaussian (``x_+`` and ``x_-``, conditional means); the rule picks the
class whose own completion lies further on its side of the hyperplane:
``+1`` iff ``(w.x_+ + b) > -(w.x_- + b)``.  :meth:`decision_function` returns
``((w.x_+ + b) + (w.x_- + b)) / 2`` whose sign is exactly that rule (and which
is ``w.x + b`` for complete instances).  With ``em="joint"`` both
completions coincide and the decision value is ``w.mu + b``.
:meth:`worst_case_margin` returns ``y_hat (w.mu + b) - kappa ||Sigma^{1/2} w||``
per instance (``mu``, ``Sigma`` under the joint / class-mixture Gaussian):
positive means the predicted label holds with probability >= eta.

Size limits
-----------
``covariance="full"`` is allowed for ``d <= MAX_FULL_DIM_SOCP = 100``. Rows
with the same conditional covariance (with one Gaussian per class: the same
class and missing pattern) share one cone ``r_g >= ||Sigma_g^{1/2} w||`` and
add one linear constraint each (``y_i (w.mu_i + b) >= 1 - xi_i + kappa r_g``:
the same problem as one cone per row). Each distinct covariance is a dense
cone of size ``m`` (its missing features) with ``m * d`` coefficients; with
values missing at random nearly every row has its own pattern, and at d=100,
n=500 and 50% missing that is 2.5 million nonzeros already.  Above that use
``covariance="diag"`` (cones of size m_i, m_i nonzeros) or
``covariance="lowrank"`` (``rank`` r: cones of size m_i + r).

Example
-------
>>> import numpy as np
>>> from geomargin.models.robust_socp import RobustSOCPClassifier
>>> rng = np.random.default_rng(0)
>>> X = rng.normal(size=(60, 3)); y = (X[:, 0] + X[:, 1] > 0).astype(int)
>>> X[rng.random(X.shape) < 0.2] = np.nan
>>> clf = RobustSOCPClassifier(C=1.0, eta=0.7).fit(X, y)
>>> clf.predict(X[:3]).shape
(3,)
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import scipy.sparse as sp
from scipy.stats import norm
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from geomargin.common.checks import (check_param, int_at_least, one_of, open_unit_interval,
                           positive_float, validate_params)
from geomargin.models._validation import (
    full_width,
    kept_columns,
    AbsentFeatureClassifierMixin,
    cvxpy_solver,
    validate_binary_y,
    validate_X_fit,
    validate_X_predict,
)
from geomargin.models.gaussian_em import COVARIANCES, GaussianMixtureEM

__all__ = ["RobustSOCPClassifier", "MAX_FULL_DIM_SOCP"]


MAX_FULL_DIM_SOCP = 100


def _cone_matrix(cond, rows_cond, d):
    """One sparse G_i per row i of ``rows_cond``, with ``||G_i w|| = ||Sigma_i^{1/2} w||``."""
    blocks = []
    for i in rows_cond:
        _, m, diag, F = cond.collapsed(i)
        parts = []
        if m.size and np.any(diag > 0):
            parts.append(sp.csr_matrix((np.sqrt(diag), (np.arange(m.size), m)), shape=(m.size, d)))
        if m.size and F.shape[1]:
            rr, cc = np.meshgrid(np.arange(F.shape[1]), m, indexing="ij")
            parts.append(sp.csr_matrix((F.T.ravel(), (rr.ravel(), cc.ravel())), shape=(F.shape[1], d)))
        blocks.append(sp.vstack(parts, format="csr") if parts else sp.csr_matrix((0, d)))
    return blocks


class RobustSOCPClassifier(AbsentFeatureClassifierMixin, BaseEstimator):
    """Linear classifier with Gaussian chance constraints on incomplete instances.

    Parameters
    ----------
    C : float, default=1.0
        Slack penalty, as in the soft-margin SVM.
    eta : float, default=0.9
        Required probability that an incomplete training instance lies on
        the correct side of its margin.  ``bound="normal"`` needs
        ``0.5 <= eta < 1`` (``eta=0.5`` gives kappa=0: SVM on
        conditional-mean imputations).
    bound : {"normal", "chebyshev"}, default="normal"
    em : {"per_class", "joint"}, default="per_class"
    covariance : {"full", "diag", "lowrank"}, default="full"
    rank : int, default=5
        Rank for ``covariance="lowrank"``.
    reg_covar : float, default=1e-3
        Ridge of the EM covariance, relative to the mean feature variance.
    solver : str, default="CLARABEL"
        cvxpy solver name.

    Attributes
    ----------
    classes_, n_features_in_, coef_ (1, d: 0 for a column absent in every training row), intercept_ (1,), kappa_,
    gaussians_ (dict: class label -> fitted GaussianMixtureEM, or "joint"),
    class_prior_ (2,), objective_ (optimal value), solver_status_, n_cones_ (second-order
    cones: distinct conditional covariances of incomplete training rows).
    """

    _parameter_constraints: dict = {
        "C": positive_float(), "eta": open_unit_interval(), "bound": one_of("normal", "chebyshev"),
        "em": one_of("per_class", "joint"), "covariance": one_of(*COVARIANCES),
        "rank": int_at_least(1), "reg_covar": positive_float(), "solver": cvxpy_solver(),
    }

    def __init__(self, C=1.0, *, eta=0.9, bound="normal", em="per_class", covariance="full",
                 rank=5, reg_covar=1e-3, solver="CLARABEL"):
        self.C = C
        self.eta = eta
        self.bound = bound
        self.em = em
        self.covariance = covariance
        self.rank = rank
        self.reg_covar = reg_covar
        self.solver = solver

    def _validate_params(self, d):
        name = type(self).__name__
        validate_params(self)
        if self.bound == "normal":  # kappa = Phi^-1(eta) >= 0
            check_param(self, "eta", self.eta, lambda v: 0.5 <= v < 1,
                        "a float in [0.5, 1) with bound='normal'")
        if self.covariance == "full" and d > MAX_FULL_DIM_SOCP:
            raise ValueError(
                f"{name} with covariance='full' supports at most {MAX_FULL_DIM_SOCP} features "
                f"(got {d}): every incomplete instance adds a dense second-order cone with "
                f"(missing features) x {d} coefficients. Use covariance='diag', or "
                f"covariance='lowrank' with a small 'rank', or reduce the features (e.g. PCA)."
            )

    def _gm(self, X, d):
        gm = GaussianMixtureEM(1, covariance=self.covariance,
                               rank=min(self.rank, max(d - 1, 1)), reg_covar=self.reg_covar)
        if self.covariance == "lowrank" and d < 2:
            gm.set_params(covariance="diag")
        return gm.fit(X)

    def fit(self, X, y):
        X = validate_X_fit(self, X)
        self.classes_, ys = validate_binary_y(self, y, X)
        n, d = X.shape
        self._validate_params(d)
        self.kappa_ = float(norm.ppf(self.eta) if self.bound == "normal"
                            else np.sqrt(self.eta / (1 - self.eta)))
        self.class_prior_ = np.array([np.mean(ys < 0), np.mean(ys > 0)])
        incomplete = np.isnan(X).any(axis=1)
        mu = X.copy()
        # cone_of[i]: the index in ``cones`` of row i's ||Sigma_i^{1/2} w|| (-1: none). Rows with the
        # same conditional covariance (same Gaussian, missing pattern and responsibilities) share one.
        cone_of = np.full(n, -1)
        cones = []
        if incomplete.any():
            if self.em == "joint":
                self.gaussians_ = {"joint": self._gm(X, d)}
                groups = [(np.arange(n), self.gaussians_["joint"])]
            else:
                self.gaussians_ = {}
                groups = []
                for lab, s in zip(self.classes_, (-1.0, 1.0)):
                    rows = np.flatnonzero(ys == s)
                    if rows.size < 2:
                        raise ValueError(
                            f"{type(self).__name__} with em='per_class' needs at least 2 training "
                            f"instances of each class to estimate its Gaussian; class {lab!r} has "
                            f"{rows.size}. Use em='joint'.")
                    self.gaussians_[lab] = self._gm(X[rows], d)
                    groups.append((rows, self.gaussians_[lab]))
            for rows, gm in groups:
                sub = rows[incomplete[rows]]
                if sub.size == 0:
                    continue
                cond = gm.conditional(X[sub])
                mu[sub] = cond.resp[:, 0, None] * cond.means[:, 0]
                keys = [(int(p), r.tobytes()) for p, r in zip(cond.pattern, cond.resp)]
                first = {}
                for i, key in enumerate(keys):
                    first.setdefault(key, i)
                shared = dict(zip(first, _cone_matrix(cond, first.values(), d)))
                ids = {}
                for key, G in shared.items():
                    if G.shape[0]:
                        ids[key] = len(cones)
                        cones.append(G)
                cone_of[sub] = [ids.get(key, -1) for key in keys]
        else:
            self.gaussians_ = {}
        self.n_cones_ = len(cones)
        self._solve(mu, ys, cone_of, cones)
        return self

    def _solve(self, mu, ys, cone_of, cones):
        """The SOCP, one cone per distinct conditional covariance: ``r_g >=
        ||G_g w||`` and, for each row i of cone g, ``y_i (w.mu_i + b) - 1 +
        xi_i >= kappa r_g``, the same feasible set in ``(w, b, xi)`` as one cone
        per row (``r_g`` can always be ``||G_g w||``)."""
        n, d = mu.shape
        w = cp.Variable(d)
        b = cp.Variable()
        xi = cp.Variable(n, nonneg=True)
        margin = cp.multiply(ys, mu @ w + b)
        cons = []
        cone_rows = np.flatnonzero(cone_of >= 0)
        plain = np.flatnonzero(cone_of < 0)
        if plain.size:
            cons.append(margin[plain] >= 1 - xi[plain])
        if cone_rows.size and self.kappa_ > 0:
            qmax = max(G.shape[0] for G in cones)
            padded = [sp.vstack([G, sp.csr_matrix((qmax - G.shape[0], d))]) if G.shape[0] < qmax else G
                      for G in cones]
            Z = cp.reshape(sp.vstack(padded, format="csr") @ w, (len(cones), qmax), order="C")
            r = cp.Variable(len(cones))
            cons.append(cp.SOC(r, Z.T, axis=0))
            cons.append(margin[cone_rows] - 1 + xi[cone_rows] >= self.kappa_ * r[cone_of[cone_rows]])
        elif cone_rows.size:
            cons.append(margin[cone_rows] >= 1 - xi[cone_rows])
        prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + self.C * cp.sum(xi)), cons)
        prob.solve(solver=self.solver)
        if w.value is None or prob.status not in ("optimal", "optimal_inaccurate"):
            raise RuntimeError(
                f"{type(self).__name__}: solver {self.solver} returned status {prob.status!r}; "
                f"try another solver (e.g. solver='ECOS' or 'SCS') or rescale the features.")
        self.coef_ = full_width(self, np.asarray(w.value, dtype=float).ravel()[None, :])
        self.intercept_ = np.array([float(b.value)])
        self.objective_ = float(prob.value)
        self.solver_status_ = prob.status

    # ------------------------------------------------------------ predict
    def _completions(self, X):
        """(n, n_completions, d) conditional-mean completions of X."""
        out = np.repeat(X[:, None, :], max(len(getattr(self, "gaussians_", {})), 1), axis=1)
        incomplete = np.isnan(X).any(axis=1)
        if incomplete.any():
            if not self.gaussians_:
                raise ValueError(
                    f"{type(self).__name__} was fitted on complete data only, so it has no "
                    f"model of the features; it cannot predict instances with NaN.")
            for c, gm in enumerate(self.gaussians_.values()):
                out[incomplete, c] = gm.conditional_means(X[incomplete])[:, 0]
        return out

    def decision_function(self, X):
        """Mean of ``w.x + b`` over the class-wise conditional-mean completions.

        Its sign is the rule of eqs. 15-16 (see module docstring).
        """
        check_is_fitted(self, "coef_")
        X = validate_X_predict(self, X)
        return (self._completions(X) @ kept_columns(self, self.coef_)[0] + self.intercept_[0]).mean(axis=1)

    def worst_case_margin(self, X):
        """``sign(f) * (w.mu + b) - kappa * ||Sigma^{1/2} w||`` per instance.

        ``mu``, ``Sigma``: moments of ``x`` given its observed part under the
        joint Gaussian, or under the mixture of the class Gaussians weighted
        by ``class_prior_`` (for ``em="per_class"``).  Positive: the
        predicted label holds with probability at least ``eta``.
        """
        check_is_fitted(self, "coef_")
        X = validate_X_predict(self, X)
        f = self.decision_function(X)
        s = np.where(f > 0, 1.0, -1.0)
        n = X.shape[0]
        w, b = kept_columns(self, self.coef_)[0], float(self.intercept_[0])
        mean_val = X @ w if not np.isnan(X).any() else None
        spread = np.zeros(n)
        if mean_val is None:
            comps = self._completions(X)
            vals = comps @ w  # (n, C)
            gms = list(self.gaussians_.values())
            prior = self.class_prior_ if len(gms) == 2 else np.ones(1)
            # posterior class weights given x_o (from each Gaussian's marginal likelihood)
            logs = []
            conds = []
            for gm in gms:
                cond = gm.conditional(X)
                conds.append(cond)
                logs.append(np.array([gm.score(X[i:i + 1]) for i in range(n)]))
            L = np.array(logs).T + np.log(prior)
            r = np.exp(L - L.max(1, keepdims=True))
            r /= r.sum(1, keepdims=True)
            mean_val = (r * vals).sum(1)
            var = (r * (vals - mean_val[:, None]) ** 2).sum(1)
            for c, cond in enumerate(conds):
                var += r[:, c] * cond.quad(w)[:, 0]
            spread = np.sqrt(np.maximum(var, 0.0))
        return s * (mean_val + b) - self.kappa_ * spread
