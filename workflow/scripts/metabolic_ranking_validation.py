"""Rank every candidate gene for the held-out reactions with known genes,
using, for each method, the model of the outer fold that held the reaction
out, beside the non-learned co-expression baseline (``coexpr``).

All methods share the outer folds (they depend only on labels, reaction
groups and the seed), so each candidate matrix is built once and scored by
every method's fold model. Each method and baseline is also ranked after
each configured gene correction ("<method>+<correction>" rows), whose
reference set is the fold's ranked reactions. Intervals: percentile
bootstrap over reactions."""

import copy
import pickle
import sys
import time
import multiprocessing as mp
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

from threadpoolctl import threadpool_limits

import numpy as np
import pandas as pd

from common.io import write_tsv_atomic
from featurize.metabolic.expression import normalize_gene_id
from models.metabolic.ranking import (ADJACENCY, BASELINES, baseline_scores,
                                      bootstrap_ranking_metrics, candidate_order, correct_scores,
                                      gene_id_ranks, MARGIN_RULES, ranking_decisions, ranking_name,
                                      top1_record, true_gene_ranks)

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake

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

# the adjacency baseline needs the featurizer's net blocks
baselines = [b for b in BASELINES if b != ADJACENCY or getattr(featurizer, "adjacency", False)]
# the geometric-margin models are also scored by the other margin rule
# ("<method>@<rule>" rows; never chosen by "auto"), to measure the choice
other_rule = next(r for r in MARGIN_RULES if r != p.margin_rule)
with_scales = [m for m, cv in cvs.items() if hasattr(cv.models[0], "scales")]
scored = [*baselines, *p.methods, *(f"{m}@{other_rule}" for m in with_scales)]
# every configured gene correction of each baseline and method (not of the
# other margin rule's rows)
corrections = {name: ["none", *(p.gene_corrections if "@" not in name else [])] for name in scored}
names = [ranking_name(n, c) for n in scored for c in corrections[n]]
kind_of = net.reactions["reaction_kind"] if "reaction_kind" in net.reactions.columns else None
n_folds = len(reference)
gene_rank = gene_id_ranks(candidates)
start = time.perf_counter()


def fold_reactions(fold: int, test_idx) -> list[str]:
    """The fold's held-out reactions with known genes (all of them, or a
    seeded sample of ``per_fold``)."""
    held = instances.iloc[test_idx]
    reactions = sorted(held.loc[held["label"] == 1, "reaction"].unique())
    n_held = len(reactions)
    if 0 < p.per_fold < n_held:
        rng = np.random.default_rng([p.seed, fold])
        reactions = sorted(rng.choice(reactions, size=p.per_fold, replace=False))
    log.info("fold %d/%d: ranking %d of %d held-out reactions against %d candidates",
             fold, n_folds, len(reactions), n_held, len(candidates))
    if p.gene_corrections and len(reactions) < 2:
        raise ValueError(f"outer fold {fold} ranks {len(reactions)} reaction(s) with known genes, "
                         f"but the gene corrections {list(p.gene_corrections)} compare each gene's "
                         "scores over at least 2 reactions ranked together; set "
                         "metabolic.ranking.gene_corrections to [], "
                         "metabolic.ranking.validation_reactions_per_fold to 0 or >= 2, "
                         "or use fewer folds (metabolic.n_splits)")
    return reactions


def score_part(fold: int, reactions: list[str]) -> dict[str, np.ndarray]:
    """(reactions x candidates) scores of every baseline and fold model."""
    # every model once per batch; a geometric-margin model gives both rules from one pass.
    # A forked worker has its own copy of the models; in the thread fallback each part
    # copies them, as some keep per-call state
    own = (lambda model: model) if fork else copy.deepcopy
    score_fns = {m: ranking_decisions(own(cv.models[fold - 1]),
                                      [p.margin_rule, other_rule] if m in with_scales else [p.margin_rule])
                 for m, cv in cvs.items()}
    scores = {m: np.empty((len(reactions), len(candidates))) for m in scored}
    for i, reaction in enumerate(reactions):
        for b in range(0, len(candidates), p.batch_size):  # bounded memory
            X = featurizer.candidate_matrix(reaction, candidates[b:b + p.batch_size])
            empty = np.isnan(X).all(axis=1)  # no evidence: ranks last
            for name in baselines:
                scores[name][i, b:b + len(X)] = baseline_scores(name, featurizer, X)
            for method, fn in score_fns.items():
                for rule, s in fn(X).items():
                    s = np.array(s, dtype=np.float64)  # a copy: one array may serve two rules
                    s[empty] = np.nan
                    name = method if rule == p.margin_rule else f"{method}@{rule}"
                    scores[name][i, b:b + len(s)] = s
        if (i + 1) % 50 == 0 or i + 1 == len(reactions):
            log.info("fold %d/%d: reactions scored %d/%d of this part (%.0f s)", fold, n_folds,
                     i + 1, len(reactions), time.perf_counter() - start)
    return scores


def rank_fold(fold: int, reactions: list[str], scores: dict) -> tuple[list[tuple], list[tuple]]:
    """Ranks of the true genes, and the rank-1 gene, of the fold's reactions,
    for every ranking (the gene corrections take the fold's reactions as the
    reference set)."""
    rows, tops = [], []
    true = [list(net.reactions.at[reaction, "genes"]) for reaction in reactions]
    true_ids = [{normalize_gene_id(g) for g in genes} for genes in true]
    kinds = [kind_of.get(reaction, "") if kind_of is not None else "" for reaction in reactions]
    for method in scored:
        for correction in corrections[method]:
            name = ranking_name(method, correction)
            S = correct_scores(scores[method], correction)
            for i, reaction in enumerate(reactions):
                s = S[i]
                ranks = true_gene_ranks(lambda r, genes, s=s: s, reaction, candidates, true[i],
                                        batch_size=len(candidates))
                rows += [(name, fold, reaction, g, r, len(candidates)) for g, r in ranks.items()]
                first = candidate_order(s, gene_rank)[0]
                top = candidates[first] if not np.isnan(s[first]) else ""
                tops.append((name, fold, reaction, top,
                             bool(top) and normalize_gene_id(top) in true_ids[i], kinds[i]))
    return rows, tops


# Each fold's reactions are split into one part per core, scored in worker
# processes; the main process ranks a fold (and its gene corrections) as soon
# as its parts are back, while the workers score the next folds. Processes,
# not threads: building the candidate matrices holds the GIL, and two
# threads used 1.3 cores. The workers are forked, so they share the
# featurizer and the fold models without pickling them (threads on other
# platforms than Linux). BLAS and OpenMP get one thread each: the parts
# already use every core, and oversubscribed OpenMP made gradient boosting's
# scoring 40x slower.
n_workers = max(1, smk.threads)
fork = sys.platform.startswith("linux")  # fork is unsafe after BLAS/ObjC start-up on macOS
per_fold = []
with threadpool_limits(1):
    with (ProcessPoolExecutor(max_workers=n_workers, mp_context=mp.get_context("fork")) if fork
          else ThreadPoolExecutor(max_workers=n_workers)) as pool:
        folds = [(fold, fold_reactions(fold, idx)) for fold, idx in enumerate(reference, start=1)]
        pending = [[pool.submit(score_part, fold, list(part)) for part in np.array_split(
            np.array(reactions, dtype=object), min(n_workers, max(1, len(reactions))))]
            for fold, reactions in folds]
        for (fold, reactions), futures in zip(folds, pending):
            part_scores = [f.result() for f in futures]
            scores = {m: np.concatenate([sc[m] for sc in part_scores]) for m in scored}
            del part_scores
            futures.clear()
            per_fold.append(rank_fold(fold, reactions, scores))
rows = [row for fold_rows, _ in per_fold for row in fold_rows]
tops = pd.DataFrame([t for _, fold_tops in per_fold for t in fold_tops],
                    columns=["method", "fold", "reaction", "top_gene", "top_is_true", "reaction_kind"])

ranks = pd.DataFrame(rows, columns=["method", "fold", "reaction", "gene", "rank", "n_candidates"])
summary = []
for method in names:
    r = ranks[ranks["method"] == method]
    m = bootstrap_ranking_metrics(r, len(candidates), n_boot=p.n_bootstrap, seed=p.seed)
    t = tops[(tops["method"] == method) & (tops["top_gene"] != "")]
    counts = t["top_gene"].value_counts()
    best = int(counts.max()) if len(counts) else 0
    top_gene = sorted(counts.index[counts == best])[0] if best else ""
    # how often the most frequent first gene was right when first (vs hit@1)
    precision = top1_record(tops, method, top_gene)["precision"] if best else np.nan
    summary.append({"method": method, "n_reactions": m.pop("n_reactions"),
                    "n_true_pairs": m.pop("n_true"), **m,
                    "top1_gene": top_gene, "top1_share": best / len(t) if len(t) else np.nan,
                    "top1_precision": precision})
table = pd.DataFrame(summary)
for b in baselines:  # a learned method must beat each baseline in hit@50 and MRR
    base = table.set_index("method").loc[b]
    col = f"beats_{b}"
    table[col] = (table["hit@50"] > base["hit@50"]) & (table["mrr"] > base["mrr"])
    table.loc[table["method"].isin(baselines), col] = False
    for method in table.loc[~table[col] & table["method"].isin(p.methods), "method"]:
        log.warning("%s does not beat the %s baseline (hit@50 and MRR)", method, b)
log.info("ranked %d reactions in %.0f s\n%s", ranks["reaction"].nunique(),
         time.perf_counter() - start, table.to_string(index=False))
write_tsv_atomic(ranks, smk.output.ranks)
write_tsv_atomic(tops, smk.output.tops)
write_tsv_atomic(table.round(4), smk.output.table)
