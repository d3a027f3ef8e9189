"""rank.calibration_result: the typed hand-over of the calibration step and
its two choices."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

from geomargin.common.exceptions import InputFileError
from geomargin.rank.calibration_result import (AUTO_THRESHOLD_RULE, CalibrationResult, choose_order, choose_threshold,
                                               mark_shown)


def test_save_and_load_round_trip(tmp_path):
    result = CalibrationResult("hgb+centred", {"a calibrator": 1}, 0.35, "confidence", np.array([1, 2, 1]))
    result.save(tmp_path / "c.pkl")
    back = CalibrationResult.load(tmp_path / "c.pkl")
    assert (back.ranking, back.calibrator, back.threshold, back.order) == ("hgb+centred", {"a calibrator": 1},
                                                                           0.35, "confidence")
    assert back.shown_positions.tolist() == [1, 2, 1]


def test_load_refuses_another_object(tmp_path):
    path = tmp_path / "c.pkl"
    path.write_bytes(pickle.dumps({"ranking": "hgb", "calibrator": None}))
    with pytest.raises(InputFileError, match=rf"^{path}: holds a dict, not a CalibrationResult.*metabolic_calibration"):
        CalibrationResult.load(path)


@pytest.mark.parametrize(("kwargs", "needle"), [({"order": "rank"}, "order must be"),
                                                ({"order": "confidence"}, "without a calibrator")])
def test_bad_order(kwargs, needle):
    with pytest.raises(ValueError, match=needle):
        CalibrationResult("hgb", None, None, **kwargs)


def test_from_history_lists_by_score():
    class History:
        ranking, calibrator, threshold = "geometric_rank", object(), 0.4

    result = CalibrationResult.from_history(History)
    assert (result.ranking, result.calibrator, result.threshold, result.order) == (
        "geometric_rank", History.calibrator, 0.4, "score")


def test_threshold_auto_and_config():
    rows = pd.DataFrame({"reaction": list("abcde"), "rank": 1, "label": [1, 1, 0, 0, 0],
                         "reaction_kind": "enzymatic"})
    conf = [0.9, 0.7, 0.5, 0.3, 0.1]
    # 2 of 5 right from 0.05 on, 2 of 4 (half) from 0.15 on
    assert choose_threshold("auto", rows, conf) == (0.15, AUTO_THRESHOLD_RULE, True)
    # nothing right: the highest of the grid, not met
    assert choose_threshold("auto", rows.assign(label=0), conf)[::2] == (0.95, False)
    assert choose_threshold("0.6", rows, conf) == (0.6, "config", True)


def test_order_auto_prefers_score_on_a_tie():
    shown = pd.DataFrame({"order": ["score", "confidence"], "mrr": [0.3, 0.3]})
    assert choose_order("auto", shown) == "score"
    assert choose_order("auto", shown.assign(mrr=[0.3, 0.31])) == "confidence"
    assert choose_order("confidence", shown) == "confidence"


def test_mark_shown_marks_the_listed_order_only_when_these_rows_are_listed():
    shown = pd.DataFrame({"order": ["score", "confidence"], "mrr": [0.3, 0.31]})
    assert mark_shown(shown, "score")["shown"].tolist() == [True, False]
    assert mark_shown(shown, "confidence")["shown"].tolist() == [False, True]
    # a release history lists its own choice: neither row is what enzyme_ranking.tsv shows
    assert not mark_shown(shown, "confidence", listed=False)["shown"].any()
    assert "shown" not in shown.columns
