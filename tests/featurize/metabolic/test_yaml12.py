"""featurize.metabolic.yaml12: libyaml reading YAML as cobrapy's (ruamel) reader does."""

from __future__ import annotations

import datetime
import io
import json

import pytest
import yaml
from cobra.io.yaml import yaml as cobra_yaml

from geomargin.featurize.metabolic.raven_yaml import quote_raven_scalars
from geomargin.featurize.metabolic.yaml12 import load_yaml12

pytestmark = pytest.mark.skipif(not yaml.__with_libyaml__, reason="PyYAML without libyaml")

# plain scalars that YAML 1.1 (PyYAML's default) and ruamel's YAML 1.2 read differently, and others
TRICKY = ["on", "yes", "no", "off", "y", "n", "Y", "~", "null", "Null", "NULL", "", "0123", "0o17", "0x1F",
          "0X1F", "1e3", "1.5E-2", ".5", "-.inf", ".Inf", ".NaN", "1:30", "2024-11-23", "2001-12-14t21:59:43.10-05:00",
          "1_000", "true", "False", "TRUE", "tRue", "+12", "-0", "12abc", "0b101", "'quoted'", '"0123"', "1.",
          "-1.5e+3", "+.5", "0.", "00", "-012", "0o8", "0xZZ", ".", "+", "1e", "e3", "inf", "nan", ".nan",
          "+.inf", "1__0", "0x_1", "s_0001[c]", "r_0001", "YAL001C", "-1000", "1000.0", "6.02e23"]


def _base(value):
    """(type, value) with ruamel's scalar subclasses (ScalarInt, ScalarFloat,
    TimeStamp, ...) as their base type."""
    for t in (bool, int, float, str, datetime.datetime, datetime.date, type(None)):
        if isinstance(value, t):
            if t in (datetime.datetime, datetime.date):
                return t.__name__, value.isoformat()
            return t.__name__, repr(value if value is None else t(value))
    return type(value).__name__, repr(value)


def _plain(obj):
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_plain(v) for v in obj]
    return obj


def test_scalars_as_cobrapy_reads_them():
    text = "- !!omap\n" + "".join(f"  - k{i}: {v}\n" for i, v in enumerate(TRICKY))
    mine, ref = load_yaml12(text), cobra_yaml.load(io.StringIO(text))
    assert mine is not None and list(mine[0]) == [f"k{i}" for i in range(len(TRICKY))]
    for i, v in enumerate(TRICKY):
        assert _base(mine[0][f"k{i}"]) == _base(ref[0][f"k{i}"]), v
    assert mine[0]["k0"] == "on" and mine[0]["k12"] == 123 and mine[0]["k16"] == 1000.0


@pytest.mark.parametrize("text", ["a: =\n", "a: <<\n", "b: &x {c: 1}\nd:\n  <<: *x\n", "x: !!binary aGk=\n",
                                  "a: 1\na: 2\n", "1: a\n01: b\n", "- !!omap\n  - a: 1\n  - a: 2\n", "- [a\n", "k: [1, 2"])
def test_what_it_does_not_read_is_left_to_cobrapy(text):
    # merge keys, tags cobrapy never writes, duplicate keys (ruamel refuses
    # them) and invalid YAML: None, and the caller asks cobrapy's reader
    assert load_yaml12(text) is None


def test_without_libyaml_nothing_is_read(monkeypatch):
    monkeypatch.setattr(yaml, "__with_libyaml__", False)
    assert load_yaml12("a: 1\n") is None


@pytest.mark.parametrize("name", ["yeast-GEM-9.0.2.yml", "yeastGEM-8.3.0.yml"])
def test_model_releases_read_as_cobrapy_reads_them(mirror, name):
    # every value, its type and the order of every mapping; 8.3.0 (RAVEN's
    # YAML of 2018) after the quoting that both readers need
    text = (mirror / "yeast" / "network" / name).read_text()
    mine = load_yaml12(text)
    if mine is None:
        text, n = quote_raven_scalars(text)
        assert n > 0
        mine = load_yaml12(text)
    ref = cobra_yaml.load(io.StringIO(text))
    assert json.dumps(_plain(mine)) == json.dumps(_plain(ref))
