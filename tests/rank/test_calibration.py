"""Tests for rank.calibration: the calibrator on hand-made rows with known
frequencies, the calibration error and reliability table by hand, the inner
check's folds, and the "no credible candidate" threshold."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from geomargin.rank.calibration import (ConfidenceCalibrator, without_network_first_share, calibration_features, calibration_rows, fold_group_weights, out_of_fold_confidence)
from geomargin.rank.calibration_check import expected_calibration_error, reliability_table, wilson_lower
from geomargin.rank.credible import no_credible_candidate


def _rows(n, rng, **fixed):
    base = {"fold": rng.integers(1, 4, n), "rank": rng.integers(1, 21, n), "score_z": rng.normal(size=n),
            "gap_next_z": 0.0, "gap_top_z": 0.0, "reaction_kind": "transport", "motifs": True,
            "adjacent": rng.random(n) < 0.3, "subsystem": False, "compounds": False, "role": False, "kind_domain": False, "site_match": False,
            "site_elsewhere": False}
    base.update(fixed)
    return pd.DataFrame(base)


def test_saturated_groups_get_their_frequencies():
    """Two groups that differ only in one flag, with true-gene shares 0.1 and
    0.4 exactly: the (nearly unregularised) logistic fit returns each share."""
    rows = pd.DataFrame({"rank": 1, "score_z": 0.0, "gap_next_z": 0.0, "gap_top_z": 0.0,
                         "reaction_kind": "enzymatic", "motifs": True, "adjacent": [False] * 100 + [True] * 100,
                         "subsystem": True, "compounds": False, "role": False, "kind_domain": False, "site_match": False,
            "site_elsewhere": False})
    y = np.r_[np.arange(100) < 10, np.arange(100) < 40].astype(int)
    cal = ConfidenceCalibrator(C=1e6).fit(rows, y)
    fit = cal.uncapped_proba(rows)
    np.testing.assert_allclose(fit[:100], 0.1, atol=1e-3)
    np.testing.assert_allclose(fit[100:], 0.4, atol=1e-3)
    # each group is a cell of 100 rows: its support cap is the Wilson lower bound of its share
    np.testing.assert_allclose(cal.predict_proba(rows), np.r_[[wilson_lower(0.1, 100)] * 100,
                                                             [wilson_lower(0.4, 100)] * 100], atol=1e-3)


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
    p, fit = cal.predict_proba(fresh), cal.uncapped_proba(fresh)
    ev = fresh["adjacent"].to_numpy()
    assert np.abs(fit - truth(fresh))[ev].max() < 0.03
    # the support cap leaves the well-supported rows near the fit, and only lowers the few rows
    # above 0.8 (under 1% of the rows)
    t = truth(fresh).to_numpy()
    assert (p <= fit + 1e-12).all() and (p - t)[ev].max() < 0.03
    assert np.abs(p - t)[ev & (t < 0.8)].max() < 0.03 and (fit - p)[ev & (t >= 0.8)].max() > 0.05
    # without network evidence: the logistic fit, capped by the share of right rank-1 rows
    first_without_network = ((train["rank"] == 1) & ~train["adjacent"]).to_numpy()
    share, n = y_train[first_without_network].mean(), first_without_network.sum()
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
    lowers it with compounds evidence: one shared slope cannot fit both, the
    calibrator's per-pattern terms do."""
    rng = np.random.default_rng(5)

    def rows_of(n):
        r = _rows(n, rng, rank=1, adjacent=False)
        sub = rng.random(n) < 0.5
        return r.assign(subsystem=sub, compounds=~sub)

    def truth(r):
        slope = np.where(r["subsystem"], 1.5, -1.5)
        return 1 / (1 + np.exp(-(-1.0 + slope * r["score_z"])))
    train, fresh = rows_of(30000), rows_of(20000)
    p = ConfidenceCalibrator().fit(train, rng.random(len(train)) < truth(train)).uncapped_proba(fresh)
    assert np.abs(p - truth(fresh)).max() < 0.03


def test_fold_group_weights_count_each_fold_group_once():
    """One reaction written 30 times (a fold group, all right at rank 1) and
    30 single reactions (right 20% of the time): unweighted the fold group
    dominates; weighted, it counts as one of 31 cases."""
    from geomargin.rank.calibration import fold_group_weights

    fam = pd.DataFrame({"reaction": [f"f{i}" for i in range(30)], "label": 1})
    single = pd.DataFrame({"reaction": [f"s{i}" for i in range(30)], "label": (np.arange(30) < 6).astype(int)})
    rows = pd.concat([fam, single], ignore_index=True).assign(
        rank=1, score_z=0.0, gap_next_z=0.0, gap_top_z=0.0, reaction_kind="enzymatic", motifs=True,
        adjacent=True, subsystem=False, compounds=False, role=False, kind_domain=False, site_match=False,
        site_elsewhere=False)
    groups = {**{f"f{i}": "fam" for i in range(30)}, **{f"s{i}": f"s{i}" for i in range(30)}}
    w = fold_group_weights(rows, groups)
    assert w[:30].tolist() == [1 / 30] * 30 and w[30:].tolist() == [1.0] * 30
    plain = ConfidenceCalibrator(C=1e6).fit(rows, rows["label"])
    weighted = ConfidenceCalibrator(C=1e6).fit(rows, rows["label"], sample_weight=w)
    assert plain.uncapped_proba(rows.iloc[:1])[0] == pytest.approx(36 / 60, abs=1e-3)
    assert weighted.uncapped_proba(rows.iloc[:1])[0] == pytest.approx(7 / 31, abs=1e-3)
    # the support cap counts fold groups too: 31 cases, not 60
    assert plain.predict_proba(rows.iloc[:1])[0] == pytest.approx(wilson_lower(36 / 60, 60), abs=1e-3)
    assert weighted.predict_proba(rows.iloc[:1])[0] == pytest.approx(wilson_lower(7 / 31, 31), abs=1e-3)
    with pytest.raises(ValueError, match="no fold group for reaction"):
        fold_group_weights(rows, {"f0": "fam"})
    with pytest.raises(ValueError, match="sample_weight"):
        ConfidenceCalibrator().fit(rows, rows["label"], sample_weight=np.zeros(len(rows)))


def test_cap_without_network_evidence_by_hand():
    """Candidates without network evidence (no adjacent, subsystem or compounds evidence) never
    exceed the Wilson lower bound of the share of right rank-1 rows without network evidence of
    their kind and pattern (n = summed weight); a kind without such rows
    takes the pattern over all kinds, a pattern without any gets 0; rows
    with network evidence are not capped."""
    n = 400
    rows = pd.DataFrame({"rank": np.tile([1, 2], n // 2), "score_z": np.linspace(-3, 3, n),
                         "gap_next_z": 0.0, "gap_top_z": 0.0,
                         "reaction_kind": np.where(np.arange(n) % 8 < 6, "enzymatic", "transport"),
                         "motifs": True, "adjacent": np.r_[np.zeros(n // 2, bool), np.ones(n // 2, bool)],
                         "subsystem": False, "compounds": False, "role": False, "kind_domain": False, "site_match": False,
            "site_elsewhere": False})
    y = ((rows["score_z"].abs() > 1.5) | (np.arange(n) % 4 == 0)).astype(int).to_numpy()
    w = np.where(np.arange(n) % 3 == 0, 0.5, 1.0)
    cal = ConfidenceCalibrator(C=1e6).fit(rows, y, sample_weight=w)
    first_without_network = (rows["rank"] == 1).to_numpy() & ~rows["adjacent"].to_numpy()
    cells = cal.without_network_cells_.set_index(["reaction_kind", "pattern"])
    assert set(cells.index) == {("enzymatic", "1000"), ("transport", "1000"), ("*", "1000")}
    for kind in ("enzymatic", "transport", "*"):
        m = first_without_network & ((rows["reaction_kind"] == kind).to_numpy() if kind != "*" else True)
        share, groups = np.average(y[m], weights=w[m]), w[m].sum()
        assert cells.loc[(kind, "1000"), "share"] == pytest.approx(share)
        assert cells.loc[(kind, "1000"), "groups"] == pytest.approx(groups)
        assert cells.loc[(kind, "1000"), "cap"] == pytest.approx(wilson_lower(share, groups))
    assert cal.without_network_share_ == pytest.approx(np.average(y[first_without_network], weights=w[first_without_network]))
    p = cal.predict_proba(rows)
    without_network = ~rows["adjacent"].to_numpy()
    cap = cal.cell_values(rows)
    np.testing.assert_array_equal(cap[without_network], cells.loc[list(zip(rows["reaction_kind"][without_network], ["1000"] * without_network.sum())),
                                                       "cap"].to_numpy())
    assert (p[without_network] <= cap[without_network] + 1e-12).all()
    uncapped = cal.pipeline_.predict_proba(calibration_features(rows))[:, 1]
    np.testing.assert_array_equal(cal.uncapped_proba(rows), uncapped)
    np.testing.assert_array_equal(p[~without_network], np.minimum(uncapped, cal.support_cap(rows, uncapped))[~without_network])
    assert (uncapped[without_network] > cap[without_network] + 0.05).any()
    # a kind never seen without network evidence takes the pattern over all kinds; an unseen pattern, 0
    other = rows[without_network].assign(reaction_kind="spontaneous")
    np.testing.assert_allclose(cal.cell_values(other), cells.loc[("*", "1000"), "cap"])
    assert cal.predict_proba(rows[without_network].assign(motifs=False)).max() == 0.0


def test_support_cap_by_hand():
    """The cap of a row is the best 95% Wilson lower bound over the sets of
    its cell's fitted rows, most confident first, that hold every row at
    least as confident as it (n = summed weight); it grows with the
    confidence; a row above every fitted row counts as the first; an unseen
    kind takes its pattern over all kinds, an unseen pattern gets 0."""
    rows = pd.DataFrame({"rank": [1, 2, 3, 4, 5, 1, 2], "score_z": [3.0, 2.0, 1.0, 0.0, -1.0, 1.0, 0.0],
                         "gap_next_z": 0.0, "gap_top_z": 0.0, "reaction_kind": ["transport"] * 5 + ["enzymatic"] * 2,
                         "motifs": True, "adjacent": True, "subsystem": False, "compounds": False, "role": False, "kind_domain": False, "site_match": False,
            "site_elsewhere": False})
    y = np.array([1, 0, 1, 0, 0, 1, 0])
    w = np.array([1.0, 1.0, 0.5, 1.0, 1.0, 1.0, 1.0])
    cal = ConfidenceCalibrator().fit(rows, y, sample_weight=w)
    fit = cal.uncapped_proba(rows)
    t = rows["reaction_kind"] == "transport"
    order = np.argsort(-fit[t.to_numpy()], kind="mergesort")
    yt, wt = y[t.to_numpy()][order], w[t.to_numpy()][order]
    bounds = [wilson_lower(np.average(yt[:j], weights=wt[:j]), wt[:j].sum()) for j in range(1, 6)]
    best_from = [max(bounds[j:]) for j in range(5)]
    # a transport row as confident as the j-th fitted one, above all of them, and below all of them
    probe = rows[t].iloc[:1]
    ps = np.sort(fit[t.to_numpy()])[::-1]
    np.testing.assert_allclose([cal.support_cap(probe, [q])[0] for q in ps], best_from)
    assert cal.support_cap(probe, [0.999])[0] == pytest.approx(best_from[0])
    table = cal.support_table().set_index(["reaction_kind", "pattern"])
    assert table.loc[("transport", "1100")].tolist() == pytest.approx([5, 4.5, best_from[0]])
    assert set(table.index) == {("transport", "1100"), ("enzymatic", "1100"), ("*", "1100")}
    assert cal.support_cap(probe, [0.0])[0] == pytest.approx(best_from[4])
    grid = np.linspace(0, 1, 101)
    caps = np.array([cal.support_cap(probe, [q])[0] for q in grid])
    assert (np.diff(caps) >= -1e-12).all()
    np.testing.assert_allclose(cal.predict_proba(rows)[t.to_numpy()],
                               np.minimum(fit, cal.support_cap(rows, fit))[t.to_numpy()])
    # spontaneous was never fitted: the pattern over all kinds (all 7 rows); another pattern: 0
    every = np.argsort(-fit, kind="mergesort")
    top = max(wilson_lower(np.average(y[every][:j], weights=w[every][:j]), w[every][:j].sum()) for j in range(1, 8))
    assert cal.support_cap(probe.assign(reaction_kind="spontaneous"), [0.999])[0] == pytest.approx(top)
    assert cal.support_cap(probe.assign(compounds=True), [0.5])[0] == 0.0


def test_support_cap_stops_a_slope_borrowed_from_another_pattern():
    """Candidates with a high score are right in one evidence pattern
    (related-reaction evidence); in another (subsystem and compound) the
    fitted rows hold no such score and are right a third of the time. The
    logistic fit shares part of the score slope, so a row of the second
    pattern with a score beyond every fitted row gets a confidence near 1;
    the cap keeps it within what its cell's rows support."""
    rng = np.random.default_rng(3)
    n = 3000
    strong = pd.DataFrame({"rank": 1, "score_z": rng.exponential(2, n), "gap_next_z": 0.0,
                           "gap_top_z": 0.0, "reaction_kind": "transport", "motifs": True, "adjacent": True,
                           "subsystem": False, "compounds": True, "role": False, "kind_domain": False, "site_match": False,
            "site_elsewhere": False})
    weak = pd.DataFrame({"rank": 1, "score_z": rng.uniform(0, 0.5, 300), "gap_next_z": 0.0,
                         "gap_top_z": 0.0, "reaction_kind": "transport", "motifs": True, "adjacent": False,
                         "subsystem": True, "compounds": True, "role": False, "kind_domain": False, "site_match": False,
            "site_elsewhere": False})
    rows = pd.concat([strong, weak], ignore_index=True)
    y = np.r_[rng.random(n) < 1 / (1 + np.exp(-(rows["score_z"][:n] * 2 - 2))), rng.random(300) < 1 / 3]
    cal = ConfidenceCalibrator().fit(rows, y.astype(int))
    orphan = weak.iloc[:1].assign(score_z=12.0)
    assert cal.uncapped_proba(orphan)[0] > 0.9
    share = y[n:].mean()
    assert cal.predict_proba(orphan)[0] < share + 0.1


def test_confidence_does_not_reward_a_gap_to_the_next_row():
    """Two rows of one reaction and evidence pattern: the one with the
    higher score is never less confident because the other is the last of
    a close group (a large gap to the next row)."""
    rng = np.random.default_rng(4)
    n = 2000
    rows = pd.DataFrame({"rank": rng.integers(1, 21, n), "score_z": rng.normal(1, 1, n),
                         "gap_next_z": rng.exponential(1, n), "gap_top_z": rng.exponential(1, n),
                         "reaction_kind": "transport", "motifs": True, "adjacent": True,
                         "subsystem": False, "compounds": True, "role": False, "kind_domain": False, "site_match": False,
            "site_elsewhere": False})
    # labels that favour a better rank and score, and also follow the gap to the next row:
    # a fit that read the gap would put the second row of the pair first
    logit = -np.log(rows["rank"]) + 0.5 * rows["score_z"] + 2 * rows["gap_next_z"] - 3
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    cal = ConfidenceCalibrator().fit(rows, y)
    pair = rows.iloc[:2].assign(rank=[1, 3], score_z=[3.0, 2.9], gap_top_z=[0.0, 0.1], gap_next_z=[0.05, 4.0])
    p = cal.uncapped_proba(pair)
    assert p[0] > p[1] + 0.05


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
    ev = np.array([[1, 0, 0, 1, 0, 1, 0], [0, 1, 0, 0, 1, 0, 1], [0, 0, 0, 0, 0, 0, 0], [0, 0, 1, 0, 0, 0, 0],
                   [1, 1, 1, 1, 1, 0, 1]], dtype=bool)
    out = calibration_rows(s, np.array([1, 3, 4, 0, 2]), 3, ev)
    assert out["index"].tolist() == [1, 3, 4] and out["rank"].tolist() == [1, 2, 3]
    # scored: 2, 1, 1, 0: mean 1, sd sqrt(0.5)
    z = np.array([1.0, 0.0, 0.0, -1.0]) / np.sqrt(0.5)
    np.testing.assert_allclose(out["score_z"], z[:3])
    np.testing.assert_allclose(out["gap_next_z"], [z[0] - z[1], 0.0, z[2] - z[3]])
    np.testing.assert_allclose(out["gap_top_z"], [0.0, z[0], z[0]])
    assert out["subsystem"].tolist() == [True, False, True]
    assert out["role"].tolist() == [False, False, True] and out["kind_domain"].tolist() == [True, False, True]
    assert out["site_match"].tolist() == [False, False, False] and out["site_elsewhere"].tolist() == [True, False, True]
    with pytest.raises(ValueError, match="evidence of shape"):
        calibration_rows(s, np.array([1, 3, 4, 0, 2]), 3, ev[:, :3])
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

    from geomargin.rank.evidence_flags import evidence_flags
    from geomargin.rank.evidence import candidate_evidence

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
    out = calibration_rows(s, np.argsort(-s), 20, np.zeros((5000, 7), dtype=bool))
    for name, values in out.items():
        held = values.base if values.base is not None else values
        assert held.size == 20, name


def test_without_network_first_share_counts_the_listed_first_rows():
    """The held-out reactions whose first listed candidate has no network
    evidence, and their share right, each fold group weighing one over all
    rows: in score order the calibrator's ``without_network_share_`` with the same
    weights; with another first row per reaction (listed by confidence), the
    share of exactly those rows, by hand."""
    rng = np.random.default_rng(3)
    n_r, k = 60, 3
    rows = pd.DataFrame({"reaction": np.repeat([f"r{i}" for i in range(n_r)], k),
                         "rank": np.tile(np.arange(1, k + 1), n_r), "score_z": rng.normal(size=n_r * k),
                         "gap_next_z": 0.0, "gap_top_z": 0.0, "reaction_kind": "enzymatic", "motifs": True,
                         "adjacent": rng.random(n_r * k) < 0.4, "subsystem": False,
                         "compounds": rng.random(n_r * k) < 0.2, "role": False, "kind_domain": False, "site_match": False,
            "site_elsewhere": False})
    rows["label"] = (rng.random(n_r * k) < 0.4).astype(int)
    # three reactions per fold group for the first 30, then one each
    groups = {f"r{i}": (f"g{i // 3}" if i < 30 else f"s{i}") for i in range(n_r)}
    w = fold_group_weights(rows, groups)
    cal = ConfidenceCalibrator().fit(rows, rows["label"], sample_weight=w)
    n, share = without_network_first_share(rows, rows["rank"].to_numpy() == 1, groups)
    first_without_network = (rows["rank"] == 1) & ~rows["adjacent"] & ~rows["compounds"]
    assert n == int(first_without_network.sum())
    assert share == pytest.approx(cal.without_network_share_)
    # another first row per reaction: the last one
    first = (rows["rank"] == k).to_numpy()
    m = first & ~rows["adjacent"].to_numpy() & ~rows["compounds"].to_numpy()
    n, share = without_network_first_share(rows, first, groups)
    wt = [1 / 3 if int(rows["reaction"].iloc[i][1:]) < 30 else 1.0 for i in np.flatnonzero(m)]
    by_hand = sum(wi * rows["label"].iloc[i] for wi, i in zip(wt, np.flatnonzero(m))) / sum(wt)
    assert n == int(m.sum()) and share == pytest.approx(by_hand)
    assert np.isnan(without_network_first_share(rows, np.zeros(len(rows), bool), groups)[1])
    with pytest.raises(ValueError, match="flags for"):
        without_network_first_share(rows, first[:-1], groups)


def test_candidate_flags_by_hand():
    """The own-kind flags on a toy: G1 transports in R1, G2 in R2, G3 is an
    enzyme (R3); domains G1 {D1, D2}, G2 {D1}, G3 {D2}, G5 {D1, D2}, G6 none.
    For the transport R4: G1 and G2 transport elsewhere (role); G5 and G3
    carry a domain of a transporter (kind_domain); G6 neither. For the
    enzymatic R3, its own gene rule is never read: G3 has no other enzymatic
    reaction, and D2's other genes (G1, G5) are no enzymes."""
    from toy_pairs import kinds_toy

    from geomargin.featurize.metabolic.pairs import PairFeaturizer
    from geomargin.rank.evidence_flags import candidate_flags

    net, dom = kinds_toy()
    motifs = {t: {} for t in ("fork", "funnel", "chain_up", "chain_down")}
    f = PairFeaturizer(net, motifs, {"domain": dom}, min_domain_genes=1, reaction_kinds=True, domain_kinds=True)
    assert any(":role_transport:" in n for n in f.feature_names_)
    genes = ["G1", "G2", "G3", "G5", "G6"]
    flags = candidate_flags(f, f.candidate_matrix("R4", genes))
    assert flags.shape == (5, 7) and not flags[:, :3].any()
    assert not flags[:, 5:].any()  # no site block: neither site flag
    assert flags[:, 3].tolist() == [True, True, False, False, False]  # role
    assert flags[:, 4].tolist() == [True, True, True, True, False]  # kind_domain
    flags = candidate_flags(f, f.candidate_matrix("R3", genes))
    assert not flags[:, 3:].any()


def test_confidence_reads_the_candidates_own_kind():
    """Rows without network evidence whose candidate already does the
    reaction's kind of work elsewhere are never right; those with a domain of
    such genes often are. The evidence pattern cannot tell them apart, the
    own-kind inputs can: at the same rank and score the first is far less
    confident than the second."""
    rng = np.random.default_rng(6)
    n = 3000
    own = rng.integers(0, 3, n)  # 0 neither, 1 role, 2 kind_domain
    rows = pd.DataFrame({"rank": rng.integers(1, 21, n), "score_z": rng.normal(1, 1, n), "gap_next_z": 0.0,
                         "gap_top_z": rng.exponential(1, n), "reaction_kind": "transport", "motifs": True,
                         "adjacent": False, "subsystem": False, "compounds": False,
                         "role": own == 1, "kind_domain": own == 2,
                         "site_match": False, "site_elsewhere": False})
    logit = -np.log(rows["rank"]) + 0.5 * rows["score_z"] - 1 + np.where(own == 1, -6.0, np.where(own == 2, 1.0, 0.0))
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    cal = ConfidenceCalibrator().fit(rows, y)
    probe = rows.iloc[:2].assign(rank=2, score_z=2.0, gap_top_z=0.5, role=[True, False], kind_domain=[False, True])
    p = cal.uncapped_proba(probe)
    assert p[0] < 0.05 < 0.3 < p[1]


def test_confidence_reads_where_the_candidate_is_localized():
    """Rows whose candidate is seen only away from the reaction's
    compartments are rarely right, those seen where it runs often are; the
    evidence pattern cannot tell them apart, the site inputs can: at the
    same rank and score the first is less confident than a candidate without
    localization data, the second more."""
    rng = np.random.default_rng(7)
    n = 3000
    site = rng.integers(0, 3, n)  # 0 no data, 1 where it runs, 2 only elsewhere
    rows = pd.DataFrame({"rank": rng.integers(1, 21, n), "score_z": rng.normal(1, 1, n), "gap_next_z": 0.0,
                         "gap_top_z": rng.exponential(1, n), "reaction_kind": "enzymatic", "motifs": True,
                         "adjacent": True, "subsystem": False, "compounds": False, "role": False,
                         "kind_domain": False, "site_match": site == 1, "site_elsewhere": site == 2})
    logit = -np.log(rows["rank"]) + 0.5 * rows["score_z"] - 1 + np.where(site == 2, -3.0, np.where(site == 1, 1.0, 0.0))
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    cal = ConfidenceCalibrator().fit(rows, y)
    probe = rows.iloc[:3].assign(rank=2, score_z=1.5, gap_top_z=0.5, site_match=[False, True, False],
                                 site_elsewhere=[True, False, False])
    p = cal.uncapped_proba(probe)
    assert p[0] < p[2] < p[1] and p[2] - p[0] > 0.1


def test_calibration_table_carries_every_column():
    """The validation's calibration rows hold :data:`CALIBRATION_COLUMNS`
    after ``ranking``, each candidate flag from its part."""
    from geomargin.rank.calibration import CALIBRATION_COLUMNS
    from geomargin.rank.validation import calibration_table

    ev = np.array([[1, 0, 0, 1, 0, 0, 1], [0, 0, 1, 0, 1, 1, 0], [0, 0, 0, 0, 0, 0, 0]], dtype=bool)
    c = calibration_rows(np.array([3.0, 2.0, 1.0]), np.array([0, 1, 2]), 2, ev)
    c.update(fold=1, reaction="R1", reaction_kind="transport", motifs=True, label=np.array([True, False]))
    t = calibration_table([c], ["G1", "G2", "G3"], "m")
    assert t.columns.tolist() == ["ranking", *CALIBRATION_COLUMNS]
    assert t["gene"].tolist() == ["G1", "G2"] and t["role"].tolist() == [True, False]
    assert t["kind_domain"].tolist() == [False, True] and t["compounds"].tolist() == [False, True]
    assert t["site_match"].tolist() == [False, True] and t["site_elsewhere"].tolist() == [True, False]


def test_a_kind_never_held_out_gets_no_confidence():
    """Rows of a reaction kind with no fitted row (no held-out spontaneous
    reaction) get 0, however high their score; the fitted kinds keep theirs."""
    rng = np.random.default_rng(2)
    rows = _rows(2000, rng, reaction_kind=np.where(rng.random(2000) < 0.5, "enzymatic", "transport"))
    y = (rng.random(2000) < 1 / (1 + np.exp(-(rows["score_z"] * 2 - 1)))).astype(int)
    cal = ConfidenceCalibrator().fit(rows, y)
    assert cal.kinds_ == ["enzymatic", "transport"]
    probe = rows.iloc[:3].assign(rank=1, score_z=3.0, adjacent=True,
                                 reaction_kind=["spontaneous", "enzymatic", "transport"])
    p = cal.predict_proba(probe)
    assert p[0] == 0.0 and (p[1:] > 0.5).all()


def test_held_out_like_counts_the_fold_groups_of_each_cell_by_hand():
    """``held_out_like`` is the number of held-out reactions (each weighing
    its row weight: fold_group_weights) whose rows share the
    row's reaction kind, evidence pattern and own kind of work; a cell never
    seen gives 0; it changes no confidence."""
    base = {"gap_next_z": 0.0, "gap_top_z": 0.0, "motifs": True, "adjacent": False, "subsystem": False,
            "compounds": False, "kind_domain": False, "site_match": False, "site_elsewhere": False}
    rows = pd.DataFrame([
        # two reactions of one fold group (weight 0.5 each), two rows each, own kind "none"
        {"reaction": "a", "rank": 1, "role": False}, {"reaction": "a", "rank": 2, "role": False},
        {"reaction": "b", "rank": 1, "role": False}, {"reaction": "b", "rank": 2, "role": True},
        # a reaction of its own group: one "none" row, one "role" row
        {"reaction": "c", "rank": 1, "role": False}, {"reaction": "c", "rank": 2, "role": True},
    ]).assign(score_z=[2.0, 1.0, 2.0, 0.5, 1.5, 0.2], reaction_kind="transport", **base)
    y = np.array([1, 0, 1, 0, 0, 1])
    w = fold_group_weights(rows, {"a": "g", "b": "g", "c": "c"})
    cal = ConfidenceCalibrator().fit(rows, y, sample_weight=w)
    probe = pd.DataFrame({"reaction": "x", "rank": [1, 3, 1, 1], "role": [False, True, False, False]}).assign(
        score_z=1.0, reaction_kind="transport", **base)
    probe.loc[2, "kind_domain"], probe.loc[3, "adjacent"] = True, True
    # "none": a (0.5) + b (0.5) + c (1); "role": b (0.5) + c (1); "domain" and the other pattern: never seen
    assert cal.held_out_like(probe).tolist() == [2.0, 1.5, 0.0, 0.0]
    assert cal.held_out_like(probe.iloc[:0]).tolist() == []


def test_homology_flag_by_hand_only_with_the_block():
    """On the homology toy (tests/featurize/metabolic/test_homology.py), for
    the orphan R4: G1, G2 and G6 have a homology item > 0, G3 and G4 only
    zeros (a sequence, no hit), G7 no sequence (absent). Without the block,
    the flags are the seven of before."""
    from toy_pairs import HOMOLOGY_GENES, homology_hits, homology_toy

    from geomargin.featurize.metabolic.pairs import PairFeaturizer
    from geomargin.rank.evidence_flags import CANDIDATE_FLAGS, candidate_flag_names, candidate_flags, homology_flags

    net, motifs, sources = homology_toy()
    on = PairFeaturizer(net, motifs, sources, adjacency=False, homology=homology_hits())
    off = PairFeaturizer(net, motifs, sources, adjacency=False)
    assert candidate_flag_names(on) == (*CANDIDATE_FLAGS, "homology") and candidate_flag_names(off) == CANDIDATE_FLAGS
    X = on.candidate_matrix("R4", HOMOLOGY_GENES)
    want = [True, True, False, False, True, False]
    assert homology_flags(on, X).tolist() == want
    flags = candidate_flags(on, X)
    assert flags.shape == (6, 8) and flags[:, -1].tolist() == want
    np.testing.assert_array_equal(flags[:, :7], candidate_flags(off, off.candidate_matrix("R4", HOMOLOGY_GENES)))
    assert homology_flags(off, X[:, :1]) is None


def test_calibration_rows_and_table_carry_the_homology_flag_only_with_the_block():
    from geomargin.rank.calibration import CALIBRATION_COLUMNS
    from geomargin.rank.evidence_flags import CANDIDATE_FLAGS
    from geomargin.rank.validation import calibration_table

    ev = np.array([[1, 0, 0, 1, 0, 0, 1, 1], [0, 0, 1, 0, 1, 1, 0, 0], [0] * 8], dtype=bool)
    c = calibration_rows(np.array([3.0, 2.0, 1.0]), np.array([0, 1, 2]), 2, ev, (*CANDIDATE_FLAGS, "homology"))
    c.update(fold=1, reaction="R1", reaction_kind="transport", motifs=True, label=np.array([True, False]))
    t = calibration_table([c], ["G1", "G2", "G3"], "m")
    assert t.columns.tolist() == ["ranking", *CALIBRATION_COLUMNS[:-1], "homology", "label"]
    assert t["homology"].tolist() == [True, False] and t["site_elsewhere"].tolist() == [True, False]
    with pytest.raises(ValueError, match="one column per flag"):
        calibration_rows(np.array([3.0, 2.0, 1.0]), np.array([0, 1, 2]), 2, ev)


def test_confidence_reads_homology_evidence_only_when_the_rows_have_it():
    """Rows whose candidate has homology evidence are right more often, at
    the same rank, score and evidence pattern: fitted with the column, the
    calibrator gives them more; the 65th input is the flag. Fitted without
    it (the block off), a column in the rows to predict changes nothing."""
    rng = np.random.default_rng(8)
    n = 3000
    hom = rng.random(n) < 0.5
    rows = pd.DataFrame({"rank": rng.integers(1, 21, n), "score_z": rng.normal(1, 1, n), "gap_next_z": 0.0,
                         "gap_top_z": rng.exponential(1, n), "reaction_kind": "transport", "motifs": True,
                         "adjacent": False, "subsystem": False, "compounds": True, "role": False,
                         "kind_domain": False, "site_match": False, "site_elsewhere": False})
    logit = -np.log(rows["rank"]) + 0.5 * rows["score_z"] - 1 + np.where(hom, 1.5, -1.5)
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    X = calibration_features(rows.assign(homology=hom))
    assert X.shape == (n, 65) and X[:, -1].tolist() == hom.astype(float).tolist()
    np.testing.assert_array_equal(X[:, :64], calibration_features(rows))
    cal = ConfidenceCalibrator().fit(rows.assign(homology=hom), y)
    assert cal.homology_
    probe = rows.iloc[:2].assign(rank=2, score_z=1.5, gap_top_z=0.5, homology=[True, False])
    p = cal.uncapped_proba(probe)
    assert p[0] - p[1] > 0.2
    with pytest.raises(ValueError, match="^ConfidenceCalibrator: fitted on rows with the column 'homology'"):
        cal.predict_proba(probe.drop(columns="homology"))
    without = ConfidenceCalibrator().fit(rows, y)
    assert not without.homology_
    assert without.predict_proba(probe).tobytes() == without.predict_proba(probe.drop(columns="homology")).tobytes()
    with pytest.raises(ValueError, match=r"missing column\(s\) \['homology'\]"):
        calibration_features(rows, homology=True)
