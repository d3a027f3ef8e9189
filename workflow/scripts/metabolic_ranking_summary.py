"""hit@1/10/50, mean reciprocal rank and median rank of the true genes, per method."""

from _bootstrap import setup

log = setup(snakemake)  # noqa: F821 - injected by Snakemake
smk = snakemake  # noqa: F821

import pandas as pd  # noqa: E402

from featurize.io import write_tsv_atomic  # noqa: E402
from models.ranking import ranking_metrics  # noqa: E402

rows = []
for method, path in zip(smk.params.methods, smk.input):
    ranks = pd.read_csv(path, sep="\t")
    scored = ranks.dropna(subset=["rank"])
    metrics = ranking_metrics(scored["rank"].to_numpy(), int(ranks["n_candidates"].max()))
    rows.append({"method": method, "n_reactions": ranks["reaction"].nunique(),
                 "n_true_pairs": len(ranks), "n_true_pairs_scored": len(scored),
                 "n_candidates": int(ranks["n_candidates"].max()), **metrics})
table = pd.DataFrame(rows)
log.info("\n%s", table.to_string(index=False))
write_tsv_atomic(table.round(4), smk.output[0])
