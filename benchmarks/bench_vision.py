"""Benchmark of the vision featurisation and scene detection.

    python benchmarks/bench_vision.py [--data DIR] [--stride 4] [--scenes N] [--detector ncc|hog]
        [--sets single scale] [--max-scale 1.2] [--scale-step 1.189] [--jobs 2]
        [--model results/vision/scenes/geometric_model.joblib]

DIR defaults to $GEOMARGIN_DATA_MIRROR/vision/uiuc_cars or
../shared/data/vision/uiuc_cars. Prints a markdown table: wall time and peak
resident memory of (1) fitting CarPartFeaturizer on the 1050 training crops and
transforming them (target < 60 s), (2) sliding-window detection on the 170
single-scale test scenes and (3) multi-scale detection (image pyramid, NMS
across scales) on the 108 scenes of TestImages_Scale (targets < 10 min each)
with a linear SVC on zero-filled features, with seconds per scene and the
equal-error-rate recall. Detection is split into its measured steps:
candidates + features (``transform_windows``, including the pyramid),
classifier (``decision_function``) and non-maximum suppression.

With ``--model`` (files of the ``vision_scene_model`` rule: featurizer, kept
columns and trained classifier of one method each) the featurisation row is
loading those models and detection uses their classifiers, as the workflow's
scene rules do: each window's features computed once and scored by every
model (``DecisionScorer``, which prepares the geometric margin's cubic kernel
once); recall at EER and AP are then given per model. With ``--jobs`` > 1 the steps are not split (they run in the
worker processes) and the peak RSS column is the largest of this process and
the workers (read after the workers are shut down).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np
from geomargin.common.cli import uiuc_parser


import geomargin.detect.scenes as scenes_mod
from geomargin.detect.evaluation import average_precision, equal_error_recall, load_test_scenes, precision_recall
from geomargin.detect.scenes import DecisionScorer, detect_scenes
from geomargin.featurize.vision.featurizer import CarPartFeaturizer, DETECTORS
from geomargin.featurize.vision.images import load_crops


def peak_mb() -> float:
    """Peak RSS (MB) of this process and of its finished children (the
    loky workers count once :func:`_stop_workers` has shut them down)."""
    return max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
               resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024.0


def _stop_workers() -> None:
    from joblib.externals.loky import get_reusable_executor

    get_reusable_executor().shutdown(wait=True)


def main() -> None:
    ap = uiuc_parser(__doc__)
    ap.add_argument("--stride", type=int, default=4)
    ap.add_argument("--scenes", type=int, default=None, help="only the first N scenes")
    ap.add_argument("--detector", choices=DETECTORS, default="ncc",
                    help="landmark detector (config vision.detector)")
    ap.add_argument("--threshold", type=float, default=0.3, help="ncc candidate threshold")
    ap.add_argument("--hog-threshold", type=float, default=0.5, help="hog candidate threshold")
    ap.add_argument("--search-radius", type=int, default=8, help="landmark search radius (vision.search_radius)")
    ap.add_argument("--slot-place", action=argparse.BooleanOptionalAction, default=True,
                    help="offsets and detector evidence in each slot (vision.slot_place, default on)")
    ap.add_argument("--max-candidates", type=int, default=10, help="slots per landmark (vision.max_candidates)")
    ap.add_argument("--jobs", type=int, default=1, help="processes over the scenes (the rule's threads)")
    ap.add_argument("--sets", nargs="+", choices=("single", "scale"), default=["single", "scale"],
                    help="test sets: single-scale TestImages, multi-scale TestImages_Scale")
    ap.add_argument("--max-scale", type=float, default=1.2, help="largest pyramid scale (vision.pyramid)")
    ap.add_argument("--scale-step", type=float, default=2 ** 0.25, help="pyramid step (vision.pyramid)")
    ap.add_argument("--model", type=Path, nargs="+", default=None,
                    help="vision_scene_model outputs (.joblib) instead of the zero-filled linear SVC")
    args = ap.parse_args()

    rows = []
    t0 = time.perf_counter()
    if args.model is not None:
        import joblib

        models = [joblib.load(p) for p in args.model]
        f = models[0]["featurizer"]
        # prepares the geometric margin once
        scorer = {m["method"]: DecisionScorer(m["estimator"], m["keep"]) for m in models}
        clf_name = ", ".join(f"{m['method']} ({m['params']})" for m in models)
        rows.append((f"load {len(models)} model(s) and prepare their scorers", time.perf_counter() - t0, 60,
                     peak_mb(), f"{int(models[0]['keep'].sum())} features kept"))
        args.detector = f.detector
    else:
        X, y = load_crops(args.data)
        f = CarPartFeaturizer(threshold=args.threshold, detector=args.detector, hog_threshold=args.hog_threshold,
                              search_radius=args.search_radius, max_candidates=args.max_candidates,
                              slot_place=args.slot_place).fit(X, y)
        F = f.transform(X)
        t_feat = time.perf_counter() - t0
        rows.append(("featurise 1050 training crops (fit + transform)", t_feat, 60, peak_mb(),
                     f"{F.shape[1]} features, {np.isnan(F).mean():.1%} absent"))

        from sklearn.impute import SimpleImputer
        from sklearn.pipeline import make_pipeline
        from sklearn.svm import LinearSVC

        clf = make_pipeline(SimpleImputer(strategy="constant", fill_value=0.0, keep_empty_features=True),
                            LinearSVC(C=0.01, max_iter=20000)).fit(F, y)
        scorer = {"zero-filled linear SVC": DecisionScorer(clf)}
        clf_name = "zero-filled linear SVC"
    for test_set in args.sets:
        multi = test_set == "scale"
        scenes, truths, _ = load_test_scenes(args.data, scale=multi)
        if args.scenes:
            scenes, truths = scenes[:args.scenes], truths[:args.scenes]
        steps = {"features": 0.0, "classifier": 0.0, "nms": 0.0}

        def timed(key, fn):
            def wrapper(*a, **k):
                t = time.perf_counter()
                try:
                    return fn(*a, **k)
                finally:
                    steps[key] += time.perf_counter() - t
            return wrapper

        nms = scenes_mod.non_max_suppression
        scenes_mod.non_max_suppression = timed("nms", nms)
        transform = type(f).transform_windows
        type(f).transform_windows = timed("features", transform)
        try:
            t0 = time.perf_counter()
            det = detect_scenes(scenes, f, {k: timed("classifier", v) for k, v in scorer.items()}
                                if args.jobs == 1 else scorer,
                                stride=args.stride, n_jobs=args.jobs,
                                pyramid={"max_scale": args.max_scale, "step": args.scale_step} if multi else None)
            t_det = time.perf_counter() - t0
            if args.jobs > 1:
                _stop_workers()
        finally:
            scenes_mod.non_max_suppression = nms
            type(f).transform_windows = transform
        quality = []
        for name, d in det.groupby("method", sort=False):
            curve = precision_recall(d.drop(columns="method"), truths)
            quality.append(f"{name}: recall at EER {equal_error_recall(curve):.3f}, "
                           f"AP {average_precision(curve):.3f}")
        label = (f"detect in {len(scenes)} multi-scale scenes (pyramid {args.max_scale:g}/{args.scale_step:.3f})"
                 if multi else f"detect in {len(scenes)} single-scale scenes")
        n = len(scenes)
        rows.append((f"{label}, stride {args.stride}, {clf_name}", t_det, 600, peak_mb(),
                     f"{t_det / n:.2f} s/scene"
                     + (f" (candidates+features {steps['features'] / n:.2f}, classifier "
                        f"{steps['classifier'] / n:.3f}, NMS {steps['nms'] / n:.3f})" if args.jobs == 1
                        else f" on {args.jobs} processes")
                     + "; " + "; ".join(quality)))

    print(f"search radius {f.search_radius}, {f.max_candidates} candidates per landmark; peak RSS: "
          + ("this process and its workers" if args.jobs > 1 else "this process") + "\n")
    print("| detector | step | seconds | target s | peak RSS MB | note |")
    print("|---|---|---:|---:|---:|---|")
    for name, sec, tgt, mem, note in rows:
        print(f"| {args.detector} | {name} | {sec:.1f} | {tgt} | {mem:.0f} | {note} |")
    print(f"\n{os.cpu_count()} CPUs visible; python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
