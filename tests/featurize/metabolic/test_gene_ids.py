"""Gene ids in one canonical form at every entry point, duplicate rows, source
coverage, and the named errors for bad files (featurize level; the workflow
level is in test_odd_and_bad_input.py)."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from geomargin.featurize.metabolic.annotation import parse_gaf
from geomargin.common.exceptions import (ConfigValueError, DuplicateGeneError, GeneIdError, InputFileError,
                               SourceCoverageError)
from geomargin.featurize.metabolic.expression import load_expression
from geomargin.featurize.metabolic.genes import canonical_gene_id, check_coverage
from geomargin.featurize.metabolic.localization import load_yeastgfp
from geomargin.featurize.metabolic.model_io import load_model
from geomargin.featurize.metabolic.pairs import build_instances
from toy_data import write_toy_inputs

ZWSP = "\u200b"
REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    return write_toy_inputs(tmp_path_factory.mktemp("toy_ids"))


# ------------------------------------------------------------ canonical form
@pytest.mark.parametrize("raw, expected", [
    ("YAL001C", "YAL001C"),
    ("yal001c", "YAL001C"),
    (" YAL001C\t", "YAL001C"),
    (ZWSP + "YAL001C", "YAL001C"),
    ("YAL001C" + ZWSP, "YAL001C"),
    ("YAL\u200d001C\ufeff", "YAL001C"),          # zero-width joiner, byte-order mark
    ("\u00a0YAL001C\u00a0", "YAL001C"),          # no-break spaces
    ("ＹＡＬ００１Ｃ", "YAL001C"),                  # full-width letters (NFKC)
    ("YER060W_A", "YER060W-A"),
    ("yer060w-a", "YER060W-A"),
    ("Q0045", "Q0045"),
])
def test_canonical_gene_id(raw, expected):
    assert canonical_gene_id(raw)[0] == expected


def test_canonical_gene_id_lists_each_change():
    assert canonical_gene_id(ZWSP + " yer060w_a")[1] == (
        "removed U+200B ZERO WIDTH SPACE", "surrounding whitespace removed", "upper-cased",
        "suffix '_A' written '-A'")
    assert canonical_gene_id("YAL001C")[1] == ()


# ------------------------------------------------------------------- models
def _model_dict(toy) -> dict:
    return json.loads(Path(toy["model"]).read_text())


def _rules(model) -> dict:
    return {r.id: r.gene_reaction_rule for r in model.reactions}


def test_zero_width_space_in_model_gene_id_keeps_the_rule(toy, tmp_path):
    raw = _model_dict(toy)
    rxn = next(r for r in raw["reactions"] if " or " in r["gene_reaction_rule"])
    gene = rxn["gene_reaction_rule"].split(" or ")[0]
    rxn["gene_reaction_rule"] = rxn["gene_reaction_rule"].replace(gene, ZWSP + gene, 1)
    next(g for g in raw["genes"] if g["id"] == gene)["id"] = ZWSP + gene
    path = tmp_path / "zwsp.json"
    path.write_text(json.dumps(raw, indent=1))
    notes = []
    model = load_model(path, notes=notes)
    reference = load_model(toy["model"])
    # before the fix cobrapy read this rule as empty (no gene)
    assert _rules(model) == _rules(reference)
    assert {g.id for g in model.reactions.get_by_id(rxn["id"]).genes} == \
        {g.id for g in reference.reactions.get_by_id(rxn["id"]).genes} == set(rxn["gene_reaction_rule"]
                                                                        .replace(ZWSP, "").split(" or "))
    text = [str(n) for n in notes]
    line = next(i for i, t in enumerate(path.read_text().split("\n"), 1) if ZWSP + gene in t
                or "\\u200b" + gene in t)
    assert f"{path}:{line}: gene id '\\u200b{gene}' read as '{gene}' (removed U+200B ZERO WIDTH SPACE)" in text


def test_tab_and_newline_in_a_gene_rule_separate_like_spaces(toy, tmp_path):
    """``A<tab>or<newline>B`` is ``A or B``, not the unknown gene ``AORB``."""
    raw = _model_dict(toy)
    rxn = next(r for r in raw["reactions"] if " or " in r["gene_reaction_rule"])
    a, b = rxn["gene_reaction_rule"].split(" or ")[:2]
    rxn["gene_reaction_rule"] = rxn["gene_reaction_rule"].replace(f"{a} or {b}", f"{a}\tor\r\n{b}", 1)
    path = tmp_path / "whitespace.json"
    path.write_text(json.dumps(raw))
    assert _rules(load_model(path)) == _rules(load_model(toy["model"]))


def test_lower_case_model_gives_the_same_genes(toy, tmp_path):
    raw = _model_dict(toy)
    for g in raw["genes"]:
        g["id"] = g["id"].lower()
    for r in raw["reactions"]:
        r["gene_reaction_rule"] = r["gene_reaction_rule"].lower()
    path = tmp_path / "lower.json"
    path.write_text(json.dumps(raw))
    notes = []
    assert _rules(load_model(path, notes=notes)) == _rules(load_model(toy["model"]))
    assert len(notes) == len(raw["genes"])
    assert all("upper-cased" in str(n) for n in notes)


def test_model_gene_id_invalid_after_normalisation_stops(toy, tmp_path):
    raw = _model_dict(toy)
    gene = raw["genes"][0]["id"]
    raw["genes"][0]["id"] = gene + "é"
    for r in raw["reactions"]:
        r["gene_reaction_rule"] = r["gene_reaction_rule"].replace(gene, gene + "é")
    path = tmp_path / "accent.json"
    path.write_text(json.dumps(raw))
    with pytest.raises(GeneIdError, match=rf"{path}: line 1: gene id '{gene}é' is not a valid gene id "
                                          rf"after normalisation \('{gene}É'; expected a gene id"):
        load_model(path)


def test_unparsable_gene_rule_stops_instead_of_emptying_it(tmp_path):
    # cobrapy reads notes only without FBC gene products: a level-2 style file
    sbml = f"""<?xml version="1.0" encoding="UTF-8"?>
<sbml xmlns="http://www.sbml.org/sbml/level2/version4" level="2" version="4">
<model id="m"><listOfCompartments><compartment id="c"/></listOfCompartments>
<listOfSpecies><species id="M_a_c" compartment="c"/><species id="M_b_c" compartment="c"/></listOfSpecies>
<listOfReactions>
<reaction id="R_ok" reversible="false"><notes><html xmlns="http://www.w3.org/1999/xhtml">
<p>GENE_ASSOCIATION: {ZWSP}YAL001W or YBL002C</p></html></notes>
<listOfReactants><speciesReference species="M_a_c"/></listOfReactants>
<listOfProducts><speciesReference species="M_b_c"/></listOfProducts></reaction>
<reaction id="R_bad" reversible="false"><notes><html xmlns="http://www.w3.org/1999/xhtml">
<p>GENE_ASSOCIATION: (YAL001W or</p></html></notes>
<listOfReactants><speciesReference species="M_b_c"/></listOfReactants>
<listOfProducts><speciesReference species="M_a_c"/></listOfProducts></reaction>
</listOfReactions></model></sbml>
"""
    bad = tmp_path / "notes.xml"
    bad.write_text(sbml)
    with pytest.raises(GeneIdError, match=rf"{bad}: cobrapy cannot parse 1 gene rule\(s\)"):
        load_model(bad)
    good = tmp_path / "notes_ok.xml"
    good.write_text(sbml.replace("(YAL001W or<", "YAL001W<"))
    notes = []
    m = load_model(good, notes=notes)
    # the zero-width space is removed before cobrapy parses the rule (which
    # otherwise becomes empty), and the line is reported
    assert sorted(g.id for g in m.reactions.get_by_id("ok").genes) == ["YAL001W", "YBL002C"]
    assert f"{good}:7: removed U+200B ZERO WIDTH SPACE from '<p>GENE_ASSOCIATION: YAL001W or YBL002C</p>" \
        "</html></notes>'" in [str(n) for n in notes]


def test_undefined_metabolite_names_reaction_and_metabolite(toy, tmp_path):
    raw = _model_dict(toy)
    raw["reactions"][2]["metabolites"]["ghost_c"] = 1.0
    path = tmp_path / "ghost.json"
    path.write_text(json.dumps(raw))
    rid = raw["reactions"][2]["id"]
    with pytest.raises(InputFileError, match=rf"^{path}: reaction '{rid}' uses metabolite\(s\) \['ghost_c'\] "
                                              r"that are not in the model's 'metabolites' list"):
        load_model(path)


@pytest.mark.parametrize("fmt", ["json", "xml"])
def test_gzip_models_read_like_plain_ones(toy, tmp_path, fmt):
    import cobra

    plain = tmp_path / f"model.{fmt}"
    if fmt == "json":
        plain.write_bytes(Path(toy["model"]).read_bytes())
    else:
        cobra.io.write_sbml_model(cobra.io.load_json_model(str(toy["model"])), str(plain))
    packed = tmp_path / f"model.{fmt}.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    a, b = load_model(plain), load_model(packed)
    assert _rules(a) == _rules(b)
    assert {m.id for m in a.metabolites} == {m.id for m in b.metabolites}


def test_corrupt_gzip_model_is_a_named_error(tmp_path):
    path = tmp_path / "model.json.gz"
    path.write_bytes(b"not gzip at all")
    with pytest.raises(InputFileError, match=rf"^{path}: cannot be read: BadGzipFile"):
        load_model(path)


def test_unsupported_model_suffix_says_what_is_supported(tmp_path):
    path = tmp_path / "model.mat.gz"
    path.write_bytes(b"x")
    with pytest.raises(InputFileError, match=r"unsupported model file type '.mat.gz' \(expected SBML "
                                             r"\(.xml/.sbml, optionally .gz\), JSON \(.json/.json.gz\)"):
        load_model(path)


# -------------------------------------------------------------- expression
def _write(path: Path, rows: list[str]) -> Path:
    path.write_text("gene\tc0\tc1\n" + "".join(r + "\n" for r in rows))
    return path


def test_expression_ids_with_invisible_chars_case_and_spaces_are_kept(tmp_path):
    clean = load_expression([_write(tmp_path / "a.tsv", ["YAL001C\t1\t2", "YBR002W\t3\t4",
                                                        "YER060W-A\t5\t6"])])
    notes = []
    odd = load_expression([_write(tmp_path / "b.tsv", [ZWSP + "YAL001C\t1\t2", "ybr002w \t3\t4",
                                                      "YER060W_A\t5\t6"])], notes=notes)
    clean.columns = odd.columns
    pd.testing.assert_frame_equal(clean, odd)  # the zero-width space costs no row
    path = tmp_path / "b.tsv"
    assert [str(n) for n in notes] == [
        f"{path}:2: gene id '\\u200bYAL001C' read as 'YAL001C' (removed U+200B ZERO WIDTH SPACE)",
        f"{path}:3: gene id 'ybr002w ' read as 'YBR002W' (surrounding whitespace removed; upper-cased)",
        f"{path}:4: gene id 'YER060W_A' read as 'YER060W-A' (suffix '_A' written '-A')"]


def test_expression_non_gene_rows_are_reported_with_their_line(tmp_path):
    path = _write(tmp_path / "c.tsv", ["YAL001C\t1\t2", "Lambda Control\t3\t4"])
    notes = []
    assert load_expression([path], notes=notes).index.tolist() == ["YAL001C"]
    assert [str(n) for n in notes] == [
        f"{path}:3: gene id 'Lambda Control' is not a yeast systematic gene name; row left out"]


def test_expression_id_not_understood_stops(tmp_path):
    path = _write(tmp_path / "d.tsv", ["YAL001C\t1\t2", "\u0423BR002W\t3\t4"])  # Cyrillic U
    with pytest.raises(GeneIdError, match=rf"^{path}: line 3: gene id '\u0423BR002W' is not a valid gene id "
                                          r"after normalisation"):
        load_expression([path])


def test_empty_expression_file_is_a_named_error(tmp_path):
    path = tmp_path / "empty.tsv"
    path.write_text("")
    with pytest.raises(InputFileError, match=rf"^{path}: is empty \(no header line\)"):
        load_expression([path])


def test_conflicting_duplicate_rows_stop_by_default(tmp_path):
    path = _write(tmp_path / "dup.tsv", ["YAL001C\t1\t2", "YBR002W\t3\t4", "yal001c\t5\t2"])
    with pytest.raises(DuplicateGeneError, match=rf"^{path}: 1 gene\(s\) on several rows with different "
                                                 r"values \(after normalising ids\), e.g. YAL001C "
                                                 r"\(lines 2, 4\); set config key metabolic.duplicate_genes"):
        load_expression([path])


def test_duplicate_policies(tmp_path):
    path = _write(tmp_path / "dup.tsv", ["YAL001C\t1\t2", "YBR002W\t3\tNA", "yal001c\t5\tNA",
                                         "YBR002W \t3\tNA"])
    notes = []
    first = load_expression([path], duplicates="first", notes=notes)
    assert first.loc["YAL001C"].tolist() == [1.0, 2.0]
    mean = load_expression([path], duplicates="mean")
    assert mean.loc["YAL001C"].tolist() == [3.0, 2.0]
    assert mean.loc["YBR002W"].iloc[0] == 3.0 and np.isnan(mean.loc["YBR002W"].iloc[1])
    text = "\n".join(map(str, notes))
    assert "1 gene(s) on several identical rows, merged: YBR002W (lines 3, 5)" in text
    assert "1 gene(s) on several rows with different values, combined by 'first': YAL001C (lines 2, 4)" in text


def test_identical_duplicates_are_merged_under_error_policy(tmp_path):
    path = _write(tmp_path / "same.tsv", ["YAL001C\t1\t2", "YAL001C\t1\t2"])
    assert load_expression([path]).shape == (1, 2)


def test_localization_duplicates_and_ids(tmp_path):
    path = tmp_path / "gfp.csv"
    path.write_text("yORF,gene name,abundance,nucleus,cytoplasm\n"
                    f"{ZWSP}yal001c ,TFC3,1,T,F\nYAL001C,TFC3,1,F,T\n")
    with pytest.raises(DuplicateGeneError, match=r"YAL001C \(lines 2, 3\)"):
        load_yeastgfp(path)
    out = load_yeastgfp(path, duplicates="mean")
    assert out.loc["YAL001C"].tolist() == [1, 1]


def test_gaf_ids_are_canonical(tmp_path):
    row = ["SGD", "S000000001", "TFC3", "located_in", "GO:0005634", "PMID:14562095", "HDA", "", "C",
           "RNA pol III factor", f"{ZWSP}yal001c |FUN24", "protein", "taxon:559292", "20031028", "SGD"]
    path = tmp_path / "x.gaf"
    path.write_text("!gaf-version: 2.2\n" + "\t".join(row) + "\n")
    notes = []
    ann = parse_gaf(path, notes=notes)
    assert ann.localization.index.tolist() == ["YAL001C"]
    assert str(notes[0]).startswith(f"{path}:2: gene id '\\u200byal001c ' read as 'YAL001C'")


# ----------------------------------------------------------------- coverage
def test_source_matching_too_few_network_genes_stops():
    genes = [f"YAL{i:03d}C" for i in range(1, 21)]
    table = pd.DataFrame({"c": [1.0, 2.0, np.nan]}, index=["YAL001C", "GENE2", "YAL003C"])
    with pytest.raises(SourceCoverageError, match=(
            r"^source 'expr' \(x.tsv\) has data for 1/20 \(5.0%\) of the network's genes; config key "
            r"metabolic.min_source_coverage requires at least 10.0%. Network genes without data, e.g. "
            r"\['YAL002C', 'YAL003C', 'YAL004C', 'YAL005C', 'YAL006C'\]; ids in the source, "
            r"e.g. \['GENE2', 'YAL001C'\]")):
        check_coverage("expr", table, genes, 0.1, where="x.tsv")
    assert check_coverage("expr", table, genes, 0.05) == (1, 20)


def test_source_without_any_data_is_not_called_an_id_mismatch():
    genes = [f"YAL{i:03d}C" for i in range(1, 21)]
    empty = pd.DataFrame(index=pd.Index([], name="gene"))
    with pytest.raises(SourceCoverageError, match=(
            r"^source 'domain' \(a.gaf\) holds no data for any gene: the file has no InterPro row; "
            r"config key metabolic.min_source_coverage requires data for at least 10.0% of the network's "
            r"genes$")):
        check_coverage("domain", empty, genes, 0.1, where="a.gaf", empty="the file has no InterPro row")


# ---------------------------------------------------------------- instances
def test_impostor_pool_case_does_not_change_instances():
    net = SimpleNamespace(reactions=pd.DataFrame(
        {"reaction_id": ["A", "B"], "genes": [("YAL001C",), ("YAL002C", "YAL003C")]}, index=["A", "B"]))
    pool = [f"YAL{i:03d}C" for i in range(1, 30)]
    a = build_instances(net, pool, 2, seed=3)
    b = build_instances(net, [ZWSP + g.lower() + " " for g in pool], 2, seed=3)
    pd.testing.assert_frame_equal(a, b)


def test_more_impostors_than_the_pool_supplies_stops():
    """Reaction B has 2 genes and 27 other genes in the pool: 13 impostors per
    positive is the most that needs no repeat."""
    net = SimpleNamespace(reactions=pd.DataFrame(
        {"reaction_id": ["A", "B"], "genes": [("YAL001C",), ("YAL002C", "YAL003C")]}, index=["A", "B"]))
    pool = [f"YAL{i:03d}C" for i in range(1, 30)]
    inst = build_instances(net, pool, 13, seed=0)
    assert not inst.duplicated(["reaction", "gene"]).any()
    with pytest.raises(ConfigValueError, match=(
            r"^config: metabolic.negatives_per_positive is 14, but reaction 'B' \(2 genes\) can draw only "
            r"27 distinct impostors from the pool; expected at most 13 \(more would repeat training pairs\)$")):
        build_instances(net, pool, 14, seed=0)


# --------------------------------------------------------------- toy inputs
def test_toy_inputs_do_not_depend_on_hash_seed(tmp_path):
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from toy_data import write_toy_inputs; "
            "write_toy_inputs(sys.argv[2])")
    files = []
    for seed in ("1", "2"):
        out = tmp_path / seed
        subprocess.run([sys.executable, "-c", code, str(REPO / "tests"), str(out)], check=True,
                       env={**os.environ, "PYTHONHASHSEED": seed})
        files.append({p.name: p.read_bytes() for p in sorted(out.iterdir())})
    assert files[0] == files[1]
