"""Fit the confidence calibrator on the cross-validation's calibration rows
(rank/calibration.py), check it out of fold (the inner check), choose the
"no credible candidate" threshold, and write the calibrator, the table, the
reliability points and the diagram."""

import pickle

import pandas as pd

from common.io import atomic_path, write_tsv_atomic
from rank.calibration import (ConfidenceCalibrator, best_per_reaction, credible_threshold,
                              expected_calibration_error, out_of_fold_confidence, reliability_table)
from report.figures import plot_reliability

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake

rows = pd.read_csv(smk.input.rows, sep="\t", keep_default_na=False, na_values=[""])
if rows.empty:
    raise ValueError(f"{smk.input.rows}: no calibration rows (the validation ranked no held-out reaction)")
ranking = str(rows["ranking"].iloc[0])
calibrator = ConfidenceCalibrator().fit(rows, rows["label"])
oof = out_of_fold_confidence(rows)
best = best_per_reaction(rows, oof)
if smk.params.threshold == "auto":
    threshold, met = credible_threshold(best)
    rule = ("lowest confidence at which the held-out reactions' most confident candidate was a true gene "
            "at least half the time (out of fold)")
    if not met:
        log.warning("no threshold reaches a precision of 0.5 out of fold: the highest, %.2f, is used", threshold)
else:
    threshold, rule = float(smk.params.threshold), "config"
table = []
for scope in ["all", *sorted(rows["reaction_kind"].unique())]:
    m = (rows["reaction_kind"] == scope).to_numpy() if scope != "all" else slice(None)
    b = best if scope == "all" else best[best["reaction_kind"] == scope]
    credible = b["confidence"] >= threshold
    table.append({
        "ranking": ranking, "check": "cross-validation (out of fold)", "reaction_kind": scope,
        "reactions": int(rows.loc[m, "reaction"].nunique()), "rows": int(len(rows.loc[m])),
        "true_gene_rows": int(rows.loc[m, "label"].sum()), "mean_confidence": float(oof[m].mean()),
        "true_gene_share": float(rows.loc[m, "label"].mean()),
        "ece": expected_calibration_error(rows.loc[m, "label"], oof[m]),
        "brier": float(((oof[m] - rows.loc[m, "label"]) ** 2).mean()),
        "threshold": threshold, "threshold_rule": rule, "credible_reactions": int(credible.sum()),
        "credible_best_is_true": float(b.loc[credible, "label"].mean()) if credible.any() else float("nan"),
        "all_best_is_true": float(b["label"].mean()) if len(b) else float("nan")})
table = pd.DataFrame(table)
log.info("calibration of %s, inner check:\n%s", ranking, table.drop(columns="threshold_rule").to_string(index=False))
reliability = reliability_table(rows["label"], oof).assign(check="cross-validation (out of fold)")
write_tsv_atomic(reliability, smk.output.reliability)
write_tsv_atomic(table.round(4), smk.output.table)
plot_reliability({f"cross-validation, out of fold (ECE {table['ece'].iloc[0]:.3f})": reliability},
                 smk.output.plot, title=f"Confidence of {ranking}'s shown candidates")
with atomic_path(smk.output.calibrator) as tmp, open(tmp, "wb") as fh:
    pickle.dump({"ranking": ranking, "calibrator": calibrator, "threshold": threshold}, fh)
