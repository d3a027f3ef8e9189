"""Protein sequences per systematic ORF, from yeast-GEM's Swiss-Prot table.

The table (registry ``yeast_swissprot_2018``; ``data/databases/swissprot.tsv``
of yeast-GEM) has one row per Swiss-Prot entry, tab-separated, with the
columns ``uniprot``, ``name``, ``gene_id``, ``ec_code``, ``MW`` and
``sequence``. :func:`load_proteome` reads three of them and nothing else:

``uniprot``
    the accession, kept to name the entry in messages and outputs;
``gene_id``
    a mix of standard names, systematic ORF names and aliases, separated by
    spaces (a few rows also by ``;`` or ``/``). Only the tokens that match
    :data:`ORF_PATTERN` (nuclear ``YKL019W``, ``YER060W-A``; mitochondrial
    ``Q0045``; 2-micron plasmid ``R0010W``) are kept, in their canonical form
    (:func:`geomargin.featurize.metabolic.genes.canonical_gene_id`); old names such as
    ``YCL27W`` or cosmid names such as ``YBR1241`` are not ORFs;
``sequence``
    the protein, one-letter amino-acid codes (:data:`AMINO_ACIDS`).

The columns ``name`` and ``ec_code`` are never read: they are annotations of
2018 (what the protein does, its EC numbers) that could encode the answer of
a time split; the sequences cannot. A row naming several ORFs (Ty elements,
identical paralogs, merged ORFs) gives each the sequence. An ORF named by
several rows takes the sequence of the row that names it earliest among its
ORFs (``YML100W-A`` is the only ORF of ``Q8TGT0`` and the second of
``Q6B2I9``: it is ``Q8TGT0``), ties by the first such row in the file. A
row without an ORF gives no gene a sequence.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from pathlib import Path

from geomargin.common.exceptions import InputFileError
from geomargin.featurize.metabolic.genes import canonical_gene_id

__all__ = ["Proteome", "load_proteome", "orfs_in", "ORF_PATTERN", "AMINO_ACIDS", "PROTEOME_COLUMNS"]

#: Systematic ORF names of *S. cerevisiae* S288C (canonical form).
ORF_PATTERN = re.compile(r"^(?:Y[A-P][LR]\d{3}[WC](?:-[A-Z])?|Q\d{4}|R\d{4}[WC])$")
#: Letters a sequence may hold (the 20 amino acids, U and O, and the
#: ambiguity codes B, Z, J and X).
AMINO_ACIDS = frozenset("ACDEFGHIKLMNPQRSTVWYUOBZJX")
#: The only columns :func:`load_proteome` reads.
PROTEOME_COLUMNS = ("uniprot", "gene_id", "sequence")

_SEPARATORS = re.compile(r"[\s;/]+")


@dataclass(frozen=True)
class Proteome:
    """Protein sequences by ORF.

    Attributes
    ----------
    sequences : dict
        Canonical ORF -> its protein sequence (upper case).
    accession : dict
        Canonical ORF -> the UniProt accession of the row it was taken from.
    without_orf : tuple of str
        Accessions of the rows whose ``gene_id`` names no ORF.
    """

    sequences: dict[str, str]
    accession: dict[str, str]
    without_orf: tuple[str, ...] = field(default=())


def orfs_in(gene_id: str) -> list[str]:
    """The systematic ORF names in a ``gene_id`` cell, canonical, in order,
    each once.

    >>> orfs_in("HHT1 YBR010W YBR0201; HHT2 SIN2 YNL031C N2749")
    ['YBR010W', 'YNL031C']
    >>> orfs_in("TY2B-GR1 YGRCTy2-1B POL YGR038C-D/YGR038C-C")
    ['YGR038C-D', 'YGR038C-C']
    >>> orfs_in("FUS1 YCL027W YCL27W"), orfs_in("COX1 Q0045"), orfs_in("RAF1 R0030W")
    (['YCL027W'], ['Q0045'], ['R0030W'])
    """
    out: list[str] = []
    for token in _SEPARATORS.split(gene_id):
        orf = canonical_gene_id(token)[0] if token else ""
        if orf and ORF_PATTERN.match(orf) and orf not in out:
            out.append(orf)
    return out


def load_proteome(path: str | Path) -> Proteome:
    """Read the columns :data:`PROTEOME_COLUMNS` of the Swiss-Prot table at
    ``path`` (module docstring); one-line :class:`InputFileError` naming the
    file, line, field and value on a table it cannot read."""
    path = Path(path)
    best: dict[str, tuple[int, int, str, str]] = {}  # orf -> (position, line, accession, sequence)
    without: list[str] = []
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
            header = next(reader, None)
            if header is None:
                raise InputFileError(path, "is empty", "expected a tab-separated table with the columns "
                                     + ", ".join(PROTEOME_COLUMNS))
            missing = [c for c in PROTEOME_COLUMNS if c not in header]
            if missing:
                raise InputFileError(path, f"has no column {missing[0]!r} (its header: {', '.join(header)})",
                                     "expected yeast-GEM's swissprot.tsv with the columns "
                                     + ", ".join(PROTEOME_COLUMNS))
            at = [header.index(c) for c in PROTEOME_COLUMNS]
            n_rows = 0
            for line, row in enumerate(reader, start=2):
                if not row:
                    continue
                if len(row) < len(header):
                    raise InputFileError(path, f"line {line} has {len(row)} fields",
                                         f"expected {len(header)} as in the header")
                accession, gene_id, sequence = (row[i].strip() for i in at)
                sequence = sequence.upper()
                bad = sorted(set(sequence) - AMINO_ACIDS)
                if not sequence or bad:
                    raise InputFileError(
                        path, f"line {line} ({accession}): field 'sequence' "
                        + (f"has the letter {bad[0]!r}" if bad else "is empty"),
                        "expected one-letter amino-acid codes " + "".join(sorted(AMINO_ACIDS)))
                n_rows += 1
                orfs = orfs_in(gene_id)
                if not orfs:
                    without.append(accession)
                for position, orf in enumerate(orfs):
                    key = (position, line)
                    if orf not in best or key < best[orf][:2]:
                        best[orf] = (position, line, accession, sequence)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise InputFileError(path, f"cannot be read: {exc}",
                             "expected yeast-GEM's swissprot.tsv (tab-separated, UTF-8)") from exc
    if n_rows == 0:
        raise InputFileError(path, "has no rows", "expected one row per Swiss-Prot entry")
    orfs = sorted(best)
    return Proteome(sequences={g: best[g][3] for g in orfs}, accession={g: best[g][2] for g in orfs},
                    without_orf=tuple(without))
