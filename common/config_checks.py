"""Checks of a workflow config that its JSON schema cannot make, run before
any job starts: every message names the key, the value and what is expected.

* An integer key given as a float (``top_n: 3.0``): JSON Schema counts 3.0
  as an integer, but the code that reads the key does not.
* A hyperparameter grid that names a parameter its method does not have.
* A key whose name changed (:data:`RENAMED_KEYS`): the message names the new
  key, where the schema would only say that the old one is not allowed.

Example
-------
>>> schema = {"type": "object", "properties": {"a": {"type": "object",
...           "properties": {"n": {"type": "integer"}}}}}
>>> integral_float_keys({"a": {"n": 3.0}}, schema)
[('a.n', 3.0)]
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping

from geomargin.common.exceptions import ConfigValueError

__all__ = ["integral_float_keys", "check_integers", "check_param_grids", "RENAMED_KEYS",
           "check_renamed_keys"]

#: Config keys whose name changed, dotted: old key -> new key (same values).
RENAMED_KEYS = {"metabolic.representation": "metabolic.source_features"}


def _is_integer_type(node: Mapping) -> bool:
    t = node.get("type")
    return t == "integer" or (isinstance(t, list) and "integer" in t and "number" not in t)


def integral_float_keys(value, schema: Mapping, key: str = "") -> list[tuple[str, float]]:
    """Every ``(dotted key, value)`` of ``value`` that ``schema`` types as an
    integer but that is a float."""
    out: list[tuple[str, float]] = []
    if not isinstance(schema, Mapping):
        return out
    if _is_integer_type(schema) and isinstance(value, float):
        return [(key, value)]
    if isinstance(value, Mapping):
        props = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        for k, v in value.items():
            sub = props.get(k, extra if isinstance(extra, Mapping) else None)
            if sub is not None:
                out += integral_float_keys(v, sub, f"{key}.{k}" if key else str(k))
    elif isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        for i, v in enumerate(value):
            out += integral_float_keys(v, schema["items"], f"{key}[{i}]")
    return out


def check_integers(config: Mapping, schema: Mapping) -> None:
    """Raise :class:`ConfigValueError` naming the first integer key given as a float."""
    bad = integral_float_keys(config, schema)
    if bad:
        key, v = bad[0]
        hint = f" (write {int(v)})" if v == int(v) else ""
        raise ConfigValueError(f"config: {key} is {v!r}; expected an integer{hint}")


def check_renamed_keys(config: Mapping, renamed: Mapping[str, str] = RENAMED_KEYS) -> None:
    """Raise :class:`ConfigValueError` naming the first key of ``config``
    that :data:`RENAMED_KEYS` lists, its value and its new name.

    >>> check_renamed_keys({"metabolic": {"representation": "summary"}})
    Traceback (most recent call last):
    ...
    geomargin.common.exceptions.ConfigValueError: config: metabolic.representation is renamed; write metabolic.source_features: 'summary' (same values)
    """
    for old, new in renamed.items():
        *parents, leaf = old.split(".")
        node = config
        for part in parents:
            node = node.get(part) if isinstance(node, Mapping) else None
        if isinstance(node, Mapping) and leaf in node:
            raise ConfigValueError(f"config: {old} is renamed; write {new}: {node[leaf]!r} (same values)")


def check_param_grids(grids: Mapping, section: str) -> None:
    """Raise :class:`ConfigValueError` for a grid parameter that its method
    (``models.registry``) does not have, naming the closest ones."""
    from geomargin.models.registry import get_method

    for method, grid in (grids or {}).items():
        try:
            spec = get_method(method)
        except KeyError as exc:
            raise ConfigValueError(f"config: {section}.{method}: {exc.args[0]}") from None
        valid = sorted(spec.make().get_params(deep=True))
        for point in [grid] if isinstance(grid, Mapping) else grid:
            for name in point:
                if name not in valid:
                    close = difflib.get_close_matches(name, valid, n=3, cutoff=0.5)
                    raise ConfigValueError(
                        f"config: {section}.{method} names parameter {name!r}, which {method} does not "
                        f"have; closest: {close or 'none'} (all: {', '.join(valid)})")
            for name, values in point.items():
                for value in values if isinstance(values, (list, tuple)) else [values]:
                    problem = grid_value_problem(spec.make(), name, value)
                    if problem:
                        raise ConfigValueError(f"config: {section}.{method} gives {name} = {value!r}: {problem}")


def grid_value_problem(estimator, name: str, value) -> str:
    """Why ``value`` cannot be parameter ``name`` (deep names allowed) of
    ``estimator``, by the ``_parameter_constraints`` of the estimator and of
    every estimator inside it (:func:`geomargin.common.checks.validate_params`, or
    scikit-learn's own for its estimators); "" if it can. ``estimator`` is
    changed.

    Examples
    --------
    >>> from geomargin.models.registry import get_method
    >>> grid_value_problem(get_method("geometric").make(), "C", -1.0)
    "The 'C' parameter of GeometricMarginSVC must be a float > 0. Got -1.0 instead."
    >>> grid_value_problem(get_method("geometric").make(), "C", 0.5)
    ''
    """
    from geomargin.common.checks import validate_params

    try:
        estimator.set_params(**{name: value})
        parts = [estimator, *(v for v in estimator.get_params(deep=True).values() if hasattr(v, "get_params"))]
        for part in parts:
            constraints = getattr(type(part), "_parameter_constraints", None)
            if not constraints:
                continue
            if all(isinstance(c, tuple) and len(c) == 2 and callable(c[0]) for c in constraints.values()):
                validate_params(part)
            elif hasattr(part, "_validate_params"):
                part._validate_params()   # scikit-learn's estimators
    except (ValueError, TypeError) as exc:
        return str(exc)
    return ""
