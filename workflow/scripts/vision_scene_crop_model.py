"""First classifier of one method for scene detection, trained on the features
of all training crops (``vision_scene_featurizer``; hyperparameters by inner
validation); it mines the method's hard negatives (``vision_hard_negatives``)
and is then refitted with them (``vision_scene_model``)."""

import time

import joblib

from geomargin.common.io import atomic_path
from geomargin.detect.scenes import prepare_for_scoring
from geomargin.models.registry import get_method
from geomargin.models.selection import select_params

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake

method = smk.wildcards.method
t0 = time.perf_counter()
shared = joblib.load(smk.input.featurizer)
f, keep, F, y = shared["featurizer"], shared["keep"], shared["features"], shared["y"]
groups = f.groups_[keep]
params = select_params(method, F, y, feature_groups=groups, val_fraction=smk.params.val_fraction,
                       param_grid=smk.params.grid, seed=smk.params.seed)
est = get_method(method).make(groups=groups, random_state=smk.params.seed).set_params(**params).fit(F, y)
log.info("%s trained on %d crops x %d features in %.1f s, params %s", method, len(y), F.shape[1],
         time.perf_counter() - t0, params)
prepare_for_scoring(est, log=lambda msg: log.info("%s %s", method, msg))  # once here, not per scoring job
with atomic_path(smk.output[0], ".joblib") as tmp:
    joblib.dump({"method": method, "featurizer": f, "keep": keep, "estimator": est, "params": params}, tmp)
