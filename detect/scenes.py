"""Sliding-window car detection in the UIUC test scenes (single- and multi-scale).

A fitted :class:`geomargin.featurize.vision.featurizer.CarPartFeaturizer` turns every 100x40 window
(top-left on a grid of ``stride`` pixels) into features, computing each
landmark's response map once per scene; a fitted classifier scores them
(``decision_function``, :class:`DecisionScorer`); greedy non-maximum
suppression (:func:`non_max_suppression`) keeps local best windows.

Multi-scale (``TestImages_Scale/``): each scene is resized by every scale of
:func:`pyramid_scales` (an image pyramid, :func:`image_pyramid`,
``cv2.resize``), the same 100x40 windows are scored at every level and
mapped back to the scene as (row, col, width) with width = 100 / scale;
:func:`non_max_suppression` then works across scales. The detections are
scored against the true car locations by :mod:`geomargin.detect.evaluation`.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable, Mapping, Sequence

import cv2
import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from geomargin.common.parallel import balanced_bounds, process_starmap
from geomargin.featurize.vision.images import CROP_SHAPE

__all__ = [
    "window_origins",
    "pyramid_scales",
    "image_pyramid",
    "score_windows",
    "non_max_suppression",
    "detect_in_scene",
    "detect_scenes",
    "DecisionScorer",
    "prepare_for_scoring",
    "load_scorers",
]


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


def prepare_for_scoring(estimator, log: Callable[[str], object] | None = None):
    """Prepare a fitted ``estimator`` (in place) for scoring many windows:
    its ``prepare_scoring`` method, if it has one (the geometric margin's
    cubic-kernel moment tensors), else nothing; returns it. ``log``, if
    given, receives one line with the time it took (when there was
    something to prepare).

    The preparation runs with one BLAS thread: a product split over threads
    rounds differently, so the prepared numbers, and every score computed
    from them, would otherwise depend on the caller's thread count. The
    scene workflow prepares each model in the job that fits it (a prepared
    model is pickled with what it prepared and not prepared again), so the
    detection jobs do not repeat it.
    """
    prepare = getattr(estimator, "prepare_scoring", None)
    if callable(prepare):
        t0 = time.perf_counter()
        with threadpool_limits(1):
            prepare()
        if log is not None:
            log(f"prepared for scoring in {time.perf_counter() - t0:.1f} s")
    return estimator


class DecisionScorer:
    """Picklable window scorer: ``estimator.decision_function(X[:, keep])``
    (``keep`` = the feature columns the estimator was trained on). The
    estimator is prepared here (:func:`prepare_for_scoring`; nothing to do
    if it already was), once, for the many windows to come (pickled with it
    to worker processes)."""

    def __init__(self, estimator, keep=None):
        self.estimator = prepare_for_scoring(estimator)
        self.keep = keep

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


def _n_windows(shape: tuple[int, int], stride: int, pyramid: dict | None) -> int:
    """Windows :func:`detect_scenes` scores in a scene of this shape (over
    the levels of :func:`image_pyramid`, sized as there)."""
    if pyramid is None:
        return len(window_origins(shape, stride))
    H, W = shape
    return sum(len(window_origins((int(round(H * s)), int(round(W * s))), stride))
               for s in pyramid_scales(shape, **pyramid))


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
        # contiguous batches of scenes, a few per process: the featurizer and the
        # scorers (models) are sent to a worker once per batch, not per scene.
        # The batches hold near-equal numbers of windows (scenes differ in size
        # and pyramid depth), so that no worker is left with the largest alone.
        bounds = balanced_bounds([_n_windows(scene.shape, stride, pyramid) for scene in scenes], 4 * n_jobs)
        batches = process_starmap(_detect_many, [(scenes[a:b], featurizer, score, stride, nms_radius, pyramid)
                                                 for a, b in zip(bounds[:-1], bounds[1:])], n_jobs)
        parts = [d for batch in batches for d in batch]
        if progress is not None:
            progress(f"{len(scenes)} scenes on {n_jobs} processes: {sum(map(len, parts))} windows kept")
    for k, d in enumerate(parts):
        d.insert(0, "scene", k)
    return pd.concat(parts, ignore_index=True)
