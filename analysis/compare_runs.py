"""Scene detections of two or more runs (different settings), per method:
recall at EER and AP of each, and a two-fold estimate of choosing between
them on the test scenes.

    python analysis/compare_runs.py RUN_DIR [RUN_DIR ...] [--set single|scale] [--methods M ...]

Each RUN_DIR is a working copy whose ``results/vision/scenes{,_scale}/``
holds ``{method}_detections.tsv`` of the ``vision_scenes`` rules (the
detections after suppression, with their scores). The two-fold column
chooses the run with the best recall at EER on the even-numbered scenes and
measures it on the odd ones, and vice versa (ties go to the run listed
first, i.e. the default), pooling the recall over both halves' cars: the
honest estimate of a setting picked on these scenes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from geomargin.detect.evaluation import average_precision, equal_error_recall, load_test_scenes, precision_recall
from geomargin.common.cli import uiuc_parser


def recall_ap(det: pd.DataFrame, truths, scenes=None) -> tuple[float, float, int]:
    """Recall at EER, AP and number of cars over ``scenes`` (all if None)."""
    keep = sorted(scenes) if scenes is not None else range(len(truths))
    det = det[det["scene"].isin(set(keep))]
    det = det.assign(scene=det["scene"].map({k: i for i, k in enumerate(keep)}))
    sub = [truths[k] for k in keep]
    curve = precision_recall(det, sub)
    return equal_error_recall(curve), average_precision(curve), sum(len(t) for t in sub)


def main() -> None:
    ap = uiuc_parser(__doc__, "single")
    ap.add_argument("runs", nargs="+", type=Path)
    ap.add_argument("--methods", nargs="+", default=None)
    args = ap.parse_args()
    multi = args.set == "scale"
    sub = "scenes_scale" if multi else "scenes"
    _, truths, _ = load_test_scenes(args.data, scale=multi)
    dirs = [r / "results" / "vision" / sub for r in args.runs]
    methods = args.methods or sorted(p.name[:-len("_detections.tsv")] for p in dirs[0].glob("*_detections.tsv"))
    halves = [set(range(0, len(truths), 2)), set(range(1, len(truths), 2))]
    print(f"{args.set}: {len(truths)} scenes, {sum(len(t) for t in truths)} cars; runs: "
          + ", ".join(f"{i} = {r}" for i, r in enumerate(args.runs)) + "\n")
    head = " | ".join(f"run {i}: recall at EER, AP" for i in range(len(dirs)))
    print(f"| method | {head} | two-fold: run chosen (even, odd) | two-fold recall at EER |")
    print("|---|" + "---|" * len(dirs) + "---|---:|")
    for m in methods:
        paths = [d / f"{m}_detections.tsv" for d in dirs]
        missing = [str(p) for p in paths if not p.is_file()]
        if missing:
            raise SystemExit(f"no detections of method {m!r}: {', '.join(missing)} (run the scene rules there first)")
        dets = [pd.read_csv(p, sep="\t") for p in paths]
        full = [recall_ap(d, truths)[:2] for d in dets]
        chosen, hits, cars = [], 0.0, 0
        for fit, test in [(halves[0], halves[1]), (halves[1], halves[0])]:
            best = int(np.argmax([recall_ap(d, truths, fit)[0] for d in dets]))
            rec, _, n = recall_ap(dets[best], truths, test)
            chosen.append(best)
            hits += rec * n
            cars += n
        print(f"| {m} | " + " | ".join(f"{r:.3f}, {a:.3f}" for r, a in full)
              + f" | {chosen[0]}, {chosen[1]} | {hits / cars:.3f} |")


if __name__ == "__main__":
    main()
