"""What the calibration analyses share: a finished run's calibration rows
with their fold-group weights, the out-of-fold check of a calibrator (the
workflow's, or a variant given as a configured
:class:`~geomargin.rank.calibration.ConfidenceCalibrator`), and the
orphans' shown rows of the run, for the label-free checks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

import geomargin.rank.calibration as calibration
import geomargin.rank.calibration_check as calibration_check
import geomargin.rank.evidence_flags as evidence_flags
from geomargin.rank.shown_order import shown_positions, shown_ranks, shown_tops
from geomargin.rank.validation import validation_table


def load_rows(workdir: Path) -> tuple[pd.DataFrame, np.ndarray, str, pd.DataFrame]:
    """``(rows, weights, ranking, true_gene_ranks)`` of the run in ``workdir``:
    ``results/metabolic/ranking/calibration_rows.tsv`` (every column of
    ``rank.calibration.CALIBRATION_COLUMNS``, else the run is refused), each fold group
    weighing one (``rank.calibration.fold_group_weights``), the ranking they
    were written for and its rows of ``true_gene_ranks.tsv``."""
    met = workdir / "results" / "metabolic"
    path = met / "ranking" / "calibration_rows.tsv"
    rows = pd.read_csv(path, sep="\t", keep_default_na=False, na_values=[""])
    missing = [c for c in calibration.CALIBRATION_COLUMNS if c not in rows.columns]
    if missing:
        raise SystemExit(f"{path}: no column(s) {missing}; the run predates them: rerun its ranking validation")
    inst = pd.read_csv(met / "features" / "instances.tsv", sep="\t", usecols=["reaction", "fold_group"], dtype=str)
    w = calibration.fold_group_weights(rows, inst.drop_duplicates("reaction").set_index("reaction")["fold_group"])
    name = str(rows["ranking"].iloc[0])
    ranks = pd.read_csv(met / "ranking" / "true_gene_ranks.tsv", sep="\t")
    return rows, w, name, ranks[ranks["method"] == name]


def oof_check(rows: pd.DataFrame, w: np.ndarray, ranks: pd.DataFrame, name: str, n_bootstrap: int,
              calibrator=None) -> tuple[np.ndarray, np.ndarray, dict]:
    """The out-of-fold confidence of every row, its shown positions, and the
    Brier score and expected calibration error (10 bins; unweighted and with
    each fold group weighing one) with the validated hit@1 and MRR of the
    shown rows listed by that confidence."""
    y = rows["label"].to_numpy(dtype=int)
    p = calibration.out_of_fold_confidence(rows, calibrator, sample_weight=w)
    pos = shown_positions(rows, p)
    t = validation_table(shown_ranks(ranks, rows, pos), shown_tops(rows, pos, name), [name],
                         int(ranks["n_candidates"].max()), n_bootstrap, 0).iloc[0]
    return p, pos, {"brier": np.mean((p - y) ** 2), "brier_groups": np.average((p - y) ** 2, weights=w),
                    "ece": calibration_check.expected_calibration_error(y, p),
                    "ece_groups": calibration_check.expected_calibration_error(y, p, sample_weight=w),
                    "shown_hit@1": t["hit@1"], "shown_mrr": t["mrr"]}


def without_network_first_check(rows: pd.DataFrame, w: np.ndarray, ranks: pd.DataFrame, name: str, n_bootstrap: int,
                     calibrator=None) -> tuple[np.ndarray, np.ndarray, dict]:
    """:func:`oof_check`, then over the rows without network evidence listed
    first (mask ``bf``): their count, summed weight, calibration error, mean
    confidence and share right, added to the calibrator's row. Returns
    ``(p, bf, row)``."""
    p, pos, row = oof_check(rows, w, ranks, name, n_bootstrap, calibrator)
    y = rows["label"].to_numpy(dtype=int)
    bf = (pos == 1) & calibration.without_network_evidence(rows)
    return p, bf, {**row, "without_network_first_rows": int(bf.sum()), "without_network_first_groups": float(w[bf].sum()),
                   "without_network_first_ece": calibration_check.expected_calibration_error(y[bf], p[bf], sample_weight=w[bf]),
                   "without_network_first_confidence": np.average(p[bf], weights=w[bf]),
                   "without_network_first_share_right": np.average(y[bf], weights=w[bf])}


def weighted_summary(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Per ``keys`` of ``frame`` (columns ``w`` weight, ``p`` confidence,
    ``y`` label): ``rows``, ``groups`` (summed weight), the weighted mean
    ``confidence`` and ``share_right``."""
    return frame.groupby(keys).apply(
        lambda g: pd.Series({"rows": len(g), "groups": g["w"].sum(), "confidence": np.average(g["p"], weights=g["w"]),
                             "share_right": np.average(g["y"], weights=g["w"])}), include_groups=False).reset_index()


def orphan_shown_rows(workdir, ranking: str) -> pd.DataFrame:
    """The orphans' shown rows of the run in ``workdir`` for ``ranking``
    ("model+correction"), with their calibration features, as
    ``workflow/scripts/enzyme_ranking.py`` builds them (its config keys from
    ``workdir/config/config.yaml``)."""
    import logging

    import yaml
    from threadpoolctl import threadpool_limits

    from geomargin.featurize.metabolic.bundle import FeatureBundle
    from geomargin.rank.evidence import orphan_reactions
    from geomargin.rank.refit import ranking_decision_for
    from geomargin.rank.scoring import pair_score_fn, rank_candidates, split_ranking_name

    config = yaml.safe_load((workdir / "config" / "config.yaml").read_text())
    opts = config["metabolic"]["ranking"]
    met = workdir / "results" / "metabolic"
    bundle = FeatureBundle.load(met / "features" / "featurizer.pkl")
    data = np.load(met / "features" / "features.npz", allow_pickle=False)
    model, correction = split_ranking_name(ranking)
    decision, _ = ranking_decision_for(model, met / "cv" / f"{model}.pkl", data, bundle.featurizer,
                                       seed=config["seed"], margin_rule=opts["margin_rule"],
                                       log=logging.getLogger(__name__))
    orphans = orphan_reactions(bundle.network, bundle.featurizer, kinds=opts["kinds"], evidence=opts["evidence"])
    with threadpool_limits(1):
        top = rank_candidates(pair_score_fn(bundle.featurizer, decision), orphans.index[orphans["eligible"]].tolist(),
                              bundle.candidates, top_n=opts["top_n"], batch_size=opts["batch_size"],
                              gene_correction=correction, standardised=True, n_jobs=2)
        top = top.dropna(subset=["score"]).reset_index(drop=True)
        return evidence_flags.shown_rows(top, bundle.featurizer, bundle.network.reactions["reaction_kind"], n_jobs=2)
