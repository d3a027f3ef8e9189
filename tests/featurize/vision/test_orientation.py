"""Tests of featurize.vision.orientation: aligning car crops to one facing
direction, and orienting new images against the mean car."""

from __future__ import annotations

import numpy as np

from geomargin.featurize.vision.orientation import align_orientation, orient_to


def test_align_orientation_recovers_random_flips():
    rng = np.random.default_rng(1)
    car = np.zeros((40, 100))
    car[10:30, 5:40] = 1.0          # asymmetric "car": heavy front on the left
    car[25:35, 60:70] = 0.5
    flips = rng.random(30) < 0.5
    flips[0] = False
    crops = np.stack([(car[:, ::-1] if f else car) + 0.2 * rng.random((40, 100)) for f in flips])
    got, mean = align_orientation(crops)
    assert got.tolist() == flips.tolist()
    assert np.corrcoef(mean.ravel(), car.ravel())[0, 1] > 0.95
    # label-free orientation of new images against the mean car
    oriented, f2 = orient_to(np.stack([car, car[:, ::-1]]), mean)
    assert f2.tolist() == [False, True]
    np.testing.assert_allclose(oriented[1], car, atol=1e-6)
