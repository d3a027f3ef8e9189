"""The car-part featurizer: landmark candidates described by the PCA
coefficients of their patches, NaN for absent slots; crops and scene windows."""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.decomposition import PCA
from sklearn.utils.validation import check_is_fitted

from geomargin.common.checks import (boolean, check_param, half_open_interval, int_at_least, one_of, positive_float,
                           validate_params)
from geomargin.featurize.vision.candidates import _candidates_in_maps, _ncc_map, _search_regions, landmark_candidates
from geomargin.featurize.vision.hog_detector import HogLandmarkDetector
from geomargin.featurize.vision.images import CROP_SHAPE, as_grey_stack
from geomargin.featurize.vision.landmarks import LandmarkModel, normalise_patches
from geomargin.featurize.vision.orientation import align_orientation, orient_to

__all__ = ["DETECTORS", "CarPartFeaturizer"]

#: Landmark detectors of :class:`CarPartFeaturizer`.
DETECTORS = ("ncc", "hog")


class CarPartFeaturizer(TransformerMixin, BaseEstimator):
    """Landmark-candidate features with NaN for structurally absent candidates.

    ``fit`` (training crops of one fold only) learns the mean car (orientation
    reference), the landmarks and their templates (:class:`LandmarkModel`),
    and per landmark a PCA of the z-normalised patches of all training
    candidates. ``transform`` orients each crop (label-free, see the module
    docstring), finds the candidates of every landmark and describes each by
    its first ``n_pca`` PCA coefficients.

    Layout: feature ``j = (k * max_candidates + s) * n_pca + c`` is PCA
    coefficient ``c`` of the candidate in slot ``s`` (slot 0 = the best-scoring
    candidate: highest NCC, or highest HOG probability with ``detector="hog"``) of
    landmark ``k`` (landmarks in the order of ``landmarks_.positions_``). When
    landmark ``k`` has ``m < max_candidates`` candidates in an image, the
    features of slots ``m, ..., max_candidates - 1`` are NaN; all ``n_pca``
    coefficients of a slot are present or absent together, so
    ``groups_[j] = j // n_pca`` (one group per (landmark, slot)).

    With ``slot_place=True`` each slot carries three more features after its
    PCA coefficients, present or absent with them (so ``D = n_pca + 3``
    features per slot, ``j = (k * max_candidates + s) * D + c`` and
    ``groups_[j] = j // D``): the candidate's offset in rows and in columns
    (pixels, in the oriented car frame) from the landmark's expected place,
    and the detector's evidence for it, the log-odds of the HOG probability
    (``detector="hog"``) or the Fisher z of the NCC, ``arctanh`` (``"ncc"``).
    The patch alone does not say where in the window a part was found; a
    window shifted off a car finds parts at the edge of their search windows.

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
    slot_place : add each candidate's offset from its landmark's expected
        place and its detector evidence to its slot (see above).

    Attributes
    ----------
    mean_car_, landmarks_, pcas_ (list of PCA), n_features_out_,
    feature_names_ (list[str], e.g. ``"lm03_s7_pc2"``; ``"lm03_s7_dr"``,
    ``"_dc"`` and ``"_evidence"`` with ``slot_place``), groups_ (int array),
    n_slot_features_ (``D``),
    detector_ (:class:`HogLandmarkDetector`, only with ``detector="hog"``).

    Examples
    --------
    >>> from geomargin.featurize.vision.images import load_crops             # doctest: +SKIP
    >>> from geomargin.featurize.vision.featurizer import CarPartFeaturizer  # doctest: +SKIP
    >>> X, y = load_crops("data/downloads/uiuc_cars")               # doctest: +SKIP
    >>> F = CarPartFeaturizer().fit(X[::2], y[::2]).transform(X[1::2])  # doctest: +SKIP
    >>> F.shape                                                      # doctest: +SKIP
    (525, 1900)
    """

    def __init__(self, n_landmarks: int = 19, *, patch_size: int = 21, max_candidates: int = 10,
                 threshold: float = 0.3, search_radius: int = 8, n_pca: int = 10,
                 min_distance: float = 9.0, orient: bool = True, random_state: int = 0,
                 detector: str = "ncc", hog_threshold: float = 0.5, hog_cell_size: int = 7,
                 hog_orientations: int = 9, hog_C: float = 1.0, slot_place: bool = False):
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
        self.slot_place = slot_place

    _parameter_constraints = {
        "max_candidates": int_at_least(1),
        "n_pca": int_at_least(1),
        "search_radius": int_at_least(0),
        "threshold": half_open_interval(-1.0, 1.0),
        "slot_place": boolean(),
        "detector": one_of(*DETECTORS),
        "hog_threshold": half_open_interval(0.0, 1.0),
        "hog_orientations": int_at_least(1),
        "hog_C": positive_float(),
    }

    # -- helpers ---------------------------------------------------------------
    def _check_params(self) -> None:
        """The constraints above, and the one that ties two parameters."""
        validate_params(self)
        if self.detector == "hog":
            check_param(self, "hog_cell_size", self.hog_cell_size,
                        lambda v: int(v) >= 1 and int(self.patch_size) % int(v) == 0
                        and int(self.patch_size) // int(v) >= 2,
                        f"an int dividing patch_size={self.patch_size} at least twice")

    @property
    def _fitted_place(self) -> bool:
        """Whether the fitted layout carries the place features (read from
        the fitted layout, not the parameter, so ``set_params`` after ``fit``
        cannot make columns disagree with ``groups_``; featurizers saved
        before the option existed have none)."""
        return getattr(self, "n_slot_features_", self.n_pca) > self.n_pca

    @property
    def _threshold(self) -> float:
        return float(self.hog_threshold if self.detector == "hog" else self.threshold)

    def _check_images(self, images) -> np.ndarray:
        images = as_grey_stack(images, type(self).__name__)
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
        """centres (m, L, K, 2); patch_source(k, sel_index_tuple) -> (q, p, p).
        Returns the PCA coefficients (m, L, K, n_pca), NaN = absent."""
        m, L, K, _ = centres.shape
        F = np.full((m, L, K, self.n_pca), np.nan)
        for k in range(L):
            valid = centres[:, k, :, 0] >= 0
            if valid.any():
                F[:, k][valid] = self._coefficients(k, patch_source(k, valid))
        return F

    def _evidence(self, scores: np.ndarray) -> np.ndarray:
        """The detector's evidence for a candidate on an unbounded scale:
        log-odds of a HOG probability, Fisher z (arctanh) of an NCC."""
        s = np.clip(np.asarray(scores, dtype=np.float64), -1 + 1e-6, 1 - 1e-6)
        if self.detector == "hog":
            s = np.clip(s, 1e-6, None)
            return np.log(s) - np.log1p(-s)
        return np.arctanh(s)

    def _with_place(self, F: np.ndarray, offsets: np.ndarray, scores: np.ndarray) -> np.ndarray:
        """(m, L, K, n_pca) coefficients -> (m, n_features_out_): with
        ``slot_place``, each slot's (row offset, column offset, evidence)
        appended (``offsets`` (m, L, K, 2) in the oriented car frame)."""
        m = F.shape[0]
        if not self._fitted_place:
            return F.reshape(m, -1)
        absent = np.isnan(F[..., :1])
        place = np.concatenate([offsets.astype(np.float64), self._evidence(scores)[..., None]], axis=-1)
        place = np.where(absent, np.nan, place)
        return np.concatenate([F, place], axis=-1).reshape(m, -1)

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
        cols = [f"pc{c}" for c in range(P)] + (["dr", "dc", "evidence"] if self.slot_place else [])
        self.n_slot_features_ = len(cols)
        self.n_features_out_ = L * K * len(cols)
        self.groups_ = np.arange(L * K).repeat(len(cols))
        self.feature_names_ = [f"lm{k:02d}_s{s}_{c}" for k in range(L)
                               for s in range(K) for c in cols]
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
        """Features (n, n_features_out_), NaN = absent (layout: class docstring)."""
        check_is_fitted(self, "pcas_")
        oriented, _ = self._orient(self._check_images(images))
        centres, scores = self._candidates(oriented)
        p, h = self.patch_size, self.patch_size // 2
        win = sliding_window_view(oriented, (p, p), axis=(1, 2))
        img_idx = np.arange(len(oriented))[:, None]

        def source(k, valid):
            c = centres[:, k][valid]
            ii = np.broadcast_to(img_idx, valid.shape)[valid]
            return win[ii, c[:, 0] - h, c[:, 1] - h]

        offsets = centres - self.landmarks_.positions_[None, :, None, :]
        return self._with_place(self._assemble(centres, source), offsets, scores)

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
        if self._fitted_place:
            # offsets in the window's oriented frame: a mirrored window's
            # column j + c is column 99 - c of its oriented copy
            local = centres - origins[:, None, None, :]
            local[..., 1] = np.where(flip[:, None, None], Wc - 1 - local[..., 1], local[..., 1])
            offsets = local - lm.positions_[None, :, None, :]
        else:
            offsets = None
        X = self._with_place(F, offsets, scores)
        return (X, centres, scores) if return_candidates else X
