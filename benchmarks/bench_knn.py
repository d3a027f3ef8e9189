"""kNN imputation of scene windows with and without the preselection shortcut.

    python benchmarks/bench_knn.py MODEL.joblib [--data DIR] [--set scale|single] [--scenes 3]

MODEL is a knn scene model of the ``vision_scene_model`` rule
(``results/vision/scenes/knn_model.joblib``: the 1050 training crops and
the hard negatives are the donors). The windows of the first ``--scenes``
scenes are described once;
then ``MaskedKNNImputer.transform`` (the model's imputer) runs on each
scene's windows with the shortcut (``MaskedKNNImputer(preselect=True)``,
the default: only each receiver's nearest donors sorted, every pattern's K
nearest first looked for among them, a rare pattern's among its few donors)
and without it (``preselect=False``: every receiver's whole row sorted and
every pattern read off it).
Both outputs must be bit-identical; the table gives CPU seconds
(``time.process_time``, BLAS held to one thread, so independent of the
machine's load).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from geomargin.models.impute import MaskedKNNImputer
from geomargin.detect.evaluation import load_test_scenes
from geomargin.detect.scenes import image_pyramid, pyramid_scales, window_origins
from geomargin.common.cli import uiuc_parser


def main() -> None:
    ap = uiuc_parser(__doc__, "scale")
    ap.add_argument("model", type=Path)
    ap.add_argument("--scenes", type=int, default=3)
    ap.add_argument("--stride", type=int, default=4)
    args = ap.parse_args()
    import joblib

    mod = joblib.load(args.model)
    est, f, keep = mod["estimator"], mod["featurizer"], mod["keep"]
    imp = getattr(est, "imputer_", None)
    if not isinstance(imp, MaskedKNNImputer):
        raise SystemExit(f"{args.model}: not a knn model (its estimator has no MaskedKNNImputer 'imputer_')")
    scenes, _, _ = load_test_scenes(args.data, scale=args.set == "scale")
    print(f"{args.model}: {imp.fit_X_.shape[0]} donors x {imp.fit_X_.shape[1]} features, "
          f"K = {imp.n_neighbors}; {args.set} scenes\n")
    print("| scene | windows | CPU s, full search | CPU s, shortcut | speed-up | identical |")
    print("|---|---:|---:|---:|---:|---|")
    tot = np.zeros(2)
    with threadpool_limits(1):
        for k, scene in enumerate(scenes[:args.scenes]):
            levels = [scene] if args.set == "single" else \
                image_pyramid(scene, pyramid_scales(scene.shape, max_scale=1.2, step=2 ** 0.25))
            X = np.concatenate([f.transform_windows(lv, window_origins(lv.shape, args.stride))[:, keep]
                                for lv in levels])
            outs, secs = [], []
            for preselect in (False, True):
                imp.set_params(preselect=preselect)
                t0 = time.process_time()
                outs.append(imp.transform(X))
                secs.append(time.process_time() - t0)
            same = np.array_equal(outs[0], outs[1], equal_nan=True)
            tot += secs
            print(f"| {k} | {len(X)} | {secs[0]:.2f} | {secs[1]:.2f} | {secs[0] / secs[1]:.1f} | {same} |",
                  flush=True)
    print(f"| all | | {tot[0]:.2f} | {tot[1]:.2f} | {tot[0] / tot[1]:.1f} | |")


if __name__ == "__main__":
    main()
