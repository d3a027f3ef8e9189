"""Fixtures shared by the metabolic tests."""

from __future__ import annotations

import pytest

from geomargin.featurize.metabolic.model_io import load_model


@pytest.fixture(scope="module")
def imm904(mirror):
    return load_model(mirror / "yeast" / "network" / "iMM904.json")


@pytest.fixture(scope="module")
def iff708(mirror):
    return load_model(mirror / "yeast/network/iFF708.xml")


@pytest.fixture(scope="session")
def yeast_gem_902(mirror):
    return load_model(mirror / "yeast/network/yeast-GEM-9.0.2.yml")
