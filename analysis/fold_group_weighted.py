"""The validated ranking with each fold group weighing one.

    python analysis/fold_group_weighted.py --workdir DIR [--workdir OTHER ...]

``shown_validation.tsv`` counts every held-out directed reaction once, so a
fold group of lipid-species copies (one reaction written for many acyl chains,
held out together) weighs as many reactions as it has copies.
This prints, per finished run and for its default ranking in both orders
(score, and listed by the out-of-fold confidence as the calibration step
does), the best rank of each held-out reaction's true genes summarised two
ways: each reaction weighing one, and each fold group weighing one (a
reaction weighs 1 / its group's number of held-out reactions). Read from
``results/metabolic/ranking/calibration_rows.tsv``,
``true_gene_ranks.tsv`` and ``features/instances.tsv``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from geomargin.common.cli import parser

from geomargin.rank.calibration import fold_group_weights, out_of_fold_confidence
from geomargin.rank.shown_order import shown_positions, shown_ranks


def summary(best: pd.Series, weight: pd.Series) -> dict:
    """MRR and hit@k of the best ranks, weighted."""
    w = weight.to_numpy()
    x = best.to_numpy()
    return {"mrr": np.average(1.0 / x, weights=w), **{f"hit@{k}": np.average(x <= k, weights=w)
                                                      for k in (1, 10, 50)}}


def run_rows(workdir: Path) -> list[dict]:
    R = workdir / "results/metabolic"
    rows = pd.read_csv(R / "ranking/calibration_rows.tsv", sep="\t", keep_default_na=False, na_values=[""])
    groups = pd.read_csv(R / "features/instances.tsv", sep="\t", usecols=["reaction", "fold_group"],
                         dtype=str).drop_duplicates("reaction").set_index("reaction")["fold_group"]
    rows["weight"] = fold_group_weights(rows, groups)
    pos = shown_positions(rows, out_of_fold_confidence(rows, sample_weight=rows["weight"]))
    ranking = str(rows["ranking"].iloc[0])
    ranks = pd.read_csv(R / "ranking/true_gene_ranks.tsv", sep="\t")
    ranks = ranks[ranks["method"] == ranking]
    out = []
    for order, rk in (("score", ranks), ("confidence", shown_ranks(ranks, rows, pos))):
        best = rk.groupby("reaction")["rank"].min()
        group = groups.reindex(best.index)
        for weighting, w in (("reaction", pd.Series(1.0, index=best.index)),
                             ("fold group", 1.0 / group.map(group.value_counts()))):
            out.append({"run": str(workdir), "ranking": ranking, "order": order, "each weighs one": weighting,
                        "reactions": len(best), "groups": group.nunique(), **summary(best, w)})
    return out


def main(argv=None) -> int:
    ap = parser(__doc__)
    ap.add_argument("--workdir", type=Path, action="append", required=True,
                    help="a finished run's working directory (repeat to compare runs)")
    args = ap.parse_args(argv)
    table = pd.DataFrame([r for w in args.workdir for r in run_rows(w)])
    print(table.round(4).to_markdown(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
