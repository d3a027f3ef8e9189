"""Tests of featurize.vision: loading, orientation, landmarks, candidates, NaN layout."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view
from sklearn.decomposition import PCA

from common.exceptions import InputFileError
from featurize.vision.candidates import _candidates_in_maps, _search_regions  # the candidate reader
from featurize.vision.candidates import landmark_candidates
from featurize.vision.counts import candidate_count_distribution
from featurize.vision.featurizer import CarPartFeaturizer
from featurize.vision.hog_detector import HogLandmarkDetector
from featurize.vision.images import load_crops
from featurize.vision.landmarks import LandmarkModel, normalise_patches
from featurize.vision.orientation import _zrows, align_orientation, orient_to


def disc_template(p: int = 21, radius: int = 5) -> np.ndarray:
    t = np.zeros((p, p), np.float32)
    cv2.circle(t, (p // 2, p // 2), radius, 1.0, -1)
    return t


def canvas(*discs, shape=(40, 100), radius=5, value=1.0) -> np.ndarray:
    """Black image with filled discs centred at (row, col)."""
    img = np.zeros(shape, np.float32)
    for r, c in discs:
        cv2.circle(img, (int(c), int(r)), radius, value, -1)
    return img


# ----------------------------------------------------------------- loading
def write_pgm(path, img):
    assert cv2.imwrite(str(path), img)


def make_dataset(tmp_path, n_pos=2, n_neg=2):
    d = tmp_path / "TrainImages"
    d.mkdir()
    rng = np.random.default_rng(0)
    for k in range(n_pos):
        write_pgm(d / f"pos-{k}.pgm", rng.integers(0, 255, (40, 100), dtype=np.uint8))
    for k in range(n_neg):
        write_pgm(d / f"neg-{k}.pgm", rng.integers(0, 255, (40, 100), dtype=np.uint8))
    return d


def test_load_crops_reads_in_numeric_order(tmp_path):
    d = tmp_path / "TrainImages"
    d.mkdir()
    for k in (0, 2, 10):
        write_pgm(d / f"pos-{k}.pgm", np.full((40, 100), 10 * k, np.uint8))
    write_pgm(d / "neg-0.pgm", np.full((40, 100), 255, np.uint8))
    X, y, paths = load_crops(tmp_path, return_paths=True)
    assert X.shape == (4, 40, 100) and X.dtype == np.float32
    assert y.tolist() == [1, 1, 1, 0]
    assert [p.name for p in paths] == ["pos-0.pgm", "pos-2.pgm", "pos-10.pgm", "neg-0.pgm"]
    np.testing.assert_allclose(X[:, 0, 0], [0, 20 / 255, 100 / 255, 1.0], rtol=1e-6)


def test_wrongly_sized_image_names_file(tmp_path):
    d = make_dataset(tmp_path)
    write_pgm(d / "neg-1.pgm", np.zeros((40, 99), np.uint8))
    with pytest.raises(InputFileError, match=r"neg-1\.pgm.*99x40.*expected 100x40"):
        load_crops(tmp_path)


def test_unreadable_image_names_file(tmp_path):
    d = make_dataset(tmp_path)
    (d / "pos-1.pgm").write_bytes(b"this is not an image")
    with pytest.raises(InputFileError, match=r"pos-1\.pgm.*cannot be read"):
        load_crops(tmp_path)


def test_missing_train_dir_is_clear(tmp_path):
    with pytest.raises(InputFileError, match="TrainImages"):
        load_crops(tmp_path)


# ------------------------------------------------------------- orientation
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


# ---------------------------------------------------------- candidates
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


# ------------------------------------------------------ NaN layout by hand
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


# ----------------------------------------------------- fit on synthetic cars
def synthetic_cars(n=40, seed=0):
    """Cars: two 'wheels' and a 'window' near fixed places (jittered), facing
    left or right at random; non-cars: the same shapes at random places."""
    rng = np.random.default_rng(seed)
    imgs, ys = [], []
    for i in range(2 * n):
        car = i < n
        img = 0.15 * rng.random((40, 100)).astype(np.float32)
        for _ in range(2 if car else 3):  # clutter: random discs
            cv2.circle(img, (int(rng.integers(5, 95)), int(rng.integers(5, 35))), 6,
                       float(rng.random()), -1)
        if car:
            jr, jc = rng.integers(-2, 3, 2)
            cv2.circle(img, (int(20 + jc), int(28 + jr)), 6, 1.0, -1)
            cv2.circle(img, (int(78 + jc), int(28 + jr)), 6, 1.0, -1)
            cv2.rectangle(img, (int(30 + jc), int(8 + jr)), (int(45 + jc), int(16 + jr)), 0.7, -1)
            if rng.random() < 0.5:
                img = img[:, ::-1].copy()
        imgs.append(img)
        ys.append(int(car))
    return np.stack(imgs), np.array(ys)


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


# ------------------------------------------------------------- real data
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
        tz = _zrows(t)
        zz = z / np.maximum(np.linalg.norm(z, axis=2, keepdims=True), 1e-12)
        s = np.einsum("ncd,cd->nc", zz, tz)
        m1, m0 = s[y].mean(0), s[~y].mean(0)
        v1, v0 = s[y].var(0), s[~y].var(0)
        fisher[r] = (m1 - m0) ** 2 / np.maximum(v1 + v0, 1e-12)
        tmpl[r] = t
    return fisher, tmpl.reshape(nr, nc, p, p)


def test_vectorised_landmark_statistics_match_per_row_definition():
    """The integral-image/offset-loop statistics equal the per-row definition
    (z-normalise every patch, average car patches, NCC, Fisher), including a
    flat (constant) region where the NCC is defined as 0."""
    from featurize.vision.landmarks import _landmark_statistics

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
