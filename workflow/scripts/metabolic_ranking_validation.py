"""Rank every candidate gene for held-out reactions with known genes, using,
for each method, the model of the outer fold that held the reaction out.

All methods share the outer folds (they depend only on labels, reaction
groups and the seed), so each candidate matrix is built once and scored by
every method's fold model."""

from _bootstrap import setup

log = setup(snakemake)  # noqa: F821 - injected by Snakemake
smk = snakemake  # noqa: F821

import pickle  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from featurize.io import write_tsv_atomic  # noqa: E402
from models.ranking import ranking_metrics, true_gene_ranks  # noqa: E402

p = smk.params
with open(smk.input.featurizer, "rb") as fh:
    bundle = pickle.load(fh)
featurizer, net, candidates = bundle["featurizer"], bundle["network"], bundle["candidates"]
instances = pd.read_csv(smk.input.instances, sep="\t")
cvs = {}
for method, path in zip(p.methods, smk.input.cv):
    with open(path, "rb") as fh:
        cvs[method] = pickle.load(fh)
reference = cvs[p.methods[0]].test_index
for method, cv in cvs.items():
    if len(cv.test_index) != len(reference) or any(
            not np.array_equal(a, b) for a, b in zip(cv.test_index, reference)):
        raise ValueError(f"the outer folds of {method!r} differ from those of {p.methods[0]!r}; "
                         "rerun their cross-validation with the same seed and data")

n_folds = len(reference)
start = time.perf_counter()


def rank_fold(fold: int, test_idx) -> list[tuple]:
    """Ranks of the true genes of a sample of the fold's held-out reactions."""
    rows = []
    held = instances.iloc[test_idx]
    reactions = sorted(held.loc[held["label"] == 1, "reaction"].unique())
    n_held = len(reactions)
    if 0 < p.per_fold < n_held:
        rng = np.random.default_rng([p.seed, fold])
        reactions = sorted(rng.choice(reactions, size=p.per_fold, replace=False))
    log.info("fold %d/%d: ranking %d of %d held-out reactions against %d candidates",
             fold, n_folds, len(reactions), n_held, len(candidates))
    models = {m: cv.models[fold - 1] for m, cv in cvs.items()}
    for i, reaction in enumerate(reactions, start=1):
        true = list(net.reactions.at[reaction, "genes"])
        scores = {m: np.empty(len(candidates)) for m in models}
        for b in range(0, len(candidates), p.batch_size):  # bounded memory
            X = featurizer.candidate_matrix(reaction, candidates[b:b + p.batch_size])
            empty = np.isnan(X).all(axis=1)  # no evidence: ranks last
            for method, model in models.items():
                s = np.asarray(model.decision_function(X), dtype=np.float64)
                s[empty] = np.nan
                scores[method][b:b + len(s)] = s
        for method in models:
            ranks = true_gene_ranks(lambda r, genes, s=scores[method]: s, reaction, candidates,
                                    true, batch_size=len(candidates))
            rows += [(method, fold, reaction, g, r, len(candidates)) for g, r in ranks.items()]
        if i % 20 == 0 or i == len(reactions):
            log.info("fold %d/%d: reactions scored %d/%d (%.0f s)", fold, n_folds, i,
                     len(reactions), time.perf_counter() - start)
    return rows


# Folds run in threads (numpy, libsvm-free decision functions and the
# gradient-boosting predictor release the GIL); rows are kept in fold order.
with ThreadPoolExecutor(max_workers=max(1, smk.threads)) as pool:
    per_fold = list(pool.map(rank_fold, range(1, n_folds + 1), reference))
rows = [row for fold_rows in per_fold for row in fold_rows]

ranks = pd.DataFrame(rows, columns=["method", "fold", "reaction", "gene", "rank", "n_candidates"])
summary = []
for method in p.methods:
    r = ranks[ranks["method"] == method]
    summary.append({"method": method, "n_reactions": r["reaction"].nunique(),
                    "n_true_pairs": len(r), **ranking_metrics(r["rank"].to_numpy(), len(candidates))})
table = pd.DataFrame(summary)
log.info("\n%s", table.to_string(index=False))
write_tsv_atomic(ranks, smk.output.ranks)
write_tsv_atomic(table.round(4), smk.output.table)
