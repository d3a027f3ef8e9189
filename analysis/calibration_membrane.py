"""Should the confidence calibrator know whether the candidate is a membrane
protein? An experiment on a finished metabolic run (not used by the workflow).

    python analysis/calibration_membrane.py --workdir DIR [--orphans] [--gaf PATH]

A transport reaction is carried by a membrane protein. The candidate flags
of the calibration rows say what the network and the domains shared with
other genes tie to the reaction (``rank.evidence_flags.CANDIDATE_FLAGS``), but
not whether the candidate sits in a membrane at all: on yeast-GEM 9.0.2 a
spindle-pole-body protein (CDC31) is listed first for diglyceride transports
at the same confidence as a transporter would be.

The flag tried here, ``membrane``: the candidate has an ``IEA`` row from
InterPro2GO in the annotation file (computed from the protein sequence, the
rows the ``domain`` source already reads) with one of the GO ids
:data:`geomargin.featurize.metabolic.annotation.MEMBRANE_TERMS` (membrane, integral component of membrane,
transmembrane transport, transmembrane transporter activity). A gene
without such a row counts as not a membrane protein. The flag reads no gene
rule and no curated annotation, so a held-out reaction gets it as an orphan
does. The calibrator is given three more inputs after the workflow's
(``rank.calibration.calibration_features``): ``membrane`` on a transport
reaction, the same times "without network evidence", and ``membrane`` on
any other reaction. It is fitted on the run's rows, each fold group weighing
one as the workflow does, and checked out of fold
(``rank.calibration.out_of_fold_confidence``), only on the cross-validation,
never on the time split.

**The rule to adopt it, fixed before it was first run** (the one
``analysis/calibration_own_kind.py`` applied to the caps it tried): out of
fold, against the workflow's calibrator,

- the Brier score and the expected calibration error, each fold group
  weighing one, no worse by more than 0.001 and 0.005;
- the MRR of the shown order no lower by more than 0.005;
- the calibration error of the rows without network evidence listed first
  no higher by more than 0.005;
- and, label-free (``--orphans``), a lower mean confidence for the orphans'
  first listed rows of transport reactions without network evidence whose
  gene is not a membrane protein.

Prints, per calibrator: the Brier score and the expected calibration error
(10 bins), unweighted and with each fold group weighing one; the validated
hit@1 and MRR of the shown rows listed by that confidence
(``rank.shown_order``); and, over the rows without network evidence listed
first, their count, summed weight, calibration error, mean confidence and
share right; with ``--orphans``, the orphans' first rows of that kind
(rebuilt as ``enzyme_ranking.py`` builds them, about a minute on 2 cores).
Then those held-out first rows by reaction kind and ``membrane``, under
both calibrators, and whether the rule is met.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

import geomargin.rank.calibration as calibration
from _calibration_check import without_network_first_check, load_rows, orphan_shown_rows, weighted_summary
from geomargin.common.cli import workdir_parser
from geomargin.featurize.metabolic.annotation import parse_gaf

#: The default annotation file of a run (``data/registry.yaml``).
GAF = Path("data/downloads/yeast/annotation/sgd_2022-05-17.gaf")
#: The rule (module docstring): (column, largest allowed change, direction).
RULE = (("brier_groups", 0.001, +1), ("ece_groups", 0.005, +1), ("shown_mrr", 0.005, -1),
        ("without_network_first_ece", 0.005, +1))


def with_membrane(features, genes: frozenset[str]):
    """``features`` (the workflow's) and three more columns: ``membrane`` on
    a transport reaction, the same times "without network evidence", and
    ``membrane`` on any other reaction."""
    def extended(rows):
        X = features(rows)
        m = rows["gene"].astype(str).isin(genes).to_numpy(dtype=np.float64)
        t = (rows["reaction_kind"].astype(str) == "transport").to_numpy(dtype=np.float64)
        without_network = calibration.without_network_evidence(rows).astype(np.float64) if len(rows) else np.zeros(0)
        return np.column_stack([X, m * t, m * t * without_network, m * (1 - t)]) if len(rows) else np.empty((0, X.shape[1] + 3))
    return extended


def orphan_check(rows, w, y, shown, genes, calibrator) -> dict:
    """Label-free: the orphans' first listed rows of transport reactions
    without network evidence whose gene is not a membrane protein, by a
    clone of ``calibrator`` fitted on all ``rows``."""
    from sklearn.base import clone

    from geomargin.rank.shown_order import shown_positions

    p = clone(calibrator).fit(rows, y, sample_weight=w).predict_proba(shown)
    first = (shown_positions(shown, p) == 1) & calibration.without_network_evidence(shown) \
        & (shown["reaction_kind"].astype(str) == "transport").to_numpy() & ~shown["gene"].isin(genes).to_numpy()
    return {"orphans_first_without_network_not_membrane": int(first.sum()),
            "orphans_first_without_network_not_membrane_confidence": float(p[first].mean()) if first.any() else float("nan")}


def main() -> int:
    ap = workdir_parser(__doc__)
    ap.add_argument("--n-bootstrap", type=int, default=200)
    ap.add_argument("--orphans", action="store_true",
                    help="also the label-free check on the orphans' first rows (rebuilds their shown rows)")
    ap.add_argument("--gaf", type=Path, default=None, help=f"annotation file (default: DIR/{GAF})")
    args = ap.parse_args()
    gaf = args.gaf or args.workdir / GAF
    if not gaf.is_file():
        raise SystemExit(f"{gaf}: no annotation file; give the run's GAF with --gaf")
    genes = parse_gaf(gaf).membrane  # GeneAnnotation.membrane, as the membrane block reads it
    rows, w, name, ranks = load_rows(args.workdir)
    y = rows["label"].to_numpy(dtype=int)
    shown = orphan_shown_rows(args.workdir, name) if args.orphans else None
    workflow = calibration.calibration_features
    out, firsts = [], {}
    for label, features in (("the workflow", workflow), ("with membrane", with_membrane(workflow, genes))):
        calibrator = calibration.ConfidenceCalibrator(features=features)
        p, bf, row = without_network_first_check(rows, w, ranks, name, args.n_bootstrap, calibrator)
        firsts[label] = pd.DataFrame({"reaction_kind": rows["reaction_kind"], "membrane": rows["gene"].isin(genes),
                                      "w": w, "y": y, "p": p})[bf]
        out.append({"calibrator": label, **row,
                    **(orphan_check(rows, w, y, shown, genes, calibrator) if shown is not None else {})})
    print(f"{name}: {len(rows)} calibration rows of {rows['reaction'].nunique()} held-out reactions, out of fold; "
          f"{len(genes)} membrane genes in {gaf.name}\n")
    table = pd.DataFrame(out)
    print(table.to_markdown(index=False, floatfmt=".4f"))
    for label, first in firsts.items():
        print(f"\nRows without network evidence listed first, {label} (each fold group weighing one):\n")
        print(weighted_summary(first, ["reaction_kind", "membrane"]).to_markdown(index=False, floatfmt=".3f"))
    a, b = table.iloc[0], table.iloc[1]
    verdict = [(col, b[col] - a[col], sign * (b[col] - a[col]) <= tol) for col, tol, sign in RULE]
    if shown is not None:
        col = "orphans_first_without_network_not_membrane_confidence"
        verdict.append((col, b[col] - a[col], b[col] < a[col]))
    print("\nThe rule (module docstring), with membrane against the workflow:\n")
    print(pd.DataFrame(verdict, columns=["check", "change", "met"]).to_markdown(index=False, floatfmt="+.4f"))
    print("\nadopt" if all(v[2] for v in verdict) and shown is not None else
          "\nnot adopted" if not all(v[2] for v in verdict) else "\nrun with --orphans for the last check")
    return 0


if __name__ == "__main__":
    sys.exit(main())
