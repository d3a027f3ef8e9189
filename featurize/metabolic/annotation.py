"""SGD GO annotation file (GAF 2.x): gene names, descriptions, localization
and protein domains.

Columns used (1-based, GAF 2.x): 2 DB object id (SGD ID), 3 standard name,
4 qualifier (rows with ``NOT`` are ignored), 5 GO id, 6 reference, 7 evidence,
8 with/from, 9 aspect, 10 description (DB object name), 11 synonyms, 12 DB
object type.

Gene keys: the systematic name, which SGD puts first in column 11. Rows whose
object type is ``protein_complex`` (Complex Portal entries, column 3
``CPX-...``) are not genes and are skipped. For every other row the first
synonym is used as given (upper-cased), which covers nuclear ORFs
(``YAL001C``), ``Q0045``, ``R0010W`` and SGD's systematic names of ncRNA and
non-reference genes (``YNCB0011C``, ``YSC0001``); if column 11 is empty the
standard name (column 3) and then the SGD ID stand in.

Example
-------
>>> import tempfile, os
>>> row = ["SGD", "S000000001", "TFC3", "located_in", "GO:0005634", "PMID:14562095",
...        "HDA", "", "C", "RNA pol III factor", "YAL001C|FUN24", "protein",
...        "taxon:559292", "20031028", "SGD", "", ""]
>>> p = os.path.join(tempfile.mkdtemp(), "x.gaf")
>>> _ = open(p, "w").write("!gaf-version: 2.2\\n" + "\\t".join(row) + "\\n")
>>> ann = parse_gaf(p)
>>> ann.names["YAL001C"], ann.localization.columns.tolist()
('TFC3', ['GO:0005634'])
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from geomargin.common.exceptions import GeneIdError, InputFileError
from geomargin.featurize.metabolic.genes import GeneIdNote, canonical_gene_id, is_valid_gene_id

__all__ = ["GeneAnnotation", "parse_gaf", "HUH2003_REFERENCE", "MEMBRANE_TERMS"]

#: Huh et al. 2003 (Nature 425:686), the genome-wide GFP localization study.
HUH2003_REFERENCE = "PMID:14562095"
#: GO ids whose InterPro2GO rows (``IEA``, an InterPro id in the with/from
#: column) mark a gene as a membrane protein (:attr:`GeneAnnotation.membrane`):
#: membrane, integral component of membrane, transmembrane transport,
#: transmembrane transporter activity.
MEMBRANE_TERMS = frozenset({"GO:0016020", "GO:0016021", "GO:0055085", "GO:0022857"})

_MIN_COLUMNS = 15  # GAF 2.x has 17; the last two are optional in practice


@dataclass
class GeneAnnotation:
    """What the GAF says about each gene, keyed by upper-case systematic name.

    Attributes
    ----------
    names : Series
        ORF -> standard name (the ORF itself when the gene has no standard name).
    descriptions : Series
        ORF -> description (column 10).
    sgd_ids : Series
        ORF -> SGD ID (column 2).
    localization : DataFrame
        ORF x GO cellular-component id, 0/1 (int8): aspect ``C`` rows citing
        ``reference`` (default Huh 2003). Only ORFs with at least one such row.
    domains : DataFrame
        ORF x InterPro id, 0/1 (int8): InterPro ids in the with/from column of
        ``IEA`` rows (InterPro2GO). Only ORFs with at least one domain.
    membrane : frozenset of str
        ORFs with such a row for a GO id of :data:`MEMBRANE_TERMS`: a
        membrane protein by its sequence's domains (the mapping of InterPro
        entries to GO terms, not a curation of the gene).
    """

    names: pd.Series
    descriptions: pd.Series
    sgd_ids: pd.Series
    localization: pd.DataFrame
    domains: pd.DataFrame
    membrane: frozenset = frozenset()


def _binary(pairs: set[tuple[str, str]], index_name: str) -> pd.DataFrame:
    if not pairs:
        return pd.DataFrame(np.zeros((0, 0), dtype=np.int8),
                            index=pd.Index([], name=index_name))
    rows = sorted({a for a, _ in pairs})
    cols = sorted({b for _, b in pairs})
    ri = {g: i for i, g in enumerate(rows)}
    ci = {c: j for j, c in enumerate(cols)}
    m = np.zeros((len(rows), len(cols)), dtype=np.int8)
    for a, b in pairs:
        m[ri[a], ci[b]] = 1
    return pd.DataFrame(m, index=pd.Index(rows, name=index_name), columns=cols)


def parse_gaf(path: str | Path, *, reference: str = HUH2003_REFERENCE,
              notes: list | None = None) -> GeneAnnotation:
    """Parse an SGD GAF 2.x file.

    Parameters
    ----------
    path : path
        The annotation file; lines starting with ``!`` are comments.
    reference : str, default ``"PMID:14562095"``
        Localization keeps cellular-component rows whose reference column
        (6, ``|``-separated) contains this id. ``""`` keeps every ``C`` row.
    notes : list, optional
        Receives a :class:`geomargin.featurize.metabolic.genes.GeneIdNote` for every gene id that
        had to be changed to its canonical form (first line where it occurs).
        An id not valid after normalisation raises
        :class:`geomargin.common.exceptions.GeneIdError` (file, line, id).

    Returns
    -------
    GeneAnnotation
    """
    path = Path(path)
    if not path.is_file():
        raise InputFileError(path, "annotation file not found",
                             "check the path or fetch the data first")
    names: dict[str, str] = {}
    descr: dict[str, str] = {}
    sgd: dict[str, str] = {}
    loc: set[tuple[str, str]] = set()
    dom: set[tuple[str, str]] = set()
    membrane: set[str] = set()
    n_rows = 0
    seen_raw: set[str] = set()
    try:
        fh = open(path, encoding="utf-8-sig", errors="replace")   # a byte-order mark is not data
    except OSError as exc:
        raise InputFileError(path, f"cannot be read: {type(exc).__name__}: {exc.strerror or exc}",
                             "check the file's permissions") from exc
    with fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip() or line.startswith("!"):
                continue
            f = line.rstrip("\n\r").split("\t")
            if len(f) < _MIN_COLUMNS:
                raise InputFileError(
                    path, f"line {lineno} has {len(f)} tab-separated columns: {line[:80]!r}",
                    f"a GAF 2.x row has 17 columns (at least {_MIN_COLUMNS})")
            n_rows += 1
            if len(f) > 11 and f[11].strip() == "protein_complex":
                continue
            raw_key = f[10].split("|")[0] or f[2] or f[1]
            key, changes = canonical_gene_id(raw_key)
            if not key:
                raise InputFileError(path, f"line {lineno} names no gene (columns 2, 3, 11 empty)",
                                     "every GAF row needs a DB object id")
            if raw_key not in seen_raw:
                seen_raw.add(raw_key)
                if not is_valid_gene_id(key):
                    raise GeneIdError(
                        f"{path}: line {lineno}: gene id {raw_key!r} is not a valid gene id after "
                        f"normalisation ({key!r}; expected letters, digits and _ . : -)")
                if changes and notes is not None:
                    notes.append(GeneIdNote(str(path), lineno, raw_key, key, changes))
            names.setdefault(key, f[2].strip() or key)
            if f[9].strip():
                descr.setdefault(key, f[9].strip())
            sgd.setdefault(key, f[1].strip())
            if "NOT" in f[3].upper().split("|"):
                continue
            aspect = f[8].strip()
            go = f[4].strip()
            if aspect not in {"C", "F", "P"}:
                raise InputFileError(path, f"line {lineno}: aspect (column 9) is {aspect!r}",
                                     "expected C, F or P")
            if aspect == "C" and (not reference or reference in f[5].split("|")):
                if not go.startswith("GO:"):
                    raise InputFileError(path, f"line {lineno}: GO id (column 5) is {go!r}",
                                         "expected GO:nnnnnnn")
                loc.add((key, go))
            if f[6].strip() == "IEA" and "InterPro:" in f[7]:
                for item in f[7].replace(",", "|").split("|"):
                    item = item.strip()
                    if item.startswith("InterPro:"):
                        dom.add((key, item[len("InterPro:"):]))
                if go in MEMBRANE_TERMS:
                    membrane.add(key)
    if n_rows == 0:
        raise InputFileError(path, "has no annotation rows", "expected a GAF 2.x file")
    idx = sorted(names)
    return GeneAnnotation(
        names=pd.Series(names, name="name").reindex(idx).rename_axis("gene"),
        descriptions=pd.Series(descr, name="description", dtype=object)
        .reindex(idx).fillna("").rename_axis("gene"),
        sgd_ids=pd.Series(sgd, name="sgd_id").reindex(idx).rename_axis("gene"),
        localization=_binary(loc, "gene"),
        domains=_binary(dom, "gene"),
        membrane=frozenset(membrane),
    )
