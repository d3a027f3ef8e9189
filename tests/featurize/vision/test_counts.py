"""Tests of featurize.vision.counts: the distribution of candidate counts per
landmark for cars and non-cars, by hand, and its input checks."""

from __future__ import annotations

import numpy as np
import pytest

from geomargin.featurize.vision.counts import candidate_count_distribution


def test_candidate_count_distribution_by_hand():
    # cars: counts 0, 3, 3, 1 -> k=0:1, 1:1, 3:2 of 4; non-cars: 0, 0, 2, 0 -> k=0:3, 2:1 of 4
    counts = np.array([[0, 3], [3, 1], [0, 0], [2, 0]])
    y = np.array([1, 1, 0, 0])
    d = candidate_count_distribution(counts, y, max_candidates=3)
    assert d["candidates"].tolist() == [0, 1, 2, 3]
    assert d["cars"].tolist() == [1, 1, 0, 2]
    assert d["non_cars"].tolist() == [3, 0, 1, 0]
    np.testing.assert_allclose(d["cars_fraction"], [0.25, 0.25, 0, 0.5])
    np.testing.assert_allclose(d["non_cars_fraction"], [0.75, 0, 0.25, 0])


def test_candidate_count_distribution_bad_input():
    with pytest.raises(ValueError, match=r"0\.\.max_candidates = 2\. Got range 0\.\.3"):
        candidate_count_distribution(np.array([[0, 3]]), np.array([1]), 2)
    with pytest.raises(ValueError, match=r"n_images = len\(y\) = 2"):
        candidate_count_distribution(np.array([[0, 1]]), np.array([1, 0]), 2)
    with pytest.raises(ValueError, match="y must hold 0"):
        candidate_count_distribution(np.array([[0, 1]]), np.array([2]), 2)
