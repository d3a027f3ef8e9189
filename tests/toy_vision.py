"""Small synthetic inputs for the car-detection and MCAR parts of the
workflow, written by the tests themselves.

:func:`write_toy_cars` lays out a directory as the UIUC car data is laid out
(``TrainImages/pos-<k>.pgm`` and ``neg-<k>.pgm`` 100x40 crops,
``TestImages/test-<k>.pgm`` with ``trueLocations.txt``, and
``TestImages_Scale/test-<k>.pgm`` with ``trueLocations_Scale.txt``). A "car"
is a drawn cartoon - dark body, roof with bright windows, two wheels with
bright hubs, a headlight at the front - facing left or right, slightly
shifted and with noise; a non-car is textured noise with random bars and
blobs. Every scene holds exactly one car at a known place on a noise
background: the planted car is the only car-like thing in it.

:func:`write_toy_tables` writes a small WDBC-format table (scikit-learn's
``breast_cancer.csv`` layout) and a small digits table (64 pixels and the
digit per row, gzipped), whose classes are separable.

The unit tests of :mod:`geomargin.featurize.vision` share three in-memory builders:
:func:`disc_template` (a filled disc as an NCC template), :func:`canvas`
(a black crop with filled discs at given places) and :func:`synthetic_cars`
(cars with two wheels and a window near fixed places, and non-cars with
the same shapes anywhere).
"""

from __future__ import annotations

import gzip
from pathlib import Path

import cv2
import numpy as np

CROP_H, CROP_W = 40, 100


def _car(width: int = CROP_W) -> np.ndarray:
    """A car drawn on a mid-grey background, facing right, (0.4 * width, width) float."""
    img = np.full((CROP_H, CROP_W), 0.55, np.float32)
    cv2.rectangle(img, (8, 14), (92, 28), 0.15, -1)             # body
    cv2.rectangle(img, (30, 5), (70, 14), 0.15, -1)              # roof
    cv2.rectangle(img, (34, 7), (48, 12), 0.95, -1)              # windows
    cv2.rectangle(img, (52, 7), (66, 12), 0.95, -1)
    for cx in (25, 75):                                          # wheels with hubs
        cv2.circle(img, (cx, 30), 7, 0.05, -1)
        cv2.circle(img, (cx, 30), 3, 0.9, -1)
    cv2.rectangle(img, (88, 16), (92, 20), 1.0, -1)              # headlight (front)
    if width != CROP_W:
        img = cv2.resize(img, (width, round(0.4 * width)), interpolation=cv2.INTER_LINEAR)
    return img


def _noise(rng: np.random.Generator, shape) -> np.ndarray:
    """Smooth textured noise in [0.3, 0.8]."""
    z = rng.normal(0.0, 1.0, shape).astype(np.float32)
    z = cv2.GaussianBlur(z, (0, 0), 2.0)
    z = (z - z.min()) / max(float(z.max() - z.min()), 1e-6)
    return 0.3 + 0.5 * z


def _write_pgm(path: Path, img: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    ok = cv2.imwrite(str(path), np.clip(img * 255.0 + 0.5, 0, 255).astype(np.uint8))
    assert ok, path


def car_crop(rng: np.random.Generator) -> np.ndarray:
    """One training car: shifted by up to 2 px, facing left or right, noisy."""
    img = _car()
    dy, dx = rng.integers(-2, 3, size=2)
    img = np.roll(img, (int(dy), int(dx)), axis=(0, 1))
    if rng.random() < 0.5:
        img = img[:, ::-1]
    img = img + rng.normal(0.0, 0.04, img.shape).astype(np.float32)
    return np.clip(img, 0.0, 1.0)


def non_car_crop(rng: np.random.Generator) -> np.ndarray:
    """One training non-car: textured noise with a few random bars and blobs."""
    img = _noise(rng, (CROP_H, CROP_W))
    for _ in range(int(rng.integers(1, 4))):
        x, y = int(rng.integers(0, CROP_W)), int(rng.integers(0, CROP_H))
        if rng.random() < 0.5:
            cv2.rectangle(img, (x, y), (x + int(rng.integers(5, 40)), y + int(rng.integers(2, 8))),
                          float(rng.uniform(0.0, 1.0)), -1)
        else:
            cv2.circle(img, (x, y), int(rng.integers(2, 9)), float(rng.uniform(0.0, 1.0)), -1)
    return np.clip(img + rng.normal(0.0, 0.04, img.shape).astype(np.float32), 0.0, 1.0)


def disc_template(p: int = 21, radius: int = 5) -> np.ndarray:
    """A p x p template: a filled disc of ``radius`` at its centre."""
    t = np.zeros((p, p), np.float32)
    cv2.circle(t, (p // 2, p // 2), radius, 1.0, -1)
    return t


def canvas(*discs, shape=(40, 100), radius=5, value=1.0) -> np.ndarray:
    """Black image with filled discs centred at (row, col)."""
    img = np.zeros(shape, np.float32)
    for r, c in discs:
        cv2.circle(img, (int(c), int(r)), radius, value, -1)
    return img


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


def write_toy_cars(root: Path, n_pos: int = 30, n_neg: int = 30, n_scenes: int = 3,
                   n_scale_scenes: int = 2, seed: int = 0) -> dict:
    """Write the toy UIUC layout under ``root``; return what the tests check against:
    ``n_pos``, ``n_neg``, ``truth`` ({k: (row, col)}) and ``truth_scale``
    ({k: (row, col, width)})."""
    rng = np.random.default_rng(seed)
    root = Path(root)
    for k in range(n_pos):
        _write_pgm(root / "TrainImages" / f"pos-{k}.pgm", car_crop(rng))
    for k in range(n_neg):
        _write_pgm(root / "TrainImages" / f"neg-{k}.pgm", non_car_crop(rng))
    truth, truth_scale = {}, {}
    for k in range(n_scenes):
        scene = _noise(rng, (110, 240))
        r, c = int(rng.integers(5, 110 - CROP_H - 5)), int(rng.integers(5, 240 - CROP_W - 5))
        car = _car()
        scene[r:r + CROP_H, c:c + CROP_W] = car[:, ::-1] if k % 2 else car
        _write_pgm(root / "TestImages" / f"test-{k}.pgm",
                   np.clip(scene + rng.normal(0.0, 0.03, scene.shape), 0.0, 1.0))
        truth[k] = (r, c)
    for k in range(n_scale_scenes):
        width = 118                                   # 100 px wide at the pyramid's scale 0.84
        car = _car(width)
        scene = _noise(rng, (130, 280))
        r, c = int(rng.integers(5, 130 - car.shape[0] - 5)), int(rng.integers(5, 280 - width - 5))
        scene[r:r + car.shape[0], c:c + width] = car[:, ::-1] if k % 2 else car
        _write_pgm(root / "TestImages_Scale" / f"test-{k}.pgm",
                   np.clip(scene + rng.normal(0.0, 0.03, scene.shape), 0.0, 1.0))
        truth_scale[k] = (r, c, width)
    (root / "trueLocations.txt").write_text(
        "".join(f"{k}: ({r},{c})\n" for k, (r, c) in truth.items()))
    (root / "trueLocations_Scale.txt").write_text(
        "".join(f"{k}: ({r},{c},{w})\n" for k, (r, c, w) in truth_scale.items()))
    return {"n_pos": n_pos, "n_neg": n_neg, "truth": truth, "truth_scale": truth_scale}


def write_toy_tables(root: Path, n: int = 60, d: int = 8, seed: int = 0) -> dict:
    """A WDBC-format table (``n`` x ``d``, y 1 = benign) and a digits table
    (``n`` rows of digits 5 and 6 and ``n // 3`` rows of other digits, which
    the loader drops). Returns their paths and shapes."""
    rng = np.random.default_rng(seed)
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    y = np.r_[np.zeros(n // 2, int), np.ones(n - n // 2, int)]
    X = rng.normal(size=(n, d)) + 1.5 * y[:, None]
    wdbc = root / "breast_cancer.csv"
    wdbc.write_text(f"{n},{d},malignant,benign\n"
                    + "".join(",".join(f"{v:.5f}" for v in row) + f",{c}\n" for row, c in zip(X, y)))
    rows = []
    for digit, count in ((5, n // 2), (6, n - n // 2), (1, n // 3)):
        for _ in range(count):
            img = rng.integers(0, 4, (8, 8))
            if digit == 5:
                img[:4, :] += 12                      # 5: ink on top
            elif digit == 6:
                img[4:, :] += 12                      # 6: ink at the bottom
            else:
                img[:, 3:5] += 12
            rows.append(",".join(str(int(v)) for v in np.clip(img, 0, 16).ravel()) + f",{digit}")
    digits = root / "digits.csv.gz"
    with gzip.open(digits, "wt") as fh:
        fh.write("\n".join(rows) + "\n")
    return {"wdbc": wdbc, "digits": digits, "n_wdbc": n, "d_wdbc": d, "n_digits56": n}
