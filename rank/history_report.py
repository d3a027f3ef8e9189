"""The release history's test pair, scored exactly as the history is with
what the history alone chose (:func:`score_test_split`): every ranking's
figures, and the confidence checked on the first candidates
(:func:`check_test_confidence`); and the quality table's leading columns
(:func:`history_quality_columns`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from geomargin.rank.history import HistoryModel, labelled_rows, score_order_rows
from geomargin.rank.time_split import bootstrap_counts, reaction_clusters

__all__ = ["check_test_confidence", "score_test_split", "history_quality_columns"]


def check_test_confidence(first: pd.DataFrame, threshold: float, *, n_boot: int = 1000, seed: int = 0,
                          ece_bins: int = 10) -> dict:
    """The confidence on the test split's first candidates.

    ``first`` has one row per ranked test benchmark reaction: ``confidence``
    (of its rank-1 row, from a calibrator that never saw the test) and
    ``label`` (a later gene is first), and optionally ``reaction``: the
    bootstrap then resamples model reactions, both directions of one
    together (:func:`geomargin.rank.time_split.reaction_clusters`). Returns

    - ``rank1_rows``, ``rank1_mean_confidence``, ``rank1_later_gene_share``
      and ``rank1_confidence_over_share``, the share and the ratio with a
      95% percentile bootstrap interval over reactions (``_lo``/``_hi``; the
      ratio's upper end is ``inf`` when a resample has no later gene first);
    - ``rank1_ece`` and what a perfectly calibrated confidence would show on
      the same rows: ``rank1_ece_if_calibrated`` and its 95th percentile
      ``rank1_ece_if_calibrated_hi``, over ``n_boot`` label sets drawn from
      the confidences themselves, so an ECE within that range is what the
      test's size allows (each row's label drawn alone);
    - ``rank1_calibrated_p``: the two-sided probability, if each label were
      drawn from its confidence independently, of a count of later genes
      first as far from the confidences' sum as the one seen (Poisson
      binomial);
    - the credible reactions' (confidence at or above ``threshold``) share
      with a later gene first against all, with a percentile bootstrap
      interval of the ratio over reactions.

    >>> first = pd.DataFrame({"confidence": [0.1, 0.1, 0.3, 0.3], "label": [0, 0, 1, 0]})
    >>> c = check_test_confidence(first, 0.3, n_boot=20)
    >>> c["rank1_mean_confidence"], c["rank1_later_gene_share"], c["credible_reactions"], c["credible_vs_all"]
    (0.2, 0.25, 2, 2.0)
    """
    from geomargin.rank.calibration_check import expected_calibration_error

    c = first["confidence"].to_numpy(dtype=float)
    y = first["label"].to_numpy(dtype=float)
    cred = c >= threshold
    out = {"rank1_rows": int(len(first)),
           "rank1_mean_confidence": float(c.mean()) if len(c) else np.nan,
           "rank1_later_gene_share": float(y.mean()) if len(y) else np.nan}
    out["rank1_confidence_over_share"] = (out["rank1_mean_confidence"] / out["rank1_later_gene_share"]
                                          if out["rank1_later_gene_share"] else np.nan)
    out["rank1_ece"] = float(expected_calibration_error(y, c, n_bins=ece_bins)) if len(c) else np.nan
    # one set of resampled reactions for every bootstrap interval below
    rng = np.random.default_rng(seed)
    counts = bootstrap_counts(len(y), n_boot if len(y) else 0, rng,
                              reaction_clusters(first["reaction"]) if "reaction" in first.columns else None)
    out.update(_rank1_spread(c, y, counts, rng, ece_bins=ece_bins))
    out["credible_reactions"] = int(cred.sum())
    out["credible_top1_is_later"] = float(y[cred].mean()) if cred.any() else np.nan
    out["all_top1_is_later"] = out["rank1_later_gene_share"]

    def ratio(w):
        """Per resample (a row of counts): the credible rows' share with a later gene first over all rows'."""
        n_cred, n_all, later = w @ cred, w.sum(axis=-1), w @ y
        with np.errstate(divide="ignore", invalid="ignore"):
            r = (w @ (y * cred) / n_cred) / (later / n_all)
        return np.where((n_cred > 0) & (later > 0), r, np.nan)

    out["credible_vs_all"] = float(ratio(np.ones(len(y)))) if len(y) else np.nan
    boots = ratio(counts) if len(counts) else np.array([])
    boots = boots[~np.isnan(boots)]
    lo, hi = (np.quantile(boots, [0.025, 0.975]) if len(boots) else (np.nan, np.nan))
    out["credible_vs_all_lo"], out["credible_vs_all_hi"] = float(lo), float(hi)
    return out


def _rank1_spread(c: np.ndarray, y: np.ndarray, counts: np.ndarray, rng: np.random.Generator, *,
                  ece_bins: int) -> dict:
    """How far the test's size lets its rank-1 figures move: the bootstrap
    interval of the share and of the confidence over it (over the resampled
    reactions: ``counts``, one row per resample, of
    :func:`~geomargin.rank.time_split.bootstrap_counts`), the ECE of labels drawn from
    the confidences (by ``rng``, one label set per resample), and the
    Poisson-binomial check of the count (see :func:`check_test_confidence`)."""
    from scipy.stats import poisson_binom

    from geomargin.rank.calibration_check import expected_calibration_error

    keys = ("rank1_later_gene_share_lo", "rank1_later_gene_share_hi", "rank1_confidence_over_share_lo",
            "rank1_confidence_over_share_hi", "rank1_ece_if_calibrated", "rank1_ece_if_calibrated_hi",
            "rank1_calibrated_p")
    if not len(c) or not len(counts):
        return dict.fromkeys(keys, np.nan)
    n_boot = len(counts)
    # each resample's rows, their means taken row by row (equal confidences give exactly equal means)
    drawn_rows = [np.repeat(np.arange(len(c)), w) for w in counts]
    share, conf = np.array([y[i].mean() for i in drawn_rows]), np.array([c[i].mean() for i in drawn_rows])
    # share over confidence is finite; its percentiles, inverted, are the ratio's
    inv_lo, inv_hi = np.quantile(share / conf, [0.025, 0.975]) if (conf > 0).all() else (np.nan, np.nan)
    drawn = rng.random((n_boot, len(c))) < c
    eces = np.array([expected_calibration_error(d.astype(float), c, n_bins=ece_bins) for d in drawn])
    dist = poisson_binom(np.clip(c, 0.0, 1.0))
    k = int(y.sum())
    p = min(1.0, 2 * min(float(dist.cdf(k)), float(dist.sf(k - 1))))
    lo, hi = np.quantile(share, [0.025, 0.975])
    return dict(zip(keys, (float(lo), float(hi), float(1 / inv_hi) if inv_hi > 0 else np.nan,
                           float(1 / inv_lo) if inv_lo > 0 else np.inf, float(np.median(eces)),
                           float(np.quantile(eces, 0.95)), p)))


def score_test_split(model: HistoryModel, rows: pd.DataFrame, name: str, *, top_n: int, n_boot: int = 1000,
                seed: int = 0) -> tuple[dict, pd.DataFrame, pd.DataFrame]:
    """Score the test pair as the history is scored, with what history chose.

    Parameters
    ----------
    model : HistoryModel
        Learned from the history pairs alone.
    rows : DataFrame
        The test pair's ``time_split_reactions.tsv``.
    name : str
        The test pair (``"older->newer"``).

    Returns
    -------
    summary : dict
        The headline: the test pair, the chosen ranking and how, its test
        ``hit@1/5/20`` and ``mrr`` with intervals and the random
        expectation, the confidence on its first candidates
        (:func:`check_test_confidence`), and its history and CV figures.
    rankings : DataFrame
        Every ranking on the test pair (:func:`geomargin.rank.time_split.time_split_table`
        of the score-order rows), ``chosen`` marking the shown one.
    confidence : DataFrame
        :func:`check_test_confidence` over all kinds, then per kind.
    """
    from geomargin.rank.time_split import time_split_table

    rows = score_order_rows(rows)
    ranking = model.ranking
    table = time_split_table(rows, n_boot=n_boot, seed=seed)
    table.insert(1, "chosen", table["ranking"] == ranking)
    labelled = labelled_rows(rows, ranking, top_n)
    first = labelled[labelled["rank"] == 1].assign(confidence=lambda f: model.calibrator.predict_proba(f))
    checks = []
    for kind, part in [("all", first), *first.groupby("reaction_kind", sort=True)]:
        checks.append({"test_split": name, "ranking": ranking, "reaction_kind": kind,
                       **check_test_confidence(part, model.threshold, n_boot=n_boot, seed=seed)})
    confidence = pd.DataFrame(checks)
    mine = table[(table["ranking"] == ranking) & (table["reaction_kind"] == "all")]
    if mine.empty:
        raise ValueError(f"the test split {name} has no rows of the chosen ranking {ranking!r}")
    m = mine.iloc[0]
    summary = {"test_split": name, "ranking": ranking, "chosen_on": model.choice["chosen_on"],
               "chosen_by": model.choice["chosen_by"], "learned_from": ";".join(model.pairs)}
    for col in ("reactions", "model_reactions", "not_ranked", "later_genes"):
        summary[f"test_{col}"] = int(m[col])
    for k in ("hit@1", "hit@5", "hit@20", "mrr"):
        summary[f"test_{k}"] = float(m[k])
        summary[f"test_{k}_lo"], summary[f"test_{k}_hi"] = float(m[f"{k}_lo"]), float(m[f"{k}_hi"])
        summary[f"test_random_{k}"] = float(m[f"random_{k}"])
    for k, v in confidence.iloc[0].items():
        if k not in ("test_split", "ranking", "reaction_kind"):
            summary[f"test_{k}"] = v
    summary["threshold"] = model.threshold
    summary["threshold_rule"] = model.threshold_rule
    for k, v in model.choice.items():
        if k.startswith(("history_", "cv_")):
            summary[k] = v
    return summary, table, confidence


def history_quality_columns(test: pd.DataFrame, model: HistoryModel, method: str) -> dict:
    """The leading columns of ``enzyme_ranking_quality.tsv`` with a release
    history: the test pair's headline (``history_test.tsv``, one row: what
    the history alone chose, scored on the test pair), then what today's
    ranking was chosen on (``model``, learned from history and test), its
    history figures over those pairs and its cross-validated ones.

    >>> test = pd.DataFrame([{"test_split": "c->d", "ranking": "m", "chosen_on": "history", "chosen_by": "x",
    ...                       "learned_from": "a->b", "test_hit@1": 0.2, "history_mrr": 0.3, "cv_mrr": 0.5}])
    >>> from geomargin.rank.history_calibrator import HistoryCalibrator
    >>> model = HistoryModel({"ranking": "m", "chosen_on": "history", "chosen_by": "y", "history_mrr": 0.25,
    ...                       "cv_mrr": 0.5}, HistoryCalibrator(), 0.1, "r", {}, ("a->b", "c->d"))
    >>> list(history_quality_columns(test, model, "m").items())[:4]
    [('test_split', 'c->d'), ('test_ranking', 'm'), ('test_ranking_learned_from', 'a->b'), ('test_hit@1', 0.2)]
    """
    if len(test) != 1:
        raise ValueError(f"the test pair's headline has {len(test)} rows; expected one (history_test.tsv)")
    row = test.iloc[0].to_dict()
    out = {"test_split": row["test_split"], "test_ranking": row["ranking"],
           "test_ranking_learned_from": row["learned_from"]}
    out.update({k: v for k, v in row.items() if k.startswith("test_") and k != "test_split"})
    out["shown_chosen_on"] = model.choice["chosen_on"]
    out["shown_learned_from"] = ";".join(model.pairs)
    out["shown_is_test_ranking"] = bool(method == row["ranking"])
    out.update({k: v for k, v in model.choice.items() if k.startswith(("history_", "cv_"))})
    out["threshold"] = model.threshold
    out["threshold_rule"] = model.threshold_rule
    return out
