"""Workflow scripts and benchmarks import the project the way a Snakemake job
does: the installed package ``geomargin``, with nothing on ``sys.path`` but
the interpreter's own entries and the scripts' folder (which Snakemake's
preamble appends), and without ``PYTHONPATH`` (which Snakemake removes from a
``--sdm conda`` job). No file of the repository imports a project folder by
its bare name (``models``, ``data``): those names are not installed."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = REPO / "workflow" / "scripts"
BENCHMARKS = REPO / "benchmarks"
ANALYSIS = REPO / "analysis"
#: The repository's folders that ``pyproject.toml`` maps under ``geomargin``.
PACKAGES = ("common", "data", "featurize", "models", "rank", "detect", "report")


def _absolute_imports(path: Path) -> list[str]:
    """Every module a file imports absolutely (``import a.b``, ``from a.b import c``)."""
    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
        elif isinstance(node, ast.Import):
            names += [a.name for a in node.names]
    return names


def _project_modules(script: Path) -> set[str]:
    """The modules of the project's package (and ``_bootstrap``) a script imports."""
    return {n for n in _absolute_imports(script) if n.split(".")[0] in ("geomargin", "_bootstrap")}


def _bare_imports(path: Path) -> list[str]:
    """Absolute imports of a project folder by its bare name in one file."""
    return [n for n in _absolute_imports(path) if n.split(".")[0] in PACKAGES]


def test_no_file_imports_a_folder_by_its_bare_name():
    tracked = subprocess.run(["git", "ls-files", "*.py"], cwd=REPO, capture_output=True, text=True,
                             check=True).stdout.split()
    assert len(tracked) > 100
    found = {f: b for f in tracked if (b := _bare_imports(REPO / f))}
    assert not found, f"import through geomargin.<package>: {found}"


def test_no_symlinks_into_the_packages():
    links = [p for p in (*SCRIPTS.iterdir(), *BENCHMARKS.iterdir(), *ANALYSIS.iterdir()) if p.is_symlink()]
    assert not links, links


def test_every_script_import_resolves_without_pythonpath(tmp_path):
    scripts = sorted(p for p in SCRIPTS.glob("*.py") if p.name != "_bootstrap.py")
    modules = sorted(set().union(*(_project_modules(s) for s in scripts)))
    # every script imports _bootstrap and at least one project module
    assert all("_bootstrap" in _project_modules(s) for s in scripts)
    assert len(modules) > 10
    code = ("import importlib, os, sys\n"
            "sys.path.append(sys.argv[1])\n"
            "for name in sys.argv[2:]:\n"
            "    print(name, os.path.realpath(importlib.import_module(name).__file__))\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    # -I: no PYTHONPATH, no user site, not even the working directory on sys.path
    proc = subprocess.run([sys.executable, "-I", "-c", code, str(SCRIPTS), *modules],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    where = dict(line.split(" ", 1) for line in proc.stdout.splitlines())
    assert set(where) == set(modules)
    for name, path in where.items():
        parts = name.split(".")
        expected = (SCRIPTS if parts[0] == "_bootstrap" else
                    REPO / "geomargin" if len(parts) == 1 else REPO / parts[1])
        assert Path(path).is_relative_to(expected), f"{name} was imported from {path}"


def test_scripts_need_no_path_edits_or_noqa():
    for script in SCRIPTS.glob("*.py"):
        text = script.read_text()
        assert not re.search(r"sys\.path\.(insert|append|extend)|sys\.path\s*(\[.*\])?\s*=", text), script.name
        assert "noqa" not in text, script.name



@pytest.mark.parametrize("folder", ["benchmarks", "analysis"])
def test_scripts_run_from_any_folder_without_path_edits(tmp_path, folder):
    """Benchmarks and analyses run as ``python FOLDER/NAME.py`` from any
    folder: they import the installed ``geomargin`` (the tests' cvxpy
    reference is loaded by its path). Modules named ``_*.py`` are shared by
    the scripts of their folder, not scripts themselves."""
    scripts = sorted(p for p in (REPO / folder).glob("*.py") if not p.name.startswith("_"))
    assert len(scripts) > 5
    if folder == "analysis":
        scripts.append(REPO / "docs" / "browser_screenshot.py")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    for script in scripts:
        text = script.read_text()
        assert not re.search(r"sys\.path\.(insert|append|extend)", text), script.name
        assert "noqa" not in text, script.name
        proc = subprocess.run([sys.executable, str(script), "--help"], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, f"{script.name}: {proc.stderr[-2000:]}"
        assert "usage:" in proc.stdout, script.name


def test_each_script_is_documented_where_its_kind_belongs():
    """``benchmarks/`` holds benchmarks (speed, memory, exactness), each in
    docs/benchmarks.md; ``analysis/`` holds the finished experiments, each
    with its line in the decision log, docs/decisions.md."""
    for folder, doc in (("benchmarks", "benchmarks.md"), ("analysis", "decisions.md")):
        text = (REPO / "docs" / doc).read_text()
        for script in (REPO / folder).glob("[!_]*.py"):
            assert f"python {folder}/{script.name}" in text, f"{folder}/{script.name} is not in docs/{doc}"
