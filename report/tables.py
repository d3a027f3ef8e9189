"""Summaries of cross-validation results: the accuracy table.

Used by every comparison in the workflow (enzyme-gene pairs, cars, MCAR), so
that all of them report the same columns the same way; its figures are in
:mod:`geomargin.report.figures`.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd

__all__ = ["sem", "method_label", "accuracy_table"]


def sem(values) -> float:
    """Standard error of the mean (``ddof=1``); 0 for fewer than two values.

    Examples
    --------
    >>> round(sem([1.0, 2.0, 3.0]), 6)
    0.57735
    """
    v = np.asarray(values, dtype=float)
    v = v[~np.isnan(v)]
    return float(v.std(ddof=1) / np.sqrt(v.size)) if v.size > 1 else 0.0


def method_label(method: str) -> str:
    """The method's label in tables and figures (its registry label; an
    unknown method is its own label).

    Examples
    --------
    >>> method_label("not_a_registered_method")
    'not_a_registered_method'
    """
    try:
        from geomargin.models.registry import get_method

        return get_method(method).label
    except Exception:  # a method added by the caller, unknown to the registry
        return method


def accuracy_table(results: Mapping[str, object], n_instances: int, n_features: int) -> pd.DataFrame:
    """One row per method: accuracy, test error and ROC AUC as mean and SEM
    over the outer folds, mean fit seconds, instance and feature counts.

    ``results`` maps a method name to an object with a ``folds`` DataFrame
    holding ``accuracy``, ``roc_auc`` and ``fit_seconds`` per fold (the
    result of :func:`geomargin.models.selection.nested_cross_validate`).
    """
    rows = []
    for method, res in results.items():
        f = res.folds
        rows.append(
            {
                "method": method,
                "label": method_label(method),
                "accuracy_mean": f["accuracy"].mean(),
                "accuracy_sem": sem(f["accuracy"]),
                "test_error_mean": 1.0 - f["accuracy"].mean(),
                "roc_auc_mean": f["roc_auc"].mean(),
                "roc_auc_sem": sem(f["roc_auc"]),
                "fit_seconds_mean": f["fit_seconds"].mean(),
                "n_folds": len(f),
                "n_instances": int(n_instances),
                "n_features": int(n_features),
            }
        )
    table = pd.DataFrame(rows)
    num = table.select_dtypes("float").columns
    table[num] = table[num].round(4)
    return table
