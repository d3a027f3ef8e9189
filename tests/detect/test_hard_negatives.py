"""Hard-negative mining (detect.hard_negatives) against brute force."""

import cv2
import numpy as np
import pytest

from geomargin.detect.hard_negatives import mine_hard_negatives, negative_windows


class _QuadrantFeaturizer:
    """Four features per 40x100 window: the means of its quadrants, absent
    (NaN) where a quadrant's mean is below 0.2."""

    def transform_windows(self, img, origins):
        out = []
        for r, c in origins:
            w = img[r:r + 40, c:c + 100]
            q = np.array([w[:20, :50].mean(), w[:20, 50:].mean(), w[20:, :50].mean(), w[20:, 50:].mean()])
            out.append(np.where(q < 0.2, np.nan, q))
        return np.array(out)


def _lin(X):
    return np.nan_to_num(X) @ np.array([1.0, -0.5, 0.25, 0.75]) - 0.6


def _first(X):
    return np.nan_to_num(X[:, 0]) - 0.4


def _brute(images, scorer, scales, stride, margin, k):
    feats, vals = [], []
    for img in images:
        for s in scales:
            lev = img if s == 1 else cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_LINEAR)
            # the grid, and the last row / column of windows touching the border
            for r in sorted(set(range(0, lev.shape[0] - 40 + 1, stride)) | {lev.shape[0] - 40}):
                for c in sorted(set(range(0, lev.shape[1] - 100 + 1, stride)) | {lev.shape[1] - 100}):
                    x = _QuadrantFeaturizer().transform_windows(lev, [(r, c)])[0]
                    v = scorer(x[None])[0]
                    if v > margin:
                        feats.append(x)
                        vals.append(v)
    order = sorted(range(len(vals)), key=lambda i: -vals[i])[:k]  # stable: earlier windows first
    return np.array(feats)[order], np.array(vals)[order]


@pytest.mark.parametrize("n_jobs,chunk", [(1, 1), (1, 100), (2, 3)])
def test_mined_windows_are_the_best_windows_by_brute_force(n_jobs, chunk):
    rng = np.random.default_rng(0)
    images = [rng.random((40, 100)).astype(np.float32) for _ in range(5)]
    scorers = {"lin": _lin, "first": _first}
    messages = []
    got = mine_hard_negatives(_QuadrantFeaturizer(), scorers, images, scales=[1.0, 1.5], stride=8,
                              margin=-0.1, max_windows=7, n_jobs=n_jobs, chunk=chunk, progress=messages.append)
    assert len(messages) == -(-5 // chunk) and messages[-1].startswith("5/5 negatives mined")
    for name, fn in scorers.items():
        X, v = _brute(images, fn, [1.0, 1.5], 8, -0.1, 7)
        assert got[name][0].dtype == np.float32
        np.testing.assert_allclose(got[name][1], v, rtol=0, atol=1e-12)
        np.testing.assert_allclose(got[name][0], X.astype(np.float32), equal_nan=True)
        assert (got[name][1] > -0.1).all() and np.all(np.diff(got[name][1]) <= 0)


def test_negative_windows_grid_and_errors():
    img = np.zeros((40, 100), np.float32)
    (l1, o1), (l2, o2) = negative_windows(img, [1.0, 2.0], 20)
    assert l1.shape == (40, 100) and o1.tolist() == [[0, 0]]
    # 80x200 image: rows 0, 20, 40; cols 0, 20, ..., 100 -> 3 x 6 windows
    assert l2.shape == (80, 200) and len(o2) == 18
    with pytest.raises(ValueError, match="scales must be >= 1"):
        negative_windows(img, [0.5], 4)
    with pytest.raises(ValueError, match="max_windows must be an int >= 1"):
        mine_hard_negatives(_QuadrantFeaturizer(), {"a": _first}, [img], max_windows=0)
    with pytest.raises(ValueError, match="no negative images"):
        mine_hard_negatives(_QuadrantFeaturizer(), {"a": _first}, [])
