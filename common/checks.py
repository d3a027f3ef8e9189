"""Parameter checks with scikit-learn-style messages, shared by the
estimators of :mod:`models` and the featurizers of :mod:`featurize`."""

from __future__ import annotations

import numbers
from typing import Any, Callable

__all__ = ["estimator_name", "check_param", "check_positive_int"]


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
