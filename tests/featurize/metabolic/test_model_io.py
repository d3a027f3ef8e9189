"""Tests for featurize.metabolic.model_io: reading models (all formats, gzip, iFF708's
modifier-species genes) and the typed errors for bad files."""

from __future__ import annotations

import json

import cobra
import numpy as np
import pytest

from geomargin.common.exceptions import ConfigValueError, InputFileError, UnknownGeneError
from geomargin.featurize.metabolic.metabolites import metabolite_keys
from geomargin.featurize.metabolic.model_io import load_model
from geomargin.featurize.metabolic.network import build_directed_network
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


# ------------------------------------------------------------ gene rules read
def test_mat_without_gene_rules_stops(tmp_path):
    """cobrapy reads a .mat whose rules it does not know as a model without
    any gene rule: every reaction would look like an orphan."""
    import scipy.io

    path = tmp_path / "norules.mat"
    cobra.io.save_matlab_model(toy_model(), str(path))
    data = scipy.io.loadmat(str(path))
    struct = data["toy"]
    names = [n for n in struct.dtype.names if n not in ("grRules", "rules")]
    stripped = np.empty(struct.shape, dtype=[(n, object) for n in names])
    for n in names:
        stripped[n] = struct[n]
    scipy.io.savemat(str(path), {"toy": stripped})
    with pytest.raises(InputFileError, match=r"norules.mat: no reaction has a gene rule \(10 reactions, "
                                             r"6 genes listed\) \(the file.s gene rules were not read"):
        load_model(path)


def test_rules_naming_few_listed_genes_stop(tmp_path):
    m = toy_model()
    m.genes += [cobra.Gene(f"YXX{i:03d}W") for i in range(10)]
    path = tmp_path / "fewgenes.json"
    cobra.io.save_json_model(m, str(path))
    with pytest.raises(InputFileError, match=r"fewgenes.json: the gene rules name only 6 of the 16 genes"):
        load_model(path)


def test_yaml_that_is_not_a_model_names_the_other_files(tmp_path):
    p = tmp_path / "broken.yml"
    p.write_text("!!omap\n- metabolites:\n\t- id: a\n- reactions: []\n")
    with pytest.raises(InputFileError, match=r"broken.yml: cannot parse YAML.*load the same release's SBML "
                                             r"\(.xml\) or MATLAB \(.mat\) file instead"):
        load_model(p)
    # quoting the unquoted scalars must not turn a broken file into a wrong model
    p.write_text("!!omap\n- metabolites:\n  - {id: a\n- reactions: []\n")
    with pytest.raises(InputFileError, match=r"broken.yml: not a cobrapy YAML model: 'metabolites' holds "
                                             r"'\{id: a' where a mapping"):
        load_model(p)


def test_raven_files_of_one_release_load_with_their_gene_rules(mirror):
    """yeast-GEM 8.3.0: RAVEN's .mat keeps its rules in `rules` (x(i) & x(j)),
    its YAML leaves names such as `[cytochrome c]-L-lysine` unquoted."""
    mat = load_model(mirror / "yeast/network/yeastGEM-8.3.0.mat")
    yml = load_model(mirror / "yeast/network/yeastGEM-8.3.0.yml")
    for m in (mat, yml):
        assert (len(m.reactions), len(m.genes)) == (3928, 1133)
        assert sum(bool(r.genes) for r in m.reactions) == 2507
    assert {r.id: r.gene_reaction_rule for r in mat.reactions} == {r.id: r.gene_reaction_rule for r in yml.reactions}
    r = mat.reactions.get_by_id("r_0001")
    assert r.gene_reaction_rule == "(YDL174C and YEL039C) or (YDL174C and YJR048W) or (YEL039C and YEL071W) " \
                                   "or (YEL071W and YJR048W)"
    assert r.subsystem == ["sce00620  Pyruvate metabolism", "sce00920  Sulfur metabolism"]
    assert mat.reactions.get_by_id("r_0057").annotation["ec-code"] == ["1.1.1.n12", "4.2.1.119"]
    assert mat.compartments["c"] == "cytoplasm"
    assert yml.metabolites.get_by_id("s_3816").name == "[cytochrome c]-L-lysine"


#: The currency metabolites by degree of yeast-GEM 9.0.2 and 8.5.0 (no lipid species).
YEAST_GEM_CURRENCY = ("H+", "H2O", "ATP", "coenzyme A", "phosphate", "diphosphate", "ADP", "NAD", "NADH", "AMP",
                      "NADP(+)", "NADPH", "carbon dioxide", "L-glutamate")


def test_yeast_gem_902_network(yeast_gem_902):
    """yeast-GEM 9.0.2's directed network. Currency metabolites by degree: no lipid species
    (the acyltransferase written once per chain combination counts once, and
    SLIME reactions count not at all)."""
    net = build_directed_network(yeast_gem_902)
    assert net.currency == YEAST_GEM_CURRENCY
    kinds = net.reactions.loc[[r for r in net.reactions.index if not net.reactions.loc[r, "genes"]],
                              "reaction_kind"]
    assert (kinds == "pseudo").sum() > 180
    # subsystems as the release lists them, EC numbers from its `eccodes` key
    r = net.reactions.loc["r_0001"]
    assert (r["subsystem"], r["ec_numbers"]) == ("Pyruvate metabolism", "1.1.2.4;1.1.99.-")
    assert not net.reactions["subsystem"].str.startswith("[").any()
    assert (net.reactions["ec_numbers"] != "").sum() > 3000


def test_yeast_gem_850_network(mirror):
    """yeast-GEM 8.5.0 (the config's second older release for the time split):
    its cobrapy YAML loads with its gene rules; it has no subsystem field, so
    a reaction's subsystems are its KEGG pathway annotations; same currency
    as 9.0.2, and its SLIME and pseudoreactions are ``pseudo``."""
    model = load_model(mirror / "yeast/network/yeast-GEM-8.5.0.yml")
    assert (len(model.reactions), len(model.genes)) == (4058, 1150)
    assert sum(bool(r.genes) for r in model.reactions) == 2633
    net = build_directed_network(model)
    assert len(net.reactions) == 5409
    assert net.currency == YEAST_GEM_CURRENCY
    assert net.reactions["reaction_kind"].value_counts().to_dict() == {
        "enzymatic": 3171, "transport": 2035, "pseudo": 195, "spontaneous": 8}
    r = net.reactions.loc["r_0001"]
    assert (r["subsystem"], r["ec_numbers"]) == ("kegg.pathway:sce00620;kegg.pathway:sce00920", "1.1.2.4;1.1.99.-")


def test_extra_currency_that_matches_nothing_stops():
    with pytest.raises(ConfigValueError, match=r"metabolic.extra_currency: 'atp_c' is not a metabolite key "
                                               r".*closest: \['atp'"):
        build_directed_network(toy_model(), n_currency=0, extra_currency=("atp_c",))


def test_reaction_id_of_a_reverse_direction_stops(tmp_path):
    m = toy_model()
    rev = next(r for r in m.reactions if r.lower_bound < 0 and r.metabolites and r.genes)
    clash = cobra.Reaction(f"{rev.id}__rev", lower_bound=0, upper_bound=1000)
    m.add_reactions([clash])
    clash.add_metabolites({k: -v for k, v in rev.metabolites.items()})
    clash.gene_reaction_rule = rev.gene_reaction_rule
    path = tmp_path / "clash.json"
    cobra.io.save_json_model(m, str(path))
    with pytest.raises(InputFileError, match=rf"clash.json: reaction '{rev.id}__rev' has the id that the "
                                             rf"directed network gives the reverse direction of reversible "
                                             rf"reaction '{rev.id}'"):
        load_model(path)


def test_sbml_rule_naming_an_undeclared_gene_product_stops(tmp_path):
    import re

    path = tmp_path / "toy.xml"
    cobra.io.write_sbml_model(toy_model(), str(path))
    text = path.read_text()
    first = re.search(r'fbc:geneProductRef fbc:geneProduct="([^"]+)"', text).group(0)
    bad = tmp_path / "ghost.xml"
    bad.write_text(text.replace(first, 'fbc:geneProductRef fbc:geneProduct="G_YGHOST1W"', 1))
    with pytest.raises(UnknownGeneError, match=r"ghost.xml: reaction 'R_.*' has a gene rule naming gene "
                                               r"product\(s\) \['G_YGHOST1W'\] that are not declared"):
        load_model(bad)


@pytest.mark.parametrize("suffix", [".json", ".yml", ".xml", ".json.gz"])
def test_model_file_starting_with_a_byte_order_mark_reads_like_one_without(tmp_path, suffix):
    """A byte-order mark is not data, in a model file as in every text input."""
    import gzip

    m = toy_model()
    plain = tmp_path / f"plain{suffix.removesuffix('.gz')}"
    {".json": cobra.io.save_json_model, ".yml": cobra.io.save_yaml_model,
     ".xml": cobra.io.write_sbml_model}[plain.suffix](m, str(plain))
    data = b"\xef\xbb\xbf" + plain.read_bytes()
    bom = tmp_path / f"bom{suffix}"
    bom.write_bytes(gzip.compress(data) if suffix.endswith(".gz") else data)
    a, b = load_model(plain), load_model(bom)
    assert [r.id for r in b.reactions] == [r.id for r in a.reactions]
    assert [r.gene_reaction_rule for r in b.reactions] == [r.gene_reaction_rule for r in a.reactions]
    assert sorted(g.id for g in b.genes) == sorted(g.id for g in a.genes)


@pytest.mark.parametrize("kind, field", [("reactions", "name"), ("metabolites", "name")])
def test_name_that_is_not_valid_text_stops_at_load(tmp_path, kind, field):
    """A lone surrogate escape (``\\udc80``) in a JSON model loads in cobrapy
    but no output can hold it: the load stops naming the item and field."""
    from pathlib import Path

    from toy_data import write_toy_inputs

    raw = json.loads(Path(write_toy_inputs(tmp_path / "toy")["model"]).read_text())
    item = raw[kind][1]
    item[field] = "glucose \udc80 kinase"
    path = tmp_path / "surrogate.json"
    path.write_text(json.dumps(raw))   # written as the escape \udc80
    with pytest.raises(InputFileError) as err:
        load_model(path)
    assert str(err.value) == (
        f"{path}: {kind[:-1]} '{item['id']}': {field} 'glucose \\udc80 kinase' is not valid text (U+DC80, a lone "
        "surrogate, at position 8) (expected Unicode text; correct the character or its escape)")
