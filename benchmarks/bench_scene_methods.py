"""Cost of every method as a scene detector (which of them fit the budget).

    python benchmarks/bench_scene_methods.py [--data DIR] [--methods m1 m2 ...] [--scenes 5]

Fits the featurizer once on all 1050 training crops (config defaults: HOG
detector, 19 landmarks, 10 slots, radius 8), then per method, as the workflow's
``vision_scene_model`` rule does: inner-validation grid search
(``models.selection.select_params`` with the config's grid) and the final fit
on all crops; then the classifier's ``decision_function`` on the windows of
the first ``--scenes`` multi-scale scenes (pyramid 1.2 / 2**0.25, stride 4;
window features computed once and shared by the methods). Prints a markdown
table: training seconds, classifier seconds per multi-scale scene, and the
projected minutes of one method on both test sets (training + classifier over
108 multi-scale and 170 single-scale scenes + the measured featurisation per
scene), one process.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np
import yaml
from geomargin.common.cli import REPO, uiuc_parser


from geomargin.detect.evaluation import load_test_scenes
from geomargin.detect.scenes import image_pyramid, pyramid_scales, window_origins
from geomargin.featurize.vision.featurizer import CarPartFeaturizer
from geomargin.featurize.vision.images import load_crops
from geomargin.models.reduce import present_features
from geomargin.models.registry import get_method
from geomargin.models.selection import select_params


def main() -> None:
    cfg = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    vis = cfg["vision"]
    ap = uiuc_parser(__doc__)
    ap.add_argument("--methods", nargs="+", default=vis["methods"])
    ap.add_argument("--scenes", type=int, default=5, help="multi-scale scenes timed per method")
    args = ap.parse_args()

    feat = {k: vis[k] for k in ("n_landmarks", "patch_size", "max_candidates", "threshold", "search_radius",
                                "n_pca", "min_distance", "detector", "hog_threshold", "hog_cell_size",
                                "hog_orientations", "hog_C", "slot_place")}
    X, y = load_crops(args.data)
    t0 = time.perf_counter()
    f = CarPartFeaturizer(**feat, random_state=cfg["seed"]).fit(X, y)
    F = f.transform(X)
    t_featurizer = time.perf_counter() - t0
    keep = present_features(F, vis["min_present_fraction"])
    F = F[:, keep]

    scenes, _, _ = load_test_scenes(args.data, scale=True)
    t0 = time.perf_counter()
    W = []
    for scene in scenes[:args.scenes]:
        scales = pyramid_scales(scene.shape, **vis["pyramid"])
        for level in image_pyramid(scene, scales):
            W.append(f.transform_windows(level, window_origins(level.shape, vis["stride"]))[:, keep])
    W = np.concatenate(W)
    t_windows = (time.perf_counter() - t0) / args.scenes
    n_win = len(W) / args.scenes
    print(f"featurizer fit + transform of the crops: {t_featurizer:.1f} s; window features "
          f"{t_windows:.2f} s per multi-scale scene ({n_win:.0f} windows per scene, first {args.scenes} scenes)\n")
    print("| method | chosen params | train s | classifier s / multi-scale scene | projected min, both sets |")
    print("|---|---|---:|---:|---:|")
    # single-scale scenes: 0.8 times the windows of a multi-scale scene on average
    # (measured below from the image areas and the pyramid)
    single, _, _ = load_test_scenes(args.data)
    area_single = sum(s.size for s in single)
    area_multi = sum(s.size * np.sum(pyramid_scales(s.shape, **vis["pyramid"]) ** 2) for s in scenes)
    per_scene_single = area_single / len(single) / (area_multi / len(scenes))
    for method in args.methods:
        t0 = time.perf_counter()
        params = select_params(method, F, y, feature_groups=f.groups_[keep], val_fraction=vis["val_fraction"],
                               param_grid=vis["param_grids"].get(method), seed=cfg["seed"])
        est = get_method(method).make(groups=f.groups_[keep], random_state=cfg["seed"]).set_params(**params)
        est.fit(F, y)
        t_train = time.perf_counter() - t0
        t0 = time.perf_counter()
        est.decision_function(W)
        t_clf = (time.perf_counter() - t0) / args.scenes
        per_multi = t_windows + t_clf
        total = t_featurizer + t_train + len(scenes) * per_multi + len(single) * per_scene_single * per_multi
        print(f"| {method} | {params} | {t_train:.1f} | {t_clf:.2f} | {total / 60:.1f} |", flush=True)
    print(f"\n{os.cpu_count()} CPUs visible; python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
