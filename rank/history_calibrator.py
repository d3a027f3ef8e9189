"""The release history's confidence: the share of later genes among the
history's shown rows, per cell of rank band x reaction kind x motif
evidence, x homology evidence where the history's rows have some, and,
with ``stands_out_factor`` set, x whether the reaction's first candidate
stands out where that lifted the history's first candidates
(:class:`HistoryCalibrator`); its cells as a
table (:func:`cells_table`); each row's first candidate's standardised
score (:func:`first_score_z`). Fitted by
:func:`geomargin.rank.history.fit_history`."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.isotonic import isotonic_regression
from sklearn.utils.validation import check_is_fitted

from geomargin.common.checks import int_at_least, none_or_positive_float, positive_float, validate_params
from geomargin.rank.credible import lifting_threshold

__all__ = ["RANK_BANDS", "HistoryCalibrator", "cells_table", "first_score_z", "FIRST_SCORE_Z", "STANDS_OUT"]

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

#: The rows' column of the stands-out key: the standardised score of the
#: row's reaction's first candidate in score order (:func:`first_score_z`).
FIRST_SCORE_Z = "first_score_z"

#: The name of the stands-out key in :func:`cells_table`.
STANDS_OUT = "stands_out"


def first_score_z(rows: pd.DataFrame) -> np.ndarray:
    """Each row's :data:`FIRST_SCORE_Z`: the ``score_z`` of its reaction's
    row at ``rank`` 1 (score order; NaN for a reaction without one).

    >>> first_score_z(pd.DataFrame({"reaction": ["a", "a", "b"], "rank": [1, 2, 2],
    ...                             "score_z": [3.0, 1.0, 2.0]})).tolist()
    [3.0, 3.0, nan]
    """
    first = rows[rows["rank"].to_numpy() == 1].drop_duplicates("reaction").set_index("reaction")["score_z"]
    return rows["reaction"].map(first).to_numpy(dtype=np.float64)


def _keys(rows: pd.DataFrame, homology: bool = False, stands_out_at: float | None = None) -> list[tuple]:
    """Each row's cells, widest first: (band,), (band, kind), (band, kind,
    motifs), with ``homology`` (band, kind, motifs, homology), and with a
    threshold ``stands_out_at`` the narrowest cell again with whether the
    row's :data:`FIRST_SCORE_Z` is at least it (a row whose
    :data:`FIRST_SCORE_Z` is NaN gets no such cell: it falls back on the
    wider one)."""
    band = _band(rows["rank"].to_numpy())
    kind = rows["reaction_kind"].astype(str).to_numpy()
    motifs = rows["motifs"].astype(bool).to_numpy()
    if not homology:
        chains = [((b,), (b, k), (b, k, bool(m))) for b, k, m in zip(band, kind, motifs)]
    else:
        hom = rows[HOMOLOGY].astype(bool).to_numpy()
        chains = [((b,), (b, k), (b, k, bool(m)), (b, k, bool(m), bool(h)))
                  for b, k, m, h in zip(band, kind, motifs, hom)]
    if stands_out_at is None:
        return chains
    z = rows[FIRST_SCORE_Z].to_numpy(dtype=np.float64)
    return [c if np.isnan(v) else (*c, (*c[-1], bool(v >= stands_out_at))) for c, v in zip(chains, z)]


class HistoryCalibrator(BaseEstimator):
    """The confidence of a shown candidate, learned from real orphans of
    earlier releases.

    A row's confidence is the share of later genes among the history's
    shown rows of its cell: rank band (:data:`RANK_BANDS`) x reaction kind x
    whether the reaction was ranked on motif neighbours x, when some fitted
    row has homology evidence (column ``homology``: the shown candidate's
    protein is like one of the genes around the reaction), whether the row
    has it, x, when ``stands_out_factor`` is set and the fitted rows have the
    column ``first_score_z`` (:func:`first_score_z`), whether the row's
    reaction's first candidate stands out: its standardised score is at
    least :attr:`stands_out_threshold_`, the lowest value whose history reactions
    at or above it (at least ``stands_out_min_reactions``) had a later gene first
    ``stands_out_factor`` times as often as all the fitted reactions
    (:func:`geomargin.rank.credible.lifting_threshold`; without such a value
    the key is not used; a factor of 1 or less is met at the lowest value,
    so every reaction stands out; a row whose ``first_score_z`` is NaN, no
    scored candidate, gets the cell without the key). Each cell borrows
    ``prior_strength`` rows' worth of its wider cell's share (band x kind x
    motifs, band x kind, then band; the band's own share is pooled over
    kinds, with a Jeffreys prior), so a cell with few history rows stays
    near the wider one. Without homology evidence in the fitted rows (the
    block off) the homology column is not read, and without a stands-out
    threshold ``first_score_z`` is not read. Within
    each cell the shares are made non-increasing over the rank bands
    (weighted isotonic regression, level by level before the narrower cells
    borrow from them): a later band is never more likely than an earlier
    one, so listing the shown rows by the confidence keeps the score order
    and a reaction's first candidate is its most confident.

    Parameters
    ----------
    prior_strength : float
        Rows' worth of the wider cell's share (> 0).
    stands_out_factor : float or None
        How many times as often as all the history's first candidates those
        of reactions whose first candidate stands out must be a later gene
        for the stands-out key to be used (None, the default: never used).
    stands_out_min_reactions : int
        The fewest history reactions at or above the stands-out threshold.

    Attributes
    ----------
    cells_ : dict
        Cell key -> (share, rows, reactions) for every cell seen in fit.
    homology_ : bool
        Whether the cells have the homology key.
    stands_out_threshold_ : float or None
        The stands-out threshold on ``first_score_z`` (None: no such key).
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

    _parameter_constraints: dict = {"prior_strength": positive_float(),
                                    "stands_out_factor": none_or_positive_float(),
                                    "stands_out_min_reactions": int_at_least(1)}

    def __init__(self, prior_strength: float = 10.0, stands_out_factor: float | None = None,
                 stands_out_min_reactions: int = 10):
        self.prior_strength = prior_strength
        self.stands_out_factor = stands_out_factor
        self.stands_out_min_reactions = stands_out_min_reactions

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
        self.stands_out_threshold_ = None
        if self.stands_out_factor is not None:
            if FIRST_SCORE_Z not in rows.columns:
                raise ValueError(f"HistoryCalibrator.fit: stands_out_factor is {self.stands_out_factor!r}, but the rows "
                                 f"have no column {FIRST_SCORE_Z!r}; rebuild the time splits' reactions tables "
                                 "(rule metabolic_release_split), or set stands_out_factor to None")
            first = rows[rows["rank"].to_numpy() == 1]
            found = lifting_threshold(first[FIRST_SCORE_Z], first["label"], factor=float(self.stands_out_factor),
                                      min_reactions=int(self.stands_out_min_reactions))
            self.stands_out_threshold_ = None if found is None else found[0]
        keys = _keys(rows, self.homology_, self.stands_out_threshold_)
        reactions = rows["reaction"].astype(str).to_numpy()
        sums: dict = {}
        for chain, v, r in zip(keys, y, reactions):
            for k in chain:
                s = sums.setdefault(k, [0.0, 0, set()])
                s[0] += v
                s[1] += 1
                s[2].add(r)
        self.cells_ = {}
        for length in range(1, max(len(c) for c in keys) + 1):
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
        at = getattr(self, "stands_out_threshold_", None)
        if homology and HOMOLOGY not in rows.columns:
            raise ValueError(f"HistoryCalibrator: its cells have the homology key, but the rows have no column "
                             f"{HOMOLOGY!r}; score them with the homology block, as the history was")
        if at is not None and FIRST_SCORE_Z not in rows.columns:
            raise ValueError(f"HistoryCalibrator: its cells have the stands-out key, but the rows have no column "
                             f"{FIRST_SCORE_Z!r}; add each reaction's first candidate's score_z (first_score_z)")
        out = np.full(len(rows), np.nan)
        for i, chain in enumerate(_keys(rows, homology, at)):
            for k in reversed(chain):
                if k in self.cells_:
                    out[i] = self.cells_[k][field]
                    break
        return out

    def predict_proba(self, rows: pd.DataFrame) -> np.ndarray:
        """The confidence of each row (columns ``rank``, ``reaction_kind``,
        ``motifs``, and ``homology`` and ``first_score_z`` when the cells
        have those keys): its narrowest fitted cell's share."""
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
    ``reaction_kind``, ``motifs`` and, when the cells have those keys,
    ``homology`` and ``stands_out`` (each empty where the cell is wider),
    ``confidence``, ``rows``, ``reactions``."""
    homology = getattr(calibrator, "homology_", False)
    stands_out = getattr(calibrator, "stands_out_threshold_", None) is not None
    keys = ["rank_band", "reaction_kind", "motifs", *([HOMOLOGY] if homology else []),
            *([STANDS_OUT] if stands_out else [])]
    out = []
    for key, (share, n, reactions) in calibrator.cells_.items():
        lo, hi = RANK_BANDS[key[0]]
        row = {"rank_band": str(lo) if lo == hi else f"{lo}+" if hi >= 10 ** 9 else f"{lo}-{hi}"}
        row.update({name: key[j] if len(key) > j else "" for j, name in enumerate(keys[1:], start=1)})
        out.append({**row, "confidence": share, "rows": n, "reactions": reactions})
    return pd.DataFrame(out, columns=[*keys, "confidence", "rows", "reactions"])
