"""Which within-cell signal tells the history's real orphans apart: how far the
first candidate stands out (``first_score_z``) or its lead over the second
(``first_gap_z``)? An analysis of a finished run (not used by the workflow).

    python analysis/first_candidate_standing.py --workdir DIR [--ranking NAME]

Reads the *history* pairs of ``metabolic.release_history`` only (their
``time_split_reactions.tsv``), never the test pair, and the ranking the
history chose (``release_history/history/choice.tsv``) unless ``--ranking``
names another. For each signal, over the ranked history benchmark reactions
(one row each, its first candidate in score order): the reactions, the
share with a later gene first, the signal's AUC for that label
(Mann-Whitney), the share per quartile of the signal, and the threshold
the release history's rule would fit on it
(:func:`geomargin.rank.credible.lifting_threshold`: the lowest value whose
reactions at or above it, at least ``--min-reactions``, had a later gene
first ``--factor`` times as often as all).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import yaml
from scipy.stats import mannwhitneyu

from geomargin.common.cli import workdir_parser
from geomargin.rank.credible import lifting_threshold
from geomargin.rank.history import score_order_rows

SIGNALS = ("first_score_z", "first_gap_z")


def signal_table(rows: pd.DataFrame, ranking: str, *, factor: float = 2.0, min_reactions: int = 10) -> pd.DataFrame:
    """One row per signal of :data:`SIGNALS` for ``ranking``'s ranked
    reactions of ``rows`` (score-order ``time_split_reactions.tsv`` rows):
    ``reactions`` (those with the signal), ``later_first`` (their share
    with a later gene first),
    ``auc``, ``q1``..``q4`` (that share per quartile of the signal, lowest
    first), ``threshold``, ``above`` and ``above_later_first``.

    >>> rows = pd.DataFrame({"ranking": "m", "ranked": True, "best_rank": [1, 2, 1, 3],
    ...                      "first_score_z": [9.0, 1.0, 8.0, 2.0], "first_gap_z": [0.1, 0.2, 0.3, 0.4]})
    >>> signal_table(rows, "m", min_reactions=2)[["signal", "auc", "threshold"]].values.tolist()
    [['first_score_z', 1.0, 8.0], ['first_gap_z', 0.25, nan]]
    """
    mine = rows[(rows["ranking"].astype(str) == ranking) & rows["ranked"].astype(str).str.lower().eq("true")]
    out = []
    for name in SIGNALS:
        # a reaction without a scored candidate has no signal (the calibrator gives it the wider cell)
        has = mine[name].notna().to_numpy()
        s = mine[name].to_numpy(dtype=float)[has]
        y = (mine["best_rank"].to_numpy()[has] == 1).astype(int)
        auc = (mannwhitneyu(s[y == 1], s[y == 0]).statistic / (y.sum() * (1 - y).sum())
               if 0 < y.sum() < len(y) else np.nan)
        q = np.quantile(s, [0, 0.25, 0.5, 0.75, 1]) if len(s) else np.full(5, np.nan)
        bins = np.clip(np.searchsorted(q[1:-1], s, side="right"), 0, 3)
        found = lifting_threshold(s, y, factor=factor, min_reactions=min_reactions)
        out.append({"signal": name, "reactions": len(y), "later_first": float(y.mean()) if len(y) else np.nan,
                    "auc": float(auc), **{f"q{k + 1}": float(y[bins == k].mean()) if (bins == k).any() else np.nan
                                          for k in range(4)},
                    "threshold": found[0] if found else np.nan, "above": found[1] if found else 0,
                    "above_later_first": found[2] if found else np.nan})
    return pd.DataFrame(out)


def main() -> None:
    ap = workdir_parser(__doc__)
    ap.add_argument("--ranking", help="the ranking to read (default: the one the history chose)")
    ap.add_argument("--factor", type=float, default=2.0)
    ap.add_argument("--min-reactions", type=int, default=10)
    a = ap.parse_args()
    w = a.workdir
    cfg = yaml.safe_load((w / "config" / "config.yaml").read_text())["metabolic"]["release_history"]
    base = w / "results/metabolic/release_history"
    ranking = a.ranking or str(pd.read_csv(base / "history/choice.tsv", sep="\t")["ranking"].iloc[0])
    pooled = []
    for older, newer in cfg["history"]:
        rows = pd.read_csv(base / older / newer / "time_split_reactions.tsv", sep="\t", keep_default_na=False,
                           na_values=[""])
        pooled.append(score_order_rows(rows))
    table = signal_table(pd.concat(pooled, ignore_index=True), ranking, factor=a.factor,
                         min_reactions=a.min_reactions)
    print(f"history pairs {cfg['history']}, ranking {ranking}")
    print(table.round(3).to_string(index=False))


if __name__ == "__main__":
    main()
