"""The order in which a reaction's shown candidates are listed.

The ranking model orders every candidate of a reaction by its score
(:mod:`geomargin.rank.scoring`); the reader sees the best ``top_n`` of them, each with
a calibrated confidence (:mod:`geomargin.rank.calibration`). The calibrator reads more
than the score: the reaction kind and which network evidence the candidate
has (it already catalyses a related reaction, a reaction of the subsystem,
or one on similar compounds). So within the shown rows the confidence is
not monotone in the score, and a row at rank 3 can be more likely right than
the row at rank 1. Config ``metabolic.ranking.order``: ``"confidence"``
lists the shown rows by what the calibrator, fitted on the
cross-validation's held-out reactions, says of them; ``"score"`` keeps the
model's order. Only the shown rows move: a candidate beyond ``top_n`` keeps
its score rank, so hit@k for k >= ``top_n`` does not change.

The choice between the two is made on the cross-validation alone: the
held-out reactions' shown rows are reordered by a calibrator fitted on the
*other* folds (:func:`geomargin.rank.calibration.out_of_fold_confidence`), and the
true genes' new ranks (:func:`shown_ranks`) are scored as any ranking is
(:func:`geomargin.rank.validation.validation_table`).

Examples
--------
>>> rows = pd.DataFrame({"reaction": ["a", "a", "a"], "rank": [1, 2, 3], "gene": ["X", "Y", "Z"]})
>>> shown_positions(rows, [0.1, 0.4, 0.1]).tolist()
[2, 1, 3]
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["shown_positions", "shown_ranks", "shown_tops"]


def shown_positions(rows: pd.DataFrame, confidence) -> np.ndarray:
    """1-based position of each row within its reaction when the rows are
    listed by ``confidence``, highest first, ties by score ``rank`` (the
    order of :func:`geomargin.rank.credible.best_per_reaction`: position 1 is the
    reaction's most confident row).

    Parameters
    ----------
    rows : DataFrame
        Columns ``reaction`` and ``rank`` (the score rank, 1 = best score).
    confidence : array-like
        One value per row (NaN sorts last).

    Returns
    -------
    ndarray of int, aligned with ``rows``.

    Examples
    --------
    >>> r = pd.DataFrame({"reaction": ["a", "a", "b", "a"], "rank": [1, 2, 1, 3]})
    >>> shown_positions(r, [0.2, 0.2, 0.5, 0.9]).tolist()
    [2, 3, 1, 1]
    """
    conf = np.asarray(confidence, dtype=np.float64)
    if conf.shape != (len(rows),):
        raise ValueError(f"shown_positions: {conf.size} confidences for {len(rows)} rows")
    t = pd.DataFrame({"reaction": rows["reaction"].to_numpy(), "rank": rows["rank"].to_numpy(),
                      "neg": np.where(np.isnan(conf), np.inf, -conf)}, index=np.arange(len(rows)))
    t = t.sort_values(["reaction", "neg", "rank"], kind="mergesort")
    pos = t.groupby("reaction", sort=False).cumcount().to_numpy() + 1
    out = np.empty(len(rows), dtype=np.int64)
    out[t.index.to_numpy()] = pos
    return out


def _filtered(rows: pd.DataFrame, order) -> np.ndarray:
    """Per row, 1 + the rows of its reaction that are not true genes
    (``label`` 0) and come before it in ``order`` (the validation's rank of
    a true gene: the other true genes are not counted above it)."""
    t = pd.DataFrame({"reaction": rows["reaction"].to_numpy(), "order": np.asarray(order),
                      "false": 1 - rows["label"].to_numpy(dtype=np.int64)}, index=np.arange(len(rows)))
    t = t.sort_values(["reaction", "order"], kind="mergesort")
    before = t.groupby("reaction", sort=False)["false"].cumsum().to_numpy() - t["false"].to_numpy()
    out = np.empty(len(rows), dtype=np.int64)
    out[t.index.to_numpy()] = before + 1
    return out


def shown_ranks(ranks: pd.DataFrame, rows: pd.DataFrame, positions) -> pd.DataFrame:
    """The true genes' ranks of the validation (``true_gene_ranks.tsv``
    rows) with the shown rows listed at ``positions``.

    The validation ranks a true gene among the candidates that are not
    true genes (1 + those above it), so a reaction with several genes can
    have them all at rank 1; the shown order is ranked the same way.

    Parameters
    ----------
    ranks : DataFrame
        ``reaction``, ``gene`` and ``rank`` of each true pair of one ranking.
    rows : DataFrame
        That ranking's shown rows (``reaction``, ``gene``, ``rank``: the
        score rank, and ``label``: 1 for a true gene), the best ``top_n``
        candidates of each held-out reaction.
    positions : array-like
        The position of each of ``rows`` in the shown order
        (:func:`shown_positions`).

    Returns
    -------
    DataFrame
        ``ranks`` with ``rank`` replaced for every true pair among ``rows``;
        the others are unchanged (beyond the shown rows, which keep their
        place below them, or of a reaction without shown rows).

    Examples
    --------
    >>> ranks = pd.DataFrame({"reaction": ["a", "a", "a"], "gene": ["Y", "Z", "W"], "rank": [2, 2, 40]})
    >>> rows = pd.DataFrame({"reaction": ["a", "a", "a"], "gene": ["X", "Y", "Z"], "rank": [1, 2, 3],
    ...                      "label": [0, 1, 1]})
    >>> shown_ranks(ranks, rows, [3, 1, 2])["rank"].tolist()
    [1, 1, 40]
    """
    true = rows["label"].to_numpy(dtype=np.int64) == 1
    index = pd.MultiIndex.from_arrays([rows["reaction"].astype(str), rows["gene"].astype(str)])
    if not index.is_unique:
        raise ValueError("shown_ranks: a (reaction, gene) pair appears twice among the shown rows")
    new = pd.Series(_filtered(rows, positions)[true], index=index[true])
    old = pd.Series(_filtered(rows, rows["rank"].to_numpy())[true], index=index[true])
    key = pd.MultiIndex.from_arrays([ranks["reaction"].astype(str), ranks["gene"].astype(str)])
    got, was = new.reindex(key).to_numpy(dtype=np.float64), old.reindex(key).to_numpy(dtype=np.float64)
    inside = ~np.isnan(got)
    if not np.array_equal(was[inside], ranks["rank"].to_numpy(dtype=np.float64)[inside]):
        raise ValueError("shown_ranks: the shown rows' score order disagrees with the true genes' ranks; "
                         "both must come from the same validation run")
    out = ranks.copy()
    out["rank"] = np.where(inside, got, ranks["rank"].to_numpy(dtype=np.float64)).astype(ranks["rank"].dtype)
    return out


def shown_tops(rows: pd.DataFrame, positions, method: str) -> pd.DataFrame:
    """The validation's rank-1 rows (``top_genes.tsv`` columns) in the shown
    order: per reaction of ``rows`` (``fold``, ``reaction``, ``gene``,
    ``label``, ``reaction_kind``), the row at position 1.

    >>> rows = pd.DataFrame({"fold": 1, "reaction": ["a", "a"], "gene": ["X", "Y"], "label": [0, 1],
    ...                      "reaction_kind": "transport"})
    >>> shown_tops(rows, [2, 1], "m")[["reaction", "top_gene", "top_is_true"]].values.tolist()
    [['a', 'Y', True]]
    """
    first = rows[np.asarray(positions) == 1]
    return pd.DataFrame({"method": method, "fold": first["fold"].to_numpy(),
                         "reaction": first["reaction"].to_numpy(), "top_gene": first["gene"].to_numpy(),
                         "top_is_true": first["label"].astype(bool).to_numpy(),
                         "reaction_kind": first["reaction_kind"].to_numpy()})
