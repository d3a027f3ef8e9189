"""Input and parameter validation shared by every estimator in :mod:`geomargin.models`.

Conventions
-----------
* ``X`` is float64 with ``NaN`` where a feature is *structurally absent*.
  ``inf`` is never allowed.
* ``groups`` (a constructor parameter of the estimators that use it) is an
  integer array of length ``n_features`` naming blocks of features that are
  present or absent together. ``None`` means every feature is its own block.
* Binary labels of any two values are accepted; internally they become
  ``-1`` (``classes_[0]``) and ``+1`` (``classes_[1]``).
* A column absent in every training row carries no information. Every
  classifier (:class:`AbsentFeatureClassifierMixin`) and the block kernel map
  leave it out in the same way: :func:`validate_X_fit` records
  ``present_features_`` and returns the other columns,
  :func:`validate_X_predict` keeps the same columns (whatever the rows to
  predict hold there), and :func:`validate_feature_groups` takes the blocks of
  the full width. The fit is then the fit without that column. Learned
  attributes with one entry per feature (``coef_``, ``feature_scale_``,
  the columns of ``support_vectors_``) have one per *input* column, as in
  scikit-learn: :func:`full_width` gives a left-out column 0 (NaN in
  ``support_vectors_``, where NaN means absent), and prediction reads the
  kept entries back with :func:`kept_columns`. ``n_features_in_`` counts
  every column.

Constructor parameters are declared on each estimator class, in
``_parameter_constraints`` (:mod:`geomargin.common.checks`), and checked in ``fit`` by
:func:`geomargin.common.checks.validate_params`. Error messages follow scikit-learn's
style, e.g.
``The 'C' parameter of GeometricMarginSVC must be a float > 0. Got -1 instead.``
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import (check_array, check_consistent_length, column_or_1d,
                                      validate_data)

from geomargin.common.checks import Constraint, check_param, estimator_name, positive_float

__all__ = [
    "AbsentFeatureClassifierMixin",
    "check_positive_float",
    "check_choice",
    "cvxpy_solver",
    "validate_X_fit",
    "validate_X_predict",
    "validate_binary_y",
    "validate_feature_groups",
    "keep_present_features",
    "full_width",
    "kept_columns",
    "valid_mask",
]


def check_positive_float(estimator: Any, name: str, value: Any) -> float:
    """``value`` must be a finite real number > 0."""
    ok, expected = positive_float()
    check_param(estimator, name, value, ok, expected)
    return float(value)


def check_choice(estimator: Any, name: str, value: Any, choices) -> Any:
    """``value`` must be one of ``choices``."""
    choices = tuple(choices)
    check_param(estimator, name, value, lambda v: v in choices,
                "one of " + ", ".join(repr(c) for c in choices))
    return value


def cvxpy_solver() -> Constraint:
    """Constraint (for ``_parameter_constraints``): the name of an installed
    cvxpy solver, any case. cvxpy is imported only when a value is checked."""
    def ok(v):
        import cvxpy as cp
        return isinstance(v, str) and v.upper() in cp.installed_solvers()

    def text():
        import cvxpy as cp
        return "an installed cvxpy solver (" + ", ".join(cp.installed_solvers()) + ")"
    return ok, text


def validate_X_fit(estimator: Any, X, *, allow_all_absent_rows: bool = True) -> np.ndarray:
    """Validate a training matrix with NaN for absent features.

    Sets ``n_features_in_`` (and ``feature_names_in_``) on ``estimator``.
    Rejects ``inf``, non-numeric values and a matrix in which every value is
    absent. For an estimator that leaves out the columns absent in every
    row (``_drops_absent_columns``), sets ``present_features_`` and returns
    the other columns.
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
    if getattr(estimator, "_drops_absent_columns", False):
        estimator.present_features_ = mask.any(axis=0)
        X = keep_present_features(estimator, X)
    return X


def keep_present_features(estimator: Any, X: np.ndarray) -> np.ndarray:
    """The columns of ``X`` present in ``estimator``'s training rows
    (``present_features_``); ``X`` itself when there is no such record or
    every column was present."""
    present = getattr(estimator, "present_features_", None)
    if present is None or present.all():
        return X
    # C order, as X came in: BLAS rounds differently on another layout
    return np.ascontiguousarray(X[:, present])


def full_width(estimator: Any, values: np.ndarray, fill: float = 0.0) -> np.ndarray:
    """``values``, whose last axis has one entry per column kept by
    ``estimator`` (``present_features_``), widened to one entry per input
    column, ``fill`` for the columns left out; ``values`` itself when none
    was left out.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> est = SimpleNamespace(present_features_=np.array([True, False, True]))
    >>> full_width(est, np.array([[1.0, 2.0]]))
    array([[1., 0., 2.]])
    >>> kept_columns(est, full_width(est, np.array([[1.0, 2.0]])))
    array([[1., 2.]])
    """
    present = getattr(estimator, "present_features_", None)
    values = np.asarray(values)
    if present is None or present.all():
        return values
    out = np.full((*values.shape[:-1], present.size), fill, dtype=values.dtype)
    out[..., present] = values
    return out


def kept_columns(estimator: Any, values: np.ndarray) -> np.ndarray:
    """The entries of a full-width attribute (:func:`full_width`) for the
    columns ``estimator`` kept, C-contiguous."""
    present = getattr(estimator, "present_features_", None)
    if present is None or present.all():
        return values
    return np.ascontiguousarray(values[..., present])


def validate_X_predict(estimator: Any, X) -> np.ndarray:
    """Validate a matrix to predict on (NaN allowed, ``inf`` rejected); keep
    the columns the estimator was trained on (:func:`keep_present_features`)."""
    X = validate_data(estimator, X, reset=False, dtype=np.float64,
                      ensure_all_finite="allow-nan")
    return keep_present_features(estimator, X)


def validate_binary_y(estimator: Any, y, X=None) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(classes_, y_signed)`` with ``y_signed`` in {-1, +1}.

    The one label check of every estimator in :mod:`geomargin.models`, with
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
    ``groups`` name the blocks of the full width: when ``estimator`` left out
    columns absent in every training row (``present_features_``, with
    ``n_features`` columns kept), the groups of the kept columns are returned.
    """
    present = getattr(estimator, "present_features_", None)
    full = present.size if present is not None and present.sum() == n_features else n_features
    if groups is None:
        return np.arange(n_features, dtype=np.intp)
    arr = np.asarray(groups)
    if arr.ndim != 1 or arr.shape[0] != full:
        raise ValueError(
            f"The 'groups' parameter of {estimator_name(estimator)} must be an integer array of "
            f"length n_features={full}. Got shape {arr.shape} instead."
        )
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        if np.issubdtype(arr.dtype, np.floating) and np.all(np.isfinite(arr)) \
                and np.all(arr == np.round(arr)):
            arr = arr.astype(np.int64)
        else:
            raise ValueError(
                f"The 'groups' parameter of {estimator_name(estimator)} must be an integer array of "
                f"length n_features={full}. Got dtype {arr.dtype} instead."
            )
    if full != n_features:
        arr = arr[present]
    _, codes = np.unique(arr, return_inverse=True)
    return codes.astype(np.intp)


def valid_mask(X: np.ndarray) -> np.ndarray:
    """Boolean mask, True where a feature is present (not NaN)."""
    return ~np.isnan(X)


def as_float_array(X) -> np.ndarray:
    """``check_array`` with NaN allowed; for helpers that are not estimators."""
    return check_array(X, dtype=np.float64, ensure_all_finite="allow-nan")


class AbsentFeatureClassifierMixin(ClassifierMixin):
    """Shared by every binary classifier of :mod:`geomargin.models`: NaN input is
    allowed (it marks absent features), one decision value per row, and
    ``predict`` is ``classes_[1]`` where it is > 0.

    Put it first in the bases: ``class Est(AbsentFeatureClassifierMixin,
    BaseEstimator)``. Columns absent in every training row are left out
    (``present_features_``; module docstring).
    """

    _drops_absent_columns = True

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
