"""End-to-end runs of the Snakemake workflow on a small synthetic input set in
a temporary directory (real Snakemake, real estimators, toy data)."""

from __future__ import annotations


import numpy as np
import pandas as pd
import pytest

from toy_data import write_toy_inputs
from workflow_helpers import run_snakemake, toy_config

from geomargin.rank.calibration import CALIBRATION_COLUMNS, THIN_SUPPORT
from geomargin.rank.calibration_result import CalibrationResult

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def toy_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("toy_workflow")
    inputs = write_toy_inputs(tmp / "inputs")
    config = toy_config(inputs, tmp)
    # listed by confidence whatever the toy's validation says ("auto" is tested below)
    config["metabolic"]["ranking"]["order"] = "confidence"
    proc = run_snakemake(tmp, config, "results/enzyme_ranking.tsv")
    assert proc.returncode == 0, proc.stderr[-4000:]
    return tmp, inputs, config, proc


def test_main_target_writes_all_three_outputs(toy_run):
    tmp, inputs, _, _ = toy_run
    ranking = pd.read_csv(tmp / "results/enzyme_ranking.tsv", sep="\t")
    expected_cols = ["reaction_id", "reaction_name", "equation", "reaction_kind",
                     "named_diffusion", "subsystem", "ec_numbers", "rank", "score_rank", "gene", "gene_name",
                     "gene_description", "score", "model_score", "confidence", "held_out_like", "no_credible_candidate",
                     "motif_blocks",
                     "catalyses_adjacent", "catalyses_in_subsystem", "similar_compounds", "supporting_neighbours", "supporting_names", "shared_domains",
                     "shared_compartments", "evidence", "coexpr_r_fork", "coexpr_r_funnel",
                     "coexpr_r_chain_up", "coexpr_r_chain_down", "method"]
    assert list(ranking.columns) == expected_cols
    assert (ranking["reaction_kind"] == "enzymatic").all() and not ranking["named_diffusion"].any()
    # every orphan reaction of the toy model (one direction each: irreversible)
    assert sorted(ranking["reaction_id"].unique()) == sorted(inputs["orphans"])
    # top_n rows per reaction, ranks 1..3 listed by confidence (order: confidence), ties
    # by score rank; in score_rank order the scores are non-increasing
    for _, block in ranking.groupby("reaction_id"):
        assert block["rank"].tolist() == [1, 2, 3]
        assert sorted(block["score_rank"]) == [1, 2, 3]
        assert (block["confidence"].diff().dropna() <= 0).all()
        ties = block["confidence"].diff().fillna(1) == 0
        assert (block["score_rank"].diff()[ties] > 0).all()
        assert (block.sort_values("score_rank")["score"].diff().dropna() <= 1e-12).all()
    assert (ranking["method"] == "geometric").all()

    accuracy = pd.read_csv(tmp / "results/metabolic/accuracy.tsv", sep="\t")
    assert accuracy["method"].tolist() == ["geometric", "zero", "mean"]
    assert accuracy["accuracy_mean"].between(0, 1).all()
    assert (tmp / "results/metabolic/accuracy.png").stat().st_size > 1000

    validation = pd.read_csv(tmp / "results/metabolic/ranking_validation.tsv", sep="\t")
    # baselines, the validated methods, each also after the configured gene
    # correction, then the geometric margin by the other rule
    assert validation["method"].tolist() == ["coexpr", "coexpr+centred", "adjacency", "adjacency+centred",
                                             "geometric", "geometric+centred", "zero", "zero+centred",
                                             "geometric@unscaled"]
    for col in ["hit@1", "hit@10", "hit@50", "mrr", "median_rank", "mrr_lo", "mrr_hi",
                "top1_gene", "top1_share", "top1_precision", "beats_coexpr", "beats_adjacency"]:
        assert col in validation.columns
    assert (validation["mrr_lo"] <= validation["mrr"]).all()
    assert (validation["mrr"] <= validation["mrr_hi"]).all()
    # the baseline is never flagged against itself
    assert not validation.set_index("method").loc["coexpr", "beats_coexpr"]
    assert not validation.set_index("method").loc["adjacency", "beats_adjacency"]
    quality = pd.read_csv(tmp / "results/enzyme_ranking_quality.tsv", sep="\t")
    assert quality["method"].tolist() == ["geometric"]
    assert quality["chosen_by"].tolist() == ["config"] and quality["order"].tolist() == ["confidence"]
    # the shown order's validated quality: the score order is the ranking validation's row, the
    # confidence order is recomputed by hand below; the quality table quotes the shown one
    shown = pd.read_csv(tmp / "results/metabolic/shown_validation.tsv", sep="\t").set_index("order")
    assert shown["shown"].to_dict() == {"score": False, "confidence": True}
    v = validation.set_index("method").loc["geometric"]
    for col in ["hit@1", "hit@10", "hit@50", "mrr", "mrr_lo", "mrr_hi", "top1_gene"]:
        assert shown.loc["score", col] == v[col]
    s = shown.loc["confidence"]
    assert quality.loc[0, "validated_mrr"] == pytest.approx(s["mrr"])
    assert quality.loc[0, "validated_hit@50_hi"] == pytest.approx(s["hit@50_hi"])
    # by hand: the held-out reactions' shown rows at the calibration's out-of-fold positions; a true
    # gene's rank is 1 + the non-true rows before it (beyond the shown rows: its score rank)
    rows = pd.read_csv(tmp / "results/metabolic/ranking/calibration_rows.tsv", sep="\t")
    assert rows.columns.tolist() == ["ranking", *CALIBRATION_COLUMNS]
    rows["pos"] = CalibrationResult.load(tmp / "results/metabolic/ranking/calibrator.pkl").shown_positions
    true_ranks = pd.read_csv(tmp / "results/metabolic/ranking/true_gene_ranks.tsv", sep="\t")
    true_ranks = true_ranks[true_ranks["method"] == "geometric"]
    new_rank = {}
    for r, block in rows.sort_values("pos").groupby("reaction"):
        assert block["pos"].tolist() == list(range(1, len(block) + 1))
        false_before = 0
        for g, lab in zip(block["gene"], block["label"]):
            if lab:
                new_rank[(r, g)] = 1 + false_before
            false_before += 1 - lab
    ranks = [new_rank.get((r, g), k) for r, g, k in zip(true_ranks["reaction"], true_ranks["gene"],
                                                         true_ranks["rank"])]
    assert s["mrr"] == pytest.approx(np.mean(1 / np.asarray(ranks, float)), abs=1e-4)
    assert s["hit@1"] == pytest.approx(np.mean(np.asarray(ranks) == 1), abs=1e-4)
    assert s["hit@50"] == shown.loc["score", "hit@50"]
    # the orphans' most frequent first gene, recounted from the validation's first genes as listed
    first_rows = rows[rows["pos"] == 1]
    mine = pd.DataFrame({"method": "geometric", "reaction": first_rows["reaction"].to_numpy(),
                         "top_gene": first_rows["gene"].to_numpy(),
                         "top_is_true": first_rows["label"].astype(bool).to_numpy()})
    assert len(mine) == true_ranks["reaction"].nunique()
    true_sets = true_ranks.groupby(["method", "reaction"])["gene"].agg(set)
    for row in mine.itertuples():  # top_is_true: the first gene is one of the reaction's genes
        assert row.top_is_true == (row.top_gene in true_sets[("geometric", row.reaction)])
    g = quality.loc[0, "orphan_top1_gene"]
    n = int((mine["top_gene"] == g).sum())
    right = int(((mine["top_gene"] == g) & mine["top_is_true"]).sum())
    assert quality.loc[0, "orphan_top1_validated_tops"] == n
    assert quality.loc[0, "orphan_top1_validated_correct"] == right
    hit1 = mine["top_is_true"].mean()
    assert quality.loc[0, "orphan_top1_validated_share"] == pytest.approx(n / len(mine), abs=1e-4)
    earned = n > 0 and right / n >= hit1 and quality.loc[0, "orphan_top1_share"] <= n / len(mine) + 1e-4
    assert bool(quality.loc[0, "orphan_top1_earned"]) == earned
    # counted by fold groups: the toy network has no lipid species, so a group is a
    # model reaction (both directions together), recounted from the orphan table
    orphans = pd.read_csv(tmp / "results/orphan_reactions.tsv", sep="\t")
    ranking = pd.read_csv(tmp / "results/enzyme_ranking.tsv", sep="\t")
    first = ranking[ranking["rank"] == 1].merge(orphans[["reaction_id", "model_reaction"]], on="reaction_id")
    weight = 1 / first.groupby("model_reaction")["model_reaction"].transform("size")
    by_gene = weight.groupby(first["gene"]).sum()
    assert quality.loc[0, "orphan_groups_ranked"] == first["model_reaction"].nunique()
    assert quality.loc[0, "orphan_top1_group_share"] == pytest.approx(by_gene.max() / first["model_reaction"].nunique(),
                                                                     abs=1e-4)
    assert by_gene[quality.loc[0, "orphan_top1_gene_by_group"]] == pytest.approx(by_gene.max())
    # held-out reactions whose first listed row has no network evidence, and their share right,
    # recounted from the rows as listed; a toy group is a model reaction (both directions), each
    # weighing one over all held-out reactions
    without_network = first_rows[~first_rows[["adjacent", "subsystem", "compounds"]].astype(bool).any(axis=1)]
    assert quality.loc[0, "validated_top1_without_network_evidence"] == len(without_network)
    if len(without_network):
        model = rows["reaction"].str.replace("__rev", "", regex=False)
        size = model.map(rows.groupby(model)["reaction"].nunique())
        w = 1 / size[without_network.index]
        assert quality.loc[0, "validated_top1_without_network_evidence_true_share"] == pytest.approx(
            np.average(without_network["label"], weights=w), abs=1e-4)


def test_the_order_auto_takes_the_better_validated_mrr_and_score_keeps_the_model_order(toy_run):
    """order "auto": the shown_validation row with the better MRR is the one listed (and quoted in
    the quality table); order "score": rank is the score rank, the same rows and genes."""
    tmp, _, config, _ = toy_run
    listed = pd.read_csv(tmp / "results/enzyme_ranking.tsv", sep="\t")
    for order in ("auto", "score"):
        cfg = {**config, "metabolic": {**config["metabolic"],
                                       "ranking": {**config["metabolic"]["ranking"], "order": order}}}
        proc = run_snakemake(tmp, cfg, "results/enzyme_ranking.tsv")
        assert proc.returncode == 0, proc.stderr[-4000:]
        shown = pd.read_csv(tmp / "results/metabolic/shown_validation.tsv", sep="\t").set_index("order")
        quality = pd.read_csv(tmp / "results/enzyme_ranking_quality.tsv", sep="\t")
        ranking = pd.read_csv(tmp / "results/enzyme_ranking.tsv", sep="\t")
        want = order if order != "auto" else (
            "confidence" if shown.loc["confidence", "mrr"] > shown.loc["score", "mrr"] else "score")
        assert quality.loc[0, "order"] == want
        assert shown["shown"].to_dict() == {"score": want == "score", "confidence": want == "confidence"}
        assert quality.loc[0, "validated_mrr"] == pytest.approx(shown.loc[want, "mrr"])
        if want == "score":
            assert (ranking["rank"] == ranking["score_rank"]).all()
        key = ["reaction_id", "score_rank"]
        a = ranking.sort_values(key).reset_index(drop=True)
        b = listed.sort_values(key).reset_index(drop=True)
        pd.testing.assert_frame_equal(a.drop(columns="rank"), b.drop(columns="rank"))
    proc = run_snakemake(tmp, config, "results/enzyme_ranking.tsv")
    assert proc.returncode == 0, proc.stderr[-4000:]


def test_auto_ranks_with_the_best_validated_method(toy_run):
    tmp, _, config, _ = toy_run
    config = {**config, "metabolic": {**config["metabolic"],
                                      "ranking": {**config["metabolic"]["ranking"],
                                                  "method": "auto"}}}
    proc = run_snakemake(tmp, config, "results/enzyme_ranking.tsv")
    assert proc.returncode == 0, proc.stderr[-4000:]
    validation = pd.read_csv(tmp / "results/metabolic/ranking_validation.tsv", sep="\t")
    # "<method>@<rule>" rows measure the margin rule that is not configured: never chosen
    choosable = validation[~validation["method"].str.contains("@")]
    best = choosable.loc[choosable["mrr"].idxmax(), "method"]
    quality = pd.read_csv(tmp / "results/enzyme_ranking_quality.tsv", sep="\t")
    assert quality["method"].tolist() == [best]
    assert quality["chosen_by"].str.startswith("auto").all()
    ranking = pd.read_csv(tmp / "results/enzyme_ranking.tsv", sep="\t")
    assert (ranking["method"] == best).all()
    # back to the module's config for the tests that follow
    proc = run_snakemake(tmp, toy_run[2], "results/enzyme_ranking.tsv")
    assert proc.returncode == 0, proc.stderr[-4000:]


def test_a_gene_corrected_ranking_centres_over_the_orphans(toy_run):
    """method "zero+centred": every candidate listed (top_n large), so each
    gene's mean model score over the ranked orphans is recomputed from the
    table, and score = model_score - that mean; the quality table names the
    correction and the validation row of the same name."""
    tmp, _, config, _ = toy_run
    ranking_cfg = {**config["metabolic"]["ranking"], "method": "zero+centred", "top_n": 1000}
    config = {**config, "metabolic": {**config["metabolic"], "ranking": ranking_cfg}}
    proc = run_snakemake(tmp, config, "results/enzyme_ranking.tsv")
    assert proc.returncode == 0, proc.stderr[-4000:]
    ranking = pd.read_csv(tmp / "results/enzyme_ranking.tsv", sep="\t")
    assert (ranking["method"] == "zero+centred").all() and ranking["reaction_id"].nunique() >= 2
    mean = ranking.groupby("gene")["model_score"].transform("mean")
    np.testing.assert_allclose(ranking["score"], ranking["model_score"] - mean, atol=2e-6)
    for _, block in ranking.groupby("reaction_id"):  # the score order: score_rank (rows listed by confidence)
        assert (block.sort_values("score_rank")["score"].diff().dropna() <= 1e-12).all()
    quality = pd.read_csv(tmp / "results/enzyme_ranking_quality.tsv", sep="\t")
    assert quality.loc[0, "method"] == "zero+centred" and quality.loc[0, "gene_correction"] == "centred"
    validation = pd.read_csv(tmp / "results/metabolic/ranking_validation.tsv", sep="\t")
    assert quality.loc[0, "validated_mrr"] == pytest.approx(
        validation.set_index("method").loc["zero+centred", "mrr"])
    proc = run_snakemake(tmp, toy_run[2], "results/enzyme_ranking.tsv")
    assert proc.returncode == 0, proc.stderr[-4000:]


def test_a_ranking_that_is_not_validated_gets_no_confidence(toy_run):
    """method "mean" is cross-validated but not in the ranking validation:
    there are no calibration rows for it, so its candidates get no
    confidence and no orphan is marked (said in the log), instead of a
    confidence borrowed from another ranking."""
    tmp, _, config, _ = toy_run
    ranking_cfg = {**config["metabolic"]["ranking"], "method": "mean"}
    config = {**config, "metabolic": {**config["metabolic"], "ranking": ranking_cfg}}
    proc = run_snakemake(tmp, config, "results/enzyme_ranking.tsv")
    assert proc.returncode == 0, proc.stderr[-4000:]
    ranking = pd.read_csv(tmp / "results/enzyme_ranking.tsv", sep="\t")
    assert (ranking["method"] == "mean").all()
    assert ranking["confidence"].isna().all() and ranking["no_credible_candidate"].isna().all()
    assert ranking["held_out_like"].isna().all()
    orphans = pd.read_csv(tmp / "results/orphan_reactions.tsv", sep="\t")
    assert orphans["best_confidence"].isna().all() and orphans["no_credible_candidate"].isna().all()
    assert orphans["best_held_out_like"].isna().all()
    assert pd.read_csv(tmp / "results/metabolic/calibration.tsv", sep="\t").empty
    assert "not validated" in (tmp / "logs/metabolic/ranking_validation.log").read_text()
    proc = run_snakemake(tmp, toy_run[2], "results/enzyme_ranking.tsv")
    assert proc.returncode == 0, proc.stderr[-4000:]


def test_evidence_columns_match_independent_computations(toy_run):
    """Co-expression r recomputed with numpy from expression.tsv (the toy
    orphans have one gene per chain neighbour, so the mean r is one Pearson
    r); the calibration rows recounted from true_gene_ranks.tsv; confidence
    and the "no credible candidate" flag against the calibrator's threshold;
    supporting names from the GAF; the orphan table lists every orphan as
    ranked."""
    tmp, inputs, _, _ = toy_run
    ranking = pd.read_csv(tmp / "results/enzyme_ranking.tsv", sep="\t")
    expr = pd.read_csv(inputs["expression"], sep="\t", index_col=0)
    orphans = pd.read_csv(tmp / "results/orphan_reactions.tsv", sep="\t")
    assert sorted(orphans["reaction_id"]) == sorted(inputs["orphans"])
    assert (orphans["ranked"] == "yes").all() and orphans["reason"].isna().all()
    assert (orphans[["chain_up_genes", "chain_down_genes"]] == 1).all().all()
    checked = 0
    for row in ranking.itertuples():
        for item in row.supporting_neighbours.split(";"):
            h, motif = item.rstrip(")").split("(")
            if motif != "chain_up" or h not in expr.index or row.gene not in expr.index:
                continue
            a, b = expr.loc[row.gene].to_numpy(), expr.loc[h].to_numpy()
            if np.isnan(a).any() or np.isnan(b).any():
                continue
            assert row.coexpr_r_chain_up == pytest.approx(np.corrcoef(a, b)[0, 1], abs=1e-4)
            checked += 1
    assert checked >= 3
    true_ranks = pd.read_csv(tmp / "results/metabolic/ranking/true_gene_ranks.tsv", sep="\t")
    calib = pd.read_csv(tmp / "results/metabolic/ranking/calibration_rows.tsv", sep="\t")
    geo = true_ranks[true_ranks["method"] == "geometric"]
    assert (calib["ranking"] == "geometric").all()
    assert set(calib["reaction"]) == set(geo["reaction"])
    # a reaction with one true gene: its row is labelled at its rank when shown (top_n = 3)
    single = geo.groupby("reaction").filter(lambda b: len(b) == 1)
    for r in single.itertuples():
        rows = calib[calib["reaction"] == r.reaction]
        assert rows["rank"].tolist() == [1, 2, 3]
        labelled = rows.loc[rows["label"] == 1, "rank"].tolist()
        assert labelled == ([r.rank] if r.rank <= 3 else [])
        assert rows.loc[rows["label"] == 1, "gene"].tolist() == ([r.gene] if r.rank <= 3 else [])
    threshold = CalibrationResult.load(tmp / "results/metabolic/ranking/calibrator.pkl").threshold
    assert ranking["confidence"].between(0, 1).all()
    # held_out_like: the held-out reactions (each fold group once) of one cell of the calibration
    # rows (reaction kind, evidence flags, own kind of work), counted here by hand, or 0
    inst = pd.read_csv(tmp / "results/metabolic/features/instances.tsv", sep="\t", dtype=str)
    group = inst.drop_duplicates("reaction").set_index("reaction")["fold_group"]
    c = calib.assign(group=calib["reaction"].map(group))
    c["w"] = 1 / c.groupby("group")["reaction"].transform("nunique")
    c["cell"] = (c["reaction_kind"] + "/" + c[["motifs", "adjacent", "subsystem", "compounds"]].astype(int).astype(str)
                 .agg("".join, axis=1) + "/" + np.where(c["role"], "role", np.where(c["kind_domain"], "domain", "none")))
    cells = c.drop_duplicates(["cell", "reaction"]).groupby("cell")["w"].sum().round(1)
    assert ranking["held_out_like"].notna().all()
    assert set(ranking["held_out_like"]) <= {0.0, *cells}, (sorted(set(ranking["held_out_like"])), cells)
    assert (ranking["held_out_like"] > 0).any()
    # the quality table counts the orphans whose first candidate rests on fewer than THIN_SUPPORT of them
    quality = pd.read_csv(tmp / "results/enzyme_ranking_quality.tsv", sep="\t").iloc[0]
    first = ranking[ranking["rank"] == 1]
    thin = first[first["held_out_like"] < THIN_SUPPORT]
    assert quality["orphan_top1_thin_support"] == len(thin)
    if len(thin):
        assert quality["orphan_top1_thin_support_confidence"] == pytest.approx(thin["confidence"].mean(), abs=1e-4)
    else:
        assert np.isnan(quality["orphan_top1_thin_support_confidence"])
    best = ranking.groupby("reaction_id")["confidence"].max()
    flagged = ranking.groupby("reaction_id")["no_credible_candidate"].first()
    assert (flagged == (best < threshold)).all()
    o = orphans.set_index("reaction_id")
    assert (o.loc[best.index, "best_confidence"] - best).abs().max() <= 1e-4
    # and beside it the held_out_like of that most confident row (the first listed, order: confidence)
    assert (o.loc[best.index, "best_held_out_like"] == first.set_index("reaction_id")["held_out_like"]
            .loc[best.index]).all()
    assert (o.loc[best.index, "no_credible_candidate"] == np.where(best < threshold, "yes", "no")).all()
    gaf = pd.read_csv(inputs["annotation"], sep="\t", comment="!", header=None)
    name_of = dict(zip(gaf[10].str.split("|").str[0], gaf[2]))
    for row in ranking.itertuples():
        hs = [x.split("(")[0] for x in row.supporting_neighbours.split(";")]
        assert row.supporting_names.split(";") == [name_of[h] for h in hs]


def test_toy_signal_is_learned(toy_run):
    """Genes of neighbouring reactions share an expression programme in the toy
    data, so the geometric margin must beat chance clearly on held-out pairs."""
    tmp = toy_run[0]
    accuracy = pd.read_csv(tmp / "results/metabolic/accuracy.tsv", sep="\t").set_index("method")
    assert accuracy.loc["geometric", "roc_auc_mean"] > 0.75


def test_rerun_is_a_no_op_and_dry_run_works(toy_run):
    tmp, _, config, _ = toy_run
    proc = run_snakemake(tmp, config, "results/enzyme_ranking.tsv", extra=["-n"])
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Nothing to be done" in proc.stdout + proc.stderr


def test_every_job_has_a_benchmark_record(toy_run):
    """Each job's wall and CPU seconds and peak memory are in its
    ``benchmark:`` file beside its log (Snakemake's directive), and
    benchmarks/bench_main_job.py sums them per step: one cross-validation
    job per method."""
    import importlib.util
    from pathlib import Path

    tmp = toy_run[0]
    repo = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("bench_main_job", repo / "benchmarks" / "bench_main_job.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    logs = sorted((tmp / "logs" / "metabolic").glob("*.log"))
    assert logs
    for log in logs:  # every job has Snakemake's benchmark record beside its log
        record = (log.parent / (log.name.removesuffix(".log") + bench.BENCHMARK_SUFFIX)).read_text().splitlines()
        fields = dict(zip(record[0].split("\t"), record[-1].split("\t")))
        assert float(fields["s"]) > 0 and float(fields["max_rss"]) > 0, (log.name, fields)
        if log.name.startswith("cv_"):  # long enough to be sampled loaded (every 0.5 s at first)
            assert float(fields["max_rss"]) > 50 and float(fields["cpu_time"]) > 0, (log.name, fields)
    steps = {name: jobs for name, jobs, *_ in bench.step_table(tmp / "logs")}
    n_cv = len(list((tmp / "logs" / "metabolic").glob("cv_*.log")))
    assert n_cv > 1 and steps["metabolic/cv (all methods)"] == n_cv
    assert steps["metabolic/enzyme_ranking"] == 1
