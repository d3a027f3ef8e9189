"""geomargin is one installable package: ``pip install .`` gives
``import geomargin`` with every project folder under it, and the lists in
``pyproject.toml`` match the repository's folders and the rule environment."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
FOLDERS = ("common", "data", "featurize", "models", "rank", "detect", "report")


def _pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())


def test_every_folder_with_an_init_is_a_listed_package():
    setup = _pyproject()["tool"]["setuptools"]
    assert setup["package-dir"] == {"geomargin": "geomargin", **{f"geomargin.{f}": f for f in FOLDERS}}
    found = {"geomargin"} | {
        "geomargin." + ".".join(init.parent.relative_to(REPO).parts)
        for folder in FOLDERS for init in (REPO / folder).rglob("__init__.py")}
    assert set(setup["packages"]) == found


def test_the_runtime_dependencies_are_the_rule_environment():
    rule_env = yaml.safe_load((REPO / "workflow" / "envs" / "geomargin.yaml").read_text())
    names = {d.split("=")[0] for d in rule_env["dependencies"] if isinstance(d, str)} - {"python", "pip"}
    assert set(_pyproject()["project"]["dependencies"]) == names


@pytest.mark.slow
def test_a_regular_install_imports_outside_the_repository(tmp_path):
    """A wheel built from a copy of the sources, installed into an empty
    folder: the estimators, featurizers and ranking import from it and fit,
    and the registry ships with it."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, src / name)
    for folder in ("geomargin", *FOLDERS):
        shutil.copytree(REPO / folder, src / folder, ignore=shutil.ignore_patterns("__pycache__", "bundled"))
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                    "--target", str(target), str(src)], check=True, capture_output=True, timeout=600)
    code = ("import numpy as np, geomargin, geomargin.models as m, geomargin.data.fetch as fetch\n"
            "from geomargin.models import GeometricMarginSVC\n"
            "import geomargin.featurize.metabolic.pairs.featurizer, geomargin.rank.scoring\n"
            "X = np.array([[0, 1.0], [1, np.nan], [2, 0.5], [3, np.nan]])\n"
            "print(GeometricMarginSVC().fit(X, [0, 0, 1, 1]).predict(X).tolist())\n"
            "print(m.__file__)\nprint(fetch.DEFAULT_REGISTRY.is_file())\n")
    env = {**os.environ, "PYTHONPATH": str(target)}
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    labels, where, registry = out.stdout.splitlines()
    assert labels == "[0, 0, 1, 1]"
    assert Path(where).is_relative_to(target)
    assert registry == "True"
