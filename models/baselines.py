"""Baselines: imputation + SVM (the paper's), and practitioners' comparators.

* :class:`ImputedSVC` -- one of the imputers of :mod:`geomargin.models.impute`
  followed by the same SVM (libsvm through :class:`sklearn.svm.SVC`).
* :func:`make_hgb` -- :class:`~sklearn.ensemble.HistGradientBoostingClassifier`
  on the raw NaN matrix.
* :class:`LogRegIndicator` -- logistic regression on mean-imputed,
  standardised data plus missingness indicators.

No standardisation in :class:`ImputedSVC`
-----------------------------------------
The paper does not standardise and neither do the geometric-margin
estimators (rescaling would need a NaN-aware scaler with its own choices);
so that every imputation method sees exactly the features the geometric
method sees, :class:`ImputedSVC` does not standardise either. A pipeline
that wants standardised features should scale them (NaN-aware) *before*
handing them to every method. ``gamma="scale"`` adapts the RBF/poly
kernels to the imputed matrix's variance as in scikit-learn.

Kernel and memory
-----------------
:class:`ImputedSVC` trains libsvm on a precomputed kernel built from one
BLAS product ``Z @ Z.T`` (linear, polynomial and RBF kernels are all
functions of it) instead of libsvm's own per-pair kernel evaluations.
With the linear kernel and at most a quarter as many columns as rows it
solves the QP on the rows instead (``representation="auto"``: the interior
point up to ``MAX_PRIMAL_FEATURES`` features, libsvm on the rows beyond
``MAX_GRAM_ROWS`` rows; :mod:`geomargin.models._kernels`), which needs no
n x n matrix. Its
:meth:`ImputedSVC.grid_decision_function` evaluates a whole parameter grid
on a validation split, fitting each imputer once and reusing the Gram
matrix for every kernel and ``C``; :func:`geomargin.models.selection.select_params`
uses it. With the precomputed kernel memory is ``O(n_train^2)`` (about 0.5 GB
at 8000 instances).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Sequence

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.utils.validation import check_array, check_is_fitted

from geomargin.common.checks import int_at_least, one_of, positive_float, validate_params
from geomargin.models._kernels import (QP_REPRESENTATIONS, SVC_PARAMETER_CONSTRAINTS, _check_representation, _resolve_representation,
                             _rows_qp, _use_rows, kernel_from_gram)
from geomargin.models._rows import _distinct_byte_rows
from geomargin.models._validation import (
    AbsentFeatureClassifierMixin,
    validate_binary_y,
    validate_feature_groups,
    validate_X_fit,
    validate_X_predict,
)
from geomargin.models.impute import IMPUTERS, make_imputer

__all__ = ["AbsentColumnsHGB", "ImputedSVC", "LogRegIndicator", "make_hgb"]

class ImputedSVC(AbsentFeatureClassifierMixin, BaseEstimator):
    """An imputer followed by an SVM: the paper's baselines.

    Parameters
    ----------
    imputer : {"zero", "mean", "flags", "knn", "em"}, default="zero"
        See :mod:`geomargin.models.impute`.
    n_neighbors : int, default=5
        K of the kNN imputer (ignored otherwise).
    n_components : int, default=5
        Mixture components of the EM imputer (ignored otherwise).
    C : float, default=1.0
        SVM penalty.
    kernel : {"linear", "poly", "rbf"}, default="linear"
    degree : int, default=2
        Degree of the polynomial kernel ``(gamma <x, z> + coef0) ** degree``.
    gamma : "scale", "auto" or float, default="scale"
        As in :class:`sklearn.svm.SVC`, computed on the *imputed* training
        matrix: "scale" = 1 / (n_columns * Z.var()), "auto" = 1 / n_columns.
    coef0 : float, default=1.0
        Constant of the polynomial kernel (1, as for GeometricMarginSVC).
    groups : array-like of int of shape (n_features,), default=None
        Feature blocks; used by the flags imputer (one indicator per block).
    random_state : int or None
        Seed of the EM imputer.
    tol : float, default=1e-3
        libsvm stopping tolerance.
    representation : {"auto", "gram", "rows", "primal"}, default="auto"
        What the QP is solved on: libsvm on the precomputed n x n kernel
        (``"gram"``) or, for ``kernel="linear"``, libsvm on the imputed rows
        (``"rows"``, the same QP without an n x n matrix) or the same QP's
        primal on those rows by an interior-point method (``"primal"``,
        :class:`geomargin.models._linear_qp.PrimalLinearSVM`; ``tol`` does not apply);
        ``"auto"`` chooses by the imputed matrix's shape as
        :class:`geomargin.models.geometric.GeometricMarginSVC`'s does.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    imputer_ : fitted imputer
    support_ : ndarray of int
        Indices of the support vectors in the training set.
    support_vectors_ : ndarray
        Imputed support vectors.
    dual_coef_ : ndarray of shape (1, n_SV)
        ``y_i alpha_i`` (positive for ``classes_[1]``).
    intercept_ : ndarray of shape (1,)
    coef_ : ndarray of shape (1, n_imputed_columns)
        Only for ``kernel="linear"``.
    gamma_ : float
        The numeric gamma used.
    representation_ : {"gram", "rows", "primal"}
        What the QP was solved on (``representation`` resolved).
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, np.nan], [2.0, 1.0], [-1.0, np.nan], [-2.0, -1.0]])
    >>> clf = ImputedSVC(imputer="mean").fit(X, [1, 1, 0, 0])
    >>> clf.predict(np.array([[3.0, np.nan], [-3.0, 0.0]]))
    array([1, 0])
    """

    _parameter_constraints: dict = {
        **SVC_PARAMETER_CONSTRAINTS, "imputer": one_of(*IMPUTERS),
        "n_neighbors": int_at_least(1), "n_components": int_at_least(1),
        "representation": one_of(*QP_REPRESENTATIONS),
    }

    def __init__(self, imputer: str = "zero", *, n_neighbors: int = 5, n_components: int = 5,
                 C: float = 1.0, kernel: str = "linear", degree: int = 2, gamma="scale",
                 coef0: float = 1.0, groups=None, random_state=None, tol: float = 1e-3,
                 representation: str = "auto"):
        self.imputer = imputer
        self.n_neighbors = n_neighbors
        self.n_components = n_components
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.groups = groups
        self.random_state = random_state
        self.tol = tol
        self.representation = representation

    def _check_representation(self) -> None:
        _check_representation(self)

    def _uses_rows(self, Z: np.ndarray) -> bool:
        return _use_rows(self.representation, self.kernel, *Z.shape)

    def _imputer_key(self) -> tuple:
        """Parameters that determine the fitted imputer (for grid sharing)."""
        groups = None if self.groups is None else tuple(np.asarray(self.groups).tolist())
        return (self.imputer,
                self.n_neighbors if self.imputer == "knn" else None,
                self.n_components if self.imputer == "em" else None,
                groups if self.imputer == "flags" else None,
                self.random_state if self.imputer == "em" else None)

    def _make_imputer(self, n_features: int):
        groups = validate_feature_groups(self, self.groups, n_features)
        return make_imputer(self.imputer, n_neighbors=self.n_neighbors,
                            n_components=self.n_components, groups=groups,
                            random_state=self.random_state)

    def _gamma_value(self, Z: np.ndarray) -> float:
        if self.gamma == "scale":
            var = Z.var()
            return 1.0 / (Z.shape[1] * var) if var > 0 else 1.0
        if self.gamma == "auto":
            return 1.0 / Z.shape[1]
        return float(self.gamma)

    # ------------------------------------------------------------ fitting
    def _fit_imputed(self, Z: np.ndarray, y_signed: np.ndarray, G: np.ndarray | None = None,
                     sq: np.ndarray | None = None) -> "ImputedSVC":
        """Fit the SVM on an imputed matrix (G = Z @ Z.T may be given; not
        used when libsvm gets the rows, see ``representation``)."""
        if sq is None:
            sq = np.einsum("ij,ij->i", Z, Z)
        self.gamma_ = self._gamma_value(Z)
        rows = self._uses_rows(Z)
        self.representation_ = _resolve_representation(self.representation, self.kernel, *Z.shape)
        if rows:
            svc = _rows_qp(self.representation, self.kernel, *Z.shape, C=self.C, tol=self.tol).fit(Z, y_signed)
        else:
            if G is None:
                G = Z @ Z.T
            K = kernel_from_gram(G, sq, sq, kernel=self.kernel, degree=self.degree,
                                 gamma=self.gamma_, coef0=self.coef0)
            svc = SVC(kernel="precomputed", C=float(self.C), tol=self.tol).fit(K, y_signed)
        self.support_ = svc.support_
        self.support_vectors_ = Z[svc.support_]
        self._sv_sq = sq[svc.support_]
        self.dual_coef_ = svc.dual_coef_
        self.intercept_ = svc.intercept_
        if self.kernel == "linear":
            self.coef_ = self.dual_coef_ @ self.support_vectors_
        return self

    def fit(self, X, y) -> "ImputedSVC":
        """Fit the imputer on ``X``, then the SVM on the imputed ``X``."""
        validate_params(self)
        self._check_representation()
        X = validate_X_fit(self, X)
        self.classes_, y_signed = validate_binary_y(self, y, X)
        self.imputer_ = self._make_imputer(X.shape[1])
        Z = self.imputer_.fit_transform(X)
        return self._fit_imputed(Z, y_signed)

    def _decision_imputed(self, Z: np.ndarray) -> np.ndarray:
        if self.kernel == "linear":
            return Z @ self.coef_[0] + self.intercept_[0]
        K = kernel_from_gram(Z @ self.support_vectors_.T, np.einsum("ij,ij->i", Z, Z),
                             self._sv_sq, kernel=self.kernel, degree=self.degree,
                             gamma=self.gamma_, coef0=self.coef0)
        return K @ self.dual_coef_[0] + self.intercept_[0]

    def decision_function(self, X) -> np.ndarray:
        """Signed distance-like score; positive means ``classes_[1]``."""
        check_is_fitted(self, "dual_coef_")
        X = validate_X_predict(self, X)
        return self._decision_imputed(self.imputer_.transform(X))

    # ------------------------------------------------------------ grid
    def grid_decision_function(self, param_list: Sequence[dict], X_train, y_train,
                               X_val) -> list[np.ndarray]:
        """Validation decision values for many parameter settings at once.

        Equivalent to ``[clone(self).set_params(**p).fit(X_train,
        y_train).decision_function(X_val) for p in param_list]`` but fits
        each distinct imputer once and computes ``Z @ Z.T`` once per
        imputer, deriving every kernel from it (not at all when every
        setting of that imputer gives libsvm the rows, see
        ``representation``).

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.RandomState(0)
        >>> X = rng.randn(40, 3); y = (X[:, 0] > 0).astype(int)
        >>> X[::3, 1] = np.nan
        >>> grid = [{"C": 1.0}, {"C": 10.0, "kernel": "rbf"}]
        >>> out = ImputedSVC().grid_decision_function(grid, X[:30], y[:30], X[30:])
        >>> [o.shape for o in out]
        [(10,), (10,)]
        """
        by_key: "OrderedDict[tuple, list[int]]" = OrderedDict()
        ests = []
        for i, p in enumerate(param_list):
            est = clone(self).set_params(**p)
            validate_params(est)
            est._check_representation()
            ests.append(est)
            by_key.setdefault(est._imputer_key(), []).append(i)
        out: list[np.ndarray | None] = [None] * len(ests)
        X_train = validate_X_fit(ests[0], X_train)
        X_val = validate_X_predict(ests[0], X_val)
        for est in ests:
            est.present_features_ = ests[0].present_features_
        classes, y_signed = validate_binary_y(self, y_train)
        knn_cache: dict = {}
        for key, idx in by_key.items():
            first = ests[idx[0]]
            if first.imputer == "knn":
                Zt, Zv = _knn_shared(first, X_train, X_val, by_key, ests, knn_cache)
            else:
                imp = first._make_imputer(X_train.shape[1])
                Zt = imp.fit_transform(X_train)
                Zv = imp.transform(np.asarray(X_val, dtype=np.float64))
            sq, sqv = np.einsum("ij,ij->i", Zt, Zt), np.einsum("ij,ij->i", Zv, Zv)
            G = Gv = None
            for i in idx:
                est = ests[i]
                est.classes_ = classes
                est.n_features_in_ = ests[0].n_features_in_
                if est._uses_rows(Zt):
                    est._fit_imputed(Zt, y_signed, sq=sq)
                    out[i] = Zv @ est.coef_[0] + est.intercept_[0]
                    continue
                if G is None:
                    G, Gv = Zt @ Zt.T, Zv @ Zt.T
                est._fit_imputed(Zt, y_signed, G=G, sq=sq)
                Kv = kernel_from_gram(Gv[:, est.support_], sqv, sq[est.support_],
                                      kernel=est.kernel, degree=est.degree,
                                      gamma=est.gamma_, coef0=est.coef0)
                out[i] = Kv @ est.dual_coef_[0] + est.intercept_[0]
        return out  # type: ignore[return-value]

def _knn_shared(first: ImputedSVC, X_train, X_val, by_key, ests, cache):
    """kNN imputations for every K of the grid from one distance computation."""
    if "ks" not in cache:
        ks = sorted({ests[idx[0]].n_neighbors for key, idx in by_key.items()
                     if ests[idx[0]].imputer == "knn"})
        imp = make_imputer("knn", n_neighbors=ks[0]).fit(X_train)
        Xv = validate_X_predict(imp, X_val)
        cache["ks"] = ks
        cache["train"] = dict(zip(ks, imp._impute(X_train, ks)))
        cache["val"] = dict(zip(ks, imp._impute(Xv, ks)))
    k = first.n_neighbors
    return cache["train"].pop(k), cache["val"].pop(k)


class AbsentColumnsHGB(HistGradientBoostingClassifier):
    """HistGradientBoostingClassifier that leaves out the columns absent in
    every training row, as every classifier of :mod:`geomargin.models` does
    (:mod:`geomargin.models._validation`).

    Such a column carries no information, and scikit-learn's binning fails on
    it ("window shape cannot be larger than input array shape").
    ``present_features_`` marks the columns used; prediction reads only
    those. A row's decision is the sum of its trees' leaves, the same
    whatever other rows are scored with it (``row_independent_decision``,
    :func:`geomargin.rank.scoring.row_independent`), so rows repeated in ``X`` (many
    candidate genes share all their features) are scored once.
    """

    row_independent_decision = True

    def fit(self, X, y, sample_weight=None):
        # dense 2-D float64, NaN and inf passed on to the estimator as it takes them
        X = check_array(X, dtype=np.float64, ensure_all_finite=False)
        self.present_features_ = ~np.isnan(X).all(axis=0)
        if not self.present_features_.any():
            self.present_features_[:] = True   # nothing to keep: let the estimator say so
        return super().fit(np.ascontiguousarray(X[:, self.present_features_]), y,
                           sample_weight=sample_weight)

    def _present(self, X):
        check_is_fitted(self, "present_features_")
        X = check_array(X, dtype=np.float64, ensure_all_finite=False)
        if X.shape[1] != self.present_features_.size:
            raise ValueError(f"X has {X.shape[-1] if X.ndim else 0} features, but {type(self).__name__} "
                             f"is expecting {self.present_features_.size} features as input.")
        return np.ascontiguousarray(X[:, self.present_features_])

    def _raw_predict(self, X, n_threads=None):
        if getattr(self, "_in_fit", False):   # binned training data, columns already chosen
            return super()._raw_predict(X, n_threads=n_threads)
        X = self._present(X)
        first, inverse = _distinct_byte_rows(X)
        if len(first) == len(X):
            return super()._raw_predict(X, n_threads=n_threads)
        return super()._raw_predict(X[first], n_threads=n_threads)[inverse]

    def _staged_raw_predict(self, X):
        return super()._staged_raw_predict(self._present(X))


def make_hgb(*, learning_rate: float = 0.1, max_leaf_nodes: int = 31, max_iter: int = 100,
             random_state=None) -> HistGradientBoostingClassifier:
    """Gradient boosting on the raw NaN matrix (no imputation):
    :class:`AbsentColumnsHGB`.

    Early stopping is off so that the fit is deterministic and uses every
    training instance; the number of trees is ``max_iter``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [np.nan], [1.0], [2.0]] * 30)
    >>> make_hgb(random_state=0).fit(X, [0, 0, 1, 1] * 30).predict([[np.nan], [2.0]])
    array([0, 1])
    """
    return AbsentColumnsHGB(learning_rate=learning_rate, max_leaf_nodes=max_leaf_nodes, max_iter=max_iter,
                            early_stopping=False, random_state=random_state)


class LogRegIndicator(AbsentFeatureClassifierMixin, BaseEstimator):
    """Logistic regression on mean-imputed data plus missingness indicators.

    ``Pipeline(SimpleImputer(mean, add_indicator=True), StandardScaler,
    LogisticRegression(C))``: a common practitioner's comparator.

    Parameters
    ----------
    C : float, default=1.0
        Inverse L2 regularisation strength.
    max_iter : int, default=1000
        lbfgs iterations.

    Attributes
    ----------
    pipeline_ : sklearn.pipeline.Pipeline
    classes_ : ndarray of shape (2,)
    n_iter_ : ndarray of shape (1,)
        lbfgs iterations used.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, np.nan], [2.0, 1.0], [-1.0, np.nan], [-2.0, -1.0]])
    >>> LogRegIndicator().fit(X, [1, 1, 0, 0]).predict(np.array([[3.0, np.nan]]))
    array([1])
    """

    _parameter_constraints: dict = {"C": positive_float(), "max_iter": int_at_least(1)}

    def __init__(self, C: float = 1.0, *, max_iter: int = 1000):
        self.C = C
        self.max_iter = max_iter

    def fit(self, X, y) -> "LogRegIndicator":
        """Fit imputer, scaler and logistic regression."""
        validate_params(self)
        X = validate_X_fit(self, X)
        self.classes_, y_signed = validate_binary_y(self, y, X)
        self.pipeline_ = make_pipeline(
            SimpleImputer(strategy="mean", add_indicator=True, keep_empty_features=True),
            StandardScaler(),
            LogisticRegression(C=float(self.C), max_iter=self.max_iter),
        ).fit(X, y_signed)
        self.n_iter_ = self.pipeline_[-1].n_iter_
        return self

    def decision_function(self, X) -> np.ndarray:
        """Log-odds of ``classes_[1]``."""
        check_is_fitted(self, "pipeline_")
        X = validate_X_predict(self, X)
        return self.pipeline_.decision_function(X)

    def predict_proba(self, X) -> np.ndarray:
        """Probabilities of ``classes_``."""
        check_is_fitted(self, "pipeline_")
        X = validate_X_predict(self, X)
        return self.pipeline_.predict_proba(X)
