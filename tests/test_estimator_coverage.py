"""Every scikit-learn estimator of the package meets scikit-learn's
check_estimator in some test (or its expected-failure list there)."""

import ast
import importlib
import inspect
import pkgutil
import tomllib
from pathlib import Path

from sklearn.base import BaseEstimator

TESTS = Path(__file__).parent

#: The functions that run scikit-learn's checks on an estimator.
CHECK_FUNCTIONS = {"check_estimator", "check_estimator_exactly", "parametrize_with_checks"}


def package_estimators() -> dict[str, type]:
    """Public BaseEstimator subclasses defined in the modules of geomargin's
    packages (pyproject.toml), by name (mixins and private bases left out)."""
    packages = tomllib.loads((TESTS.parent / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    modules = []
    for package in packages:
        modules.append(package)
        modules += [i.name for i in pkgutil.iter_modules(importlib.import_module(package).__path__, f"{package}.")
                    if not i.ispkg]
    out = {}
    for module_name in modules:
        module = importlib.import_module(module_name)
        for name, obj in vars(module).items():
            if (inspect.isclass(obj) and issubclass(obj, BaseEstimator) and obj.__module__ == module.__name__
                    and not name.startswith("_") and not name.endswith("Mixin") and not inspect.isabstract(obj)):
                out[name] = obj
    return out


def _callee(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def checked_in(source: str, names) -> set[str]:
    """The ``names`` that a test module's source gives to a check: in each
    function that calls one of :data:`CHECK_FUNCTIONS`, the estimators
    constructed (``Name(...)``) or named as strings in that call's
    arguments and in the function's decorators (``parametrize``), following
    module-level names those refer to (a list of names, say).

    >>> checked_in("@p([A(), B()])\\ndef test(e):\\n    check_estimator(e)\\nC()", {"A", "B", "C"}) == {"A", "B"}
    True
    >>> checked_in("def test():\\n    A().fit(X)\\n# check_estimator(A())", {"A"})
    set()
    """
    tree = ast.parse(source)
    module_values = {t.id: node.value for node in tree.body if isinstance(node, ast.Assign)
                     for t in node.targets if isinstance(t, ast.Name)}
    found: set[str] = set()

    def collect(node, seen=()):
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call) and _callee(sub) in names:
                found.add(_callee(sub))
            elif isinstance(sub, ast.Constant) and sub.value in names:
                found.add(sub.value)
            elif isinstance(sub, ast.Name) and sub.id in module_values and sub.id not in seen:
                collect(module_values[sub.id], (*seen, sub.id))

    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        calls = [c for c in ast.walk(fn) if isinstance(c, ast.Call) and _callee(c) in CHECK_FUNCTIONS]
        for call in calls:
            collect(call)
        if calls:
            for decorator in fn.decorator_list:
                collect(decorator)
    return found


def test_every_estimator_meets_check_estimator_in_a_test():
    found = package_estimators()
    assert {"GeometricMarginSVC", "ConfidenceCalibrator", "HistoryCalibrator", "CarPartFeaturizer"} <= set(found)
    checked = set()
    for path in TESTS.rglob("test_*.py"):
        checked |= checked_in(path.read_text(), set(found))
    assert set(found) <= checked, sorted(set(found) - checked)
