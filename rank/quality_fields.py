"""Fields of the ranking's quality table that the final ranking computes from
its shown rows: how the ranking was chosen (:func:`chosen_by`), the first
candidates that rest on thin support (:func:`thin_support_fields`), and the
first candidates without network evidence beside what the validation says
of such rows (:func:`without_network_evidence_fields`). Each field is
described in ``docs/outputs.md``."""

from __future__ import annotations

import numpy as np
import pandas as pd

from geomargin.rank.calibration import THIN_SUPPORT, without_network_first_share, without_network_evidence

__all__ = ["chosen_by", "thin_first", "thin_support_fields", "without_network_evidence_fields"]


def chosen_by(method_setting: str, history=None) -> str:
    """The quality table's ``chosen_by``: "auto" or "config" (the config's
    ``metabolic.ranking.method``), and with a release history
    (:class:`~geomargin.rank.history.HistoryModel`) what it was chosen on
    and by.

    >>> chosen_by("auto"), chosen_by("hgb")
    ('auto (best validated MRR)', 'config')
    """
    setting = "auto" if method_setting == "auto" else "config"
    if history is not None:
        return f"{setting}, on {history.choice['chosen_on']}: {history.choice['chosen_by']}"
    return "auto (best validated MRR)" if setting == "auto" else "config"


def thin_first(top: pd.DataFrame) -> np.ndarray:
    """Which shown rows are a first listed candidate (``rank == 1``) backed by
    fewer than :data:`~geomargin.rank.calibration.THIN_SUPPORT` held-out
    cases like it (``held_out_like``).

    >>> thin_first(pd.DataFrame({"rank": [1, 2, 1], "held_out_like": [3.0, 1.0, 50.0]})).tolist()
    [True, False, False]
    """
    return (top["rank"] == 1).to_numpy() & (top["held_out_like"] < THIN_SUPPORT).to_numpy()


def thin_support_fields(top: pd.DataFrame, calibrated: bool) -> dict:
    """``orphan_top1_thin_support``: how many orphans' first listed
    candidate (``rank == 1``) is backed by fewer than
    :data:`~geomargin.rank.calibration.THIN_SUPPORT` held-out cases like it
    (``held_out_like``; NaN without a calibrator), and
    ``orphan_top1_thin_support_confidence``, their mean confidence (NaN
    when there is none).

    >>> top = pd.DataFrame({"rank": [1, 2, 1], "held_out_like": [3.0, 1.0, 50.0], "confidence": [0.2, 0.1, 0.4]})
    >>> thin_support_fields(top, True)
    {'orphan_top1_thin_support': 1, 'orphan_top1_thin_support_confidence': 0.2}
    """
    thin = thin_first(top)
    return {"orphan_top1_thin_support": int(thin.sum()) if calibrated else float("nan"),
            "orphan_top1_thin_support_confidence": float(top.loc[thin, "confidence"].mean())
            if thin.any() else float("nan")}


def without_network_evidence_fields(top: pd.DataFrame, shown: pd.DataFrame, cv_rows: pd.DataFrame, cv_first,
                                    fold_group, calibrator) -> dict:
    """The orphans' first candidates without network evidence (no related,
    subsystem or similar-compound reaction) beside the validation's.

    ``top`` holds the orphans' shown rows (``rank``, ``confidence``) and
    ``shown`` their calibration rows, row for row. ``cv_rows`` are the
    validation's calibration rows and ``cv_first`` marks each held-out
    reaction's first listed row (in the order the ranking is listed);
    ``fold_group`` weighs each fold group once. ``calibrator``
    (None: the ranking is not calibrated) gives each pattern's validated
    share right (``cell_values(rows, "share")``).

    Returns the fields ``orphan_top1_without_network_evidence`` (how many),
    ``..._max_confidence``, ``validated_top1_without_network_evidence`` and
    ``..._true_share`` (:func:`~geomargin.rank.calibration.without_network_first_share`)
    and ``orphan_top1_without_network_evidence_above_validated``: how many
    have a confidence above their kind and pattern's validated share.
    """
    n_cv, cv_share = without_network_first_share(cv_rows, cv_first, fold_group) if len(cv_rows) else (0, np.nan)
    orphan = shown[(top["rank"] == 1).to_numpy() & without_network_evidence(shown)]
    confidence = top.loc[orphan.index, "confidence"]
    if calibrator is None or not len(orphan):
        above = float("nan") if calibrator is None else 0
    else:
        above = int((confidence.to_numpy() > calibrator.cell_values(orphan, "share") + 1e-12).sum())
    return {"orphan_top1_without_network_evidence": len(orphan),
            "orphan_top1_without_network_evidence_max_confidence":
                float(confidence.max()) if len(orphan) else float("nan"),
            "validated_top1_without_network_evidence": n_cv,
            "validated_top1_without_network_evidence_true_share": float("nan") if calibrator is None else cv_share,
            "orphan_top1_without_network_evidence_above_validated": above}
