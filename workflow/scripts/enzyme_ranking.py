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
from models.evidence import explain_ranking, mark_ranked, orphan_reactions  # noqa: E402
from models.ranking import consensus_params, pair_score_fn, rank_candidates  # noqa: E402
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

orphans = orphan_reactions(net, featurizer, kinds=p.kinds)
with_evidence = orphans.index[orphans["eligible"]].tolist()
log.info("orphan directed reactions: %d (%s); to rank: %d (kinds %s, with at least one motif "
         "neighbour gene)", len(orphans), orphans["reaction_kind"].value_counts().to_dict(),
         len(with_evidence), ",".join(p.kinds))
score = pair_score_fn(featurizer, model.decision_function)
start = time.perf_counter()
top = rank_candidates(score, with_evidence, candidates, top_n=p.top_n, batch_size=p.batch_size)
log.info("scored %d reactions x %d candidates in %.1f s", len(with_evidence), len(candidates),
         time.perf_counter() - start)
top = top.dropna(subset=["score"])

table = explain_ranking(top, featurizer, net, model.decision_function, method=p.method,
                        names=names, descriptions=descriptions,
                        gene_domains=bundle["gene_domains"],
                        gene_compartments=bundle["gene_compartments"],
                        true_ranks=pd.read_csv(smk.input.true_ranks, sep="\t"), log=log)
write_tsv_atomic(table, smk.output.table)
log.info("wrote %d rows for %d reactions", len(table), table["reaction_id"].nunique())
orphan_table = mark_ranked(orphans, table["reaction_id"].unique())
write_tsv_atomic(orphan_table, smk.output.orphans)
log.info("orphan reactions: %d, ranked %d; not ranked: %s", len(orphan_table),
         int((orphan_table["ranked"] == "yes").sum()),
         orphan_table.loc[orphan_table["ranked"] == "no", "reason"].value_counts().to_dict())
