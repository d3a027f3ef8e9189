"""Tests for rank.calibration: the calibrator on hand-made rows with known
frequencies, the calibration error and reliability table by hand, the inner
check's folds, and the "no credible candidate" threshold."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rank.calibration import (ConfidenceCalibrator, calibration_features, calibration_rows,
                              expected_calibration_error, no_credible_candidate, out_of_fold_confidence,
                              reliability_table, wilson_lower)


def _rows(n, rng, **fixed):
    base = {"fold": rng.integers(1, 4, n), "rank": rng.integers(1, 21, n), "score_z": rng.normal(size=n),
            "gap_next_z": 0.0, "gap_top_z": 0.0, "reaction_kind": "transport", "motifs": True,
            "adjacent": rng.random(n) < 0.3, "subsystem": False, "compound": False}
    base.update(fixed)
    return pd.DataFrame(base)


def test_saturated_groups_get_their_frequencies():
    """Two groups that differ only in one flag, with true-gene shares 0.1 and
    0.4 exactly: the (nearly unregularised) logistic fit returns each share."""
    rows = pd.DataFrame({"rank": 1, "score_z": 0.0, "gap_next_z": 0.0, "gap_top_z": 0.0,
                         "reaction_kind": "enzymatic", "motifs": True, "adjacent": [False] * 100 + [True] * 100,
                         "subsystem": True, "compound": False})
    y = np.r_[np.arange(100) < 10, np.arange(100) < 40].astype(int)
    p = ConfidenceCalibrator(C=1e6).fit(rows, y).predict_proba(rows)
    np.testing.assert_allclose(p[:100], 0.1, atol=1e-3)
    np.testing.assert_allclose(p[100:], 0.4, atol=1e-3)


def test_known_logistic_frequencies_are_recovered_and_calibrated():
    """Labels drawn with a known probability (logistic in log rank, the
    score and a flag): the fitted probabilities match it, and a fresh draw
    has a small calibration error."""
    rng = np.random.default_rng(0)

    def truth(r):
        eta = -1.0 - 1.2 * np.log(r["rank"]) + 0.8 * r["score_z"] + 1.5 * r["adjacent"]
        return 1 / (1 + np.exp(-eta))
    train, fresh = _rows(40000, rng), _rows(40000, rng)
    y_train = rng.random(len(train)) < truth(train)
    cal = ConfidenceCalibrator().fit(train, y_train)
    p = cal.predict_proba(fresh)
    ev = fresh["adjacent"].to_numpy()
    assert np.abs(p - truth(fresh))[ev].max() < 0.03
    # without network evidence: the logistic fit, capped by the share of right rank-1 rows
    first_bare = ((train["rank"] == 1) & ~train["adjacent"]).to_numpy()
    share, n = y_train[first_bare].mean(), first_bare.sum()
    cap = cal.cell_values(fresh[~ev].iloc[:1])[0]
    assert cap == pytest.approx(wilson_lower(share, n)) and 0.1 < cap < share
    assert p[~ev].max() <= cap + 1e-12
    below = ~ev & (truth(fresh).to_numpy() < cap - 0.05)
    assert below.sum() > 1000 and np.abs(p - truth(fresh))[below].max() < 0.03
    y_fresh = rng.random(len(fresh)) < truth(fresh)
    assert expected_calibration_error(y_fresh[ev], p[ev]) < 0.01
    # the confidence of a constant (the base rate) is calibrated on average but not per candidate
    assert expected_calibration_error(y_fresh, np.full(len(fresh), y_fresh.mean())) < 0.01
    assert np.abs(np.full(len(fresh), y_fresh.mean()) - truth(fresh)).max() > 0.3


def test_rank_and_score_weigh_per_evidence_pattern():
    """The score raises the chance of a true gene with subsystem evidence and
    lowers it with compound evidence: one shared slope cannot fit both, the
    calibrator's per-pattern terms do."""
    rng = np.random.default_rng(5)

    def rows_of(n):
        r = _rows(n, rng, rank=1, adjacent=False)
        sub = rng.random(n) < 0.5
        return r.assign(subsystem=sub, compound=~sub)

    def truth(r):
        slope = np.where(r["subsystem"], 1.5, -1.5)
        return 1 / (1 + np.exp(-(-1.0 + slope * r["score_z"])))
    train, fresh = rows_of(30000), rows_of(20000)
    p = ConfidenceCalibrator().fit(train, rng.random(len(train)) < truth(train)).predict_proba(fresh)
    assert np.abs(p - truth(fresh)).max() < 0.03


def test_family_weights_count_each_fold_group_once():
    """One reaction written 30 times (a fold group, all right at rank 1) and
    30 single reactions (right 20% of the time): unweighted the family
    dominates; weighted, it counts as one of 31 cases."""
    from rank.calibration import family_weights

    fam = pd.DataFrame({"reaction": [f"f{i}" for i in range(30)], "label": 1})
    single = pd.DataFrame({"reaction": [f"s{i}" for i in range(30)], "label": (np.arange(30) < 6).astype(int)})
    rows = pd.concat([fam, single], ignore_index=True).assign(
        rank=1, score_z=0.0, gap_next_z=0.0, gap_top_z=0.0, reaction_kind="enzymatic", motifs=True,
        adjacent=True, subsystem=False, compound=False)
    groups = {**{f"f{i}": "fam" for i in range(30)}, **{f"s{i}": f"s{i}" for i in range(30)}}
    w = family_weights(rows, groups)
    assert w[:30].tolist() == [1 / 30] * 30 and w[30:].tolist() == [1.0] * 30
    plain = ConfidenceCalibrator(C=1e6).fit(rows, rows["label"]).predict_proba(rows.iloc[:1])[0]
    weighted = ConfidenceCalibrator(C=1e6).fit(rows, rows["label"], sample_weight=w).predict_proba(rows.iloc[:1])[0]
    assert plain == pytest.approx(36 / 60, abs=1e-3)
    assert weighted == pytest.approx(7 / 31, abs=1e-3)
    with pytest.raises(ValueError, match="no fold group for reaction"):
        family_weights(rows, {"f0": "fam"})
    with pytest.raises(ValueError, match="sample_weight"):
        ConfidenceCalibrator().fit(rows, rows["label"], sample_weight=np.zeros(len(rows)))


def test_cap_without_network_evidence_by_hand():
    """Bare candidates (no adjacent, subsystem or compound evidence) never
    exceed the Wilson lower bound of the share of right rank-1 bare rows of
    their kind and pattern (n = summed weight); a kind without such rows
    takes the pattern over all kinds, a pattern without any gets 0; rows
    with network evidence are not capped."""
    n = 400
    rows = pd.DataFrame({"rank": np.tile([1, 2], n // 2), "score_z": np.linspace(-3, 3, n),
                         "gap_next_z": 0.0, "gap_top_z": 0.0,
                         "reaction_kind": np.where(np.arange(n) % 8 < 6, "enzymatic", "transport"),
                         "motifs": True, "adjacent": np.r_[np.zeros(n // 2, bool), np.ones(n // 2, bool)],
                         "subsystem": False, "compound": False})
    y = ((rows["score_z"].abs() > 1.5) | (np.arange(n) % 4 == 0)).astype(int).to_numpy()
    w = np.where(np.arange(n) % 3 == 0, 0.5, 1.0)
    cal = ConfidenceCalibrator(C=1e6).fit(rows, y, sample_weight=w)
    first_bare = (rows["rank"] == 1).to_numpy() & ~rows["adjacent"].to_numpy()
    cells = cal.bare_cells_.set_index(["reaction_kind", "pattern"])
    assert set(cells.index) == {("enzymatic", "1000"), ("transport", "1000"), ("*", "1000")}
    for kind in ("enzymatic", "transport", "*"):
        m = first_bare & ((rows["reaction_kind"] == kind).to_numpy() if kind != "*" else True)
        share, groups = np.average(y[m], weights=w[m]), w[m].sum()
        assert cells.loc[(kind, "1000"), "share"] == pytest.approx(share)
        assert cells.loc[(kind, "1000"), "groups"] == pytest.approx(groups)
        assert cells.loc[(kind, "1000"), "cap"] == pytest.approx(wilson_lower(share, groups))
    assert cal.bare_share_ == pytest.approx(np.average(y[first_bare], weights=w[first_bare]))
    p = cal.predict_proba(rows)
    bare = ~rows["adjacent"].to_numpy()
    cap = cal.cell_values(rows)
    np.testing.assert_array_equal(cap[bare], cells.loc[list(zip(rows["reaction_kind"][bare], ["1000"] * bare.sum())),
                                                       "cap"].to_numpy())
    assert (p[bare] <= cap[bare] + 1e-12).all()
    uncapped = cal.pipeline_.predict_proba(calibration_features(rows))[:, 1]
    np.testing.assert_array_equal(p[~bare], uncapped[~bare])
    assert (uncapped[bare] > cap[bare] + 0.05).any()
    # a kind never seen bare takes the pattern over all kinds; an unseen pattern, 0
    other = rows[bare].assign(reaction_kind="spontaneous")
    np.testing.assert_allclose(cal.cell_values(other), cells.loc[("*", "1000"), "cap"])
    assert cal.predict_proba(rows[bare].assign(motifs=False)).max() == 0.0


def test_ece_and_reliability_by_hand():
    y = [0, 0, 1, 1, 1]
    p = [0.05, 0.15, 0.15, 0.9, 1.0]
    t = reliability_table(y, p, n_bins=10)
    assert t["bin_lo"].tolist() == [0.0, 0.1, 0.9]
    assert t["rows"].tolist() == [1, 2, 2]
    np.testing.assert_allclose(t["frequency"], [0.0, 0.5, 1.0])
    # |0.05-0| * 1 + |0.15-0.5| * 2 + |0.95-1| * 2, over 5
    assert expected_calibration_error(y, p) == pytest.approx((0.05 + 0.7 + 0.1) / 5)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        expected_calibration_error([1], [1.2])
    with pytest.raises(ValueError, match="0 or 1"):
        expected_calibration_error([2], [0.5])


def test_out_of_fold_never_sees_its_own_fold():
    """Changing fold 1's labels leaves fold 1's confidences unchanged, and
    changes the other folds'."""
    rng = np.random.default_rng(3)
    rows = _rows(3000, rng)
    rows["label"] = (rng.random(len(rows)) < 0.3 / rows["rank"]).astype(int)
    before = out_of_fold_confidence(rows)
    flipped = rows.copy()
    one = flipped["fold"] == 1
    flipped.loc[one, "label"] = 1 - flipped.loc[one, "label"]
    after = out_of_fold_confidence(flipped)
    np.testing.assert_array_equal(before[one.to_numpy()], after[one.to_numpy()])
    assert not np.allclose(before[~one.to_numpy()], after[~one.to_numpy()])
    with pytest.raises(ValueError, match="at least 2 folds"):
        out_of_fold_confidence(rows.assign(fold=1))


def test_calibration_rows_by_hand():
    s = np.array([0.0, 2.0, np.nan, 1.0, 1.0])
    ev = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 0], [0, 0, 1], [1, 1, 1]], dtype=bool)
    out = calibration_rows(s, np.array([1, 3, 4, 0, 2]), 3, ev)
    assert out["index"].tolist() == [1, 3, 4] and out["rank"].tolist() == [1, 2, 3]
    # scored: 2, 1, 1, 0: mean 1, sd sqrt(0.5)
    z = np.array([1.0, 0.0, 0.0, -1.0]) / np.sqrt(0.5)
    np.testing.assert_allclose(out["score_z"], z[:3])
    np.testing.assert_allclose(out["gap_next_z"], [z[0] - z[1], 0.0, z[2] - z[3]])
    np.testing.assert_allclose(out["gap_top_z"], [0.0, z[0], z[0]])
    assert out["subsystem"].tolist() == [True, False, True]
    # more rows asked for than scored candidates; one candidate (sd 0: unit scale)
    one = calibration_rows(np.array([np.nan, 3.0]), np.array([1, 0]), 5, ev[:2])
    assert one["index"].tolist() == [1] and one["gap_next_z"].tolist() == [0.0]


def test_features_reject_bad_rows():
    rows = _rows(3, np.random.default_rng(0))
    with pytest.raises(ValueError, match="missing column"):
        calibration_features(rows.drop(columns="score_z"))
    with pytest.raises(ValueError, match="rank"):
        calibration_features(rows.assign(rank=0))
    with pytest.raises(ValueError, match="both 0"):
        ConfidenceCalibrator().fit(rows, [0, 0, 0])
    with pytest.raises(ValueError, match="'C' parameter"):
        ConfidenceCalibrator(C=0).fit(rows, [0, 1, 0])


def test_no_credible_candidate_threshold():
    flags = no_credible_candidate([0.0999, 0.1, 0.5, np.nan], 0.1)
    assert flags.tolist() == [True, False, False, True]
    for bad in (0, 1, -0.1, "0.1"):
        with pytest.raises(ValueError, match="threshold"):
            no_credible_candidate([0.5], bad)


def test_evidence_flags_are_the_explanations_evidence():
    """On the toy with subsystems and the adjacency block, a candidate's
    flags are set exactly when the ranking's explanation names the
    evidence: catalyses_adjacent, catalyses_in_subsystem, similar_compounds."""
    from test_evidence import motif_less_toy

    from rank.calibration import evidence_flags
    from rank.evidence import candidate_evidence

    net, feat = motif_less_toy()
    seen = np.zeros(3, dtype=int)
    for r in net.reactions.index:
        for g in ["G1", "G2", "G3", "G4", "G5"]:
            flags = evidence_flags(feat, feat.candidate_matrix(r, [g]))[0]
            ev = candidate_evidence(feat, lambda X: np.nansum(X, axis=1), r, g, names={}, gene_domains={},
                                    gene_compartments={})
            named = [bool(ev[k]) for k in ("catalyses_adjacent", "catalyses_in_subsystem", "similar_compounds")]
            assert flags.tolist() == named, (r, g)
            seen += flags
    assert seen[0] > 0 and seen[1] > 0  # the toy has both kinds of evidence


def test_calibration_rows_hold_only_their_rows():
    """The rows of one reaction hold top_n values per column, not views of
    the candidates' arrays: the validation keeps them for every ranking of
    every held-out reaction (views of 5000-candidate arrays ran to 13 GB on
    yeast-GEM)."""
    rng = np.random.default_rng(0)
    s = rng.normal(size=5000)
    s[::7] = np.nan
    out = calibration_rows(s, np.argsort(-s), 20, np.zeros((5000, 3), dtype=bool))
    for name, values in out.items():
        held = values.base if values.base is not None else values
        assert held.size == 20, name
