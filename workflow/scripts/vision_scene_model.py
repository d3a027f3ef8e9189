"""Featurizer and classifier of one method for scene detection, trained on all
training crops (hyperparameters by inner validation); saved with joblib for
the single- and the multi-scale detection jobs."""

import time

import joblib

from common.io import atomic_path
from featurize.vision.featurizer import CarPartFeaturizer
from featurize.vision.images import load_crops
from models.reduce import present_features
from models.registry import get_method
from models.selection import select_params

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake

method = smk.wildcards.method
t0 = time.perf_counter()
X, y = load_crops(smk.input.data)
f = CarPartFeaturizer(**smk.params.featurizer, random_state=smk.params.seed).fit(X, y)
F = f.transform(X)
# drop slots (almost) no training crop fills, as in vision_cv
keep = present_features(F, smk.params.min_present_fraction)
F = F[:, keep]
log.info("%d of %d features kept (min_present_fraction %g)", keep.sum(), keep.size,
         smk.params.min_present_fraction)
params = select_params(method, F, y, feature_groups=f.groups_[keep], val_fraction=smk.params.val_fraction,
                       param_grid=smk.params.grid, seed=smk.params.seed)
est = get_method(method).make(groups=f.groups_[keep], random_state=smk.params.seed).set_params(**params).fit(F, y)
log.info("%s trained on %d crops in %.1f s, params %s", method, len(y), time.perf_counter() - t0, params)
with atomic_path(smk.output[0], ".joblib") as tmp:
    joblib.dump({"method": method, "featurizer": f, "keep": keep, "estimator": est, "params": params}, tmp)
