"""Precision/recall per threshold, recall at equal error rate and average
precision per method, with the criteria of the dataset's evaluators
(``Evaluator.java``: top-left ellipse; with ``multiscale``
``Evaluator_Scale.java``: ellipsoid over window centre and width;
``models.vision.detection.match_detections``); precision-recall
plot of every method beside the published equal-error recalls."""

import matplotlib
import matplotlib.pyplot as plt
import pandas as pd

from common.io import atomic_path, write_tsv_atomic
from models.vision.detection import (
    average_precision,
    equal_error_recall,
    load_test_scenes,
    precision_recall,
)

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake
matplotlib.use("Agg")

multi = bool(smk.params.multiscale)
# published recall at EER on this test set (README, "Scene detection")
PUBLISHED = {"Agarwal & Roth 2004": 0.40 if multi else 0.77, "Mutch & Lowe 2006": 0.906 if multi else 0.999}
_, truths, _ = load_test_scenes(smk.input.data, scale=multi)
parts = []
fig, ax = plt.subplots(figsize=(5.5, 4.5))
for method, path in zip(smk.params.methods, smk.input.detections):
    det = pd.read_csv(path, sep="\t")
    curve = precision_recall(det, truths, smk.params.tolerance)
    eer, ap = equal_error_recall(curve), average_precision(curve)
    curve.insert(0, "method", method)
    curve["recall_at_eer"] = eer
    curve["average_precision"] = ap
    parts.append(curve)
    ax.plot(1 - curve["precision"], curve["recall"], lw=1, label=f"{method} (EER {eer:.3f}, AP {ap:.3f})")
    log.info("%s: recall at EER %.3f, average precision %.3f", method, eer, ap)
write_tsv_atomic(pd.concat(parts, ignore_index=True), smk.output.table)
for (name, value), ls in zip(PUBLISHED.items(), (":", "--")):
    ax.axhline(value, ls=ls, c="grey", lw=1, label=f"{name}, EER recall {value}")
ax.set_xlabel("1 - precision")
ax.set_ylabel("recall")
ax.set_xlim(0, 1)
ax.set_ylim(0, 1.01)
n_cars = sum(len(t) for t in truths)
ax.set_title(f"{'Multi' if multi else 'Single'}-scale UIUC test set ({len(truths)} scenes, {n_cars} cars)", fontsize=9)
ax.legend(fontsize=6, loc="lower right")
fig.tight_layout()
with atomic_path(smk.output.plot, ".png") as tmp:
    fig.savefig(tmp, dpi=120)
