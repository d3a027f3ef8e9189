"""Landmark-candidate features of one outer fold: the featurizer is fitted on
the fold's training crops only, then transforms training and test crops."""

import numpy as np
from sklearn.model_selection import StratifiedKFold

from geomargin.common.io import save_npz_atomic
from geomargin.featurize.vision.featurizer import CarPartFeaturizer
from geomargin.featurize.vision.images import load_crops

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake

fold = int(smk.wildcards.fold)
X, y = load_crops(smk.input.data)
folds = list(StratifiedKFold(smk.params.n_splits, shuffle=True, random_state=smk.params.seed).split(X, y))
tr, te = folds[fold]
f = CarPartFeaturizer(**smk.params.featurizer, random_state=smk.params.seed).fit(X[tr], y[tr])
Ftr, Fte = f.transform(X[tr]), f.transform(X[te])
K, P = f.max_candidates, f.n_slot_features_


def cnt(F):
    """Candidates per (crop, landmark): slots whose features are present."""
    return (~np.isnan(F)).reshape(len(F), f.n_landmarks, K, P).all(-1).sum(-1)


for name, F, yy in (("train", Ftr, y[tr]), ("test", Fte, y[te])):
    c = cnt(F)
    log.info("fold %d %s: candidates per landmark cars %.2f, non-cars %.2f", fold, name,
             c[yy == 1].mean(), c[yy == 0].mean())
save_npz_atomic(smk.output[0], X_train=Ftr, y_train=y[tr], X_test=Fte, y_test=y[te],
                train_index=tr, test_index=te, groups=f.groups_,
                positions=f.landmarks_.positions_, counts_test=cnt(Fte))
