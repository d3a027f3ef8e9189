"""Tests of featurize.vision.landmarks: the landmark model picks distinctive,
spread-out patches on synthetic cars, and the vectorised landmark
statistics equal their per-row definition."""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from geomargin.featurize.vision.landmarks import LandmarkModel, _landmark_statistics, normalise_patches
from geomargin.featurize.vision.orientation import align_orientation, orient_to, pearson_to
from toy_vision import synthetic_cars


def test_landmark_model_finds_parts_and_spreads():
    X, y = synthetic_cars()
    flipped, mean = align_orientation(X[y == 1])
    O, _ = orient_to(X, mean)
    lm = LandmarkModel(n_landmarks=4, patch_size=15, min_distance=9).fit(O, y)
    P = lm.positions_
    d = np.sqrt(((P[:, None] - P[None]) ** 2).sum(-1))
    assert (d[np.triu_indices(4, 1)] >= 9).all()
    parts = np.array([[28, 20], [28, 78], [12, 37], [28, 79], [28, 21], [12, 62]])
    # every chosen 15x15 patch overlaps a part (centre within 12 px)
    near = [np.sqrt(((parts - q) ** 2).sum(1)).min() <= 12 for q in P]
    assert all(near), P.tolist()
    # the clutter-only top band (rows 7..9, away from the parts) is not distinctive
    assert lm.fisher_[0:3].max() < np.quantile(lm.fisher_, 0.9)
    assert lm.fisher_.shape == (40 - 14, 100 - 14)



def _landmark_statistics_reference(images: np.ndarray, y: np.ndarray, p: int):
    """Per-row definition of ``featurize.vision.landmarks._landmark_statistics``
    (slow): z-normalise every patch, average the car patches, NCC, Fisher."""
    images = np.asarray(images, dtype=np.float32)
    n, H, W = images.shape
    nr, nc = H - p + 1, W - p + 1
    fisher = np.empty((nr, nc))
    tmpl = np.empty((nr, nc, p * p))
    for r in range(nr):
        win = sliding_window_view(images[:, r:r + p, :], (p, p), axis=(1, 2))[:, 0]
        z = normalise_patches(win.reshape(n * nc, p, p), np.float64).reshape(n, nc, p * p)
        t = z[y].mean(axis=0)
        # NCC of each z-normalised patch with the mean car patch at its place
        s = np.stack([pearson_to(z[:, c].reshape(n, p, p), t[c].reshape(p, p))
                      for c in range(nc)], axis=1)
        m1, m0 = s[y].mean(0), s[~y].mean(0)
        v1, v0 = s[y].var(0), s[~y].var(0)
        fisher[r] = (m1 - m0) ** 2 / np.maximum(v1 + v0, 1e-12)
        tmpl[r] = t
    return fisher, tmpl.reshape(nr, nc, p, p)


def test_vectorised_landmark_statistics_match_per_row_definition():
    """The integral-image/offset-loop statistics equal the per-row definition
    (z-normalise every patch, average car patches, NCC, Fisher), including a
    flat (constant) region where the NCC is defined as 0."""
    rng = np.random.default_rng(3)
    imgs = (rng.integers(0, 256, (12, 30, 40)) / 255.0).astype(np.float32)
    imgs[:6, 5:15, 10:20] += 0.5                       # cars carry a bright block
    imgs[2, :, :20] = 0.25                             # flat region in one car
    y = np.r_[[True] * 6, [False] * 6]
    f1, t1 = _landmark_statistics(imgs, y, 11)
    f0, t0 = _landmark_statistics_reference(imgs, y, 11)
    assert f1.shape == f0.shape == (20, 30) and t1.shape == t0.shape == (20, 30, 11, 11)
    np.testing.assert_allclose(t1, t0, atol=1e-9)
    np.testing.assert_allclose(f1, f0, rtol=1e-7, atol=1e-10)

