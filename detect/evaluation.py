"""The UIUC car test scenes, their true car locations, and how detections are
scored against them.

:func:`load_test_scenes` reads the scenes and :func:`parse_true_locations`
the ground truth; :func:`match_detections` applies the criteria of the
dataset's evaluators (``Evaluator.java`` and ``Evaluator_Scale.java`` of the
UIUC archive, transliterated in :func:`acceptable`): a detection, written as
integers, is correct when it is acceptable for a true car not yet taken by a
better detection; at most one detection per car is correct, the others are
false detections. Single-scale: the top-left corner lies inside the ellipse
centred on the true top-left with semi-axes 25% of the object's height
(10 px) and width (25 px).

Multi-scale (``TestImages_Scale/``, ``trueLocations_Scale.txt``; detections
as (row, col, width), :mod:`geomargin.detect.scenes`): ``Evaluator_Scale.java``
compares window *centres* (integer arithmetic: ``i + (int)(0.4 * w / 2)``,
``j + w / 2``) and widths: a detection is acceptable when (centre row,
centre col, width) lies inside the ellipsoid around the true one with
semi-axes 25% of the true object's dimensions: 0.25 * 0.4 * w0 (rows; a
window of width w0 is 0.4 * w0 high), 0.25 * w0 (columns) and 0.25 * w0
(width). :func:`precision_recall`, :func:`equal_error_recall` and
:func:`average_precision` summarise the matches.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from geomargin.common.exceptions import InputFileError
from geomargin.featurize.vision.images import CROP_SHAPE, read_grey_image

__all__ = [
    "parse_true_locations",
    "load_test_scenes",
    "check_truth_covers_scenes",
    "found_locations",
    "acceptable",
    "match_detections",
    "precision_recall",
    "equal_error_recall",
    "average_precision",
]

_LINE = re.compile(r"^\s*(\d+)\s*:(.*)$")
_PAIR = re.compile(r"\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)")
_TRIPLE = re.compile(r"\(\s*(-?\d+)\s*,\s*(-?\d+)\s*,\s*(\d+)\s*\)")


def parse_true_locations(path: str | Path, scale: bool = False) -> dict[int, np.ndarray]:
    """Parse ``trueLocations.txt`` (``n: (i1,j1) (i2,j2)``) -> {n: int (m, 2)},
    or with ``scale`` ``trueLocations_Scale.txt`` (``n: (i1,j1,w1) ...``) ->
    {n: int (m, 3)} (top-left row, col and width of the true window).

    Raises
    ------
    InputFileError
        Naming the file and line for a malformed line.
    """
    path = Path(path)
    if not path.is_file():
        raise InputFileError(path, "ground-truth file does not exist",
                             "the UIUC dataset directory holds trueLocations.txt")
    pattern, ncol = (_TRIPLE, 3) if scale else (_PAIR, 2)
    form = "(row,col,width) (row,col,width)" if scale else "(row,col) (row,col)"
    out: dict[int, np.ndarray] = {}
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        m = _LINE.match(line)
        rest = m.group(2) if m else ""
        found = pattern.findall(rest)
        if m is None or pattern.sub("", rest).strip():
            raise InputFileError(path, f"line {lineno} is {line!r}, expected 'n: {form} ...'")
        out[int(m.group(1))] = np.array(found, dtype=int).reshape(-1, ncol)
    return out


_SCENE = re.compile(r"^test-(\d+)\.pgm$")


def check_truth_covers_scenes(truth: dict[int, np.ndarray], folder: str | Path, truth_path: str | Path) -> None:
    """Every scene ``test-<n>.pgm`` of ``folder`` has its line ``n:`` in the
    ground truth ``truth`` (an image without cars has one with no locations),
    so the evaluation covers the whole test set.

    Raises
    ------
    InputFileError
        Naming the ground-truth file, how many scenes lack their line and
        the first of them.
    """
    present = sorted(int(m.group(1)) for p in Path(folder).iterdir() if (m := _SCENE.match(p.name)))
    missing = [n for n in present if n not in truth]
    if missing:
        shown = ", ".join(f"test-{n}.pgm" for n in missing[:5]) + (", ..." if len(missing) > 5 else "")
        raise InputFileError(
            truth_path, f"has no line for {len(missing)} of the {len(present)} scenes in "
            f"{Path(folder).name}/ ({shown})",
            "every test image needs its line 'n: (row,col) ...', with no locations for an image without cars")


def load_test_scenes(dataset_dir: str | Path, scale: bool = False
                     ) -> tuple[list[np.ndarray], list[np.ndarray], list[str]]:
    """Test scenes with their true car locations.

    Returns ``(scenes, truths, names)``: float32 images in [0, 1], int (m, 2)
    top-left (row, col) of the true 100x40 windows, and file names; scene
    ``k`` is ``TestImages/test-k.pgm``. With ``scale``: the multi-scale set
    ``TestImages_Scale/`` and int (m, 3) (row, col, width) truths from
    ``trueLocations_Scale.txt``.
    """
    dataset_dir = Path(dataset_dir)
    sub, truth_name = ("TestImages_Scale", "trueLocations_Scale.txt") if scale else \
        ("TestImages", "trueLocations.txt")
    base = dataset_dir if (dataset_dir / sub).is_dir() else dataset_dir / "CarData"
    folder = base / sub
    if not folder.is_dir():
        raise InputFileError(dataset_dir, f"has no {sub}/ folder",
                             "pass the UIUC car dataset directory")
    truth = parse_true_locations(base / truth_name, scale=scale)
    check_truth_covers_scenes(truth, folder, base / truth_name)
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


#: ``heightWidthRatio`` of ``Evaluator_Scale.java``: a window of width w is 0.4 w high
HEIGHT_WIDTH_RATIO = 0.4


def found_locations(detections: pd.DataFrame, multiscale: bool) -> np.ndarray:
    """Detections as a ``foundLocations(_Scale).txt`` file holds them (the
    evaluators parse integers): int64 (row, col), or with ``multiscale``
    (row, col, width), each rounded to the nearest integer (``np.rint``,
    halves to even)."""
    cols = ["row", "col", "width"] if multiscale else ["row", "col"]
    return np.rint(detections[cols].to_numpy(float)).astype(np.int64)


def acceptable(found: np.ndarray, truth: np.ndarray, tolerance: float = 0.25) -> np.ndarray:
    """``isAcceptable`` of the dataset's evaluators for every (detection, true
    car) pair -> bool (n, m), in their integer arithmetic.

    Two columns (row, col), ``Evaluator.java``: ``di^2 / (t * 40)^2 + dj^2 /
    (t * 100)^2 <= 1`` on the top-left corners (t = ``tolerance``, the
    evaluators' 0.25). Three columns (row, col, width), ``Evaluator_Scale.java``:
    centres ``ci = i + (int)(0.4 * w / 2)`` and ``cj = j + w / 2`` (integer
    division), then ``dci^2 / (t * 0.4 * w0)^2 + dcj^2 / (t * w0)^2 +
    dw^2 / (t * w0)^2 <= 1`` with w0 the true width.

    Examples
    --------
    >>> acceptable(np.array([[100, 100, 250], [110, 110, 220]]), np.array([[100, 100, 200]])).ravel().tolist()
    [False, True]
    """
    p = np.asarray(found, dtype=np.int64)
    q = np.asarray(truth, dtype=np.int64)
    if p.ndim != 2 or q.ndim != 2 or p.shape[1] != q.shape[1] or p.shape[1] not in (2, 3):
        raise ValueError(f"found and truth need 2 or 3 columns alike; got shapes {p.shape} and {q.shape}")
    t = float(tolerance)
    if p.shape[1] == 2:
        h, w = CROP_SHAPE
        hd = np.abs(p[:, None, 0] - q[None, :, 0])
        wd = np.abs(p[:, None, 1] - q[None, :, 1])
        return (hd * hd) / ((t * h) * (t * h)) + (wd * wd) / ((t * w) * (t * w)) <= 1

    def centre(a):  # Java: i + (int) (heightWidthRatio * width/2), j + width/2
        return (a[:, 0] + np.trunc(HEIGHT_WIDTH_RATIO * a[:, 2] / 2).astype(np.int64),
                a[:, 1] + a[:, 2] // 2)

    pi, pj = centre(p)
    qi, qj = centre(q)
    hd = np.abs(pi[:, None] - qi[None, :]).astype(float)
    wd = np.abs(pj[:, None] - qj[None, :]).astype(float)
    sd = np.abs(p[:, None, 2] - q[None, :, 2]).astype(float)
    w0 = q[None, :, 2].astype(float)
    h_ax = t * HEIGHT_WIDTH_RATIO * w0
    w_ax = t * w0
    return (hd * hd) / (h_ax * h_ax) + (wd * wd) / (w_ax * w_ax) + (sd * sd) / (w_ax * w_ax) <= 1


def match_detections(detections: pd.DataFrame, truths: Sequence[np.ndarray],
                     tolerance: float = 0.25) -> np.ndarray:
    """Which detections are correct, counted as the dataset's evaluators count
    a ``foundLocations`` file that lists each scene's detections by
    decreasing score (ties in table order).

    Each detection in that order, as integers (:func:`found_locations`), is
    correct when it is :func:`acceptable` for a true car not yet taken, and
    takes the first such car in the ground-truth file's order (the
    evaluators' loop; not the nearest car); otherwise it is false ("only one
    detection per object"). Because matching goes by score, the matches at
    any score threshold are the prefix of these. Truths with three columns
    (row, col, width) use the multi-scale criterion and need a ``width``
    column in ``detections``.

    Returns a bool array aligned with ``detections``.
    """
    correct = np.zeros(len(detections), bool)
    ncol = 2
    for t in truths:
        t = np.asarray(t)
        if t.size:
            ncol = t.shape[-1]
            break
    if ncol == 3 and "width" not in detections.columns:
        raise ValueError("multi-scale truths (row, col, width) need a 'width' column in the detections")
    for k, grp in detections.groupby("scene", sort=False):
        truth = np.asarray(truths[int(k)]).reshape(-1, ncol)
        if len(truth) == 0:
            continue
        grp = grp.sort_values("score", ascending=False, kind="stable")
        ok = acceptable(found_locations(grp, ncol == 3), truth, tolerance)
        used = np.zeros(len(truth), bool)
        for pos, label in enumerate(grp.index):
            free = np.flatnonzero(ok[pos] & ~used)
            if len(free):
                used[free[0]] = True
                correct[detections.index.get_loc(label)] = True
    return correct


def precision_recall(detections: pd.DataFrame, truths: Sequence[np.ndarray],
                     tolerance: float = 0.25) -> pd.DataFrame:
    """Precision and recall at every score threshold (each distinct score).

    Returns DataFrame(threshold, n_detections, correct, false, recall,
    precision, f_measure), thresholds decreasing; a detection counts at
    threshold t when its score >= t.
    """
    n_true = int(sum(len(np.asarray(t)) if np.ndim(t) == 2 else np.size(t) // 2 for t in truths))
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
    thresholds where precision - recall changes sign); NaN if never equal.
    Thresholds above the first correct detection (precision = recall = 0
    there) are skipped: they are not an equal error rate."""
    r = curve["recall"].to_numpy(float)
    p = curve["precision"].to_numpy(float)
    p, r = p[r > 0], r[r > 0]
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


def average_precision(curve: pd.DataFrame) -> float:
    """Average precision of a :func:`precision_recall` curve: the sum over
    thresholds of (recall increase) x precision, recall counted against all
    true cars (as ``sklearn.metrics.average_precision_score`` with the cars
    never detected scored below every detection); NaN for an empty curve."""
    r = curve["recall"].to_numpy(float)
    p = curve["precision"].to_numpy(float)
    if len(r) == 0:
        return float("nan")
    return float(np.sum(np.diff(np.r_[0.0, r]) * p))
