"""parse_gaf on a hand-written GAF and on the real SGD file."""

from __future__ import annotations

from pathlib import Path

import pytest

from geomargin.featurize.metabolic.annotation import parse_gaf
from geomargin.common.exceptions import InputFileError


def row(sgd, name, qual, go, ref, ev, withfrom, aspect, descr, syn, typ="protein"):
    return "\t".join(["SGD", sgd, name, qual, go, ref, ev, withfrom, aspect, descr, syn, typ,
                      "taxon:559292", "20220314", "SGD", "", ""])


ROWS = [
    row("S1", "TFC3", "located_in", "GO:0005634", "PMID:14562095|SGD_REF:S1", "HDA", "", "C",
        "Subunit of RNA pol III factor", "YAL001C|FUN24"),
    row("S1", "TFC3", "located_in", "GO:0005737", "PMID:1", "IDA", "", "C",
        "Subunit of RNA pol III factor", "YAL001C|FUN24"),
    row("S1", "TFC3", "enables", "GO:0003677", "GO_REF:0000002", "IEA",
        "InterPro:IPR001|InterPro:IPR002", "F", "Subunit of RNA pol III factor", "YAL001C|FUN24"),
    row("S2", "YAL002W", "enables", "GO:0003677", "GO_REF:0000002", "IEA", "InterPro:IPR001",
        "F", "Putative protein", "YAL002W"),
    row("S2", "YAL002W", "NOT|located_in", "GO:0005739", "PMID:14562095", "HDA", "", "C",
        "Putative protein", "YAL002W"),
    row("S2", "YAL002W", "enables", "GO:0003677", "GO_REF:0000003", "IEA", "EC:1.1.1.1", "F",
        "Putative protein", "YAL002W"),
    row("S3", "CPX-1", "part_of", "GO:0005634", "PMID:14562095", "IDA", "", "C",
        "a complex", "Some complex|CPX", "protein_complex"),
    row("S4", "SUF11", "involved_in", "GO:0006412", "PMID:2", "IDA", "", "P",
        "Proline tRNA", "YNCO0017W|tP(UGG)O2", "tRNA"),
]


def test_parse_gaf_toy(tmp_path):
    p = tmp_path / "toy.gaf"
    p.write_text("!gaf-version: 2.2\n!comment\n" + "\n".join(ROWS) + "\n")
    ann = parse_gaf(p)
    assert ann.names.to_dict() == {"YAL001C": "TFC3", "YAL002W": "YAL002W", "YNCO0017W": "SUF11"}
    assert ann.descriptions["YAL001C"] == "Subunit of RNA pol III factor"
    assert ann.sgd_ids["YNCO0017W"] == "S4"
    # only the Huh-2003 C row, NOT rows and complexes skipped
    assert ann.localization.index.tolist() == ["YAL001C"]
    assert ann.localization.columns.tolist() == ["GO:0005634"]
    assert ann.domains.index.tolist() == ["YAL001C", "YAL002W"]
    assert ann.domains.columns.tolist() == ["IPR001", "IPR002"]
    assert ann.domains.to_numpy().tolist() == [[1, 1], [1, 0]]
    # every C row when no reference filter is asked for
    assert sorted(parse_gaf(p, reference="").localization.columns) == ["GO:0005634", "GO:0005737"]


def test_byte_order_mark_is_not_data(tmp_path):
    p = tmp_path / "bom.gaf"
    p.write_bytes(b"\xef\xbb\xbf!gaf-version: 2.2\n" + ("\n".join(ROWS) + "\n").encode())
    plain = tmp_path / "plain.gaf"
    plain.write_text("!gaf-version: 2.2\n" + "\n".join(ROWS) + "\n")
    a, b = parse_gaf(p), parse_gaf(plain)
    assert a.domains.equals(b.domains) and a.names.equals(b.names)


def test_parse_gaf_bad_rows(tmp_path):
    p = tmp_path / "bad.gaf"
    p.write_text("!gaf-version: 2.2\n" + ROWS[0] + "\nSGD\tS9\tFOO\n")
    with pytest.raises(InputFileError, match=r"bad.gaf: line 3 has 3 tab-separated columns"):
        parse_gaf(p)
    q = tmp_path / "aspect.gaf"
    q.write_text(ROWS[0].replace("\tC\t", "\tX\t") + "\n")
    with pytest.raises(InputFileError, match=r"line 1: aspect \(column 9\) is 'X'"):
        parse_gaf(q)
    e = tmp_path / "empty.gaf"
    e.write_text("!only comments\n")
    with pytest.raises(InputFileError, match="no annotation rows"):
        parse_gaf(e)


def test_real_sgd_gaf(mirror):
    ann = parse_gaf(Path(mirror) / "yeast" / "annotation" / "sgd_2022-05-17.gaf")
    named = (ann.names != ann.names.index).sum()
    n_loc = ann.localization.shape[0]
    n_ipr2 = int((ann.domains.sum(axis=0) >= 2).sum())
    print(f"\nSGD GAF: {len(ann.names)} genes, {named} with a standard name, "
          f"{n_loc} Huh-localised genes over {ann.localization.shape[1]} GO-CC terms, "
          f"{ann.domains.shape[0]} genes with {ann.domains.shape[1]} InterPro ids "
          f"({n_ipr2} over >= 2 genes)")
    assert ann.names["YAL001C"] == "TFC3"
    assert ann.names["YGR254W"] == "ENO1"
    assert ann.localization.loc["YOR304C-A"].sum() == 3   # BIL1: 3 Huh rows in the file
    assert 1000 < n_loc < 1947           # 1947 Huh rows, several per gene
    assert 3500 < ann.domains.shape[0] < 4300 and 3500 < ann.domains.shape[1] < 4300
    assert 1000 < n_ipr2 < ann.domains.shape[1]
    assert ann.domains.loc["YGR254W", "IPR000941"] == 1   # enolase
