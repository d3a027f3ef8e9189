"""Nested cross-validation of one method on one (dataset, scenario) of the
MCAR benchmark, once per random partition (seed*100 + partition)."""

import pandas as pd
import numpy as np

from geomargin.common.io import write_tsv_atomic
from geomargin.models.selection import nested_cross_validate

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake

data = np.load(smk.input[0], allow_pickle=False)
Xs, y, seeds = data["X"], data["y"], data["seeds"]
method, tag = smk.wildcards.method, f"{smk.wildcards.mcar_ds}_{smk.wildcards.mcar_sc}"
frames = []
for p, (X, seed) in enumerate(zip(Xs, seeds)):
    log.info("%s %s partition %d/%d: %d x %d, seed %d", tag, method, p + 1, len(seeds),
             *X.shape, seed)
    res = nested_cross_validate(
        method,
        X,
        y,
        n_splits=smk.params.n_splits,
        val_fraction=smk.params.val_fraction,
        param_grid=smk.params.grid,
        seed=int(seed),
        progress=lambda msg: log.info("%s partition %d: %s", tag, p, msg),
    )
    frames.append(res.folds.assign(partition=p, seed=int(seed)))
folds = pd.concat(frames, ignore_index=True).assign(
    dataset=smk.wildcards.mcar_ds, scenario=smk.wildcards.mcar_sc, method=method)
log.info("%s %s: accuracy %.3f, ROC AUC %.3f over %d folds", tag, method,
         folds["accuracy"].mean(), folds["roc_auc"].mean(), len(folds))
write_tsv_atomic(folds, smk.output[0])
