"""EM and variational-Bayes EM for a Gaussian mixture fitted to incomplete data.

Shared by :mod:`geomargin.models.robust_socp` (Shivaswamy et al., JMLR 2006) and
:mod:`geomargin.models.integrated_logreg` (Williams et al., TPAMI 2007), both of which
need, for every instance, the conditional distribution of its missing
(NaN) coordinates given its observed ones.

Model
-----
``x ~ sum_k pi_k N(mu_k, Sigma_k)``; NaN entries are missing at random.
The E-step computes, per instance ``i`` and component ``k``, the
responsibility ``rho_ik = p(k | x_o)`` (from the *marginal* density of the
observed coordinates) and the conditional Gaussian
``x_m | x_o, k ~ N(m_ik, S_ik)``.  Instances are grouped by missingness
pattern: ``S_ik`` depends only on the pattern and ``k``.

Covariance types
----------------
``"full"``
    ``Sigma_k`` dense, plus a ridge ``reg_covar * mean(observed variances)``
    on the diagonal.  O(d^2) memory per component, O(m^3) per pattern.
    Limited to ``d <= MAX_FULL_DIM`` (a clear error suggests the others).
``"diag"``
    ``Sigma_k`` diagonal: missing coordinates are conditionally independent
    of the observed ones (conditional mean = ``mu_k``).
``"lowrank"``
    ``Sigma_k = W_k W_k^T + D_k`` (rank ``rank``).  E-step by Woodbury in
    O(d r^2) per pattern.  The M-step forms the expected second moment and
    projects it to rank-r-plus-diagonal by probabilistic PCA (top-r
    eigenvectors, ``D = diag(S - W W^T)`` floored by the ridge): an ECM step,
    not the exact EM of a mixture of factor analysers.

Variational Bayes (``method="vb"``, full covariance only)
-----------------------------------------------------------
After Williams et al. (2007, eqs. 8-13) / Bishop (2006, ch. 10.2):
Dirichlet(``alpha0``) prior on the weights, Normal-Wishart
(``m0`` = data mean, ``beta0``, ``W0 = I / (nu0 * mean variance)``,
``nu0 = d + 2``) on each ``(mu_k, Lambda_k)``.  The variational posterior
over (z_i, x_i^m) is kept *joint* (not factorised): ``q(x_m | z=k)`` is the
Gaussian conditional under the expected precision ``nu_k W_k`` centred at
``m_k``, and ``q(z=k) ∝ exp(E ln pi_k + E ln|Lambda_k|/2 - d/(2 beta_k))``
times the integral over ``x_m``.  Simplifications (documented): convergence
is monitored by the change of the posterior-mean parameters rather than by
the variational lower bound; the fitted ``weights_``, ``means_`` and
``covariances_`` are posterior expectations ``alpha_k/sum(alpha)``, ``m_k``
and ``(nu_k W_k)^{-1}``, and :meth:`GaussianMixtureEM.conditional` uses these
plug-in values (not the Student-t predictive).  Components whose
``alpha_k - alpha0`` falls below 1e-3 are effectively switched off by the
prior, which is how VB selects the number of components.

Example
-------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> X = rng.normal(size=(200, 3)); X[rng.random(X.shape) < 0.2] = np.nan
>>> gm = GaussianMixtureEM(n_components=1, random_state=0).fit(X)
>>> gm.means_.shape, gm.covariances_.shape
((1, 3), (1, 3, 3))
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict

import numpy as np
from scipy.linalg import cho_factor, cho_solve, eigh
from scipy.special import digamma, logsumexp
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from geomargin.common.checks import (check_param, int_at_least, one_of, positive_float,
                           validate_params)
from geomargin.models._rows import _patterns
from geomargin.models.gaussian_conditional import Conditional
from geomargin.models._validation import (
    validate_X_fit,
    validate_X_predict,
)

__all__ = ["GaussianMixtureEM", "MAX_FULL_DIM", "COVARIANCES", "fit_shared"]

#: Covariance structures of the Gaussian (mixture) models.
COVARIANCES = ("full", "diag", "lowrank")

#: Largest d for covariance="full".  Above this, the O(d^2) storage per
#: component, the O(m^3) Cholesky per missingness pattern and (for the
#: estimators) the dense per-pattern conditional covariances dominate:
#: at d=300 and n=1000 distinct patterns a single E-step already stores
#: ~0.2 GB of conditional covariance factors.
MAX_FULL_DIM = 300

_LOG2PI = np.log(2.0 * np.pi)


class GaussianMixtureEM(BaseEstimator):
    """Gaussian mixture fitted by EM (or VB-EM) to data with NaN entries.

    Parameters
    ----------
    n_components : int, default=1
    covariance : {"full", "diag", "lowrank"}, default="full"
    rank : int, default=5
        Rank of the low-rank part for ``covariance="lowrank"``.
    reg_covar : float, default=1e-3
        Ridge added to every covariance diagonal, relative to the mean
        variance of the observed features.
    method : {"em", "vb"}, default="em"
    alpha0 : float, default=1e-3
        Dirichlet concentration (VB only); small values let VB prune
        components.
    beta0 : float, default=1.0
        Normal-Wishart mean precision scaling (VB only).
    max_iter : int, default=200
    tol : float, default=1e-4
        Stop when the average log-likelihood per instance (EM) or the largest
        parameter change relative to the data scale (VB) changes less.
    random_state : int or None
        Seed of the k-means initialisation.

    Attributes
    ----------
    weights_ (K,), means_ (K, d), covariances_ (K, d, d) (dense, also for
    "diag"/"lowrank"), components_ (K, d, r) and noise_ (K, d) for
    "lowrank", lower_bound_ (average observed-data log-likelihood per
    instance, EM) , log_likelihood_ (history), n_iter_, converged_.
    """

    _parameter_constraints: dict = {
        "n_components": int_at_least(1), "covariance": one_of(*COVARIANCES),
        "method": one_of("em", "vb"), "rank": int_at_least(1), "reg_covar": positive_float(),
        "alpha0": positive_float(), "beta0": positive_float(), "max_iter": int_at_least(1),
        "tol": positive_float(),
    }

    def __init__(self, n_components=1, *, covariance="full", rank=5, reg_covar=1e-3,
                 method="em", alpha0=1e-3, beta0=1.0, max_iter=200, tol=1e-4,
                 random_state=None):
        self.n_components = n_components
        self.covariance = covariance
        self.rank = rank
        self.reg_covar = reg_covar
        self.method = method
        self.alpha0 = alpha0
        self.beta0 = beta0
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    # ------------------------------------------------------------------ fit
    def _check_params(self, d: int) -> None:
        name = type(self).__name__
        validate_params(self)
        if self.covariance == "full" and d > MAX_FULL_DIM:
            raise ValueError(
                f"{name} with covariance='full' supports at most {MAX_FULL_DIM} features "
                f"(got {d}): dense per-pattern conditional covariances cost O(d^2) memory "
                f"and O(d^3) time. Use covariance='diag' or covariance='lowrank' (with 'rank')."
            )
        if self.method == "vb" and self.covariance != "full":
            raise ValueError(
                f"The 'covariance' parameter of {name} must be 'full' when method='vb'. "
                f"Got {self.covariance!r} instead."
            )
        if self.covariance == "lowrank":
            check_param(self, "rank", self.rank, lambda r: r < d, f"an int < n_features={d}")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # NaN marks an absent value; inf is rejected
        return tags

    def fit(self, X, y=None):
        X = validate_X_fit(self, X)
        n, d = X.shape
        self._check_params(d)
        mask = ~np.isnan(X)
        col_mean = np.array([X[mask[:, j], j].mean() if mask[:, j].any() else 0.0 for j in range(d)])
        col_var = np.array([X[mask[:, j], j].var() if mask[:, j].sum() > 1 else 1.0 for j in range(d)])
        col_var = np.where(col_var > 0, col_var, 1.0)
        self._ridge = self.reg_covar * float(col_var.mean())
        self._init(X, mask, col_mean, col_var)
        uniq, inv = _patterns(mask)
        hist = []
        self.converged_ = False
        if self.method == "vb":
            self._vb_init(X, mask, col_mean, col_var)
        for it in range(1, self.max_iter + 1):
            if self.method == "em":
                cond, ll = self._estep(X, uniq, inv)
                hist.append(ll / n)
                self._mstep(X, cond, uniq)
                if len(hist) > 1 and abs(hist[-1] - hist[-2]) < self.tol * max(1.0, abs(hist[-1])):
                    self.converged_ = True
                    break
            else:
                cond, ll = self._estep_vb_or_em(X, uniq, inv)
                hist.append(ll / n)
                change = self._vb_mstep(X, cond, uniq, col_var)
                if change < self.tol:
                    self.converged_ = True
                    break
        self.n_iter_ = it
        _, ll = self._estep(X, uniq, inv)
        hist.append(ll / n)
        self.log_likelihood_ = hist
        self.lower_bound_ = hist[-1]
        return self

    def _init(self, X, mask, col_mean, col_var):
        from sklearn.cluster import KMeans

        K = self.n_components
        Xf = np.where(mask, X, col_mean)
        if K == 1:
            labels = np.zeros(X.shape[0], dtype=int)
        else:
            labels = KMeans(K, n_init=3, random_state=self.random_state).fit(Xf).labels_
        self.weights_ = np.array([max((labels == k).mean(), 1e-3) for k in range(K)])
        self.weights_ /= self.weights_.sum()
        self.means_ = np.array([Xf[labels == k].mean(0) if np.any(labels == k) else col_mean
                                for k in range(K)])
        cov = np.array([np.diag(col_var) for _ in range(K)])
        self._set_cov(cov)

    def _set_cov(self, S):
        """Store per-component covariances from expected second moments S (K,d,d) or (K,d)."""
        K = self.n_components
        ridge = self._ridge
        if self.covariance == "diag":
            diag = S if S.ndim == 2 else np.diagonal(S, axis1=1, axis2=2)
            self.variances_ = diag + ridge
            self.covariances_ = np.array([np.diag(v) for v in self.variances_])
        elif self.covariance == "full":
            self.covariances_ = S + ridge * np.eye(S.shape[1])[None]
            self._chol = [cho_factor(c, lower=True) for c in self.covariances_]
        else:
            r = self.rank
            Ws, Ds = [], []
            for k in range(K):
                vals, vecs = eigh(S[k])
                vals, vecs = vals[::-1], vecs[:, ::-1]
                s2 = max(float(vals[r:].mean()), 0.0)
                W = vecs[:, :r] * np.sqrt(np.maximum(vals[:r] - s2, 0.0))
                D = np.maximum(np.diag(S[k]) - np.sum(W ** 2, 1), 0.0) + ridge
                Ws.append(W)
                Ds.append(D)
            self.components_ = np.array(Ws)
            self.noise_ = np.array(Ds)
            self.covariances_ = np.einsum("kdr,ker->kde", self.components_, self.components_) \
                + np.array([np.diag(D) for D in Ds])

    # ------------------------------------------------------------ E-step
    def _component_terms(self, k, xo, o, m, prec_override=None):
        """For one pattern and component: (logpdf of x_o rows, cond means of x_m, diag, factor)."""
        mu = self.means_[k]
        ro = xo - mu[o]
        n_p = xo.shape[0]
        if self.covariance == "diag":
            v = self.variances_[k]
            lp = -0.5 * (np.sum(ro ** 2 / v[o], 1) + np.sum(np.log(v[o])) + o.size * _LOG2PI)
            cm = np.broadcast_to(mu[m], (n_p, m.size))
            return lp, cm, v[m].copy(), np.zeros((m.size, 0))
        if self.covariance == "lowrank":
            W, D = self.components_[k], self.noise_[k]
            Wo, Do = W[o], D[o]
            Mmat = np.eye(W.shape[1]) + (Wo / Do[:, None]).T @ Wo
            Mc = cho_factor(Mmat, lower=True)
            t = (ro / Do) @ Wo  # (n_p, r)
            Mt = cho_solve(Mc, t.T).T
            quad = np.sum(ro ** 2 / Do, 1) - np.sum(t * Mt, 1)
            logdet = np.sum(np.log(Do)) + 2 * np.sum(np.log(np.diag(Mc[0])))
            lp = -0.5 * (quad + logdet + o.size * _LOG2PI)
            cm = mu[m] + Mt @ W[m].T
            Linv = np.linalg.inv(np.tril(Mc[0]))  # M^{-1} = Linv^T Linv
            return lp, cm, D[m].copy(), W[m] @ Linv.T
        # full covariance, via the precision matrix
        if prec_override is not None:
            P, logdetS = prec_override
        else:
            P, logdetS = self._prec[k], self._logdet[k]
        if m.size == 0:
            quad = np.einsum("ij,jk,ik->i", ro, P, ro)
            return -0.5 * (quad + logdetS + o.size * _LOG2PI), np.zeros((n_p, 0)), \
                np.zeros(0), np.zeros((0, 0))
        L, v, Pv = self._full_solve(P, ro, o, m)
        cm = mu[m] - Pv
        quad = np.einsum("ij,jk,ik->i", ro, P[np.ix_(o, o)], ro) - np.sum(v * Pv, 1)
        logdet_oo = logdetS + 2 * np.sum(np.log(np.diag(L[0])))
        lp = -0.5 * (quad + logdet_oo + o.size * _LOG2PI)
        U = np.linalg.inv(np.tril(L[0])).T  # U U^T = Pmm^{-1}
        return lp, cm, np.zeros(m.size), U

    @staticmethod
    def _full_solve(P, ro, o, m):
        """Cholesky factor of ``P_mm``, ``v = r_o P_om`` and ``Pv = v P_mm^{-1}``:
        the conditional mean of ``x_m`` given ``x_o`` is ``mu_m - Pv``."""
        L = cho_factor(P[np.ix_(m, m)], lower=True)
        v = ro @ P[np.ix_(o, m)]  # (n_p, m) = (P_mo r_o)^T
        Pv = cho_solve(L, v.T).T
        return L, v, Pv

    def _prepare_full(self):
        if self.covariance == "full":
            # built aside and bound at once: threads scoring with one fitted model
            # (the ranking's evidence) never see a half-built list
            prec, logdet = [], []
            for c in self.covariances_:
                L = cho_factor(c, lower=True)
                prec.append(cho_solve(L, np.eye(c.shape[0])))
                logdet.append(2 * np.sum(np.log(np.diag(L[0]))))
            self._prec, self._logdet = prec, logdet

    def _estep_diag(self, X, uniq, inv):
        """``_estep``'s per-pattern terms for diagonal covariances, for all rows
        at once: log densities, completed means and the per-pattern missing
        coordinates and variances. Rows are grouped by their number of
        observed values, so each row's sums run over the same values in the
        same order as a pattern's compact ``x_o`` would: the same bits as the
        per-pattern loop (tested), without its cost per pattern."""
        n, d = X.shape
        K = self.n_components
        obs = uniq[inv]
        logp = np.empty((n, K))
        means = np.empty((n, K, d))
        for k in range(K):
            means[:, k] = np.where(obs, X, self.means_[k])
        count = obs.sum(axis=1)
        logv = np.log(self.variances_)
        for c in np.unique(count):
            rows = np.flatnonzero(count == c)
            cols = np.nonzero(obs[rows])[1].reshape(rows.size, c)
            xo = X[rows[:, None], cols]
            for k in range(K):
                ro = xo - self.means_[k][cols]
                logp[rows, k] = -0.5 * (np.sum(ro ** 2 / self.variances_[k][cols], 1)
                                        + np.sum(logv[k][cols], 1) + c * _LOG2PI)
        missing = [np.flatnonzero(~u) for u in uniq]
        diags = [self.variances_[:, m] for m in missing]
        factors = [np.zeros((K, m.size, 0)) for m in missing]
        return logp, means, missing, diags, factors

    def _estep(self, X, uniq, inv, log_weights=None, prec=None):
        n, d = X.shape
        K = self.n_components
        if self.covariance == "diag" and prec is None:
            logp, means, missing, diags, factors = self._estep_diag(X, uniq, inv)
            return self._responsibilities(logp, means, inv, missing, diags, factors, log_weights)
        if prec is None:
            self._prepare_full()
        logp = np.zeros((n, K))
        means = np.empty((n, K, d))
        missing, diags, factors = [], [], []
        for p in range(uniq.shape[0]):
            rows = np.flatnonzero(inv == p)
            o = np.flatnonzero(uniq[p])
            m = np.flatnonzero(~uniq[p])
            xo = X[np.ix_(rows, o)]
            dg, fc = [], []
            for k in range(K):
                lp, cm, dk, fk = self._component_terms(k, xo, o, m,
                                                       None if prec is None else prec[k])
                logp[rows, k] = lp
                means[rows, k] = X[rows]
                if m.size:
                    means[np.ix_(rows, [k], m)] = cm[:, None, :]
                dg.append(dk)
                fc.append(fk)
            missing.append(m)
            diags.append(np.array(dg).reshape(K, m.size))
            q = max(f.shape[1] for f in fc) if fc else 0
            factors.append(np.array(fc).reshape(K, m.size, q))
        return self._responsibilities(logp, means, inv, missing, diags, factors, log_weights)

    def _responsibilities(self, logp, means, inv, missing, diags, factors, log_weights):
        lw = np.log(self.weights_) if log_weights is None else log_weights
        logp = logp + lw
        norm = logsumexp(logp, axis=1)
        resp = np.exp(logp - norm[:, None])
        return Conditional(resp, means, inv, missing, diags, factors), float(norm.sum())

    # ------------------------------------------------------------ M-step
    def _moments(self, X, cond, uniq):
        K = self.n_components
        n, d = X.shape
        Nk = cond.resp.sum(0) + 1e-10
        xbar = np.einsum("nk,nkd->kd", cond.resp, cond.means) / Nk[:, None]
        diag_only = self.covariance == "diag"
        S = np.zeros((K, d)) if diag_only else np.zeros((K, d, d))
        rp = np.zeros((uniq.shape[0], K))
        np.add.at(rp, cond.pattern, cond.resp)
        for k in range(K):
            dev = cond.means[:, k] - xbar[k]
            if diag_only:
                S[k] = cond.resp[:, k] @ dev ** 2
            else:
                S[k] = (dev * cond.resp[:, k, None]).T @ dev
            for p, m in enumerate(cond.missing):
                if m.size == 0 or rp[p, k] == 0:
                    continue
                if diag_only:
                    S[k][m] += rp[p, k] * cond.diag[p][k]
                else:
                    F = cond.factor[p][k]
                    block = F @ F.T
                    block[np.diag_indices(m.size)] += cond.diag[p][k]
                    S[k][np.ix_(m, m)] += rp[p, k] * block
            S[k] /= Nk[k]
        return Nk, xbar, S

    def _mstep(self, X, cond, uniq):
        Nk, xbar, S = self._moments(X, cond, uniq)
        self.weights_ = np.maximum(Nk / Nk.sum(), 1e-12)
        self.weights_ /= self.weights_.sum()
        self.means_ = xbar
        self._set_cov(S)

    # --------------------------------------------------------------- VB
    def _vb_init(self, X, mask, col_mean, col_var):
        d = X.shape[1]
        self._m0 = col_mean.copy()
        self._nu0 = d + 2.0
        self._W0inv = np.diag(col_var) * self._nu0
        self._scale = float(np.sqrt(col_var.mean()))

    def _vb_expectations(self):
        """E ln pi_k, and the plug-in (precision, logdet-substitute) per component."""
        K = self.n_components
        d = self.means_.shape[1]
        Eln_pi = digamma(self.alpha_) - digamma(self.alpha_.sum())
        prec = []
        extra = np.empty(K)
        for k in range(K):
            Wk = self.W_[k]
            Lw = cho_factor(Wk, lower=True)
            logdetW = 2 * np.sum(np.log(np.diag(Lw[0])))
            Eln_lam = np.sum(digamma((self.nu_[k] + 1 - np.arange(1, d + 1)) / 2)) + d * np.log(2) + logdetW
            P = self.nu_[k] * Wk
            logdetP = d * np.log(self.nu_[k]) + logdetW
            # _component_terms uses -0.5*logdetS = +0.5*logdet P; replace by E ln|Lambda|
            prec.append((P, -Eln_lam))
            extra[k] = -0.5 * d / self.beta_[k]
            _ = logdetP
        return Eln_pi + extra, prec

    def _vb_mstep(self, X, cond, uniq, col_var):
        Nk, xbar, S = self._moments(X, cond, uniq)
        K = self.n_components
        d = X.shape[1]
        alpha = self.alpha0 + Nk
        beta = self.beta0 + Nk
        m = (self.beta0 * self._m0 + Nk[:, None] * xbar) / beta[:, None]
        nu = self._nu0 + Nk
        W = np.empty((K, d, d))
        for k in range(K):
            dm = xbar[k] - self._m0
            Winv = self._W0inv + Nk[k] * S[k] + (self.beta0 * Nk[k] / (self.beta0 + Nk[k])) * np.outer(dm, dm)
            W[k] = np.linalg.inv(Winv)
            W[k] = (W[k] + W[k].T) / 2
        old = self.means_.copy()
        self.alpha_, self.beta_, self.nu_, self.W_ = alpha, beta, nu, W
        self.means_ = m
        self.weights_ = alpha / alpha.sum()
        self.covariances_ = np.array([np.linalg.inv(nu[k] * W[k]) for k in range(K)])
        change = float(np.max(np.abs(m - old))) / self._scale
        return change

    def _estep_vb_or_em(self, X, uniq, inv):
        if self.method == "vb" and hasattr(self, "alpha_"):
            lw, prec = self._vb_expectations()
            return self._estep(X, uniq, inv, log_weights=lw, prec=prec)
        return self._estep(X, uniq, inv)

    # ---------------------------------------------------------- public API
    def conditional(self, X) -> Conditional:
        """Responsibilities and conditional moments of the missing entries of ``X``.

        Uses the fitted (for VB: posterior-mean) parameters as a plug-in
        Gaussian mixture.
        """
        check_is_fitted(self, "means_")
        X = validate_X_predict(self, X)
        uniq, inv = _patterns(~np.isnan(X))
        cond, _ = self._estep(X, uniq, inv)
        return cond

    def conditional_means(self, X) -> np.ndarray:
        """``conditional(X).means`` alone, bit for bit: the completed vectors
        under each component (observed values kept, missing ones replaced by
        their conditional mean), without the responsibilities and
        conditional covariances (for full covariances: no log density,
        no factor of the covariance per pattern). Shape (n, K, d).

        Examples
        --------
        >>> X = np.array([[0.0, 1.0], [1.0, 2.2], [2.0, 2.9], [3.0, np.nan]])
        >>> gm = GaussianMixtureEM(n_components=1, covariance="full", random_state=0).fit(X)
        >>> bool(np.array_equal(gm.conditional_means(X), gm.conditional(X).means))
        True
        """
        check_is_fitted(self, "means_")
        X = validate_X_predict(self, X)
        if self.covariance != "full":
            return self.conditional(X).means
        self._prepare_full()
        uniq, inv = _patterns(~np.isnan(X))
        means = np.repeat(X[:, None, :], self.n_components, axis=1)
        for p in range(uniq.shape[0]):
            m = np.flatnonzero(~uniq[p])
            if m.size == 0:
                continue
            rows = np.flatnonzero(inv == p)
            o = np.flatnonzero(uniq[p])
            xo = X[np.ix_(rows, o)]
            for k in range(self.n_components):
                _, _, Pv = self._full_solve(self._prec[k], xo - self.means_[k][o], o, m)
                means[np.ix_(rows, [k], m)] = (self.means_[k][m] - Pv)[:, None, :]
        return means

    def score(self, X, y=None) -> float:
        """Average observed-data log-likelihood per instance."""
        check_is_fitted(self, "means_")
        X = validate_X_predict(self, X)
        uniq, inv = _patterns(~np.isnan(X))
        _, ll = self._estep(X, uniq, inv)
        return ll / X.shape[0]


#: Mixtures kept by :func:`fit_shared` (the most recent fits).
_SHARED_FITS: "OrderedDict[tuple, GaussianMixtureEM]" = OrderedDict()
_SHARED_SIZE = 2


def fit_shared(gm: GaussianMixtureEM, X) -> GaussianMixtureEM:
    """``gm.fit(X)``, or the mixture a call with equal parameters and data
    fitted before.

    A grid over a classifier's own parameters (its ``C``) refits the same
    mixture to the same rows for every grid point; the fit is deterministic
    for an integer ``random_state``, so the earlier result is the result.
    The two most recent fits are kept, keyed by the parameters and a
    digest of ``X``'s bytes. With ``random_state=None`` (a fresh random
    start each time) nothing is shared. The returned mixture may be shared
    by several estimators: treat it as read-only.

    Examples
    --------
    >>> X = np.array([[0.0, 1.0], [1.0, np.nan], [2.0, 2.5], [np.nan, 0.5]])
    >>> a = fit_shared(GaussianMixtureEM(n_components=1, random_state=0), X)
    >>> fit_shared(GaussianMixtureEM(n_components=1, random_state=0), X.copy()) is a
    True
    >>> fit_shared(GaussianMixtureEM(n_components=1, random_state=1), X) is a
    False
    """
    if not isinstance(gm.random_state, (int, np.integer)) or isinstance(gm.random_state, bool):
        return gm.fit(X)
    A = np.ascontiguousarray(X, dtype=np.float64)
    key = (A.shape, hashlib.blake2b(A.tobytes(), digest_size=20).digest(),
           tuple(sorted((k, repr(v)) for k, v in gm.get_params().items())))
    fitted = _SHARED_FITS.get(key)
    if fitted is None:
        fitted = gm.fit(A)
        _SHARED_FITS[key] = fitted
        while len(_SHARED_FITS) > _SHARED_SIZE:
            _SHARED_FITS.popitem(last=False)
    _SHARED_FITS.move_to_end(key)
    return fitted
