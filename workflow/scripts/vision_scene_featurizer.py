"""The scene detectors' shared featurizer: fitted once on all training crops
(landmarks, per-landmark detectors, PCA), with the crops' features and the
kept columns; every method's scene model is trained on these features, and
the scene jobs compute each window's features once for all methods."""

import time

import joblib

from geomargin.common.io import atomic_path
from geomargin.featurize.vision.featurizer import CarPartFeaturizer
from geomargin.featurize.vision.images import load_crops
from geomargin.models.reduce import present_features

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake

t0 = time.perf_counter()
X, y = load_crops(smk.input.data)
f = CarPartFeaturizer(**smk.params.featurizer, random_state=smk.params.seed).fit(X, y)
F = f.transform(X)
# drop slots (almost) no training crop fills, as in vision_cv
keep = present_features(F, smk.params.min_present_fraction)
log.info("featurizer fitted on %d crops in %.1f s; %d of %d features kept (min_present_fraction %g)",
         len(y), time.perf_counter() - t0, keep.sum(), keep.size, smk.params.min_present_fraction)
with atomic_path(smk.output[0], ".joblib") as tmp:
    joblib.dump({"featurizer": f, "keep": keep, "features": F[:, keep], "y": y}, tmp)
