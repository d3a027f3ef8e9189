"""Benchmark of the vision featurisation and scene detection.

    python benchmarks/bench_vision.py [--data DIR] [--stride 4] [--scenes N] [--detector ncc|hog]

DIR defaults to $GEOMARGIN_DATA_MIRROR/vision/uiuc_cars or
../shared/data/vision/uiuc_cars. Prints a markdown table: wall time and peak
resident memory of (1) fitting CarPartFeaturizer on the 1050 training crops and
transforming them (target < 60 s), (2) sliding-window detection on the 170
single-scale test scenes with a linear SVC on zero-filled features (target
< 10 min), with its equal-error-rate recall.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from featurize.scenes import detect_scenes, equal_error_recall, load_test_scenes, precision_recall  # noqa: E402
from featurize.vision import DETECTORS, CarPartFeaturizer, load_crops  # noqa: E402


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def main() -> None:
    repo = Path(__file__).resolve().parents[1]
    mirror = Path(os.environ.get("GEOMARGIN_DATA_MIRROR", repo.parent / "shared" / "data"))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=mirror / "vision" / "uiuc_cars")
    ap.add_argument("--stride", type=int, default=4)
    ap.add_argument("--scenes", type=int, default=None, help="only the first N scenes")
    ap.add_argument("--detector", choices=DETECTORS, default="ncc",
                    help="landmark detector (config vision.detector)")
    ap.add_argument("--threshold", type=float, default=0.3, help="ncc candidate threshold")
    ap.add_argument("--hog-threshold", type=float, default=0.5, help="hog candidate threshold")
    args = ap.parse_args()
    from sklearn.svm import LinearSVC

    rows = []
    t0 = time.perf_counter()
    X, y = load_crops(args.data)
    f = CarPartFeaturizer(threshold=args.threshold, detector=args.detector,
                          hog_threshold=args.hog_threshold).fit(X, y)
    F = f.transform(X)
    t_feat = time.perf_counter() - t0
    rows.append(("featurise 1050 training crops (fit + transform)", t_feat, 60, peak_mb(),
                 f"{F.shape[1]} features, {np.isnan(F).mean():.1%} absent"))

    clf = LinearSVC(C=0.01, max_iter=20000).fit(np.nan_to_num(F), y)
    scenes, truths, _ = load_test_scenes(args.data)
    if args.scenes:
        scenes, truths = scenes[:args.scenes], truths[:args.scenes]
    t0 = time.perf_counter()
    det = detect_scenes(scenes, f, lambda A: clf.decision_function(np.nan_to_num(A)), stride=args.stride)
    t_det = time.perf_counter() - t0
    curve = precision_recall(det, truths)
    eer = equal_error_recall(curve)
    rows.append((f"detect in {len(scenes)} scenes (stride {args.stride}, zero-filled linear SVC)",
                 t_det, 600, peak_mb(), f"recall at EER {eer:.3f}"))

    print("| detector | step | seconds | target s | peak RSS MB | note |")
    print("|---|---|---:|---:|---:|---|")
    for name, sec, tgt, mem, note in rows:
        print(f"| {args.detector} | {name} | {sec:.1f} | {tgt} | {mem:.0f} | {note} |")
    print(f"\n{os.cpu_count()} CPUs visible; python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
