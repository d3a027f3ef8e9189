"""Outer 5-fold CV of one method on the per-fold vision features: each fold's
body (inner validation, refit, score) is models.selection.evaluate_fold, the
one nested_cross_validate runs."""

import numpy as np
import pandas as pd

from geomargin.common.io import write_tsv_atomic
from geomargin.models.reduce import present_features
from geomargin.models.selection import evaluate_fold

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake

method = smk.wildcards.method
rows, scores = [], []
for fold, path in enumerate(smk.input):
    d = np.load(path)
    # features present in < min_present_fraction of the fold's training crops
    # are dropped for every method alike (see models.reduce.present_features)
    keep = present_features(d["X_train"], smk.params.min_present_fraction)
    Xtr, Xte, groups = d["X_train"][:, keep], d["X_test"][:, keep], d["groups"][keep]
    log.info("fold %d: %d of %d features kept (min_present_fraction %g)", fold, keep.sum(),
             keep.size, smk.params.min_present_fraction)
    res = evaluate_fold(method, Xtr, d["y_train"], Xte, d["y_test"], feature_groups=groups,
                        val_fraction=smk.params.val_fraction, param_grid=smk.params.grid,
                        seed=smk.params.seed, fold=fold)
    log.info("fold %d: %s %s", fold, method, res.summary())
    rows.append({"fold": fold, **res.row, "n_features": keep.size,
                 "n_features_used": int(keep.sum())})
    yt = d["y_test"]
    scores.append(pd.DataFrame({"index": d["test_index"], "fold": fold, "label": yt,
                                "score": res.decision, "correct": res.prediction == yt}))
write_tsv_atomic(pd.DataFrame(rows), smk.output.folds)
write_tsv_atomic(pd.concat(scores).sort_values("index"), smk.output.scores)
