"""report.results_pages: the pages of docs/results show the run's tables
cell for cell, carry their stamp, and are never edited by hand."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from geomargin.report.results_pages import PAGES, main, parse_stamp, parse_tables, render_table, table_blocks, write_pages

REPO = Path(__file__).resolve().parents[2]
RUN_COMMAND = "snakemake --cores 8 results/enzyme_ranking.tsv"
STAMP_KEYS = {"commit", "run date", "machine", "run command", "written by"}

# Headers of the real tables (a run of the main job and the vision and mcar targets).
ACCURACY = ["method", "label", "accuracy_mean", "accuracy_sem", "test_error_mean", "roc_auc_mean",
            "roc_auc_sem", "fit_seconds_mean", "n_folds", "n_instances", "n_features"]
VALIDATION = ["method", "n_reactions", "n_true_pairs", "hit@1", "hit@10", "hit@50", "mrr", "median_rank",
              "n_candidates", "hit@1_lo", "hit@1_hi", "hit@10_lo", "hit@10_hi", "hit@50_lo", "hit@50_hi",
              "mrr_lo", "mrr_hi", "median_rank_lo", "median_rank_hi", "top1_gene", "top1_share",
              "top1_precision", "beats_coexpr", "beats_adjacency"]
QUALITY = ["method", "chosen_by", "margin_rule", "gene_correction", "validated_n_reactions",
           "validated_hit@50", "validated_hit@50_lo", "validated_hit@50_hi", "validated_mrr",
           "orphans_ranked", "orphan_top1_gene", "orphan_top1_share", "orphan_top1_earned",
           "orphan_top1_by_kind", "orphan_top1_earned_by_kind"]
SCENES = ["method", "threshold", "n_detections", "correct", "false", "recall", "precision", "f_measure",
          "recall_at_eer", "average_precision"]
MCAR = ["dataset", "scenario", *ACCURACY, "missing_fraction", "observed_fraction",
        "select_seconds_mean", "n_partitions"]


def _write(path: Path, columns: list[str], rows: list[list[str]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ["\t".join(columns)] + ["\t".join(r) for r in rows]
    path.write_text("\n".join(lines) + "\n")


def _accuracy_rows(methods, extra=0):
    return [[m, m.upper(), "0.9%d12" % i, "0.003", "0.0%d88" % i, "0.95", "0.004", "%d.25" % (i + 1), "5",
             "9472", "59", *(["x"] * extra)] for i, m in enumerate(methods)]


CALIBRATION = ["ranking", "check", "reaction_kind", "reactions", "rows", "true_gene_rows", "mean_confidence",
               "true_gene_share", "ece", "ece_best", "brier", "threshold", "threshold_rule", "credible_reactions",
               "credible_top1_is_true", "all_top1_is_true"]


@pytest.fixture
def small_run(tmp_path):
    """Result tables shaped like a real run's (metabolic and vision, no mcar)."""
    res = tmp_path / "results"
    _write(res / "metabolic" / "accuracy.tsv", ACCURACY, _accuracy_rows(["geometric", "hgb", "zero"]))
    _write(res / "metabolic" / "ranking_validation.tsv", VALIDATION, [
        ["coexpr", "12", "20", "0.01", "0.05", "0.1", "0.024", "1308.0", "4926.0", *["0.1"] * 10,
         "YBL015W", "0.028", "0.03", "False", "False"],
        ["hgb+centred", "12", "20", "0.34", "0.78", "0.93", "0.487", "3.0", "4926.0", *["0.5"] * 10,
         "", "", "", "True", "True"]])
    _write(res / "metabolic" / "shown_validation.tsv", ["method", "order", "shown", *VALIDATION[1:-2]], [
        ["hgb+centred", "score", "False", "12", "20", "0.34", "0.78", "0.93", "0.487", "3.0", "4926.0",
         *["0.5"] * 10, "YKL217W", "0.1", "0.3"],
        ["hgb+centred", "confidence", "True", "12", "20", "0.4", "0.8", "0.93", "0.52", "2.0", "4926.0",
         *["0.5"] * 10, "YKL217W", "0.05", "0.6"]])
    _write(res / "enzyme_ranking_quality.tsv", QUALITY, [[
        "hgb+centred", "auto (best validated MRR)", "scaled", "centred", "12", "0.93", "0.91", "0.95",
        "0.487", "538", "YKL217W", "0.0297", "False",
        "transport: orphans 9/424, validated 3/200 (right 1, hit@1 0.250)", "True"]])
    _write(res / "metabolic" / "calibration.tsv", CALIBRATION, [
        ["hgb+centred", "cross-validation (out of fold)", "all", "12", "240", "9", "0.04", "0.0375", "0.0123",
         "0.05", "0.031", "0.45", "lowest confidence ...", "3", "0.6667", "0.4167"]])
    _write(res / "metabolic" / "calibration_reliability.tsv",
           ["bin_lo", "bin_hi", "rows", "mean_confidence", "frequency", "check"],
           [["0.0", "0.1", "200", "0.02", "0.025", "cross-validation (out of fold)"],
            ["0.9", "1.0", "0", "", "", "cross-validation (out of fold)"]])
    _write(res / "detection_accuracy.tsv", ACCURACY + ["n_features_used_mean", "paper_accuracy"],
           _accuracy_rows(["geometric", "hgb"], extra=2))
    for name in ("scene_detection.tsv", "scene_detection_scale.tsv"):
        _write(res / "vision" / name, SCENES, [
            ["geometric", "3.2", "1", "1", "0", "0.005", "1.0", "0.01", "0.965", "0.99"],
            ["geometric", "1.1", "2", "2", "0", "0.01", "1.0", "0.02", "0.965", "0.99"],
            ["zero", "2.0", "1", "0", "1", "0.0", "0.0", "", "0.97", "0.985"]])
    return res


def _tsv(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)


def _check_page(page_path: Path, results: Path, page_name: str | None = None) -> None:
    """Every table of a page (of :data:`PAGES` named ``page_name``, default
    the file's name) equals the TSV it came from; the stamp is complete."""
    text = page_path.read_text()
    assert STAMP_KEYS <= set(parse_stamp(text)), parse_stamp(text)
    page = next(p for p in PAGES if p.name == (page_name or page_path.name))
    tables = parse_tables(text)
    assert list(tables) == [t.path for t in page.tables]
    for table in page.tables:
        shown, tsv = tables[table.path], _tsv(results / table.path)
        if table.view == "transpose":
            assert len(tsv) == 1
            assert dict(zip(shown["column"], shown["value"])) == tsv.iloc[0].to_dict()
            assert list(shown["column"]) == list(tsv.columns)
        elif table.view == "scene_summary":
            per_method = tsv.groupby("method", sort=False)[["recall_at_eer", "average_precision"]].first()
            assert list(shown.columns) == ["method", "recall_at_eer", "average_precision"]
            assert shown.set_index("method").equals(per_method), (shown, per_method)
        else:
            assert list(shown.columns) == list(tsv.columns)
            assert shown.equals(tsv), (shown, tsv)


def test_pages_equal_their_tables(small_run, tmp_path):
    out = tmp_path / "pages"
    written = write_pages(small_run, out, RUN_COMMAND, "python -m geomargin.report.results_pages results pages")
    assert sorted(p.name for p in written) == ["metabolic.md", "vision.md"]
    for page in written:
        _check_page(page, small_run)
    text = (out / "metabolic.md").read_text()
    stamp = parse_stamp(text)
    assert stamp["run command"] == f"`{RUN_COMMAND}`"
    assert "unknown" == stamp["commit"] or len(stamp["commit"].split()[0]) == 40
    assert "cores" in stamp["machine"]
    # the wall-clock column is named as such under the accuracy table
    assert "`fit_seconds_mean`) differ between identical runs" in text
    # the empty cells of the validation table survive the round trip
    assert parse_tables(text)["metabolic/ranking_validation.tsv"].loc[1, "top1_gene"] == ""


def test_missing_table_leaves_page_untouched(small_run, tmp_path):
    out = tmp_path / "pages"
    out.mkdir()
    old = out / "vision.md"
    old.write_text("an older page\n")
    (small_run / "vision" / "scene_detection_scale.tsv").unlink()
    main([str(small_run), str(out), "--run-command", RUN_COMMAND])
    assert old.read_text() == "an older page\n"
    assert not (out / "mcar.md").exists()
    assert (out / "metabolic.md").is_file()
    written_by = parse_stamp((out / "metabolic.md").read_text())["written by"]
    # the command that wrote it, as a reader can run it
    assert written_by.startswith("`python -m geomargin.report.results_pages "), written_by
    assert "--run-command" in written_by


def test_one_page_under_another_name(small_run, tmp_path, capsys):
    """``--only PAGE --as NAME`` writes that page alone, as NAME (a time
    split of another older release beside the default one), its tables
    those of the run; the written-by line says how."""
    out = tmp_path / "pages"
    main([str(small_run), str(out), "--run-command", RUN_COMMAND, "--only", "metabolic.md", "--as", "metabolic_b.md",
          "--title", "Another title"])
    assert sorted(p.name for p in out.iterdir()) == ["metabolic_b.md"]
    _check_page(out / "metabolic_b.md", small_run, "metabolic.md")
    assert (out / "metabolic_b.md").read_text().startswith("# Another title\n")
    assert "--only metabolic.md --as metabolic_b.md" in parse_stamp((out / "metabolic_b.md").read_text())["written by"]
    assert capsys.readouterr().out == f"wrote {out / 'metabolic_b.md'}\n"


@pytest.mark.parametrize("args, message", [
    (["--only", "time_split.md"], "time_split.md needs metabolic/time_split_validation.tsv"),
    (["--only", "nope.md"], "no page 'nope.md'; expected one of"),
    (["--as", "x.md"], "a page name (--as) or title (--title) needs the page it names (--only)"),
    (["--title", "x"], "a page name (--as) or title (--title) needs the page it names (--only)"),
    (["--only", "metabolic.md", "--as", "vision.md"], "--as 'vision.md'; expected a file name ending in .md"),
    (["--only", "metabolic.md", "--as", "sub/x.md"], "--as 'sub/x.md'"),
])
def test_one_page_refused(small_run, tmp_path, capsys, args, message):
    """A page that is not one, a table missing from it, or a name that is
    not a page file: one line naming it, exit 2, nothing written."""
    out = tmp_path / "pages"
    with pytest.raises(SystemExit) as stop:
        main([str(small_run), str(out), "--run-command", RUN_COMMAND, *args])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and message in err and len(err.strip().splitlines()) == 1, err
    assert not out.exists()


def test_written_by_names_no_folder_of_the_machine(small_run, tmp_path):
    """``--repo`` is a folder of the machine that wrote the page; the page
    says which commit instead (its stamp), and the written-by line keeps
    only a placeholder for the folder."""
    from geomargin.report.results_pages import REPO_PLACEHOLDER

    out = tmp_path / "pages"
    repo = Path(__file__).resolve().parents[2]
    main([str(small_run), str(out), "--run-command", RUN_COMMAND, "--repo", str(repo)])
    stamp = parse_stamp((out / "metabolic.md").read_text())
    assert REPO_PLACEHOLDER in stamp["written by"] and str(repo) not in stamp["written by"]
    assert len(stamp["commit"].split()[0]) == 40


def test_edited_value_is_seen(small_run, tmp_path):
    """The page check fails when a value on the page differs from the TSV."""
    out = tmp_path / "pages"
    write_pages(small_run, out, RUN_COMMAND, "gen")
    page = out / "metabolic.md"
    page.write_text(page.read_text().replace("| 0.487 |", "| 0.500 |", 1))
    with pytest.raises(AssertionError):
        _check_page(page, small_run)


def test_mcar_page(tmp_path):
    res = tmp_path / "results"
    _write(res / "mcar" / "accuracy.tsv", MCAR,
           [["wdbc", "mcar50", *r, "0.5", "0.5", "0.2", "5"] for r in _accuracy_rows(["geometric", "zero"])])
    written = write_pages(res, tmp_path / "pages", RUN_COMMAND, "gen")
    assert [p.name for p in written] == ["mcar.md"]
    _check_page(written[0], res)


def test_cells_with_pipes_and_backslashes_round_trip():
    df = pd.DataFrame({"a|b": ["x|y", "c:\\d\\", ""], "e": ["in side", "a\\|b", "|"]})
    block = render_table(df)
    back = parse_tables("## `t.tsv`\n\n" + block)["t.tsv"]
    assert back.equals(df.astype(str))


def _check_rendered(text: str) -> None:
    """Each table of a page is what the renderer writes from its own cells."""
    blocks = table_blocks(text)
    assert blocks, "the page holds no table"
    assert STAMP_KEYS <= set(parse_stamp(text))
    for name, block in blocks.items():
        assert render_table(parse_tables(text)[name]) == block, f"table {name} was edited by hand"


def test_hand_edited_layout_is_seen(small_run, tmp_path):
    written = write_pages(small_run, tmp_path / "pages", RUN_COMMAND, "gen")
    text = written[0].read_text()
    _check_rendered(text)
    with pytest.raises(AssertionError):  # a padded cell, as an editor's table formatter writes it
        _check_rendered(text.replace("| geometric |", "| geometric  |", 1))
    with pytest.raises(AssertionError):  # a right-aligned column
        _check_rendered(text.replace("|---|", "|--:|", 1))


@pytest.mark.parametrize("page", sorted(p for p in (REPO / "docs" / "results").glob("*.md") if p.name != "README.md"),
                         ids=lambda p: p.name)
def test_committed_pages_are_generated(page):
    """A committed page's tables are exactly what the generator renders from
    them: a hand-edited table (spacing, rounding, a moved column) fails."""
    _check_rendered(page.read_text())


@pytest.mark.slow
def test_pages_from_the_toy_workflow(reference_run, tmp_path):
    """The generator on the results of a real (toy) run of the workflow."""
    results = reference_run / "results"
    written = write_pages(results, tmp_path / "pages", RUN_COMMAND, "gen")
    assert [p.name for p in written] == ["metabolic.md"]
    _check_page(written[0], results)
