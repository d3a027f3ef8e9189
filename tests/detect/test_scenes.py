"""Tests of detect.scenes and detect.evaluation: ground truth parsing, windows, NMS, README criteria."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from geomargin.common.exceptions import InputFileError
from geomargin.detect.evaluation import (acceptable, average_precision, equal_error_recall, found_locations,
                               load_test_scenes, match_detections, parse_true_locations, precision_recall)
from toy_vision import write_toy_cars
from geomargin.detect.scenes import (detect_in_scene, detect_scenes, image_pyramid, non_max_suppression,
                           pyramid_scales, score_windows, window_origins)


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


@pytest.mark.parametrize("scale", [False, True])
def test_ground_truth_without_the_line_of_a_scene_stops_naming_it(tmp_path, scale):
    # a truncated copy of the ground truth: the evaluation would cover fewer
    # scenes than the test set has
    write_toy_cars(tmp_path, n_pos=1, n_neg=1, n_scenes=3, n_scale_scenes=3)
    name, folder = ("trueLocations_Scale.txt", "TestImages_Scale") if scale else ("trueLocations.txt", "TestImages")
    truth = tmp_path / name
    lines = truth.read_text().splitlines(keepends=True)
    truth.write_text(lines[0] + lines[2])
    with pytest.raises(InputFileError) as err:
        load_test_scenes(tmp_path, scale=scale)
    assert str(err.value) == (
        f"{truth}: has no line for 1 of the 3 scenes in {folder}/ (test-1.pgm) (every test image needs "
        "its line 'n: (row,col) ...', with no locations for an image without cars)")
    # an image without cars has a line without locations
    truth.write_text(lines[0] + "1:\n" + lines[2])
    scenes, truths, names = load_test_scenes(tmp_path, scale=scale)
    assert names == ["test-0.pgm", "test-1.pgm", "test-2.pgm"] and truths[1].shape == (0, 3 if scale else 2)


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


def test_eer_skips_thresholds_before_the_first_correct_detection():
    # the best detection is false: precision = recall = 0 there is no EER
    c = pd.DataFrame({"recall": [0.0, 0.5, 1.0], "precision": [0.0, 0.5, 2 / 3]})
    assert equal_error_recall(c) == pytest.approx(0.5)
    c = pd.DataFrame({"recall": [0.0, 0.25, 0.5], "precision": [0.0, 0.5, 0.25]})
    # from (0.25, 0.5): d = 0.25 -> -0.25 at recall 0.5: zero halfway, recall 0.375
    assert equal_error_recall(c) == pytest.approx(0.375)


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


# --- multi-scale -------------------------------------------------------------

def test_parse_true_locations_scale(tmp_path):
    p = tmp_path / "trueLocations_Scale.txt"
    p.write_text("0: (67,-1,156)\n1: (50,28,91) (10,200,120)\n2:\n")
    t = parse_true_locations(p, scale=True)
    assert t[0].tolist() == [[67, -1, 156]]
    assert t[1].tolist() == [[50, 28, 91], [10, 200, 120]]
    assert t[2].shape == (0, 3)
    bad = tmp_path / "bad.txt"
    bad.write_text("0: (67,-1,156)\n1: (67,-1)\n")
    with pytest.raises(InputFileError, match=r"bad\.txt: line 2 .*\(row,col,width\)"):
        parse_true_locations(bad, scale=True)


def test_match_detections_multiscale_ellipsoid_by_hand():
    # true window: top-left (100, 100), width 200 (height 80); semi-axes
    # 0.25 * 80 = 20 (rows), 0.25 * 200 = 50 (cols), 50 (width)
    truths = [np.array([[100, 100, 200]]), np.array([[0, 0, 100], [0, 300, 100]])]
    det = pd.DataFrame({
        "scene": [0, 0, 0, 0, 0, 0, 1, 1],
        "row":   [112, 115, 100, 100, 110, 100, 0, 0],
        "col":   [130, 100, 100, 100, 125, 100, 0, 300],
        "width": [230, 200, 251, 250, 225, 100, 126, 100],
        "score": [0.99, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3],
    })
    # (112,130,230): 0.36 + 0.36 + 0.36 = 1.08 > 1 -> false
    # (115,100,200): (15/20)^2 = 0.5625 inside -> correct (first inside)
    # (100,100,251): (51/50)^2 > 1 -> false
    # (100,100,250): exactly 1, inside, but the car is taken -> false
    # (110,125,225): 0.25 * 3 = 0.75 inside, car taken -> false
    # (100,100,100): width 100 vs 200: (100/50)^2 -> false
    # scene 1: (0,0,126): (26/25)^2 > 1 -> false; (0,300,100) exact -> correct
    assert match_detections(det, truths).tolist() == [False, True, False, False, False, False, False, True]
    # the width axis scales with the true width: the same offsets on a car of
    # width 100 (axes 10, 25, 25) fall outside
    small = pd.DataFrame({"scene": [0], "row": [107.5], "col": [100], "width": [100], "score": [1.0]})
    assert match_detections(small, [np.array([[100, 100, 100]])]).tolist() == [True]  # (7.5/10)^2
    small["width"] = 120.0  # + (20/25)^2 = 0.5625 + 0.64 > 1
    assert match_detections(small, [np.array([[100, 100, 100]])]).tolist() == [False]
    with pytest.raises(ValueError, match="width"):
        match_detections(det.drop(columns="width"), truths)
    c = precision_recall(det, truths)
    assert c["correct"].iloc[-1] == 2 and c["recall"].iloc[-1] == pytest.approx(2 / 3)


def test_average_precision_by_hand():
    c = pd.DataFrame({"recall": [1 / 3, 1 / 3, 2 / 3, 2 / 3, 1.0],
                      "precision": [1, 1 / 2, 2 / 3, 2 / 4, 3 / 5]})
    assert average_precision(c) == pytest.approx(1 / 3 * 1 + 1 / 3 * 2 / 3 + 1 / 3 * 3 / 5)


def test_average_precision_matches_sklearn():
    from sklearn.metrics import average_precision_score
    truths = [np.array([[0, 0]]), np.array([[0, 0], [100, 100]])]
    det = pd.DataFrame({"scene": [0, 1, 1, 0, 1],
                        "row": [0, 300, 100, 200, 0],
                        "col": [0, 300, 100, 200, 0],
                        "score": [5.0, 4.0, 3.0, 2.0, 1.0]})
    ok = match_detections(det, truths)
    # every car is detected here, so sklearn's AP over the detections is ours
    assert average_precision(precision_recall(det, truths)) == pytest.approx(
        average_precision_score(ok, det["score"]))
    # a missed car (recall counted against 4 cars) scales AP by 3/4 here
    more = [truths[0], np.array([[0, 0], [100, 100], [500, 500]])]
    assert average_precision(precision_recall(det, more)) == pytest.approx(
        0.75 * average_precision_score(ok, det["score"]))


def test_pyramid_scales_by_hand():
    np.testing.assert_allclose(pyramid_scales((80, 200), max_scale=1.0, step=2.0), [1.0, 0.5])
    # 0.5 -> 40x100 fits; 0.25 -> 20x50 does not
    np.testing.assert_allclose(pyramid_scales((80, 400), max_scale=2.0, step=2.0), [2.0, 1.0, 0.5])
    assert len(pyramid_scales((39, 500), 1.0, 1.5)) == 0
    with pytest.raises(ValueError, match="step must be a float > 1"):
        pyramid_scales((80, 200), 1.0, 1.0)


def test_image_pyramid_area_average():
    # 2x2 blocks of constant value: halving gives the block values exactly
    blocks = np.arange(12, dtype=np.float32).reshape(3, 4) / 12
    img = np.kron(blocks, np.ones((2, 2), np.float32))
    lv = image_pyramid(img, [1.0, 0.5, 2.0])
    assert lv[0] is not None and np.array_equal(lv[0], img)
    np.testing.assert_allclose(lv[1], blocks, atol=1e-6)
    assert lv[2].shape == (12, 16)


def test_non_max_suppression_across_scales_by_hand():
    # boxes (row, col, width); height = 0.4 width; centres compared with the
    # radius (20, 50) scaled by the larger width / 100
    origins = np.array([[0, 0], [10, 25], [0, 0], [0, 220], [100, 0], [0, 260]], float)
    widths = np.array([200, 100, 100, 100, 100, 30], float)
    scores = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4])
    # centres: (40,100) (30,75) (20,50) (20,270) (120,50) (6,275)
    # 1 vs 0 (radius 40, 100): |dr|=10, |dc|=25 -> dropped
    # 2 vs 0: |dr|=20 < 40, |dc|=50 < 100 -> dropped (a part of the big car)
    # 3 vs 0: |dc|=170 -> kept
    # 4 vs 0: |dr|=80 -> kept
    # 5 vs 3 (radius 20, 50): |dr|=14, |dc|=5 -> dropped; vs 0: |dc|=175
    assert non_max_suppression(origins, scores, (20, 50), widths=widths).tolist() == [0, 3, 4]
    # equal widths of 100 reduce to the single-scale rule on top-lefts
    o = np.array([[0, 0], [5, 10], [0, 60], [30, 0], [2, 55]], float)
    s = np.array([0.9, 0.8, 0.7, 0.6, 0.95])
    assert non_max_suppression(o, s, (20, 50), widths=np.full(5, 100.0)).tolist() == \
        non_max_suppression(o, s, (20, 50)).tolist() == [4, 0, 3]
    # a better small window does not survive inside a bigger one either:
    # width 30 centred (22, 95) vs width 200 centred (40, 100) -> radius (40, 100)
    o2 = np.array([[16, 80], [0, 0]], float)
    assert non_max_suppression(o2, np.array([1.0, 0.5]), (20, 50),
                               widths=np.array([30.0, 200.0])).tolist() == [0]


class _BoxFeaturizer:
    """Stand-in featurizer for synthetic scenes: one feature per window, the
    mean inside the 40x100 window minus the mean of the 8-pixel ring around
    it (clipped to the image): 1 exactly on a white 40x100 box on black."""

    def transform_windows(self, scene, origins):
        ii = np.pad(np.cumsum(np.cumsum(scene.astype(float), 0), 1), ((1, 0), (1, 0)))
        H, W = scene.shape

        def box(r0, c0, r1, c1):
            r0, c0 = np.clip(r0, 0, H), np.clip(c0, 0, W)
            r1, c1 = np.clip(r1, 0, H), np.clip(c1, 0, W)
            return ii[r1, c1] - ii[r0, c1] - ii[r1, c0] + ii[r0, c0], (r1 - r0) * (c1 - c0)

        r, c = origins[:, 0], origins[:, 1]
        s_in, a_in = box(r, c, r + 40, c + 100)
        s_out, a_out = box(r - 8, c - 8, r + 48, c + 108)
        ring = (s_out - s_in) / np.maximum(a_out - a_in, 1)
        return (s_in / a_in - ring)[:, None]


def _first_column(X):
    return X[:, 0]


def test_multiscale_detection_on_synthetic_scene():
    # two "cars": white boxes of 80x200 (scale 0.5) and 40x100 (scale 1)
    scene = np.zeros((200, 420), np.float32)
    scene[20:100, 40:240] = 1.0
    scene[140:180, 300:400] = 1.0
    scales = pyramid_scales(scene.shape, max_scale=1.0, step=2 ** 0.25)
    np.testing.assert_allclose(scales[[0, 4]], [1.0, 0.5])
    det = detect_in_scene(scene, _BoxFeaturizer(), _first_column, stride=2, scales=scales)
    top = det.iloc[:2].sort_values("width")
    np.testing.assert_allclose(top[["row", "col", "width"]].to_numpy(),
                               [[140, 300, 100], [20, 40, 200]], atol=1e-6)
    np.testing.assert_allclose(det["score"].iloc[:2], 1.0, atol=1e-6)
    # suppression across scales: no other kept window is centred in the
    # central half of a car
    centres = det[["row", "col"]].to_numpy() + det[["width"]].to_numpy() * np.array([0.2, 0.5])
    for (cr, cc, w) in [(60, 140, 200), (160, 350, 100)]:
        near = (np.abs(centres[:, 0] - cr) < 0.2 * w - 1e-6) & (np.abs(centres[:, 1] - cc) < 0.5 * w - 1e-6)
        assert near.sum() == 1
    truths = [np.array([[20, 40, 200], [140, 300, 100]])]
    # the same detections with the scenes spread over 2 processes
    both = detect_scenes([scene, scene[:, ::-1].copy()], _BoxFeaturizer(), _first_column, stride=2,
                         pyramid={"max_scale": 1.0, "step": 2 ** 0.25}, n_jobs=2)
    pd.testing.assert_frame_equal(both[both["scene"] == 0].drop(columns="scene"), det)
    c = precision_recall(det.assign(scene=0), truths)
    at2 = c[c["n_detections"] == 2].iloc[0]  # the two cars come first (maybe tied)
    assert at2["recall"] == 1.0 and at2["precision"] == 1.0
    assert equal_error_recall(c) == 1.0 and average_precision(c) == pytest.approx(1.0)


def test_score_windows_by_hand():
    # a 40x100 scene without scales: one level (the scene), one window
    scene = np.ones((40, 100), np.float32)
    timings = {}
    b, v = score_windows(scene, _BoxFeaturizer(), {"a": _first_column, "b": lambda X: 2 * X[:, 0]},
                         stride=4, timings=timings)
    # a 40x100 scene holds exactly one 40x100 window: origin (0, 0), width 100
    np.testing.assert_array_equal(b, [[0, 0, 100]])
    np.testing.assert_allclose(v["a"], [1.0])
    np.testing.assert_allclose(v["b"], [2.0])
    assert set(timings) == {"features", "a", "b"} and all(t >= 0 for t in timings.values())
    # with scales: an 80x200 scene; level 1 has the stride-40 grid, level 0.5
    # (40x100) one window, mapped back to (0, 0) and width 200
    big = np.ones((80, 200), np.float32)
    b2, v2 = score_windows(big, _BoxFeaturizer(), {"a": _first_column}, stride=40, scales=[1.0, 0.5])
    grid = window_origins((80, 200), 40)
    np.testing.assert_array_equal(b2[:-1], np.column_stack([grid, np.full(len(grid), 100)]))
    np.testing.assert_array_equal(b2[-1], [0, 0, 200])
    # level 1: the featurizer's score of each grid window; level 0.5: that of the
    # one window of the resized, still all-white, 40x100 level
    expected = _BoxFeaturizer().transform_windows(big, grid)[:, 0]
    np.testing.assert_allclose(v2["a"][:-1], expected)
    half = np.ones((40, 100), np.float32)
    np.testing.assert_allclose(v2["a"][-1], _BoxFeaturizer().transform_windows(half, np.array([[0, 0]]))[0, 0],
                               atol=1e-6)


# --- the evaluators' criteria, exactly -----------------------------------------
def _java_is_acceptable(p, q, multiscale):
    """Line-by-line transliteration of ``isAcceptable`` in Evaluator.java and
    Evaluator_Scale.java (Python floats are Java doubles; int() truncates
    like Java's (int) cast; widths are positive, so // is Java's /)."""
    if not multiscale:
        h_diff, w_diff = abs(p[0] - q[0]), abs(p[1] - q[1])
        h_axis, w_axis = 0.25 * 40, 0.25 * 100
        return (h_diff * h_diff) / (h_axis * h_axis) + (w_diff * w_diff) / (w_axis * w_axis) <= 1
    p_ci = p[0] + int(0.4 * p[2] / 2)
    p_cj = p[1] + p[2] // 2
    q_ci = q[0] + int(0.4 * q[2] / 2)
    q_cj = q[1] + q[2] // 2
    h_diff, w_diff, s_diff = float(abs(p_ci - q_ci)), float(abs(p_cj - q_cj)), float(abs(p[2] - q[2]))
    h_axis, w_axis, s_axis = 0.25 * 0.4 * q[2], 0.25 * q[2], 0.25 * q[2]
    return (h_diff * h_diff) / (h_axis * h_axis) + (w_diff * w_diff) / (w_axis * w_axis) + \
        (s_diff * s_diff) / (s_axis * s_axis) <= 1


@pytest.mark.parametrize("multiscale", [False, True])
def test_acceptable_is_the_java_evaluators(multiscale):
    rng = np.random.default_rng(0)
    n = 4000
    q = np.column_stack([rng.integers(-5, 200, n), rng.integers(-5, 300, n), rng.integers(80, 220, n)])
    # detections near the truths (most pairs close to the ellipsoid's surface) and a few far
    p = q + np.column_stack([rng.integers(-25, 26, n), rng.integers(-60, 61, n), rng.integers(-60, 61, n)])
    p[:, 2] = np.maximum(p[:, 2], 1)
    k = 3 if multiscale else 2
    got = np.array([acceptable(p[i:i + 1, :k], q[i:i + 1, :k])[0, 0] for i in range(n)])
    want = np.array([_java_is_acceptable(p[i].tolist(), q[i].tolist(), multiscale) for i in range(n)])
    assert got.tolist() == want.tolist()
    assert 0.1 < want.mean() < 0.9  # both outcomes are exercised
    # the pairwise form is the same test on every pair
    full = acceptable(p[:50, :k], q[:40, :k])
    assert full.shape == (50, 40)
    assert full.tolist() == [[_java_is_acceptable(a.tolist(), b.tolist(), multiscale) for b in q[:40]]
                             for a in p[:50]]


def test_multiscale_criterion_compares_centres_by_hand():
    truth = np.array([[100, 100, 200]])  # centre (100 + 40, 100 + 100) = (140, 200); axes 20, 50, 50
    found = np.array([
        [100, 100, 250],  # centre (150, 225): (10/20)^2 + (25/50)^2 + (50/50)^2 = 1.5 -> no
        [110, 110, 220],  # centre (154, 220): 0.49 + 0.16 + 0.16 = 0.81 -> yes
        [75, 37, 250],    # centre (125, 162): 0.5625 + 0.5776 + 1 -> no (top-lefts 25 and 63 apart)
        [125, 150, 150],  # centre (155, 225): 0.5625 + 0.25 + 1 -> no
        [130, 125, 150],  # centre (160, 200): 1 + 0 + 1 -> no
        [127, 132, 160],  # centre (159, 212): 0.9025 + 0.0576 + 0.64 -> no
        [137, 140, 180],  # centre (173, 230): (33/20)^2 > 1 -> no
        [105, 115, 180],  # centre (141, 205): 0.0025 + 0.01 + 0.16 -> yes
    ])
    assert acceptable(found, truth)[:, 0].tolist() == [False, True, False, False, False, False, False, True]
    # odd widths: (int)(0.4 * 155 / 2) = 31 and 155 / 2 = 77 in Java
    assert acceptable(np.array([[0, 0, 155]]), np.array([[0, 0, 155]]))[0, 0]
    assert _java_is_acceptable([0, 0, 155], [0, 0, 155], True)
    # float detections are rounded as a foundLocations file would hold them
    det = pd.DataFrame({"row": [109.6], "col": [110.4], "width": [219.5]})
    assert found_locations(det, True).tolist() == [[110, 110, 220]]
    assert found_locations(det, False).tolist() == [[110, 110]]


def test_match_takes_the_first_acceptable_car_in_file_order():
    # (0, 15) is acceptable for both cars (0.36 and 0.04); the evaluator gives
    # it the first one listed, not the nearest, so (0, 40) (acceptable for the
    # second car only, 0.64) is correct too
    truths = [np.array([[0, 0], [0, 20]])]
    det = pd.DataFrame({"scene": [0, 0], "row": [0, 0], "col": [15, 40], "score": [2.0, 1.0]})
    assert match_detections(det, truths).tolist() == [True, True]
    # listed the other way round, the first car listed is the near one
    assert match_detections(det, [truths[0][::-1]]).tolist() == [True, False]
    # multi-scale likewise, and detections go by decreasing score, not table order
    truths3 = [np.array([[0, 0, 100], [0, 20, 100]])]
    det3 = pd.DataFrame({"scene": [0, 0], "row": [0, 0], "col": [40, 15], "width": [100, 100],
                         "score": [1.0, 2.0]})
    assert match_detections(det3, truths3).tolist() == [True, True]


def _negated_first_column(X):
    return -X[:, 0]


@pytest.mark.parametrize("pyramid", [None, {"max_scale": 1.0, "step": 2 ** 0.25}])
def test_several_scorers_share_the_windows_and_match_separate_runs(pyramid):
    # a mapping of scorers: one pass over the windows, per-method NMS; the
    # rows of each method equal those of a run with that scorer alone
    scene = np.zeros((200, 420), np.float32)
    scene[20:100, 40:240] = 1.0
    scene[140:180, 300:400] = 1.0
    calls = []

    class Counting(_BoxFeaturizer):
        def transform_windows(self, scene, origins):
            calls.append(len(origins))
            return super().transform_windows(scene, origins)

    scorers = {"box": _first_column, "anti": _negated_first_column}
    both = detect_scenes([scene], Counting(), scorers, stride=2, pyramid=pyramid)
    n_levels = len(calls)
    assert n_levels == (1 if pyramid is None else len(pyramid_scales(scene.shape, **pyramid)))
    assert list(both.columns[:2]) == ["scene", "method"]
    for name, fn in scorers.items():
        alone = detect_scenes([scene], _BoxFeaturizer(), fn, stride=2, pyramid=pyramid)
        got = both[both["method"] == name].drop(columns="method").reset_index(drop=True)
        pd.testing.assert_frame_equal(got, alone)
    # the box scorer's best window is the 40x100 car's top-left (single scale)
    if pyramid is None:
        best = both[both["method"] == "box"].iloc[0]
        assert (best["row"], best["col"]) == (140, 300)
    with pytest.raises(ValueError, match="non-empty mapping"):
        detect_scenes([scene], _BoxFeaturizer(), {}, stride=2)


def test_prepare_for_scoring_does_not_depend_on_the_callers_threads():
    # the moment tensors come from large BLAS products, which round differently
    # when split over threads: prepared with the caller's 2 threads, this model's
    # T2 and T3 differ in their last bits from one thread's (checked)
    import copy

    from threadpoolctl import threadpool_limits

    from geomargin.detect.scenes import DecisionScorer, prepare_for_scoring
    from geomargin.models.geometric import GeometricMarginSVC

    rng = np.random.default_rng(0)
    groups = np.repeat(np.arange(10), 3)
    X = rng.normal(size=(200, groups.size))
    y = (X[:, 0] + X[:, 4] + rng.normal(size=200) > 0).astype(int)
    X[(rng.random((200, 10)) < 0.3)[:, groups]] = np.nan
    est = GeometricMarginSVC(kernel="poly", degree=3, C=1.0, groups=groups).fit(X, y)
    prepared = []
    for threads in (1, 2):
        with threadpool_limits(threads):
            prepared.append(prepare_for_scoring(copy.deepcopy(est))._norms._cache3)
    for a, b in zip(prepared[0], prepared[1]):
        assert np.array_equal(a, b)
    # a prepared model is scored with what it was prepared with, not prepared again
    lines = []
    model = prepare_for_scoring(copy.deepcopy(est), log=lines.append)
    assert len(lines) == 1 and lines[0].startswith("prepared for scoring in ")
    cache = model._norms._cache3
    assert DecisionScorer(model).estimator._norms._cache3 is cache
    # nothing to prepare: nothing logged
    from sklearn.linear_model import LogisticRegression

    prepare_for_scoring(LogisticRegression(), log=lines.append)
    assert len(lines) == 1


@pytest.mark.parametrize("pyramid", [None, {"max_scale": 1.2, "step": 2 ** 0.25}])
def test_scenes_of_different_sizes_on_two_processes_match_one(pyramid):
    # the scenes go to the processes in batches of near-equal window counts
    # (_n_windows: exactly the windows score_windows scores); the result is
    # the same as in one process
    from geomargin.detect.scenes import _n_windows

    rng = np.random.default_rng(3)
    scenes = [rng.random(shape).astype(np.float32)
              for shape in [(40, 100), (300, 500), (61, 143), (120, 260), (45, 333), (200, 101)]]
    for scene in scenes:
        calls = []

        class Counting(_BoxFeaturizer):
            def transform_windows(self, scene, origins):
                calls.append(len(origins))
                return super().transform_windows(scene, origins)

        scales = None if pyramid is None else pyramid_scales(scene.shape, **pyramid)
        score_windows(scene, Counting(), {"box": _first_column}, stride=3, scales=scales)
        assert _n_windows(scene.shape, 3, pyramid) == sum(calls)
    one = detect_scenes(scenes, _BoxFeaturizer(), _first_column, stride=3, pyramid=pyramid)
    two = detect_scenes(scenes, _BoxFeaturizer(), _first_column, stride=3, pyramid=pyramid, n_jobs=2)
    pd.testing.assert_frame_equal(one, two)
    assert set(one["scene"]) == set(range(len(scenes)))
