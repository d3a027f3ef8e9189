"""The check of a confidence against labels it never saw: the expected
calibration error over equal-width bins of confidence [1]_
(:func:`expected_calibration_error`), the reliability table
(:func:`reliability_table`), the check table of a ranking's confidences per
reaction kind (:func:`check_table`), and the lower end of the Wilson score
interval [2]_ (:func:`wilson_lower`) that caps the confidence.

References
----------
.. [1] C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger, "On calibration of
   modern neural networks", ICML 2017.
.. [2] E. B. Wilson, "Probable inference, the law of succession, and
   statistical inference", J. Am. Stat. Assoc. 22, 209-212, 1927.
"""

from __future__ import annotations


import numpy as np
import pandas as pd

from geomargin.common.checks import check_param, int_at_least
from geomargin.rank.credible import best_per_reaction


__all__ = ["expected_calibration_error", "reliability_table", "CHECK_COLUMNS", "check_table", "wilson_lower"]


def wilson_lower(share: float, n: float, z: float = 1.959963984540054) -> float:
    """Lower end of the Wilson score interval [2]_ of a proportion ``share``
    observed over ``n`` cases (0 when ``n`` is 0).

    >>> round(wilson_lower(0.5, 10), 4), round(wilson_lower(1.0, 3), 4), wilson_lower(0.3, 0)
    (0.2366, 0.4385, 0.0)
    """
    return float(_wilson_lower(np.array([share], dtype=np.float64), np.array([n], dtype=np.float64), z)[0])


def _wilson_lower(share: np.ndarray, n: np.ndarray, z: float = 1.959963984540054) -> np.ndarray:
    """:func:`wilson_lower` of arrays of shares and sizes."""
    out = np.zeros(len(share))
    m = n > 0
    s, k = share[m], n[m]
    centre = s + z * z / (2 * k)
    half = z * np.sqrt(s * (1 - s) / k + z * z / (4 * k * k))
    out[m] = np.maximum(0.0, (centre - half) / (1 + z * z / k))
    return out


def expected_calibration_error(y, p, n_bins: int = 10, sample_weight=None) -> float:
    """Expected calibration error: over ``n_bins`` equal-width bins of ``p``
    on [0, 1] (the last bin closed), the mean of ``|mean p - share of y|``
    weighted by the bins' rows [1]_ (or by their ``sample_weight``, which
    also weighs the means).

    >>> expected_calibration_error([0, 1, 0, 1], [0.5, 0.5, 0.0, 1.0])
    0.0
    >>> expected_calibration_error([0, 0], [0.3, 0.3])
    0.3
    >>> expected_calibration_error([0, 1, 1], [0.3, 0.3, 0.3], sample_weight=[2, 1, 1])
    0.2
    """
    n_bins = check_param("expected_calibration_error", "n_bins", n_bins, *int_at_least(1))
    y, p = np.asarray(y, dtype=np.float64).reshape(-1), np.asarray(p, dtype=np.float64).reshape(-1)
    _check_probabilities(y, p)
    if not len(p):
        return float("nan")
    t = reliability_table(y, p, n_bins, sample_weight=sample_weight)
    return float(round((t["weight"] * (t["mean_confidence"] - t["frequency"]).abs()).sum() / t["weight"].sum(), 12))


def reliability_table(y, p, n_bins: int = 10, sample_weight=None) -> pd.DataFrame:
    """One row per non-empty bin of ``p`` (equal width on [0, 1]): ``bin_lo``,
    ``bin_hi``, ``rows``, ``weight`` (the sum of ``sample_weight``; = rows
    without), ``mean_confidence``, ``frequency`` (share of ``y`` = 1;
    both weighted), the points of a reliability diagram.

    >>> reliability_table([0, 1, 1], [0.05, 0.95, 1.0], n_bins=2)[["rows", "frequency"]].values.tolist()
    [[1.0, 0.0], [2.0, 1.0]]
    """
    n_bins = check_param("reliability_table", "n_bins", n_bins, *int_at_least(1))
    y, p = np.asarray(y, dtype=np.float64).reshape(-1), np.asarray(p, dtype=np.float64).reshape(-1)
    _check_probabilities(y, p)
    w = np.ones(len(p)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64).reshape(-1)
    if w.shape != p.shape or not np.isfinite(w).all() or (w <= 0).any():
        raise ValueError(f"calibration check: sample_weight must hold {len(p)} finite weights > 0")
    which = np.minimum((p * n_bins).astype(int), n_bins - 1)
    out = []
    for b in range(n_bins):
        m = which == b
        if m.any():
            out.append({"bin_lo": b / n_bins, "bin_hi": (b + 1) / n_bins, "rows": float(m.sum()),
                        "weight": float(w[m].sum()), "mean_confidence": float(np.average(p[m], weights=w[m])),
                        "frequency": float(np.average(y[m], weights=w[m]))})
    return pd.DataFrame(out, columns=["bin_lo", "bin_hi", "rows", "weight", "mean_confidence", "frequency"])


def _check_probabilities(y: np.ndarray, p: np.ndarray) -> None:
    if y.shape != p.shape:
        raise ValueError(f"calibration check: {len(y)} labels but {len(p)} probabilities")
    if len(p) and (np.isnan(p).any() or p.min() < 0 or p.max() > 1):
        raise ValueError("calibration check: probabilities must lie in [0, 1]")
    if len(y) and not np.isin(y, (0.0, 1.0)).all():
        raise ValueError("calibration check: labels must be 0 or 1")


#: Columns of :func:`check_table` (``calibration.tsv``, ``time_split_calibration.tsv``).
CHECK_COLUMNS = ["ranking", "check", "reaction_kind", "reactions", "rows", "true_gene_rows", "mean_confidence",
                 "true_gene_share", "ece", "ece_best", "brier", "threshold", "threshold_rule", "credible_reactions",
                 "credible_top1_is_true", "all_top1_is_true"]


def check_table(rows: pd.DataFrame, confidence, threshold: float, *, check: str, ranking: str,
                threshold_rule: str = "") -> pd.DataFrame:
    """The check of confidences ``confidence`` (one per row of ``rows``: a
    calibrator that never saw their labels) against the rows' ``label``:
    one row for all reactions, then one per reaction kind, with ``rows``,
    ``reactions``, ``true_gene_rows``, ``mean_confidence``,
    ``true_gene_share``, ``ece`` (:func:`expected_calibration_error` over
    the rows), ``ece_best`` (the same over each reaction's most confident
    candidate: the one the flag reads), ``brier``, the ``threshold``, ``credible_reactions`` (best confidence at
    or above it), and how often the rank-1 candidate is a true gene for
    those (``credible_top1_is_true``) and for every reaction
    (``all_top1_is_true``).

    >>> rows = pd.DataFrame({"reaction": ["a", "a", "b", "b"], "rank": [1, 2, 1, 2], "label": [1, 0, 0, 1],
    ...                      "reaction_kind": "transport"})
    >>> t = check_table(rows, [0.6, 0.1, 0.2, 0.1], 0.5, check="toy", ranking="m")
    >>> t[["reaction_kind", "credible_reactions", "credible_top1_is_true", "all_top1_is_true"]].values.tolist()
    [['all', 1, 1.0, 0.5], ['transport', 1, 1.0, 0.5]]
    """
    conf = np.asarray(confidence, dtype=np.float64)
    label = rows["label"].to_numpy(dtype=np.float64)
    w = rows["weight"].to_numpy(dtype=np.float64) if "weight" in rows.columns else np.ones(len(rows))
    kinds = rows["reaction_kind"].astype(str).to_numpy()
    best = best_per_reaction(rows, conf).set_index("reaction")
    top1 = rows.loc[rows["rank"] == 1].set_index("reaction")["label"]

    def mean(x, wt):
        return float(np.average(x, weights=wt)) if len(x) else np.nan
    out = []
    for scope in ["all", *sorted(set(kinds))]:
        m = np.ones(len(rows), dtype=bool) if scope == "all" else kinds == scope
        b = best if scope == "all" else best[best["reaction_kind"] == scope]
        cred = (b["confidence"] >= threshold).to_numpy()
        t1 = top1.reindex(b.index).fillna(0).to_numpy(dtype=np.float64)
        bw = b["weight"].to_numpy(dtype=np.float64)
        out.append({
            "ranking": ranking, "check": check, "reaction_kind": scope, "reactions": len(b),
            "rows": int(m.sum()), "true_gene_rows": int(label[m].sum()),
            "mean_confidence": mean(conf[m], w[m]), "true_gene_share": mean(label[m], w[m]),
            "ece": expected_calibration_error(label[m], conf[m], sample_weight=w[m]) if m.any() else np.nan,
            "ece_best": expected_calibration_error(b["label"], b["confidence"], sample_weight=bw)
            if len(b) else np.nan,
            "brier": mean((conf[m] - label[m]) ** 2, w[m]),
            "threshold": float(threshold), "threshold_rule": threshold_rule,
            "credible_reactions": int(cred.sum()),
            "credible_top1_is_true": mean(t1[cred], bw[cred]), "all_top1_is_true": mean(t1, bw)})
    return pd.DataFrame(out, columns=CHECK_COLUMNS)
