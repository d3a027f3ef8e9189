"""Part-based car features with structurally absent landmark candidates.

Reproduces the image features of Chechik et al. (2008, Sec. 4.1) on the UIUC
car crops (Agarwal, Awan & Roth 2004):

1. :func:`load_crops` reads the 100x40 training crops.
2. Orientation: cars face left or right. :func:`align_orientation` flips the
   positive crops iteratively to whichever orientation correlates better
   (Pearson) with the current mean car; :func:`orient_to` then flips *any*
   image - car or not - to whichever orientation correlates better with that
   mean car. :class:`CarPartFeaturizer` uses the label-free :func:`orient_to` on
   every crop it transforms (training and test, cars and non-cars alike): at
   test time the label is unknown, so a label-dependent rule ("flip cars, leave
   non-cars") would leak the label into the features, and leaving training
   non-cars unflipped would make them distributed differently from the test
   non-cars, which do get matched. On training cars the two rules agree at
   convergence.
3. :class:`LandmarkModel` chooses ``n_landmarks`` patch centres on the car frame
   where the normalised cross-correlation (NCC) of a patch with the mean car
   patch separates cars from non-cars best (Fisher score), spread out by a
   greedy non-maximum suppression with a minimum distance, and keeps the mean
   (z-normalised) car patch of each landmark as its template.
4. Candidates: in each image each landmark is searched inside a window of
   ``search_radius`` pixels around its expected position by one of two
   detectors: ``"ncc"`` (:func:`landmark_candidates`: normalised
   cross-correlation with the landmark's mean car patch,
   ``cv2.matchTemplate(..., TM_CCOEFF_NORMED)``) or ``"hog"``
   (:class:`HogLandmarkDetector`: a per-landmark logistic regression on the
   patch's HOG descriptor, :func:`featurize.hog.dense_hog`, scored as a
   probability). Candidates are the local maxima (3x3, within the window)
   scoring above the detector's threshold, at most ``max_candidates`` per
   landmark, ordered by decreasing score. Missing slots are *structurally
   absent*.
5. :class:`CarPartFeaturizer` describes each candidate by the first ``n_pca``
   principal-component coefficients of its z-normalised patch (one PCA per
   landmark, fitted on the training candidates only) and lays them out as
   described in its docstring, NaN for absent slots.

Everything is computed by the same code for crops and for sliding windows in
a scene (:meth:`CarPartFeaturizer.transform_windows`), where each landmark's
response map is computed once per scene and every window reads its candidates
from it.
"""

from __future__ import annotations

import re
from pathlib import Path

import cv2
import numpy as np
import pandas as pd
from numpy.lib.stride_tricks import sliding_window_view
from sklearn.base import BaseEstimator, TransformerMixin
from scipy.special import expit
from sklearn.decomposition import PCA
from sklearn.linear_model import LogisticRegression
from sklearn.utils.validation import check_is_fitted

from featurize.exceptions import InputFileError
from featurize.hog import dense_hog
from models._validation import check_param, check_positive_int

__all__ = [
    "CROP_SHAPE",
    "read_grey_image",
    "find_train_dir",
    "load_crops",
    "pearson_to",
    "align_orientation",
    "orient_to",
    "LandmarkModel",
    "landmark_candidates",
    "HogLandmarkDetector",
    "DETECTORS",
    "normalise_patches",
    "CarPartFeaturizer",
    "candidate_count_distribution",
]

#: (height, width) of the UIUC training crops.
CROP_SHAPE = (40, 100)
#: Landmark detectors of :class:`CarPartFeaturizer`.
DETECTORS = ("ncc", "hog")
_EPS = 1e-3  # std floor (intensities in [0, 1]) for z-normalising flat patches


# --------------------------------------------------------------------------- I/O
def read_grey_image(path: str | Path, shape: tuple[int, int] | None = None) -> np.ndarray:
    """Read a grey image as float32 in [0, 1].

    Parameters
    ----------
    path : path of a PGM/PNG/... file OpenCV can read.
    shape : expected (height, width), or None for any size.

    Raises
    ------
    InputFileError
        Naming the file, when it is missing, unreadable or of the wrong size.
    """
    path = Path(path)
    if not path.is_file():
        raise InputFileError(path, "image file does not exist",
                             "check the dataset directory (fetch uiuc_cars again)")
    img = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
    if img is None:
        raise InputFileError(path, "cannot be read as an image (corrupt or not an image)",
                             "re-fetch the dataset; its sha256 is in data/registry.yaml")
    if shape is not None and img.shape != tuple(shape):
        raise InputFileError(
            path, f"image is {img.shape[1]}x{img.shape[0]} (width x height), "
                  f"expected {shape[1]}x{shape[0]}",
            "training crops of the UIUC car data are all 100x40")
    return img.astype(np.float32) / 255.0


def find_train_dir(dataset_dir: str | Path) -> Path:
    """``TrainImages/`` under ``dataset_dir`` (or under ``dataset_dir/CarData``)."""
    dataset_dir = Path(dataset_dir)
    for cand in (dataset_dir / "TrainImages", dataset_dir / "CarData" / "TrainImages"):
        if cand.is_dir():
            return cand
    raise InputFileError(dataset_dir, "has no TrainImages/ folder",
                         "pass the UIUC car dataset directory (the one holding "
                         "TrainImages/, TestImages/ and trueLocations.txt)")


def _numbered(folder: Path, prefix: str) -> list[Path]:
    pat = re.compile(rf"^{prefix}-(\d+)\.pgm$")
    found = [(int(m.group(1)), p) for p in folder.iterdir() if (m := pat.match(p.name))]
    return [p for _, p in sorted(found)]


def load_crops(dataset_dir: str | Path, return_paths: bool = False):
    """Load the UIUC training crops.

    Parameters
    ----------
    dataset_dir : the dataset directory (holding ``TrainImages/``).
    return_paths : also return the list of file paths.

    Returns
    -------
    images : float32 array (n, 40, 100), intensities in [0, 1]; cars
        (``pos-<k>.pgm``, k ascending) first, then non-cars (``neg-<k>.pgm``).
    labels : int array (n,), 1 = car, 0 = non-car.
    paths : list[Path], only when ``return_paths``.

    Raises
    ------
    InputFileError
        Naming the file, for an unreadable or wrongly sized image, or when no
        crops are found.

    Examples
    --------
    >>> images, labels = load_crops("data/downloads/uiuc_cars")  # doctest: +SKIP
    >>> images.shape, labels.sum()                               # doctest: +SKIP
    ((1050, 40, 100), 550)
    """
    folder = find_train_dir(dataset_dir)
    pos, neg = _numbered(folder, "pos"), _numbered(folder, "neg")
    if not pos or not neg:
        raise InputFileError(folder, f"found {len(pos)} pos-<n>.pgm and {len(neg)} neg-<n>.pgm "
                                     "crops, expected both", "is this the UIUC car data?")
    paths = pos + neg
    images = np.stack([read_grey_image(p, CROP_SHAPE) for p in paths])
    labels = np.r_[np.ones(len(pos), int), np.zeros(len(neg), int)]
    return (images, labels, paths) if return_paths else (images, labels)


# ------------------------------------------------------------------ orientation
def _zrows(a: np.ndarray) -> np.ndarray:
    """Rows of ``a`` (n, d) minus their mean, divided by their norm (0 if flat)."""
    a = a - a.mean(axis=1, keepdims=True)
    nrm = np.linalg.norm(a, axis=1, keepdims=True)
    return a / np.maximum(nrm, 1e-12)


def pearson_to(images: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Pearson correlation of each image (n, h, w) with ``reference`` (h, w)."""
    n = images.shape[0]
    z = _zrows(images.reshape(n, -1).astype(np.float64))
    r = _zrows(reference.reshape(1, -1).astype(np.float64))[0]
    return z @ r


def align_orientation(images: np.ndarray, n_iter: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """Flip car crops to a common facing direction.

    Start from the first crop as reference; then repeatedly flip every crop to
    whichever orientation (as is, or mirrored left-right) has the higher
    Pearson correlation with the current reference, and set the reference to
    the mean of the oriented crops, until no flip changes (or ``n_iter``
    rounds). Orientation is finally made canonical by keeping the first crop
    unflipped (the problem is symmetric under flipping all crops).

    Returns
    -------
    flipped : bool array (n,), crops to mirror.
    mean_car : float64 (h, w), the mean of the oriented crops.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> car = rng.random((40, 100))
    >>> crops = np.stack([car, car[:, ::-1], car + 0.1 * rng.random((40, 100))])
    >>> align_orientation(crops)[0].tolist()
    [False, True, False]
    """
    images = np.asarray(images, dtype=np.float64)
    n = images.shape[0]
    z = _zrows(images.reshape(n, -1))
    zf = _zrows(images[:, :, ::-1].reshape(n, -1))
    ref = z[0]
    flipped = np.zeros(n, bool)
    for it in range(max(1, n_iter)):
        new = (zf @ ref) > (z @ ref)
        if new[0]:
            new = ~new
        changed = it > 0 and np.array_equal(new, flipped)
        flipped = new
        oriented = np.where(flipped[:, None, None], images[:, :, ::-1], images)
        ref = _zrows(oriented.mean(axis=0).reshape(1, -1))[0]
        if changed:
            break
    oriented = np.where(flipped[:, None, None], images[:, :, ::-1], images)
    return flipped, oriented.mean(axis=0)


def orient_to(images: np.ndarray, mean_car: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mirror each image whose mirror correlates better with ``mean_car``.

    Label-free (usable on test crops). Returns ``(oriented, flipped)``.
    """
    images = np.asarray(images)
    flipped = pearson_to(images[:, :, ::-1], mean_car) > pearson_to(images, mean_car)
    oriented = np.where(flipped[:, None, None], images[:, :, ::-1], images)
    return np.ascontiguousarray(oriented, dtype=np.float32), flipped


# -------------------------------------------------------------------- landmarks
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
    all crops and places. Same quantities as
    :func:`_landmark_statistics_reference` (the per-row definition), up to
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


def _landmark_statistics_reference(images: np.ndarray, y: np.ndarray, p: int):
    """Per-row definition of :func:`_landmark_statistics` (slow; for tests)."""
    images = np.asarray(images, dtype=np.float32)
    n, H, W = images.shape
    nr, nc = H - p + 1, W - p + 1
    fisher = np.empty((nr, nc))
    tmpl = np.empty((nr, nc, p * p))
    for r in range(nr):
        win = sliding_window_view(images[:, r:r + p, :], (p, p), axis=(1, 2))[:, 0]
        z = normalise_patches(win.reshape(n * nc, p, p), np.float64).reshape(n, nc, p * p)
        t = z[y].mean(axis=0)
        tz = _zrows(t)
        zz = z / np.maximum(np.linalg.norm(z, axis=2, keepdims=True), 1e-12)
        s = np.einsum("ncd,cd->nc", zz, tz)
        m1, m0 = s[y].mean(0), s[~y].mean(0)
        v1, v0 = s[y].var(0), s[~y].var(0)
        fisher[r] = (m1 - m0) ** 2 / np.maximum(v1 + v0, 1e-12)
        tmpl[r] = t
    return fisher, tmpl.reshape(nr, nc, p, p)


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

    def __init__(self, n_landmarks: int = 19, *, patch_size: int = 21, min_distance: float = 9.0):
        self.n_landmarks = n_landmarks
        self.patch_size = patch_size
        self.min_distance = min_distance

    def fit(self, images: np.ndarray, y: np.ndarray) -> "LandmarkModel":
        """``images`` (n, h, w) oriented crops; ``y`` 1/True = car."""
        name = type(self).__name__
        L = check_positive_int(name, "n_landmarks", self.n_landmarks)
        p = check_positive_int(name, "patch_size", self.patch_size, minimum=3)
        check_param(name, "patch_size", p, lambda v: v % 2 == 1, "an odd int >= 3")
        check_param(name, "min_distance", self.min_distance,
                    lambda v: float(v) >= 0, "a float >= 0")
        images = np.asarray(images, dtype=np.float32)
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


def _search_regions(positions: np.ndarray, radius: int, patch_size: int,
                    image_shape: tuple[int, int]) -> np.ndarray:
    """Per landmark, (r0, r1, c0, c1) of the search window in response-map
    coordinates (patch top-left; half-open), clipped so the patch stays inside
    the image frame."""
    H, W = image_shape
    p = patch_size
    h = p // 2
    out = np.empty((len(positions), 4), int)
    for k, (r, c) in enumerate(positions):
        r0, r1 = max(r - radius, h), min(r + radius, H - 1 - h)
        c0, c1 = max(c - radius, h), min(c + radius, W - 1 - h)
        out[k] = (r0 - h, r1 - h + 1, c0 - h, c1 - h + 1)
    return out


def _block_candidates(blocks: np.ndarray, threshold: float, max_candidates: int):
    """Local maxima of each block (n, bh, bw) scoring above ``threshold``.

    A pixel is a local maximum when it is > each of its (up to 8) neighbours
    inside the block that come before it in raster order and >= those after
    it (so a flat plateau gives a single candidate). Returns ``(flat index (n, K) or -1, score (n, K) or NaN)``
    ordered by decreasing score (ties: lower flat index first).
    """
    n, bh, bw = blocks.shape
    b = np.where(np.isfinite(blocks), blocks, -np.inf)
    pad = np.full((n, bh + 2, bw + 2), -np.inf, dtype=b.dtype)
    pad[:, 1:-1, 1:-1] = b
    # Neighbours earlier in raster order must be strictly lower, later ones
    # lower or equal: a plateau yields one candidate (its first pixel).
    before = np.full_like(b, -np.inf)
    after = np.full_like(b, -np.inf)
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if dr or dc:
                tgt = before if (dr < 0 or (dr == 0 and dc < 0)) else after
                np.maximum(tgt, pad[:, 1 + dr:1 + dr + bh, 1 + dc:1 + dc + bw], out=tgt)
    ok = (b > before) & (b >= after) & (b > threshold)
    score = np.where(ok, b, -np.inf).reshape(n, -1)
    K = min(max_candidates, bh * bw)
    order = np.argsort(-score, axis=1, kind="stable")[:, :K]
    top = np.take_along_axis(score, order, axis=1)
    valid = np.isfinite(top)
    idx = np.where(valid, order, -1)
    sc = np.where(valid, top, np.nan)
    if K < max_candidates:
        idx = np.pad(idx, ((0, 0), (0, max_candidates - K)), constant_values=-1)
        sc = np.pad(sc, ((0, 0), (0, max_candidates - K)), constant_values=np.nan)
    return idx, sc


def _ncc_map(image: np.ndarray, template: np.ndarray) -> np.ndarray:
    r = cv2.matchTemplate(np.ascontiguousarray(image, dtype=np.float32), template,
                          cv2.TM_CCOEFF_NORMED)
    return np.nan_to_num(r, nan=-1.0, posinf=-1.0, neginf=-1.0)


def _candidates_in_maps(resp: np.ndarray, origins: np.ndarray, region: np.ndarray,
                        patch_size: int, threshold: float, max_candidates: int):
    """Candidates of one landmark for windows with top-left ``origins`` (m, 2)
    reading ``resp`` - a response map (Hr, Wr) shared by all windows, or one map
    per window (m, Hr, Wr) with all origins 0. Returns centres (m, K, 2) in the
    image frame (-1 if absent) and scores (m, K) (NaN if absent)."""
    r0, r1, c0, c1 = region
    bh, bw = r1 - r0, c1 - c0
    if resp.ndim == 2:
        view = sliding_window_view(resp, (bh, bw))
        blocks = view[origins[:, 0] + r0, origins[:, 1] + c0]
    else:
        blocks = resp[:, r0:r1, c0:c1]
    idx, sc = _block_candidates(blocks, threshold, max_candidates)
    dr, dc = np.divmod(np.maximum(idx, 0), bw)
    h = patch_size // 2
    rows = origins[:, [0]] + r0 + dr + h
    cols = origins[:, [1]] + c0 + dc + h
    pos = np.stack([rows, cols], axis=-1)
    pos[idx < 0] = -1
    return pos, sc


def landmark_candidates(images: np.ndarray, positions: np.ndarray, templates: np.ndarray,
                        search_radius: int = 8, threshold: float = 0.3,
                        max_candidates: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """Candidate locations of every landmark in every image.

    Parameters
    ----------
    images : (n, h, w) images in the car frame (already oriented).
    positions : (L, 2) expected (row, col) patch centres.
    templates : (L, p, p) templates (odd p).
    search_radius : half-side of the square search window around each
        expected centre (clipped so the patch stays inside the image).
    threshold : minimum NCC (``cv2.TM_CCOEFF_NORMED``) of a candidate.
    max_candidates : slots per landmark.

    Returns
    -------
    centres : int (n, L, max_candidates, 2), (row, col) patch centres ordered
        by decreasing score; (-1, -1) for an absent slot.
    scores : float (n, L, max_candidates), NaN for an absent slot.

    Examples
    --------
    >>> import numpy as np, cv2
    >>> img = np.zeros((40, 100), np.float32)
    >>> _ = cv2.circle(img, (30, 20), 5, 1.0, -1)
    >>> tpl = np.zeros((21, 21), np.float32); _ = cv2.circle(tpl, (10, 10), 5, 1.0, -1)
    >>> c, s = landmark_candidates(img[None], np.array([[18, 33]]), tpl[None], 8, 0.5, 3)
    >>> c[0, 0, 0].tolist(), round(float(s[0, 0, 0]), 3)
    ([20, 30], 1.0)
    """
    images = np.asarray(images, dtype=np.float32)
    templates = np.asarray(templates, dtype=np.float32)
    positions = np.asarray(positions, dtype=int)
    n, H, W = images.shape
    L, p = templates.shape[0], templates.shape[1]
    regions = _search_regions(positions, int(search_radius), p, (H, W))
    origins = np.zeros((n, 2), int)
    centres = np.empty((n, L, max_candidates, 2), int)
    scores = np.empty((n, L, max_candidates))
    for k in range(L):
        resp = np.stack([_ncc_map(im, templates[k]) for im in images])
        centres[:, k], scores[:, k] = _candidates_in_maps(
            resp, origins, regions[k], p, threshold, max_candidates)
    return centres, scores


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
        (:func:`featurize.hog.dense_hog`; 2x2-cell blocks, L2-Hys).
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
        name = type(self).__name__
        check_positive_int(name, "n_negatives", self.n_negatives)
        check_positive_int(name, "jitter", self.jitter, minimum=0)
        check_positive_int(name, "min_offset", self.min_offset, minimum=1)
        check_param(name, "C", self.C, lambda v: float(v) > 0, "a float > 0")
        images = np.asarray(images, dtype=np.float32)
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


# ------------------------------------------------------------------- featurizer
class CarPartFeaturizer(TransformerMixin, BaseEstimator):
    """Landmark-candidate features with NaN for structurally absent candidates.

    ``fit`` (training crops of one fold only) learns the mean car (orientation
    reference), the landmarks and their templates (:class:`LandmarkModel`),
    and per landmark a PCA of the z-normalised patches of all training
    candidates. ``transform`` orients each crop (label-free, see the module
    docstring), finds the candidates of every landmark and describes each by
    its first ``n_pca`` PCA coefficients.

    Layout: feature ``j = (k * max_candidates + s) * n_pca + c`` is PCA
    coefficient ``c`` of the candidate in slot ``s`` (slot 0 = highest NCC) of
    landmark ``k`` (landmarks in the order of ``landmarks_.positions_``). When
    landmark ``k`` has ``m < max_candidates`` candidates in an image, the
    features of slots ``m, ..., max_candidates - 1`` are NaN; all ``n_pca``
    coefficients of a slot are present or absent together, so
    ``groups_[j] = j // n_pca`` (one group per (landmark, slot)).

    Parameters
    ----------
    n_landmarks : 19 in Chechik et al.
    patch_size : odd patch side (21).
    max_candidates : slots per landmark (10).
    threshold : minimum NCC of a candidate (``detector="ncc"``).
    search_radius : half-side of the search window around the expected place.
    n_pca : PCA coefficients per candidate (10).
    min_distance : minimum distance between landmark centres.
    orient : mirror each crop to the orientation matching the mean car.
    random_state : seed of the PCA (its randomised solver, if used) and of
        the HOG detector's negative places.
    detector : ``"ncc"`` (template NCC) or ``"hog"`` (:class:`HogLandmarkDetector`).
    hog_threshold : minimum probability of a candidate (``detector="hog"``).
    hog_cell_size : HOG cell side; must divide ``patch_size`` (21 = 3 x 7).
    hog_orientations : HOG orientation bins.
    hog_C : inverse regularisation of the per-landmark logistic regressions.

    Attributes
    ----------
    mean_car_, landmarks_, pcas_ (list of PCA), n_features_out_,
    feature_names_ (list[str], e.g. ``"lm03_s7_pc2"``), groups_ (int array),
    detector_ (:class:`HogLandmarkDetector`, only with ``detector="hog"``).

    Examples
    --------
    >>> from featurize.vision import load_crops, CarPartFeaturizer  # doctest: +SKIP
    >>> X, y = load_crops("data/downloads/uiuc_cars")               # doctest: +SKIP
    >>> F = CarPartFeaturizer().fit(X[::2], y[::2]).transform(X[1::2])  # doctest: +SKIP
    >>> F.shape                                                      # doctest: +SKIP
    (525, 1900)
    """

    def __init__(self, n_landmarks: int = 19, *, patch_size: int = 21, max_candidates: int = 10,
                 threshold: float = 0.3, search_radius: int = 8, n_pca: int = 10,
                 min_distance: float = 9.0, orient: bool = True, random_state: int = 0,
                 detector: str = "ncc", hog_threshold: float = 0.5, hog_cell_size: int = 7,
                 hog_orientations: int = 9, hog_C: float = 1.0):
        self.n_landmarks = n_landmarks
        self.patch_size = patch_size
        self.max_candidates = max_candidates
        self.threshold = threshold
        self.search_radius = search_radius
        self.n_pca = n_pca
        self.min_distance = min_distance
        self.orient = orient
        self.random_state = random_state
        self.detector = detector
        self.hog_threshold = hog_threshold
        self.hog_cell_size = hog_cell_size
        self.hog_orientations = hog_orientations
        self.hog_C = hog_C

    # -- helpers ---------------------------------------------------------------
    def _check_params(self) -> None:
        name = type(self).__name__
        check_positive_int(name, "max_candidates", self.max_candidates)
        check_positive_int(name, "n_pca", self.n_pca)
        check_positive_int(name, "search_radius", self.search_radius, minimum=0)
        check_param(name, "threshold", self.threshold,
                    lambda v: -1.0 <= float(v) < 1.0, "a float in [-1, 1)")
        check_param(name, "detector", self.detector, lambda v: v in DETECTORS,
                    f"one of {list(DETECTORS)}")
        if self.detector == "hog":
            check_param(name, "hog_threshold", self.hog_threshold,
                        lambda v: 0.0 <= float(v) < 1.0, "a float in [0, 1)")
            check_positive_int(name, "hog_orientations", self.hog_orientations)
            check_param(name, "hog_cell_size", self.hog_cell_size,
                        lambda v: int(v) >= 1 and int(self.patch_size) % int(v) == 0
                        and int(self.patch_size) // int(v) >= 2,
                        f"an int dividing patch_size={self.patch_size} at least twice")
            check_param(name, "hog_C", self.hog_C, lambda v: float(v) > 0, "a float > 0")

    @property
    def _threshold(self) -> float:
        return float(self.hog_threshold if self.detector == "hog" else self.threshold)

    def _check_images(self, images) -> np.ndarray:
        images = np.asarray(images, dtype=np.float32)
        if images.ndim != 3 or images.shape[1:] != tuple(CROP_SHAPE):
            raise ValueError(f"{type(self).__name__} expects crops of shape (n, 40, 100); "
                             f"got {images.shape}")
        return images

    def _orient(self, images: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if not self.orient:
            return images, np.zeros(len(images), bool)
        return orient_to(images, self.mean_car_)

    def _coefficients(self, k: int, patches: np.ndarray) -> np.ndarray:
        pca = self.pcas_[k]
        return (normalise_patches(patches) - pca.mean_) @ pca.components_.T

    def _assemble(self, centres: np.ndarray, patch_source) -> np.ndarray:
        """centres (m, L, K, 2); patch_source(k, sel_index_tuple) -> (q, p, p)."""
        m, L, K, _ = centres.shape
        F = np.full((m, L, K, self.n_pca), np.nan)
        for k in range(L):
            valid = centres[:, k, :, 0] >= 0
            if valid.any():
                F[:, k][valid] = self._coefficients(k, patch_source(k, valid))
        return F.reshape(m, -1)

    # -- API -------------------------------------------------------------------
    def fit(self, images, y) -> "CarPartFeaturizer":
        """Fit on the training crops (n, 40, 100) of one fold; ``y`` 1 = car."""
        self._check_params()
        images = self._check_images(images)
        y = np.asarray(y)
        if y.shape != (len(images),):
            raise ValueError(f"y has shape {y.shape}, expected ({len(images)},)")
        y = y.astype(bool) if y.dtype == bool else (y == np.max(y))
        _, self.mean_car_ = align_orientation(images[y])
        oriented, _ = self._orient(images)
        self.landmarks_ = LandmarkModel(self.n_landmarks, patch_size=self.patch_size,
                                        min_distance=self.min_distance).fit(oriented, y)
        if self.detector == "hog":
            self.detector_ = HogLandmarkDetector(
                self.patch_size, cell_size=self.hog_cell_size, orientations=self.hog_orientations,
                C=self.hog_C, search_radius=self.search_radius,
                random_state=self.random_state).fit(oriented, y, self.landmarks_.positions_)
        centres, scores = self._candidates(oriented)
        p = self.patch_size
        h = p // 2
        win = sliding_window_view(oriented, (p, p), axis=(1, 2))
        self.pcas_ = []
        for k in range(self.n_landmarks):
            valid = centres[:, k, :, 0] >= 0
            if valid.sum() < self.n_pca:
                raise ValueError(
                    f"landmark {k} has only {int(valid.sum())} training candidates, fewer than "
                    f"n_pca={self.n_pca}; lower the {self.detector} threshold "
                    f"(now {self._threshold})")
            img_i = np.broadcast_to(np.arange(len(images))[:, None], valid.shape)[valid]
            c = centres[:, k][valid]
            pt = normalise_patches(win[img_i, c[:, 0] - h, c[:, 1] - h])
            self.pcas_.append(PCA(self.n_pca, svd_solver="covariance_eigh", random_state=self.random_state).fit(pt))
        L, K, P = self.n_landmarks, self.max_candidates, self.n_pca
        self.n_features_out_ = L * K * P
        self.groups_ = np.arange(L * K).repeat(P)
        self.feature_names_ = [f"lm{k:02d}_s{s}_pc{c}" for k in range(L)
                               for s in range(K) for c in range(P)]
        self.train_candidate_counts_ = (~np.isnan(scores)).sum(axis=2)
        return self

    def _response_maps(self, image: np.ndarray) -> np.ndarray:
        """Every landmark's detector response at every patch place of one
        image: (L, H - p + 1, W - p + 1)."""
        if self.detector == "hog":
            return self.detector_.response_maps(image)
        return np.stack([_ncc_map(image, t) for t in self.landmarks_.templates_])

    def _candidates(self, oriented: np.ndarray):
        lm = self.landmarks_
        if self.detector == "ncc":
            return landmark_candidates(oriented, lm.positions_, lm.templates_,
                                       self.search_radius, self.threshold, self.max_candidates)
        n, H, W = oriented.shape
        L, K, p = len(lm.positions_), self.max_candidates, self.patch_size
        regions = _search_regions(lm.positions_, int(self.search_radius), p, (H, W))
        maps = np.stack([self._response_maps(im) for im in oriented])   # (n, L, Hr, Wr)
        origins = np.zeros((n, 2), int)
        centres = np.empty((n, L, K, 2), int)
        scores = np.empty((n, L, K))
        for k in range(L):
            centres[:, k], scores[:, k] = _candidates_in_maps(
                maps[:, k], origins, regions[k], p, self._threshold, K)
        return centres, scores

    def candidates(self, images) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Candidates of crops: ``(centres, scores, flipped)`` (see
        :func:`landmark_candidates`; centres in the *oriented* crop frame)."""
        check_is_fitted(self, "pcas_")
        oriented, flipped = self._orient(self._check_images(images))
        centres, scores = self._candidates(oriented)
        return centres, scores, flipped

    def transform(self, images) -> np.ndarray:
        """Features (n, n_landmarks * max_candidates * n_pca), NaN = absent."""
        check_is_fitted(self, "pcas_")
        oriented, _ = self._orient(self._check_images(images))
        centres, _ = self._candidates(oriented)
        p, h = self.patch_size, self.patch_size // 2
        win = sliding_window_view(oriented, (p, p), axis=(1, 2))
        img_idx = np.arange(len(oriented))[:, None]

        def source(k, valid):
            c = centres[:, k][valid]
            ii = np.broadcast_to(img_idx, valid.shape)[valid]
            return win[ii, c[:, 0] - h, c[:, 1] - h]

        return self._assemble(centres, source)

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        check_is_fitted(self, "pcas_")
        return np.asarray(self.feature_names_, dtype=object)

    def transform_windows(self, scene: np.ndarray, origins: np.ndarray,
                          return_candidates: bool = False):
        """Features of the 100x40 windows of a scene with top-left ``origins``.

        Equivalent to ``transform`` of the cropped windows, but each landmark's
        response map (NCC, or HOG probability) and the mean-car correlation are
        computed once per scene (and once more for the mirrored scene); each
        window then reads its candidates from them.

        Parameters
        ----------
        scene : (H, W) float image in [0, 1], H >= 40, W >= 100.
        origins : int (m, 2) window top-left (row, col).

        Returns
        -------
        X : (m, n_features_out_) features; with ``return_candidates`` also
        ``centres`` (m, L, K, 2) in *scene* coordinates and ``scores``.
        """
        check_is_fitted(self, "pcas_")
        scene = np.ascontiguousarray(scene, dtype=np.float32)
        origins = np.asarray(origins, dtype=int).reshape(-1, 2)
        Hc, Wc = CROP_SHAPE
        H, W = scene.shape
        if (origins < 0).any() or (origins[:, 0] + Hc > H).any() or (origins[:, 1] + Wc > W).any():
            raise ValueError(f"window origins must keep 40x100 windows inside the {H}x{W} scene")
        m = len(origins)
        L, K, p = self.n_landmarks, self.max_candidates, self.patch_size
        h = p // 2
        if self.orient:
            car = self.mean_car_.astype(np.float32)
            flip = _ncc_map(scene, car[:, ::-1].copy())[origins[:, 0], origins[:, 1]] > \
                _ncc_map(scene, car)[origins[:, 0], origins[:, 1]]
        else:
            flip = np.zeros(m, bool)
        lm = self.landmarks_
        regions = _search_regions(lm.positions_, int(self.search_radius), p, CROP_SHAPE)
        centres = np.full((m, L, K, 2), -1, int)
        scores = np.full((m, L, K), np.nan)
        flipped_scene = np.ascontiguousarray(scene[:, ::-1])
        sel = {False: ~flip, True: flip}
        for is_flip, img in ((False, scene), (True, flipped_scene)):
            rows = sel[is_flip]
            if not rows.any():
                continue
            org = origins[rows].copy()
            if is_flip:  # window (i, j) of the scene is window (i, W - 100 - j) of its mirror
                org[:, 1] = W - Wc - org[:, 1]
            maps = self._response_maps(img)
            for k in range(L):
                c, s = _candidates_in_maps(maps[k], org, regions[k], p, self._threshold, K)
                if is_flip:
                    c[..., 1] = np.where(c[..., 1] >= 0, W - 1 - c[..., 1], -1)
                centres[rows, k], scores[rows, k] = c, s
        # patches are read in the window's own (oriented) frame
        win_plain = sliding_window_view(scene, (p, p))
        win_flip = sliding_window_view(flipped_scene, (p, p))

        # Overlapping windows share candidates: each distinct (place, flip) of
        # a landmark is described once and its coefficients copied to every
        # window that has it (the same numbers as describing each copy).
        F = np.full((m, L, K, self.n_pca), np.nan)
        for k in range(L):
            valid = centres[:, k, :, 0] >= 0
            if not valid.any():
                continue
            c = centres[:, k][valid]
            f = np.broadcast_to(flip[:, None], valid.shape)[valid]
            key = (c[:, 0].astype(np.int64) * W + c[:, 1]) * 2 + f
            uniq, first, inv = np.unique(key, return_index=True, return_inverse=True)
            cu, fu = c[first], f[first]
            patches = np.empty((len(uniq), p, p), np.float32)
            a = ~fu
            patches[a] = win_plain[cu[a, 0] - h, cu[a, 1] - h]
            patches[fu] = win_flip[cu[fu, 0] - h, (W - 1 - cu[fu, 1]) - h]
            F[:, k][valid] = self._coefficients(k, patches)[inv.ravel()]
        X = F.reshape(m, -1)
        return (X, centres, scores) if return_candidates else X


def candidate_count_distribution(counts: np.ndarray, y: np.ndarray, max_candidates: int):
    """Distribution of the number of candidates per (image, landmark), by class.

    Parameters
    ----------
    counts : ndarray of int, shape (n_images, n_landmarks)
        Candidates found for each landmark of each image (0 = every slot of
        the landmark absent).
    y : ndarray, shape (n_images,)
        1 for cars, 0 for non-cars.
    max_candidates : int
        The candidate cap; counts range over ``0..max_candidates``.

    Returns
    -------
    pandas.DataFrame
        One row per count ``0..max_candidates`` with the number and the
        fraction of (image, landmark) pairs of cars and of non-cars that
        have that many candidates.

    Examples
    --------
    >>> d = candidate_count_distribution(np.array([[0, 2], [1, 1]]), np.array([1, 0]), 2)
    >>> d[["candidates", "cars", "non_cars"]].to_numpy().tolist()
    [[0, 1, 0], [1, 0, 2], [2, 1, 0]]
    """
    counts = np.asarray(counts)
    y = np.asarray(y)
    if counts.ndim != 2 or len(counts) != len(y):
        raise ValueError(f"counts must have shape (n_images, n_landmarks) with n_images = len(y) = "
                         f"{len(y)}. Got shape {counts.shape} instead.")
    if counts.size and (counts.min() < 0 or counts.max() > max_candidates):
        raise ValueError(f"counts must lie in 0..max_candidates = {max_candidates}. "
                         f"Got range {counts.min()}..{counts.max()} instead.")
    if not np.isin(y, (0, 1)).all():
        raise ValueError(f"y must hold 0 (non-car) and 1 (car). Got values {np.unique(y)} instead.")
    k = np.arange(max_candidates + 1)
    out = {"candidates": k}
    for name, label in (("cars", 1), ("non_cars", 0)):
        c = np.bincount(counts[y == label].ravel(), minlength=max_candidates + 1)
        out[name] = c
        out[f"{name}_fraction"] = c / max(c.sum(), 1)
    return pd.DataFrame(out)
