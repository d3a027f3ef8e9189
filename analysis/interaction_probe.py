"""Why gradient boosting classifies the enzyme-gene pairs better than the
geometric margin: interactions across feature blocks, measured.

    python analysis/interaction_probe.py --workdir DIR [--seed 0]

On the instances of a finished metabolic run
(``results/metabolic/features/features.npz``), the workflow's nested
cross-validation of gradient boosting three ways, with the default config's
design (5 outer folds, validation fraction 0.2, ``hgb`` grid; ``--seed`` as
config ``seed``): the same folds as a run of the default config, not of one
that changes these, with scikit-learn's
``interaction_cst``:

- ``free``: any feature may interact with any other (the workflow's ``hgb``);
- ``within blocks``: a tree's splits may combine features of one block only
  (a block = one (motif, source) block or one candidate block, the
  ``groups`` of the features): the model is a sum of per-block functions,
  the class of the geometric margin's block-additive kernel
  (``geometric_block``);
- ``none``: a sum of per-feature functions (an additive model).

Prints accuracy and ROC AUC (mean +- SEM over the outer folds) beside the
run's ``accuracy.tsv`` rows of ``hgb``, ``geometric`` and ``geometric_block``.
If the ``within blocks`` row falls to the block kernel's level, the gap
between gradient boosting and the geometric margin is the interactions
across blocks, which a sum over blocks cannot represent.
"""

from __future__ import annotations


import numpy as np
import pandas as pd

from geomargin.models.baselines import make_hgb
from geomargin.models.registry import MethodSpec
from geomargin.models.selection import nested_cross_validate
from geomargin.common.cli import workdir_parser

GRID = {"learning_rate": [0.1], "max_leaf_nodes": [15, 31]}


def main(argv=None) -> int:
    ap = workdir_parser(__doc__)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    res = args.workdir / "results" / "metabolic"
    data = np.load(res / "features" / "features.npz", allow_pickle=False)
    X, y, groups = data["X"], data["y"], data["groups"]
    blocks = [np.flatnonzero(groups == g).tolist() for g in np.unique(groups)]
    variants = {"free": None, "within blocks": blocks, "none": "no_interactions"}
    rows = []
    for name, cst in variants.items():
        def make(groups=None, random_state=None, cst=cst):
            return make_hgb(random_state=random_state).set_params(interaction_cst=cst)
        spec = MethodSpec(f"hgb ({name})", f"gradient boosting, interactions: {name}", make, [GRID])
        cv = nested_cross_validate(spec, X, y, feature_groups=groups,
                                   instance_groups=data["fold_group"], query=data["instance_group"],
                                   n_splits=5,
                                   val_fraction=0.2, param_grid=[GRID], seed=args.seed)
        f = cv.folds
        rows.append({"model": f"hgb, interactions {name}",
                     "accuracy": f"{f['accuracy'].mean():.3f} ± {f['accuracy'].sem():.3f}",
                     "ROC AUC": f"{f['roc_auc'].mean():.3f} ± {f['roc_auc'].sem():.3f}"})
    acc = pd.read_csv(res / "accuracy.tsv", sep="\t").set_index("method")
    for m in ("hgb", "geometric_block", "geometric"):
        if m in acc.index:
            rows.append({"model": f"{m} (the run's accuracy.tsv)",
                         "accuracy": f"{acc.at[m, 'accuracy_mean']:.3f} ± {acc.at[m, 'accuracy_sem']:.3f}",
                         "ROC AUC": f"{acc.at[m, 'roc_auc_mean']:.3f} ± {acc.at[m, 'roc_auc_sem']:.3f}"})
    print(f"{len(blocks)} feature blocks, {X.shape[1]} features, {len(y)} instances\n")
    print(pd.DataFrame(rows).to_markdown(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
