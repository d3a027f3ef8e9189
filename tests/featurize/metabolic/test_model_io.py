"""Tests for featurize.metabolic.model_io: reading models (all formats, gzip, iFF708's
modifier-species genes) and the typed errors for bad files."""

from __future__ import annotations

import json

import cobra
import pytest

from common.exceptions import InputFileError, UnknownGeneError
from featurize.metabolic.metabolites import metabolite_keys
from featurize.metabolic.model_io import load_model
from featurize.metabolic.network import build_directed_network
from fixtures.toy_network import toy_model


@pytest.mark.parametrize("fmt", ["json", "yml", "xml", "mat"])
def test_load_model_all_formats_roundtrip(tmp_path, fmt):
    m = toy_model()
    path = tmp_path / f"toy.{fmt}"
    {"json": cobra.io.save_json_model, "yml": cobra.io.save_yaml_model,
     "xml": cobra.io.write_sbml_model, "mat": cobra.io.save_matlab_model}[fmt](m, str(path))
    loaded = load_model(path)
    assert len(loaded.reactions) == 10 and len(loaded.genes) == 6
    net = build_directed_network(loaded, n_currency=2, extra_currency=("E",))
    assert list(net.reactions.index) == ["T_A", "R1", "R2", "R2__rev", "R3__rev", "R4a", "R5"]  # as in test_network
    assert net.n_merged == 1 and net.currency == ("adp", "atp", "E")


def test_truncated_sbml_names_file(tmp_path, mirror):
    src = (mirror / "yeast/network/iFF708.xml").read_bytes()
    bad = tmp_path / "iFF708_truncated.xml"
    bad.write_bytes(src[: len(src) // 2])
    with pytest.raises(InputFileError, match="iFF708_truncated.xml: not a readable SBML file.*truncated"):
        load_model(bad)


def test_truncated_sbml_small(tmp_path):
    path = tmp_path / "toy.xml"
    cobra.io.write_sbml_model(toy_model(), str(path))
    text = path.read_text()
    path.write_text(text[: int(len(text) * 0.6)])
    with pytest.raises(InputFileError, match="toy.xml"):
        load_model(path)


def test_unknown_gene_in_json_rule(tmp_path):
    path = tmp_path / "bad.json"
    cobra.io.save_json_model(toy_model(), str(path))
    doc = json.loads(path.read_text())
    for r in doc["reactions"]:
        if r["id"] == "R1":
            r["gene_reaction_rule"] = "g1 or YFAKE01W"
    path.write_text(json.dumps(doc))
    with pytest.raises(UnknownGeneError, match=r"bad.json: reaction 'R1'.*\['YFAKE01W'\]"):
        load_model(path)


def test_bad_inputs(tmp_path):
    with pytest.raises(InputFileError, match="no such file"):
        load_model(tmp_path / "missing.xml")
    p = tmp_path / "model.csv"
    p.write_text("a,b\n")
    with pytest.raises(InputFileError, match="unsupported model file type '.csv'"):
        load_model(p)
    p = tmp_path / "broken.json"
    p.write_text('{"reactions": [')
    with pytest.raises(InputFileError, match="broken.json: cannot parse JSON"):
        load_model(p)


# ------------------------------------------------------------------ real data
def test_iff708_loader(iff708):
    m = iff708
    assert len(m.genes) == 619
    assert sum(1 for r in m.reactions if r.genes) == 944
    # 1382 reactions in the file; the 3 complex-assembly pseudo-reactions are left out
    assert m.notes["geomargin_dropped_assembly_reactions"] == ["R_1380", "R_1381", "R_1382"]
    assert len(m.reactions) + 3 == 1382
    glk = m.reactions.get_by_id("R_GLK1_1")
    assert glk.gene_reaction_rule == "YCL040W" and glk.bounds == (0.0, 1000.0)
    assert glk.annotation["ec-code"] == ["2.7.1.2"]
    # a complex modifier (Cx_3 = YKL192C:YER061C:YOR221C:YKL055C) becomes an AND rule
    cx = [r for r in m.reactions if " and " in r.gene_reaction_rule]
    assert cx and all({g.id for g in r.genes} for r in cx)
    assert "YKL192C and YER061C and YOR221C and YKL055C" in {r.gene_reaction_rule.strip("()") for r in cx}
    # bounds are read: not everything is reversible any more
    assert sum(r.lower_bound < 0 for r in m.reactions) == 402
    # ATP in two compartments shares one key
    keys = metabolite_keys(m)
    assert keys["M_m220"] == keys["M_m221"] == "ATP"
