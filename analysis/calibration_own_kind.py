"""Should the confidence calibrator read the candidate's own kind of work?
An experiment on a finished metabolic run (not used by the workflow).

    python analysis/calibration_own_kind.py --workdir DIR [--n-bootstrap 200]

The calibration rows (``results/metabolic/ranking/calibration_rows.tsv``)
carry two flags of each candidate (``rank.evidence_flags.OWN_KIND_FLAGS``):
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
  (``without_network_cells_`` keyed by kind, evidence pattern and "role" / "domain" /
  "none"; not the workflow's);
- with them, and a second cap on every row without network evidence: the
  95% Wilson lower bound of the share right of the held-out rows without
  network evidence of its reaction kind, evidence pattern and own kind, at
  any score rank (that cell over all kinds where the kind has none; else 0;
  not the workflow's);
- the same, from the held-out rows at the row's score rank or higher
  (falling back to any rank, then to all kinds at that rank or higher, then
  to all kinds at any rank; else 0; not the workflow's).

The last two were written for orphan transports whose first listed
candidate has no network evidence and no transport role or transporter
domain (own kind "none"): on yeast-GEM 9.0.2 they are shown at the cap of
their cell, which held-out rank-1 candidates of another own kind back. Both
were judged by a rule fixed before the comparison: Brier score and
calibration error (each fold group weighing one) no worse by more than 0.001
and 0.005, the shown order's MRR no lower by more than 0.005, the
calibration error of the rows without network evidence listed first no
higher by more than 0.005, and (label-free) a lower mean confidence for the
orphans' first rows of own kind "none". ``--orphans`` prints that last check,
rebuilding the orphans' shown rows as ``enzyme_ranking.py`` does, from the
run's features, its models and ``config/config.yaml`` of ``DIR`` (about a
minute on 2 cores).

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

import geomargin.rank.calibration as calibration
import geomargin.rank.calibration_check as calibration_check
import geomargin.rank.evidence_flags as evidence_flags
from _calibration_check import without_network_first_check, load_rows, orphan_shown_rows, weighted_summary
from geomargin.common.cli import workdir_parser
from geomargin.rank.shown_order import shown_positions

#: The own-kind inputs of the workflow's calibration features: the columns
#: just before the site inputs, which come last.
N_OWN = 2 * len(evidence_flags.OWN_KIND_FLAGS)
N_SITE = len(evidence_flags.SITE_FLAGS)


def without_own_kind(features):
    """``features`` (the workflow's) without the own-kind inputs."""
    def drop(rows):
        X = features(rows)
        return np.delete(X, np.arange(X.shape[1] - N_SITE - N_OWN, X.shape[1] - N_SITE), axis=1)
    return drop


def per_own_kind(fn):
    """``fn`` (``_without_network_cells`` or ``cell_values``) with each row's evidence
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
WITHOUT_NETWORK_CELLS = calibration._without_network_cells
CELL_VALUES = calibration.ConfidenceCalibrator.cell_values
FIT = calibration.ConfidenceCalibrator.fit
PREDICT = calibration.ConfidenceCalibrator.predict_proba


def like_rows_cap(rank_aware: bool):
    """``fit`` and ``predict_proba`` of the workflow's calibrator with the
    second cap without network evidence (module docstring): from the
    held-out rows like the row at any score rank, or (``rank_aware``) at its
    score rank or higher first."""
    def fit(self, rows, y, sample_weight=None):
        FIT(self, rows, y, sample_weight)
        w = np.ones(len(rows)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        m = calibration.without_network_evidence(rows)
        self.like_without_network_ = pd.DataFrame({
            "k": rows["reaction_kind"].astype(str).to_numpy()[m], "q": calibration.evidence_pattern(rows)[m],
            "o": calibration.own_kind(rows)[m], "r": rows["rank"].to_numpy()[m],
            "y": np.asarray(y, dtype=np.float64)[m], "w": w[m]})
        return self

    def bound(self, k, q, o, r):
        t = self.like_without_network_
        cell, pooled = t[(t.k == k) & (t.q == q) & (t.o == o)], t[(t.q == q) & (t.o == o)]
        sets = (cell[cell.r <= r], cell, pooled[pooled.r <= r], pooled) if rank_aware else (cell, pooled)
        s = next((s for s in sets if len(s)), None)
        return 0.0 if s is None else calibration_check.wilson_lower(float(np.average(s.y, weights=s.w)), float(s.w.sum()))

    def predict_proba(self, rows):
        p = PREDICT(self, rows)
        without_network = np.flatnonzero(calibration.without_network_evidence(rows)) if len(p) else []
        if len(without_network):
            sub = rows.iloc[without_network]
            keys = list(zip(sub["reaction_kind"].astype(str), calibration.evidence_pattern(sub),
                            calibration.own_kind(sub), sub["rank"]))
            caps = {key: bound(self, *key) for key in set(keys)}
            p[without_network] = np.minimum(p[without_network], [caps[key] for key in keys])
        return p
    return fit, predict_proba


def orphan_check(rows, w, y, shown) -> dict:
    """Label-free: the orphans' first listed rows without network evidence
    of own kind "none", by the calibrator (as ``rank.calibration`` defines it
    now) fitted on all ``rows``."""
    p = calibration.ConfidenceCalibrator().fit(rows, y, sample_weight=w).predict_proba(shown)
    first = (shown_positions(shown, p) == 1) & calibration.without_network_evidence(shown) \
        & (calibration.own_kind(shown) == "none")
    return {"orphans_first_without_network_none": int(first.sum()),
            "orphans_first_without_network_none_confidence": float(p[first].mean()) if first.any() else float("nan")}


def restore() -> None:
    """The workflow's caps and fit again, after a variant swapped them."""
    calibration._without_network_cells = WITHOUT_NETWORK_CELLS
    calibration.ConfidenceCalibrator.cell_values = CELL_VALUES
    calibration.ConfidenceCalibrator.fit, calibration.ConfidenceCalibrator.predict_proba = FIT, PREDICT


def main() -> int:
    ap = workdir_parser(__doc__)
    ap.add_argument("--n-bootstrap", type=int, default=200)
    ap.add_argument("--orphans", action="store_true",
                    help="also the label-free check on the orphans' first rows (rebuilds their shown rows)")
    args = ap.parse_args()
    rows, w, name, ranks = load_rows(args.workdir)
    y = rows["label"].to_numpy(dtype=int)
    shown = orphan_shown_rows(args.workdir, name) if args.orphans else None
    workflow = calibration.calibration_features
    out, first = [], None

    def orphans():
        return orphan_check(rows, w, y, shown) if shown is not None else {}

    def row_of(label):
        return {"calibrator": label, **without_network_first_check(rows, w, ranks, name, args.n_bootstrap)[2], **orphans()}

    out.append({"calibrator": "without the own-kind inputs (before)",
                **without_network_first_check(rows, w, ranks, name, args.n_bootstrap,
                                   calibration.ConfidenceCalibrator(features=without_own_kind(workflow)))[2]})
    try:
        # the caps per own kind are no parameter of the calibrator: swapped in, and restored below
        p, bf, row = without_network_first_check(rows, w, ranks, name, args.n_bootstrap)
        out.append({"calibrator": "with them (the workflow)", **row, **orphans()})
        first = pd.DataFrame({"reaction_kind": rows["reaction_kind"], "own_kind": calibration.own_kind(rows), "w": w, "y": y,
                              "p": p})[bf]
        calibration._without_network_cells = per_own_kind(WITHOUT_NETWORK_CELLS)
        calibration.ConfidenceCalibrator.cell_values = per_own_kind(CELL_VALUES)
        out.append(row_of("with them, cap without network evidence per own kind (not adopted)"))
        restore()
        for rank_aware, label in ((False, "with them, and a cap from the rows like it at any rank (not adopted)"),
                                  (True, "with them, and a cap from the rows like it ranked as high (not adopted)")):
            calibration.ConfidenceCalibrator.fit, calibration.ConfidenceCalibrator.predict_proba = \
                like_rows_cap(rank_aware)
            out.append(row_of(label))
    finally:
        restore()
    print(f"{name}: {len(rows)} calibration rows of {rows['reaction'].nunique()} held-out reactions, out of fold\n")
    print(pd.DataFrame(out).to_markdown(index=False, floatfmt=".4f"))
    print("\nThe workflow's rows without network evidence listed first, by reaction kind and own kind "
          "(each fold group weighing one):\n")
    print(weighted_summary(first, ["reaction_kind", "own_kind"]).to_markdown(index=False, floatfmt=".3f"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
