"""rank/history.py on hand-made tables with known answers."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest

from geomargin.common.exceptions import ConfigValueError
from geomargin.rank.history import (HistoryModel, check_release_history, choose_on_history, fit_history, gain_shares,
                          history_threshold, labelled_rows, older_run_config, score_order_rows)
from geomargin.rank.history_calibrator import HistoryCalibrator
from geomargin.rank.history_report import check_test_confidence, score_test_split

RELEASES = ["r1", "r2", "r3", "r4"]


def _cfg(history, test):
    return {"releases": RELEASES, "history": history, "test": test}


def test_release_order_rule():
    plan = check_release_history(_cfg([["r1", "r2"]], ["r2", "r4"]), RELEASES)
    assert plan.pairs("history") == (("r1", "r2"),)
    assert plan.pairs("all") == (("r1", "r2"), ("r2", "r4"))
    assert plan.olders == ("r1", "r2")
    # the test may not begin before the newest history release
    with pytest.raises(ConfigValueError, match=r"^config: metabolic.release_history.test starts at 'r2', "
                                               r"before 'r3', the newest release"):
        check_release_history(_cfg([["r1", "r3"]], ["r2", "r4"]), RELEASES)
    with pytest.raises(ConfigValueError, match=r"metabolic.release_history.history is \['r3', 'r1'\], but 'r3' "
                                               r"is not older than 'r1'"):
        check_release_history(_cfg([["r3", "r1"]], ["r3", "r4"]), RELEASES)
    with pytest.raises(ConfigValueError, match=r"metabolic.release_history.releases names 'r9'"):
        check_release_history({"releases": ["r9"], "history": [], "test": []}, RELEASES)
    with pytest.raises(ConfigValueError, match=r"metabolic.release_history.test names 'r5'"):
        check_release_history(_cfg([["r1", "r2"]], ["r2", "r5"]), RELEASES)
    with pytest.raises(ValueError, match="scope"):
        plan.pairs("test")


def _rows(ranking, best, kind="enzymatic", n=20, on="motifs"):
    return pd.DataFrame({"ranking": ranking, "reaction": [f"x{i}" for i in range(len(best))],
                         "reaction_kind": kind, "ranked": True, "best_rank": best, "n_candidates": n,
                         "n_later_genes": 1, "n_later_candidates": [1 if b else 0 for b in best],
                         "later_gene_ranks": [str(b) for b in best], "ranked_on": on})


def test_choice_on_history_and_its_fallback():
    rows = pd.concat([_rows("a", [1, 1, 0, 5]), _rows("b", [2, 2, 2, 2]), _rows("c", [1, 0, 0, 0])])
    cv = pd.DataFrame({"method": ["a", "b", "c"], "mrr": [0.1, 0.3, 0.9], "hit@1": [0, 0, 0], "hit@10": [0, 0, 0]})
    # MRR: a = (1 + 1 + 0 + 0.2) / 4 = 0.55, b = 0.5, c = 0.25
    got = choose_on_history(rows, cv, ["a", "b", "c"], min_reactions=4)
    assert (got["ranking"], got["chosen_on"], got["history_reactions"]) == ("a", "history", 4)
    assert got["history_mrr"] == pytest.approx(0.55) and got["cv_mrr"] == pytest.approx(0.1)
    assert (got["cv_best_ranking"], got["cv_best_mrr"]) == ("c", pytest.approx(0.9))
    # by hit@5 b (1.0) beats a (0.75)
    assert choose_on_history(rows, cv, ["a", "b", "c"], choose_by="hit@5", min_reactions=4)["ranking"] == "b"
    # too few history reactions: the cross-validation chooses, among the candidates only
    fallback = choose_on_history(rows, cv, ["a", "b"], min_reactions=5)
    assert (fallback["ranking"], fallback["chosen_on"]) == ("b", "cross-validation")
    assert "fewer than the 5" in fallback["chosen_by"]


def test_score_order_rows_replace_the_confidence_listing():
    rows = pd.DataFrame({"ranking": ["a", "a (score order)", "b"], "best_rank": [1, 3, 2]})
    assert score_order_rows(rows).to_dict("list") == {"ranking": ["a", "b"], "best_rank": [3, 2]}


def test_labelled_rows_mark_the_later_genes_ranks():
    rows = _rows("a", [2, 0], n=3).assign(later_gene_ranks=["2;3", "0"])
    lab = labelled_rows(rows, "a", top_n=10)
    assert lab.groupby("reaction")["label"].apply(list).to_dict() == {"x0": [0, 1, 1], "x1": [0, 0, 0]}
    assert lab["motifs"].all()
    # an unranked benchmark reaction has no shown row
    assert labelled_rows(rows.assign(ranked=False), "a", 10).empty


def test_calibrator_shrinks_each_cell_to_its_wider_one():
    # band 1: enzymatic with motifs 2 of 4 right, transport without motifs 0 of 4
    rows = pd.DataFrame({"reaction": list("abcdefgh"), "rank": 1,
                         "reaction_kind": ["enzymatic"] * 4 + ["transport"] * 4,
                         "motifs": [True] * 4 + [False] * 4, "label": [1, 1, 0, 0, 0, 0, 0, 0]})
    cal = HistoryCalibrator(prior_strength=4).fit(rows)
    band = (2 + 0.5) / (8 + 1)
    enz = (2 + 4 * band) / (4 + 4)
    tra = (0 + 4 * band) / (4 + 4)
    p = cal.predict_proba(rows)
    assert p[0] == pytest.approx((2 + 4 * enz) / 8) and p[4] == pytest.approx((0 + 4 * tra) / 8)
    # an unseen kind falls back on its band; an unseen band has no confidence
    new = pd.DataFrame({"rank": [1, 2], "reaction_kind": ["spontaneous"] * 2, "motifs": [True, True]})
    assert cal.predict_proba(new)[0] == pytest.approx(band) and np.isnan(cal.predict_proba(new)[1])
    assert cal.held_out_like(rows[:1]).tolist() == [4]
    # a stronger prior pulls the cells together
    far = HistoryCalibrator(prior_strength=1000).fit(rows).predict_proba(rows)
    assert abs(far[0] - far[4]) < abs(p[0] - p[4])
    with pytest.raises(ValueError, match="prior_strength"):
        HistoryCalibrator(prior_strength=0).fit(rows)


def test_a_later_band_is_never_more_likely_than_an_earlier_one():
    # 10 reactions: a later gene at rank 3 for four of them, at rank 1 for one
    rows = pd.DataFrame([{"reaction": f"r{i}", "rank": k, "reaction_kind": "transport", "motifs": False,
                          "label": int((k == 3 and i < 4) or (k == 1 and i == 9))}
                         for i in range(10) for k in (1, 2, 3)])
    cal = HistoryCalibrator(prior_strength=1).fit(rows)
    p = cal.predict_proba(pd.DataFrame({"rank": [1, 2, 3], "reaction_kind": "transport", "motifs": False}))
    assert p[0] >= p[1] >= p[2] and p[0] == pytest.approx(p[2])
    # the pooled bands: 5 later genes over the 30 rows of ranks 1-3 (the rank-2 band pooled too)
    assert cal.band_share_[0] == pytest.approx(cal.band_share_[2])
    assert cal.band_share_[0] == pytest.approx((1.5 / 11 * 10 + 0.5 / 11 * 10 + 4.5 / 11 * 10) / 30)


def _shrink_rows():
    """The rows of test_calibrator_shrinks_each_cell_to_its_wider_one, plus
    band-2 rows, so that the isotonic step has work."""
    first = pd.DataFrame({"reaction": list("abcdefgh"), "rank": 1,
                          "reaction_kind": ["enzymatic"] * 4 + ["transport"] * 4,
                          "motifs": [True] * 4 + [False] * 4, "label": [1, 1, 0, 0, 0, 0, 0, 0]})
    return pd.concat([first, first.assign(rank=2, label=[0, 0, 1, 1, 0, 1, 0, 0])], ignore_index=True)


def test_without_homology_evidence_the_cells_are_exactly_as_before():
    """No row with homology evidence (the block off: no column; or the
    column all False): the same cells, the same bytes of confidence and the
    same cells table as without the key, and the hand-made answer of
    test_calibrator_shrinks_each_cell_to_its_wider_one."""
    from geomargin.rank.history_calibrator import cells_table

    rows = _shrink_rows()
    off = HistoryCalibrator(prior_strength=4).fit(rows)
    none = HistoryCalibrator(prior_strength=4).fit(rows.assign(homology=False))
    assert not off.homology_ and not none.homology_
    assert off.cells_ == none.cells_ and all(len(k) <= 3 for k in none.cells_)
    assert off.predict_proba(rows).tobytes() == none.predict_proba(rows.assign(homology=True)).tobytes()
    assert off.held_out_like(rows).tobytes() == none.held_out_like(rows).tobytes()
    assert cells_table(off).to_csv(sep="\t") == cells_table(none).to_csv(sep="\t")
    assert cells_table(none).columns.tolist() == ["rank_band", "reaction_kind", "motifs", "confidence", "rows",
                                                  "reactions"]
    first = rows[rows["rank"] == 1].assign(homology=False)
    band = (2 + 0.5) / (8 + 1)
    enz = (2 + 4 * band) / (4 + 4)
    assert HistoryCalibrator(prior_strength=4).fit(first).predict_proba(first)[0] == pytest.approx((2 + 4 * enz) / 8)


def test_homology_evidence_is_a_cell_key_shrunk_to_the_cell_without_it():
    """By hand: band 1, enzymatic with motifs, 4 rows; the two with homology
    evidence right, the two without wrong. Each homology cell borrows
    prior_strength rows of the band x kind x motifs share."""
    from geomargin.rank.history_calibrator import cells_table

    rows = pd.DataFrame({"reaction": list("abcd"), "rank": 1, "reaction_kind": "enzymatic", "motifs": True,
                         "homology": [True, True, False, False], "label": [1, 1, 0, 0]})
    cal = HistoryCalibrator(prior_strength=2).fit(rows)
    band = (2 + 0.5) / (4 + 1)                    # 0.5
    kind = (2 + 2 * band) / (4 + 2)               # 0.5
    motifs = (2 + 2 * kind) / (4 + 2)             # 0.5
    assert cal.homology_
    assert cal.predict_proba(rows).tolist() == pytest.approx([(2 + 2 * motifs) / 4] * 2 + [(0 + 2 * motifs) / 4] * 2)
    assert cal.held_out_like(rows).tolist() == [2, 2, 2, 2]
    t = cells_table(cal)
    assert t.columns.tolist() == ["rank_band", "reaction_kind", "motifs", "homology", "confidence", "rows",
                                  "reactions"]
    assert t["homology"].tolist() == ["", "", "", True, False] and t["rows"].tolist() == [4, 4, 4, 2, 2]
    # a row of a cell the history did not see falls back on the wider cell
    new = pd.DataFrame({"rank": [1], "reaction_kind": ["enzymatic"], "motifs": [False], "homology": [True]})
    assert cal.predict_proba(new)[0] == pytest.approx(kind)
    # within a homology cell a later band is never more likely than an earlier one
    later = pd.concat([rows, rows.assign(rank=2, reaction=list("efgh"), label=[1, 1, 1, 0])], ignore_index=True)
    p = HistoryCalibrator(prior_strength=2).fit(later).predict_proba(
        pd.DataFrame({"rank": [1, 2], "reaction_kind": "enzymatic", "motifs": True, "homology": True}))
    assert p[0] >= p[1]
    with pytest.raises(ValueError, match="^HistoryCalibrator: its cells have the homology key, but the rows have "
                                         "no column 'homology'"):
        cal.predict_proba(rows.drop(columns="homology"))


def _standing_rows():
    """Band 1, transport with motifs, 20 reactions: the 10 whose first
    candidate stands out (score_z 6..15) have a later gene first 5 times,
    the 10 others (score_z 0..4.5) never."""
    z = [6.0 + i for i in range(10)] + [0.5 * i for i in range(10)]
    return pd.DataFrame({"reaction": [f"r{i}" for i in range(20)], "rank": 1, "reaction_kind": "transport",
                         "motifs": True, "first_score_z": z, "label": [1, 0] * 5 + [0] * 10})


def test_a_first_candidate_that_stands_out_is_a_cell_key_by_hand():
    """All: 5 of 20 right. At score_z >= 6: 10 reactions, 5 right, twice
    the rate (no lower value reaches it: at 4.5, 5 of 11). Each stands-out
    cell borrows prior_strength rows of the band x kind x motifs share."""
    from geomargin.rank.history_calibrator import cells_table

    rows = _standing_rows()
    cal = HistoryCalibrator(prior_strength=2, stands_out_factor=2, stands_out_min_reactions=10).fit(rows)
    assert cal.stands_out_threshold_ == 6.0
    band = (5 + 0.5) / (20 + 1)
    kind = (5 + 2 * band) / (20 + 2)
    motifs = (5 + 2 * kind) / (20 + 2)
    p = cal.predict_proba(rows)
    assert p[:10] == pytest.approx([(5 + 2 * motifs) / 12] * 10)
    assert p[10:] == pytest.approx([(0 + 2 * motifs) / 12] * 10)
    assert cal.held_out_like(rows[:1]).tolist() == [10]
    t = cells_table(cal)
    assert t.columns.tolist() == ["rank_band", "reaction_kind", "motifs", "stands_out", "confidence", "rows",
                                  "reactions"]
    assert t["stands_out"].tolist() == ["", "", "", True, False]
    # a reaction of today with a first candidate at 7 stands out; at 5.9 it does not
    today = pd.DataFrame({"rank": [1, 1], "reaction_kind": "transport", "motifs": True, "first_score_z": [7, 5.9]})
    assert cal.predict_proba(today) == pytest.approx([p[0], p[10]])
    with pytest.raises(ValueError, match="^HistoryCalibrator: its cells have the stands-out key, but the rows have "
                                         "no column 'first_score_z'"):
        cal.predict_proba(rows.drop(columns="first_score_z"))
    # 11 reactions needed above the threshold: none lifts the rate twice, and the key is not used
    assert HistoryCalibrator(prior_strength=2, stands_out_factor=2,
                             stands_out_min_reactions=11).fit(rows).stands_out_threshold_ is None


@pytest.mark.parametrize("change", ["default", "no lift", "no column"])
def test_without_a_stands_out_threshold_the_cells_are_exactly_as_before(change):
    from geomargin.rank.history_calibrator import cells_table

    rows = _standing_rows()
    plain = HistoryCalibrator(prior_strength=2).fit(rows.drop(columns="first_score_z"))
    if change == "default":
        cal = HistoryCalibrator(prior_strength=2).fit(rows)
    elif change == "no lift":
        cal = HistoryCalibrator(prior_strength=2, stands_out_factor=2).fit(rows.assign(first_score_z=1.0))
    else:
        cal = HistoryCalibrator(prior_strength=2).fit(rows.drop(columns="first_score_z"))
    assert cal.stands_out_threshold_ is None and cal.cells_ == plain.cells_
    assert cal.predict_proba(rows).tobytes() == plain.predict_proba(rows).tobytes()
    assert cells_table(cal).to_csv(sep="\t") == cells_table(plain).to_csv(sep="\t")


def test_a_factor_without_the_column_stops_and_a_nan_falls_back_on_the_wider_cell():
    rows = _standing_rows()
    with pytest.raises(ValueError, match="^HistoryCalibrator.fit: stands_out_factor is 2, but the rows have no "
                                         "column 'first_score_z'; rebuild the time splits"):
        HistoryCalibrator(stands_out_factor=2).fit(rows.drop(columns="first_score_z"))
    # a history reaction without a scored candidate (NaN) counts in no stands-out cell
    nan = rows.assign(first_score_z=rows["first_score_z"].where(rows.index != 19))
    cal = HistoryCalibrator(prior_strength=2, stands_out_factor=2, stands_out_min_reactions=10).fit(nan)
    assert cal.stands_out_threshold_ == 6.0
    assert cal.cells_[(0, "transport", True, False)][1] == 9 and cal.cells_[(0, "transport", True, True)][1] == 10
    # and today's reaction without one gets the band x kind x motifs cell
    today = pd.DataFrame({"rank": [1], "reaction_kind": "transport", "motifs": True, "first_score_z": [np.nan]})
    assert cal.predict_proba(today)[0] == cal.cells_[(0, "transport", True)][0]


def test_homology_and_stands_out_keys_together():
    """The stands-out cell is the narrowest, under the homology cell, and the
    cells table lists homology before stands_out."""
    from geomargin.rank.history_calibrator import cells_table

    rows = _standing_rows().assign(homology=[True, False] * 10)
    cal = HistoryCalibrator(prior_strength=2, stands_out_factor=2, stands_out_min_reactions=10).fit(rows)
    assert cal.homology_ and cal.stands_out_threshold_ == 6.0
    assert max(len(k) for k in cal.cells_) == 5 and (0, "transport", True, True, True) in cal.cells_
    t = cells_table(cal)
    assert t.columns.tolist()[:5] == ["rank_band", "reaction_kind", "motifs", "homology", "stands_out"]
    # row 0: homology, stands out; its cell borrows from the homology cell
    hom = cal.cells_[(0, "transport", True, True)][0]
    assert cal.predict_proba(rows[:1])[0] == pytest.approx((5 + 2 * hom) / (5 + 2))


def test_the_stands_out_key_reaches_the_calibrator_through_fit_history():
    """labelled_rows carries each reaction's first_score_z to all its rows,
    and fit_history passes the stands-out settings on."""
    rows = _rows("a", [1, 0] * 5 + [3] * 10, n=3).assign(ranked_on="motifs", reaction_kind="transport",
                                                        first_score_z=[6.0 + i for i in range(10)] +
                                                        [0.5 * i for i in range(10)])
    lab = labelled_rows(rows, "a", top_n=3)
    assert lab.groupby("reaction")["first_score_z"].nunique().eq(1).all()
    assert lab.loc[lab["reaction"] == "x3", "first_score_z"].tolist() == [9.0] * 3
    cv = pd.DataFrame({"method": ["a"], "mrr": [0.1], "hit@1": [0.0], "hit@10": [0.0]})
    counts = pd.DataFrame({"reaction_kind": ["transport"], "ranked": [40], "ranked_gained": [20]})
    model = fit_history({"p->q": rows}, {"p->q": counts}, cv, ["a"], min_reactions=1, top_n=3, stands_out_factor=2)
    assert model.calibrator.stands_out_threshold_ == 6.0
    off = fit_history({"p->q": rows}, {"p->q": counts}, cv, ["a"], min_reactions=1, top_n=3)
    assert off.calibrator.stands_out_threshold_ is None
    # the credible threshold then falls between the two cells
    first = lab[lab["rank"] == 1]
    conf = model.calibrator.predict_proba(first)
    assert conf[:10].min() >= model.threshold > conf[10:].max()


def test_labelled_rows_read_the_homology_ranks():
    rows = _rows("a", [2, 0, 1], n=3).assign(homology_ranks=["1;3", np.nan, 2.0])
    lab = labelled_rows(rows, "a", top_n=10)
    assert lab.groupby("reaction")["homology"].apply(list).to_dict() == {
        "x0": [True, False, True], "x1": [False, False, False], "x2": [False, True, False]}
    # without the column (the block off): no homology column
    assert "homology" not in labelled_rows(_rows("a", [2], n=3), "a", 10).columns
    # fitted through fit_history: the cells have the key
    cv = pd.DataFrame({"method": ["a"], "mrr": [0.1], "hit@1": [0.0], "hit@10": [0.0]})
    counts = pd.DataFrame({"reaction_kind": ["enzymatic"], "ranked": [10], "ranked_gained": [3]})
    model = fit_history({"p->q": rows}, {"p->q": counts}, cv, ["a"], min_reactions=1, top_n=3)
    assert model.calibrator.homology_


def test_threshold_from_history():
    t, rule = history_threshold([0.1] * 6 + [0.5] * 6, [0] * 6 + [1, 1, 0, 0, 0, 0], min_reactions=5)
    # all: 2 of 12; at 0.5: 2 of 6, twice the rate
    assert t == 0.5 and "6 reactions" in rule
    t, rule = history_threshold([0.1, 0.2], [1, 1], min_reactions=1)
    assert t > 0.2 and rule.startswith("none")


def test_gain_shares_and_test_confidence_check():
    shares = gain_shares(pd.DataFrame({"reaction_kind": ["transport", "enzymatic"], "ranked": [100, 50],
                                       "ranked_gained": [5, 10]}))
    assert shares == {"enzymatic": 0.2, "transport": 0.05, "all": pytest.approx(0.1)}
    first = pd.DataFrame({"confidence": [0.1] * 8 + [0.5] * 2, "label": [0] * 7 + [1] + [1, 0]})
    c = check_test_confidence(first, 0.5, n_boot=200)
    assert c["rank1_mean_confidence"] == pytest.approx(0.18) and c["rank1_later_gene_share"] == pytest.approx(0.2)
    assert c["credible_reactions"] == 2 and c["credible_vs_all"] == pytest.approx(2.5)
    assert c["credible_vs_all_lo"] <= 2.5 <= c["credible_vs_all_hi"]
    # ECE over the two bins: 0.8 * |0.1 - 0.125| + 0.2 * |0.5 - 0.5|
    assert c["rank1_ece"] == pytest.approx(0.8 * 0.025)
    assert c["rank1_later_gene_share_lo"] <= 0.2 <= c["rank1_later_gene_share_hi"]
    assert c["rank1_confidence_over_share_lo"] <= 0.9 and c["rank1_confidence_over_share_hi"] == np.inf


def test_test_confidence_spread_against_known_answers():
    """What the test's size allows: labels that are the confidences (0 or 1)
    leave no room; half of ten at 0.5 is the expected count; all ten right
    at 0.1 is far from it."""
    exact = check_test_confidence(pd.DataFrame({"confidence": [0.0] * 5 + [1.0] * 5, "label": [0] * 5 + [1] * 5}),
                                  2.0, n_boot=100)
    assert exact["rank1_ece_if_calibrated"] == 0 and exact["rank1_ece_if_calibrated_hi"] == 0
    assert exact["rank1_calibrated_p"] == 1.0
    half = check_test_confidence(pd.DataFrame({"confidence": [0.5] * 10, "label": [1] * 5 + [0] * 5}), 2.0,
                                 n_boot=400, seed=3)
    assert half["rank1_calibrated_p"] == pytest.approx(1.0)
    # ten draws at 0.5 in one bin: the ECE is |k/10 - 0.5|, whose median over Binomial(10, 0.5) is 0.1
    assert half["rank1_ece_if_calibrated"] == pytest.approx(0.1)
    assert half["rank1_later_gene_share_lo"] < 0.5 < half["rank1_later_gene_share_hi"]
    assert half["rank1_confidence_over_share_lo"] < 1.0 < half["rank1_confidence_over_share_hi"] < np.inf
    far = check_test_confidence(pd.DataFrame({"confidence": [0.1] * 10, "label": [1] * 10}), 2.0, n_boot=50)
    assert far["rank1_calibrated_p"] == pytest.approx(2 * 0.1 ** 10)
    assert far["rank1_confidence_over_share_lo"] == far["rank1_confidence_over_share_hi"] == pytest.approx(0.1)


def test_test_confidence_resamples_both_directions_together():
    once = pd.DataFrame({"reaction": [f"r{i}" for i in range(8)], "confidence": [0.2] * 8,
                         "label": [1, 0, 0, 1, 0, 0, 0, 0]})
    twice = pd.concat([once, once.assign(reaction=once["reaction"] + "__rev")], ignore_index=True)
    a, b = (check_test_confidence(f, 0.5, n_boot=300, seed=4) for f in (once, twice))
    for col in ("rank1_later_gene_share", "rank1_later_gene_share_lo", "rank1_later_gene_share_hi",
                "rank1_confidence_over_share_lo", "rank1_confidence_over_share_hi"):
        assert b[col] == pytest.approx(a[col]), col
    # as independent rows the doubled test would claim a narrower interval
    alone = check_test_confidence(twice.drop(columns="reaction"), 0.5, n_boot=300, seed=4)
    assert alone["rank1_later_gene_share_hi"] - alone["rank1_later_gene_share_lo"] < \
        b["rank1_later_gene_share_hi"] - b["rank1_later_gene_share_lo"]


def test_fit_then_score_the_test_pair():
    history = pd.concat([_rows("a", [1, 1, 0, 3]), _rows("b", [4, 4, 4, 4])])
    counts = pd.DataFrame({"reaction_kind": ["enzymatic"], "ranked": [40], "ranked_gained": [4]})
    cv = pd.DataFrame({"method": ["a", "b"], "mrr": [0.1, 0.9], "hit@1": [0, 0], "hit@10": [0, 0]})
    model = fit_history({"r1->r2": history}, {"r1->r2": counts}, cv, ["a", "b"], min_reactions=2, top_n=5)
    assert model.ranking == "a" and model.gain_shares["enzymatic"] == 0.1
    first = pd.DataFrame({"rank": [1], "reaction_kind": ["enzymatic"], "motifs": [True]})
    # what the history learned, read before the test pair is scored (a refit in place would change it)
    learned, threshold = float(model.calibrator.predict_proba(first)[0]), model.threshold
    # the test pair's first candidates are right far less often (1 of 5) than the history's (2 of 4)
    test = pd.concat([_rows("a", [1, 0, 0, 4, 5]), _rows("b", [1, 1, 1, 1, 1])])
    summary, rankings, confidence = score_test_split(model, test, "r2->r4", top_n=5, n_boot=50)
    assert summary["ranking"] == "a" and summary["test_hit@1"] == 0.2 and summary["test_reactions"] == 5
    assert rankings.loc[rankings["chosen"], "ranking"].unique().tolist() == ["a"]
    assert confidence["rank1_rows"].iloc[0] == 5
    # the test pair's confidence and threshold are the history's, not refitted on the test
    assert summary["test_rank1_mean_confidence"] == pytest.approx(learned)
    assert summary["threshold"] == threshold
    assert float(model.calibrator.predict_proba(first)[0]) == learned and model.threshold == threshold
    # ... and a calibrator fitted on the test's own first candidates would say otherwise
    assert abs(learned - summary["test_rank1_later_gene_share"]) > 0.1


def test_model_round_trip_and_a_truncated_file(tmp_path):
    rows = pd.DataFrame({"reaction": ["a"], "rank": [1], "reaction_kind": ["enzymatic"], "motifs": [True],
                         "label": [1]})
    model = HistoryModel({"ranking": "a"}, HistoryCalibrator().fit(rows), 0.2, "r", {"all": 0.1}, ("x->y",))
    model.save(tmp_path / "m.pkl")
    assert HistoryModel.load(tmp_path / "m.pkl").ranking == "a"
    (tmp_path / "cut.pkl").write_bytes((tmp_path / "m.pkl").read_bytes()[:20])
    with pytest.raises(ValueError, match=r"cut.pkl: not a complete release-history model .*delete it"):
        HistoryModel.load(tmp_path / "cut.pkl")


def _older_config():
    return {"metabolic": {"dataset": "today", "datasets": {"today": {}, "old": {}},
                          "time_split": {"older": "old", "newer": "today"},
                          "release_history": {"releases": ["old", "today"]},
                          "param_grids": {"a": [{"C": [1.0, 2.0]}], "b": [{"C": [3.0, 4.0]}]},
                          "ranking": {"validation_reactions_per_fold": 0, "top_n": 5}}}


def test_older_run_config_without_overrides_is_today_s_on_the_older_release():
    cfg = _older_config()
    before = copy.deepcopy(cfg)
    met = older_run_config(cfg, "old")["metabolic"]
    assert cfg == before  # the workflow's config is not changed
    assert met["dataset"] == "old"
    assert "time_split" not in met and "release_history" not in met
    assert met["param_grids"] == before["metabolic"]["param_grids"]
    assert met["ranking"] == before["metabolic"]["ranking"]


def test_older_run_config_applies_older_runs_to_the_methods_it_names_only():
    cfg = _older_config()
    cfg["metabolic"]["older_runs"] = {"param_grids": {"b": [{"C": [4.0]}]}, "validation_reactions_per_fold": 200}
    before = copy.deepcopy(cfg)
    met = older_run_config(cfg, "old")["metabolic"]
    assert cfg == before
    assert met["param_grids"] == {"a": [{"C": [1.0, 2.0]}], "b": [{"C": [4.0]}]}
    assert met["ranking"] == {"validation_reactions_per_fold": 200, "top_n": 5}
    # the older run has no older runs of its own
    assert "older_runs" not in met
    # a sample size left out keeps today's
    cfg["metabolic"]["older_runs"] = {"param_grids": {}}
    assert older_run_config(cfg, "old")["metabolic"]["ranking"]["validation_reactions_per_fold"] == 0
