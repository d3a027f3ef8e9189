"""Paired difference of two methods' validated ranking, over the same reactions.

    python analysis/paired_ranking.py --workdir DIR A B

From ``results/metabolic/ranking/true_gene_ranks.tsv`` of a finished run:
hit@50 and MRR of method ``A`` minus those of method ``B`` (pooled over true
pairs, as ``ranking_validation.tsv``), with a 95% bootstrap interval over
reactions (2000 replicates, seed 0; a reaction's true pairs stay together,
and both methods are resampled with the same reactions: a paired interval).
Example: ``geometric geometric@scaled`` measures the margin rule.

    python analysis/paired_ranking.py --workdir DIR --workdir-b OLD A B

takes ``B`` from another finished run with the same folds (e.g. the same
method before a feature change): the two runs must have ranked the same
reactions, each in the same outer fold, against as many candidates, with
as many true pairs, or the command stops.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from geomargin.common.cli import workdir_parser


def per_reaction(ranks: pd.DataFrame, method: str) -> pd.DataFrame:
    r = ranks[ranks["method"] == method]
    if r.empty:
        raise SystemExit(f"method {method!r} is not in true_gene_ranks.tsv; it has "
                         f"{sorted(ranks['method'].unique())}")
    r = r.assign(hit50=r["rank"] <= 50, rr=1.0 / r["rank"])
    return r.groupby("reaction")[["hit50", "rr"]].agg(["sum", "count"])


def fold_design(ranks: pd.DataFrame, method: str) -> pd.DataFrame:
    """Per reaction: its outer fold, the number of candidates and of true pairs."""
    r = ranks[ranks["method"] == method]
    return r.groupby("reaction").agg(fold=("fold", "first"), n_candidates=("n_candidates", "first"),
                                     true_pairs=("rank", "size"))


def main(argv=None) -> int:
    ap = workdir_parser(__doc__)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--workdir-b", type=Path, default=None,
                    help="read method b from this run (same folds) instead of --workdir")
    ap.add_argument("--replicates", type=int, default=2000)
    args = ap.parse_args(argv)
    ranks = pd.read_csv(args.workdir / "results/metabolic/ranking/true_gene_ranks.tsv", sep="\t")
    ranks_b = ranks if args.workdir_b is None else \
        pd.read_csv(args.workdir_b / "results/metabolic/ranking/true_gene_ranks.tsv", sep="\t")
    A, B = per_reaction(ranks, args.a), per_reaction(ranks_b, args.b)
    idx = A.index.intersection(B.index)
    A, B = A.loc[idx], B.loc[idx]
    if args.workdir_b is not None:
        da, db = fold_design(ranks, args.a), fold_design(ranks_b, args.b)
        if set(da.index) != set(db.index):
            raise SystemExit(f"the runs ranked different reactions ({len(da)} in {args.workdir}, "
                             f"{len(db)} in {args.workdir_b}): not the same validation")
        differ = (da.loc[idx] != db.loc[idx]).any(axis=1)
        if differ.any():
            raise SystemExit(f"reaction {differ.index[differ.to_numpy()][0]!r} has a different fold, "
                             "number of candidates or of true pairs in the two runs: they were not "
                             "validated on the same folds")
    n = A[("hit50", "count")].to_numpy()
    dh = A[("hit50", "sum")].to_numpy() - B[("hit50", "sum")].to_numpy()
    dr = A[("rr", "sum")].to_numpy() - B[("rr", "sum")].to_numpy()
    rng = np.random.default_rng(0)
    bh, br = [], []
    for _ in range(args.replicates):
        i = rng.integers(0, len(idx), len(idx))
        bh.append(dh[i].sum() / n[i].sum())
        br.append(dr[i].sum() / n[i].sum())
    print(f"{args.a} - {args.b} over {len(idx)} reactions: "
          f"hit@50 {dh.sum() / n.sum():+.4f} [{np.percentile(bh, 2.5):+.4f}, {np.percentile(bh, 97.5):+.4f}], "
          f"MRR {dr.sum() / n.sum():+.4f} [{np.percentile(br, 2.5):+.4f}, {np.percentile(br, 97.5):+.4f}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
