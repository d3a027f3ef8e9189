"""Every scikit-learn estimator of the package meets scikit-learn's
check_estimator in some test (or its expected-failure list there)."""

import importlib
import inspect
import pkgutil
import tomllib
from pathlib import Path

from sklearn.base import BaseEstimator

TESTS = Path(__file__).parent


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


def test_every_estimator_meets_check_estimator_in_a_test():
    found = package_estimators()
    assert {"GeometricMarginSVC", "ConfidenceCalibrator", "HistoryCalibrator", "CarPartFeaturizer"} <= set(found)
    checked = set()
    for path in TESTS.rglob("test_*.py"):
        text = path.read_text()
        if "check_estimator(" in text or "check_estimator_exactly(" in text:
            checked |= {name for name in found if f"{name}(" in text or f"\"{name}\"" in text}
    assert set(found) <= checked, sorted(set(found) - checked)
