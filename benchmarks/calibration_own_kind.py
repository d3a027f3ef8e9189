"""Should the confidence calibrator read the candidate's own kind of work?
An experiment on a finished metabolic run (not used by the workflow).

    python benchmarks/calibration_own_kind.py --workdir DIR [--n-bootstrap 200]

The calibration rows (``results/metabolic/ranking/calibration_rows.tsv``)
carry two flags of each candidate (``rank.calibration.OWN_KIND_FLAGS``):
``role``, it catalyses another reaction of the reaction's kind, and
``kind_domain``, it carries a domain of a gene that does. The calibrator
reads them, alone and times "without network evidence"
(``rank.calibration.calibration_features``). This fits three calibrators on
the run's rows, each fold group weighing one as the workflow does, and checks
them out of fold (``rank.calibration.out_of_fold_confidence``), only on the
cross-validation, never on the time split:

- without the own-kind inputs (the calibrator before them);
- with them (the workflow);
- with them, and the cap without network evidence taken per own kind too
  (``bare_cells_`` keyed by kind, evidence pattern and "role" / "domain" /
  "none"; tried, not adopted).

Prints, per calibrator: the Brier score and the expected calibration error
(10 bins), unweighted and with each fold group weighing one; the validated hit@1 and MRR of the
shown rows listed by that confidence (``rank.shown_order``); and, over the
rows without network evidence listed first, their count, summed weight, the
expected calibration error, mean confidence and share right. Then, for the
workflow's calibrator, those first rows by reaction kind and own kind.
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd

import rank.calibration as calibration
from _calibration_check import load_rows, oof_check, weighted_summary
from _cli import workdir_parser

#: The own-kind inputs of the workflow's calibration features: the columns
#: just before the site inputs, which come last.
N_OWN = 2 * len(calibration.OWN_KIND_FLAGS)
N_SITE = len(calibration.SITE_FLAGS)


def without_own_kind(features):
    """``features`` (the workflow's) without the own-kind inputs."""
    def drop(rows):
        X = features(rows)
        return np.delete(X, np.arange(X.shape[1] - N_SITE - N_OWN, X.shape[1] - N_SITE), axis=1)
    return drop


def per_own_kind(fn):
    """``fn`` (``_bare_cells`` or ``cell_values``) with each row's evidence
    pattern extended by its own kind ("1000/none")."""
    def wrapped(*args, **kwargs):
        rows = next(a for a in args if isinstance(a, pd.DataFrame))
        extended = PATTERN(rows) + "/" + calibration.own_kind(rows)
        try:
            calibration.evidence_pattern = lambda r: extended
            return fn(*args, **kwargs)
        finally:
            calibration.evidence_pattern = PATTERN
    return wrapped


PATTERN = calibration.evidence_pattern
BARE_CELLS = calibration._bare_cells
CELL_VALUES = calibration.ConfidenceCalibrator.cell_values


def check(rows, w, ranks, name, n_bootstrap):
    """The out-of-fold confidence, the rows without network evidence listed
    first, and the calibrator's row of the table."""
    p, pos, row = oof_check(rows, w, ranks, name, n_bootstrap)
    y = rows["label"].to_numpy(dtype=int)
    bf = (pos == 1) & calibration.without_network_evidence(rows)
    return p, bf, {**row, "bare_first_rows": int(bf.sum()), "bare_first_groups": float(w[bf].sum()),
                   "bare_first_ece": calibration.expected_calibration_error(y[bf], p[bf], sample_weight=w[bf]),
                   "bare_first_confidence": np.average(p[bf], weights=w[bf]),
                   "bare_first_share_right": np.average(y[bf], weights=w[bf])}


def main() -> int:
    ap = workdir_parser(__doc__)
    ap.add_argument("--n-bootstrap", type=int, default=200)
    args = ap.parse_args()
    rows, w, name, ranks = load_rows(args.workdir)
    y = rows["label"].to_numpy(dtype=int)
    workflow = calibration.calibration_features
    out, first = [], None
    try:
        calibration.calibration_features = without_own_kind(workflow)
        out.append({"calibrator": "without the own-kind inputs (before)",
                    **check(rows, w, ranks, name, args.n_bootstrap)[2]})
        calibration.calibration_features = workflow
        p, bf, row = check(rows, w, ranks, name, args.n_bootstrap)
        out.append({"calibrator": "with them (the workflow)", **row})
        first = pd.DataFrame({"reaction_kind": rows["reaction_kind"], "own_kind": calibration.own_kind(rows), "w": w, "y": y,
                              "p": p})[bf]
        calibration._bare_cells = per_own_kind(BARE_CELLS)
        calibration.ConfidenceCalibrator.cell_values = per_own_kind(CELL_VALUES)
        out.append({"calibrator": "with them, cap without network evidence per own kind (not adopted)",
                    **check(rows, w, ranks, name, args.n_bootstrap)[2]})
    finally:
        calibration.calibration_features = workflow
        calibration._bare_cells = BARE_CELLS
        calibration.ConfidenceCalibrator.cell_values = CELL_VALUES
    print(f"{name}: {len(rows)} calibration rows of {rows['reaction'].nunique()} held-out reactions, out of fold\n")
    print(pd.DataFrame(out).to_markdown(index=False, floatfmt=".4f"))
    print("\nThe workflow's rows without network evidence listed first, by reaction kind and own kind "
          "(each fold group weighing one):\n")
    print(weighted_summary(first, ["reaction_kind", "own_kind"]).to_markdown(index=False, floatfmt=".3f"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
