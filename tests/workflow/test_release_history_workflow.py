"""The release history end to end on toy releases: toy_a lacks the genes of
the history reactions and of the test reactions; toy_b gives the history
reactions theirs back; the toy model itself (the newest release, the
ranked input set) gives the test reactions theirs. History [toy_a, toy_b]
chooses and calibrates; the test [toy_b, toy] is only scored."""

from __future__ import annotations

import hashlib
import json

import cobra
import pandas as pd
import pytest

from geomargin.rank.history import HistoryModel, credible_possible
from toy_data import write_toy_inputs
from workflow_helpers import run_snakemake, toy_config

pytestmark = pytest.mark.slow

HISTORY = ("R_p4_2", "R_p5_2")
TEST = ("R_p4_4", "R_p5_4")


def _release(newer: cobra.Model, path, without) -> None:
    model = newer.copy()
    for rid in without:
        model.reactions.get_by_id(rid).gene_reaction_rule = ""
    cobra.io.save_json_model(model, str(path))


def _config(tmp, inputs, **history):
    config = toy_config(inputs, tmp)
    toy = config["metabolic"]["datasets"]["toy"]
    for name in ("toy_a", "toy_b"):
        config["metabolic"]["datasets"][name] = {**toy, "network": f"file:{tmp / 'inputs' / (name + '.json')}"}
    config["metabolic"]["ranking"]["method"] = "auto"
    config["metabolic"]["release_history"] = {
        "releases": ["toy_a", "toy_b", "toy"], "history": [["toy_a", "toy_b"]], "test": ["toy_b", "toy"],
        "min_reactions": 1, **history}
    return config


@pytest.fixture(scope="module")
def history_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("release_history")
    inputs = write_toy_inputs(tmp / "inputs")
    newer = cobra.io.load_json_model(str(inputs["model"]))
    _release(newer, tmp / "inputs" / "toy_a.json", HISTORY + TEST)
    _release(newer, tmp / "inputs" / "toy_b.json", TEST)
    config = _config(tmp, inputs)
    proc = run_snakemake(tmp, config, "results/enzyme_ranking.html")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    return tmp, inputs, config


def _sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_history_chooses_and_calibrates_the_shown_ranking(history_run):
    tmp, _, _ = history_run
    rh = tmp / "results/metabolic/release_history"
    history = HistoryModel.load(rh / "history/history.pkl")
    today = HistoryModel.load(rh / "all/history.pkl")
    assert history.pairs == ("toy_a->toy_b",) and today.pairs == ("toy_a->toy_b", "toy_b->toy")
    assert history.choice["chosen_on"] == "history" and history.choice["history_reactions"] == len(HISTORY)
    # the history's benchmark is the two reactions toy_b gave genes, its ranking one of the validated ones
    rows = pd.read_csv(rh / "toy_a/toy_b/time_split_reactions.tsv", sep="\t", keep_default_na=False)
    assert set(rows["reaction"]) == set(HISTORY)
    assert history.ranking in {"geometric", "zero", "geometric+centred", "zero+centred"}
    quality = pd.read_csv(tmp / "results/enzyme_ranking_quality.tsv", sep="\t")
    ranking = pd.read_csv(tmp / "results/enzyme_ranking.tsv", sep="\t")
    assert quality["method"].iloc[0] == today.ranking == ranking["method"].iloc[0]
    # the quality table leads with the test pair's figures, then what today's ranking was chosen on
    assert list(quality.columns[:4]) == ["method", "test_split", "test_ranking", "test_ranking_learned_from"]
    assert quality["test_split"].iloc[0] == "toy_b->toy" and quality["test_ranking"].iloc[0] == history.ranking
    assert quality["shown_learned_from"].iloc[0] == "toy_a->toy_b;toy_b->toy"
    # every shown confidence is the history calibrator's, by rank band, kind and motif evidence
    cells = pd.read_csv(rh / "all/confidence_cells.tsv", sep="\t")
    assert ranking["confidence"].between(0, 1).all()
    assert set(ranking["confidence"].round(4)) <= set(cells["confidence"].round(4))
    assert (ranking["unconditional_confidence"] <= ranking["confidence"] + 1e-9).all()
    assert (ranking["rank"] == ranking["score_rank"]).all()
    # the cross-validation's own check validates its choice, not the listed ranking: no row marked shown
    shown = pd.read_csv(tmp / "results/metabolic/staged/shown_validation.tsv", sep="\t")
    assert len(shown) and not shown["shown"].astype(bool).any()


def test_test_pair_is_scored_with_what_history_alone_chose(history_run):
    tmp, _, _ = history_run
    summary = pd.read_csv(tmp / "results/metabolic/history_test.tsv", sep="\t").iloc[0]
    history = HistoryModel.load(tmp / "results/metabolic/release_history/history/history.pkl")
    assert summary["ranking"] == history.ranking and summary["learned_from"] == "toy_a->toy_b"
    assert summary["test_reactions"] == summary["test_model_reactions"] == len(TEST)
    # the test's credible flags read the history's threshold, not one fitted with the test pair
    assert summary["threshold"] == pytest.approx(history.threshold, abs=1e-4)
    assert summary["threshold_rule"] == history.threshold_rule
    rankings = pd.read_csv(tmp / "results/metabolic/history_test_rankings.tsv", sep="\t")
    mine = rankings[rankings["chosen"] & (rankings["reaction_kind"] == "all")]
    assert mine["ranking"].tolist() == [history.ranking]
    assert summary["test_hit@1"] == pytest.approx(float(mine["hit@1"].iloc[0]), abs=1e-4)
    # every ranking of the split is reported beside it, with the random expectation
    assert rankings["ranking"].nunique() > 1 and "random_hit@1" in rankings.columns
    confidence = pd.read_csv(tmp / "results/metabolic/history_test_confidence.tsv", sep="\t")
    assert confidence["reaction_kind"].iloc[0] == "all"
    assert confidence["rank1_rows"].iloc[0] == summary["test_rank1_rows"]


def test_no_test_label_reaches_the_choice_or_the_calibrator(history_run):
    """The newest release gives the test reactions other genes: the test
    pair's figures change (they are read), and what the history alone
    learned stays byte for byte the same (it fails if the history scope read
    the test pair)."""
    tmp, inputs, config = history_run
    rh = tmp / "results/metabolic/release_history"
    before = {f: _sha(rh / "history" / f) for f in ("history.pkl", "choice.tsv", "confidence_cells.tsv")}
    test_before = _sha(rh / "toy_b/toy/time_split_reactions.tsv")
    model = json.loads(inputs["model"].read_text())
    genes = sorted({g["id"] for g in model["genes"]})
    for r in model["reactions"]:
        if r["id"] in TEST:
            r["gene_reaction_rule"] = genes[0] if r["gene_reaction_rule"] != genes[0] else genes[1]
    changed = tmp / "inputs" / "toy_changed.json"
    changed.write_text(json.dumps(model))
    config["metabolic"]["datasets"]["toy"]["network"] = f"file:{changed}"
    proc = run_snakemake(tmp, config, "results/metabolic/release_history/toy_b/toy/time_split_reactions.tsv",
                         f"{rh.relative_to(tmp)}/history/history.pkl")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert _sha(rh / "toy_b/toy/time_split_reactions.tsv") != test_before
    assert {f: _sha(rh / "history" / f) for f in before} == before


def test_browser_header_leads_with_the_test_pair(history_run):
    tmp, _, _ = history_run
    summary = pd.read_csv(tmp / "results/metabolic/history_test.tsv", sep="\t").iloc[0]
    html = (tmp / "results/enzyme_ranking.html").read_text()
    data = json.loads(html.split('<script type="application/json" id="geomargin-data">', 1)[1]
                      .split("</script>", 1)[0])
    assert data["meta"]["history_test"]["test_split"] == "toy_b->toy"

    from chromium import header_text
    text = header_text(tmp / "results/enzyme_ranking.html")
    head = text.index("Test on real orphans: toy_b \u2192 toy")
    assert head < text.index("Cross-validation of the same method")
    pct = f"{100 * summary['test_hit@1']:.1f}% [{100 * summary['test_hit@1_lo']:.1f}, " \
          f"{100 * summary['test_hit@1_hi']:.1f}]"
    assert f"hit@1 {pct}" in text
    assert f"later gave {len(TEST)} of them ({len(TEST)} model reactions" in text
    assert f"MRR {summary['test_mrr']:.3f}" in text
    assert "Time split (the test on real orphans" not in text
    # the confidence on its first candidates, beside what a calibrated one shows on a test this small
    assert f"(calibration error {summary['test_rank1_ece']:.3f}; on this many reactions a perfectly calibrated " \
           f"confidence shows about {summary['test_rank1_ece_if_calibrated']:.3f}, up to " \
           f"{summary['test_rank1_ece_if_calibrated_hi']:.3f} in 95% of draws)" in text
    # then what today's ranking was chosen on, with its history and cross-validated figures
    quality = pd.read_csv(tmp / "results/enzyme_ranking_quality.tsv", sep="\t").iloc[0]
    assert f"The candidates below are ranked by {quality['method']}, chosen on history " \
           f"(toy_a->toy_b;toy_b->toy, the test pair included)" in text
    assert f"MRR {quality['history_mrr']:.3f}; cross-validated hit@1" in text


def test_no_credible_flags_and_their_notice_use_todays_threshold(history_run):
    """The flags, the quality table and the browser's notice all read the
    threshold learned with the test pair (today's), not the test run's."""
    tmp, _, _ = history_run
    today = HistoryModel.load(tmp / "results/metabolic/release_history/all/history.pkl")
    quality = pd.read_csv(tmp / "results/enzyme_ranking_quality.tsv", sep="\t").iloc[0]
    assert quality["threshold"] == pytest.approx(today.threshold, abs=1e-4)
    assert quality["threshold_rule"] == today.threshold_rule
    orphans = pd.read_csv(tmp / "results/orphan_reactions.tsv", sep="\t")
    ranked = orphans[orphans["ranked"] == "yes"].set_index("reaction_id")
    # (best_confidence is written to 3 decimals)
    flagged = ranked["no_credible_candidate"] == "yes"
    assert (ranked.loc[flagged, "best_confidence"] <= today.threshold + 5e-4).all()
    assert (ranked.loc[~flagged, "best_confidence"] >= today.threshold - 5e-4).all()
    html = (tmp / "results/enzyme_ranking.html").read_text()
    meta = json.loads(html.split('<script type="application/json" id="geomargin-data">', 1)[1]
                      .split("</script>", 1)[0])["meta"]
    assert meta["confidence_threshold"] == pytest.approx(today.threshold, abs=1e-3)
    assert meta["credible_possible"] == credible_possible(today.threshold_rule)
    flagged = ranked.index[flagged]
    assert len(flagged)  # the notice is checked on a flagged orphan's page
    from chromium import element_text
    notice = element_text(tmp / "results/enzyme_ranking.html", "#no-credible", flagged[0])
    best = f"{100 * ranked.loc[flagged[0], 'best_confidence']:.1f}%"
    if credible_possible(today.threshold_rule):
        assert f"{best}, is below the threshold of {100 * today.threshold:.1f}%" in notice
    else:
        assert "no orphan is marked credible" in notice and best in notice


def test_a_test_that_overlaps_history_stops_naming_the_key(history_run):
    tmp, inputs, _ = history_run
    config = _config(tmp, inputs, history=[["toy_a", "toy"]], test=["toy_b", "toy"])
    proc = run_snakemake(tmp, config, "results/enzyme_ranking.tsv", extra=["-n"])
    assert proc.returncode != 0
    assert "metabolic.release_history.test starts at 'toy_b', before 'toy', the newest release of " \
           "metabolic.release_history.history" in proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr  # one line, no traceback


def test_a_stands_out_key_reaches_todays_confidence(history_run):
    """With metabolic.release_history.stands_out_factor set (a factor every
    history reaction meets), both scopes' cells gain the stands-out key and
    today's ranking runs: the calibrator stops when its rows lack
    first_score_z, so the ranking step must hand it each orphan's. Each
    shown confidence is one of the cells' (an orphan whose first candidate
    is below the threshold, a cell the history never saw, gets the wider
    cell's). Last in this file: it changes the shared run's config."""
    tmp, inputs, _ = history_run
    config = _config(tmp, inputs, stands_out_factor=0.01, stands_out_min_reactions=1)
    proc = run_snakemake(tmp, config, "results/enzyme_ranking.tsv")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    rh = tmp / "results/metabolic/release_history"
    for scope in ("history", "all"):
        model = HistoryModel.load(rh / scope / "history.pkl")
        assert model.calibrator.stands_out_threshold_ is not None
        assert "stands_out" in pd.read_csv(rh / scope / "confidence_cells.tsv", sep="\t").columns
    rows = pd.read_csv(rh / "toy_a/toy_b/time_split_reactions.tsv", sep="\t")
    assert rows.loc[rows["ranked"], "first_score_z"].notna().all()
    cells = pd.read_csv(rh / "all/confidence_cells.tsv", sep="\t")
    ranking = pd.read_csv(tmp / "results/enzyme_ranking.tsv", sep="\t")
    assert set(ranking["confidence"].round(4)) <= set(cells["confidence"].round(4))
