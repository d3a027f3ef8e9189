"""Input and parameter validation shared by every estimator in :mod:`models`.

Conventions
-----------
* ``X`` is float64 with ``NaN`` where a feature is *structurally absent*.
  ``inf`` is never allowed.
* ``groups`` (a constructor parameter of the estimators that use it) is an
  integer array of length ``n_features`` naming blocks of features that are
  present or absent together. ``None`` means every feature is its own block.
* Binary labels of any two values are accepted; internally they become
  ``-1`` (``classes_[0]``) and ``+1`` (``classes_[1]``).

Error messages follow scikit-learn's style, e.g.
``The 'C' parameter of GeometricMarginSVC must be a float > 0. Got -1 instead.``
"""

from __future__ import annotations

import numbers
from typing import Any, Callable

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import (check_array, check_consistent_length, column_or_1d,
                                      validate_data)

from common.checks import check_param, check_positive_int, estimator_name

__all__ = [
    "AbsentFeatureClassifierMixin",
    "check_param",
    "check_positive_float",
    "check_positive_int",
    "check_choice",
    "validate_X_fit",
    "validate_X_predict",
    "validate_binary_y",
    "validate_params",
    "PARAMETER_CONSTRAINTS",
    "KERNELS",
    "validate_feature_groups",
    "valid_mask",
]


def _is_real(v: Any) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool) and np.isfinite(v)


def check_positive_float(estimator: Any, name: str, value: Any) -> float:
    """``value`` must be a finite real number > 0."""
    check_param(estimator, name, value, lambda v: _is_real(v) and v > 0, "a float > 0")
    return float(value)


def check_choice(estimator: Any, name: str, value: Any, choices) -> Any:
    """``value`` must be one of ``choices``."""
    choices = tuple(choices)
    check_param(estimator, name, value, lambda v: v in choices,
                "one of " + ", ".join(repr(c) for c in choices))
    return value


# --------------------------------------------------------------------------
# Declarative parameter constraints: one table for every estimator of models/.
# An entry maps a constructor parameter to (test, description); the test sees
# the raw value. Data-dependent limits (rank < n_features, ...) stay with the
# estimators.

#: Kernels of the SVM-based estimators.
KERNELS = ("linear", "poly", "rbf")
#: Covariance structures of the Gaussian (mixture) models.
COVARIANCES = ("full", "diag", "lowrank")


def _positive_float():
    return (lambda v: _is_real(v) and v > 0, "a float > 0")


def _nonnegative_float():
    return (lambda v: _is_real(v) and v >= 0, "a float >= 0")


def _finite_float():
    return (_is_real, "a finite float")


def _int_at_least(minimum: int = 1):
    return (lambda v: isinstance(v, numbers.Integral) and not isinstance(v, bool)
            and v >= minimum, f"an int >= {minimum}")


def _one_of(*choices):
    return (lambda v: isinstance(v, str) and v in choices,
            "one of " + ", ".join(repr(c) for c in choices))


def _positive_float_or(*choices):
    return (lambda v: (isinstance(v, str) and v in choices) or (_is_real(v) and v > 0),
            ", ".join(repr(c) for c in choices) + " or a float > 0")


def _open_unit_interval():
    return (lambda v: _is_real(v) and 0 < v < 1, "a float in (0, 1)")


def _none_or_positive_float():
    return (lambda v: v is None or (_is_real(v) and v > 0), "None or a float > 0")


def _none_or_positive_int():
    return (lambda v: v is None or (isinstance(v, numbers.Integral) and not isinstance(v, bool)
                                    and v >= 1), "None or an int >= 1")


def _imputer():
    from models.impute import IMPUTERS  # models.impute imports this module
    return _one_of(*IMPUTERS)


def _cvxpy_solver():
    def ok(v):
        import cvxpy as cp
        return isinstance(v, str) and v.upper() in cp.installed_solvers()

    def text():
        import cvxpy as cp
        return "an installed cvxpy solver (" + ", ".join(cp.installed_solvers()) + ")"
    return ok, text


_SVM = {"C": _positive_float, "kernel": lambda: _one_of(*KERNELS), "degree": _int_at_least,
        "gamma": lambda: _positive_float_or("scale", "auto"), "coef0": _finite_float,
        "tol": _positive_float, "cache_size": _positive_float}

#: ``{estimator class name: {parameter: factory of (test, description)}}``.
PARAMETER_CONSTRAINTS: dict[str, dict[str, Callable]] = {
    "GeometricMarginSVC": {**_SVM, "n_iter": _int_at_least, "s_tol": _positive_float,
                           "solver": lambda: _one_of("libsvm", "liblinear"),
                           "first_tol": _none_or_positive_float},
    "AverageNormSVC": dict(_SVM),
    "GeometricMarginSOCP": {"tol": _open_unit_interval, "solver": _cvxpy_solver,
                            "max_features": _int_at_least},
    "ImputedSVC": {**{k: v for k, v in _SVM.items() if k != "cache_size"},
                   "imputer": _imputer, "n_neighbors": _int_at_least,
                   "n_components": _int_at_least},
    "LogRegIndicator": {"C": _positive_float, "max_iter": _int_at_least},
    "RobustSOCPClassifier": {"C": _positive_float, "eta": _open_unit_interval,
                             "bound": lambda: _one_of("normal", "chebyshev"),
                             "em": lambda: _one_of("per_class", "joint"),
                             "covariance": lambda: _one_of(*COVARIANCES),
                             "rank": _int_at_least, "reg_covar": _positive_float,
                             "solver": _cvxpy_solver},
    "InfiniteImputationSVC": {"C": _positive_float,
                              "gamma": lambda: _positive_float_or("scale"),
                              "imputation_reg": _nonnegative_float,
                              "prior": lambda: _one_of("mean", "class_mean"),
                              "max_iter": _int_at_least, "n_grad_steps": _int_at_least,
                              "n_weight_steps": _int_at_least, "tol": _positive_float,
                              "svm_tol": _positive_float},
    "IntegratedLogisticRegression": {"C": _positive_float, "n_components": _int_at_least,
                                     "covariance": lambda: _one_of(*COVARIANCES),
                                     "em_method": lambda: _one_of("em", "vb"),
                                     "rank": _int_at_least, "reg_covar": _positive_float,
                                     "graph_reg": _nonnegative_float,
                                     "graph_bandwidth": lambda: _positive_float_or("median"),
                                     "max_iter": _int_at_least, "tol": _positive_float},
    "GaussianMixtureEM": {"n_components": _int_at_least,
                          "covariance": lambda: _one_of(*COVARIANCES),
                          "method": lambda: _one_of("em", "vb"), "rank": _int_at_least,
                          "reg_covar": _positive_float, "alpha0": _positive_float,
                          "beta0": _positive_float, "max_iter": _int_at_least,
                          "tol": _positive_float},
    "MaskedKNNImputer": {"n_neighbors": _int_at_least},
    "EMImputer": {"n_components": _int_at_least, "n_em_iter": _int_at_least,
                  "tol": _positive_float, "max_iter": _int_at_least,
                  "reg_covar": _positive_float},
    "BlockPCA": {"n_components": _int_at_least},
    "GeometricMarginRankSVC": {"C": _positive_float, "n_iter": _int_at_least,
                               "max_pairs_per_query": _none_or_positive_int,
                               "tol": _positive_float, "max_iter": _int_at_least},
}


def validate_params(estimator: Any) -> None:
    """Check every constructor parameter of ``estimator`` against its row of
    :data:`PARAMETER_CONSTRAINTS` (scikit-learn's message style).

    Examples
    --------
    >>> from models.infinite_imputation import InfiniteImputationSVC
    >>> validate_params(InfiniteImputationSVC(gamma=True))
    Traceback (most recent call last):
    ...
    ValueError: The 'gamma' parameter of InfiniteImputationSVC must be 'scale' or a float > 0. Got True instead.
    """
    name = estimator_name(estimator)
    for param, factory in PARAMETER_CONSTRAINTS[name].items():
        ok, expected = factory()
        check_param(estimator, param, getattr(estimator, param), ok,
                    expected() if callable(expected) else expected)


def validate_X_fit(estimator: Any, X, *, allow_all_absent_rows: bool = True) -> np.ndarray:
    """Validate a training matrix with NaN for absent features.

    Sets ``n_features_in_`` (and ``feature_names_in_``) on ``estimator``.
    Rejects ``inf``, non-numeric values and a matrix in which every value is
    absent.
    """
    X = validate_data(estimator, X, reset=True, dtype=np.float64,
                      ensure_all_finite="allow-nan", ensure_min_samples=2)
    mask = ~np.isnan(X)
    if not mask.any():
        raise ValueError(
            f"{estimator_name(estimator)} got a training set in which every value is absent "
            f"(all NaN, shape {X.shape}); at least one feature of one instance must be present."
        )
    if not allow_all_absent_rows and not mask.any(axis=1).all():
        bad = np.flatnonzero(~mask.any(axis=1))[:5].tolist()
        raise ValueError(
            f"{estimator_name(estimator)} got training instances with no present feature "
            f"(rows {bad}...); remove them or use an estimator that allows them."
        )
    return X


def validate_X_predict(estimator: Any, X) -> np.ndarray:
    """Validate a matrix to predict on (NaN allowed, ``inf`` rejected)."""
    return validate_data(estimator, X, reset=False, dtype=np.float64,
                         ensure_all_finite="allow-nan")


def validate_binary_y(estimator: Any, y, X=None) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(classes_, y_signed)`` with ``y_signed`` in {-1, +1}.

    The one label check of every estimator in :mod:`models`, with
    scikit-learn's conventions: ``y=None`` is an error, a column vector is
    ravelled with a ``DataConversionWarning``, a continuous target raises
    "Unknown label type", and anything but exactly two classes raises a
    ``ValueError`` naming the estimator and the classes found. With ``X``
    the lengths must agree.

    Examples
    --------
    >>> validate_binary_y("Est", ["b", "a", "b"])
    (array(['a', 'b'], dtype='<U1'), array([ 1., -1.,  1.]))
    >>> validate_binary_y("Est", [0, 1, 2])
    Traceback (most recent call last):
    ...
    ValueError: Only binary classification is supported: Est is a binary classifier and y must have exactly two classes. Got 3 classes [0, 1, 2] (target type 'multiclass') instead.
    """
    name = estimator_name(estimator)
    if y is None:
        raise ValueError(f"{name} requires y to be passed, but the target y is None.")
    y = column_or_1d(y, warn=True)
    if X is not None:
        check_consistent_length(X, y)
    kind = type_of_target(y, input_name="y")
    if kind not in ("binary", "multiclass"):
        raise ValueError(
            f"Unknown label type: {kind!r}. {name} is a binary classifier: y must have "
            f"exactly two classes (target type 'binary'). Got target type {kind!r} instead.")
    classes = np.unique(y)
    if classes.size != 2:
        what = (f"one class {classes.tolist()}" if classes.size == 1 else
                f"{classes.size} classes {classes.tolist()[:10]} (target type {kind!r})")
        raise ValueError(
            f"Only binary classification is supported: {name} is a binary classifier and y "
            f"must have exactly two classes. Got {what} instead.")
    y_signed = np.where(y == classes[1], 1.0, -1.0)
    return classes, y_signed


def validate_feature_groups(estimator: Any, groups, n_features: int) -> np.ndarray:
    """Return ``groups`` as an int array of length ``n_features``.

    ``None`` gives one group per feature. Group labels are re-coded to
    ``0..n_groups-1`` in order of first appearance-independent sorted order.
    """
    if groups is None:
        return np.arange(n_features, dtype=np.intp)
    arr = np.asarray(groups)
    if arr.ndim != 1 or arr.shape[0] != n_features:
        raise ValueError(
            f"The 'groups' parameter of {estimator_name(estimator)} must be an integer array of "
            f"length n_features={n_features}. Got shape {arr.shape} instead."
        )
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        if np.issubdtype(arr.dtype, np.floating) and np.all(np.isfinite(arr)) \
                and np.all(arr == np.round(arr)):
            arr = arr.astype(np.int64)
        else:
            raise ValueError(
                f"The 'groups' parameter of {estimator_name(estimator)} must be an integer array of "
                f"length n_features={n_features}. Got dtype {arr.dtype} instead."
            )
    _, codes = np.unique(arr, return_inverse=True)
    return codes.astype(np.intp)


def valid_mask(X: np.ndarray) -> np.ndarray:
    """Boolean mask, True where a feature is present (not NaN)."""
    return ~np.isnan(X)


def as_float_array(X) -> np.ndarray:
    """``check_array`` with NaN allowed; for helpers that are not estimators."""
    return check_array(X, dtype=np.float64, ensure_all_finite="allow-nan")


class AbsentFeatureClassifierMixin(ClassifierMixin):
    """Shared by every binary classifier of :mod:`models`: NaN input is
    allowed (it marks absent features), one decision value per row, and
    ``predict`` is ``classes_[1]`` where it is > 0.

    Put it first in the bases: ``class Est(AbsentFeatureClassifierMixin,
    BaseEstimator)``.
    """

    def predict(self, X) -> np.ndarray:
        """Class labels: ``classes_[1]`` where ``decision_function`` > 0.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            NaN marks an absent feature.

        Returns
        -------
        y : ndarray of shape (n_samples,)
        """
        scores = np.asarray(self.decision_function(X))  # raises NotFittedError first
        return self.classes_[(scores > 0).astype(int)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.classifier_tags.multi_class = False
        return tags
