"""Nested cross-validation of one method on the metabolic instances."""

import numpy as np

from geomargin.common.exceptions import ConfigValueError
from geomargin.common.io import load_npz, save_pickle_atomic, write_tsv_atomic
from geomargin.models.selection import nested_cross_validate

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake

data = load_npz(smk.input.features, allow_pickle=False)
X, y = data["X"], data["y"]
method = smk.wildcards.method
log.info("%s: %d instances x %d features, %d folds", method, *X.shape, smk.params.n_splits)
# Folds are made of whole model reactions (both directions and all their
# genes stay together; a lipid reaction written once per acyl chain with its
# near-copies, featurize.metabolic.pairs.sampling.fold_groups): there cannot
# be more folds than such groups. The rank SVM pairs genes within a reaction.
n_groups = len(np.unique(data["fold_group"]))
n_splits = smk.params.n_splits
if n_splits > n_groups:
    raise ConfigValueError(
        f"config key metabolic.n_splits is {n_splits}, but {smk.input.features} holds {n_groups} model "
        f"reactions with known genes (cross-validation groups); expected an int from 2 to {n_groups}")
result = nested_cross_validate(
    method,
    X,
    y,
    feature_groups=data["groups"],
    instance_groups=data["fold_group"],
    query=data["instance_group"],
    n_splits=smk.params.n_splits,
    val_fraction=smk.params.val_fraction,
    param_grid=smk.params.grid,
    seed=smk.params.seed,
    progress=lambda msg: log.info("%s: %s", method, msg),
)
folds = result.folds.assign(method=method)
log.info("%s: accuracy %.3f, ROC AUC %.3f (mean over folds)", method,
         folds["accuracy"].mean(), folds["roc_auc"].mean())
save_pickle_atomic(result, smk.output.cv)
write_tsv_atomic(folds, smk.output.folds)
