"""Accuracy table and bar chart of every method (mean +- SEM over folds),
beside the figures of Chechik et al. (their own image set, test error)."""

from types import SimpleNamespace

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from geomargin.common.io import atomic_path, write_tsv_atomic
from geomargin.report.tables import accuracy_table

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake
matplotlib.use("Agg")

PAPER_ERROR = {"geometric": 0.276, "zero": 0.392, "mean": 0.386, "flags": 0.405, "knn": 0.483, "em": 0.383}
folds = {m: pd.read_csv(p, sep="\t") for m, p in zip(smk.params.methods, smk.input)}
# the columns of every accuracy table (report.tables.accuracy_table; n_features:
# the featurizer's layout), plus the features kept after the
# min_present_fraction filter and the paper's figure
table = accuracy_table({m: SimpleNamespace(folds=f) for m, f in folds.items()},
                       n_instances=int(next(iter(folds.values()))["n_test"].sum()),
                       n_features=int(next(iter(folds.values()))["n_features"].max()))
table["n_features_used_mean"] = [folds[m]["n_features_used"].mean() for m in table["method"]]
table["paper_accuracy"] = [1 - PAPER_ERROR[m] if m in PAPER_ERROR else np.nan for m in table["method"]]
write_tsv_atomic(table, smk.output.table)
# horizontal bars: the method labels are long
fig, ax = plt.subplots(figsize=(7.5, 1.2 + 0.42 * len(table)))
pos = np.arange(len(table))[::-1]
ax.barh(pos + 0.2, table["accuracy_mean"], 0.4, xerr=table["accuracy_sem"], label="ours (UIUC cars)")
ax.barh(pos - 0.2, table["paper_accuracy"], 0.4, label="Chechik et al. (own images)", alpha=0.6)
ax.set_yticks(pos, table["label"])
ax.set_xlabel("accuracy (5-fold CV, mean +- SEM)")
ax.set_xlim(0.4, 1.0)
ax.grid(axis="x", alpha=0.3)
ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.4, -0.09), ncol=2)
fig.tight_layout()
with atomic_path(smk.output.plot, ".png") as tmp:
    fig.savefig(tmp, dpi=120)
log.info("\n%s", table.to_string(index=False))
