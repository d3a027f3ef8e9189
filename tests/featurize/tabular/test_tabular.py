"""featurize.tabular: Orange .tab parser, MCAR removal, digits square patch."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np
import pytest

from geomargin.common.exceptions import GeomarginInputError, InputFileError
from geomargin.featurize.tabular.datasets import load_dataset, load_digits_pair, read_orange_tab
from geomargin.featurize.tabular.missingness import apply_scenario, parse_scenario, remove_mcar, remove_square_patch, standardize_observed

REPO = Path(__file__).resolve().parents[3]

TOY_TAB = (
    "id\tx1\tflag\tnote\tx2\tskip\tlabel\n"
    "s\tc\td\ts\tcontinuous\td\tneg pos\n"
    "meta\t\t\t\t\ti\tclass\n"
    "r1\t1.5\t0\thello\t-2\t7\tpos\n"
    "r2\t?\t1\tworld\t3.25\t7\tneg\n"
    "r3\t0\t1\t\t?\t7\tpos\n"
)


def _write(tmp_path, text, name="toy.tab"):
    p = tmp_path / name
    p.write_text(text)
    return p


# ------------------------------------------------------------------ parser
def test_orange_tab_parser_on_hand_written_file(tmp_path):
    ds = read_orange_tab(_write(tmp_path, TOY_TAB))
    # meta id, string column and the ignored column are dropped; numeric discrete kept
    assert ds.feature_names == ["x1", "flag", "x2"]
    assert ds.info["dropped_columns"] == ["id", "note", "skip"]
    expected = np.array([[1.5, 0, -2], [np.nan, 1, 3.25], [0, 1, np.nan]])
    np.testing.assert_array_equal(ds.X, expected)
    # class order is the declared value list "neg pos": neg -> 0, pos -> 1
    assert ds.class_names == ["neg", "pos"]
    assert ds.y.tolist() == [1, 0, 1]
    assert ds.name == "toy"


def test_orange_tab_class_without_value_list_is_sorted(tmp_path):
    ds = read_orange_tab(_write(tmp_path, "a\ty\nc\td\n\tclass\n1\tg\n2\tb\n3\tg\n"))
    assert ds.class_names == ["b", "g"] and ds.y.tolist() == [1, 0, 1]


@pytest.mark.parametrize("text, match", [
    ("a\ty\nc\td\n\t\n1\tg\n2\tb\n", "marks 0 columns as 'class'"),
    ("a\ty\nc\td\n\tclass\n1\tg\nx\tb\n", r"column 'a'.*non-numeric value 'x' on data line 2"),
    ("a\ty\nc\td\n\tclass\n1\tg\n2\tb\n3\tc\n", "3 distinct values"),
    ("a\ty\nc\td\n\tclass\n1\tg\n2\t?\n", "class column 'y' is missing on data line 2"),
    ("a\ty\nc\td\n\tclass\n", "needs 3 header lines"),
])
def test_orange_tab_bad_files_name_file_and_problem(tmp_path, text, match):
    p = _write(tmp_path, text, "bad.tab")
    with pytest.raises(InputFileError, match=match) as info:
        read_orange_tab(p)
    assert str(p) in str(info.value)


# ------------------------------------------------------------------- MCAR
@pytest.mark.parametrize("d, fraction", [(9, 0.5), (9, 0.9), (30, 0.5), (32, 0.9), (64, 0.25), (5, 0.0)])
def test_mcar_removes_exactly_round_fd_per_instance(d, fraction):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(200, d))
    Z = remove_mcar(X, fraction, seed=3)
    k = int(round(fraction * d))
    assert (np.isnan(Z).sum(axis=1) == k).all()
    keep = ~np.isnan(Z)
    np.testing.assert_array_equal(Z[keep], X[keep])  # the rest is untouched
    assert not np.isnan(X).any()  # input not modified


def test_mcar_is_seeded_and_uniform_over_features():
    X = np.zeros((4000, 10))
    a, b = remove_mcar(X, 0.3, seed=11), remove_mcar(X, 0.3, seed=11)
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
    assert not np.array_equal(np.isnan(a), np.isnan(remove_mcar(X, 0.3, seed=12)))
    # each feature removed with probability 3/10: 4000 rows -> 1200 +- ~29 (sd)
    per_feature = np.isnan(a).sum(axis=0)
    assert np.all(np.abs(per_feature - 1200) < 6 * np.sqrt(4000 * 0.3 * 0.7))
    # rows are drawn independently: 200 rows over C(10,3) = 120 patterns give
    # ~97 distinct ones in expectation (1 if all rows shared a pattern)
    assert len({tuple(r) for r in np.isnan(a[:200])}) > 80


@pytest.mark.parametrize("fraction", [-0.1, 1.0, "0.5", True])
def test_mcar_bad_fraction(fraction):
    with pytest.raises(GeomarginInputError, match="'fraction' parameter of remove_mcar"):
        remove_mcar(np.ones((2, 3)), fraction, seed=0)


# ------------------------------------------------------------ digit patch
def test_digits_patch_is_contiguous_square_of_a_quarter():
    X = np.arange(64.0)[None, :].repeat(500, axis=0)
    Z, origins = remove_square_patch(X, (8, 8), 0.25, seed=5, return_origins=True)
    for row, (r0, c0) in zip(Z, origins):
        mask = np.isnan(row).reshape(8, 8)
        assert mask.sum() == 16
        rows, cols = np.nonzero(mask)
        # the NaN pixels are exactly the 4x4 square at the reported origin
        assert (rows.min(), cols.min()) == (r0, c0)
        assert rows.max() - rows.min() == 3 and cols.max() - cols.min() == 3
        expected = np.zeros((8, 8), bool)
        expected[r0:r0 + 4, c0:c0 + 4] = True
        np.testing.assert_array_equal(mask, expected)
        np.testing.assert_array_equal(row[~mask.ravel()], np.arange(64.0)[~mask.ravel()])
    # every one of the 5 x 5 positions where a 4x4 square fits occurs
    assert len({tuple(o) for o in origins}) == 25
    Z2 = remove_square_patch(X, (8, 8), 0.25, seed=5)
    np.testing.assert_array_equal(np.isnan(Z), np.isnan(Z2))
    assert not np.array_equal(np.isnan(Z), np.isnan(remove_square_patch(X, (8, 8), 0.25, seed=6)))


def test_patch_fraction_must_be_a_fitting_square():
    with pytest.raises(GeomarginInputError, match=r"fraction 0.3 .* valid fractions: .*0.25"):
        remove_square_patch(np.zeros((1, 64)), (8, 8), 0.3, seed=0)
    with pytest.raises(GeomarginInputError, match="rows of 8x8=64 pixels"):
        remove_square_patch(np.zeros((1, 63)), (8, 8), 0.25, seed=0)


def _sklearn_member(name: str) -> Path:
    """The registered scikit-learn wheel member, read from the installed
    scikit-learn (the same bytes: the sha256 is checked)."""
    import sklearn

    from geomargin.data.fetch import load_registry

    entry = load_registry()[name]
    member = entry["sources"][0]["pypi_wheel"]
    if sklearn.__version__ != member["version"]:
        pytest.skip(f"installed scikit-learn {sklearn.__version__} != registered {member['version']}")
    path = Path(sklearn.__file__).parent.parent / member["member"]
    assert hashlib.sha256(path.read_bytes()).hexdigest() == entry["sha256"]
    return path


def test_digits_pair_and_patch_scenario():
    ds = load_dataset("digits56", _sklearn_member("digits"))
    from sklearn.datasets import load_digits

    ref = load_digits()  # independent reader of the same file
    keep = np.isin(ref.target, [5, 6])
    np.testing.assert_array_equal(ds.X, ref.data[keep])
    np.testing.assert_array_equal(ds.y, ref.target[keep] == 6)
    assert ds.X.shape == (363, 64) and int(ds.y.sum()) == 181
    Z = apply_scenario(ds, "patch25", seed=0, standardize=False)
    assert (np.isnan(Z).sum(axis=1) == 16).all()
    wdbc = load_dataset("wdbc", _sklearn_member("wdbc"))
    with pytest.raises(GeomarginInputError, match="not an image dataset"):
        apply_scenario(wdbc, "patch25", seed=0)
    with pytest.raises(GeomarginInputError, match="'positive' parameter of load_digits_pair"):
        load_digits_pair(_sklearn_member("digits"), 5, 12)


def test_wdbc_member_matches_scikit_learn():
    ds = load_dataset("wdbc", _sklearn_member("wdbc"))
    from sklearn.datasets import load_breast_cancer

    ref = load_breast_cancer()
    np.testing.assert_array_equal(ds.X, ref.data)
    np.testing.assert_array_equal(ds.y, ref.target)
    assert ds.feature_names == list(ref.feature_names)
    assert ds.class_names == ["malignant", "benign"]


def test_bad_wdbc_and_digits_files_are_named(tmp_path):
    bad = _write(tmp_path, "569,30,malignant,benign\n1,2,x\n", "wdbc.csv")
    with pytest.raises(GeomarginInputError, match="wdbc.csv"):
        load_dataset("wdbc", bad)
    nohead = _write(tmp_path, "1,2,3\n", "nohead.csv")
    with pytest.raises(GeomarginInputError, match="expected the header"):
        load_dataset("wdbc", nohead)
    short = _write(tmp_path, "0,1,2\n", "digits.csv")
    with pytest.raises(GeomarginInputError, match="expected 64 pixels"):
        load_dataset("digits56", short)
    with pytest.raises(GeomarginInputError, match="does not exist"):
        load_dataset("digits56", tmp_path / "missing.csv.gz")


# ------------------------------------------------------------ scenarios
def test_parse_scenario_and_standardize_observed():
    assert parse_scenario("mcar50") == ("mcar", 0.5)
    assert parse_scenario("patch25") == ("patch", 0.25)
    with pytest.raises(GeomarginInputError, match="Unknown missingness scenario 'mcar'"):
        parse_scenario("mcar")
    rng = np.random.default_rng(0)
    X = remove_mcar(rng.normal(3, 2, size=(50, 4)), 0.5, seed=0)
    X[:, 3] = np.where(np.isnan(X[:, 3]), np.nan, 5.0)  # constant column: only centred
    Z = standardize_observed(X)
    np.testing.assert_array_equal(np.isnan(Z), np.isnan(X))
    np.testing.assert_allclose(np.nanmean(Z, axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(np.nanstd(Z[:, :3], axis=0), 1, atol=1e-12)
    np.testing.assert_allclose(Z[:, :3], (X[:, :3] - np.nanmean(X[:, :3], 0)) / np.nanstd(X[:, :3], 0))


def test_load_dataset_errors():
    with pytest.raises(GeomarginInputError, match="Valid names: wdbc, digits56, ionosphere"):
        load_dataset("iris", None)
    with pytest.raises(GeomarginInputError, match="python -m geomargin.data.fetch ionosphere"):
        load_dataset("ionosphere", None)


# ---------------------------------------------- real members (if fetched)
def _fetched(name: str) -> Path:
    from geomargin.data.fetch import load_registry

    entry = load_registry()[name]
    base = Path(os.environ.get("GEOMARGIN_DOWNLOAD_DIR", REPO / "data" / "downloads"))
    path = base / entry["path"]
    if not path.is_file():
        pytest.skip(f"{path} not fetched (python -m geomargin.data.fetch {name} --dest {base}); "
                    "tests never download")
    assert hashlib.sha256(path.read_bytes()).hexdigest() == entry["sha256"]
    return path


def test_real_ionosphere_member():
    ds = load_dataset("ionosphere", _fetched("ionosphere"))
    # UCI ionosphere: 351 radar returns, 225 good / 126 bad; Orange ignores a1, a2
    assert ds.X.shape == (351, 32)
    assert ds.feature_names[0] == "a3" and ds.info["dropped_columns"] == ["a1", "a2"]
    assert ds.class_names == ["b", "g"] and int(ds.y.sum()) == 225
    assert not np.isnan(ds.X).any() and np.abs(ds.X).max() <= 1


def test_real_wisconsin_member():
    ds = load_dataset("wisconsin", _fetched("wisconsin"))
    # UCI breast-cancer-wisconsin without its 16 incomplete rows: 444 benign, 239 malignant
    assert ds.X.shape == (683, 9)
    assert ds.class_names == ["benign", "malign"] and int(ds.y.sum()) == 239
    assert not np.isnan(ds.X).any() and ds.X.min() >= 0 and ds.X.max() <= 10
