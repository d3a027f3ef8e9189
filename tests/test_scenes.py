"""Tests of featurize.scenes: ground truth parsing, windows, NMS, README criteria."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from featurize.exceptions import InputFileError
from featurize.scenes import (
    equal_error_recall,
    load_test_scenes,
    match_detections,
    non_max_suppression,
    parse_true_locations,
    precision_recall,
    window_origins,
)


def test_parse_true_locations(tmp_path):
    p = tmp_path / "trueLocations.txt"
    p.write_text("0: (48,26)\n1: (61,20) (63,140)\n2:\n\n")
    t = parse_true_locations(p)
    assert t[0].tolist() == [[48, 26]]
    assert t[1].tolist() == [[61, 20], [63, 140]]
    assert t[2].shape == (0, 2)


def test_parse_true_locations_bad_line_names_file_and_line(tmp_path):
    p = tmp_path / "trueLocations.txt"
    p.write_text("0: (48,26)\n1: (61;20)\n")
    with pytest.raises(InputFileError, match=r"trueLocations\.txt: line 2"):
        parse_true_locations(p)


def test_window_origins_cover_borders():
    o = window_origins((50, 113), stride=4)
    assert set(o[:, 0]) == {0, 4, 8, 10}
    assert set(o[:, 1]) == {0, 4, 8, 12, 13}
    assert len(o) == 4 * 5


def test_non_max_suppression_by_hand():
    origins = np.array([[0, 0], [5, 10], [0, 60], [30, 0], [2, 55]])
    scores = np.array([0.9, 0.8, 0.7, 0.6, 0.95])
    # 4 (best) suppresses 2 (|dr|=2, |dc|=5); 0 suppresses 1; 3 is 30 rows away
    assert non_max_suppression(origins, scores, (20, 50)).tolist() == [4, 0, 3]


def test_match_detections_ellipse_and_one_per_car():
    truths = [np.array([[50, 50]]), np.array([[10, 10], [10, 200]])]
    det = pd.DataFrame({
        "scene": [0, 0, 0, 0, 0, 1, 1],
        "row":   [59, 50, 50, 58, 50, 10, 30],
        "col":   [50, 74, 76, 70, 50, 200, 10],
        "score": [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3],
    })
    # (59,50): (9/10)^2 = 0.81 inside -> correct (first in score order)
    # (50,74): (24/25)^2 = 0.92 inside, but car already matched -> false
    # (50,76): (26/25)^2 > 1 outside -> false
    # (58,70): 0.64 + 0.64 > 1 outside -> false
    # (50,50): inside, car taken -> false
    # scene 1: (10,200) exact -> correct; (30,10): (20/10)^2 > 1 -> false
    assert match_detections(det, truths).tolist() == [True, False, False, False, False, True, False]


def test_precision_recall_and_eer_by_hand():
    truths = [np.array([[0, 0]]), np.array([[0, 0], [100, 100]])]
    det = pd.DataFrame({"scene": [0, 1, 1, 0, 1],
                        "row": [0, 300, 100, 200, 0],
                        "col": [0, 300, 100, 200, 0],
                        "score": [5.0, 4.0, 3.0, 2.0, 1.0]})
    # correct: T F T F T ; 3 true cars
    c = precision_recall(det, truths)
    assert c["correct"].tolist() == [1, 1, 2, 2, 3]
    np.testing.assert_allclose(c["recall"], [1 / 3, 1 / 3, 2 / 3, 2 / 3, 1.0])
    np.testing.assert_allclose(c["precision"], [1, 1 / 2, 2 / 3, 2 / 4, 3 / 5])
    # p - r: 2/3, 1/6, 0 -> equal at recall 2/3
    assert equal_error_recall(c) == pytest.approx(2 / 3)


def test_eer_interpolates():
    c = pd.DataFrame({"recall": [0.2, 0.6], "precision": [0.8, 0.4]})
    # d = 0.6 -> -0.2 : zero at t = 0.75 -> recall 0.2 + 0.75 * 0.4 = 0.5
    assert equal_error_recall(c) == pytest.approx(0.5)


def test_ties_count_together():
    truths = [np.array([[0, 0]])]
    det = pd.DataFrame({"scene": [0, 0], "row": [0, 90], "col": [0, 90], "score": [1.0, 1.0]})
    c = precision_recall(det, truths)
    assert len(c) == 1 and c["n_detections"].tolist() == [2] and c["precision"].tolist() == [0.5]


@pytest.mark.slow
def test_real_scenes_smoke(mirror):
    scenes, truths, names = load_test_scenes(mirror / "vision" / "uiuc_cars")
    assert len(scenes) == 170 and sum(len(t) for t in truths) == 200
    assert names[1] == "test-1.pgm" and truths[1].tolist() == [[61, 20], [63, 140]]
    # some true windows stick out of their scene (one car starts at col -10),
    # but every car is reachable: a window on the stride-4 grid is inside its
    # tolerance ellipse, so recall 1 is attainable
    for s, t in zip(scenes, truths):
        o = window_origins(s.shape, 4)
        for r, c in t:
            assert (((o[:, 0] - r) / 10.0) ** 2 + ((o[:, 1] - c) / 25.0) ** 2 <= 1).any()
