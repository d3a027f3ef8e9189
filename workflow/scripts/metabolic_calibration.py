"""Fit the confidence calibrator on the cross-validation's calibration rows
(rank/calibration.py), each fold group weighted once (the instances' column
fold_group), check it out of fold (the inner check), choose the
"no credible candidate" threshold, and write the calibrator, the table, the
reliability points and the diagram. Without usable rows (the final ranking
is not validated) the candidates get no confidence: empty tables, and a
calibrator of None."""

import pickle

import pandas as pd

from common.io import atomic_path, write_tsv_atomic
from rank.calibration import (CHECK_COLUMNS, ConfidenceCalibrator, best_per_reaction, check_table,
                              credible_threshold, family_weights, out_of_fold_confidence, reliability_table)
from report.figures import plot_reliability

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake

CHECK = "cross-validation (out of fold)"
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
else:
    ranking = str(rows["ranking"].iloc[0])
    instances = pd.read_csv(smk.input.instances, sep="\t", usecols=["reaction", "fold_group"], dtype=str)
    rows["weight"] = family_weights(rows, instances.drop_duplicates("reaction").set_index("reaction")["fold_group"])
    log.info("%d calibration rows of %d held-out reactions in %d fold groups (each group weighs one)",
             len(rows), rows["reaction"].nunique(), round(rows.drop_duplicates("reaction")["weight"].sum()))
    calibrator = ConfidenceCalibrator().fit(rows, rows["label"], sample_weight=rows["weight"])
    log.info("candidates without network evidence: held-out rank-1 share right per reaction kind and evidence "
             "pattern (motifs, adjacent, subsystem, compound), over how many fold groups, and the confidence "
             "cap (its 95%% Wilson lower bound):\n%s", calibrator.bare_cells_.round(4).to_string(index=False))
    log.info("support cap: the highest confidence the held-out rows of each reaction kind and evidence pattern "
             "support (95%% Wilson lower bound of the best set of its most confident rows; '*': all kinds):\n%s",
             calibrator.support_table().round(4).to_string(index=False))
    oof = out_of_fold_confidence(rows, sample_weight=rows["weight"])
    if smk.params.threshold == "auto":
        threshold, met = credible_threshold(best_per_reaction(rows, oof))
        rule = ("lowest confidence at which the held-out reactions' most confident candidate was a true "
                "gene at least half the time (out of fold; each fold group weighs one)")
        if not met:
            log.warning("no threshold reaches a precision of 0.5 out of fold: the highest, %.2f, is used",
                        threshold)
    else:
        threshold, rule = float(smk.params.threshold), "config"
    table = check_table(rows, oof, threshold, check=CHECK, ranking=ranking, threshold_rule=rule)
    log.info("calibration of %s, inner check:\n%s", ranking,
             table.drop(columns="threshold_rule").to_string(index=False))
    reliability = reliability_table(rows["label"], oof, sample_weight=rows["weight"]).assign(check=CHECK)
    plot_reliability({f"cross-validation, out of fold (ECE {table['ece'].iloc[0]:.3f})": reliability},
                     smk.output.plot, title=f"Confidence of {ranking}'s shown candidates")
write_tsv_atomic(reliability, smk.output.reliability)
write_tsv_atomic(table.round(4), smk.output.table)
with atomic_path(smk.output.calibrator) as tmp, open(tmp, "wb") as fh:
    pickle.dump({"ranking": ranking, "calibrator": calibrator, "threshold": threshold}, fh)
