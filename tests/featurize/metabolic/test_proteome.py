"""The Swiss-Prot table of yeast-GEM: ORFs picked from ``gene_id`` on real
rows, the columns it must never read, and its refusals."""

from __future__ import annotations

import csv

import pytest

from geomargin.common.exceptions import InputFileError
from geomargin.featurize.metabolic.proteome import PROTEOME_COLUMNS, load_proteome, orfs_in

REL = "yeast/proteome/yeast-GEM-swissprot-2018.tsv"


@pytest.fixture(scope="module")
def real(mirror):
    return load_proteome(mirror / REL)


def _rows(mirror):
    with open(mirror / REL, newline="") as fh:
        return list(csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))


def _write(path, rows):
    with open(path, "w", newline="") as fh:
        csv.writer(fh, delimiter="\t", quoting=csv.QUOTE_NONE, lineterminator="\n").writerows(rows)
    return path


def test_real_table_counts(real):
    """6721 rows; two Ty rows name their ORFs joined by '/', and every row but
    none names an ORF; 6797 ORFs in all."""
    assert len(real.sequences) == 6797
    assert real.without_orf == ()
    assert set(real.sequences) == set(real.accession)


def test_real_rows_single_orf_and_aliases(real, mirror):
    """'RAM2 YKL019W' gives YKL019W the row's sequence; an old name (YCL27W),
    cosmid names (YBR1241, J0525) and standard names are not ORFs."""
    rows = {r[0]: r for r in _rows(mirror)[1:]}
    assert real.sequences["YKL019W"] == rows["P29703"][5]
    assert real.accession["YKL019W"] == "P29703"
    assert real.accession["YCL027W"] == "P11710"  # 'FUS1 YCL027W YCL27W'
    for alias in ("YCL27W", "YBR1241", "J0525", "RAM2", "FUS1", "N1129"):
        assert alias not in real.sequences
    assert orfs_in("ERG20 BOT3 FDS1 FPP1 YJL167W J0525") == ["YJL167W"]


def test_real_multi_orf_rows(real, mirror):
    """A row naming several ORFs gives each its sequence: the histone H3 row
    (two ';'-separated genes), a merged ORF, and a Ty row with '/'."""
    rows = {r[0]: r for r in _rows(mirror)[1:]}
    h3 = rows["P61830"]
    assert h3[2] == "HHT1 YBR010W YBR0201; HHT2 SIN2 YNL031C N2749"
    assert real.sequences["YBR010W"] == real.sequences["YNL031C"] == h3[5]
    assert real.accession["YDR475C"] == real.accession["YDR474C"] == "Q03361"
    ty = rows["Q12337"]
    assert ty[2].endswith("YGR038C-D/YGR038C-C")
    assert real.sequences["YGR038C-D"] == real.sequences["YGR038C-C"] == ty[5]


def test_real_orf_in_several_rows_takes_the_row_naming_it_first(real):
    """YML100W-A is the only ORF of Q8TGT0 and the second of Q6B2I9;
    YLR154W-A and YLR154W-C name each other's rows second."""
    assert real.accession["YML100W-A"] == "Q8TGT0"
    assert real.accession["YML099W-A"] == "Q6B2I9"
    assert real.accession["YLR154W-A"] == "Q8TGM7"
    assert real.accession["YLR154W-C"] == "Q8TGM6"


def test_name_and_ec_code_are_never_read(mirror, tmp_path):
    """Removing the columns name and ec_code, or filling them with other
    values, changes nothing: the parser does not read them."""
    rows = _rows(mirror)
    header = rows[0]
    drop = [header.index("name"), header.index("ec_code")]
    without = [[v for i, v in enumerate(r) if i not in drop] for r in rows]
    scrambled = [rows[0]] + [[("YAL001C Q0045 1.1.1.1" if i in drop else v) for i, v in enumerate(r)]
                             for r in rows[1:]]
    full = load_proteome(mirror / REL)
    for variant, name in ((without, "without.tsv"), (scrambled, "scrambled.tsv")):
        got = load_proteome(_write(tmp_path / name, variant))
        assert got == full, name


def test_rows_without_an_orf_and_their_columns(tmp_path):
    path = _write(tmp_path / "p.tsv", [
        ["uniprot", "gene_id", "sequence"],
        ["P1", "ABC1 YAL001C", "MKV"],
        ["P2", "TY1 YARCTy1-1 N0001", "MAA"],
        ["P3", "yal002w_a", "mkl"],
    ])
    p = load_proteome(path)
    assert p.sequences == {"YAL001C": "MKV", "YAL002W-A": "MKL"}
    assert p.without_orf == ("P2",)
    assert PROTEOME_COLUMNS == ("uniprot", "gene_id", "sequence")


@pytest.mark.parametrize("rows, match", [
    ([["uniprot", "gene", "sequence"], ["P1", "YAL001C", "MKV"]],
     r"p.tsv: has no column 'gene_id' .*expected yeast-GEM's swissprot.tsv"),
    ([["uniprot", "gene_id", "sequence"], ["P1", "YAL001C", "MK1V"]],
     r"p.tsv: line 2 \(P1\): field 'sequence' has the letter '1' \(expected one-letter amino-acid"),
    ([["uniprot", "gene_id", "sequence"], ["P1", "YAL001C", ""]],
     r"p.tsv: line 2 \(P1\): field 'sequence' is empty"),
    ([["uniprot", "gene_id", "sequence"]], r"p.tsv: has no rows"),
])
def test_bad_tables_name_file_line_and_field(tmp_path, rows, match):
    with pytest.raises(InputFileError, match=match):
        load_proteome(_write(tmp_path / "p.tsv", rows))
