"""Expression tables: genes (systematic ORF names) x conditions.

Reads tab-separated tables whose first column holds gene ids and whose other
columns hold one condition each (log ratios), as in the Gasch 2000 subset of
Prelić et al. (``gene, cond0 .. cond172``) and the Spellman 1998 / Pramila
2006 cell-cycle series (``NA`` for missing spots). Several tables are joined on
the ORF (outer join) with their columns prefixed by a short source name.

Example
-------
>>> import io, tempfile, os
>>> d = tempfile.mkdtemp()
>>> p = os.path.join(d, "gasch2000_subset.tsv")
>>> _ = open(p, "w").write("gene\\tcond0\\tcond1\\nYAL001C\\t0.5\\tNA\\n")
>>> load_expression([p]).columns.tolist()
['gasch_cond0', 'gasch_cond1']
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from geomargin.common.exceptions import DuplicateGeneError, GeneIdError, InputFileError
from geomargin.featurize.metabolic.genes import GeneIdNote, canonical_ids

__all__ = ["ORF_PATTERN", "DUPLICATE_POLICIES", "is_orf", "usable_profiles", "load_expression",
           "resolve_duplicates", "check_header_line", "is_number_or_missing"]

#: Systematic names of S. cerevisiae genes: nuclear ORFs (``YAL001C``,
#: ``YER060W-A``), mitochondrial (``Q0045``) and 2-micron plasmid (``R0010W``)
#: genes, SGD systematic names of non-reference (``YSC0001``) and ncRNA
#: (``YNCB0011C``) genes.
ORF_PATTERN = re.compile(
    r"^(Y[A-P][LR]\d{3}[WC](-[A-Z])?|Q\d{4}|R\d{4}[WC]|YSC\d{4}|YNC[A-Q]\d{4}[WC])$")

#: Cell values read as missing.
MISSING_TOKENS = frozenset({"", "NA", "NAN", "NULL", "NONE", "N/A", "-"})

#: What to do with several rows of one gene (after normalisation) whose
#: values differ: stop (``error``), keep the ``first`` row, or average them
#: (``mean``). Identical duplicate rows are always merged, with a note.
DUPLICATE_POLICIES = ("error", "first", "mean")


def is_orf(name: str) -> bool:
    """True if ``name`` (already normalized) is a yeast systematic gene name."""
    return bool(ORF_PATTERN.match(name))


def is_number_or_missing(cell: str) -> bool:
    """True if ``cell`` is a number or a missing-value token (an expression value)."""
    text = str(cell).strip()
    if text.upper() in MISSING_TOKENS:
        return True
    try:
        float(text)
    except ValueError:
        return False
    return True


def check_header_line(path: str | Path, cells: Sequence[object], is_value, expected: str) -> None:
    """Stop if the first line of table ``path`` (its ``cells``) is a record,
    not a header: a yeast gene id in the id column and a value (``is_value``,
    a test of one cell; None: any cell) in every other non-empty cell. Read as a header, that record's gene would
    vanish and the columns would be named after its values.

    Raises
    ------
    InputFileError
        Naming the file, the first line's gene id and values, and
        ``expected`` (what the header holds).

    Examples
    --------
    >>> check_header_line("t.tsv", ["gene", "cond0"], is_number_or_missing, "gene, conditions")
    >>> check_header_line("t.tsv", ["YAL001C", "0.5", "NA"], is_number_or_missing, "gene, conditions")
    Traceback (most recent call last):
    ...
    geomargin.common.exceptions.InputFileError: t.tsv: line 1 is a record, not a header: gene 'YAL001C' with the values '0.5', 'NA' (expected a header line first (gene, conditions); the header line seems lost)
    """
    cells = ["" if c is None else str(c) for c in cells]
    if len(cells) < 2:
        return
    gene = cells[0].strip().lstrip("\ufeff").upper()
    values = [c for c in cells[1:] if c.strip()]
    if is_orf(gene) and values and (is_value is None or all(is_value(c) for c in values)):
        shown = ", ".join(repr(c.strip()) for c in values[:3]) + (", ..." if len(values) > 3 else "")
        raise InputFileError(path, f"line 1 is a record, not a header: gene {cells[0].strip()!r} with the "
                             f"values {shown}",
                             f"expected a header line first ({expected}); the header line seems lost")


def _short_name(path: Path) -> str:
    m = re.match(r"[a-z]+", path.name.lower())
    return m.group(0) if m else "expr"


def resolve_duplicates(df: pd.DataFrame, *, source: str, lines: Sequence[int] | None = None,
                       policy: str = "error", reduce: str = "mean",
                       notes: list | None = None) -> pd.DataFrame:
    """One row per gene of ``df`` (index: canonical gene ids).

    Rows of one gene with identical values (NaN equal to NaN) are merged, with
    a note. Rows whose values differ follow ``policy``: ``"error"`` raises
    :class:`DuplicateGeneError` (count, example ids and lines), ``"first"``
    keeps the first row, ``"mean"`` combines them with ``reduce`` (``"mean"``
    for numbers, ``"max"`` for 0/1 tables); each is noted.
    """
    if policy not in DUPLICATE_POLICIES:
        raise ValueError(f"The 'duplicates' parameter must be one of {DUPLICATE_POLICIES}. "
                         f"Got {policy!r} instead.")
    if not df.index.has_duplicates:
        return df
    lines = list(lines) if lines is not None else [None] * len(df)
    dup_mask = df.index.duplicated(keep=False)
    sub = df[dup_mask]
    sub_lines = [ln for ln, d in zip(lines, dup_mask) if d]
    conflicting, identical = [], []
    for gene, rows in sub.groupby(level=0, sort=False):
        vals = rows.to_numpy(dtype=np.float64)
        same = np.all((vals == vals[0]) | (np.isnan(vals) & np.isnan(vals[0])))
        where = [ln for ln, g in zip(sub_lines, sub.index) if g == gene]
        (identical if same else conflicting).append((gene, where))

    def examples(items):
        return ", ".join(f"{g} (lines {', '.join(str(w) for w in ws)})" for g, ws in items[:5])

    if identical and notes is not None:
        notes.append(GeneIdNote(source, None, "", "", (), problem=(
            f"{len(identical)} gene(s) on several identical rows, merged: {examples(identical)}")))
    if conflicting:
        if policy == "error":
            raise DuplicateGeneError(
                f"{source}: {len(conflicting)} gene(s) on several rows with different values "
                f"(after normalising ids), e.g. {examples(conflicting)}; set config key "
                "metabolic.duplicate_genes to 'first' or 'mean' to combine them, or fix the table")
        if notes is not None:
            notes.append(GeneIdNote(source, None, "", "", (), problem=(
                f"{len(conflicting)} gene(s) on several rows with different values, "
                f"combined by {policy!r}: {examples(conflicting)}")))
    if policy == "first":
        return df[~df.index.duplicated(keep="first")]
    grouped = df.groupby(level=0, sort=False)
    return grouped.mean() if reduce == "mean" else grouped.max()


def _first_line(path: Path, sep: str) -> list[str]:
    """The cells of the first line of table ``path`` as written (no renaming
    of repeated names, compression inferred from the suffix)."""
    first = pd.read_csv(path, sep=sep, header=None, nrows=1, dtype=str, keep_default_na=False,
                        na_filter=False)
    return [str(c) for c in first.iloc[0]] if len(first) else []


def _read_one(path: Path, orf_only: bool, duplicates: str = "error",
              notes: list | None = None) -> pd.DataFrame:
    if not path.is_file():
        raise InputFileError(path, "expression file not found",
                             "check the path or fetch the data first")
    try:
        raw = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False,
                          na_filter=False)
    except pd.errors.EmptyDataError as exc:
        raise InputFileError(path, "is empty (no header line)",
                             "expected a header line (gene id column, then conditions) "
                             "and one gene per line") from exc
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise InputFileError(path, f"cannot be parsed as a tab-separated table: {exc}",
                             "expected a header line then one gene per line") from exc
    except OSError as exc:
        raise InputFileError(path, f"cannot be read: {type(exc).__name__}: {exc.strerror or exc}",
                             "check the file's permissions") from exc
    check_header_line(path, _first_line(path, sep="\t"), is_number_or_missing,
                      "the gene id column's name, then one name per condition")
    if raw.shape[1] < 2 or raw.shape[0] == 0:
        raise InputFileError(path, f"has {raw.shape[0]} rows and {raw.shape[1]} columns",
                             "expected a gene-id column and at least one condition column")
    lines = list(range(2, len(raw) + 2))
    local: list = []
    ids = canonical_ids(raw.iloc[:, 0], source=str(path), lines=lines, notes=local, invalid="keep")
    # an id that still holds non-ASCII characters after normalisation is not
    # understood (e.g. a look-alike letter): stop rather than drop the row
    odd = [(ln, r, c) for ln, r, c in zip(lines, raw.iloc[:, 0], ids) if not c.isascii() or not c]
    if odd:
        ln, r, c = odd[0]
        raise GeneIdError(f"{path}: line {ln}: gene id {r!r} is not a valid gene id after normalisation "
                          f"({c!r}; expected ASCII letters, digits and _ . : -); {len(odd)} such id(s) in all")
    values = raw.iloc[:, 1:]
    cols = [str(c) for c in values.columns]
    if len(set(cols)) != len(cols):
        dup = sorted({c for c in cols if cols.count(c) > 1})
        raise InputFileError(path, f"duplicate condition columns {dup[:5]}",
                             "condition names must be unique")
    text = values.apply(lambda s: s.str.strip())
    missing = text.apply(lambda s: s.str.upper().isin(MISSING_TOKENS))
    num = text.apply(pd.to_numeric, errors="coerce")
    bad = num.isna() & ~missing
    if bad.to_numpy().any():
        i, j = np.argwhere(bad.to_numpy())[0]
        raise InputFileError(
            path,
            f"non-numeric value {text.iat[i, j]!r} at line {i + 2} (gene {raw.iat[i, 0]!r}), "
            f"column {cols[j]!r}",
            "expected a number or NA for a missing value")
    num = num.astype(np.float64)
    inf = ~np.isfinite(num.to_numpy()) & ~np.isnan(num.to_numpy())
    if inf.any():
        i, j = np.argwhere(inf)[0]
        raise InputFileError(path, f"infinite value at line {i + 2}, column {cols[j]!r}",
                             "expected finite log ratios")
    num.index = pd.Index(ids, name="gene")
    if orf_only:
        local = [n for n in local if is_orf(n.canonical)]  # the rows left out are noted below
        keep = np.array([is_orf(g) for g in num.index], dtype=bool)
        for ln, r, c in zip(np.asarray(lines)[~keep], raw.iloc[:, 0][~keep], num.index[~keep]):
            local.append(GeneIdNote(str(path), int(ln), str(r), c, (),
                                    problem="is not a yeast systematic gene name; row left out"))
        num = num[keep]
        lines = list(np.asarray(lines)[keep])
    if notes is not None:
        notes.extend(local)
    return resolve_duplicates(num, source=str(path), lines=lines, policy=duplicates, notes=notes)


def load_expression(paths: str | Path | Sequence[str | Path] | Mapping[str, str | Path],
                    *, orf_only: bool = True, duplicates: str = "error",
                    notes: list | None = None) -> pd.DataFrame:
    """Read one or several expression tables into one genes x conditions frame.

    Parameters
    ----------
    paths : path, sequence of paths, or mapping short name -> path
        Tab-separated tables, header line first; first column gene ids,
        other columns conditions. ``NA`` (and empty, ``NaN``, ``null``) means
        missing. Short names default to the leading letters of the file name
        (``gasch2000_subset.tsv`` -> ``gasch``).
    orf_only : bool, default True
        Keep only rows whose id is a yeast systematic name
        (:data:`ORF_PATTERN`); drops array controls (``blank``, ``Lambda
        Control``) and obsolete ids (``YCLX01W``).

    Returns
    -------
    DataFrame
        Index: upper-case ORF (``gene``), sorted; columns
        ``<short>_<condition>``; float with NaN for missing values. Outer join
        over the files; rows with no value at all are dropped.
    """
    if isinstance(paths, Mapping):
        items = [(str(k), Path(v)) for k, v in paths.items()]
    elif isinstance(paths, (str, Path)):
        items = [(_short_name(Path(paths)), Path(paths))]
    else:
        items = [(_short_name(Path(p)), Path(p)) for p in paths]
    if not items:
        raise ValueError("load_expression: no expression file given")
    seen: dict[str, int] = {}
    frames, keys = [], []
    for short, path in items:
        n = seen.get(short, 0)
        seen[short] = n + 1
        key = short if n == 0 else f"{short}{n + 1}"
        keys.append(key)
        df = _read_one(path, orf_only, duplicates, notes)
        df.columns = [f"{key}_{c}" for c in df.columns]
        frames.append(df)
    out = pd.concat(frames, axis=1, join="outer") if len(frames) > 1 else frames[0]
    out = out[out.notna().any(axis=1)].sort_index()
    out.index.name = "gene"
    out = out.astype(np.float64)
    # which columns came from which file (prefix "<key>_"), e.g. for checking
    # each file's coverage separately
    out.attrs["files"] = {key: str(path) for key, path in zip(keys, [p for _, p in items])}
    return out


def usable_profiles(table: pd.DataFrame, min_conditions: int, *, source: str = "expression") -> pd.DataFrame:
    """``table`` (genes x conditions) with the profiles that carry no signal
    blanked: fewer than ``min_conditions`` measured values, or no variation.

    A correlation with the neighbours' profiles is undefined for them, so a
    source whose every profile is blanked contributes no feature. A table
    with fewer than ``min_conditions`` columns raises
    :class:`geomargin.common.exceptions.ConfigValueError` naming ``source``.

    Examples
    --------
    >>> t = pd.DataFrame({"a": [1.0, 2.0, 1.0], "b": [2.0, 2.0, np.nan], "c": [3.0, 2.0, 5.0]},
    ...                  index=["G1", "G2", "G3"])
    >>> usable_profiles(t, 3).notna().all(axis=1).tolist()
    [True, False, False]
    """
    from geomargin.common.exceptions import ConfigValueError

    if table.shape[1] < min_conditions:
        raise ConfigValueError(
            f"source {source!r} has {table.shape[1]} condition(s); config key metabolic.min_conditions "
            f"requires at least {min_conditions} (a correlation over fewer conditions carries no signal)")
    values = table.to_numpy(dtype=np.float64)
    measured = np.isfinite(values).sum(axis=1)
    with np.errstate(invalid="ignore"):
        spread = np.nanmax(np.where(np.isfinite(values), values, np.nan), axis=1, initial=-np.inf) - \
            np.nanmin(np.where(np.isfinite(values), values, np.nan), axis=1, initial=np.inf)
    ok = (measured >= min_conditions) & (spread > 0)
    return table.where(pd.Series(ok, index=table.index), other=np.nan, axis=0)
