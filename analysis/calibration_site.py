"""Should the confidence calibrator read where the candidate is localized?
An experiment on a finished metabolic run (not used by the workflow).

    python analysis/calibration_site.py --workdir DIR [--n-bootstrap 200]

The calibration rows (``results/metabolic/ranking/calibration_rows.tsv``)
carry two flags of each candidate from the ``site`` block
(``rank.evidence_flags.SITE_FLAGS``): ``site_match``, seen in one of the
reaction's compartments, and ``site_elsewhere``, seen only in others;
neither without localization data. The calibrator reads them
(``rank.calibration.calibration_features``, its last two inputs). This fits
two calibrators on the run's rows, each fold group weighing one as the
workflow does, and checks them out of fold
(``rank.calibration.out_of_fold_confidence``), only on the cross-validation,
never on the time split:

- without the site inputs (the calibrator before them);
- with them (the workflow).

Prints, per calibrator, the Brier score and the expected calibration error
(10 bins), unweighted and with each fold group weighing one, and the
validated hit@1 and MRR of the shown rows listed by that confidence; then,
for each calibrator, the rows listed first by reaction kind and site
(where it runs, only elsewhere, no data): their count, summed weight, mean
confidence and share right (each fold group weighing one).
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd

import geomargin.rank.calibration as calibration
import geomargin.rank.evidence_flags as evidence_flags
from _calibration_check import load_rows, oof_check, weighted_summary
from geomargin.common.cli import workdir_parser

#: The last columns of the workflow's calibration features: the site inputs.
N_SITE = len(evidence_flags.SITE_FLAGS)


def without_site(features):
    """``features`` (the workflow's) without the site inputs."""
    return lambda rows: features(rows)[:, :-N_SITE]


def site_class(rows: pd.DataFrame) -> np.ndarray:
    """"where it runs", "only elsewhere" or "no data" per row."""
    return np.where(rows["site_match"].astype(bool), "where it runs",
                    np.where(rows["site_elsewhere"].astype(bool), "only elsewhere", "no data"))


def first_by_site(rows, w, p, pos) -> pd.DataFrame:
    """The rows listed first, by reaction kind and site class."""
    y = rows["label"].to_numpy(dtype=float)
    first = pd.DataFrame({"reaction_kind": rows["reaction_kind"], "site": site_class(rows), "w": w, "y": y,
                          "p": p})[pos == 1]
    return weighted_summary(first, ["reaction_kind", "site"])


def main() -> int:
    ap = workdir_parser(__doc__)
    ap.add_argument("--n-bootstrap", type=int, default=200)
    args = ap.parse_args()
    rows, w, name, ranks = load_rows(args.workdir)
    workflow = calibration.calibration_features
    out, firsts = [], []
    for label, features in (("without the site inputs (before)", without_site(workflow)),
                            ("with them (the workflow)", workflow)):
        p, pos, row = oof_check(rows, w, ranks, name, args.n_bootstrap,
                                calibration.ConfidenceCalibrator(features=features))
        out.append({"calibrator": label, **row})
        firsts.append((label, first_by_site(rows, w, p, pos)))
    print(f"{name}: {len(rows)} calibration rows of {rows['reaction'].nunique()} held-out reactions, out of fold\n")
    print(pd.DataFrame(out).to_markdown(index=False, floatfmt=".4f"))
    for label, table in firsts:
        print(f"\nRows listed first, calibrator {label}, by reaction kind and site (each fold group weighing one):\n")
        print(table.to_markdown(index=False, floatfmt=".3f"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
