"""Should the confidence calibrator read a candidate's gap to the next row?
An experiment on a finished metabolic run (not used by the workflow).

    python analysis/calibration_gap.py --workdir DIR [--n-bootstrap 200]

The calibrator (``rank.calibration.ConfidenceCalibrator``) reads the log
rank, the standardised score and its gap to the first row, not the gap to
the next row (``gap_next_z``; ``docs/decisions.md``, "Not the gap to the
next candidate"). That gap rewards the last
row of a close group: within one reaction and one evidence pattern, a row
with a lower score could get a higher confidence than one with a higher
score. This fits the calibrator with and without that input on the run's
calibration rows (``results/metabolic/ranking/calibration_rows.tsv``, each
fold group weighing one, as the workflow does) and checks both out of fold
(``rank.calibration.out_of_fold_confidence``), only on the
cross-validation, never on the time split. Prints, per variant: the Brier
score and the expected calibration error (10 bins), unweighted and with
each fold group weighing one; the validated hit@1 and MRR of the shown rows
listed by that confidence (``rank.shown_order``); and the inversions, pairs
of rows of one held-out reaction and evidence pattern where the higher
score has the lower confidence.
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd

import geomargin.rank.calibration as calibration
from _calibration_check import load_rows, oof_check
from geomargin.common.cli import workdir_parser


def with_gap_next(features):
    """``features`` (the workflow's :func:`geomargin.rank.calibration.calibration_features`)
    with the rows' ``gap_next_z`` inserted as the third column, where it was."""
    def f(rows: pd.DataFrame) -> np.ndarray:
        X = features(rows)
        return np.insert(X, 2, rows["gap_next_z"].to_numpy(dtype=np.float64), axis=1)
    return f


def inversions(rows: pd.DataFrame, p: np.ndarray) -> int:
    """Pairs of rows of one reaction and evidence pattern where the higher
    score has the lower confidence."""
    df = pd.DataFrame({"reaction": rows["reaction"].to_numpy(), "pattern": calibration.evidence_pattern(rows),
                       "score": rows["score"].to_numpy(dtype=np.float64), "p": p})
    n = 0
    for _, g in df.groupby(["reaction", "pattern"]):
        s, q = g["score"].to_numpy(), g["p"].to_numpy()
        n += int(((s[:, None] > s[None, :]) & (q[:, None] < q[None, :])).sum())
    return n


def main() -> int:
    ap = workdir_parser(__doc__)
    ap.add_argument("--n-bootstrap", type=int, default=200)
    args = ap.parse_args()
    rows, w, name, ranks = load_rows(args.workdir)
    workflow = calibration.calibration_features
    out = []
    for label, features in (("with gap_next_z (before)", with_gap_next(workflow)),
                            ("without gap_next_z (the workflow)", workflow)):
        p, _, row = oof_check(rows, w, ranks, name, args.n_bootstrap,
                              calibration.ConfidenceCalibrator(features=features))
        out.append({"calibrator": label, **row, "inversions": inversions(rows, p)})
    table = pd.DataFrame(out)
    print(f"{name}: {len(rows)} calibration rows of {rows['reaction'].nunique()} held-out reactions, out of fold\n")
    print(table.to_markdown(index=False, floatfmt=".4f"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
