"""SVM with a learned distribution over imputations ("infinite imputation").

Dick, Haider & Scheffer, "Learning to classify with missing and corrupted
features", ICML 2008.

What is solved (our reconstruction)
-----------------------------------
An *imputation* ``X^t`` is a completion of the whole training matrix (it
agrees with every observed value).  The model keeps a distribution ``beta``
over a finite, growing set of imputations; the SVM sees the expected RBF
kernel ``K_beta = sum_t beta_t K(X^t)``, ``K(X)_ij = exp(-gamma ||x_i - x_j||^2)``.
Each imputation pays a squared feature-space distance to a prior
imputation::

    R(X^t) = sum_i || phi(x_i^t) - phi_prior_i ||^2

with ``phi_prior_i = phi(x_i^0)`` for ``prior="mean"`` (``x_i^0``: missing
entries replaced by the training feature means, input space) or the centroid
``(1/n_c) sum_{j in class(i)} phi(x_j^0)`` for ``prior="class_mean"`` (class
mean in feature space).  The learning problem is::

    min_{beta in simplex}  J(beta) = max_alpha [ 1'alpha - 1/2 alpha' Y K_beta Y alpha ]
                                     + imputation_reg * sum_t beta_t R(X^t)
    (0 <= alpha <= C, y'alpha = 0)

which is convex in ``beta`` (a maximum of functions linear in ``beta``).
Algorithm 1 (greedy, column generation):

1. start with ``{X^0}``, ``beta = (1)``; solve the SVM (libsvm through
   ``SVC(kernel="precomputed")``).
2. with ``alpha`` fixed, find a new imputation minimising
   ``h(X) = -1/2 alpha' Y K(X) Y alpha + imputation_reg * R(X)`` (the
   derivative of ``J`` along a new imputation) by gradient descent with
   backtracking on the missing entries, starting from the currently most
   weighted imputation;
3. if it does not improve ``h`` on every imputation already in the set,
   stop (no descent direction); else add it and re-optimise ``beta`` on the
   simplex by projected gradient steps (gradient ``dJ/dbeta_t = h_t(alpha*)``,
   one SVM solve per step, Armijo backtracking); drop imputations with zero
   weight;
4. stop when ``J`` improves by less than ``tol * |J|`` or after ``max_iter``
   (< 50 in the paper) iterations.

Prediction: a test instance is completed with the prior (training feature
means; with ``prior="class_mean"`` too, since its class is unknown) and
scored with ``f(x) = sum_t beta_t sum_i alpha_i y_i k(x_i^t, x) + b``.

Not reconstructed (documented deviations): the paper's exact step-size rule
and the inner optimiser for ``beta`` (we use projected gradient), and any
treatment of *corrupted* (observed but noisy) features: only NaN entries are
free.  The objective ``J`` is evaluated with libsvm's dual solution, so it is
accurate to libsvm's ``tol``.

With no missing values the imputation set stays ``{X}`` and the model is
exactly ``SVC(kernel="rbf", C=C, gamma=gamma)``.

Cost: each iteration stores one n x d imputation and one n x n kernel and
runs several SVM solves; memory O(T n^2) for T <= max_iter imputations.  We
refuse n > MAX_TRAIN = 5000 training instances.

Example
-------
>>> import numpy as np
>>> from geomargin.models.infinite_imputation import InfiniteImputationSVC
>>> rng = np.random.default_rng(0)
>>> X = rng.normal(size=(60, 3)); y = (X[:, 0] > 0).astype(int)
>>> X[rng.random(X.shape) < 0.2] = np.nan
>>> clf = InfiniteImputationSVC(C=1.0, gamma=0.5, random_state=0).fit(X, y)
>>> clf.predict(X[:3]).shape
(3,)
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.svm import SVC
from sklearn.utils.validation import check_is_fitted

from geomargin.common.checks import (int_at_least, nonnegative_float, one_of, positive_float,
                           positive_float_or, validate_params)
from geomargin.models._validation import (
    AbsentFeatureClassifierMixin,
    validate_binary_y,
    validate_X_fit,
    validate_X_predict,
)

__all__ = ["InfiniteImputationSVC", "MAX_TRAIN"]

MAX_TRAIN = 5000


def _rbf(A, B, gamma, out=None, work=None):
    """``exp(-gamma * max(|a|^2 + |b|^2 - (2a).b, 0))`` for all row pairs,
    evaluated in place in one n x m buffer (the same operations as the plain
    expression, so the same bits, at a fraction of the memory traffic).
    ``out`` and ``work``, if given, are n x m float64 buffers to reuse for
    the result and the product (a fresh buffer of that size costs about as
    much to fault in as to fill)."""
    sa = np.sum(A ** 2, 1)
    sb = sa if B is A else np.sum(B ** 2, 1)
    G = np.matmul(2 * A, B.T, out=work)
    D = np.add(sa[:, None], sb[None], out=out)
    D -= G
    del G
    np.maximum(D, 0.0, out=D)
    D *= -gamma
    return np.exp(D, out=D)


def _project_simplex(v):
    u = np.sort(v)[::-1]
    css = np.cumsum(u)
    k = np.flatnonzero(u * np.arange(1, v.size + 1) > css - 1)[-1]
    tau = (css[k] - 1) / (k + 1)
    return np.maximum(v - tau, 0.0)


class InfiniteImputationSVC(AbsentFeatureClassifierMixin, BaseEstimator):
    """RBF SVM with a distribution over imputations (Dick et al., ICML 2008).

    Parameters
    ----------
    C : float, default=1.0
    gamma : float or "scale", default="scale"
        RBF width; "scale" = 1 / (d * var(prior imputation)), as scikit-learn.
    imputation_reg : float, default=1.0
        Weight of the squared feature-space distance to the prior imputation.
    prior : {"mean", "class_mean"}, default="mean"
    max_iter : int, default=50
        Greedy iterations (imputations added).
    n_grad_steps : int, default=20
        Gradient steps per new imputation.
    n_weight_steps : int, default=10
        Projected-gradient steps on ``beta`` per iteration.
    tol : float, default=1e-4
        Relative improvement of J below which the greedy loop stops.
    svm_tol : float, default=1e-5
        libsvm tolerance.
    random_state : None
        Accepted for API symmetry; the algorithm is deterministic.

    Attributes
    ----------
    classes_, n_features_in_, imputations_ (list of (n, d) arrays),
    beta_ (T,), dual_coef_ (n,) (alpha_i y_i, zero off the support),
    intercept_ (float), gamma_, objective_ (J after each iteration),
    n_iter_, fill_values_ (d,) training feature means.
    """

    _parameter_constraints: dict = {
        "C": positive_float(), "gamma": positive_float_or("scale"),
        "imputation_reg": nonnegative_float(), "prior": one_of("mean", "class_mean"),
        "max_iter": int_at_least(1), "n_grad_steps": int_at_least(1),
        "n_weight_steps": int_at_least(1), "tol": positive_float(), "svm_tol": positive_float(),
    }

    def __init__(self, C=1.0, *, gamma="scale", imputation_reg=1.0, prior="mean", max_iter=50,
                 n_grad_steps=20, n_weight_steps=10, tol=1e-4, svm_tol=1e-5, random_state=None):
        self.C = C
        self.gamma = gamma
        self.imputation_reg = imputation_reg
        self.prior = prior
        self.max_iter = max_iter
        self.n_grad_steps = n_grad_steps
        self.n_weight_steps = n_weight_steps
        self.tol = tol
        self.svm_tol = svm_tol
        self.random_state = random_state

    def _check(self, n):
        validate_params(self)
        if n > MAX_TRAIN:
            raise ValueError(
                f"{type(self).__name__} keeps one dense n x n kernel per imputation; it supports at "
                f"most {MAX_TRAIN} training instances (got {n}). Subsample the training set.")

    # ------------------------------------------------------------ pieces
    def _R(self, Xt):
        """Regulariser sum_i ||phi(x_i^t) - phi_prior_i||^2 and its gradient wrt Xt."""
        g = self.gamma_
        if self.prior == "mean":
            k = np.exp(-g * np.sum((Xt - self._X0) ** 2, 1))
            return float(np.sum(2 - 2 * k)), 4 * g * k[:, None] * (Xt - self._X0)
        val, grad = 0.0, np.zeros_like(Xt)
        for rows, const in self._classes:
            Kc = _rbf(Xt[rows], self._X0[rows], g)
            nc = rows.size
            val += float(np.sum(1 - 2 * Kc.mean(1) + const))
            grad[rows] = (4 * g / nc) * (Kc.sum(1)[:, None] * Xt[rows] - Kc @ self._X0[rows])
        return val, grad

    def _h_value(self, Xt, c, K=None, out=None, work=None):
        """h(X) = -1/2 c'K(X)c + reg R(X) (c = alpha * y), with the kernel
        K(X) (computed into ``out`` unless given) and the gradient of R that
        :meth:`_h_grad` needs."""
        K = _rbf(Xt, Xt, self.gamma_, out=out, work=work) if K is None else K
        Rv, Rg = self._R(Xt)
        return -0.5 * c @ K @ c + self.imputation_reg * Rv, K, Rg

    def _h_grad(self, Xt, c, K, Rg, work=None):
        """Gradient of h at X on the missing entries (zero elsewhere);
        ``work``: an n x n buffer to reuse."""
        Kc = np.multiply(K, c[None, :], out=work)
        grad = 2 * self.gamma_ * c[:, None] * (Kc.sum(1)[:, None] * Xt - Kc @ Xt)
        grad = grad + self.imputation_reg * Rg
        return np.where(self._miss, grad, 0.0)

    def _h(self, Xt, c, K=None):
        """h(X) and its gradient."""
        val, K, Rg = self._h_value(Xt, c, K)
        return val, self._h_grad(Xt, c, K, Rg)

    def _svm(self, K, ys):
        svc = SVC(kernel="precomputed", C=self.C, tol=self.svm_tol).fit(K, ys)
        c = np.zeros(K.shape[0])
        c[svc.support_] = svc.dual_coef_[0]
        dual = float(np.abs(c).sum() - 0.5 * c @ K @ c)
        return c, float(svc.intercept_[0]), dual

    def _J(self, beta, Ks, Rs, ys, out=None):
        """J(beta) with the SVM's solution; ``out``: an n x n buffer for K_beta."""
        T = Ks.shape[0]
        # what np.tensordot(beta, Ks, axes=1) computes, into ``out``
        K = np.dot(beta.reshape(1, T), Ks.reshape(T, -1),
                   out=None if out is None else out.reshape(1, -1)).reshape(Ks.shape[1:])
        c, b, dual = self._svm(K, ys)
        return dual + self.imputation_reg * float(beta @ Rs), c, b

    # --------------------------------------------------------------- fit
    def fit(self, X, y):
        X = validate_X_fit(self, X)
        self.classes_, ys = validate_binary_y(self, y, X)
        n, d = X.shape
        self._check(n)
        self._miss = np.isnan(X)
        fill = np.nanmean(np.where(self._miss.all(0), 0.0, X), axis=0) if self._miss.any() else X.mean(0)
        fill = np.where(np.isnan(fill), 0.0, fill)
        self.fill_values_ = fill
        X0 = np.where(self._miss, fill, X)
        self._X0 = X0
        if self.gamma == "scale":
            var = X0.var()
            self.gamma_ = 1.0 / (d * var) if var > 0 else 1.0
        else:
            self.gamma_ = float(self.gamma)
        if self.prior == "class_mean":
            self._classes = []
            for s in (-1.0, 1.0):
                rows = np.flatnonzero(ys == s)
                self._classes.append((rows, float(_rbf(X0[rows], X0[rows], self.gamma_).mean())))
        imps = [X0.copy()]
        Ks = _rbf(X0, X0, self.gamma_)[None]
        Rs = np.array([self._R(X0)[0]])
        beta = np.ones(1)
        J, c, b = self._J(beta, Ks, Rs, ys)
        history = [J]
        it = 0
        work = kbuf = None  # n x n buffers reused by every step (allocated once)
        for it in range(1, self.max_iter + 1):
            if not self._miss.any():
                break
            if work is None:
                work, kbuf = np.empty((n, n)), np.empty((n, n))
            # --- new imputation: gradient descent on h with alpha fixed
            # (values only where the gradient is not used; a trial step's
            # gradient only once it is accepted; the kernel of the accepted
            # imputation kept: the same numbers as recomputing them)
            hs = np.array([self._h_value(imps[t], c, Ks[t])[0] for t in range(len(imps))])
            start = int(np.argmax(beta))
            Xn = imps[start].copy()
            # (n x n buffers reused: ``work`` for products, ``spare`` for the
            # next trial kernel; Kn is written to only once it is a trial's)
            hv, Kn, Rg = self._h_value(Xn, c, Ks[start])
            hg = self._h_grad(Xn, c, Kn, Rg, work)
            own, spare = False, None
            step = 1.0 / (np.abs(hg).max() + 1e-12)
            for _ in range(self.n_grad_steps):
                while step > 1e-10:
                    Xc = Xn - step * hg
                    hc, Kc, Rg = self._h_value(Xc, c, out=spare, work=work)
                    if hc <= hv - 1e-4 * step * np.sum(hg ** 2):
                        hg = self._h_grad(Xc, c, Kc, Rg, work)
                        spare = Kn if own else None
                        Xn, hv, Kn, own = Xc, hc, Kc, True
                        step *= 2.0
                        break
                    spare = Kc
                    step *= 0.5
                else:
                    break
            spare = None
            if hv >= hs.min() - 1e-9 * max(1.0, abs(hs.min())):
                break  # no imputation improves on the current set: converged
            imps.append(Xn)
            Ks = np.concatenate([Ks, Kn[None]])
            del Kn
            Rs = np.append(Rs, self._R(Xn)[0])
            beta = np.append(beta, 0.0)
            # --- re-weight: projected gradient on the simplex
            grad = np.array([-0.5 * c @ Ks[t] @ c for t in range(len(imps))]) + self.imputation_reg * Rs
            lr = 1.0 / (np.ptp(grad) + 1e-12)
            for _ in range(self.n_weight_steps):
                improved = False
                while lr > 1e-8:
                    nb = _project_simplex(beta - lr * grad)
                    Jn, cn, bn = self._J(nb, Ks, Rs, ys, out=kbuf)
                    if Jn < J - 1e-12:
                        beta, J, c, b, improved = nb, Jn, cn, bn, True
                        lr *= 2.0
                        break
                    lr *= 0.5
                if not improved:
                    break
                grad = np.array([-0.5 * c @ Ks[t] @ c for t in range(len(imps))]) + self.imputation_reg * Rs
            keep = beta > 1e-10
            imps = [im for im, k in zip(imps, keep) if k]
            Ks, Rs, beta = Ks[keep], Rs[keep], beta[keep] / beta[keep].sum()
            history.append(J)
            if history[-2] - J < self.tol * max(abs(J), 1e-12):
                break
        self.imputations_ = imps
        self.beta_ = beta
        self.dual_coef_ = c
        self.intercept_ = b
        self.objective_ = history
        self.n_iter_ = it
        self._ys = ys
        del self._X0, self._miss
        return self

    # ----------------------------------------------------------- predict
    def decision_function(self, X):
        check_is_fitted(self, "beta_")
        X = validate_X_predict(self, X)
        Xf = np.where(np.isnan(X), self.fill_values_, X)
        sv = self.dual_coef_ != 0
        f = np.full(X.shape[0], self.intercept_)
        for bt, Xt in zip(self.beta_, self.imputations_):
            f += bt * _rbf(Xf, Xt[sv], self.gamma_) @ self.dual_coef_[sv]
        return f
