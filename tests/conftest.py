"""Shared pytest fixtures: where the read-only real-data mirror is, and the
toy inputs and reference run of the workflow fault tests (one per module)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def mirror_dir() -> Path | None:
    """The real-data mirror: $GEOMARGIN_DATA_MIRROR or <repo>/../shared/data."""
    env = os.environ.get("GEOMARGIN_DATA_MIRROR")
    path = Path(env) if env else REPO.parent / "shared" / "data"
    return path if path.is_dir() else None


@pytest.fixture(scope="session")
def mirror() -> Path:
    path = mirror_dir()
    if path is None:
        pytest.skip("real-data mirror not found: set GEOMARGIN_DATA_MIRROR or put it at ../shared/data")
    return path


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="module")
def toy_inputs(tmp_path_factory):
    """The synthetic input set of :mod:`toy_data`, written once per module."""
    from toy_data import write_toy_inputs

    return write_toy_inputs(tmp_path_factory.mktemp("fault_inputs"))


@pytest.fixture(scope="module")
def reference_run(tmp_path_factory, toy_inputs):
    """An uninterrupted run of the small toy config (seed 0), once per module."""
    from workflow_helpers import MAIN_TARGET, console, run_snakemake, small_config

    tmp = tmp_path_factory.mktemp("reference")
    proc = run_snakemake(tmp, small_config(toy_inputs, tmp), MAIN_TARGET)
    assert proc.returncode == 0, console(proc)[-4000:]
    return tmp
