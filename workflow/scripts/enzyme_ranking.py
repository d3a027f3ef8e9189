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
from models.ranking import (COEXPR, choose_ranking_method, coexpression_scores,  # noqa: E402
                            consensus_params, pair_score_fn, rank_candidates, ranking_decision,
                            supporting_neighbours, top1_concentration)
from models.registry import get_method  # noqa: E402

p = smk.params
with open(smk.input.featurizer, "rb") as fh:
    bundle = pickle.load(fh)
featurizer, net, candidates = bundle["featurizer"], bundle["network"], bundle["candidates"]
names, descriptions = bundle["gene_names"], bundle["gene_descriptions"]
data = np.load(smk.input.features, allow_pickle=False)

validation = pd.read_csv(smk.input.validation, sep="\t")
if p.method == "auto":
    method = choose_ranking_method(validation, "mrr")
    log.info("method 'auto': %s has the best validated MRR of %s", method,
             ", ".join(validation["method"]))
else:
    method = p.method
v = validation.set_index("method").loc[method] if method in set(validation["method"]) else None
if v is not None:
    log.info("cross-validated ranking quality of %s: hit@10 %.3f [%.3f, %.3f], hit@50 %.3f "
             "[%.3f, %.3f], MRR %.3f [%.3f, %.3f] over %d candidates", method,
             v["hit@10"], v["hit@10_lo"], v["hit@10_hi"], v["hit@50"], v["hit@50_lo"],
             v["hit@50_hi"], v["mrr"], v["mrr_lo"], v["mrr_hi"], v["n_candidates"])
else:
    log.warning("%s was not in the ranking validation: its ranking quality is unknown", method)

if method == COEXPR:
    def decision(X):
        return coexpression_scores(featurizer, X)
else:
    with open(dict(zip(p.cv_methods, smk.input.cv))[method], "rb") as fh:
        cv = pickle.load(fh)
    params = consensus_params(cv.best_params)
    log.info("refitting %s on all %d instances with %s (the choice of most outer folds)",
             method, len(data["y"]), params)
    start = time.perf_counter()
    model = get_method(method).make(groups=data["groups"], random_state=p.seed).set_params(**params)
    model.fit(data["X"], data["y"])
    log.info("fit in %.1f s", time.perf_counter() - start)
    decision = ranking_decision(model, p.margin_rule)

orphans = [r for r, genes in net.reactions["genes"].items() if not genes]
with_evidence = [r for r in orphans
                 if any(featurizer.neighbour_genes(r, "").values())]
log.info("orphan directed reactions: %d; with at least one motif neighbour gene: %d "
         "(the others have no evidence and are not ranked)", len(orphans), len(with_evidence))
score = pair_score_fn(featurizer, decision)
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
    support = supporting_neighbours(featurizer, decision, r, g, top=3)
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
        "method": method,
    })
    if i % 1000 == 0:
        log.info("explained %d/%d ranked candidates", i, len(top))
table = pd.DataFrame(rows, columns=["reaction_id", "reaction_name", "equation", "ec_numbers", "rank",
                                    "gene", "gene_name", "gene_description", "score",
                                    "motif_blocks", "supporting_neighbours", "method"])
table = table.sort_values(["reaction_id", "rank"], kind="stable")
gene, n_top, share = top1_concentration(top)
log.info("rank-1 concentration: %s tops %d of %d ranked reactions (%.1f%%)", gene, n_top,
         top["reaction"].nunique(), 100 * share)
quality = {"method": method, "chosen_by": "auto (best validated MRR)" if p.method == "auto"
           else "config", "margin_rule": p.margin_rule}
for key in ("n_reactions", "n_true_pairs", "n_candidates", "hit@1", "hit@10", "hit@50", "mrr",
            "median_rank", "top1_gene", "top1_share"):
    for suffix in ("", "_lo", "_hi"):
        if v is not None and key + suffix in v.index:
            quality[f"validated_{key}{suffix}"] = v[key + suffix]
quality.update({"orphans_ranked": int(top["reaction"].nunique()), "orphan_top1_gene": gene,
                "orphan_top1_reactions": n_top, "orphan_top1_share": share})
write_tsv_atomic(pd.DataFrame([quality]).round(4), smk.output.quality)
write_tsv_atomic(table, smk.output.ranking)
log.info("wrote %d rows for %d reactions", len(table), table["reaction_id"].nunique())
