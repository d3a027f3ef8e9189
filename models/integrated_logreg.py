"""Logistic regression that integrates missing features out under a GMM.

Williams, Liao, Xue, Carin & Krishnapuram, "On classification with incomplete
data", IEEE TPAMI 29(3), 2007.

What is solved
--------------
1. A Gaussian mixture of ``x`` is fitted to the incomplete data (training
   rows plus ``X_unlabeled`` if given) by EM or variational-Bayes EM
   (:class:`geomargin.models.gaussian_em.GaussianMixtureEM`).  For instance ``i`` this
   gives responsibilities ``rho_ik = p(k | x_i^o)`` and the conditional
   Gaussian of the completed vector, mean ``m_ik`` (observed coordinates kept)
   and covariance ``S_ik`` (zero on observed coordinates).
2. With the probit approximation ``sigma(a) ~ Phi(sqrt(pi/8) a)`` the
   integral over the missing features is analytic (their eqs. 22-23)::

       p(y_i | x_i^o) = sum_k rho_ik sigma( y_i (w.m_ik + b) / sqrt(1 + pi/8 w' S_ik w) )

3. Optional per-instance label-noise rates ``eps_i`` (probability that the
   recorded label is flipped)::

       p(y_i | x_i^o) = eps_i + (1 - 2 eps_i) * [the expression above]

4. ``w, b`` minimise (L-BFGS, analytic gradient; ``b`` not penalised, as in
   scikit-learn)::

       C * sum_i -log p(y_i | x_i^o) + 1/2 ||w||^2 + graph_reg * f' L f / n_total^2

   where the last term is the graph-regularised semi-supervised extension
   (their eq. 36, in our reading): ``f_j = w.E[x_j | x_j^o] + b`` over
   labelled *and* unlabelled instances (``X_unlabeled`` fit argument), ``L``
   the Laplacian of the graph (normalised by ``n_total^2`` as in manifold
   regularisation, Belkin, Niyogi & Sindhwani 2006) with weights
   ``W_jl = E[exp(-||x_j - x_l||^2 / (2 s^2))]`` taken under the two
   instances' conditional distributions.  Simplifications (documented):
   each conditional mixture is collapsed to one Gaussian and only the
   diagonal of its covariance is used in ``W_jl`` (closed form
   ``prod_d (1 + v_d/s^2)^{-1/2} exp(-delta_d^2 / (2(s^2 + v_d)))``,
   ``v = var_j + var_l``); ``s^2`` defaults to the median squared distance
   between the conditional means; the penalty acts on the expected linear
   score (convex), not on the predictive probabilities.

With no missing values ``S_ik = 0`` and ``rho`` is irrelevant, so the model
*is* ordinary L2-regularised logistic regression (scikit-learn's
``LogisticRegression(C=C)``).

Scaling
-------
``covariance="full"`` is limited to ``d <= 300`` (the EM's
:data:`geomargin.models.gaussian_em.MAX_FULL_DIM`): the EM stores one dense d x d
covariance per component and factorises an m x m block per missingness
pattern, and every objective evaluation costs O(n K m^2) for the quadratic
forms ``w' S_ik w`` (m = missing features per instance).  Use
``covariance="diag"`` or ``"lowrank"`` beyond that (O(n K m r) per
evaluation).  The graph term needs an n_total x n_total weight matrix and is
limited to ``n_total <= 5000`` labelled + unlabelled instances.

Example
-------
>>> import numpy as np
>>> from geomargin.models.integrated_logreg import IntegratedLogisticRegression
>>> rng = np.random.default_rng(0)
>>> X = rng.normal(size=(100, 3)); y = (X[:, 0] > 0).astype(int)
>>> X[rng.random(X.shape) < 0.2] = np.nan
>>> clf = IntegratedLogisticRegression(C=1.0).fit(X, y)
>>> clf.predict_proba(X[:2]).shape
(2, 2)
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from scipy.sparse.csgraph import laplacian
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from geomargin.common.checks import (int_at_least, nonnegative_float, one_of, positive_float,
                           positive_float_or, validate_params)
from geomargin.models._validation import (
    full_width,
    kept_columns,
    AbsentFeatureClassifierMixin,
    validate_binary_y,
    validate_X_fit,
    validate_X_predict,
)
from geomargin.models.gaussian_em import COVARIANCES, GaussianMixtureEM, fit_shared

__all__ = ["IntegratedLogisticRegression", "MAX_GRAPH_INSTANCES"]

MAX_GRAPH_INSTANCES = 5000
_C8 = np.pi / 8.0


def _log_sigmoid(t):
    return -np.logaddexp(0.0, -t)


class IntegratedLogisticRegression(AbsentFeatureClassifierMixin, BaseEstimator):
    """Logistic regression with missing features integrated out (probit approx.).

    Parameters
    ----------
    C : float, default=1.0
        Inverse L2 strength (scikit-learn convention).
    n_components : int, default=1
        Components of the Gaussian mixture of x.
    covariance : {"full", "diag", "lowrank"}, default="full"
    rank : int, default=5
    em_method : {"em", "vb"}, default="em"
        Maximum likelihood EM or variational-Bayes EM for the mixture.
    reg_covar : float, default=1e-3
    graph_reg : float, default=0.0
        Weight of the graph-Laplacian penalty (0 disables it).
    graph_bandwidth : float or "median", default="median"
        ``s^2`` of the expected Gaussian graph weights.
    max_iter : int, default=1000
    tol : float, default=1e-8
        ``gtol`` of L-BFGS (projected gradient, absolute).
    random_state : int or None
        Seed of the mixture initialisation.

    Fit arguments
    -------------
    ``fit(X, y, X_unlabeled=None, label_noise=None)``: ``X_unlabeled``
    (n_u, d) rows without labels (used by the mixture and the graph term);
    ``label_noise`` a float or (n,) array of flip probabilities in [0, 0.5).

    Attributes
    ----------
    classes_, n_features_in_, coef_ (1, d: 0 for a column absent in every training row), intercept_ (1,), mixture_
    (fitted GaussianMixtureEM), n_iter_, objective_ (final value),
    graph_bandwidth_ (when graph_reg > 0).
    """

    _parameter_constraints: dict = {
        "C": positive_float(), "n_components": int_at_least(1),
        "covariance": one_of(*COVARIANCES), "em_method": one_of("em", "vb"),
        "rank": int_at_least(1), "reg_covar": positive_float(), "graph_reg": nonnegative_float(),
        "graph_bandwidth": positive_float_or("median"), "max_iter": int_at_least(1),
        "tol": positive_float(),
    }

    def __init__(self, C=1.0, *, n_components=1, covariance="full", rank=5, em_method="em",
                 reg_covar=1e-3, graph_reg=0.0, graph_bandwidth="median", max_iter=1000,
                 tol=1e-8, random_state=None):
        self.C = C
        self.n_components = n_components
        self.covariance = covariance
        self.rank = rank
        self.em_method = em_method
        self.reg_covar = reg_covar
        self.graph_reg = graph_reg
        self.graph_bandwidth = graph_bandwidth
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    # ----------------------------------------------------------------- fit
    def fit(self, X, y, X_unlabeled=None, label_noise=None):
        X = validate_X_fit(self, X)
        self.classes_, ys = validate_binary_y(self, y, X)
        validate_params(self)
        n, d = X.shape
        if label_noise is None:
            eps = np.zeros(n)
        else:
            eps = np.broadcast_to(np.asarray(label_noise, dtype=float), (n,)).copy() \
                if np.ndim(label_noise) == 0 or np.shape(label_noise) == (n,) else None
            if eps is None or not np.all((eps >= 0) & (eps < 0.5)):
                raise ValueError(
                    f"The 'label_noise' argument of {type(self).__name__}.fit must be a float or an "
                    f"array of length n_samples={n} with values in [0, 0.5). Got {label_noise!r} instead.")
        if X_unlabeled is not None:
            Xu = validate_X_predict(self, X_unlabeled)
        else:
            Xu = np.zeros((0, d))
        n_all = n + Xu.shape[0]
        if self.graph_reg > 0 and n_all > MAX_GRAPH_INSTANCES:
            raise ValueError(
                f"{type(self).__name__} with graph_reg > 0 builds a dense graph over the "
                f"{n_all} labelled + unlabelled instances; the limit is {MAX_GRAPH_INSTANCES}. "
                f"Subsample X_unlabeled or set graph_reg=0.")
        Xall = np.vstack([X, Xu])
        self.mixture_ = None
        if np.isnan(Xall).any() or self.graph_reg > 0:
            gm = GaussianMixtureEM(self.n_components, covariance=self.covariance,
                                   rank=min(self.rank, max(d - 1, 1)), reg_covar=self.reg_covar,
                                   method=self.em_method, random_state=self.random_state)
            if self.covariance == "lowrank" and d < 2:
                gm.set_params(covariance="diag")
            # shared with a grid's other points (fit_shared: same rows and mixture)
            self.mixture_ = fit_shared(gm, Xall)
        cond = self._conditional(X)
        A = None
        if self.graph_reg > 0:
            A = self._graph_matrix(Xall)
        self._fit_w(cond, ys, eps, A)
        return self

    def _conditional(self, X):
        if self.mixture_ is None:
            if np.isnan(X).any():
                raise ValueError(
                    f"{type(self).__name__} was fitted on complete data only, so it has no model "
                    f"of the features; it cannot predict instances with NaN.")
            from geomargin.models.gaussian_conditional import Conditional
            n, d = X.shape
            return Conditional(np.ones((n, 1)), X[:, None, :].copy(), np.zeros(n, dtype=int),
                               [np.zeros(0, dtype=int)], [np.zeros((1, 0))], [np.zeros((1, 0, 0))])
        return self.mixture_.conditional(X)

    def _graph_matrix(self, Xall):
        cond = self.mixture_.conditional(Xall)
        n, d = Xall.shape
        mean = np.einsum("nk,nkd->nd", cond.resp, cond.means)
        var = np.zeros((n, d))
        for i in range(n):
            _, m, dg, F = cond.collapsed(i)
            if m.size:
                var[i, m] = dg + np.sum(F ** 2, axis=1)
        sq = np.sum(mean ** 2, 1)
        D2 = np.maximum(sq[:, None] + sq[None] - 2 * mean @ mean.T, 0.0)
        if self.graph_bandwidth == "median":
            off = D2[np.triu_indices(n, 1)]
            s2 = float(np.median(off)) if off.size and np.median(off) > 0 else 1.0
        else:
            s2 = float(self.graph_bandwidth)
        self.graph_bandwidth_ = s2
        logW = np.zeros((n, n))
        for k in range(d):  # closed form, diagonal conditional covariances
            v = var[:, k][:, None] + var[:, k][None] + s2
            delta2 = (mean[:, k][:, None] - mean[:, k][None]) ** 2
            logW += -0.5 * np.log(v / s2) - delta2 / (2 * v)
        W = np.exp(logW)
        np.fill_diagonal(W, 0.0)
        Lap = laplacian(W)
        return mean.T @ Lap @ mean / n ** 2  # f' L f / n^2 = w' A w (b cancels)

    def _objective(self, theta, cond, ys, eps, A):
        d = cond.means.shape[2]
        w, b = theta[:d], theta[d]
        a = cond.means @ w + b                      # (n, K)
        q = cond.quad(w)                            # (n, K)
        r = np.sqrt(1.0 + _C8 * q)
        z = a / r
        t = ys[:, None] * z
        logrho = np.log(np.maximum(cond.resp, 1e-300))
        log_s = _log_sigmoid(t)
        log_1ms = _log_sigmoid(-t)
        logq = np.logaddexp.reduce(logrho + log_s, axis=1)
        noisy = eps > 0
        logp = logq.copy()
        if noisy.any():
            logp[noisy] = np.logaddexp(np.log(eps[noisy]), np.log1p(-2 * eps[noisy]) + logq[noisy])
        # g_ik = d log p_i / d z_ik
        g = ys[:, None] * np.exp(np.log1p(-2 * eps)[:, None] + logrho + log_s + log_1ms - logp[:, None])
        f = -self.C * logp.sum() + 0.5 * w @ w
        gw = -self.C * (np.einsum("nk,nkd->d", g / r, cond.means)
                        - cond.cov_times(w, g * a * _C8 / r ** 3))
        gb = -self.C * np.sum(g / r)
        gw = gw + w
        if A is not None:
            f += self.graph_reg * w @ A @ w
            gw = gw + 2 * self.graph_reg * A @ w
        return f, np.concatenate([gw, [gb]])

    def _fit_w(self, cond, ys, eps, A):
        d = cond.means.shape[2]
        res = minimize(self._objective, np.zeros(d + 1), args=(cond, ys, eps, A), jac=True,
                       method="L-BFGS-B",
                       options={"maxiter": self.max_iter, "gtol": self.tol, "ftol": 1e-15,
                                "maxcor": 20})
        self.coef_ = full_width(self, res.x[:d][None, :].copy())
        self.intercept_ = np.array([res.x[d]])
        self.n_iter_ = int(res.nit)
        self.objective_ = float(res.fun)
        self.optimizer_message_ = str(res.message)

    # ------------------------------------------------------------- predict
    def _log_probs(self, X):
        cond = self._conditional(X)
        w, b = kept_columns(self, self.coef_)[0], self.intercept_[0]
        z = (cond.means @ w + b) / np.sqrt(1.0 + _C8 * cond.quad(w))
        logrho = np.log(np.maximum(cond.resp, 1e-300))
        lp1 = np.logaddexp.reduce(logrho + _log_sigmoid(z), axis=1)
        lp0 = np.logaddexp.reduce(logrho + _log_sigmoid(-z), axis=1)
        return lp0, lp1

    def decision_function(self, X):
        """``log p(y=classes_[1] | x^o) - log p(y=classes_[0] | x^o)`` (``w.x + b`` if complete)."""
        check_is_fitted(self, "coef_")
        X = validate_X_predict(self, X)
        lp0, lp1 = self._log_probs(X)
        return lp1 - lp0

    def predict_proba(self, X):
        check_is_fitted(self, "coef_")
        X = validate_X_predict(self, X)
        lp0, lp1 = self._log_probs(X)
        P = np.exp(np.column_stack([lp0, lp1]))
        return P / P.sum(1, keepdims=True)

    def predict_log_proba(self, X):
        return np.log(self.predict_proba(X))
