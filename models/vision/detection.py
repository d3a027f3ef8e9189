"""Sliding-window car detection in the UIUC test scenes (single- and multi-scale).

A fitted :class:`featurize.vision.featurizer.CarPartFeaturizer` turns every 100x40 window
(top-left on a grid of ``stride`` pixels) into features, computing each
landmark's response map once per scene; a fitted classifier scores them
(``decision_function``); greedy non-maximum suppression keeps local best
windows; :func:`match_detections` applies the criteria of the dataset's
evaluators (``Evaluator.java`` and ``Evaluator_Scale.java`` of the UIUC
archive, transliterated in :func:`acceptable`): a detection, written as
integers, is correct when it is acceptable for a true car not yet taken by a
better detection; at most one detection per car is correct, the others are
false detections. Single-scale: the top-left corner lies inside the ellipse
centred on the true top-left with semi-axes 25% of the object's height
(10 px) and width (25 px).

Multi-scale (``TestImages_Scale/``, ``trueLocations_Scale.txt``): each scene is
resized by every scale of :func:`pyramid_scales` (an image pyramid,
:func:`image_pyramid`, ``cv2.resize``), the same 100x40 windows are scored at
every level and mapped back to the scene as (row, col, width) with
width = 100 / scale; :func:`non_max_suppression` then works across scales.
``Evaluator_Scale.java`` compares window *centres* (integer arithmetic:
``i + (int)(0.4 * w / 2)``, ``j + w / 2``) and widths: a detection is
acceptable when (centre row, centre col, width) lies inside the ellipsoid
around the true one with semi-axes 25% of the true object's dimensions:
0.25 * 0.4 * w0 (rows; a window of width w0 is 0.4 * w0 high), 0.25 * w0
(columns) and 0.25 * w0 (width).
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Callable, Mapping, Sequence

import cv2
import numpy as np
import pandas as pd

from common.exceptions import InputFileError
from featurize.vision.images import CROP_SHAPE, read_grey_image

__all__ = [
    "parse_true_locations",
    "load_test_scenes",
    "window_origins",
    "pyramid_scales",
    "image_pyramid",
    "score_windows",
    "non_max_suppression",
    "detect_in_scene",
    "detect_scenes",
    "DecisionScorer",
    "load_scorers",
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


def pyramid_scales(shape: tuple[int, int], max_scale: float = 1.2, step: float = 2 ** 0.25) -> np.ndarray:
    """Scales of an image pyramid: ``max_scale``, ``max_scale / step``, ...,
    down to the smallest at which a 100x40 window still fits the resized
    scene (rounded size). A level of scale ``s`` finds cars about ``100 / s``
    pixels wide.

    Examples
    --------
    >>> pyramid_scales((80, 200), max_scale=1.0, step=2.0).tolist()
    [1.0, 0.5]
    """
    if not float(max_scale) > 0:
        raise ValueError(f"max_scale must be a float > 0. Got {max_scale!r} instead.")
    if not float(step) > 1:
        raise ValueError(f"step must be a float > 1. Got {step!r} instead.")
    H, W = shape
    h, w = CROP_SHAPE
    out = []
    s = float(max_scale)
    while round(H * s) >= h and round(W * s) >= w:
        out.append(s)
        s /= step
    return np.array(out)


def image_pyramid(scene: np.ndarray, scales: Sequence[float]) -> list[np.ndarray]:
    """The scene resized by each scale (``cv2.resize``: area averaging when
    shrinking, bilinear when enlarging; size rounded to whole pixels)."""
    scene = np.ascontiguousarray(scene, dtype=np.float32)
    H, W = scene.shape
    out = []
    for s in scales:
        size = (int(round(W * s)), int(round(H * s)))
        if size == (W, H):
            out.append(scene)
            continue
        interp = cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR
        out.append(cv2.resize(scene, size, interpolation=interp))
    return out


def non_max_suppression(origins: np.ndarray, scores: np.ndarray,
                        radius: tuple[int, int] = (20, 50),
                        widths: np.ndarray | None = None) -> np.ndarray:
    """Greedy NMS: take windows by decreasing score, dropping any window whose
    top-left is within ``radius`` = (rows, cols) (|d_row| < r0 and
    |d_col| < r1) of an already kept one. Returns kept indices, best first.

    With ``widths`` (multi-scale windows of width w and height 0.4 w), the
    window *centres* are compared and the radius is scaled by
    max(w_a, w_b) / 100: a window is dropped when its centre is that close to
    a kept window's in both directions, whatever their scales (with the
    default radius: when the centre of one lies in the central half of the
    larger one), so windows on parts of a better-scoring larger car are
    suppressed. For equal widths of 100 this is the single-scale rule.
    """
    origins = np.asarray(origins, dtype=float)
    order = np.argsort(-np.asarray(scores), kind="stable")
    h, w = CROP_SHAPE
    if widths is None:
        centres, wid = origins, np.full(len(origins), float(w))
    else:
        wid = np.asarray(widths, dtype=float)
        centres = origins + np.stack([wid * h / w, wid], axis=1) / 2
    kept: list[int] = []
    for i in order:
        if kept:
            f = np.maximum(wid[kept], wid[i]) / w
            close = (np.abs(centres[kept, 0] - centres[i, 0]) < radius[0] * f) & \
                (np.abs(centres[kept, 1] - centres[i, 1]) < radius[1] * f)
            if close.any():
                continue
        kept.append(int(i))
    return np.array(kept, dtype=int)


def _scorer_map(score) -> tuple[dict, bool]:
    """``score`` as {name: callable} and whether it was given as a mapping."""
    if isinstance(score, Mapping):
        if not score:
            raise ValueError("score must be a callable or a non-empty mapping of name -> callable; got {}")
        return dict(score), True
    return {None: score}, False


def score_windows(scene: np.ndarray, featurizer, score: Mapping[str, Callable], stride: int = 4,
                  scales: Sequence[float] | None = None,
                  timings: dict | None = None) -> tuple[np.ndarray, dict]:
    """Every window of one scene, before suppression: boxes ``(row, col,
    width)`` in scene pixels (one row per window, over every level of
    :func:`image_pyramid` with ``scales``, else the scene itself at scale 1)
    and ``{name: scores}`` of each callable of ``score`` on the windows'
    features (computed once per level).

    ``timings``, if given, accumulates the CPU seconds of this process:
    ``"features"`` and one entry per scorer name.
    """
    scorers, _ = _scorer_map(score)
    if scales is None:
        levels, scales = [scene], [1.0]
    else:
        levels = image_pyramid(scene, scales)
    boxes, values = [], {k: [] for k in scorers}
    clock = time.process_time
    for sc, level in zip(scales, levels):
        o = window_origins(level.shape, stride)
        t = clock()
        X = featurizer.transform_windows(level, o)
        if timings is not None:
            timings["features"] = timings.get("features", 0.0) + clock() - t
        for k, fn in scorers.items():
            t = clock()
            values[k].append(np.asarray(fn(X), dtype=float))
            if timings is not None:
                timings[k] = timings.get(k, 0.0) + clock() - t
        boxes.append(np.column_stack([o / sc, np.full(len(o), CROP_SHAPE[1] / sc)]))
    return np.concatenate(boxes), {k: np.concatenate(v) for k, v in values.items()}


def detect_in_scene(scene: np.ndarray, featurizer,
                    score: Callable[[np.ndarray], np.ndarray] | Mapping[str, Callable],
                    stride: int = 4, nms_radius: tuple[int, int] = (20, 50),
                    min_score: float = -np.inf, scales: Sequence[float] | None = None) -> pd.DataFrame:
    """Detections (row, col, score) in one scene after NMS, best first.

    ``score`` maps a feature matrix (NaN = absent) to one value per window
    (e.g. a fitted classifier's ``decision_function``). With ``scales``, the
    windows of every level of :func:`image_pyramid` are scored and suppressed
    together; the result then has (row, col, width, score) in scene pixels
    (row, col and width as floats: a level's window mapped back by 1 / scale).

    ``score`` may also be a mapping {method name: callable}: the window
    features are computed once and scored by every callable, NMS runs per
    method, and the result gets a first column ``method`` (the methods in the
    mapping's order, each best first): exactly the rows of separate calls.
    """
    scorers, named = _scorer_map(score)
    multi = scales is not None
    b, values = score_windows(scene, featurizer, scorers, stride, scales)
    parts = []
    for k in scorers:
        v = values[k]
        keep = v >= min_score
        bk, vk = b[keep], v[keep]
        if multi:
            idx = non_max_suppression(bk[:, :2], vk, nms_radius, widths=bk[:, 2])
            d = pd.DataFrame({"row": bk[idx, 0], "col": bk[idx, 1], "width": bk[idx, 2], "score": vk[idx]})
        else:
            idx = non_max_suppression(bk[:, :2], vk, nms_radius)
            d = pd.DataFrame({"row": bk[idx, 0].astype(int), "col": bk[idx, 1].astype(int),
                              "score": vk[idx]})
        if named:
            d.insert(0, "method", k)
        parts.append(d)
    return pd.concat(parts, ignore_index=True) if named else parts[0]


class DecisionScorer:
    """Picklable window scorer: ``estimator.decision_function(X[:, keep])``
    (``keep`` = the feature columns the estimator was trained on). An
    estimator with a ``prepare_scoring`` method (the geometric margin) is
    prepared here, once, for the many windows to come (pickled with it to
    worker processes)."""

    def __init__(self, estimator, keep=None):
        self.estimator = estimator
        self.keep = keep
        prepare = getattr(estimator, "prepare_scoring", None)
        if callable(prepare):
            prepare()

    def __call__(self, X: np.ndarray) -> np.ndarray:
        return self.estimator.decision_function(X if self.keep is None else X[:, self.keep])


def load_scorers(methods: Sequence[str], paths: Sequence[str | Path]) -> dict[str, DecisionScorer]:
    """{method: prepared :class:`DecisionScorer`} of ``vision_scene_model``-style
    joblib files (``paths[i]`` must hold a model of ``methods[i]``)."""
    import joblib

    scorers = {}
    for method, path in zip(methods, paths, strict=True):
        model = joblib.load(path)
        if model["method"] != method:
            raise ValueError(f"{path} holds a model of {model['method']!r}, expected {method!r}")
        scorers[method] = DecisionScorer(model["estimator"], model["keep"])  # prepared once
    return scorers


def _detect_one(scene, featurizer, score, stride, nms_radius, pyramid):
    scales = None if pyramid is None else pyramid_scales(scene.shape, **pyramid)
    return detect_in_scene(scene, featurizer, score, stride, nms_radius, scales=scales)


def _detect_many(scenes, featurizer, score, stride, nms_radius, pyramid):
    return [_detect_one(scene, featurizer, score, stride, nms_radius, pyramid) for scene in scenes]


def detect_scenes(scenes: Sequence[np.ndarray], featurizer, score, stride: int = 4,
                  nms_radius: tuple[int, int] = (20, 50), progress=None,
                  pyramid: dict | None = None, n_jobs: int = 1) -> pd.DataFrame:
    """:func:`detect_in_scene` over scenes -> DataFrame(scene, row, col, score);
    with ``pyramid`` = {"max_scale": ..., "step": ...} multi-scale
    (:func:`pyramid_scales` of each scene), adding a ``width`` column.
    ``n_jobs`` > 1 spreads the scenes over processes (joblib; ``score`` must
    then be picklable, e.g. a bound method or a ``functools.partial``); the
    result does not depend on it. With a mapping {method: callable} as
    ``score`` the window features of a scene are computed once for all
    methods, and the result has a ``method`` column after ``scene``."""
    if n_jobs == 1:
        parts = []
        for k, scene in enumerate(scenes):
            parts.append(_detect_one(scene, featurizer, score, stride, nms_radius, pyramid))
            if progress is not None:
                progress(f"scene {k + 1}/{len(scenes)}: {len(parts[-1])} windows kept")
    else:
        from joblib import Parallel, delayed

        # contiguous batches of scenes, a few per process: the featurizer and the
        # scorers (models) are sent to a worker once per batch, not per scene
        bounds = np.linspace(0, len(scenes), min(len(scenes), 4 * n_jobs) + 1).astype(int)
        batches = Parallel(n_jobs=n_jobs)(
            delayed(_detect_many)(scenes[a:b], featurizer, score, stride, nms_radius, pyramid)
            for a, b in zip(bounds[:-1], bounds[1:]) if b > a)
        parts = [d for batch in batches for d in batch]
        if progress is not None:
            progress(f"{len(scenes)} scenes on {n_jobs} processes: {sum(map(len, parts))} windows kept")
    for k, d in enumerate(parts):
        d.insert(0, "scene", k)
    return pd.concat(parts, ignore_index=True)


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
