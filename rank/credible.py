"""The "no credible candidate" policy: the threshold on an orphan's best
confidence below which it is marked as having no credible candidate
(:func:`credible_threshold`, over :data:`THRESHOLD_GRID`), each reaction's
most confident row (:func:`best_per_reaction`), the flag itself
(:func:`no_credible_candidate`), and the lowest value of a signal whose
reactions at or above it have a label lifted by a factor
(:func:`lifting_threshold`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from geomargin.common.checks import check_param, open_unit_interval


__all__ = ["no_credible_candidate", "THRESHOLD_GRID", "most_confident_rows", "best_per_reaction", "credible_threshold",
           "lifting_threshold"]


def no_credible_candidate(best_confidence: Sequence[float] | np.ndarray, threshold: float) -> np.ndarray:
    """Whether a reaction has no credible candidate: its best candidate's
    confidence is below ``threshold`` (a reaction without a scored
    candidate, NaN, has none either).

    >>> no_credible_candidate([0.05, 0.2, np.nan], 0.1).tolist()
    [True, False, True]
    """
    threshold = check_param("no_credible_candidate", "threshold", threshold, *open_unit_interval())
    best = np.asarray(best_confidence, dtype=np.float64).reshape(-1)
    return ~(best >= threshold)


def lifting_threshold(signal, label, *, factor: float, min_reactions: int) -> tuple[float, int, float, float] | None:
    """The lowest value ``t`` of ``signal`` such that the reactions at or
    above it (at least ``min_reactions``) have ``label`` 1 at least
    ``factor`` times as often as all of them; ``signal`` and ``label`` are
    one per reaction (NaN signal: never above). Returns ``(t, reactions at
    or above, their share, the share of all)``, or None without such a
    ``t`` (or without any label 1).

    >>> lifting_threshold([0.1, 0.1, 0.4, 0.4], [0, 0, 1, 0], factor=2, min_reactions=2)
    (0.4, 2, 0.5, 0.25)
    >>> lifting_threshold([0.1, 0.1, 0.4, 0.4], [0, 0, 1, 0], factor=2, min_reactions=3) is None
    True
    """
    s = np.asarray(signal, dtype=np.float64).reshape(-1)
    y = np.asarray(label, dtype=np.float64).reshape(-1)
    if len(s) != len(y):
        raise ValueError(f"lifting_threshold: {len(s)} signals for {len(y)} labels")
    base = float(y.mean()) if len(y) else float("nan")
    if not base > 0:
        return None
    for t in np.unique(s[~np.isnan(s)]):
        above = s >= t
        if above.sum() >= min_reactions and y[above].mean() >= factor * base:
            return float(t), int(above.sum()), float(y[above].mean()), base
    return None


#: Thresholds :func:`credible_threshold` tries, lowest first.
THRESHOLD_GRID = tuple(round(0.05 * i, 2) for i in range(1, 20))


def most_confident_rows(rows: pd.DataFrame, confidence) -> np.ndarray:
    """Positions (0-based) in ``rows`` (columns ``reaction`` and ``rank``) of
    each reaction's most confident row, ties to the better rank, reactions
    sorted; a NaN confidence comes last.

    >>> r = pd.DataFrame({"reaction": ["b", "a", "a", "a"], "rank": [1, 1, 2, 3]})
    >>> most_confident_rows(r, [0.1, 0.2, 0.3, 0.3]).tolist()
    [2, 0]
    """
    t = pd.DataFrame({"reaction": rows["reaction"].to_numpy(), "rank": rows["rank"].to_numpy(),
                      "confidence": np.asarray(confidence, dtype=np.float64), "pos": np.arange(len(rows))})
    t = t.sort_values(["reaction", "confidence", "rank"], ascending=[True, False, True], kind="mergesort")
    return t.drop_duplicates("reaction")["pos"].to_numpy()


def best_per_reaction(rows: pd.DataFrame, confidence) -> pd.DataFrame:
    """Each reaction's most confident row: columns ``reaction``, ``confidence``,
    ``label`` (whether that candidate is a true gene), ``reaction_kind``, and
    ``weight`` (the rows' column ``weight``, else 1); ties go to the better rank.

    >>> r = pd.DataFrame({"reaction": ["a", "a", "b"], "rank": [1, 2, 1], "label": [0, 1, 0],
    ...                   "reaction_kind": "transport"})
    >>> best_per_reaction(r, [0.2, 0.3, 0.1])[["reaction", "confidence", "label"]].values.tolist()
    [['a', 0.3, 1], ['b', 0.1, 0]]
    """
    t = rows[["reaction", "rank", "label", "reaction_kind"]].copy()
    t["confidence"] = np.asarray(confidence, dtype=np.float64)
    t["weight"] = rows["weight"].to_numpy(dtype=np.float64) if "weight" in rows.columns else 1.0
    return t.iloc[most_confident_rows(t, t["confidence"])][["reaction", "confidence", "label", "reaction_kind",
                                                              "weight"]].reset_index(drop=True)


def credible_threshold(best: pd.DataFrame, min_precision: float = 0.5,
                       grid: Sequence[float] = THRESHOLD_GRID) -> tuple[float, bool]:
    """The lowest threshold of ``grid`` at which the reactions whose best
    confidence reaches it have a true gene as that best candidate at least
    ``min_precision`` of the time, weighted by ``best``'s column ``weight``
    when it has one (``best``: :func:`best_per_reaction` of confidences the
    calibrator did not fit on). Returns ``(threshold, met)``; when no
    threshold meets it, the highest of ``grid`` and False.

    >>> b = pd.DataFrame({"confidence": [0.9, 0.6, 0.3, 0.1], "label": [1, 0, 1, 0]})
    >>> credible_threshold(b, min_precision=0.6)
    (0.15, True)
    >>> credible_threshold(b, min_precision=0.9)
    (0.65, True)
    >>> credible_threshold(b.assign(weight=[1, 5, 1, 1]), min_precision=0.6)  # the wrong 0.6 weighs 5
    (0.65, True)
    """
    conf = best["confidence"].to_numpy(dtype=np.float64)
    label = best["label"].to_numpy(dtype=np.float64)
    weight = best["weight"].to_numpy(dtype=np.float64) if "weight" in best.columns else np.ones(len(best))
    for t in grid:
        sel = conf >= t
        if sel.any() and np.average(label[sel], weights=weight[sel]) >= min_precision:
            return float(t), True
    return float(grid[-1]), False
