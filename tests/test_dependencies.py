"""requirements.txt (pip) and environment.yml (conda) must name the same
packages at the same versions."""

from __future__ import annotations

import re

import yaml


def _pip(repo):
    out = {}
    for line in (repo / "requirements.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"requirements.txt: {line!r} is not pinned with =="
            out[name.strip().lower()] = version.strip()
    return out


def _conda(repo):
    env = yaml.safe_load((repo / "environment.yml").read_text())
    out = {}
    for dep in env["dependencies"]:
        assert isinstance(dep, str), f"environment.yml: unexpected entry {dep!r}"
        m = re.fullmatch(r"\s*([A-Za-z0-9_.\-]+)\s*=+\s*(\S+)\s*", dep)
        assert m, f"environment.yml: {dep!r} is not pinned as name=version"
        name, version = m.groups()
        if name.lower() != "python":
            out[name.lower()] = version
    return out


def test_pip_and_conda_name_the_same_pinned_packages(repo):
    pip, conda = _pip(repo), _conda(repo)
    assert set(pip) == set(conda), (
        f"only in requirements.txt: {sorted(set(pip) - set(conda))}; "
        f"only in environment.yml: {sorted(set(conda) - set(pip))}"
    )
    assert pip == conda
