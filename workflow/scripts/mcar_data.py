"""One (dataset, scenario) of the MCAR benchmark: the features after the
seeded removal, one copy per random partition (the removal is redrawn with
seed*100 + partition), standardised over observed entries."""

import numpy as np

from geomargin.common.io import save_npz_atomic
from geomargin.featurize.tabular.datasets import load_dataset
from geomargin.featurize.tabular.missingness import apply_scenario, parse_scenario

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake

name, scenario = smk.wildcards.mcar_ds, smk.wildcards.mcar_sc
ds = load_dataset(name, smk.input[0])
kind, fraction = parse_scenario(scenario)
seeds = np.array([smk.params.seed * 100 + p for p in range(smk.params.n_partitions)])
X = np.stack([apply_scenario(ds, scenario, seed=int(s)) for s in seeds])
observed = float(np.mean(~np.isnan(X)))
log.info("%s %s: %d instances x %d features, %d partitions, observed fraction %.3f "
         "(before removal %.3f), classes %s (positives %d)", name, scenario, *ds.X.shape,
         len(seeds), observed, float(np.mean(~np.isnan(ds.X))), ds.class_names, int(ds.y.sum()))
save_npz_atomic(smk.output[0], X=X, y=ds.y, seeds=seeds, missing_fraction=np.float64(fraction),
                observed_fraction=np.float64(observed),
                feature_names=np.array(ds.feature_names, dtype=str))
