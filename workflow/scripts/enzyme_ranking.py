"""Refit the chosen method on all known reactions and rank candidate genes
for every directed reaction without a known gene."""

from _bootstrap import setup

log = setup(snakemake)  # noqa: F821 - injected by Snakemake
smk = snakemake  # noqa: F821

import pickle  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from featurize.io import write_tsv_atomic  # noqa: E402
from models.ranking import (consensus_params, pair_score_fn, rank_candidates,  # noqa: E402
                            supporting_neighbours)
from models.registry import get_method  # noqa: E402

p = smk.params
with open(smk.input.featurizer, "rb") as fh:
    bundle = pickle.load(fh)
with open(smk.input.cv, "rb") as fh:
    cv = pickle.load(fh)
featurizer, net, candidates = bundle["featurizer"], bundle["network"], bundle["candidates"]
names, descriptions = bundle["gene_names"], bundle["gene_descriptions"]
data = np.load(smk.input.features, allow_pickle=False)

validation = pd.read_csv(smk.input.validation, sep="\t").set_index("method")
if p.method in validation.index:
    v = validation.loc[p.method]
    log.info("cross-validated ranking quality of %s: hit@10 %.3f, hit@50 %.3f, MRR %.3f over %d "
             "candidates", p.method, v["hit@10"], v["hit@50"], v["mrr"], v["n_candidates"])

params = consensus_params(cv.best_params)
log.info("refitting %s on all %d instances with %s (the choice of most outer folds)",
         p.method, len(data["y"]), params)
start = time.perf_counter()
model = get_method(p.method).make(groups=data["groups"], random_state=p.seed).set_params(**params)
model.fit(data["X"], data["y"])
log.info("fit in %.1f s", time.perf_counter() - start)

orphans = [r for r, genes in net.reactions["genes"].items() if not genes]
with_evidence = [r for r in orphans
                 if any(featurizer.neighbour_genes(r, "").values())]
log.info("orphan directed reactions: %d; with at least one motif neighbour gene: %d "
         "(the others have no evidence and are not ranked)", len(orphans), len(with_evidence))
score = pair_score_fn(featurizer, model.decision_function)
start = time.perf_counter()
top = rank_candidates(score, with_evidence, candidates, top_n=p.top_n, batch_size=p.batch_size)
log.info("scored %d reactions x %d candidates in %.1f s", len(with_evidence), len(candidates),
         time.perf_counter() - start)
top = top.dropna(subset=["score"])

rows = []
for i, row in enumerate(top.itertuples(index=False), start=1):
    r, g = row.reaction, row.gene
    info = net.reactions.loc[r]
    blocks = [t for t, hs in featurizer.neighbour_genes(r, g).items() if hs]
    support = supporting_neighbours(featurizer, model.decision_function, r, g, top=3)
    rows.append({
        "reaction_id": r,
        "reaction_name": info["name"],
        "equation": info["equation"],
        "ec_numbers": info["ec_numbers"],
        "rank": row.rank,
        "gene": g,
        "gene_name": names.get(g, ""),
        "gene_description": descriptions.get(g, ""),
        "score": round(float(row.score), 6),
        "motif_blocks": ",".join(blocks),
        "supporting_neighbours": ";".join(f"{h}({m})" for h, m, _ in support),
        "method": p.method,
    })
    if i % 1000 == 0:
        log.info("explained %d/%d ranked candidates", i, len(top))
table = pd.DataFrame(rows, columns=["reaction_id", "reaction_name", "equation", "ec_numbers", "rank",
                                    "gene", "gene_name", "gene_description", "score",
                                    "motif_blocks", "supporting_neighbours", "method"])
table = table.sort_values(["reaction_id", "rank"], kind="stable")
write_tsv_atomic(table, smk.output[0])
log.info("wrote %d rows for %d reactions", len(table), table["reaction_id"].nunique())
