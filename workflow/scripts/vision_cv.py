"""Outer 5-fold CV of one method on the per-fold vision features: inner
validation (select_params) on the fold's training features, refit, score."""

from _bootstrap import setup

log = setup(snakemake)  # noqa: F821 - injected by Snakemake
smk = snakemake  # noqa: F821

import json  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from sklearn.metrics import roc_auc_score  # noqa: E402

from featurize.io import write_tsv_atomic  # noqa: E402
from models.registry import get_method  # noqa: E402
from models.selection import select_params  # noqa: E402

method = smk.wildcards.method
spec = get_method(method)
rows, scores = [], []
for fold, path in enumerate(smk.input):
    d = np.load(path)
    # Slots (almost) no training crop fills carry (almost) no information and
    # break some baselines: a feature absent in every crop of an inner
    # training split crashes HistGradientBoosting's binning and has no mean to
    # impute. Keep features present in >= min_present_fraction of the fold's
    # training crops (then an inner split misses one with probability
    # ~val_fraction**count), for every method alike.
    min_count = max(1, int(np.ceil(smk.params.min_present_fraction * len(d["y_train"]))))
    keep = (~np.isnan(d["X_train"])).sum(axis=0) >= min_count
    Xtr, Xte, groups = d["X_train"][:, keep], d["X_test"][:, keep], d["groups"][keep]
    log.info("fold %d: %d of %d features present in >= %d training crops", fold, keep.sum(), keep.size, min_count)
    params = select_params(method, Xtr, d["y_train"], feature_groups=groups,
                           val_fraction=smk.params.val_fraction, param_grid=smk.params.grid,
                           seed=smk.params.seed + fold)
    est = spec.make(groups=groups, random_state=smk.params.seed).set_params(**params)
    t = time.perf_counter()
    est.fit(Xtr, d["y_train"])
    fit_s = time.perf_counter() - t
    dv = est.decision_function(Xte)
    yt = d["y_test"]
    pred = est.predict(Xte)
    acc = float(np.mean(pred == yt))
    auc = float(roc_auc_score(yt == est.classes_[1], dv))
    log.info("fold %d: %s acc %.3f auc %.3f (%.1fs) params %s", fold, method, acc, auc, fit_s, params)
    rows.append(dict(fold=fold, accuracy=acc, roc_auc=auc, fit_seconds=fit_s, n_train=len(d["y_train"]),
                     n_test=len(yt), n_features_used=int(keep.sum()), best_params=json.dumps(params, sort_keys=True, default=str)))
    scores.append(pd.DataFrame({"index": d["test_index"], "fold": fold, "label": yt, "score": dv,
                                "correct": pred == yt}))
write_tsv_atomic(pd.DataFrame(rows), smk.output.folds)
write_tsv_atomic(pd.concat(scores).sort_values("index"), smk.output.scores)
