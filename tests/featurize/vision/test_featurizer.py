"""Tests of featurize.vision.featurizer: the NaN layout and PCA slotting of
CarPartFeaturizer checked by hand, fit/transform on synthetic cars with both
detectors (with and without the place features) agreeing with sliding
windows in a scene, parameter and shape errors, and a smoke run on the real
UIUC crops."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from sklearn.decomposition import PCA

from geomargin.featurize.vision.featurizer import CarPartFeaturizer
from geomargin.featurize.vision.images import load_crops
from geomargin.featurize.vision.landmarks import LandmarkModel, normalise_patches
from toy_vision import canvas, disc_template, synthetic_cars


def hand_featurizer(n_pca=2, max_candidates=3):
    """A featurizer with hand-set landmarks and PCA (no fit)."""
    p = 11
    f = CarPartFeaturizer(n_landmarks=2, patch_size=p, max_candidates=max_candidates,
                          threshold=0.5, search_radius=9, n_pca=n_pca, orient=False)
    lm = LandmarkModel(2, patch_size=p)
    lm.positions_ = np.array([[20, 25], [20, 70]])
    lm.templates_ = np.stack([disc_template(p, radius=3), disc_template(p, radius=3)])
    f.landmarks_ = lm
    rng = np.random.default_rng(3)
    f.pcas_ = []
    for _ in range(2):
        pca = PCA(n_pca)
        pca.mean_ = rng.normal(size=p * p) * 0.1
        pca.components_ = np.linalg.qr(rng.normal(size=(p * p, n_pca)))[0].T
        f.pcas_.append(pca)
    L, K, P = 2, max_candidates, n_pca
    f.n_features_out_ = L * K * P
    f.groups_ = np.arange(L * K).repeat(P)
    f.feature_names_ = [f"lm{k:02d}_s{s}_pc{c}" for k in range(L) for s in range(K) for c in range(P)]
    return f


def test_pca_slotting_and_nan_layout_hand_built():
    f = hand_featurizer(n_pca=2, max_candidates=3)
    # image 0: landmark 0 has 2 parts (one full disc, one smaller), landmark 1 has 1
    img0 = canvas((20, 25), (20, 70), radius=3)
    cv2.ellipse(img0, (34, 20), (3, 2), 0, 0, 360, 1.0, -1)  # (row 20, col 34): look-alike
    # image 1: landmark 0 has none, landmark 1 has one
    img1 = canvas((22, 72), radius=3)
    X = f.transform(np.stack([img0, img1]))
    assert X.shape == (2, 12)
    # feature j = (k * K + s) * P + c
    expected_nan = np.array([
        [0, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 1],
        [1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1],
    ], bool)
    np.testing.assert_array_equal(np.isnan(X), expected_nan)
    assert f.groups_.tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    assert f.feature_names_[6] == "lm01_s0_pc0"

    def coef(img, k, r, c):
        z = normalise_patches(img[None, r - 5:r + 6, c - 5:c + 6])[0]
        return (z - f.pcas_[k].mean_) @ f.pcas_[k].components_.T

    np.testing.assert_allclose(X[0, 0:2], coef(img0, 0, 20, 25), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(X[0, 2:4], coef(img0, 0, 20, 34), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(X[0, 6:8], coef(img0, 1, 20, 70), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(X[1, 6:8], coef(img1, 1, 22, 72), rtol=1e-5, atol=1e-6)



@pytest.mark.parametrize("slot_place", [False, True])
@pytest.mark.parametrize("detector", ["ncc", "hog"])
def test_featurizer_fit_transform_and_windows_agree(detector, slot_place):
    X, y = synthetic_cars()
    f = CarPartFeaturizer(n_landmarks=4, patch_size=15, max_candidates=3, threshold=0.2,
                          search_radius=5, n_pca=3, min_distance=9, detector=detector,
                          hog_cell_size=5, hog_threshold=0.3, slot_place=slot_place).fit(X, y)
    assert hasattr(f, "detector_") == (detector == "hog")
    F = f.transform(X)
    D = 6 if slot_place else 3
    assert F.shape == (80, 12 * D) and len(f.feature_names_) == 12 * D and f.n_slot_features_ == D
    assert f.groups_.tolist() == list(np.arange(12).repeat(D))
    if slot_place:
        assert f.feature_names_[3:6] == ["lm00_s0_dr", "lm00_s0_dc", "lm00_s0_evidence"]
        # the place features by hand: the offset points, from the landmark's
        # expected centre in the oriented crop, at the very patch whose PCA
        # coefficients the slot holds; the evidence is the detector's score
        # as log-odds (hog) or Fisher z (ncc)
        _, scores, flipped = f.candidates(X)
        S = F.reshape(80, 4, 3, D)
        ok = ~np.isnan(S[..., 0])
        assert ok.sum() > 100 and flipped.any()
        oriented = np.where(flipped[:, None, None], X[:, :, ::-1], X)
        h = 15 // 2
        for i, k, slot in zip(*np.nonzero(ok)):
            r, c = f.landmarks_.positions_[k] + S[i, k, slot, 3:5].astype(int)
            patch = oriented[i, r - h:r + h + 1, c - h:c + h + 1]
            np.testing.assert_allclose(f.pcas_[k].transform(normalise_patches(patch[None]))[0],
                                       S[i, k, slot, :3], atol=1e-6)
        assert (np.abs(S[..., 3:5][ok]) <= 5).all()     # within the search radius
        assert scores[ok].max() < 1 - 1e-6
        ev = np.log(scores / (1 - scores)) if detector == "hog" else np.arctanh(scores)
        np.testing.assert_allclose(S[..., 5][ok], ev[ok], rtol=1e-9)
        assert np.isnan(S[~ok]).all()
        # the fitted layout decides, not a parameter changed after fit
        f2 = CarPartFeaturizer(**{**f.get_params(), "slot_place": True}).fit(X, y)
        f2.set_params(slot_place=False)
        np.testing.assert_array_equal(f2.transform(X), F)
    else:
        # a featurizer saved before the option existed (neither attribute)
        del f.slot_place, f.n_slot_features_
        np.testing.assert_array_equal(f.transform(X), F)
    # NaN comes in whole slots, and slots fill from 0
    absent = np.isnan(F).reshape(80, 4, 3, D)
    assert (absent.all(-1) == absent.any(-1)).all()
    slot_absent = absent.all(-1)
    assert (np.diff(slot_absent.astype(int), axis=2) >= 0).all()
    # cars have more candidates than non-cars on average
    counts = (~slot_absent).sum(-1)
    assert counts[y == 1].mean() > counts[y == 0].mean()
    # sliding windows in a scene == transforming the cropped windows
    rng = np.random.default_rng(5)
    scene = 0.1 * rng.random((70, 180)).astype(np.float32)
    scene[10:50, 20:120] = X[0]
    scene[25:65, 75:175] = np.maximum(scene[25:65, 75:175], X[5][:, ::-1])
    origins = np.array([[i, j] for i in range(0, 31, 3) for j in range(0, 81, 4)])
    W = f.transform_windows(scene, origins)
    crops = np.stack([scene[i:i + 40, j:j + 100] for i, j in origins])
    C = f.transform(crops)
    # both orientations occur, so mirrored windows' offsets are checked too
    flipped = f.candidates(crops)[2]
    assert flipped.any() and (~flipped).any()
    assert (~np.isnan(W[flipped])).any() and (~np.isnan(W[~flipped])).any()
    np.testing.assert_array_equal(np.isnan(W), np.isnan(C))
    np.testing.assert_allclose(W, C, rtol=1e-4, atol=1e-4)


def test_featurizer_rejects_bad_params_and_shapes():
    X, y = synthetic_cars(10)
    with pytest.raises(ValueError, match="'threshold' parameter of CarPartFeaturizer"):
        CarPartFeaturizer(threshold=1.5).fit(X, y)
    with pytest.raises(ValueError, match=r"\(n, 40, 100\)"):
        CarPartFeaturizer().fit(X[:, :, :90], y)
    with pytest.raises(ValueError, match="'detector' parameter of CarPartFeaturizer"):
        CarPartFeaturizer(detector="sift").fit(X, y)
    with pytest.raises(ValueError, match="'hog_cell_size' parameter of CarPartFeaturizer"):
        CarPartFeaturizer(detector="hog", hog_cell_size=4).fit(X, y)
    with pytest.raises(ValueError, match="'hog_threshold' parameter of CarPartFeaturizer"):
        CarPartFeaturizer(detector="hog", hog_threshold=1.0).fit(X, y)
    with pytest.raises(ValueError, match="'slot_place' parameter of CarPartFeaturizer must be a bool"):
        CarPartFeaturizer(slot_place="yes").fit(X, y)
    with pytest.raises(ValueError, match="only .* training candidates"):
        CarPartFeaturizer(n_landmarks=2, patch_size=15, threshold=0.99, n_pca=5,
                          min_distance=9).fit(X, y)



@pytest.mark.slow
def test_real_crops_smoke(mirror):
    d = mirror / "vision" / "uiuc_cars"
    X, y = load_crops(d)
    assert X.shape == (1050, 40, 100) and int(y.sum()) == 550
    sub = np.r_[0:550:6, 550:1050:6]
    f = CarPartFeaturizer(random_state=0).fit(X[sub], y[sub])
    test = np.r_[1:550:25, 551:1050:25]
    F = f.transform(X[test])
    assert F.shape == (len(test), 1900)
    absent = np.isnan(F).reshape(len(test), 19, 10, 10).all(-1)
    yt = y[test] == 1
    # absence carries structure: non-cars lack more candidates than cars
    assert absent[~yt].mean() > absent[yt].mean()

