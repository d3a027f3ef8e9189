"""Protein-sequence similarity: the phmmer searches and their table.

:func:`search_homologs` searches each *query* protein (the genes of a
model) against every protein of a proteome (:mod:`geomargin.featurize.metabolic.proteome`)
with ``pyhmmer``'s ``phmmer`` and returns a sparse table, one row per
(query, target) hit: ``query``, ``target`` (canonical ORFs), ``bits`` (the
sequence bit score) and ``evalue`` (over the proteome's size). Rows with
``evalue <= max_evalue`` are kept, and always the row whose target is the
query itself: its ``bits`` is the query's *self-score*, the scale of
:meth:`Homology.shares`. A query whose search does not report itself (a
peptide too short to score) has no self-score and no row.

:class:`Homology` holds the table and the ORFs that have a sequence, as
the ``homology`` feature block reads them
(:mod:`geomargin.featurize.metabolic.pairs.homology`). :func:`write_hits` and
:func:`read_hits` store the table as a gzip TSV.
"""

from __future__ import annotations

import gzip
import io
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from geomargin.common.exceptions import InputFileError
from geomargin.common.io import atomic_path
from geomargin.featurize.metabolic.genes import canonical_gene_id

__all__ = ["HIT_COLUMNS", "Homology", "search_homologs", "write_hits", "read_hits"]

#: Columns of the hit table, in order.
HIT_COLUMNS = ("query", "target", "bits", "evalue")


@dataclass(frozen=True)
class Homology:
    """What the ``homology`` block reads.

    Attributes
    ----------
    hits : DataFrame
        :data:`HIT_COLUMNS` (canonical ORFs), self-score rows included.
    sequenced : frozenset of str
        Canonical ORFs with a protein sequence: a candidate outside it has
        the block absent.
    """

    hits: pd.DataFrame
    sequenced: frozenset

    def self_bits(self) -> dict[str, float]:
        """Query -> its self-score (the row whose target is the query; a
        score <= 0 is no scale and left out)."""
        h = self.hits
        own = h[(h["query"] == h["target"]) & (h["bits"] > 0)]
        return dict(zip(own["query"], own["bits"].astype(float)))

    def shares(self) -> pd.DataFrame:
        """The hits between different genes with ``share`` = bits over the
        query's self-score (columns query, target, share, evalue); queries
        without a self-score left out."""
        h = self.hits
        self_bits = self.self_bits()
        other = h[(h["query"] != h["target"]) & h["query"].isin(self_bits)]
        scale = other["query"].map(self_bits).to_numpy(dtype=float)
        return pd.DataFrame({"query": other["query"].to_numpy(), "target": other["target"].to_numpy(),
                             "share": other["bits"].to_numpy(dtype=float) / scale,
                             "evalue": other["evalue"].to_numpy(dtype=float)})


def search_homologs(sequences: Mapping[str, str], queries: Iterable[str], *, max_evalue: float = 1e-5,
                    cpus: int = 1) -> pd.DataFrame:
    """phmmer of each ORF of ``queries`` that has a sequence against every
    sequence of ``sequences`` (ORF -> amino acids); the table of the module
    docstring, sorted by query then target. ``cpus`` threads."""
    import pyhmmer
    from pyhmmer.easel import Alphabet, DigitalSequenceBlock, TextSequence

    if not max_evalue > 0:
        raise ValueError(f"search_homologs: max_evalue must be > 0; got {max_evalue!r}")
    alphabet = Alphabet.amino()
    orfs = sorted(sequences)
    digital = {o: TextSequence(name=o.encode(), sequence=sequences[o]).digitize(alphabet) for o in orfs}
    targets = DigitalSequenceBlock(alphabet, [digital[o] for o in orfs])
    wanted = sorted({canonical_gene_id(q)[0] for q in queries} & set(digital))
    rows = []
    if wanted:
        block = DigitalSequenceBlock(alphabet, [digital[o] for o in wanted])
        # report every hit (default E <= 10) so that the self-hit is there; filter below
        for hits in pyhmmer.hmmer.phmmer(block, targets, cpus=max(1, int(cpus))):
            query = hits.query.name.decode() if isinstance(hits.query.name, bytes) else str(hits.query.name)
            for hit in hits:
                target = hit.name.decode() if isinstance(hit.name, bytes) else str(hit.name)
                if hit.evalue <= max_evalue or target == query:
                    rows.append((query, target, float(hit.score), float(hit.evalue)))
    table = pd.DataFrame(rows, columns=list(HIT_COLUMNS))
    return table.sort_values(["query", "target"], kind="stable").reset_index(drop=True)


def write_hits(table: pd.DataFrame, path: str | Path) -> None:
    """The hit table as a gzip TSV (bits to 1 decimal, E-values to 3
    significant digits; no time stamp in the gzip header), written
    atomically (:func:`geomargin.common.io.atomic_path`)."""
    out = table[list(HIT_COLUMNS)].copy()
    out["bits"] = out["bits"].map(lambda v: f"{v:.1f}")
    out["evalue"] = out["evalue"].map(lambda v: f"{v:.3g}")
    data = out.to_csv(sep="\t", index=False, lineterminator="\n").encode()
    with atomic_path(path, suffix=".gz") as tmp:
        with open(tmp, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as fh:
            fh.write(data)


def read_hits(path: str | Path) -> pd.DataFrame:
    """A table written by :func:`write_hits`; one-line
    :class:`InputFileError` naming the file and what is wrong."""
    try:
        with gzip.open(path, "rb") as fh:
            table = pd.read_csv(io.BytesIO(fh.read()), sep="\t", dtype={"query": str, "target": str})
    except (OSError, EOFError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise InputFileError(path, f"cannot be read: {exc}",
                             "expected the gzip TSV of the metabolic_homology rule") from exc
    if list(table.columns) != list(HIT_COLUMNS):
        raise InputFileError(path, f"has the columns {list(table.columns)}", f"expected {list(HIT_COLUMNS)}")
    dup = table.duplicated(["query", "target"])
    if dup.any():
        i = int(np.flatnonzero(dup.to_numpy())[0])
        raise InputFileError(path, f"line {i + 2}: the pair ({table['query'].iloc[i]}, "
                             f"{table['target'].iloc[i]}) again", "expected one row per (query, target)")
    for col in ("bits", "evalue"):
        values = pd.to_numeric(table[col], errors="coerce")
        v = values.to_numpy(dtype=float)
        bad = np.flatnonzero(~np.isfinite(v) | ((v < 0) if col == "evalue" else False))
        if bad.size:
            raise InputFileError(path, f"line {bad[0] + 2}: field {col!r} is {table[col].iloc[bad[0]]!r}",
                                 "expected a finite number" + (" >= 0" if col == "evalue" else ""))
        table[col] = values.astype(float)
    return table
