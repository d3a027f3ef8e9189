"""Small tabular benchmarks for the missing-completely-at-random (MCAR)
sanity check (the removal protocols are in :mod:`geomargin.featurize.tabular.missingness`).

Datasets (all binary):

* ``wdbc`` — the Wisconsin diagnostic breast cancer table (569 x 30) that
  :func:`~sklearn.datasets.load_breast_cancer` reads, taken as a member of
  the scikit-learn wheel (registry name ``wdbc``), read by :func:`load_wdbc`.
* ``digits56`` — the 8 x 8 digits that :func:`~sklearn.datasets.load_digits`
  reads (registry name ``digits``, same wheel), restricted to the digits 5
  and 6 (64 pixels, values 0..16), read by :func:`load_digits_pair`.
* ``ionosphere`` and ``wisconsin`` — Orange ``.tab`` tables from the
  ``orange3`` wheel (registered in ``data/registry.yaml``), read with
  :func:`read_orange_tab`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from geomargin.common.exceptions import GeomarginInputError, InputFileError

__all__ = [
    "TabularDataset",
    "read_orange_tab",
    "load_wdbc",
    "load_digits_pair",
    "load_dataset",
    "DATASETS",
]

#: Dataset names understood by :func:`load_dataset` and the registry name of
#: the file each is read from.
DATASETS: dict[str, str] = {
    "wdbc": "wdbc",
    "digits56": "digits",
    "ionosphere": "ionosphere",
    "wisconsin": "wisconsin",
}

_CONTINUOUS = {"c", "continuous"}
_DISCRETE = {"d", "discrete"}
_STRING = {"s", "string", "text"}
_TIME = {"t", "time"}


@dataclass
class TabularDataset:
    """A binary classification table.

    Attributes
    ----------
    name : str
    X : ndarray of shape (n_samples, n_features)
        float64; NaN = missing.
    y : ndarray of shape (n_samples,)
        int labels in {0, 1}; ``class_names[y]`` is the original label.
    feature_names : list of str
    class_names : list of str
        Two original labels, index = encoded label.
    image_shape : tuple of int, optional
        ``(H, W)`` when each row is a flattened image (row-major).
    """

    name: str
    X: np.ndarray
    y: np.ndarray
    feature_names: list[str]
    class_names: list[str]
    image_shape: tuple[int, int] | None = None
    info: dict = field(default_factory=dict)


# ------------------------------------------------------------------ .tab
def read_orange_tab(path: str | Path, name: str | None = None) -> TabularDataset:
    """Read an Orange ``.tab`` file with a binary class.

    Format: tab-separated; line 1 variable names; line 2 types
    (``c``/``continuous``, ``d``/``discrete``, a space-separated list of
    discrete values, ``s``/``string``); line 3 flags (``class`` marks the
    target, ``i`` = ignore, ``m``/``meta`` = meta attribute such as an id);
    then one instance per line, ``?`` (or an empty cell) = missing.

    Continuous and numeric discrete attributes become features; ignored,
    meta and string columns (ids, names) are dropped. Discrete attributes
    with non-numeric values are refused (encode them first). The class must
    have exactly two values; they are encoded 0/1 in the order of the
    declared value list when the type line gives one, else sorted.

    Parameters
    ----------
    path : path
        The ``.tab`` file.
    name : str, optional
        Dataset name (default: file stem).

    Returns
    -------
    TabularDataset

    Raises
    ------
    InputFileError
        Missing header lines, no or several class columns, a non-numeric
        feature value, a class with other than two values or a missing label.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "toy.tab"
    >>> _ = p.write_text("id\\tx\\ty\\n"
    ...                  "s\\tc\\tno yes\\n"
    ...                  "meta\\t\\tclass\\n"
    ...                  "a\\t1.5\\tyes\\n"
    ...                  "b\\t?\\tno\\n")
    >>> ds = read_orange_tab(p)
    >>> ds.feature_names, ds.X.ravel().tolist(), ds.y.tolist(), ds.class_names
    (['x'], [1.5, nan], [1, 0], ['no', 'yes'])
    """
    path = Path(path)
    try:
        lines = path.read_text().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputFileError(path, f"cannot be read: {exc}",
                             "give an Orange .tab file (fetch it with python -m geomargin.data.fetch)") from exc
    if len(lines) < 4:
        raise InputFileError(path, f"has {len(lines)} line(s); an Orange .tab file needs 3 header "
                             "lines (names, types, flags) and at least one data line")
    names = lines[0].split("\t")
    d = len(names)

    def header(i: int) -> list[str]:
        cells = lines[i].split("\t")
        if len(cells) > d:
            raise InputFileError(path, f"header line {i + 1} has {len(cells)} cells but line 1 names "
                                 f"{d} variables")
        return [c.strip() for c in cells] + [""] * (d - len(cells))

    types, flags = header(1), header(2)
    data = pd.read_csv(path, sep="\t", header=None, skiprows=3, names=names, dtype=str,
                       keep_default_na=False, na_filter=False)
    flag_sets = [set(f.split()) for f in flags]
    class_cols = [n for n, f in zip(names, flag_sets) if "class" in f]
    if len(class_cols) != 1:
        raise InputFileError(path, f"line 3 (flags) marks {len(class_cols)} columns as 'class' "
                             f"({class_cols}); expected exactly one target column")
    target = class_cols[0]
    features, dropped = [], []
    for n, t, f in zip(names, types, flag_sets):
        if n == target:
            continue
        if f & {"i", "ignore", "m", "meta"} or t.lower() in _STRING | _TIME:
            dropped.append(n)
            continue
        features.append(n)

    def clean(col: pd.Series) -> pd.Series:
        col = col.str.strip()
        return col.mask(col.isin(["?", "", "~", "NA", "nan"]))

    X = np.empty((len(data), len(features)))
    for j, n in enumerate(features):
        col = clean(data[n])
        num = pd.to_numeric(col, errors="coerce")
        bad = col.notna() & num.isna()
        if bad.any():
            r = int(np.flatnonzero(bad.to_numpy())[0])
            raise InputFileError(path, f"column {n!r} (type {types[names.index(n)]!r}) has the "
                                 f"non-numeric value {col.iloc[r]!r} on data line {r + 1}",
                                 "only numeric attributes become features; mark others 'i' (ignore)")
        X[:, j] = num.to_numpy(dtype=float)
    lab = clean(data[target])
    if lab.isna().any():
        r = int(np.flatnonzero(lab.isna().to_numpy())[0])
        raise InputFileError(path, f"class column {target!r} is missing on data line {r + 1}",
                             "drop unlabelled rows")
    declared = types[names.index(target)].split()
    values = sorted(lab.unique())
    if len(declared) >= 2 and declared[0].lower() not in _DISCRETE | _CONTINUOUS:
        order = [v for v in declared if v in set(values)]
    else:
        order = values
    if len(values) != 2 or len(order) != 2:
        raise InputFileError(path, f"class column {target!r} has {len(values)} distinct values "
                             f"{values[:10]}; expected exactly two (binary labels)")
    y = (lab.to_numpy() == order[1]).astype(int)
    return TabularDataset(name=name or path.stem, X=X, y=y, feature_names=features,
                          class_names=list(order),
                          info={"source": str(path), "dropped_columns": dropped, "target": target})


# -------------------------------------------------------------- sklearn
_WDBC_MEASURES = ["radius", "texture", "perimeter", "area", "smoothness", "compactness",
                  "concavity", "concave points", "symmetry", "fractal dimension"]


def _read_csv_numbers(path: str | Path, what: str, skip_header: bool) -> np.ndarray:
    """A comma-separated numeric table (``.gz`` transparently)."""
    path = Path(path)
    try:
        table = pd.read_csv(path, header=None, skiprows=1 if skip_header else 0,
                            compression="infer", dtype=float)
    except FileNotFoundError:
        raise GeomarginInputError(f"{path}: the {what} file does not exist.") from None
    except (ValueError, pd.errors.ParserError, OSError, EOFError) as exc:
        raise GeomarginInputError(f"{path}: not a numeric comma-separated {what} table "
                                  f"({exc}).") from None
    return table.to_numpy()


def load_wdbc(path: str | Path) -> TabularDataset:
    """The breast cancer (WDBC) table shipped in the scikit-learn wheel
    (registry name ``wdbc``): 569 x 30, y 1 = benign.

    The file's first line is ``569,30,malignant,benign``; each further row
    holds the 30 features and the class (0 malignant, 1 benign).
    """
    path = Path(path)
    try:
        with open(path) as fh:
            head = fh.readline().strip().split(",")
    except FileNotFoundError:
        raise GeomarginInputError(f"{path}: the WDBC file does not exist.") from None
    if len(head) != 4 or not all(h.isdigit() for h in head[:2]):
        raise GeomarginInputError(f"{path}: expected the header 'n_samples,n_features,"
                                  f"name0,name1' of scikit-learn's breast_cancer.csv, got "
                                  f"{','.join(head)!r}.")
    n, d = int(head[0]), int(head[1])
    A = _read_csv_numbers(path, "WDBC", skip_header=True)
    if A.shape != (n, d + 1) or not np.isin(A[:, -1], [0, 1]).all():
        raise GeomarginInputError(f"{path}: expected {n} rows of {d} features and a 0/1 class, "
                                  f"got a {A.shape[0]} x {A.shape[1]} table.")
    names = ([f"mean {m}" for m in _WDBC_MEASURES] + [f"{m} error" for m in _WDBC_MEASURES]
             + [f"worst {m}" for m in _WDBC_MEASURES])
    return TabularDataset(name="wdbc", X=A[:, :d], y=A[:, -1].astype(int),
                          feature_names=names if d == len(names) else [f"f{j}" for j in range(d)],
                          class_names=head[2:], info={"source": str(path)})


def load_digits_pair(path: str | Path, negative: int = 5, positive: int = 6) -> TabularDataset:
    """Two classes (default 5 vs 6) of the 8x8 digits shipped in the
    scikit-learn wheel (registry name ``digits``), y 1 = ``positive``.

    Each row of the (gzipped) file holds 64 pixel counts, row by row, and the
    digit.
    """
    for arg, v in (("negative", negative), ("positive", positive)):
        if not isinstance(v, (int, np.integer)) or not 0 <= v <= 9:
            raise GeomarginInputError(f"The {arg!r} parameter of load_digits_pair must be a digit "
                                      f"0..9. Got {v!r} instead.")
    if negative == positive:
        raise GeomarginInputError(f"load_digits_pair needs two different digits. Got {negative} twice.")
    A = _read_csv_numbers(path, "digits", skip_header=False)
    if A.ndim != 2 or A.shape[1] != 65:
        raise GeomarginInputError(f"{path}: expected 64 pixels and the digit per row, got "
                                  f"{A.shape[1] if A.ndim == 2 else 0} columns.")
    keep = np.isin(A[:, -1], [negative, positive])
    return TabularDataset(name=f"digits{negative}{positive}", X=A[keep, :64],
                          y=(A[keep, -1] == positive).astype(int),
                          feature_names=[f"pixel_{r}_{c}" for r in range(8) for c in range(8)],
                          class_names=[str(negative), str(positive)], image_shape=(8, 8),
                          info={"source": str(path)})


def load_dataset(name: str, path: str | Path) -> TabularDataset:
    """Load a benchmark by name (see :data:`DATASETS`) from its fetched file
    (``python -m geomargin.data.fetch REGISTRY_NAME --dest DIR``)."""
    if name not in DATASETS:
        raise GeomarginInputError(f"Unknown tabular dataset {name!r}. Valid names: "
                                  f"{', '.join(DATASETS)}.")
    if path is None:
        raise GeomarginInputError(f"Dataset {name!r} is read from a file: pass its path (registry "
                                  f"name {DATASETS[name]!r}; python -m geomargin.data.fetch {DATASETS[name]}).")
    if name == "wdbc":
        return load_wdbc(path)
    if name == "digits56":
        return load_digits_pair(path, 5, 6)
    return read_orange_tab(path, name=name)

