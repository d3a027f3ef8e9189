"""Rank every candidate gene for the held-out reactions with known genes, with
each method's outer-fold models and the non-learned baselines
(rank/validation.py), and write the ranks of the true genes, the rank-1
genes, the calibration rows of the ranking the final step uses (its shown
candidates of every held-out reaction) and the summary table with bootstrap
intervals."""


import pandas as pd

from geomargin.common.io import load_pickle, write_tsv_atomic
from geomargin.featurize.metabolic.bundle import FeatureBundle
from geomargin.rank.validation import validate_ranking

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake

p = smk.params
bundle = FeatureBundle.load(smk.input.featurizer)
instances = pd.read_csv(smk.input.instances, sep="\t")
cvs = {}
for method, path in zip(p.methods, smk.input.cv):
    cvs[method] = load_pickle(path)

ranks, tops, table, calibration = validate_ranking(
    bundle.featurizer, bundle.network, bundle.candidates, instances, cvs,
    margin_rule=p.margin_rule, gene_corrections=p.gene_corrections, per_fold=p.per_fold,
    batch_size=p.batch_size, n_bootstrap=p.n_bootstrap, seed=p.seed, n_jobs=smk.threads, log=log,
    calibration_top_n=p.top_n, calibrate=p.method)
write_tsv_atomic(ranks, smk.output.ranks)
write_tsv_atomic(tops, smk.output.tops)
write_tsv_atomic(calibration, smk.output.calibration_rows)
write_tsv_atomic(table.round(4), smk.output.table)
