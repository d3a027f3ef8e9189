"""Huh et al. 2003 YeastGFP localization table.

The table (``yeastgfp.csv`` as shipped by CHNOSZ, optionally ``.xz``/``.gz``
compressed) has columns ``yORF, gene name, GFP tagged?, GFP visualized?,
abundance`` and then 23 localization categories (``ambiguous``,
``mitochondrion``, ... ``bud``) holding ``T``/``F``.

Example
-------
>>> import tempfile, os
>>> p = os.path.join(tempfile.mkdtemp(), "gfp.csv")
>>> _ = open(p, "w").write('yORF,"gene name",abundance,nucleus,cytoplasm\\n'
...                        'YAL001C,TFC3,125,T,F\\nYAL002W,VPS8,7,F,F\\n')
>>> load_yeastgfp(p)
         nucleus  cytoplasm
gene                       
YAL001C        1          0
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from geomargin.common.exceptions import InputFileError
from geomargin.featurize.metabolic.expression import _first_line, check_header_line, resolve_duplicates
from geomargin.featurize.metabolic.genes import canonical_ids

__all__ = ["load_yeastgfp"]

_META = {"yorf", "gene name", "gfp tagged?", "gfp visualized?", "abundance"}


def load_yeastgfp(path: str | Path, *, drop_unlocalized: bool = True, duplicates: str = "error",
                  notes: list | None = None) -> pd.DataFrame:
    """Read the YeastGFP table into ORF x localization category (0/1, int8).

    Parameters
    ----------
    path : path
        CSV (compression inferred from the suffix).
    drop_unlocalized : bool, default True
        Drop ORFs with no ``T`` in any category (not visualized): they carry no
        localization and are treated as absent, not as "nowhere".
    duplicates : {"error", "first", "mean"}, default "error"
        Several rows of one ORF that disagree (see
        :func:`geomargin.featurize.metabolic.expression.resolve_duplicates`; ``"mean"`` keeps a
        category if any row has it).
    notes : list, optional
        Receives a :class:`geomargin.featurize.metabolic.genes.GeneIdNote` per id changed to its
        canonical form or duplicate merged (file and line).

    Returns
    -------
    DataFrame
        Index upper-case ORF (``gene``), one column per category (all columns
        after ``abundance``, or all but the metadata columns).
    """
    path = Path(path)
    if not path.is_file():
        raise InputFileError(path, "localization file not found",
                             "check the path or fetch the data first")
    try:
        raw = pd.read_csv(path, dtype=str, keep_default_na=False)
    except pd.errors.EmptyDataError as exc:
        raise InputFileError(path, "is empty (no header line)",
                             "expected the YeastGFP table (yORF, ..., T/F columns)") from exc
    except Exception as exc:  # pandas raises several types for corrupt input
        raise InputFileError(path, f"cannot be read as CSV: {exc}",
                             "expected the YeastGFP table (yORF, ..., T/F columns)") from exc
    check_header_line(path, _first_line(path, sep=","), None,
                      "yORF, gene name, ..., then one T/F column per localization category")
    lower = [c.strip().lower() for c in raw.columns]
    if not lower or lower[0] != "yorf":
        raise InputFileError(path, f"first column is {raw.columns[0] if len(raw.columns) else None!r}",
                             "expected 'yORF' then the localization categories")
    cats = [c for c, lc in zip(raw.columns, lower) if lc not in _META]
    if not cats:
        raise InputFileError(path, "has no localization columns",
                             "expected T/F columns such as 'nucleus'")
    vals = raw[cats].apply(lambda s: s.str.strip().str.upper())
    ok = vals.isin({"T", "F"}).to_numpy()
    if not ok.all():
        i, j = np.argwhere(~ok)[0]
        raise InputFileError(
            path, f"value {raw[cats].iat[i, j]!r} at line {i + 2} (ORF {raw.iat[i, 0]!r}), "
                  f"column {cats[j]!r}", "expected T or F")
    lines = list(range(2, len(raw) + 2))
    ids = canonical_ids(raw.iloc[:, 0], source=str(path), lines=lines, notes=notes,
                        expected="a yeast ORF name (letters, digits and -)")
    out = pd.DataFrame((vals.to_numpy() == "T").astype(np.int8),
                       index=pd.Index(ids, name="gene"), columns=[str(c) for c in cats])
    out = resolve_duplicates(out, source=str(path), lines=lines, policy=duplicates, reduce="max",
                             notes=notes).astype(np.int8)
    if drop_unlocalized:
        out = out[out.to_numpy().any(axis=1)]
    return out.sort_index()
