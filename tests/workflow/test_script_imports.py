"""Workflow scripts import the project's packages the way a Snakemake job
does: through the relative symlinks workflow/scripts/{common,data,featurize,
models}, with nothing on ``sys.path`` but the interpreter's own entries and the
scripts' folder (which Snakemake's preamble appends), and without
``PYTHONPATH`` (which Snakemake removes from a ``--sdm conda`` job)."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = REPO / "workflow" / "scripts"
PACKAGES = ("common", "data", "featurize", "models", "rank", "detect", "report")


def _project_modules(script: Path) -> set[str]:
    """The modules of the project's packages (and ``_bootstrap``) a script imports."""
    found = set()
    for node in ast.walk(ast.parse(script.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        found.update(n for n in names if n.split(".")[0] in (*PACKAGES, "_bootstrap"))
    return found


def test_symlinks_are_relative_and_point_at_the_packages():
    for pkg in PACKAGES:
        link = SCRIPTS / pkg
        assert link.is_symlink(), f"{link} must be a symlink to ../../{pkg}"
        assert os.readlink(link) == f"../../{pkg}"
        assert link.resolve() == REPO / pkg


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
        top = name.split(".")[0]
        expected = SCRIPTS if top == "_bootstrap" else REPO / top
        assert Path(path).is_relative_to(expected), f"{name} was imported from {path}"


def test_scripts_need_no_path_edits_or_noqa():
    for script in SCRIPTS.glob("*.py"):
        text = script.read_text()
        assert not re.search(r"sys\.path\.(insert|append|extend)|sys\.path\s*(\[.*\])?\s*=", text), script.name
        assert "noqa" not in text, script.name


BENCHMARKS = REPO / "benchmarks"


def test_benchmarks_import_through_symlinks_without_path_edits(tmp_path):
    """Benchmarks run as ``python benchmarks/NAME.py`` from any folder: Python
    puts the script's folder first on ``sys.path``, and the relative symlinks
    benchmarks/<package> make the packages importable from there. No module is
    symlinked in (the tests' cvxpy reference is loaded by its path). Modules
    named ``_*.py`` (``_cli.py``: the start of every command line) are shared
    by the scripts, not scripts themselves."""
    for pkg in PACKAGES:
        link = BENCHMARKS / pkg
        assert link.is_symlink() and os.readlink(link) == f"../{pkg}", link
    assert not [p.name for p in BENCHMARKS.glob("*.py") if p.is_symlink()]
    scripts = sorted(p for p in BENCHMARKS.glob("*.py") if not p.name.startswith("_"))
    assert len(scripts) > 5
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    for script in scripts:
        text = script.read_text()
        assert not re.search(r"sys\.path\.(insert|append|extend)", text), script.name
        assert "noqa" not in text, script.name
        proc = subprocess.run([sys.executable, str(script), "--help"], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, f"{script.name}: {proc.stderr[-2000:]}"
        assert "usage:" in proc.stdout, script.name
