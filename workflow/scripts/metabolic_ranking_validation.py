"""Rank every candidate gene for each held-out reaction with known genes,
using the model of the fold that held the reaction out."""

from _bootstrap import setup

log = setup(snakemake)  # noqa: F821 - injected by Snakemake
smk = snakemake  # noqa: F821

import pickle  # noqa: E402
import time  # noqa: E402

import pandas as pd  # noqa: E402

from featurize.io import write_tsv_atomic  # noqa: E402
from models.ranking import pair_score_fn, true_gene_ranks  # noqa: E402

with open(smk.input.featurizer, "rb") as fh:
    bundle = pickle.load(fh)
with open(smk.input.cv, "rb") as fh:
    cv = pickle.load(fh)
featurizer, net, candidates = bundle["featurizer"], bundle["network"], bundle["candidates"]
instances = pd.read_csv(smk.input.instances, sep="\t")
method = smk.wildcards.method

rows = []
n_folds = len(cv.models)
start = time.perf_counter()
for fold, (test_idx, model) in enumerate(zip(cv.test_index, cv.models), start=1):
    held = instances.iloc[test_idx]
    reactions = sorted(held.loc[held["label"] == 1, "reaction"].unique())
    for i, reaction in enumerate(reactions, start=1):
        true = list(net.reactions.at[reaction, "genes"])
        ranks = true_gene_ranks(
            pair_score_fn(featurizer, model.decision_function),
            reaction,
            candidates,
            true,
            batch_size=smk.params.batch_size,
        )
        for gene, rank in ranks.items():
            rows.append((method, fold, reaction, gene, rank, len(candidates)))
        if i % 50 == 0 or i == len(reactions):
            log.info("%s fold %d/%d: reactions scored %d/%d (%.0f s)", method, fold, n_folds,
                     i, len(reactions), time.perf_counter() - start)
table = pd.DataFrame(rows, columns=["method", "fold", "reaction", "gene", "rank", "n_candidates"])
write_tsv_atomic(table, smk.output[0])
