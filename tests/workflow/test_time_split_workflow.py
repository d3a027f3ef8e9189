"""The time-split target end to end on a toy pair of releases: the older
release is the toy model with the genes of two reactions removed; the newer
is the toy model itself, which gives them their genes back."""

from __future__ import annotations

import json

import cobra
import pandas as pd
import pytest

from geomargin.rank.calibration import THIN_SUPPORT
from geomargin.rank.time_split import random_expectation
from toy_data import write_toy_inputs
from workflow_helpers import run_snakemake, toy_config

pytestmark = pytest.mark.slow

GAINED = ("R_p4_2", "R_p5_2")
OLDER_GEOMETRIC = {"kernel": ["linear"], "C": [0.1], "n_iter": [2]}
#: zero's grid in every run: one point that no registry default holds, so the
#: older run's folds show whether the workflow's grid reached it
ZERO = {"kernel": ["linear"], "C": [0.5]}


def _toy_config(inputs, tmp):
    """The toy config, whose older runs search one point of geometric's two
    (metabolic.older_runs) and keep zero's grid (``ZERO``): every run of this
    module's directory uses it, so none redoes the older run's steps of
    another."""
    config = toy_config(inputs, tmp)
    config["metabolic"]["param_grids"]["zero"] = [ZERO]
    config["metabolic"]["older_runs"] = {"param_grids": {"geometric": [OLDER_GEOMETRIC]}}
    return config


def _older_against(tmp, inputs, name, newer_path):
    """The toy config with the older release (``inputs/older.json``) against
    another newer release ``name``, read from ``newer_path``."""
    config = _toy_config(inputs, tmp)
    toy = config["metabolic"]["datasets"]["toy"]
    config["metabolic"]["datasets"]["toy_older"] = {**toy, "network": f"file:{tmp / 'inputs' / 'older.json'}"}
    config["metabolic"]["datasets"][name] = {**toy, "network": f"file:{newer_path}"}
    config["metabolic"]["time_split"] = {"older": "toy_older", "newer": name}
    return config


@pytest.fixture(scope="module")
def time_split_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("time_split")
    inputs = write_toy_inputs(tmp / "inputs")
    newer = cobra.io.load_json_model(str(inputs["model"]))
    later = {rid: newer.reactions.get_by_id(rid).gene_reaction_rule for rid in GAINED}
    older = newer.copy()
    for rid in GAINED:
        older.reactions.get_by_id(rid).gene_reaction_rule = ""
    older_path = tmp / "inputs" / "older.json"
    cobra.io.save_json_model(older, str(older_path))
    config = _toy_config(inputs, tmp)
    toy = config["metabolic"]["datasets"]["toy"]
    config["metabolic"]["datasets"]["toy_older"] = {**toy, "network": f"file:{older_path}"}
    config["metabolic"]["time_split"] = {"older": "toy_older", "newer": "toy"}
    # the older run lists its shown rows by confidence whatever its validation says ("auto" may not)
    config["metabolic"]["ranking"]["order"] = "confidence"
    proc = run_snakemake(tmp, config, "results/metabolic/time_split_validation.tsv")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    return tmp, inputs, later


def test_benchmark_is_the_reactions_the_newer_release_gave_genes(time_split_run):
    tmp, inputs, later = time_split_run
    rows = pd.read_csv(tmp / "results/metabolic/time_split_reactions.tsv", sep="\t", keep_default_na=False)
    # the toy's own orphans are orphans in both releases: not benchmark reactions
    assert set(rows["reaction"]) == set(GAINED)
    for r in rows.itertuples():
        assert r.later_genes == later[r.reaction] and r.n_later_genes == 1 and r.ranked
        assert 1 <= r.best_rank <= r.n_candidates and r.best_gene == later[r.reaction]
    # rankings: the configured method first, then each validated method and
    # baseline, raw and after the configured gene correction
    # (the default listed by the older run's confidence, as the final ranking lists it; its score
    # order last)
    assert list(dict.fromkeys(rows["ranking"])) == [
        "geometric", "geometric+centred", "zero", "zero+centred", "coexpr", "coexpr+centred",
        "adjacency", "adjacency+centred", "geometric (score order)"]
    # a later gene among the shown rows is at its place in them: by confidence for the default,
    # by score for the score order; the shown rows are listed by confidence
    shown = pd.read_csv(tmp / "results/metabolic/time_split_shown.tsv", sep="\t", keep_default_na=False)
    for _, block in shown.groupby("reaction"):
        block = block.sort_values("rank")
        assert block["rank"].tolist() == list(range(1, len(block) + 1))
        assert (block["confidence"].diff().dropna() <= 0).all()
    by_ranking = rows.set_index(["ranking", "reaction"])
    checked = 0
    for r in shown[shown["label"] == 1].itertuples():
        assert by_ranking.loc[("geometric", r.reaction), "best_rank"] == r.rank
        assert by_ranking.loc[("geometric (score order)", r.reaction), "best_rank"] == r.score_rank
        checked += 1
    assert checked == len(GAINED)


def test_table_summarises_the_reaction_rows(time_split_run):
    tmp, _, _ = time_split_run
    rows = pd.read_csv(tmp / "results/metabolic/time_split_reactions.tsv", sep="\t", keep_default_na=False)
    table = pd.read_csv(tmp / "results/metabolic/time_split_validation.tsv", sep="\t")
    assert table.loc[table["default"], "ranking"].unique().tolist() == ["geometric"]
    for t in table[table["reaction_kind"] == "all"].itertuples():
        r = rows[rows["ranking"] == t.ranking]
        assert t.reactions == 2 and t.not_ranked == 0 and t.later_genes == 2
        row = table[(table["ranking"] == t.ranking) & (table["reaction_kind"] == "all")].iloc[0]
        assert row["hit@1"] == pytest.approx((r["best_rank"] == 1).mean())
        assert row["mrr"] == pytest.approx((1 / r["best_rank"]).mean(), abs=1e-4)
        n = int(r["n_candidates"].iloc[0])
        assert row["random_hit@1"] == pytest.approx(random_expectation(n, 1)["hit@1"], abs=1e-4)
    # the older run lives apart and leaves the main results alone
    assert (tmp / "results/time_split/toy_older/metabolic/staged/ranking_validation.tsv").is_file()
    assert not (tmp / "results/enzyme_ranking.tsv").exists()


def test_later_genes_split_by_what_the_older_release_showed(time_split_run):
    tmp, _, _ = time_split_run
    rows = pd.read_csv(tmp / "results/metabolic/time_split_reactions.tsv", sep="\t", keep_default_na=False)
    table = pd.read_csv(tmp / "results/metabolic/time_split_later_genes.tsv", sep="\t")
    older = cobra.io.load_json_model(str(tmp / "inputs" / "older.json"))
    for r in rows.itertuples():
        # one later gene per toy reaction: its own rank is the best rank
        assert str(r.later_gene_ranks) == str(r.best_rank)
        gene = older.genes.get_by_id(r.later_genes) if older.genes.has_id(r.later_genes) else None
        if gene is None or not gene.reactions:
            assert r.later_gene_evidence == "no_older_reaction"
        else:
            assert r.later_gene_evidence in ("catalyses_adjacent", "catalyses_in_subsystem", "similar_compounds",
                                             "other_reactions")
    assert table.loc[table["default"], "ranking"].unique().tolist() == ["geometric"]
    assert list(dict.fromkeys(table["ranking"])) == list(dict.fromkeys(rows["ranking"]))
    for ranking, t in table.groupby("ranking", sort=False):
        mine = rows[rows["ranking"] == ranking]
        assert t["later_gene_evidence"].iloc[0] == "all"
        assert t["later_genes"].iloc[0] == 2 and t["reactions"].iloc[0] == 2
        assert t["later_genes"].iloc[1:].sum() == 2
        for c, g in mine.groupby("later_gene_evidence"):
            row = t[t["later_gene_evidence"] == c].iloc[0]
            assert row["hit@20"] == pytest.approx(g["best_rank"].between(1, 20).mean(), abs=1e-4)


def test_main_job_with_the_time_split_shows_it_in_the_browser(time_split_run):
    """metabolic.time_split.in_main_job: the browser's header carries the
    default ranking's time-split figures, read from this run's table."""
    tmp, inputs, _ = time_split_run
    config = _toy_config(inputs, tmp)
    toy = config["metabolic"]["datasets"]["toy"]
    config["metabolic"]["datasets"]["toy_older"] = {**toy, "network": f"file:{tmp / 'inputs' / 'older.json'}"}
    config["metabolic"]["time_split"] = {"older": "toy_older", "newer": "toy", "in_main_job": True}
    proc = run_snakemake(tmp, config, "results/enzyme_ranking.html")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    html = (tmp / "results/enzyme_ranking.html").read_text()
    data = json.loads(html.split('<script type="application/json" id="geomargin-data">', 1)[1]
                      .split("</script>", 1)[0])
    shown = data["meta"]["time_split"]
    table = pd.read_csv(tmp / "results/metabolic/time_split_validation.tsv", sep="\t")
    row = table[table["default"] & (table["reaction_kind"] == "all")].iloc[0]
    assert (shown["older"], shown["newer"], shown["ranking"]) == ("toy_older", "toy", row["ranking"])
    for key in ("reactions", "hit@1", "hit@20", "hit@20_lo", "hit@20_hi", "random_hit@20"):
        assert shown[key] == pytest.approx(float(row[key]), abs=1e-4), key

    from chromium import header_text
    text = header_text(tmp / "results/enzyme_ranking.html")
    assert f"time split hit@1 {100 * row['hit@1']:.1f}%" in text
    assert f"hit@20 {100 * row['hit@20']:.1f}% [{100 * row['hit@20_lo']:.1f}, {100 * row['hit@20_hi']:.1f}]" in text
    assert "orphan reactions of toy_older were ranked by a run that saw only that release" in text


def test_confidence_is_checked_on_the_time_split_and_never_fitted_on_it(time_split_run):
    """The shown rows of the default ranking carry the older run's confidence
    and a label that is exactly "a later gene"; the check table counts them.
    Then the newer release gives the two reactions other genes: the time
    split's labels change, and the older run's calibrator and calibration
    rows stay byte for byte what they were (no time-split label reaches
    them; the test fails if the calibration step read the newer release)."""
    import hashlib

    tmp, inputs, later = time_split_run
    shown = pd.read_csv(tmp / "results/metabolic/time_split_shown.tsv", sep="\t")
    assert set(shown["reaction"]) == set(GAINED) and shown["confidence"].between(0, 1).all()
    for r in shown.itertuples():
        assert r.label == int(r.gene == later[r.reaction])
    check = pd.read_csv(tmp / "results/metabolic/time_split_calibration.tsv", sep="\t")
    every = check[check["reaction_kind"] == "all"].iloc[0]
    assert every["rows"] == len(shown) and every["true_gene_rows"] == shown["label"].sum()
    assert every["reactions"] == 2 and every["ranking"] == "geometric"
    # then the same check split by the support of each orphan's first candidate (held_out_like)
    first_thin = shown[shown["rank"] == 1].set_index("reaction")["held_out_like"] < THIN_SUPPORT
    by_support = check[(check["reaction_kind"] == "all") & check["check"].str.contains("first candidate with")]
    want = {f"held_out_like < {THIN_SUPPORT}": int(first_thin.sum()),
            f"held_out_like >= {THIN_SUPPORT}": int((~first_thin).sum())}
    got = {c.split("first candidate with ")[1]: n for c, n in zip(by_support["check"], by_support["reactions"])}
    assert got == {k: v for k, v in want.items() if v}
    assert (tmp / "results/metabolic/time_split_calibration.png").stat().st_size > 1000

    older = tmp / "results/time_split/toy_older/metabolic/ranking"
    before = {f: hashlib.sha256((older / f).read_bytes()).hexdigest()
              for f in ("calibrator.pkl", "calibration_rows.tsv")}
    newer = cobra.io.load_json_model(str(inputs["model"]))
    other = {GAINED[0]: later[GAINED[1]], GAINED[1]: later[GAINED[0]]}  # each gets the other's gene
    for rid, rule in other.items():
        newer.reactions.get_by_id(rid).gene_reaction_rule = rule
    newer_path = tmp / "inputs" / "newer_swapped.json"
    cobra.io.save_json_model(newer, str(newer_path))
    config = _older_against(tmp, inputs, "toy_swapped", newer_path)
    proc = run_snakemake(tmp, config, "results/metabolic/time_split_validation.tsv")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    swapped = pd.read_csv(tmp / "results/metabolic/time_split_shown.tsv", sep="\t")
    for r in swapped.itertuples():
        assert r.label == int(r.gene == other[r.reaction])
    # the same rows (the older run decides them), with labels that changed
    assert swapped[["reaction", "rank", "gene"]].equals(shown[["reaction", "rank", "gene"]])
    assert shown["label"].sum() + swapped["label"].sum() > 0
    after = {f: hashlib.sha256((older / f).read_bytes()).hexdigest() for f in before}
    assert after == before


def test_time_split_publish_checks_the_space_first(time_split_run):
    """The space the time split's publish needs is checked in a job before it
    (#71, class 6; the full-disk test is on the main publish, which shares the
    script: tests/workflow/test_interrupted_and_corrupt_runs.py); its marker
    is temp(), so the check runs again before every publish."""
    tmp, _, _ = time_split_run
    log = (tmp / "logs/metabolic/time_split_publish_space.log").read_text()
    assert "[metabolic_time_split_publish_space] results/metabolic/: publishing needs " in log
    assert not (tmp / "results/metabolic/staged/time_split/publish_space.txt").exists()


def test_releases_without_a_gained_gene_stop_with_one_line(time_split_run):
    """A newer release that gives no older orphan a gene leaves nothing to
    validate: the step stops, naming the config key and both releases, and
    the earlier time-split tables and plot keep their bytes and mtimes (they
    are published as one set); the earlier config then has nothing to redo."""
    tmp, inputs, _ = time_split_run
    published = sorted((tmp / "results/metabolic").glob("time_split_*"))
    assert len(published) == 8  # the seven tables and the plot
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in published}
    older = tmp / "inputs" / "older.json"
    config = _older_against(tmp, inputs, "toy_same", older)
    proc = run_snakemake(tmp, config, "results/metabolic/time_split_validation.tsv")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out[-3000:]
    assert (f"ConfigValueError: metabolic.time_split: the newer release (toy_same, {older}) gives no gene to any "
            "of the ") in out
    assert "Traceback" not in (tmp / "logs/metabolic/time_split.log").read_text()
    assert "rule metabolic_time_split_publish:" not in out
    for p, (data, mtime) in before.items():
        assert p.read_bytes() == data and p.stat().st_mtime_ns == mtime, p


def test_older_run_takes_older_runs_grids(time_split_run):
    """metabolic.older_runs.param_grids reaches the older run alone: its folds
    all take the one point given; the methods it does not name keep the
    workflow's grids."""
    tmp, _, _ = time_split_run
    folds = pd.read_csv(tmp / "results/time_split/toy_older/metabolic/cv/geometric_folds.tsv", sep="\t")
    assert [json.loads(p) for p in folds["best_params"]] == [{"kernel": "linear", "C": 0.1, "n_iter": 2}] * 3
    zero = pd.read_csv(tmp / "results/time_split/toy_older/metabolic/cv/zero_folds.tsv", sep="\t")
    assert [json.loads(p) for p in zero["best_params"]] == [{"kernel": "linear", "C": 0.5}] * 3
