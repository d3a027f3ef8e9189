"""Sliding-window detections of one method on the 170 single-scale scenes:
featurizer and classifier trained on all training crops (hyperparameters by
inner validation)."""

from _bootstrap import setup

log = setup(snakemake)  # noqa: F821 - injected by Snakemake
smk = snakemake  # noqa: F821


from featurize.io import write_tsv_atomic  # noqa: E402
from featurize.scenes import detect_scenes, load_test_scenes  # noqa: E402
from featurize.vision import CarPartFeaturizer, load_crops  # noqa: E402
from models.reduce import present_features  # noqa: E402
from models.registry import get_method  # noqa: E402
from models.selection import select_params  # noqa: E402

method = smk.wildcards.method
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
log.info("%s trained on %d crops, params %s", method, len(y), params)
scenes, truths, names = load_test_scenes(smk.input.data)
det = detect_scenes(scenes, f, lambda A: est.decision_function(A[:, keep]), stride=smk.params.stride,
                    nms_radius=tuple(smk.params.nms_radius), progress=log.info)
det.insert(1, "name", [names[k] for k in det["scene"]])
write_tsv_atomic(det, smk.output[0])
