"""MCAR benchmark summary: accuracy / ROC AUC mean +- SEM over all outer
folds (partitions x folds) and mean fit seconds, per dataset, scenario and
method; grouped bar chart."""

from types import SimpleNamespace

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from geomargin.common.io import atomic_path, write_tsv_atomic
from geomargin.models.registry import get_method
from geomargin.report.tables import accuracy_table

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake
matplotlib.use("Agg")

info = {}
for path, (ds, sc) in zip(smk.input.data, smk.params.jobs):
    d = np.load(path, allow_pickle=False)
    info[(ds, sc)] = {"missing_fraction": float(d["missing_fraction"]),
                      "observed_fraction": float(d["observed_fraction"]),
                      "n_instances": d["X"].shape[1], "n_features": d["X"].shape[2]}
folds = pd.concat([pd.read_csv(p, sep="\t") for p in smk.input.folds], ignore_index=True)
parts = []
for (ds, sc) in smk.params.jobs:
    cell = folds[(folds["dataset"] == ds) & (folds["scenario"] == sc)]
    per_method = {m: SimpleNamespace(folds=cell[cell["method"] == m]) for m in smk.params.methods}
    # the columns of every accuracy table (report.tables.accuracy_table)
    t = accuracy_table(per_method, n_instances=info[(ds, sc)]["n_instances"],
                       n_features=info[(ds, sc)]["n_features"])
    t.insert(0, "scenario", sc)
    t.insert(0, "dataset", ds)
    t["missing_fraction"] = info[(ds, sc)]["missing_fraction"]
    t["observed_fraction"] = info[(ds, sc)]["observed_fraction"]
    t["select_seconds_mean"] = [per_method[m].folds["select_seconds"].mean() for m in t["method"]]
    t["n_partitions"] = [per_method[m].folds["partition"].nunique() for m in t["method"]]
    parts.append(t)
table = pd.concat(parts, ignore_index=True)
num = table.select_dtypes("float").columns
table[num] = table[num].round(4)
log.info("\n%s", table.to_string(index=False))
write_tsv_atomic(table, smk.output.table)

methods = list(smk.params.methods)
groups = list(smk.params.jobs)
width = 0.8 / len(methods)
cmap = plt.get_cmap("tab20")
fig, ax = plt.subplots(figsize=(max(8, 1.6 * len(groups) + 3), 4.8))
for k, m in enumerate(methods):
    t = table[table["method"] == m].set_index(["dataset", "scenario"]).loc[groups]
    ax.bar(np.arange(len(groups)) + (k - (len(methods) - 1) / 2) * width, t["accuracy_mean"],
           width, yerr=t["accuracy_sem"], capsize=1.5, color=cmap(k % 20),
           label=get_method(m).label, edgecolor="k", linewidth=0.3)
ax.set_xticks(range(len(groups)), [f"{ds}\n{sc}" for ds, sc in groups])
lo = max(0.0, float(np.nanmin(table["accuracy_mean"])) - 0.05)
ax.set_ylim(lo, 1.0)
ax.set_ylabel("test accuracy (mean ± SEM over folds)")
ax.set_title("Missing completely at random: mcarNN = NN% of features removed per instance, "
             "patchNN = square patch of NN% of pixels", fontsize=9)
ax.legend(fontsize=7, ncol=1, loc="center left", bbox_to_anchor=(1.0, 0.5))
fig.tight_layout()
with atomic_path(smk.output.plot, suffix=".png") as tmp:
    fig.savefig(tmp, dpi=120)
plt.close(fig)
