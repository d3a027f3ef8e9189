"""Figures of the results: accuracy with ROC curves of a cross-validation,
and precision-recall curves of the scene detection. Each is written
atomically to a PNG.
"""

from __future__ import annotations

import os
from typing import Mapping

import numpy as np
import pandas as pd

from geomargin.report.tables import method_label, sem

__all__ = ["plot_accuracy", "plot_precision_recall"]


def plot_accuracy(results: Mapping[str, object], y, path: str | os.PathLike, title: str = "") -> None:
    """Bar chart of accuracy (mean +- SEM over folds) and pooled out-of-fold
    ROC curves, written atomically to ``path`` (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from sklearn.metrics import roc_auc_score, roc_curve

    from geomargin.common.io import atomic_path

    y = np.asarray(y)
    methods = list(results)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    means = [results[m].folds["accuracy"].mean() for m in methods]
    errs = [sem(results[m].folds["accuracy"]) for m in methods]
    colors = ["tab:red" if m in ("geometric", "avg_w") else "tab:gray" for m in methods]
    ax1.bar(range(len(methods)), means, yerr=errs, color=colors, capsize=3)
    ax1.set_xticks(range(len(methods)), [method_label(m) for m in methods], rotation=45, ha="right")
    ax1.set_ylabel("test accuracy (mean ± SEM over folds)")
    lo = max(0.0, min(means) - 0.1)
    ax1.set_ylim(lo, min(1.0, max(means) + 0.05))
    ax1.axhline(0.5, color="k", lw=0.5, ls=":")
    for m in methods:
        score = results[m].oof_score
        fpr, tpr, _ = roc_curve(y, score)
        ax2.plot(fpr, tpr, lw=2 if m == "geometric" else 1,
                 label=f"{method_label(m)} (AUC {roc_auc_score(y, score):.3f})")
    ax2.plot([0, 1], [0, 1], "k:", lw=0.5)
    ax2.set_xlabel("false positive rate")
    ax2.set_ylabel("true positive rate")
    ax2.legend(fontsize=7, loc="lower right")
    ax2.set_title("pooled out-of-fold ROC")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    with atomic_path(path, suffix=".png") as tmp:
        fig.savefig(tmp, dpi=120)
    plt.close(fig)


def plot_precision_recall(curves: Mapping[str, pd.DataFrame], path: str | os.PathLike,
                          reference: Mapping[str, float] | None = None, title: str = "") -> None:
    """Recall against 1 - precision per method, over the whole range and
    zoomed on the top-left corner where the detectors differ, written
    atomically to ``path`` (PNG).

    ``curves[method]`` has columns ``precision``, ``recall``,
    ``recall_at_eer`` and ``average_precision`` (``precision_recall`` plus
    the two summaries); ``reference`` maps a published detector to its
    recall at EER (horizontal lines). The zoom spans recall from 0.05 below
    the lowest recall at EER among the methods within 0.2 of the best (a
    multiple of 0.05) to 1, and 1 - precision from 0 to the same width.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from geomargin.common.io import atomic_path

    reference = dict(reference or {})
    methods = list(curves)
    # tab10 without its grey (kept for the published references), then more
    colors = [c for i, c in enumerate(plt.get_cmap("tab10").colors) if i != 7]
    colors += ["navy", "olive", "maroon", "teal", "black"]
    styles = ("-", "--", "-.", ":")
    eers = [float(curves[m]["recall_at_eer"].iloc[0]) for m in methods]
    # zoom on the competitive methods (recall at EER within 0.2 of the best);
    # the others stay in the full view
    near = [e for e in eers if e >= max(eers, default=0.9) - 0.2]
    lo = max(0.0, np.floor((min(near, default=0.9) - 0.05) * 20) / 20)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.8))
    for ax, zoom in zip(axes, (False, True)):
        for i, m in enumerate(methods):
            c = curves[m]
            ax.plot(1 - c["precision"], c["recall"], color=colors[i % len(colors)], ls=styles[i % len(styles)],
                    lw=2 if m == "geometric" else 1.2,
                    label=f"{method_label(m)} (EER {eers[i]:.3f}, AP {float(c['average_precision'].iloc[0]):.3f})")
        for (name, value), ls in zip(reference.items(), (":", "--", "-.")):
            ax.axhline(value, ls=ls, c="grey", lw=1.5, alpha=0.8, label=f"{name}: EER recall {value}")
        if zoom:
            ax.plot([0, 1 - lo], [1, lo], c="k", lw=0.5, label="equal error (recall = precision)")
            ax.set_xlim(0, 1 - lo)
            ax.set_ylim(lo, 1.005)
            ax.set_title(f"zoom: recall {lo:.2f}-1", fontsize=9)
        else:
            ax.set_xlim(0, 1)
            ax.set_ylim(0, 1.01)
            ax.set_title("all thresholds", fontsize=9)
        ax.set_xlabel("1 - precision")
        ax.set_ylabel("recall")
        ax.grid(alpha=0.3)
    handles, labels = axes[1].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    with atomic_path(path, suffix=".png") as tmp:
        fig.savefig(tmp, dpi=120, bbox_inches="tight")
    plt.close(fig)


def plot_reliability(tables: Mapping[str, pd.DataFrame], path: str | os.PathLike, title: str = "") -> None:
    """Reliability diagram: per bin of confidence, the share of true genes
    against the mean confidence, one line per checked set (``tables[label]``:
    :func:`geomargin.rank.calibration_check.reliability_table`, the label including its ECE),
    point areas by rows, and the diagonal of perfect calibration; written
    atomically to ``path`` (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from geomargin.common.io import atomic_path

    fig, ax = plt.subplots(figsize=(5.6, 5.2))
    ax.plot([0, 1], [0, 1], c="grey", lw=1, ls=":", label="perfect calibration")
    colors = plt.get_cmap("tab10").colors
    for i, (label, t) in enumerate(tables.items()):
        if not len(t):
            continue
        size = 20 + 180 * np.sqrt(t["rows"].to_numpy() / max(float(t["rows"].max()), 1.0))
        ax.plot(t["mean_confidence"], t["frequency"], c=colors[i % 10], lw=1.2, label=label)
        ax.scatter(t["mean_confidence"], t["frequency"], s=size, c=[colors[i % 10]], alpha=0.6)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("confidence (mean in bin)")
    ax.set_ylabel("share of true genes in bin")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    with atomic_path(path, suffix=".png") as tmp:
        fig.savefig(tmp, dpi=120, format="png")
    plt.close(fig)
