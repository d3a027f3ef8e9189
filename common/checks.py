"""Parameter checks with scikit-learn-style messages, shared by the
estimators of :mod:`geomargin.models` and the featurizers of :mod:`geomargin.featurize`.

Every class with constructor parameters declares them once, as scikit-learn
does (``sklearn/utils/_param_validation.py``), in a class attribute
``_parameter_constraints``: ``{parameter: (test, expected)}``, where ``test``
sees the raw value and ``expected`` describes a valid value (a string, or a
callable returning one when the description needs an import). ``fit`` (or
``__init__`` for classes that work at construction) calls
:func:`validate_params`. Limits that depend on the data stay in ``fit``.

Examples
--------
>>> class Model:
...     _parameter_constraints = {"C": positive_float(), "kernel": one_of("linear", "rbf")}
...     def __init__(self, C=1.0, kernel="linear"):
...         self.C, self.kernel = C, kernel
>>> validate_params(Model(C=2.0))
>>> validate_params(Model(kernel="poly"))
Traceback (most recent call last):
...
ValueError: The 'kernel' parameter of Model must be one of 'linear', 'rbf'. Got 'poly' instead.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Callable

import numpy as np

__all__ = ["estimator_name", "check_param", "check_positive_int", "validate_params",
           "positive_float", "nonnegative_float", "finite_float", "int_at_least", "one_of",
           "positive_float_or", "half_open_interval", "open_unit_interval", "none_or_positive_float",
           "none_or_positive_int", "boolean"]


def estimator_name(estimator: Any) -> str:
    """The name used in messages: ``estimator`` itself if a string, else its class name."""
    return estimator if isinstance(estimator, str) else type(estimator).__name__


def check_param(estimator: Any, name: str, value: Any,
                ok: Callable[[Any], bool], expected: str) -> Any:
    """Raise ``ValueError`` in scikit-learn's style unless ``ok(value)``.

    Examples
    --------
    >>> check_param("GeometricMarginSVC", "C", 1.0, lambda v: v > 0, "a float > 0")
    1.0
    >>> check_param("GeometricMarginSVC", "C", -1, lambda v: v > 0, "a float > 0")
    Traceback (most recent call last):
    ...
    ValueError: The 'C' parameter of GeometricMarginSVC must be a float > 0. Got -1 instead.
    """
    try:
        good = bool(ok(value))
    except Exception:  # comparisons with the wrong type, etc.
        good = False
    if not good:
        raise ValueError(
            f"The {name!r} parameter of {estimator_name(estimator)} must be {expected}. "
            f"Got {value!r} instead."
        )
    return value


def check_positive_int(estimator: Any, name: str, value: Any, minimum: int = 1) -> int:
    """``value`` must be an integer >= ``minimum``."""
    check_param(
        estimator, name, value,
        lambda v: isinstance(v, numbers.Integral) and not isinstance(v, bool) and v >= minimum,
        f"an int >= {minimum}",
    )
    return int(value)


# --------------------------------------------------------------------------
# Constraints: each returns ``(test, expected)`` for ``_parameter_constraints``.

Constraint = tuple[Callable[[Any], bool], "str | Callable[[], str]"]


def _is_real(v: Any) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(v)


def _is_int(v: Any) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def positive_float() -> Constraint:
    """A finite real number > 0."""
    return (lambda v: _is_real(v) and v > 0, "a float > 0")


def nonnegative_float() -> Constraint:
    """A finite real number >= 0."""
    return (lambda v: _is_real(v) and v >= 0, "a float >= 0")


def finite_float() -> Constraint:
    """Any finite real number."""
    return (_is_real, "a finite float")


def int_at_least(minimum: int = 1) -> Constraint:
    """An integer (not a bool) >= ``minimum``."""
    return (lambda v: _is_int(v) and v >= minimum, f"an int >= {minimum}")


def one_of(*choices: str) -> Constraint:
    """One of the strings ``choices``."""
    return (lambda v: isinstance(v, str) and v in choices,
            "one of " + ", ".join(repr(c) for c in choices))


def positive_float_or(*choices: str) -> Constraint:
    """One of the strings ``choices``, or a finite real number > 0."""
    return (lambda v: (isinstance(v, str) and v in choices) or (_is_real(v) and v > 0),
            ", ".join(repr(c) for c in choices) + " or a float > 0")


def half_open_interval(low: float, high: float) -> Constraint:
    """A real number in ``[low, high)``."""
    return (lambda v: _is_real(v) and low <= v < high, f"a float in [{low:g}, {high:g})")


def open_unit_interval() -> Constraint:
    """A real number in (0, 1)."""
    return (lambda v: _is_real(v) and 0 < v < 1, "a float in (0, 1)")


def none_or_positive_float() -> Constraint:
    """``None`` or a finite real number > 0."""
    return (lambda v: v is None or (_is_real(v) and v > 0), "None or a float > 0")


def none_or_positive_int() -> Constraint:
    """``None`` or an integer >= 1."""
    return (lambda v: v is None or (_is_int(v) and v >= 1), "None or an int >= 1")


def boolean() -> Constraint:
    """``True`` or ``False`` (numpy booleans too)."""
    return (lambda v: isinstance(v, (bool, np.bool_)), "a bool")


def validate_params(obj: Any) -> None:
    """Check every parameter in ``type(obj)._parameter_constraints`` against
    its constraint; raise ``ValueError`` in scikit-learn's style on the first
    that fails. Parameters not named there are not checked here."""
    for param, (ok, expected) in type(obj)._parameter_constraints.items():
        check_param(obj, param, getattr(obj, param), ok, expected() if callable(expected) else expected)
