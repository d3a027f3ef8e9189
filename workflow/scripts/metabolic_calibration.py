"""Fit the confidence calibrator on the cross-validation's calibration rows
(rank/calibration.py), each fold group weighted once (the instances' column
fold_group), check it out of fold (the inner check), choose the
"no credible candidate" threshold, and write the calibrator, the table, the
reliability points and the diagram; and the validated quality of the
cross-validation's choice in both orders of its shown rows
(rank/shown_order.py), the held-out rows ordered by the out-of-fold
confidence, marking the order enzyme_ranking.tsv lists unless a release
history applies (then it lists the history's choice). Without usable rows
(the final ranking is not validated) the candidates get no confidence:
empty tables, a calibrator of None, and the score order only."""

import pandas as pd

from geomargin.common.io import write_tsv_atomic
from geomargin.rank.calibration import ConfidenceCalibrator, fold_group_weights, out_of_fold_confidence
from geomargin.rank.calibration_check import CHECK_COLUMNS, check_table, reliability_table
from geomargin.rank.calibration_result import CalibrationResult, choose_order, choose_threshold, mark_shown
from geomargin.rank.shown_order import shown_positions, shown_ranks, shown_tops
from geomargin.rank.validation import validation_table
from geomargin.report.figures import plot_reliability

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake

CHECK = "cross-validation (out of fold)"
p = smk.params
rows = pd.read_csv(smk.input.rows, sep="\t", keep_default_na=False, na_values=[""])
usable = len(rows) and rows["label"].nunique() == 2 and rows["fold"].nunique() >= 2
if not usable:
    log.warning("%s: %d calibration rows, %s: the candidates get no confidence and no orphan is marked",
                smk.input.rows, len(rows), "the final ranking is not validated" if not len(rows)
                else "too few folds or no true gene among them")
    ranking, calibrator, threshold = None, None, None
    table = pd.DataFrame(columns=CHECK_COLUMNS)
    reliability = reliability_table([], []).assign(check=CHECK)
    plot_reliability({}, smk.output.plot, title="No calibration (see the log)")
    shown, pos, order = pd.DataFrame(columns=["method", "order", "shown"]), None, "score"
else:
    ranking = str(rows["ranking"].iloc[0])
    instances = pd.read_csv(smk.input.instances, sep="\t", usecols=["reaction", "fold_group"], dtype=str)
    rows["weight"] = fold_group_weights(rows, instances.drop_duplicates("reaction").set_index("reaction")["fold_group"])
    log.info("%d calibration rows of %d held-out reactions in %d fold groups (each group weighs one)",
             len(rows), rows["reaction"].nunique(), round(rows.drop_duplicates("reaction")["weight"].sum()))
    calibrator = ConfidenceCalibrator().fit(rows, rows["label"], sample_weight=rows["weight"])
    log.info("candidates without network evidence: held-out rank-1 share right per reaction kind and evidence "
             "pattern (motifs, adjacent, subsystem, compounds), over how many fold groups, and the confidence "
             "cap (its 95%% Wilson lower bound):\n%s", calibrator.without_network_cells_.round(4).to_string(index=False))
    log.info("support cap: the highest confidence the held-out rows of each reaction kind and evidence pattern "
             "support (95%% Wilson lower bound of the best set of its most confident rows; '*': all kinds):\n%s",
             calibrator.support_table().round(4).to_string(index=False))
    oof = out_of_fold_confidence(rows, sample_weight=rows["weight"])
    threshold, rule, met = choose_threshold(p.threshold, rows, oof)
    if not met:
        log.warning("no threshold reaches a precision of 0.5 out of fold: the highest, %.2f, is used", threshold)
    # the validated quality of the ranking as listed: its shown rows in score order and by the
    # out-of-fold confidence (each held-out reaction's rows ordered by a calibrator that never saw
    # its fold); "auto" lists by confidence when that has the better validated MRR
    pos = shown_positions(rows, oof)
    ranks = pd.read_csv(smk.input.ranks, sep="\t")
    tops = pd.read_csv(smk.input.tops, sep="\t", keep_default_na=False)
    ranks, tops = ranks[ranks["method"] == ranking], tops[tops["method"] == ranking]
    n_candidates = int(ranks["n_candidates"].max())
    shown = pd.concat([
        validation_table(ranks, tops, [ranking], n_candidates, p.n_bootstrap, p.seed).assign(order="score"),
        validation_table(shown_ranks(ranks, rows, pos), shown_tops(rows, pos, ranking), [ranking], n_candidates,
                         p.n_bootstrap, p.seed).assign(order="confidence")], ignore_index=True)
    order = choose_order(p.order, shown)
    if p.release_history:
        log.info("a release history applies: enzyme_ranking.tsv lists its choice by score, not %s; "
                 "shown_validation.tsv and calibration.tsv validate the cross-validation's own choice, "
                 "no row is marked shown (the listed ranking's check: history_test_confidence.tsv)", ranking)
    shown = mark_shown(shown, order, listed=not p.release_history)
    shown = shown[["method", "order", "shown", *[c for c in shown.columns if c not in ("method", "order", "shown")]]]
    log.info("validated quality of %s's shown rows in score order and by confidence (out of fold); listed by "
             "%s (%s)\n%s", ranking, order, "config" if p.order != "auto" else "auto: the better validated MRR",
             shown[["order", "hit@1", "hit@10", "hit@50", "mrr", "median_rank", "top1_gene", "top1_share",
                    "top1_precision"]].to_string(index=False))
    # listed by confidence, a reaction's rank-1 row is its most confident (out of fold)
    listed = rows.assign(rank=pos) if order == "confidence" else rows
    table = check_table(listed, oof, threshold, check=CHECK, ranking=ranking, threshold_rule=rule)
    log.info("calibration of %s, inner check:\n%s", ranking,
             table.drop(columns="threshold_rule").to_string(index=False))
    reliability = reliability_table(rows["label"], oof, sample_weight=rows["weight"]).assign(check=CHECK)
    plot_reliability({f"cross-validation, out of fold (ECE {table['ece'].iloc[0]:.3f})": reliability},
                     smk.output.plot, title=f"Confidence of {ranking}'s shown candidates")

write_tsv_atomic(shown.round(4), smk.output.shown_validation)
write_tsv_atomic(reliability, smk.output.reliability)
write_tsv_atomic(table.round(4), smk.output.table)
# the order of the shown rows, and each calibration row's place in it out of fold (the
# validation's rank-1 rows and true-gene ranks as the ranking is listed)
CalibrationResult(ranking, calibrator, threshold, order,
                  pos if calibrator is not None else None).save(smk.output.calibrator)
