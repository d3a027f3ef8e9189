"""The three dependency lists agree:

* requirements.txt (pip) and environment.yml (conda) name the same packages
  at the same versions: everything to run, drive, test and lint the workflow;
* workflow/envs/geomargin.yaml, the environment of every rule, holds the
  runtime only: exactly the distributions of the third-party modules the
  workflow scripts import (directly, or through the project's packages,
  followed import by import, lazy imports included), plus the cvxpy solvers
  the models name; each at the version requirements.txt pins.
"""

from __future__ import annotations

import ast
import re
import sys
from importlib.metadata import packages_distributions
from pathlib import Path

import yaml

#: The project's own distribution: installed editable from the checkout by
#: each list (pip's ``-e .``, conda's pip section), not pinned.
PROJECT = "geomargin"
#: Runtime distributions that no module imports by name: cvxpy loads the
#: solver the estimators ask for (solver="CLARABEL" by default; "ECOS" and
#: "SCS" are the documented alternatives).
SOLVERS = {"clarabel": "CLARABEL", "ecos": "ECOS", "scs": "SCS"}


def _pip(repo):
    out = {}
    for line in (repo / "requirements.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line == "-e .":
            continue
        if line:
            name, _, version = line.partition("==")
            assert version, f"requirements.txt: {line!r} is not pinned with =="
            out[name.strip().lower()] = version.strip()
    return out


def _conda(path: Path) -> dict[str, str]:
    env = yaml.safe_load(path.read_text())
    out = {}
    for dep in env["dependencies"]:
        if dep == "pip" or (isinstance(dep, dict) and set(dep) == {"pip"}):
            continue  # the project's editable install (_conda_pip)
        assert isinstance(dep, str), f"{path.name}: unexpected entry {dep!r}"
        m = re.fullmatch(r"\s*([A-Za-z0-9_.\-]+)\s*=+\s*(\S+)\s*", dep)
        assert m, f"{path.name}: {dep!r} is not pinned as name=version"
        name, version = m.groups()
        out[name.lower()] = version
    return out


def _conda_pip(path: Path) -> list[str]:
    """The pip section of a conda environment file."""
    env = yaml.safe_load(path.read_text())
    return [line for dep in env["dependencies"] if isinstance(dep, dict) for line in dep.get("pip", [])]


def _module_file(repo: Path, name: str) -> Path | None:
    """The file of module ``geomargin.<package>...`` in the checkout."""
    parts = name.split(".")[1:]
    if not parts:
        return repo / PROJECT / "__init__.py"
    base = repo.joinpath(*parts)
    for cand in (base / "__init__.py", base.with_suffix(".py")):
        if cand.is_file():
            return cand
    return None


def runtime_imports(repo: Path) -> dict[str, set[str]]:
    """Top-level third-party modules reachable from workflow/scripts/*.py,
    with the files that import each."""
    scripts = repo / "workflow" / "scripts"
    todo = sorted(scripts.glob("*.py"))
    seen: set[Path] = set(todo)
    found: dict[str, set[str]] = {}
    while todo:
        path = todo.pop()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top == PROJECT:
                    target = _module_file(repo, name)
                elif top == "_bootstrap":
                    target = scripts / "_bootstrap.py"
                else:
                    if top not in sys.stdlib_module_names and top != "__future__":
                        found.setdefault(top, set()).add(str(path.relative_to(repo)))
                    continue
                if target is not None and target not in seen:
                    seen.add(target)
                    todo.append(target)
    return found


def test_pip_and_conda_name_the_same_pinned_packages(repo):
    pip = _pip(repo)
    conda = _conda(repo / "environment.yml")
    conda.pop("python")
    assert set(pip) == set(conda), (
        f"only in requirements.txt: {sorted(set(pip) - set(conda))}; "
        f"only in environment.yml: {sorted(set(conda) - set(pip))}"
    )
    assert pip == conda


def test_rule_environment_is_the_runtime_the_scripts_import(repo):
    rule_env = _conda(repo / "workflow" / "envs" / "geomargin.yaml")
    assert rule_env.pop("python") == _conda(repo / "environment.yml")["python"]
    dists = packages_distributions()
    imported = runtime_imports(repo)
    # sanity of the scan: the scripts reach the numerical stack and the
    # network loader through the project's packages
    assert {"numpy", "sklearn", "cobra", "cv2", "cvxpy"} <= set(imported)
    needed = {}
    for module, where in imported.items():
        assert module in dists, f"{module} (imported by {sorted(where)}) is not installed"
        for dist in dists[module]:
            needed[dist.lower()] = where
    for solver, name in SOLVERS.items():
        named = [p for p in (repo / "models").rglob("*.py") if f'"{name}"' in p.read_text()]
        assert named, f"no model names the solver {name}: drop {solver} from the lists"
        needed[solver] = {str(p.relative_to(repo)) for p in named}
    missing = sorted(set(needed) - set(rule_env))
    extra = sorted(set(rule_env) - set(needed))
    assert not missing, "imported at runtime but not in workflow/envs/geomargin.yaml: " + \
        "; ".join(f"{d} ({sorted(needed[d])[0]})" for d in missing)
    assert not extra, f"in workflow/envs/geomargin.yaml but no workflow script needs them: {extra}"
    pip = _pip(repo)
    assert {d: pip.get(d) for d in rule_env} == rule_env, "versions differ from requirements.txt"


def test_every_environment_installs_the_checkout_editable(repo):
    """pip's list installs the checkout it is run in (the README runs it from
    the repository root); each conda file's pip section names the repository
    root relative to the file, which is where conda runs pip."""
    assert "-e ." in [line.strip() for line in (repo / "requirements.txt").read_text().splitlines()]
    for env in (repo / "environment.yml", repo / "workflow" / "envs" / "geomargin.yaml"):
        [line] = _conda_pip(env)
        flag, target = line.split()
        assert flag == "-e" and (env.parent / target).resolve() == repo.resolve(), f"{env.name}: {line!r}"
        assert "pip" in yaml.safe_load(env.read_text())["dependencies"], f"{env.name}: conda needs pip for its pip section"


def test_the_scan_follows_project_imports(tmp_path):
    """runtime_imports on a made-up tree: a lazy import inside a function of a
    project module is followed; stdlib and unreached modules are not."""
    (tmp_path / "workflow" / "scripts").mkdir(parents=True)
    (tmp_path / "workflow" / "scripts" / "job.py").write_text(
        "import os\nfrom geomargin.models.a import f\nfrom _bootstrap import setup\n")
    (tmp_path / "workflow" / "scripts" / "_bootstrap.py").write_text("import threadpoolctl\n")
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "__init__.py").write_text("")
    (tmp_path / "models" / "a.py").write_text("def f():\n    from geomargin.models import b\n")
    (tmp_path / "models" / "b.py").write_text("import numpy as np\n")
    (tmp_path / "models" / "unused.py").write_text("import selenium\n")
    assert runtime_imports(tmp_path) == {"numpy": {"models/b.py"},
                                         "threadpoolctl": {"workflow/scripts/_bootstrap.py"}}
