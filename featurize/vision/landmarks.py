"""Choosing the car landmarks: patch centres whose NCC with the mean car
patch separates cars from non-cars best (Fisher score), and their templates."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator

from geomargin.common.checks import int_at_least, nonnegative_float, validate_params
from geomargin.featurize.vision.images import as_grey_stack

__all__ = ["normalise_patches", "LandmarkModel"]

_EPS = 1e-3  # std floor (intensities in [0, 1]) for z-normalising flat patches


def normalise_patches(patches: np.ndarray, dtype=np.float64) -> np.ndarray:
    """z-normalise patches (m, p, p) -> (m, p*p): minus mean, over std (floor 1e-3)."""
    m = patches.shape[0]
    a = patches.reshape(m, -1).astype(dtype)
    a = a - a.mean(axis=1, keepdims=True)
    sd = a.std(axis=1, keepdims=True)
    return a / np.maximum(sd, _EPS)


_FLAT_SD = 1e-5  # patch std below which a patch is flat (8-bit crops: any non-flat 21x21 patch has sd > 1.9e-4)


def _box_mean(a: np.ndarray, p: int) -> np.ndarray:
    """Mean of every p x p window of each image in ``a`` (n, H, W), float64."""
    c = np.zeros((a.shape[0], a.shape[1] + 1, a.shape[2] + 1))
    c[:, 1:, 1:] = a.cumsum(1).cumsum(2)
    return (c[:, p:, p:] - c[:, :-p, p:] - c[:, p:, :-p] + c[:, :-p, :-p]) / (p * p)


def _landmark_statistics(images: np.ndarray, y: np.ndarray, p: int):
    """Fisher score and mean z-normalised car patch at every patch place.

    Vectorised over all places at once: patch means and standard deviations
    come from integral images, and the two place-dependent correlations (the
    mean car patch ``t[r, c]`` and each crop's NCC with it) are accumulated
    over the p*p offsets of the patch, each offset one array operation on
    all crops and places. Same quantities as the per-row definition
    (``_landmark_statistics_reference`` in tests/featurize/vision/test_landmarks.py), up to
    floating-point rounding.

    Returns ``fisher`` (nr, nc) and ``templates`` (nr, nc, p, p).
    """
    x = images.astype(np.float64)
    n, H, W = x.shape
    nr, nc = H - p + 1, W - p + 1
    mu = _box_mean(x, p)
    sd = np.sqrt(np.maximum(_box_mean(x * x, p) - mu * mu, 0.0))
    flat = sd < _FLAT_SD
    sd = np.where(flat, 0.0, sd)
    # t[r, c] = mean over cars of (patch - mu) / max(sd, eps)
    w = 1.0 / np.maximum(sd[y], _EPS) / y.sum()                    # (ncar, nr, nc)
    xc = np.ascontiguousarray(x[y])
    wm = (w * mu[y]).sum(axis=0)
    t = np.empty((nr, nc, p, p))
    for a in range(p):
        for b in range(p):
            t[:, :, a, b] = np.einsum("irc,irc->rc", w, xc[:, a:a + nr, b:b + nc]) - wm
    tz = t - t.mean(axis=(2, 3), keepdims=True)
    tz /= np.maximum(np.sqrt((tz * tz).sum(axis=(2, 3), keepdims=True)), 1e-12)
    # NCC of each crop's patch with tz at the same place: <x - mu, tz> / ||x - mu||
    num = np.zeros((n, nr, nc))
    for a in range(p):
        for b in range(p):
            num += x[:, a:a + nr, b:b + nc] * tz[:, :, a, b]
    s = np.where(flat, 0.0, num / np.where(flat, 1.0, sd * p))     # ||x - mu|| = p * sd
    m1, m0 = s[y].mean(0), s[~y].mean(0)
    v1, v0 = s[y].var(0), s[~y].var(0)
    fisher = (m1 - m0) ** 2 / np.maximum(v1 + v0, 1e-12)
    return fisher, t


class LandmarkModel(BaseEstimator):
    """Choose distinctive car landmarks and their NCC templates.

    Parameters
    ----------
    n_landmarks : number of landmarks (19 in Chechik et al.).
    patch_size : odd side of the square patch (21).
    min_distance : minimum Euclidean distance (pixels) between chosen centres.

    Attributes
    ----------
    positions_ : int array (n_landmarks, 2), (row, col) patch centres in the
        normalised 40x100 car frame, by decreasing distinctiveness.
    templates_ : float32 (n_landmarks, p, p), mean z-normalised car patch.
    fisher_ : float64 (40 - p + 1, 100 - p + 1), distinctiveness of every
        centre (index [r - p//2, c - p//2]): (m_car - m_non)^2 / (v_car + v_non)
        of the patch's NCC with the mean car patch at the same place.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.random((20, 40, 100)).astype(np.float32)
    >>> X[:10, 5:15, 20:30] += 1.0                  # cars carry a bright square
    >>> lm = LandmarkModel(n_landmarks=2, patch_size=11).fit(X, np.r_[[1]*10, [0]*10])
    >>> lm.positions_.shape
    (2, 2)
    """

    _parameter_constraints = {
        "n_landmarks": int_at_least(1),
        "patch_size": (lambda v: int_at_least(3)[0](v) and v % 2 == 1, "an odd int >= 3"),
        "min_distance": nonnegative_float(),
    }

    def __init__(self, n_landmarks: int = 19, *, patch_size: int = 21, min_distance: float = 9.0):
        self.n_landmarks = n_landmarks
        self.patch_size = patch_size
        self.min_distance = min_distance

    def fit(self, images: np.ndarray, y: np.ndarray) -> "LandmarkModel":
        """``images`` (n, h, w) oriented crops; ``y`` 1/True = car."""
        validate_params(self)
        name = type(self).__name__
        L, p = int(self.n_landmarks), int(self.patch_size)
        images = as_grey_stack(images, f"{name}.fit")
        y = np.asarray(y).astype(bool)
        if images.ndim != 3 or len(y) != len(images) or y.all() or not y.any():
            raise ValueError(f"{name}.fit needs images (n, h, w) with both cars and non-cars; "
                             f"got images {images.shape}, {int(y.sum())} cars of {len(y)} labels")
        n, H, W = images.shape
        if H < p or W < p:
            raise ValueError(f"patch_size {p} does not fit in images of shape {H}x{W}")
        h = p // 2
        nc = W - p + 1
        fisher, tmpl = _landmark_statistics(images, y, p)
        order = np.argsort(-fisher.ravel(), kind="stable")
        chosen: list[tuple[int, int]] = []
        md2 = float(self.min_distance) ** 2
        for idx in order:
            r, c = divmod(int(idx), nc)
            if all((r - a) ** 2 + (c - b) ** 2 >= md2 for a, b in chosen):
                chosen.append((r, c))
                if len(chosen) == L:
                    break
        if len(chosen) < L:
            raise ValueError(f"only {len(chosen)} landmarks fit {H}x{W} crops with "
                             f"min_distance={self.min_distance}; lower min_distance or n_landmarks")
        ch = np.array(chosen)
        self.positions_ = ch + h
        self.templates_ = tmpl[ch[:, 0], ch[:, 1]].astype(np.float32)
        self.fisher_ = fisher
        self.image_shape_ = (H, W)
        return self
