"""Fig. 2a/b of Chechik et al.: the top candidates of one landmark drawn on an
"easy" test crop (every method right) and a "hard" one (geometric margin right,
most other methods wrong), chosen from the per-method out-of-fold predictions
of vision_cv. The crop's fold featurizer is refitted (same code, params and
training crops as vision_fold_features) to recover the candidate locations."""

import textwrap

import matplotlib
import matplotlib.patches as mpatches
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from geomargin.common.io import atomic_path
from geomargin.featurize.vision.featurizer import CarPartFeaturizer
from geomargin.featurize.vision.images import load_crops

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake
matplotlib.use("Agg")

methods = list(smk.params.methods)
ref = smk.params.reference
others = [m for m in methods if m != ref]
tabs = {m: pd.read_csv(p, sep="\t").set_index("index").sort_index() for m, p in zip(methods, smk.input.scores)}
base = tabs[ref]
correct = pd.DataFrame({m: tabs[m]["correct"].astype(bool) for m in methods})
n_wrong_others = (~correct[others]).sum(axis=1)
cars = base["label"] == base["label"].max()
log.info("out-of-fold crops: %d; all methods right: %d; %s right and > half of the %d others wrong: %d",
         len(base), int(correct.all(axis=1).sum()), ref, len(others),
         int((correct[ref] & (n_wrong_others > len(others) / 2)).sum()))

k = int(smk.params.landmark)
# candidates of landmark k in each out-of-fold crop (as counted by vision_fold_features)
n_cand = pd.Series(0, index=base.index)
for path in smk.input.features:
    d = np.load(path)
    n_cand.loc[d["test_index"]] = d["counts_test"][:, k]
# easy: a car every method gets right; among those, the one with the most
# candidates of landmark k (a richer picture), then the reference's highest score
easy_pool = base[cars & correct.all(axis=1)].assign(n_cand=n_cand)
easy = int(easy_pool.sort_values(["n_cand", "score"], ascending=[False, False]).index[0])
# hard: the reference right while more than half of the other methods are
# wrong; cars first (as in the paper), else any crop, else the closest car
n_wrong = n_wrong_others[correct[ref]]
hard_kind = "car"
pool = n_wrong[cars[correct[ref]]]
if pool.max() <= len(others) / 2 and n_wrong.max() > len(others) / 2:
    pool, hard_kind = n_wrong, "crop"
pool = base.loc[pool.index].assign(n_wrong=pool, margin=(base["score"] * (2 * cars - 1)).loc[pool.index])
pool = pool.sort_values(["n_wrong", "margin"], ascending=[False, False])
hard = int(pool.index[0])
hard_wrong = int(pool["n_wrong"].iloc[0])
hard_exists = hard_wrong > len(others) / 2
if not hard_exists:
    log.warning("no crop that %s gets right and most of the others wrong; showing the car with the "
                "most others wrong (%d of %d)", ref, hard_wrong, len(others))

X, y = load_crops(smk.input.data)
# the outer folds as vision_fold_features made them (stored in each fold's .npz)
folds = []
for path in smk.input.features:
    with np.load(path) as d:
        folds.append((d["train_index"], d["test_index"]))
p = smk.params.featurizer["patch_size"]
radius = smk.params.featurizer["search_radius"]


def draw(idx: int, title: str, out: str) -> None:
    fold = int(base.loc[idx, "fold"])
    tr, te = folds[fold]
    assert idx in te, f"crop {idx} is not in the test part of fold {fold}"
    f = CarPartFeaturizer(**smk.params.featurizer, random_state=smk.params.seed).fit(X[tr], y[tr])
    centres, scores, flipped = f.candidates(X[[idx]])
    img = X[idx][:, ::-1] if flipped[0] else X[idx]
    er, ec = f.landmarks_.positions_[k]
    fig, ax = plt.subplots(figsize=(8, 4.2))
    ax.imshow(img, cmap="gray", vmin=0, vmax=1, interpolation="nearest")
    ax.add_patch(mpatches.Rectangle((ec - radius - 0.5, er - radius - 0.5), 2 * radius + 1, 2 * radius + 1,
                                    fill=False, ec="cyan", ls="--", lw=1, label="search window"))
    ax.plot(ec, er, "c+", ms=12, mew=2, label="expected position")
    cand = [(r, c, s) for (r, c), s in zip(centres[0, k], scores[0, k]) if r >= 0]
    cmap = plt.get_cmap("autumn")
    for rank, (r, c, s) in enumerate(cand):
        col = cmap(rank / max(len(cand) - 1, 1))
        if rank == 0:
            ax.add_patch(mpatches.Rectangle((c - p // 2 - 0.5, r - p // 2 - 0.5), p, p, fill=False,
                                            ec=col, lw=1.5, label=f"patch of best candidate ({p}x{p})"))
        ax.plot(c, r, "o", ms=9, mfc="none", mec=col, mew=2)
        ax.text(c + 1.2, r - 1.2, f"{rank + 1}", color=col, fontsize=10, weight="bold")
    absent = smk.params.featurizer["max_candidates"] - len(cand)
    score_name = {"ncc": "NCC", "hog": "HOG probability"}[smk.params.featurizer["detector"]]
    verdict = textwrap.fill(", ".join(f"{m}: {'right' if correct.loc[idx, m] else 'WRONG'}"
                                      for m in methods), 120)
    ax.set_title(f"{title}\ncrop {idx} (fold {fold}{', mirrored' if flipped[0] else ''}), landmark {k}: "
                 f"{len(cand)} candidates ({score_name} {', '.join(f'{s:.2f}' for _, _, s in cand)}), "
                 f"{absent} slots absent\n{verdict}", fontsize=8)
    ax.legend(loc="lower right", fontsize=7, framealpha=0.8)
    ax.set_xticks([])
    ax.set_yticks([])
    fig.tight_layout()
    with atomic_path(out, ".png") as tmp:
        fig.savefig(tmp, dpi=130)
    plt.close(fig)
    log.info("%s: crop %d fold %d, %d candidates of landmark %d; %s", out, idx, fold, len(cand), k, verdict)


draw(easy, f"easy: every method right ({len(easy_pool)} such cars of {int(cars.sum())})", smk.output.easy)
hard_title = (f"hard ({hard_kind}): {ref} right, {hard_wrong} of {len(others)} other methods wrong" if hard_exists
              else f"NO hard example exists (no crop with {ref} right and most others wrong); "
              f"closest: {hard_wrong} of {len(others)} others wrong")
draw(hard, hard_title, smk.output.hard)
