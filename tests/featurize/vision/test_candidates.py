"""Tests of featurize.vision.candidates: landmark candidates (local maxima
above a threshold inside each landmark's search window) at known part
positions with the NCC detector, their cap, order and clipped windows, and
the candidate reader on the response maps of the HOG landmark detector."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from geomargin.featurize.vision.candidates import _candidates_in_maps, _search_regions
from geomargin.featurize.vision.candidates import landmark_candidates
from geomargin.featurize.vision.hog_detector import HogLandmarkDetector
from toy_vision import canvas, disc_template


def test_candidates_at_known_part_positions():
    tpl = disc_template(p=11, radius=3)
    # landmark 0 expected at (20, 30): true part at (22, 34) plus a weaker
    # (smaller) look-alike at (16, 23); a disc outside the search window at
    # (20, 55) must be ignored. Landmark 1 expected at (20, 75): no part.
    img = canvas((22, 34), (20, 55), radius=3)
    cv2.circle(img, (23, 16), 2, 1.0, -1)
    pos = np.array([[20, 30], [20, 75]])
    centres, scores = landmark_candidates(img[None], pos, np.stack([tpl, tpl]),
                                          search_radius=8, threshold=0.5, max_candidates=4)
    assert centres.shape == (1, 2, 4, 2) and scores.shape == (1, 2, 4)
    assert centres[0, 0, 0].tolist() == [22, 34]
    assert scores[0, 0, 0] == pytest.approx(1.0, abs=1e-4)
    assert np.abs(centres[0, 0, 1] - [16, 23]).max() <= 1  # smaller disc: peak within 1 px
    assert 0.5 < scores[0, 0, 1] < scores[0, 0, 0]
    # remaining slots are absent, the far disc is not a candidate
    assert np.isnan(scores[0, 0, 2:]).all() and (centres[0, 0, 2:] == -1).all()
    assert np.isnan(scores[0, 1]).all() and (centres[0, 1] == -1).all()
    # a higher threshold drops the look-alike: one more absent slot
    _, s2 = landmark_candidates(img[None], pos[:1], tpl[None], 8, float(scores[0, 0, 1]) + 1e-3, 4)
    assert np.isfinite(s2[0, 0]).tolist() == [True, False, False, False]


def test_candidate_cap_and_order():
    tpl = disc_template(p=9, radius=2)
    parts = [(14, 22), (14, 38), (26, 22), (26, 38), (20, 30)]
    img = canvas(*parts, radius=2)
    centres, scores = landmark_candidates(img[None], np.array([[20, 30]]), tpl[None],
                                          search_radius=8, threshold=0.9, max_candidates=3)
    s = scores[0, 0]
    assert np.all(np.diff(s) <= 0) and np.all(s > 0.9)
    assert {tuple(c) for c in centres[0, 0]} <= set(parts)
    centres, scores = landmark_candidates(img[None], np.array([[20, 30]]), tpl[None],
                                          search_radius=8, threshold=0.9, max_candidates=10)
    assert np.isfinite(scores[0, 0]).sum() == 5
    assert {tuple(c) for c in centres[0, 0, :5]} == set(parts)


def test_search_window_clipped_to_image():
    tpl = disc_template()
    img = canvas((10, 10))  # part at the extreme valid centre for p = 21
    centres, scores = landmark_candidates(img[None], np.array([[12, 12]]), tpl[None],
                                          search_radius=8, threshold=0.5, max_candidates=2)
    assert centres[0, 0, 0].tolist() == [10, 10]


def known_part_images(n=30, seed=0):
    """Unflipped synthetic cars with a wheel (disc) and a window (bar) at
    known, jittered places; non-cars: clutter only. Returns images, labels
    and the true (row, col) of wheel and window in each car."""
    rng = np.random.default_rng(seed)
    imgs, ys, truth = [], [], []
    for i in range(2 * n):
        img = 0.2 * rng.random((40, 100)).astype(np.float32)
        for _ in range(3):  # clutter discs and bars anywhere
            cv2.circle(img, (int(rng.integers(5, 95)), int(rng.integers(5, 35))), 4,
                       float(rng.uniform(0.3, 0.8)), -1)
        if i < n:
            jr, jc = (int(v) for v in rng.integers(-3, 4, 2))
            wheel, window = (26 + jr, 25 + jc), (12 + jr, 62 + jc)
            cv2.circle(img, (wheel[1], wheel[0]), 6, 1.0, -1)
            cv2.rectangle(img, (window[1] - 8, window[0] - 3), (window[1] + 8, window[0] + 3),
                          0.9, -1)
            truth.append([wheel, window])
        imgs.append(img)
        ys.append(i < n)
    return np.stack(imgs), np.array(ys), np.array(truth)


def test_hog_detector_finds_known_parts():
    X, y, truth = known_part_images()
    tr, te = np.r_[0:20, 30:50], np.r_[20:30, 50:60]
    det = HogLandmarkDetector(patch_size=21, cell_size=7, search_radius=6, random_state=0)
    det.fit(X[tr], y[tr], np.array([[26, 25], [12, 62]]))
    assert det.coef_.shape == (2, 144) and (det.train_accuracy_ > 0.9).all()
    centres, scores = [], []
    regions = _search_regions(np.array([[26, 25], [12, 62]]), 6, 21, (40, 100))
    for k in range(2):
        maps = np.stack([det.response_maps(im)[k] for im in X[te]])
        cen, sc = _candidates_in_maps(maps, np.zeros((len(te), 2), int), regions[k], 21, 0.5, 3)
        centres.append(cen)
        scores.append(sc)
    # held-out cars: the best candidate of each part is within 2 px of the truth
    for k in range(2):
        err = np.abs(centres[k][:10, 0] - truth[20:30, k]).max(axis=1)
        assert (err <= 2).mean() >= 0.9, err.tolist()
    # held-out non-cars have fewer candidates above 0.5 than cars (absence has structure)
    n_car = sum(np.isfinite(s[:10]).sum() for s in scores)
    n_non = sum(np.isfinite(s[10:]).sum() for s in scores)
    assert n_non < n_car, (n_car, n_non)

