"""Sliding-window car detection in the UIUC single-scale test scenes.

A fitted :class:`featurize.vision.CarPartFeaturizer` turns every 100x40 window
(top-left on a grid of ``stride`` pixels) into features, computing each
landmark's response map once per scene; a fitted classifier scores them
(``decision_function``); greedy non-maximum suppression keeps local best
windows; :func:`evaluate_detections` applies the criteria of the dataset's
README: a detection (top-left of its window) is correct when it lies inside
the ellipse centred on a true top-left location with semi-axes 25% of the
object's height (10 px) and width (25 px); at most one detection per car is
counted as correct, the others are false detections.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from featurize.exceptions import InputFileError
from featurize.vision import CROP_SHAPE, read_grey_image

__all__ = [
    "parse_true_locations",
    "load_test_scenes",
    "window_origins",
    "non_max_suppression",
    "detect_in_scene",
    "detect_scenes",
    "match_detections",
    "precision_recall",
    "equal_error_recall",
]

_LINE = re.compile(r"^\s*(\d+)\s*:(.*)$")
_PAIR = re.compile(r"\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)")


def parse_true_locations(path: str | Path) -> dict[int, np.ndarray]:
    """Parse ``trueLocations.txt`` (``n: (i1,j1) (i2,j2)``) -> {n: int (m, 2)}.

    Raises
    ------
    InputFileError
        Naming the file and line for a malformed line.
    """
    path = Path(path)
    if not path.is_file():
        raise InputFileError(path, "ground-truth file does not exist",
                             "the UIUC dataset directory holds trueLocations.txt")
    out: dict[int, np.ndarray] = {}
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        m = _LINE.match(line)
        rest = m.group(2) if m else ""
        pairs = _PAIR.findall(rest)
        if m is None or _PAIR.sub("", rest).strip():
            raise InputFileError(path, f"line {lineno} is {line!r}, expected 'n: (row,col) (row,col) ...'")
        out[int(m.group(1))] = np.array(pairs, dtype=int).reshape(-1, 2)
    return out


def load_test_scenes(dataset_dir: str | Path) -> tuple[list[np.ndarray], list[np.ndarray], list[str]]:
    """Single-scale test scenes with their true car locations.

    Returns ``(scenes, truths, names)``: float32 images in [0, 1], int (m, 2)
    top-left (row, col) of the true 100x40 windows, and file names; scene
    ``k`` is ``TestImages/test-k.pgm``.
    """
    dataset_dir = Path(dataset_dir)
    base = dataset_dir if (dataset_dir / "TestImages").is_dir() else dataset_dir / "CarData"
    folder = base / "TestImages"
    if not folder.is_dir():
        raise InputFileError(dataset_dir, "has no TestImages/ folder",
                             "pass the UIUC car dataset directory")
    truth = parse_true_locations(base / "trueLocations.txt")
    scenes, truths, names = [], [], []
    for k in sorted(truth):
        p = folder / f"test-{k}.pgm"
        img = read_grey_image(p)
        if img.shape[0] < CROP_SHAPE[0] or img.shape[1] < CROP_SHAPE[1]:
            raise InputFileError(p, f"scene is {img.shape[1]}x{img.shape[0]}, smaller than a 100x40 window")
        scenes.append(img)
        truths.append(truth[k])
        names.append(p.name)
    return scenes, truths, names


def window_origins(shape: tuple[int, int], stride: int) -> np.ndarray:
    """Top-left (row, col) of every 100x40 window on a ``stride`` grid (the
    last row/column of windows touches the border)."""
    H, W = shape
    h, w = CROP_SHAPE
    rows = np.unique(np.r_[np.arange(0, H - h + 1, stride), H - h])
    cols = np.unique(np.r_[np.arange(0, W - w + 1, stride), W - w])
    rr, cc = np.meshgrid(rows, cols, indexing="ij")
    return np.stack([rr.ravel(), cc.ravel()], axis=1)


def non_max_suppression(origins: np.ndarray, scores: np.ndarray,
                        radius: tuple[int, int] = (20, 50)) -> np.ndarray:
    """Greedy NMS: take windows by decreasing score, dropping any window whose
    top-left is within ``radius`` = (rows, cols) (|d_row| < r0 and
    |d_col| < r1) of an already kept one. Returns kept indices, best first."""
    origins = np.asarray(origins)
    order = np.argsort(-np.asarray(scores), kind="stable")
    kept: list[int] = []
    for i in order:
        if not kept or not (
            (np.abs(origins[kept, 0] - origins[i, 0]) < radius[0])
            & (np.abs(origins[kept, 1] - origins[i, 1]) < radius[1])
        ).any():
            kept.append(int(i))
    return np.array(kept, dtype=int)


def detect_in_scene(scene: np.ndarray, featurizer, score: Callable[[np.ndarray], np.ndarray],
                    stride: int = 4, nms_radius: tuple[int, int] = (20, 50),
                    min_score: float = -np.inf) -> pd.DataFrame:
    """Detections (row, col, score) in one scene after NMS, best first.

    ``score`` maps a feature matrix (NaN = absent) to one value per window
    (e.g. a fitted classifier's ``decision_function``).
    """
    origins = window_origins(scene.shape, stride)
    X = featurizer.transform_windows(scene, origins)
    s = np.asarray(score(X), dtype=float)
    keep = s >= min_score
    idx = np.flatnonzero(keep)[non_max_suppression(origins[keep], s[keep], nms_radius)]
    return pd.DataFrame({"row": origins[idx, 0], "col": origins[idx, 1], "score": s[idx]})


def detect_scenes(scenes: Sequence[np.ndarray], featurizer, score, stride: int = 4,
                  nms_radius: tuple[int, int] = (20, 50), progress=None) -> pd.DataFrame:
    """:func:`detect_in_scene` over scenes -> DataFrame(scene, row, col, score)."""
    parts = []
    for k, scene in enumerate(scenes):
        d = detect_in_scene(scene, featurizer, score, stride, nms_radius)
        d.insert(0, "scene", k)
        parts.append(d)
        if progress is not None:
            progress(f"scene {k + 1}/{len(scenes)}: {len(d)} windows kept")
    return pd.concat(parts, ignore_index=True)


def _inside(det: np.ndarray, truth: np.ndarray, tolerance: float) -> np.ndarray:
    h, w = CROP_SHAPE
    d = det[:, None, :].astype(float) - truth[None, :, :]
    return (d[..., 0] / (tolerance * h)) ** 2 + (d[..., 1] / (tolerance * w)) ** 2 <= 1.0


def match_detections(detections: pd.DataFrame, truths: Sequence[np.ndarray],
                     tolerance: float = 0.25) -> np.ndarray:
    """Which detections are correct under the README's criteria.

    Detections of each scene are taken by decreasing score; each is matched to
    the nearest (in the ellipse metric) still-unmatched true location whose
    ellipse contains it. A detection inside the ellipse of an already matched
    car only is false ("only one detection per object is allowed"). Because
    matching goes by score, the matches at any score threshold are the prefix
    of these.

    Returns a bool array aligned with ``detections``.
    """
    correct = np.zeros(len(detections), bool)
    h, w = CROP_SHAPE
    for k, grp in detections.groupby("scene", sort=False):
        truth = np.asarray(truths[int(k)]).reshape(-1, 2)
        if len(truth) == 0:
            continue
        grp = grp.sort_values("score", ascending=False, kind="stable")
        used = np.zeros(len(truth), bool)
        det = grp[["row", "col"]].to_numpy()
        d = det[:, None, :].astype(float) - truth[None, :, :]
        dist = (d[..., 0] / (tolerance * h)) ** 2 + (d[..., 1] / (tolerance * w)) ** 2
        for pos, label in enumerate(grp.index):
            ok = (dist[pos] <= 1.0) & ~used
            if ok.any():
                j = int(np.argmin(np.where(ok, dist[pos], np.inf)))
                used[j] = True
                correct[detections.index.get_loc(label)] = True
    return correct


def precision_recall(detections: pd.DataFrame, truths: Sequence[np.ndarray],
                     tolerance: float = 0.25) -> pd.DataFrame:
    """Precision and recall at every score threshold (each distinct score).

    Returns DataFrame(threshold, n_detections, correct, false, recall,
    precision, f_measure), thresholds decreasing; a detection counts at
    threshold t when its score >= t.
    """
    n_true = int(sum(len(np.asarray(t).reshape(-1, 2)) for t in truths))
    if n_true == 0:
        raise ValueError("no true car locations: recall is undefined")
    correct = match_detections(detections, truths, tolerance)
    s = detections["score"].to_numpy(float)
    order = np.argsort(-s, kind="stable")
    tp = np.cumsum(correct[order])
    n = np.arange(1, len(order) + 1)
    ss = s[order]
    last = np.r_[ss[1:] != ss[:-1], True]  # last detection of each tied score
    tp, n, ss = tp[last], n[last], ss[last]
    recall = tp / n_true
    precision = tp / n
    f = np.where(tp > 0, 2 * precision * recall / np.maximum(precision + recall, 1e-12), 0.0)
    return pd.DataFrame({"threshold": ss, "n_detections": n, "correct": tp, "false": n - tp,
                         "recall": recall, "precision": precision, "f_measure": f})


def equal_error_recall(curve: pd.DataFrame) -> float:
    """Recall where recall = precision (linear interpolation between the two
    thresholds where precision - recall changes sign); NaN if never equal."""
    r = curve["recall"].to_numpy(float)
    p = curve["precision"].to_numpy(float)
    d = p - r
    if len(d) == 0:
        return float("nan")
    zero = np.flatnonzero(d == 0)
    if len(zero):
        return float(r[zero[0]])
    sign = np.flatnonzero(np.sign(d[:-1]) != np.sign(d[1:]))
    if not len(sign):
        return float("nan")
    i = sign[0]
    t = d[i] / (d[i] - d[i + 1])
    return float(r[i] + t * (r[i + 1] - r[i]))
