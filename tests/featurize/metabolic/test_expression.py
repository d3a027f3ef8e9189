"""load_expression and load_yeastgfp: toy files, bad input, real files."""

from __future__ import annotations

import lzma
from pathlib import Path

import numpy as np
import pytest

from geomargin.common.exceptions import InputFileError
from geomargin.featurize.metabolic.expression import load_expression
from geomargin.featurize.metabolic.genes import canonical_gene_id
from geomargin.featurize.metabolic.localization import load_yeastgfp


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_join_prefix_missing_and_controls(tmp_path):
    a = write(tmp_path / "gasch2000_subset.tsv",
              "gene\tcond0\tcond1\nYAL001C\t0.5\t-1\nYBR002W\t0\t2.5\n")
    b = write(tmp_path / "spellman1998_cellcycle.tsv",
              "gene\talpha0\talpha7\nyal001c\tNA\t1.5\nYER060w-A\t0.25\tNA\n"
              "Lambda Control\t1\t1\nYCLX01W\t1\t1\n")
    df = load_expression([a, b])
    assert df.columns.tolist() == ["gasch_cond0", "gasch_cond1", "spellman_alpha0",
                                   "spellman_alpha7"]
    assert df.index.tolist() == ["YAL001C", "YBR002W", "YER060W-A"]
    np.testing.assert_array_equal(df.loc["YAL001C"].to_numpy(), [0.5, -1, np.nan, 1.5])
    np.testing.assert_array_equal(df.loc["YER060W-A"].to_numpy(), [np.nan, np.nan, 0.25, np.nan])
    assert df.loc["YBR002W", "gasch_cond0"] == 0.0  # exact zeros stay values
    kept = load_expression({"s": b}, orf_only=False)
    assert "LAMBDA CONTROL" in kept.index and kept.columns[0] == "s_alpha0"


def test_non_numeric_cell_is_named(tmp_path):
    p = write(tmp_path / "e.tsv", "gene\tc0\tc1\nYAL001C\t1\t2\nYAL002W\t0.3\tabc\n")
    with pytest.raises(InputFileError) as err:
        load_expression([p])
    msg = str(err.value)
    for part in ["e.tsv", "line 3", "'YAL002W'", "'c1'", "'abc'"]:
        assert part in msg


def test_missing_or_empty_file(tmp_path):
    with pytest.raises(InputFileError, match="not found"):
        load_expression([tmp_path / "nope.tsv"])
    p = write(tmp_path / "one.tsv", "gene\n")
    with pytest.raises(InputFileError, match="columns"):
        load_expression(p)


def test_canonical_gene_id_of_expression_ids():
    assert canonical_gene_id("YCR024C_A")[0] == "YCR024C-A"
    assert canonical_gene_id(" q0045 ")[0] == "Q0045"
    assert canonical_gene_id("UNKNOWN_X")[0] == "UNKNOWN_X"


def test_yeastgfp_toy_and_bad_value(tmp_path):
    text = ('yORF,"gene name","GFP tagged?","GFP visualized?",abundance,ambiguous,nucleus\n'
            "YAL001C,TFC3,tagged,visualized,125,F,T\n"
            "YAL002W,VPS8,tagged,visualized,736,F,F\n"
            "YAL003W,EFB1,tagged,visualized,NA,T,T\n")
    p = tmp_path / "gfp.csv.xz"
    p.write_bytes(lzma.compress(text.encode()))
    df = load_yeastgfp(p)
    assert df.columns.tolist() == ["ambiguous", "nucleus"]
    assert df.index.tolist() == ["YAL001C", "YAL003W"]  # YAL002W not localized
    assert df.to_numpy().tolist() == [[0, 1], [1, 1]]
    bad = write(tmp_path / "bad.csv", text.replace("F,T\n", "F,maybe\n", 1))
    with pytest.raises(InputFileError, match=r"'maybe' at line 2 \(ORF 'YAL001C'\), column 'nucleus'"):
        load_yeastgfp(bad)


def test_real_expression_files(mirror):
    d = Path(mirror) / "yeast" / "expression"
    gasch = load_expression([d / "gasch2000_subset.tsv"])
    assert gasch.shape == (2993, 173)
    assert gasch.columns[0] == "gasch_cond0" and gasch.columns[-1] == "gasch_cond172"
    assert not gasch.isna().any().any()
    allx = load_expression([d / "gasch2000_subset.tsv", d / "spellman1998_cellcycle.tsv",
                            d / "pramila2006_cellcycle.tsv"])
    assert allx.shape[1] == 173 + 77 + 50
    assert allx.index.is_unique and allx.index.is_monotonic_increasing
    assert allx.shape[0] > 6000
    assert "BLANK" not in allx.index and "YER060W-A" in allx.index


def test_real_yeastgfp(mirror):
    df = load_yeastgfp(Path(mirror) / "yeast" / "localization" / "huh2003_yeastgfp.csv.xz")
    assert df.shape[1] == 23
    assert 4000 < df.shape[0] <= 4155
    assert df.loc["YAL001C", "nucleus"] == 1 and df.loc["YAL001C", "cytoplasm"] == 1


@pytest.mark.parametrize("reader, text", [
    (load_expression, "gene\tc0\tc1\tc2\nYAL001C\t0.5\t1.0\t2.0\nYAL002W\t1.5\tNA\t0.1\n"),
    (load_yeastgfp, 'yORF,"gene name",abundance,nucleus,cytoplasm\nYAL001C,TFC3,125,T,F\n'
                    "YAL002W,VPS8,7,F,T\n"),
])
def test_table_starting_with_a_byte_order_mark_reads_like_one_without(tmp_path, reader, text):
    """A byte-order mark is not data, in every text input (GAF and model
    files: test_annotation.py, test_model_io.py)."""
    (tmp_path / "plain").mkdir()
    (tmp_path / "bom").mkdir()
    plain, bom = tmp_path / "plain" / "table.txt", tmp_path / "bom" / "table.txt"
    plain.write_text(text)
    bom.write_bytes(b"\xef\xbb\xbf" + text.encode())
    a, b = reader(plain), reader(bom)
    assert list(a.columns) == list(b.columns) and list(a.index) == list(b.index)
    np.testing.assert_array_equal(a.to_numpy(), b.to_numpy())


@pytest.mark.parametrize("reader, name, text, message", [
    (load_expression, "expr.tsv", "yal001c\t0.5\tNA\t2.0\t-1\nYAL002W\t1.5\tNA\t0.1\t3\n",
     "line 1 is a record, not a header: gene 'yal001c' with the values '0.5', 'NA', '2.0', ... (expected a "
     "header line first (the gene id column's name, then one name per condition); the header line seems lost)"),
    (load_yeastgfp, "gfp.csv", "YAL001C,TFC3,tagged,visualized,125,F,T\nYAL002W,VPS8,tagged,visualized,7,T,F\n",
     "line 1 is a record, not a header: gene 'YAL001C' with the values 'TFC3', 'tagged', 'visualized', ... "
     "(expected a header line first (yORF, gene name, ..., then one T/F column per localization category); "
     "the header line seems lost)"),
])
def test_table_without_its_header_line_stops_naming_the_file(tmp_path, reader, name, text, message):
    """Read as a header, the first record's gene would vanish and the columns
    be named after its values."""
    p = write(tmp_path / name, text)
    with pytest.raises(InputFileError) as err:
        reader(p)
    assert str(err.value) == f"{p}: {message}"


def test_header_with_numeric_condition_names_is_a_header(tmp_path):
    """Conditions named by numbers (time points) under a named id column are a header."""
    p = write(tmp_path / "e.tsv", "ORF\t0\t10\t20\nYAL001C\t0.5\t1.0\t2.0\n")
    assert load_expression(p).columns.tolist() == ["e_0", "e_10", "e_20"]
