"""What the calibration step hands the final ranking and the time split:
the calibrated ranking, its calibrator, the "no credible candidate"
threshold and the listing order, as one typed object with ``save`` and
``load``; and the two choices it carries, each a named function
(:func:`choose_threshold`, :func:`choose_order`).

Examples
--------
>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "calibrator.pkl"
>>> CalibrationResult("hgb+centred", None, None).save(path)
>>> CalibrationResult.load(path).order
'score'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from geomargin.common.exceptions import InputFileError
from geomargin.common.io import load_pickle, save_pickle_atomic
from geomargin.rank.credible import best_per_reaction, credible_threshold

__all__ = ["CalibrationResult", "AUTO_THRESHOLD_RULE", "choose_threshold", "choose_order", "mark_shown"]

#: How ``threshold: auto`` is chosen (:func:`choose_threshold`), in words for the tables.
AUTO_THRESHOLD_RULE = ("lowest confidence at which the held-out reactions' most confident candidate was a true "
                       "gene at least half the time (out of fold; each fold group weighs one)")


@dataclass
class CalibrationResult:
    """The calibration of one ranking.

    Attributes
    ----------
    ranking : str or None
        The ranking the calibrator was fitted for (None: no calibration).
    calibrator : object or None
        A fitted :class:`~geomargin.rank.calibration.ConfidenceCalibrator`
        or :class:`~geomargin.rank.history_calibrator.HistoryCalibrator`
        (``predict_proba`` and ``held_out_like`` of shown rows); None when the
        ranking is not calibrated (no confidence, no orphan marked).
    threshold : float or None
        The "no credible candidate" threshold (None without a calibrator).
    order : {"score", "confidence"}
        How the shown rows are listed; always "score" without a calibrator.
    shown_positions : ndarray or None
        With ``order == "confidence"``, each calibration row's place among
        its reaction's shown rows listed by its out-of-fold confidence.
    """

    ranking: str | None
    calibrator: Any
    threshold: float | None
    order: str = "score"
    shown_positions: np.ndarray | None = None

    def __post_init__(self):
        if self.order not in ("score", "confidence"):
            raise ValueError(f"CalibrationResult: order must be 'score' or 'confidence'; got {self.order!r}")
        if self.calibrator is None and self.order != "score":
            raise ValueError("CalibrationResult: without a calibrator the rows are listed by score")

    @classmethod
    def from_history(cls, history) -> CalibrationResult:
        """The calibration a release history learned
        (:class:`~geomargin.rank.history.HistoryModel`): its ranking,
        calibrator and threshold, listed by score (its confidence depends on
        the rank through its band only)."""
        return cls(history.ranking, history.calibrator, history.threshold, "score")

    def save(self, path) -> None:
        """Pickle atomically to ``path``."""
        save_pickle_atomic(self, path)

    @classmethod
    def load(cls, path) -> CalibrationResult:
        """Read what :meth:`save` wrote.

        Raises
        ------
        InputFileError
            If the file holds anything else, or is truncated.
        """
        obj = load_pickle(path)
        if not isinstance(obj, cls):
            raise InputFileError(path, f"holds a {type(obj).__name__}, not a {cls.__name__}",
                                 "rerun the calibration (rule metabolic_calibration)")
        return obj


def choose_threshold(setting, rows: pd.DataFrame, confidence) -> tuple[float, str, bool]:
    """The "no credible candidate" threshold: ``(threshold, rule, met)``.

    ``setting`` is the config's ``metabolic.ranking.confidence_threshold``: a number is
    used as it is (rule "config"); ``"auto"`` takes
    :func:`~geomargin.rank.credible.credible_threshold` of each held-out
    reaction's most confident row by ``confidence`` (out of fold), and
    ``met`` says whether a threshold reached its precision (else the
    highest is used).

    >>> rows = pd.DataFrame({"reaction": ["a", "a", "b", "c"], "rank": [1, 2, 1, 1], "label": [1, 0, 0, 0],
    ...                      "reaction_kind": "transport"})
    >>> choose_threshold(0.3, rows, [0.9, 0.1, 0.6, 0.2])
    (0.3, 'config', True)
    >>> choose_threshold("auto", rows, [0.9, 0.1, 0.6, 0.2])[0]  # a and b: half right from 0.25 on
    0.25
    """
    if setting == "auto":
        threshold, met = credible_threshold(best_per_reaction(rows, confidence))
        return threshold, AUTO_THRESHOLD_RULE, met
    return float(setting), "config", True


def choose_order(setting: str, shown: pd.DataFrame) -> str:
    """How the shown rows are listed: ``setting`` ("score" or
    "confidence"), or for ``"auto"`` the order with the higher validated MRR
    in ``shown`` (one row per ``order``, column ``mrr``), by score on a tie.

    >>> shown = pd.DataFrame({"order": ["score", "confidence"], "mrr": [0.30, 0.32]})
    >>> choose_order("auto", shown), choose_order("score", shown)
    ('confidence', 'score')
    """
    if setting != "auto":
        return setting
    mrr = shown.set_index("order")["mrr"]
    return "confidence" if mrr["confidence"] > mrr["score"] else "score"


def mark_shown(shown: pd.DataFrame, order: str, *, listed: bool = True) -> pd.DataFrame:
    """``shown`` (one row per ``order``) with its column ``shown``: True on
    the row of ``order`` when these rows are the ranking
    ``enzyme_ranking.tsv`` lists (``listed``). Where a release history
    applies, the listed ranking is the history's choice, by score
    (:meth:`CalibrationResult.from_history`), not the cross-validation's
    choice these rows validate: pass ``listed=False`` and no row is marked.

    >>> shown = pd.DataFrame({"order": ["score", "confidence"], "mrr": [0.30, 0.32]})
    >>> mark_shown(shown, "confidence")["shown"].tolist(), mark_shown(shown, "confidence", listed=False)["shown"].tolist()
    ([False, True], [False, False])
    """
    return shown.assign(shown=(shown["order"] == order) & bool(listed))
