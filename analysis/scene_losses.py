"""Where scene detection loses its cars, and what each step costs.

    python analysis/scene_losses.py [--data DIR] [--set scale|single] [--jobs 2] [--scenes N]
        MODEL.joblib [MODEL.joblib ...]

MODELs are outputs of the ``vision_scene_model`` rule
(``results/vision/scenes/{method}_model.joblib``; their featurizers must be
alike: the window features are computed once and scored by every model).
For each scene of the test set (``single``: 170 scenes; ``scale``: 108, image
pyramid 1.2 / 2**0.25, stride 4, as config ``vision``) every window is
described and scored *before* non-maximum suppression; then NMS
(``nms_radius`` 20, 50) gives the same detections as the workflow's rules, and
the dataset's criterion (:func:`geomargin.detect.evaluation.match_detections`)
their recall at equal error rate (EER) and average precision.

Each true car is then put into one class at the EER threshold (the score at
the first crossing of precision and recall):

- ``no window``: no window of the grid / pyramid is acceptable for it
  (:func:`acceptable`): the window sampling loses it;
- ``classifier``: acceptable windows exist but the best of them scores below
  the threshold: the classifier (on its landmark-candidate features) ranks
  the car below the false windows;
- ``NMS``: an acceptable window scores above the threshold but was
  suppressed by a better window that is not acceptable for the car (a
  window at a wrong scale or shift on the same car, or a neighbour);
- ``detected``.

With ``--vote MARGIN`` (multi-scale) each method gets a second row, an
experiment not used by the workflow: every kept window's box replaced by the
weighted mean of the windows it suppressed that score at least its score -
MARGIN (centres averaged, widths geometrically; weights score - (kept score -
MARGIN)), "box voting". It is measured on the test scenes, so it is reported
as an experiment, not adopted.

Also prints CPU seconds per scene of the steps (``time.process_time`` in
the worker processes, so the figures do not depend on the machine's load;
BLAS runs one thread per process here): candidates + features (``transform_windows`` over the pyramid),
each classifier's ``decision_function``, NMS.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pandas as pd
from geomargin.common.cli import uiuc_parser


from geomargin.detect.evaluation import (acceptable, average_precision, equal_error_recall, found_locations,
                               load_test_scenes, precision_recall)
from geomargin.detect.scenes import DecisionScorer, non_max_suppression, pyramid_scales, score_windows
from geomargin.featurize.vision.images import CROP_SHAPE

NMS_RADIUS = (20, 50)


def windows_of_scene(scene, featurizer, scorers, stride, pyramid):
    """Every window (row, col, width) of one scene and its score per scorer,
    with the CPU seconds of features and of each scorer (this process's:
    load-independent)."""
    scales = None if pyramid is None else pyramid_scales(scene.shape, **pyramid)
    timings: dict = {}
    b, values = score_windows(scene, featurizer, dict(enumerate(scorers)), stride, scales, timings)
    t_clf = np.array([timings.get(m, 0.0) for m in range(len(scorers))])
    return b, np.column_stack([values[m] for m in range(len(scorers))]), timings.get("features", 0.0), t_clf


def vote_boxes(b, v, idx, margin, radius=NMS_RADIUS):
    """Box voting (module docstring): refined (row, col, width) of the kept
    windows ``idx`` from the windows in their suppression neighbourhood."""
    hw = CROP_SHAPE[0] / CROP_SHAPE[1]
    centres = b[:, :2] + np.column_stack([b[:, 2] * hw, b[:, 2]]) / 2
    out = b[idx, :3].copy()
    for n, i in enumerate(idx):
        f = np.maximum(b[:, 2], b[i, 2]) / CROP_SHAPE[1]
        near = (np.abs(centres[:, 0] - centres[i, 0]) < radius[0] * f) & \
            (np.abs(centres[:, 1] - centres[i, 1]) < radius[1] * f) & (v >= v[i] - margin)
        w = v[near] - (v[i] - margin)
        c = (centres[near] * w[:, None]).sum(0) / w.sum()
        width = np.exp((np.log(b[near, 2]) * w).sum() / w.sum())
        out[n] = [c[0] - width * hw / 2, c[1] - width / 2, width]
    return out


def nms_detections(parts, m, multi, vote=None, radius=NMS_RADIUS, scenes=None):
    """The workflow's detections of scorer ``m`` from the windows of every
    scene (with ``vote``: box voting of that margin; ``scenes``: only those
    scene indices)."""
    out, t_nms = [], 0.0
    for k, (b, v) in enumerate(parts):
        if scenes is not None and k not in scenes:
            continue
        t = time.process_time()
        if multi:
            idx = non_max_suppression(b[:, :2], v[:, m], radius, widths=b[:, 2])
        else:
            idx = non_max_suppression(b[:, :2], v[:, m], radius)
        t_nms += time.process_time() - t
        d = {"scene": k, "row": b[idx, 0], "col": b[idx, 1]}
        if vote is not None:
            r = vote_boxes(b, v[:, m], idx, vote, radius)
            d = {"scene": k, "row": r[:, 0], "col": r[:, 1], "width": r[:, 2]}
        elif multi:
            d["width"] = b[idx, 2]
        d["score"] = v[idx, m]
        out.append(pd.DataFrame(d))
    return pd.concat(out, ignore_index=True), t_nms


def taken_cars(det_scene: pd.DataFrame, truth: np.ndarray, multi: bool) -> np.ndarray:
    """Which true cars of one scene its detections take (the matching of
    :func:`match_detections`: by decreasing score, first acceptable free car)."""
    used = np.zeros(len(truth), bool)
    if len(det_scene):
        g = det_scene.sort_values("score", ascending=False, kind="stable")
        for row in acceptable(found_locations(g, multi), truth):
            free = np.flatnonzero(row & ~used)
            if len(free):
                used[free[0]] = True
    return used


def losses(parts, det, truths, threshold, m, multi):
    """Count the true cars per class at ``threshold`` (module docstring)."""
    at = det[det["score"] >= threshold]
    out = {"no window": 0, "classifier": 0, "NMS": 0, "detected": 0}
    ncol = 3 if multi else 2
    for k, (b, v) in enumerate(parts):
        t = np.asarray(truths[k]).reshape(-1, ncol)
        if not len(t):
            continue
        ok = acceptable(np.rint(b[:, :ncol]).astype(np.int64), t)
        taken = taken_cars(at[at["scene"] == k], t, multi)
        for j in range(len(t)):
            if taken[j]:
                out["detected"] += 1
            elif not ok[:, j].any():
                out["no window"] += 1
            elif v[ok[:, j], m].max() < threshold:
                out["classifier"] += 1
            else:
                out["NMS"] += 1
    return out


def eer_threshold(curve: pd.DataFrame) -> float:
    """Score threshold of the first row at or past the equal error rate."""
    d = curve["precision"].to_numpy() - curve["recall"].to_numpy()
    i = np.flatnonzero((curve["recall"].to_numpy() > 0) & (d <= 0))
    return float(curve["threshold"].iloc[i[0] if len(i) else -1])


def main() -> None:
    ap = uiuc_parser(__doc__, "scale")
    ap.add_argument("models", nargs="+", type=Path)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--scenes", type=int, default=None, help="only the first N scenes")
    ap.add_argument("--stride", type=int, default=4)
    ap.add_argument("--vote", type=float, default=None, help="also box voting with this score margin (multi-scale)")
    ap.add_argument("--radii", nargs="+", default=None, metavar="ROWS,COLS",
                    help="an experiment: recall at EER for each NMS radius, and a radius chosen on half of "
                         "the scenes (even / odd) and measured on the other half")
    args = ap.parse_args()
    import joblib
    from joblib import Parallel, delayed

    multi = args.set == "scale"
    models = [joblib.load(p) for p in args.models]
    featurizer = models[0]["featurizer"]
    t0 = time.process_time()
    scorers = [DecisionScorer(mod["estimator"], mod["keep"]) for mod in models]
    t_prepare = time.process_time() - t0
    scenes, truths, _ = load_test_scenes(args.data, scale=multi)
    if args.scenes:
        scenes, truths = scenes[:args.scenes], truths[:args.scenes]
    pyramid = {"max_scale": 1.2, "step": 2 ** 0.25} if multi else None
    t0 = time.perf_counter()
    res = Parallel(n_jobs=args.jobs)(
        delayed(windows_of_scene)(s, featurizer, scorers, args.stride, pyramid) for s in scenes)
    wall = time.perf_counter() - t0
    parts = [(b, v) for b, v, _, _ in res]
    n = len(scenes)
    t_feat = sum(r[2] for r in res) / n
    print(f"{args.set}: {n} scenes, {sum(len(b) for b, _ in parts) / n:.0f} windows per scene; "
          f"windows scored in {wall:.1f} s (wall) on {args.jobs} processes; CPU seconds: candidates + features "
          f"{t_feat:.2f} per scene, scorers prepared in {t_prepare:.1f}\n")
    print("| method | recall at EER | AP | EER threshold | cars | no window | classifier | NMS | detected "
          "| classifier CPU s/scene | NMS CPU s/scene |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    n_cars = sum(len(t) for t in truths)
    for m, mod in enumerate(models):
        t_clf = sum(r[3][m] for r in res) / n
        for vote in [None] + ([args.vote] if args.vote is not None and multi else []):
            det, t_nms = nms_detections(parts, m, multi, vote)
            curve = precision_recall(det, truths)
            thr = eer_threshold(curve)
            c = losses(parts, det, truths, thr, m, multi)
            name = mod["method"] if vote is None else f"{mod['method']} + box voting {vote:g} (experiment)"
            print(f"| {name} | {equal_error_recall(curve):.3f} | {average_precision(curve):.3f} | {thr:.3f} "
                  f"| {n_cars} | {c['no window']} | {c['classifier']} | {c['NMS']} | {c['detected']} "
                  f"| {t_clf:.3f} | {t_nms / n:.3f} |")
    if args.radii:
        radius_table(parts, truths, models, multi, [tuple(int(x) for x in r.split(",")) for r in args.radii])
    print(f"\n{os.cpu_count()} CPUs visible; load average {os.getloadavg()[0]:.1f}")


def radius_table(parts, truths, models, multi, radii) -> None:
    """Recall at EER per NMS radius (all scenes), and the two-fold estimate:
    the radius with the best recall at EER on the even scenes measured on the
    odd ones and vice versa (recall pooled over both halves' cars)."""
    halves = [set(range(0, len(parts), 2)), set(range(1, len(parts), 2))]

    def recall(m, radius, scenes=None):
        det, _ = nms_detections(parts, m, multi, radius=radius, scenes=scenes)
        keep = sorted(scenes) if scenes is not None else range(len(parts))
        det = det.assign(scene=det["scene"].map({k: i for i, k in enumerate(keep)}))
        curve = precision_recall(det, [truths[k] for k in keep])
        cars = sum(len(np.asarray(truths[k]).reshape(-1, 3 if multi else 2)) for k in keep)
        return equal_error_recall(curve), cars
    head = " | ".join(f"{r[0]},{r[1]}" for r in radii)
    print("\nNMS radius (rows, cols), recall at EER (an experiment on the test scenes):\n")
    print(f"| method | {head} | two-fold: radii chosen (even, odd) | two-fold recall at EER |")
    print("|---|" + "---:|" * len(radii) + "---|---:|")
    for m, mod in enumerate(models):
        full = [recall(m, r)[0] for r in radii]
        chosen, hits, cars = [], 0.0, 0
        for fit, test in [(halves[0], halves[1]), (halves[1], halves[0])]:
            best = radii[int(np.argmax([recall(m, r, fit)[0] for r in radii]))]
            rec, n = recall(m, best, test)
            chosen.append(best)
            hits += rec * n
            cars += n
        print(f"| {mod['method']} | " + " | ".join(f"{x:.3f}" for x in full)
              + f" | {chosen[0]}, {chosen[1]} | {hits / cars:.3f} |")


if __name__ == "__main__":
    main()
