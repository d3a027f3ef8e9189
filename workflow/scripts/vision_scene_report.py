"""Precision/recall per threshold and recall at equal error rate per method,
with the README's criteria; recall-precision plot."""

from _bootstrap import setup

log = setup(snakemake)  # noqa: F821 - injected by Snakemake
smk = snakemake  # noqa: F821

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from featurize.io import atomic_path, write_tsv_atomic  # noqa: E402
from featurize.scenes import equal_error_recall, load_test_scenes, precision_recall  # noqa: E402

_, truths, _ = load_test_scenes(smk.input.data)
parts = []
fig, ax = plt.subplots(figsize=(4.5, 4))
for method, path in zip(smk.params.methods, smk.input.detections):
    det = pd.read_csv(path, sep="\t")
    curve = precision_recall(det, truths, smk.params.tolerance)
    eer = equal_error_recall(curve)
    curve.insert(0, "method", method)
    curve["recall_at_eer"] = eer
    parts.append(curve)
    ax.plot(1 - curve["precision"], curve["recall"], label=f"{method} (EER recall {eer:.2f})")
    log.info("%s: recall at EER %.3f", method, eer)
write_tsv_atomic(pd.concat(parts, ignore_index=True), smk.output.table)
ax.set_xlabel("1 - precision")
ax.set_ylabel("recall")
ax.axhline(0.77, ls=":", c="grey", label="Agarwal & Roth (~0.77)")
ax.legend(fontsize=7)
fig.tight_layout()
with atomic_path(smk.output.plot, ".png") as tmp:
    fig.savefig(tmp, dpi=120)
