"""Final classifier of one method for scene detection: the crop-trained model's
hyperparameters, refitted on the training crops plus the method's hard
negatives (``vision_hard_negatives``); saved with joblib, with the
featurizer, for the scene jobs."""

import time

import joblib
import numpy as np

from geomargin.common.io import atomic_path
from geomargin.detect.scenes import prepare_for_scoring
from geomargin.models.registry import get_method

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake

method = smk.wildcards.method
shared = joblib.load(smk.input.featurizer)
first = joblib.load(smk.input.crop_model)
hard = np.load(smk.input.hard_negatives)["features"]
f, keep, F, y = shared["featurizer"], shared["keep"], shared["features"], shared["y"]
t0 = time.perf_counter()
if len(hard):
    est = get_method(method).make(groups=f.groups_[keep], random_state=smk.params.seed)
    est.set_params(**first["params"]).fit(np.vstack([F, hard]), np.concatenate([y, np.zeros(len(hard), y.dtype)]))
else:
    est = first["estimator"]
log.info("%s refitted on %d crops + %d hard negatives in %.1f s, params %s", method, len(y), len(hard),
         time.perf_counter() - t0, first["params"])
prepare_for_scoring(est, log=lambda msg: log.info("%s %s", method, msg))  # once here, not per scoring job
with atomic_path(smk.output[0], ".joblib") as tmp:
    joblib.dump({"method": method, "featurizer": f, "keep": keep, "estimator": est, "params": first["params"],
                 "hard_negatives": len(hard)}, tmp)
