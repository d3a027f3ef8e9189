"""One canonical form of gene ids, applied at every entry point.

Gene ids reach the pipeline from the model's gene rules, expression tables,
the GO annotation file and the localization table. They are compared only in
their canonical form (:func:`canonical_gene_id`):

1. Unicode NFKC (full-width ``ＹＡＬ００１Ｃ`` becomes ``YAL001C``);
2. invisible characters removed: Unicode format (``Cf``: zero-width space
   U+200B, zero-width (non-)joiners, byte-order mark U+FEFF, soft hyphen,
   direction marks) and control (``Cc``) characters, anywhere in the id;
3. surrounding whitespace (including no-break spaces) removed;
4. upper case (a model's own case convention never changes a result);
5. the model-style suffix ``_A`` of a systematic ORF (``YER060W_A``, iMM904)
   written ``-A`` as SGD does (``YER060W-A``).

A canonical id is *valid* if it matches :data:`GENE_ID_PATTERN` (ASCII
letters, digits and ``_ . : -``, starting with a letter or digit). Entry points
report every id they had to change, with file and line
(:class:`GeneIdNote`), and stop with :class:`GeneIdError` on an id that is
not valid after normalisation, instead of silently dropping or mis-matching
it.

>>> canonical_gene_id("\\u200byer060w_a")
('YER060W-A', ('removed U+200B ZERO WIDTH SPACE', 'upper-cased', "suffix '_A' written '-A'"))
>>> canonical_gene_id("YAL001C")
('YAL001C', ())
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from geomargin.common.exceptions import GeneIdError

__all__ = ["check_source_signal", "GENE_ID_PATTERN", "GeneIdNote", "canonical_gene_id", "is_valid_gene_id",
           "canonical_ids", "log_notes", "remove_invisible"]

log = logging.getLogger(__name__)

#: What a gene id may look like after normalisation.
GENE_ID_PATTERN = re.compile(r"^[A-Z0-9][A-Z0-9_.:\-]*$")
_SUFFIX_RE = re.compile(r"^(Y[A-P][LR]\d{3}[WC])_([A-Z])$")


@dataclass(frozen=True)
class GeneIdNote:
    """An id that had to be changed (``canonical`` set) or could not be
    understood (``problem`` set), where it was found."""

    source: str
    line: int | None
    raw: str
    canonical: str
    changes: tuple[str, ...] = ()
    problem: str = ""

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}" if self.line is not None else self.source
        if self.problem and not self.raw:
            return f"{where}: {self.problem}"
        if self.problem:
            return f"{where}: gene id {self.raw!r} {self.problem}"
        return f"{where}: gene id {self.raw!r} read as {self.canonical!r} ({'; '.join(self.changes)})"


def _char_name(c: str) -> str:
    return f"U+{ord(c):04X} {unicodedata.name(c, 'UNNAMED')}"


def _invisible(c: str) -> bool:
    return unicodedata.category(c) in ("Cf", "Cc")


def remove_invisible(text: str, keep: str = "\n\r\t") -> tuple[str, list[str]]:
    """``text`` without format/control characters (those in ``keep`` stay);
    also returns the names of the characters removed (one per occurrence)."""
    removed = [c for c in text if _invisible(c) and c not in keep]
    if not removed:
        return text, []
    return "".join(c for c in text if not _invisible(c) or c in keep), [_char_name(c) for c in removed]


def canonical_gene_id(raw: object) -> tuple[str, tuple[str, ...]]:
    """Canonical form of one gene id and the list of changes made."""
    s = str(raw)
    changes: list[str] = []
    n = unicodedata.normalize("NFKC", s)
    if n != s:
        changes.append("Unicode NFKC")
        s = n
    s, removed = remove_invisible(s, keep="")
    changes += [f"removed {name}" for name in dict.fromkeys(removed)]
    t = s.strip()
    if t != s:
        changes.append("surrounding whitespace removed")
        s = t
    u = s.upper()
    if u != s:
        changes.append("upper-cased")
        s = u
    m = _SUFFIX_RE.match(s)
    if m:
        changes.append(f"suffix '_{m.group(2)}' written '-{m.group(2)}'")
        s = f"{m.group(1)}-{m.group(2)}"
    return s, tuple(changes)


def is_valid_gene_id(canonical: str) -> bool:
    """True if ``canonical`` (already canonical) matches :data:`GENE_ID_PATTERN`."""
    return bool(GENE_ID_PATTERN.match(canonical))


def canonical_ids(raw_ids: Iterable[object], *, source: str,
                  lines: Sequence[int | None] | None = None,
                  notes: list[GeneIdNote] | None = None,
                  invalid: str = "error",
                  expected: str = "letters, digits and _ . : - only") -> list[str]:
    """Canonical form of every id of ``raw_ids`` (read from ``source``).

    Each changed id adds a :class:`GeneIdNote` to ``notes``. An id that is not
    valid after normalisation raises :class:`GeneIdError` naming the file,
    line, raw id and what was expected (``invalid="error"``), or is kept as
    is with a note (``invalid="keep"``, for callers that drop non-gene rows
    themselves and report them).
    """
    raw_ids = list(raw_ids)
    if lines is None:
        lines = [None] * len(raw_ids)
    out, bad = [], []
    for raw, line in zip(raw_ids, lines):
        canon, changes = canonical_gene_id(raw)
        if not is_valid_gene_id(canon):
            note = GeneIdNote(source, line, str(raw), canon, changes,
                              problem=f"is not a valid gene id after normalisation ({canon!r})")
            bad.append(note)
            if notes is not None and invalid != "error":
                notes.append(note)
        elif changes and notes is not None:
            notes.append(GeneIdNote(source, line, str(raw), canon, changes))
        out.append(canon)
    if bad and invalid == "error":
        first = bad[0]
        where = f"line {first.line}: " if first.line is not None else ""
        raise GeneIdError(
            f"{source}: {where}gene id {first.raw!r} is not a valid gene id after normalisation "
            f"({first.canonical!r}; expected {expected}); {len(bad)} such id(s) in all"
            + (f", e.g. {[b.raw for b in bad[1:4]]}" if len(bad) > 1 else ""))
    return out


def log_notes(notes: Sequence[GeneIdNote], logger: logging.Logger | None = None,
              what: str = "gene ids") -> None:
    """Write one warning per note (file, line, raw id, what was done)."""
    logger = logger or log
    if not notes:
        return
    logger.warning("%d %s changed to their canonical form or not understood:", len(notes), what)
    for note in notes:
        logger.warning("  %s", note)


def check_coverage(name: str, table, network_genes: Sequence[str], min_fraction: float,
                   *, where: str = "", key: str = "metabolic.min_source_coverage",
                   source_ids: Sequence[str] = (), empty: str = "") -> tuple[int, int]:
    """Stop with :class:`SourceCoverageError` if fewer than ``min_fraction``
    of ``network_genes`` have at least one value in ``table`` (genes x
    features, canonical ids). Returns ``(matched, total)``.

    The message gives matched/total, examples of network genes without data
    and of the source's own ids (those with data, else ``source_ids``, e.g.
    the rows a loader left out), so a mismatch of id conventions is visible.
    A source without any data at all is no id mismatch: the message then
    says so, with ``empty`` (which rows the source would need).
    """
    from geomargin.common.exceptions import SourceCoverageError

    genes = sorted(set(network_genes))
    present = set(table.index[table.notna().to_numpy().any(axis=1)]) if table.shape[1] else set()
    matched = sum(g in present for g in genes)
    total = len(genes)
    if total and not present and not source_ids:
        raise SourceCoverageError(
            f"source {name!r}{f' ({where})' if where else ''} holds no data for any gene"
            + (f": {empty}" if empty else "") + f"; config key {key} requires data for at least "
            f"{min_fraction:.1%} of the network's genes")
    if total and matched < min_fraction * total:
        unmatched = [g for g in genes if g not in present][:5]
        own = sorted(present)[:5] if present else (list(source_ids)[:5] or sorted(map(str, table.index))[:5])
        raise SourceCoverageError(
            f"source {name!r}{f' ({where})' if where else ''} has data for {matched}/{total} "
            f"({matched / total:.1%}) of the network's genes; config key {key} requires at least "
            f"{min_fraction:.1%}. Network genes without data, e.g. {unmatched}; ids in "
            f"the source, e.g. {own} (expected the model's gene ids, e.g. yeast systematic names)")
    return matched, total


def check_source_signal(X, feature_names: Sequence[str], sources: dict[str, str]) -> None:
    """Stop with :class:`SourceCoverageError` if a source contributes no usable
    feature: every column of its block (feature names ``<motif>:<block>:<stat>``)
    takes at most one value over the training pairs ``X``, so it cannot tell a
    true gene from an impostor (a localization table placing every gene in the
    same compartments, one domain shared by every gene, ...). ``sources``
    maps a block name (``expr``, ``domain``, ``loc``) to the file it comes from.

    >>> import numpy as np
    >>> X = np.array([[0.5, 1.0], [0.2, 1.0], [np.nan, 1.0]])
    >>> check_source_signal(X, ["fork:expr:r_mean", "fork:loc:share"], {"expr": "e.tsv"})
    >>> check_source_signal(X, ["fork:expr:r_mean", "fork:loc:share"], {"loc": "a.gaf"})
    Traceback (most recent call last):
    ...
    geomargin.common.exceptions.SourceCoverageError: source 'loc' (a.gaf) contributes no usable feature: each of its 1 feature(s) takes at most one value over the 3 training pairs, so it cannot tell a true gene from an impostor; check that the file holds what the source reads
    """
    import numpy as np

    from geomargin.common.exceptions import SourceCoverageError

    X = np.asarray(X, dtype=np.float64)
    block = [n.split(":")[1] if n.count(":") >= 2 else "" for n in map(str, feature_names)]
    for name, where in sources.items():
        cols = [i for i, b in enumerate(block) if b == name]
        if not cols:
            continue
        with np.errstate(invalid="ignore"):
            sub = X[:, cols]
            seen = ~np.isnan(sub)
            lo = np.where(seen, sub, np.inf).min(axis=0)
            hi = np.where(seen, sub, -np.inf).max(axis=0)
        if not (seen.any(axis=0) & (hi > lo)).any():
            raise SourceCoverageError(
                f"source {name!r} ({where}) contributes no usable feature: each of its {len(cols)} "
                f"feature(s) takes at most one value over the {X.shape[0]} training pairs, so it "
                "cannot tell a true gene from an impostor; check that the file holds what the source reads")
