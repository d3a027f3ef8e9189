"""Precision/recall per threshold, recall at equal error rate and average
precision per method, with the criteria of the dataset's evaluators
(``Evaluator.java``: top-left ellipse; with ``multiscale``
``Evaluator_Scale.java``: ellipsoid over window centre and width;
``detect.evaluation.match_detections``); precision-recall
plot of every method beside the published equal-error recalls."""

import pandas as pd

from geomargin.common.io import write_tsv_atomic
from geomargin.report.figures import plot_precision_recall
from geomargin.detect.evaluation import average_precision, equal_error_recall, load_test_scenes, precision_recall

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake

multi = bool(smk.params.multiscale)
# published recall at EER on this test set (Agarwal & Roth 2004; Mutch & Lowe 2006; docs/vision.md)
PUBLISHED = {"Agarwal & Roth 2004": 0.40 if multi else 0.77, "Mutch & Lowe 2006": 0.906 if multi else 0.999}
_, truths, _ = load_test_scenes(smk.input.data, scale=multi)
parts = {}
for method, path in zip(smk.params.methods, smk.input.detections):
    det = pd.read_csv(path, sep="\t")
    curve = precision_recall(det, truths, smk.params.tolerance)
    eer, ap = equal_error_recall(curve), average_precision(curve)
    curve.insert(0, "method", method)
    curve["recall_at_eer"] = eer
    curve["average_precision"] = ap
    parts[method] = curve
    log.info("%s: recall at EER %.3f, average precision %.3f", method, eer, ap)
write_tsv_atomic(pd.concat(parts.values(), ignore_index=True), smk.output.table)
n_cars = sum(len(t) for t in truths)
title = f"{'Multi' if multi else 'Single'}-scale UIUC test set ({len(truths)} scenes, {n_cars} cars)"
plot_precision_recall(parts, smk.output.plot, reference=PUBLISHED, title=title)
