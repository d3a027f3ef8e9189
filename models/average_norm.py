"""The ``avg|w|`` variant of the max-margin classifier with structurally
absent features of Chechik et al. (JMLR 9, 2008): :class:`AverageNormSVC`,
a standard SVM on zero-filled data with each feature scaled by how often it
is valid."""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from geomargin.common.checks import (one_of, validate_params)

from ._kernels import (QP_REPRESENTATIONS, _resolve_representation, _use_rows, resolve_gamma)
from ._validation import (full_width, kept_columns, validate_binary_y,
                          validate_feature_groups, validate_X_fit, validate_X_predict)
from ._masked_svc import _MaskedSVCBase, _train_val_kernels

__all__ = ["AverageNormSVC"]


def _avg_norm_scale(X: np.ndarray) -> np.ndarray:
    """``1 / sqrt(p_k)`` per feature, ``p_k`` the fraction of the rows of ``X``
    in which feature ``k`` is valid; 0 for a feature never valid (dropped):
    :attr:`AverageNormSVC.feature_scale_`."""
    p = (~np.isnan(X)).mean(axis=0)
    scale = np.zeros(X.shape[1])
    scale[p > 0] = 1.0 / np.sqrt(p[p > 0])
    return scale


class AverageNormSVC(_MaskedSVCBase):
    """The ``avg|w|`` variant of Chechik et al. (JMLR 2008).

    Minimises ``(1/n) sum_i ||w^(i)||^2 / 2 + C sum_i xi_i`` subject to
    ``y_i (w.x_i + b) >= 1 - xi_i``. Since
    ``(1/n) sum_i ||w^(i)||^2 = sum_k p_k w_k^2`` with ``p_k`` the fraction of
    training instances in which feature ``k`` is valid, this is *exactly* a
    standard SVM on zero-filled data after scaling feature ``k`` by
    ``1 / sqrt(p_k)`` (for the linear kernel); features never valid in
    training are dropped (their weight is 0). For ``poly`` and ``rbf`` the
    same input scaling is applied before the masked kernel: this is an
    approximation of the feature-space ``avg|w|`` objective, not the exact
    optimum.

    Parameters
    ----------
    C, kernel, degree, gamma, coef0, tol, cache_size
        As in :class:`GeometricMarginSVC` (``gamma="scale"`` is computed on
        the rescaled data).
    groups : array-like of int of shape (n_features,), default=None
        Accepted for a uniform interface and validated; ``p_k`` is per feature
        so the result does not depend on it.
    representation : {"auto", "gram", "rows", "primal"}, default="auto"
        What the QP is solved on, as in :class:`GeometricMarginSVC`: libsvm
        on the precomputed n x n kernel (``"gram"``) or, for
        ``kernel="linear"``, on the rescaled zero-filled rows (``"rows"``),
        or the same QP's primal on those rows by the interior point
        (``"primal"``); ``"auto"`` chooses as :class:`GeometricMarginSVC`'s.

    Attributes
    ----------
    classes_, n_features_in_, gamma_, support_, support_vectors_, dual_coef_,
    intercept_, representation_
        As in :class:`GeometricMarginSVC`.
    feature_scale_ : ndarray of shape (n_features,)
        ``1 / sqrt(p_k)``, 0 for a column absent in every training row.
    coef_ : ndarray of shape (1, n_features)
        ``w`` in the original feature space (linear kernel only):
        ``decision_function(x) = coef_[0] . x0 + intercept_[0]``;
        one entry per input column, 0 for a column absent in every training row.

    Notes
    -----
    A row with no valid (kept) feature scores exactly ``intercept_``.

    Examples
    --------
    >>> import numpy as np
    >>> from geomargin.models.average_norm import AverageNormSVC
    >>> X = np.array([[1.0, 1.0], [2.0, np.nan], [-1.0, -1.0], [-2.0, np.nan]])
    >>> clf = AverageNormSVC(C=10.0).fit(X, [1, 1, 0, 0])
    >>> clf.predict([[1.5, np.nan], [-1.0, -2.0]])
    array([1, 0])
    """

    _parameter_constraints: dict = {
        **_MaskedSVCBase._parameter_constraints,
        "representation": one_of(*QP_REPRESENTATIONS),
    }

    def __init__(self, C=1.0, *, kernel="linear", degree=2, gamma="scale", coef0=1.0,
                 groups=None, tol=1e-3, cache_size="auto", representation="auto"):
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.groups = groups
        self.tol = tol
        self.cache_size = cache_size
        self.representation = representation

    def _rescale(self, X):
        scale = kept_columns(self, self.feature_scale_)
        Xs = X * scale
        Xs[:, scale == 0] = np.nan
        return Xs

    def fit(self, X, y):
        """Fit a standard SVM on the ``1/sqrt(p_k)``-rescaled data.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        validate_params(self)
        self._check_representation()
        X = validate_X_fit(self, X)
        self.classes_, ys = validate_binary_y(self, y, X)
        validate_feature_groups(self, self.groups, X.shape[1])
        scale = _avg_norm_scale(X)
        self.feature_scale_ = full_width(self, scale)
        Xs = self._rescale(X)
        self.gamma_ = resolve_gamma(self, self.gamma, Xs)
        Ms = ~np.isnan(Xs)
        X0 = np.where(Ms, Xs, 0.0)
        rows = _use_rows(self.representation, self.kernel, *X0.shape)
        self.representation_ = _resolve_representation(self.representation, self.kernel, *X0.shape)
        svc = self._svc(rows, X0.shape).fit(X0 if rows else self._kernel(X0, Ms, X0, Ms), ys)
        sv = svc.support_
        self.support_ = sv
        self.support_vectors_ = full_width(self, X[sv], np.nan)
        self.dual_coef_ = svc.dual_coef_.copy()
        self.intercept_ = svc.intercept_.copy()
        self._X0_sv, self._M_sv = X0[sv], Ms[sv]
        if self.kernel == "linear":
            self.coef_ = full_width(self, ((X0[sv].T @ self.dual_coef_[0]) * scale)[None, :])
        return self

    def grid_decision_function(self, param_list, X_train, y_train, X_val):
        """Validation decision values for many parameter settings at once.

        Equivalent to ``[clone(self).set_params(**p).fit(X_train,
        y_train).decision_function(X_val) for p in param_list]``, but the
        rescaling is done once and linear/poly kernels share one Gram matrix
        (not built for linear points that give libsvm the rows, see
        ``representation``).

        Returns
        -------
        list of ndarray of shape (n_val,), one per setting, in order.

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(40, 4)); y = (X[:, 0] > 0).astype(int)
        >>> X[::3, 1] = np.nan
        >>> out = AverageNormSVC().grid_decision_function([{"C": 1.0}, {"kernel": "poly"}],
        ...                                               X[:30], y[:30], X[30:])
        >>> [o.shape for o in out]
        [(10,), (10,)]
        """
        from sklearn.base import clone

        proto = clone(self)
        X_train = validate_X_fit(proto, X_train)
        _, ys = validate_binary_y(proto, y_train, X_train)
        Xv = validate_X_predict(proto, X_val)
        proto.feature_scale_ = full_width(proto, _avg_norm_scale(X_train))
        Xs, Xvs = proto._rescale(X_train), proto._rescale(Xv)
        Ms, Mvs = ~np.isnan(Xs), ~np.isnan(Xvs)
        X0, X0v = np.where(Ms, Xs, 0.0), np.where(Mvs, Xvs, 0.0)
        empty_v = ~Mvs.any(axis=1)
        gram: dict = {}
        out = []
        for params in param_list:
            est = clone(self).set_params(**params)
            validate_params(est)
            est._check_representation()
            est.present_features_ = proto.present_features_
            validate_feature_groups(est, est.groups, X_train.shape[1])
            est.gamma_ = resolve_gamma(est, est.gamma, Xs)
            if _use_rows(est.representation, est.kernel, *X0.shape):
                svc = est._svc(True, X0.shape).fit(X0, ys)
                b = float(svc.intercept_[0])
                f = X0v @ (X0[svc.support_].T @ svc.dual_coef_[0]) + b
            else:
                K, Kv = _train_val_kernels(est, X0, Ms, X0v, Mvs, gram)
                svc = est._svc().fit(K, ys)
                b = float(svc.intercept_[0])
                f = Kv[:, svc.support_] @ svc.dual_coef_[0] + b
            f[empty_v] = b
            out.append(f)
        return out

    def decision_function(self, X):
        """``<w, phi(x_scaled)> + b``; ``intercept_`` for a row with no valid
        feature.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        X = validate_X_predict(self, X)
        Xs = self._rescale(X)
        M = ~np.isnan(Xs)
        X0 = np.where(M, Xs, 0.0)
        b = float(self.intercept_[0])
        if self.kernel == "linear":  # explicit w: no kernel expansion over the SVs
            f = X0 @ (self._X0_sv.T @ self.dual_coef_[0]) + b
        else:
            f = self._kernel(X0, M, self._X0_sv, self._M_sv) @ self.dual_coef_[0] + b
        f[~M.any(axis=1)] = b
        return f
