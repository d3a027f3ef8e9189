"""What the classifiers use: grouped permutation importance per feature block
on the held-out folds of a finished metabolic run.

    python analysis/block_importance.py --workdir DIR [--methods hgb geometric] [--repeats 5]

For every outer fold, the fold's model (``results/metabolic/cv/<method>.pkl``)
scores its test pairs with one block's rows permuted among the test pairs (the
block's values and its absence move together, so the permuted pairs keep
valid absence patterns); the importance of a block is the mean drop of the
ROC AUC. Blocks are grouped by source kind (expr, domain, loc, net) and by
motif type. A last line fits gradient boosting on the *presence pattern only*
(1 where a feature is valid, 0 where absent) to show how much absence alone
says. Then the validated ranks (``results/metabolic/ranking/true_gene_ranks.tsv``)
are split by whether the true gene already catalyses a reaction related to
its reaction (the ``net`` block) and by reaction kind: where the ranking
succeeds and where it fails. Prints markdown tables.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import roc_auc_score

from geomargin.featurize.metabolic.bundle import FeatureBundle
from geomargin.models.selection import _decision
from geomargin.common.cli import workdir_parser



def main(argv=None) -> int:
    ap = workdir_parser(__doc__)
    ap.add_argument("--methods", nargs="+", default=["hgb", "geometric"])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    res = args.workdir / "results" / "metabolic"
    data = np.load(res / "features" / "features.npz", allow_pickle=False)
    X, y = data["X"], data["y"]
    names = [str(n) for n in data["feature_names"]]
    motif = np.array([n.split(":")[0] for n in names])
    kind = np.array([n.split(":")[1] for n in names])
    groupings = {"source": kind, "motif": motif, "block": np.char.add(np.char.add(motif, ":"), kind)}
    rng = np.random.default_rng(args.seed)
    for method in args.methods:
        with open(res / "cv" / f"{method}.pkl", "rb") as fh:
            cv = pickle.load(fh)
        base = [roc_auc_score(y[te], _decision(m, X[te])) for m, te in zip(cv.models, cv.test_index)]
        print(f"\n{method}: held-out ROC AUC {np.mean(base):.3f} (mean over {len(base)} folds)\n")
        for gname, labels in groupings.items():
            rows = []
            for lab in sorted(set(labels)):
                cols = np.flatnonzero(labels == lab)
                drops = []
                for m, te, b in zip(cv.models, cv.test_index, base):
                    for _ in range(args.repeats):
                        Xp = X[te].copy()
                        Xp[:, cols] = Xp[rng.permutation(len(te))][:, cols]
                        drops.append(b - roc_auc_score(y[te], _decision(m, Xp)))
                rows.append({gname: lab, "features": len(cols), "auc_drop": np.mean(drops),
                             "sd": np.std(drops)})
            t = pd.DataFrame(rows).sort_values("auc_drop", ascending=False)
            print(t.to_markdown(index=False, floatfmt=".3f"), "\n")
    # absence alone: gradient boosting on the presence pattern, same folds
    from sklearn.ensemble import HistGradientBoostingClassifier
    P = (~np.isnan(X)).astype(float)
    aucs = [roc_auc_score(y[te], HistGradientBoostingClassifier(random_state=args.seed)
                          .fit(P[np.setdiff1d(np.arange(len(y)), te)],
                               y[np.setdiff1d(np.arange(len(y)), te)]).decision_function(P[te]))
            for te in cv.test_index]
    print(f"presence pattern only (gradient boosting on 0/1 validity): ROC AUC {np.mean(aucs):.3f}")
    ranks_split(res, args.methods)
    return 0


def ranks_split(res: Path, methods) -> None:
    """hit@10/50 and MRR of the validated ranks, split by adjacency and kind."""
    bundle = FeatureBundle.load(res / "features" / "featurizer.pkl")
    feat, net = bundle.featurizer, bundle.network
    ranks = pd.read_csv(res / "ranking" / "true_gene_ranks.tsv", sep="\t")
    pairs = ranks[["reaction", "gene"]].drop_duplicates()
    adj = {(r, g): any(feat.adjacency_reactions(r, g).values()) for r, g in pairs.itertuples(index=False)}
    print(f"\ntrue pairs of held-out reactions whose gene catalyses a related reaction: "
          f"{sum(adj.values())} of {len(adj)} ({np.mean(list(adj.values())):.1%})\n")
    ranks["catalyses_related"] = [adj[r, g] for r, g in zip(ranks["reaction"], ranks["gene"])]
    ranks["kind"] = net.reactions.loc[ranks["reaction"], "reaction_kind"].to_numpy() \
        if "reaction_kind" in net.reactions.columns else "?"
    rows = []
    for m in ["coexpr", "adjacency", *methods]:
        r = ranks[ranks["method"] == m]
        for col in ("catalyses_related", "kind"):
            for val, g in r.groupby(col):
                rk = g["rank"].to_numpy(dtype=float)
                rows.append({"method": m, "split": f"{col}={val}", "true_pairs": len(rk),
                             "hit@10": np.mean(rk <= 10), "hit@50": np.mean(rk <= 50),
                             "mrr": np.mean(1 / rk), "median_rank": np.median(rk)})
    print(pd.DataFrame(rows).to_markdown(index=False, floatfmt=".3f"))


if __name__ == "__main__":
    raise SystemExit(main())
