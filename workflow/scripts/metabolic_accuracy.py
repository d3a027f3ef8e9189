"""Accuracy and ROC AUC of every method (mean +- SEM over folds), bar chart
with SEM error bars and pooled out-of-fold ROC curves."""

import dataclasses


from geomargin.common.io import load_npz, load_pickle, write_tsv_atomic
from geomargin.report.figures import plot_accuracy
from geomargin.report.tables import accuracy_table

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake

data = load_npz(smk.input.features, allow_pickle=False)
results = {}
for method, path in zip(smk.params.methods, smk.input.cv):
    # the fold models (support vectors, imputers) are not needed here:
    # drop them at once, so memory holds one method's models at a time
    results[method] = dataclasses.replace(load_pickle(path), models=[])
table = accuracy_table(results, n_instances=data["X"].shape[0], n_features=data["X"].shape[1])
log.info("\n%s", table.to_string(index=False))
write_tsv_atomic(table, smk.output.table)
plot_accuracy(results, data["y"], smk.output.plot, title="Enzyme-gene pairs")
