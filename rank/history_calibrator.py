"""The release history's confidence: the share of later genes among the
history's shown rows, per cell of rank band x reaction kind x motif
evidence, and x homology evidence where the history's rows have some
(:class:`HistoryCalibrator`), and its cells as a table
(:func:`cells_table`). Fitted by :func:`geomargin.rank.history.fit_history`."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.isotonic import isotonic_regression
from sklearn.utils.validation import check_is_fitted

from geomargin.common.checks import positive_float, validate_params

__all__ = ["RANK_BANDS", "HistoryCalibrator", "cells_table"]

#: The confidence's rank bands: (first rank, last rank) of each, 1-based.
RANK_BANDS = ((1, 1), (2, 2), (3, 5), (6, 10 ** 9))


def _band(rank) -> np.ndarray:
    rank = np.asarray(rank, dtype=np.int64)
    out = np.full(rank.shape, -1)
    for i, (lo, hi) in enumerate(RANK_BANDS):
        out[(rank >= lo) & (rank <= hi)] = i
    return out


#: The rows' column of the homology key: the shown candidate has homology
#: evidence (:data:`geomargin.rank.evidence_flags.HOMOLOGY_FLAG`).
HOMOLOGY = "homology"


def _keys(rows: pd.DataFrame, homology: bool = False) -> list[tuple]:
    """Each row's cells, widest first: (band,), (band, kind), (band, kind,
    motifs), and with ``homology`` (band, kind, motifs, homology)."""
    band = _band(rows["rank"].to_numpy())
    kind = rows["reaction_kind"].astype(str).to_numpy()
    motifs = rows["motifs"].astype(bool).to_numpy()
    if not homology:
        return [((b,), (b, k), (b, k, bool(m))) for b, k, m in zip(band, kind, motifs)]
    hom = rows[HOMOLOGY].astype(bool).to_numpy()
    return [((b,), (b, k), (b, k, bool(m)), (b, k, bool(m), bool(h))) for b, k, m, h in zip(band, kind, motifs, hom)]


class HistoryCalibrator(BaseEstimator):
    """The confidence of a shown candidate, learned from real orphans of
    earlier releases.

    A row's confidence is the share of later genes among the history's
    shown rows of its cell: rank band (:data:`RANK_BANDS`) x reaction kind x
    whether the reaction was ranked on motif neighbours x, when some fitted
    row has homology evidence (column ``homology``: the shown candidate's
    protein is like one of the genes around the reaction), whether the row
    has it. Each cell borrows ``prior_strength`` rows' worth of its wider
    cell's share (band x kind x motifs, band x kind, then band; the band's
    own share is pooled over kinds, with a Jeffreys prior), so a cell with
    few history rows stays near the wider one. Without homology evidence in
    the fitted rows (the block off) the cells stop at band x kind x motifs
    and the column is not read. Within
    each cell the shares are made non-increasing over the rank bands
    (weighted isotonic regression, level by level before the narrower cells
    borrow from them): a later band is never more likely than an earlier
    one, so listing the shown rows by the confidence keeps the score order
    and a reaction's first candidate is its most confident.

    Parameters
    ----------
    prior_strength : float
        Rows' worth of the wider cell's share (> 0).

    Attributes
    ----------
    cells_ : dict
        Cell key -> (share, rows, reactions) for every cell seen in fit.
    homology_ : bool
        Whether the cells have the homology key.
    band_share_ : dict
        Band -> its pooled share (the prior of unseen kinds).
    n_reactions_ : int
        History benchmark reactions fitted on.

    Examples
    --------
    >>> rows = pd.DataFrame({"reaction": ["a", "a", "b", "b"], "rank": [1, 2, 1, 2],
    ...                      "reaction_kind": "enzymatic", "motifs": True, "label": [1, 0, 0, 0]})
    >>> cal = HistoryCalibrator(prior_strength=2).fit(rows)
    >>> cal.predict_proba(rows).round(3).tolist()
    [0.5, 0.042, 0.5, 0.042]
    """

    _parameter_constraints: dict = {"prior_strength": positive_float()}

    def __init__(self, prior_strength: float = 10.0):
        self.prior_strength = prior_strength

    def fit(self, rows: pd.DataFrame, y=None):
        validate_params(self)
        for col in ("reaction", "rank", "reaction_kind", "motifs", "label"):
            if col not in rows.columns:
                raise ValueError(f"HistoryCalibrator.fit: the rows have no column {col!r}")
        if not len(rows):
            raise ValueError("HistoryCalibrator.fit: no labelled rows (the history ranked no benchmark reaction)")
        m = float(self.prior_strength)
        y = rows["label"].to_numpy(dtype=float)
        self.homology_ = HOMOLOGY in rows.columns and bool(rows[HOMOLOGY].astype(bool).any())
        keys = _keys(rows, self.homology_)
        reactions = rows["reaction"].astype(str).to_numpy()
        sums: dict = {}
        for chain, v, r in zip(keys, y, reactions):
            for k in chain:
                s = sums.setdefault(k, [0.0, 0, set()])
                s[0] += v
                s[1] += 1
                s[2].add(r)
        self.cells_ = {}
        for length in range(1, len(keys[0]) + 1):
            level = {}
            for k in (k for k in sums if len(k) == length):
                hits, n, _ = sums[k]
                # the band pooled over kinds: a Jeffreys prior; a narrower cell: its wider cell's share
                level[k] = (hits + 0.5) / (n + 1.0) if length == 1 else \
                    (hits + m * self.cells_[k[:-1]][0]) / (n + m)
            # a later rank band is never more likely than an earlier one of the same cell
            groups: dict = {}
            for k in level:
                groups.setdefault(k[1:], []).append(k)
            for members in groups.values():
                members.sort()
                shares = isotonic_regression([level[k] for k in members],
                                             sample_weight=[sums[k][1] for k in members], increasing=False)
                for k, share in zip(members, shares):
                    self.cells_[k] = (float(share), int(sums[k][1]), len(sums[k][2]))
        self.band_share_ = {k[0]: v[0] for k, v in self.cells_.items() if len(k) == 1}
        self.n_reactions_ = len(set(reactions))
        return self

    def _lookup(self, rows: pd.DataFrame, field: int) -> np.ndarray:
        check_is_fitted(self, "cells_")
        homology = getattr(self, "homology_", False)
        if homology and HOMOLOGY not in rows.columns:
            raise ValueError(f"HistoryCalibrator: its cells have the homology key, but the rows have no column "
                             f"{HOMOLOGY!r}; score them with the homology block, as the history was")
        out = np.full(len(rows), np.nan)
        for i, chain in enumerate(_keys(rows, homology)):
            for k in reversed(chain):
                if k in self.cells_:
                    out[i] = self.cells_[k][field]
                    break
        return out

    def predict_proba(self, rows: pd.DataFrame) -> np.ndarray:
        """The confidence of each row (columns ``rank``, ``reaction_kind``,
        ``motifs``, and ``homology`` when the cells have that key): its
        narrowest fitted cell's share."""
        return self._lookup(rows, 0)

    def held_out_like(self, rows: pd.DataFrame) -> np.ndarray:
        """How many history benchmark reactions back each row's confidence:
        those in its narrowest fitted cell."""
        return self._lookup(rows, 2)

    def cell_values(self, rows: pd.DataFrame, what: str = "share") -> np.ndarray:
        """Each row's cell ``share`` (as :meth:`predict_proba`) or ``rows``."""
        if what not in ("share", "rows"):
            raise ValueError(f"what is {what!r}; expected 'share' or 'rows'")
        return self._lookup(rows, 0 if what == "share" else 1)


def cells_table(calibrator: HistoryCalibrator) -> pd.DataFrame:
    """The fitted cells of ``calibrator``, one row each: ``rank_band``,
    ``reaction_kind``, ``motifs`` and, when the cells have that key,
    ``homology`` (each empty where the cell is wider), ``confidence``,
    ``rows``, ``reactions``."""
    homology = getattr(calibrator, "homology_", False)
    keys = ["rank_band", "reaction_kind", "motifs", *([HOMOLOGY] if homology else [])]
    out = []
    for key, (share, n, reactions) in calibrator.cells_.items():
        lo, hi = RANK_BANDS[key[0]]
        row = {"rank_band": str(lo) if lo == hi else f"{lo}+" if hi >= 10 ** 9 else f"{lo}-{hi}"}
        row.update({name: key[j] if len(key) > j else "" for j, name in enumerate(keys[1:], start=1)})
        out.append({**row, "confidence": share, "rows": n, "reactions": reactions})
    return pd.DataFrame(out, columns=[*keys, "confidence", "rows", "reactions"])
