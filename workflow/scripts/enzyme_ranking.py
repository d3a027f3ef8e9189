"""Refit the chosen method on all known reactions and rank candidate genes
for every directed reaction without a known gene (after the chosen gene
correction, whose reference set is the ranked orphan reactions), each shown
candidate with its calibrated confidence, listed by that confidence or by
score (metabolic.ranking.order, rank/shown_order.py). With a release history
(rank/history.py) the ranking, its confidence and threshold are the ones
learned from the history and test pairs' real orphans, listed by score, and
the quality table leads with the test pair's figures; otherwise they come from
the cross-validation."""

import time

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from geomargin.common.io import load_npz, write_tsv_atomic
from geomargin.featurize.metabolic.bundle import FeatureBundle
from geomargin.featurize.metabolic.pairs import fold_groups
from geomargin.rank.calibration import THIN_SUPPORT
from geomargin.rank.calibration_result import CalibrationResult
from geomargin.rank.credible import most_confident_rows, no_credible_candidate
from geomargin.rank.evidence_flags import shown_rows
from geomargin.rank.history import HistoryModel
from geomargin.rank.history_calibrator import FIRST_SCORE_Z, first_score_z
from geomargin.rank.history_report import history_quality_columns
from geomargin.rank.evidence import explain_ranking, mark_ranked, motif_less_validation, orphan_reactions, top1_with_motifs
from geomargin.rank.metrics import choose_ranking_method, ranking_quality
from geomargin.rank.quality_fields import chosen_by, thin_first, thin_support_fields, without_network_evidence_fields
from geomargin.rank.refit import ranking_decision_for
from geomargin.rank.scoring import pair_score_fn, rank_candidates, split_ranking_name
from geomargin.rank.shown_order import shown_positions, shown_ranks, shown_tops

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake

p = smk.params
bundle = FeatureBundle.load(smk.input.featurizer)
featurizer, net, candidates = bundle.featurizer, bundle.network, bundle.candidates
data = load_npz(smk.input.features, allow_pickle=False)

validation = pd.read_csv(smk.input.validation, sep="\t")
# learned from the release history's real orphans (history and test pairs), when it applies
history = HistoryModel.load(smk.input.history) if hasattr(smk.input, "history") else None
if history is not None:
    method = history.ranking
    log.info("release history (%s): %s, chosen on %s (%s)", ", ".join(history.pairs), method,
             history.choice["chosen_on"], history.choice["chosen_by"])
elif p.method == "auto":
    method = choose_ranking_method(validation, "mrr")
    log.info("method 'auto': %s has the best validated MRR of %s", method,
             ", ".join(validation["method"]))
else:
    method = p.method
# "<model>+<gene correction>": the model's scores, corrected per gene over the ranked orphans
model_name, correction = split_ranking_name(method)
v = validation.set_index("method").loc[method] if method in set(validation["method"]) else None
calibration = CalibrationResult.load(smk.input.calibrator)
if history is not None:
    calibration = CalibrationResult.from_history(history)
elif calibration.ranking not in (None, method):
    raise ValueError(f"{smk.input.calibrator}: calibrated for ranking {calibration.ranking!r}, but the "
                     f"ranking is {method!r}; rerun the ranking validation (its rows follow "
                     "metabolic.ranking.method)")
# "score" whenever there is no calibrator (the calibration step's choice)
order = calibration.order
tops = pd.read_csv(smk.input.tops, sep="\t", keep_default_na=False)
true_ranks = pd.read_csv(smk.input.true_ranks, sep="\t")
cv_rows = pd.read_csv(smk.input.calibration_rows, sep="\t")
cv_first = cv_rows["rank"].to_numpy() == 1
if order == "confidence":
    # the validated quality, rank-1 genes and true-gene ranks of the ranking as it is listed: the
    # held-out reactions' shown rows by their out-of-fold confidence (the calibration step's order)
    shown_v = pd.read_csv(smk.input.shown_validation, sep="\t")
    v = shown_v[shown_v["shown"].astype(bool)].set_index("method").loc[method]
    pos = calibration.shown_positions
    if len(pos) != len(cv_rows):
        raise ValueError(f"{smk.input.calibrator}: {len(pos)} shown positions for the {len(cv_rows)} rows of "
                         f"{smk.input.calibration_rows}; rerun the calibration")
    tops = pd.concat([tops[tops["method"] != method], shown_tops(cv_rows, pos, method)], ignore_index=True)
    mine = true_ranks["method"] == method
    true_ranks = pd.concat([true_ranks[~mine], shown_ranks(true_ranks[mine], cv_rows, pos)], ignore_index=True)
    cv_first = pos == 1
if v is not None:
    log.info("cross-validated ranking quality of %s: hit@10 %.3f [%.3f, %.3f], hit@50 %.3f "
             "[%.3f, %.3f], MRR %.3f [%.3f, %.3f] over %d candidates", method,
             v["hit@10"], v["hit@10_lo"], v["hit@10_hi"], v["hit@50"], v["hit@50_lo"],
             v["hit@50_hi"], v["mrr"], v["mrr_lo"], v["mrr_hi"], v["n_candidates"])
else:
    log.warning("%s was not in the ranking validation: its ranking quality is unknown", method)

decision, _ = ranking_decision_for(model_name, dict(zip(p.cv_methods, smk.input.cv)).get(model_name), data,
                                   featurizer, seed=p.seed, margin_rule=p.margin_rule, log=log)

orphans = orphan_reactions(net, featurizer, kinds=p.kinds, evidence=p.evidence)
with_evidence = orphans.index[orphans["eligible"]].tolist()
log.info("orphan directed reactions: %d (%s); to rank: %d (kinds %s, with evidence of %s: %s)",
         len(orphans), orphans["reaction_kind"].value_counts().to_dict(), len(with_evidence),
         ",".join(p.kinds), ", ".join(p.evidence),
         orphans.loc[orphans["eligible"], "ranked_on"].value_counts().to_dict())
score = pair_score_fn(featurizer, decision)
start = time.perf_counter()
# one BLAS/OpenMP thread per process: scoring is many small batches, spread
# over smk.threads processes (benchmarks/score_cost.py measures the choice)
with threadpool_limits(1):
    top = rank_candidates(score, with_evidence, candidates, top_n=p.top_n,
                          batch_size=p.batch_size, gene_correction=correction, standardised=True,
                          n_jobs=smk.threads)
log.info("scored %d reactions x %d candidates in %.1f s (gene correction: %s; %d process(es))",
         len(with_evidence), len(candidates), time.perf_counter() - start, correction, smk.threads)
top = top.dropna(subset=["score"]).reset_index(drop=True)

# the calibrated confidence of every shown candidate, and the orphans without a credible one
with threadpool_limits(1):
    shown = shown_rows(top, featurizer, net.reactions["reaction_kind"], n_jobs=smk.threads)
# whether each orphan's first candidate stands out (the release history's confidence reads it)
shown[FIRST_SCORE_Z] = first_score_z(shown)
if calibration.calibrator is None:
    log.warning("no calibrator (see the calibration log): no confidence, no orphan marked")
    top["confidence"], top["held_out_like"], top["no_credible_candidate"] = np.nan, np.nan, ""
    best, best_support = pd.Series(dtype=float), pd.Series(dtype=float)
else:
    top["confidence"] = calibration.calibrator.predict_proba(shown)
    # how many held-out cases of the same kind, evidence and own kind of work back it
    top["held_out_like"] = calibration.calibrator.held_out_like(shown)
    # each orphan's most confident candidate (the first listed by confidence; ties by score rank), its support
    most = top.iloc[most_confident_rows(top, top["confidence"])].set_index("reaction")
    best, best_support = most["confidence"], most["held_out_like"]
    flagged = pd.Series(no_credible_candidate(best.to_numpy(), calibration.threshold), index=best.index)
    top["no_credible_candidate"] = top["reaction"].map(flagged).astype(bool)
    log.info("confidence threshold %.2f: %d of %d ranked orphans have no credible candidate",
             calibration.threshold, int(flagged.sum()), len(flagged))
# the shown rows listed by confidence (ties by score rank); score_rank keeps the model's order
top["score_rank"] = top["rank"]
if order == "confidence":
    top["rank"] = shown_positions(top, top["confidence"].to_numpy())
    moved = int((top["rank"] != top["score_rank"]).groupby(top["reaction"]).any().sum())
    log.info("shown rows listed by confidence: %d of %d orphans have another first candidate than by score; "
             "%d have any row moved", int(((top["rank"] == 1) & (top["score_rank"] != 1)).sum()),
             top["reaction"].nunique(), moved)
# the orphans whose first candidate rests on few held-out cases like it
first, thin = (top["rank"] == 1).to_numpy(), thin_first(top)
thin_support = thin_support_fields(top, calibration.calibrator is not None)
log.info("first candidates backed by fewer than %d held-out cases like them (held_out_like): %s of %d orphans "
         "(mean confidence %.3f; the others %.3f)", THIN_SUPPORT, thin_support["orphan_top1_thin_support"],
         int(first.sum()), thin_support["orphan_top1_thin_support_confidence"],
         top.loc[first & ~thin, "confidence"].mean() if (first & ~thin).any() else float("nan"))

# rank-1 candidates without network evidence (no related, subsystem or similar-compound
# reaction): their confidence beside how often the held-out reactions listed first the same way
# were right (each fold group weighing one; listed by confidence these are not the score-rank-1
# rows of the calibrator's cells, whose share for their kind and evidence pattern the orphans
# must not pass)
groups = fold_groups(net)  # each fold group weighs one, here and in the quality table
without_network = without_network_evidence_fields(top, shown, cv_rows, cv_first, groups, calibration.calibrator)
log.info("rank-1 candidates without network evidence: %d orphans (highest confidence %.3f); in the "
         "validation %d held-out reactions, right for a share of %.3f (each fold group weighing one); "
         "orphans above their evidence pattern's validated share: %s", *without_network.values())

with threadpool_limits(1):
    table = explain_ranking(top, featurizer, net, decision, method=method,
                            names=bundle.gene_names, descriptions=bundle.gene_descriptions,
                            gene_domains=bundle.gene_domains,
                            gene_compartments=bundle.gene_compartments,
                            log=log, n_jobs=smk.threads)
quality, top1 = ranking_quality(
    top, v, tops, net.reactions["reaction_kind"],
    method=method, chosen_by=chosen_by(p.method, history),
    margin_rule=p.margin_rule, gene_correction=correction, fold_groups=groups)
# how far to trust the orphans ranked on their subsystem or compounds alone
without = motif_less_validation(true_ranks, method, featurizer, top)
# the concentration over the orphans with a motif neighbour gene only
with_motifs = top1_with_motifs(featurizer, top)
for k, val in {**without, **with_motifs, **without_network, **thin_support}.items():
    quality[k] = val
quality.insert(quality.columns.get_loc("gene_correction") + 1, "order", order)
if history is not None:
    # the test pair's figures first (scored with what history alone chose), then the rest
    test = pd.read_csv(smk.input.history_test, sep="\t")
    lead = history_quality_columns(test, history, method)
    quality = pd.concat([quality[["method"]], pd.DataFrame([lead], index=quality.index),
                         quality.drop(columns="method")], axis=1)
    # the unconditional view: the confidence times the share of ranked orphans of the kind that gained any gene
    table.insert(table.columns.get_loc("confidence") + 1, "unconditional_confidence",
                 (table["confidence"] * table["reaction_kind"].map(history.gain_shares)).round(6))
log.info("ranked without a motif neighbour gene: %d orphans; in the validation %d such held-out "
         "reactions: hit@1 %.3f, hit@10 %.3f, median rank %s", without["orphans_ranked_without_motifs"],
         without["validated_without_motifs_n_reactions"], without["validated_without_motifs_hit@1"],
         without["validated_without_motifs_hit@10"], without["validated_without_motifs_median_rank"])
log.info("over the %d ranked orphans with a motif neighbour gene: %s tops %d (%.1f%%)",
         with_motifs["orphans_ranked_with_motifs"], with_motifs["orphan_top1_gene_with_motifs"],
         with_motifs["orphan_top1_reactions_with_motifs"], 100 * with_motifs["orphan_top1_share_with_motifs"])
gene, share, record = top1["gene"], top1["share"], top1["record"]
log.info("rank-1 concentration: %s tops %d of %d ranked reactions (%.1f%%)", gene, top1["n_top"],
         top["reaction"].nunique(), 100 * share)
log.info("in the validation %s ranked %s first for %d held-out reactions (%.1f%%), rightly for %d "
         "(precision %.3f against its hit@1 %.3f): the orphans' %.1f%% is %s", method, gene,
         record["tops"], 100 * record["share"], record["correct"], record["precision"],
         record["hit1"], 100 * share, "earned" if record["earned"] else "not earned")
g = top1["by_group"]
log.info("counting each fold group once (acyl-chain forms, both directions): %s tops %.1f of %d "
         "ranked groups (%.1f%%); in the validation %.1f of %d held-out groups (%.1f%%)", g["gene"],
         g["groups_topped"], g["groups"], 100 * g["share"], g["validated_groups_topped"],
         g["validated_groups"], 100 * g["validated_share"])
for k in top1["by_kind"].itertuples():
    log.info("%s reactions: %s tops %d of %d orphans (%.1f%%) and %d of the held-out ones (%.1f%%), "
             "rightly for %d (precision %.3f against the kind's hit@1 %.3f): %s", k.reaction_kind, gene,
             k.orphan_tops, k.orphans, 100 * k.orphan_share, k.tops, 100 * k.share, k.correct,
             k.precision, k.hit1, "earned" if k.earned else "not earned")
write_tsv_atomic(quality.round(4), smk.output.quality)
write_tsv_atomic(table, smk.output.ranking)
log.info("wrote %d rows for %d reactions", len(table), table["reaction_id"].nunique())
orphan_table = mark_ranked(orphans, table["reaction_id"].unique(), best_confidence=best,
                           threshold=calibration.threshold, best_support=best_support)
write_tsv_atomic(orphan_table, smk.output.orphans)
log.info("orphan reactions: %d, ranked %d; not ranked: %s", len(orphan_table),
         int((orphan_table["ranked"] == "yes").sum()),
         orphan_table.loc[orphan_table["ranked"] == "no", "reason"].value_counts().to_dict())
