"""The HOG landmark detector: per-landmark logistic regressions on dense HOG
descriptors, scored as probabilities."""

from __future__ import annotations

import numpy as np
from scipy.special import expit
from sklearn.base import BaseEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.utils.validation import check_is_fitted

from geomargin.common.checks import int_at_least, positive_float, validate_params
from geomargin.featurize.vision.candidates import _search_regions
from geomargin.featurize.vision.hog import dense_hog
from geomargin.featurize.vision.images import as_grey_stack

__all__ = ["HogLandmarkDetector"]


class HogLandmarkDetector(BaseEstimator):
    """Per-landmark linear classifiers on dense HOG descriptors.

    For landmark ``k`` a logistic regression separates the HOG descriptor of
    the patch at the landmark (the true place +- ``jitter`` pixels in the
    oriented car crops) from patches elsewhere in its search window: at
    ``n_negatives`` random places in every non-car crop and at
    ``n_negatives`` random places at least ``min_offset`` pixels (Chebyshev)
    from the true place in every car crop. Its response map is the predicted
    probability at every patch place, so a candidate threshold is a
    probability.

    Parameters
    ----------
    patch_size, cell_size, orientations : HOG geometry
        (:func:`geomargin.featurize.vision.hog.dense_hog`; 2x2-cell blocks, L2-Hys).
    C : inverse regularisation strength of each logistic regression.
    search_radius : half-side of the search window (as in the candidates).
    jitter : positives within this many pixels of the true place.
    min_offset : displaced negatives at least this far from the true place.
    n_negatives : random negative places per crop and landmark.
    random_state : seed of the negative places.

    Attributes
    ----------
    coef_ : (L, n_hog) float64, intercept_ : (L,) float64
        Logistic-regression weights per landmark.
    train_accuracy_ : (L,) training accuracy per landmark.

    Examples
    --------
    >>> import numpy as np, cv2
    >>> rng = np.random.default_rng(0)
    >>> imgs = rng.random((40, 40, 100)).astype(np.float32) * 0.2
    >>> for im in imgs[:20]:
    ...     _ = cv2.rectangle(im, (40, 12), (54, 26), 1.0, 2)   # cars: a square at (19, 47)
    >>> y = np.r_[np.ones(20, bool), np.zeros(20, bool)]
    >>> det = HogLandmarkDetector(search_radius=6).fit(imgs, y, np.array([[19, 47]]))
    >>> maps = det.response_maps(imgs[0])                    # (1, 20, 80) probabilities
    >>> r, c = np.unravel_index(maps[0].argmax(), maps[0].shape)
    >>> abs(int(r) - 9) <= 1 and abs(int(c) - 37) <= 1      # the square's patch, +- jitter
    True
    """

    _parameter_constraints = {
        "n_negatives": int_at_least(1),
        "jitter": int_at_least(0),
        "min_offset": int_at_least(1),
        "C": positive_float(),
    }

    def __init__(self, patch_size: int = 21, *, cell_size: int = 7, orientations: int = 9,
                 C: float = 1.0, search_radius: int = 8, jitter: int = 1, min_offset: int = 3,
                 n_negatives: int = 4, random_state: int = 0):
        self.patch_size = patch_size
        self.cell_size = cell_size
        self.orientations = orientations
        self.C = C
        self.search_radius = search_radius
        self.jitter = jitter
        self.min_offset = min_offset
        self.n_negatives = n_negatives
        self.random_state = random_state

    def descriptors(self, image: np.ndarray) -> np.ndarray:
        """Dense HOG of one image: (H - p + 1, W - p + 1, n_hog)."""
        return dense_hog(image, self.patch_size, self.cell_size, self.orientations)

    def fit(self, images: np.ndarray, y: np.ndarray, positions: np.ndarray
            ) -> "HogLandmarkDetector":
        """``images`` (n, h, w) oriented crops, ``y`` True = car, ``positions``
        (L, 2) landmark patch centres in the crop frame."""
        validate_params(self)
        name = type(self).__name__
        images = as_grey_stack(images, f"{name}.fit")
        y = np.asarray(y).astype(bool)
        positions = np.asarray(positions, dtype=int)
        n, H, W = images.shape
        p, h = int(self.patch_size), int(self.patch_size) // 2
        regions = _search_regions(positions, int(self.search_radius), p, (H, W))
        rng = np.random.default_rng(self.random_state)
        L = len(positions)
        J = int(self.jitter)
        feats: list[list[np.ndarray]] = [[] for _ in range(L)]
        labels: list[list[np.ndarray]] = [[] for _ in range(L)]
        for i in range(n):
            D = self.descriptors(images[i])
            for k, (r, c) in enumerate(positions):
                r0, r1, c0, c1 = regions[k]
                rr, cc = np.mgrid[r0:r1, c0:c1]
                rr, cc = rr.ravel(), cc.ravel()
                dist = np.maximum(np.abs(rr - (r - h)), np.abs(cc - (c - h)))
                if y[i]:
                    pos = dist <= J
                    feats[k].append(D[rr[pos], cc[pos]])
                    labels[k].append(np.ones(int(pos.sum()), bool))
                    far = np.flatnonzero(dist >= int(self.min_offset))
                else:
                    far = np.arange(len(rr))
                if far.size:
                    pick = rng.choice(far, min(int(self.n_negatives), far.size), replace=False)
                    feats[k].append(D[rr[pick], cc[pick]])
                    labels[k].append(np.zeros(len(pick), bool))
        coef, icpt, acc = [], [], []
        for k in range(L):
            Xk, yk = np.concatenate(feats[k]), np.concatenate(labels[k])
            if yk.all() or not yk.any():
                raise ValueError(f"{name}: landmark {k} has only one class of training patches; "
                                 "it needs car and non-car crops")
            lr = LogisticRegression(C=float(self.C), class_weight="balanced", max_iter=2000)
            lr.fit(Xk, yk)
            coef.append(lr.coef_[0])
            icpt.append(lr.intercept_[0])
            acc.append(lr.score(Xk, yk))
        self.coef_ = np.array(coef)
        self.intercept_ = np.array(icpt)
        self.train_accuracy_ = np.array(acc)
        return self

    def response_maps(self, image: np.ndarray) -> np.ndarray:
        """Probability that the patch at each place (top-left) is the
        landmark: float32 (L, H - p + 1, W - p + 1)."""
        check_is_fitted(self, "coef_")
        z = self.descriptors(image) @ self.coef_.T + self.intercept_
        return np.ascontiguousarray(np.moveaxis(expit(z), -1, 0), dtype=np.float32)
