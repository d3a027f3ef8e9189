"""Hard negatives of every scene method, mined from the windows of the enlarged
training negatives with the method's crop-trained model
(``detect.hard_negatives``); window features computed once for all
methods. No test scene is read."""

import time

import joblib
import numpy as np

from geomargin.common.io import atomic_path
from geomargin.featurize.vision.images import load_crops
from geomargin.detect.scenes import load_scorers
from geomargin.detect.hard_negatives import mine_hard_negatives

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake
hn = smk.params.hard_negatives

shared = joblib.load(smk.input.featurizer)
f, keep = shared["featurizer"], shared["keep"]
scorers = load_scorers(smk.params.methods, smk.input.models)
X, y = load_crops(smk.input.data)
negatives = X[y == 0]
t0 = time.perf_counter()
if hn["max_windows"] > 0:
    mined = mine_hard_negatives(f, scorers, negatives, scales=hn["scales"], stride=hn["stride"],
                                margin=hn["margin"], max_windows=hn["max_windows"], n_jobs=smk.threads,
                                progress=log.info)
else:  # hard negatives switched off: none for any method
    mined = {m: (np.empty((0, keep.size), np.float32), np.empty(0)) for m in scorers}
log.info("%d negatives x scales %s mined in %.1f s on %d processes", len(negatives), hn["scales"],
         time.perf_counter() - t0, smk.threads)
for method, out in zip(smk.params.methods, smk.output):
    F, v = mined[method]
    log.info("%s: %d hard negatives (scores %s)", method, len(v),
             f"{v.min():.3f} to {v.max():.3f}" if len(v) else "-")
    with atomic_path(out, ".npz") as tmp:
        np.savez_compressed(tmp, features=F[:, keep], scores=v)
