"""Shared pytest fixtures: where the read-only real-data mirror is."""

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
