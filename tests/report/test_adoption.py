"""Tests for report.adoption: the block adoption rule on hand-made tables of
two runs, with known answers, and its errors naming the file."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from geomargin.report.adoption import AdoptionRule, adopted, adoption_table, main, run_figures
from geomargin.report.results_pages import parse_stamp, parse_tables, render_table, table_blocks


def _run(root: Path, *, mrr: float, share: float, earned: bool, median: float, ranking: str = "m") -> Path:
    res = root / "results"
    split = res / "metabolic" / "release_history" / "yeast_gem_830" / "yeast_gem_840"
    split.mkdir(parents=True)
    pd.DataFrame([{"method": "m+centred", "test_ranking": ranking, "validated_mrr": mrr, "orphan_top1_gene": "G",
                   "orphan_top1_share": share, "orphan_top1_earned": earned}]).to_csv(
        res / "enzyme_ranking_quality.tsv", sep="\t", index=False)
    pd.DataFrame([
        {"ranking": "other", "later_gene_evidence": "no_older_reaction", "later_genes": 9, "median_rank": 1.0,
         "hit@50": 1.0},
        {"ranking": ranking, "later_gene_evidence": "all", "later_genes": 30, "median_rank": 5.0, "hit@50": 0.5},
        {"ranking": ranking, "later_gene_evidence": "no_older_reaction", "later_genes": 10, "median_rank": median,
         "hit@50": 0.2}]).to_csv(split / "time_split_later_genes.tsv", sep="\t", index=False)
    pd.DataFrame([{"ranking": ranking, "reaction_kind": "all", "hit@20": 0.3},
                  {"ranking": ranking, "reaction_kind": "transport", "hit@20": 0.9}]).to_csv(
        split / "time_split_validation.tsv", sep="\t", index=False)
    return root


def test_run_figures_read_the_history_chosen_rankings_row(tmp_path):
    f = run_figures(_run(tmp_path, mrr=0.3, share=0.01, earned=False, median=800.0))
    assert f["validated_mrr"] == 0.3 and f["history_ranking"] == "m"
    assert f["history_gene_median_rank"] == 800.0 and f["history_genes"] == 10 and f["history_gene_hit@50"] == 0.2
    assert f["history_hit@20"] == 0.3 and f["history_genes_with_homolog"] is None


@pytest.mark.parametrize("mrr, share, earned, median, holds", [
    (0.296, 0.04, False, 700.0, [True, True, True]),      # MRR down 0.004: within the rule
    (0.294, 0.04, False, 700.0, [False, True, True]),     # down 0.006: fails
    (0.31, 0.08, False, 700.0, [True, False, True]),      # a hub gene, not earned
    (0.31, 0.08, True, 700.0, [True, True, True]),        # a hub gene the validation earns
    (0.31, 0.01, False, 800.0, [True, True, False]),      # median rank not lower
])
def test_each_criterion_by_hand(tmp_path, mrr, share, earned, median, holds):
    a = run_figures(_run(tmp_path / "a", mrr=0.3, share=0.01, earned=False, median=800.0))
    b = run_figures(_run(tmp_path / "b", mrr=mrr, share=share, earned=earned, median=median))
    t = adoption_table(a, b, AdoptionRule())
    assert t["holds"].tolist() == holds
    assert adopted(t) == all(holds)


def test_missing_table_names_the_file(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"enzyme_ranking_quality\.tsv: not found; run the main job"):
        run_figures(tmp_path)


def test_a_ranking_without_the_class_row_names_the_file(tmp_path):
    run = _run(tmp_path, mrr=0.3, share=0.01, earned=False, median=800.0, ranking="absent")
    genes = run / "results/metabolic/release_history/yeast_gem_830/yeast_gem_840/time_split_later_genes.tsv"
    t = pd.read_csv(genes, sep="\t")
    t[t["ranking"] != "absent"].to_csv(genes, sep="\t", index=False)
    with pytest.raises(ValueError, match=r"time_split_later_genes\.tsv: no row for ranking 'absent' and class "
                                         r"'no_older_reaction'"):
        run_figures(run)


def test_command_prints_the_verdict_and_writes_the_page(tmp_path, capsys):
    a = _run(tmp_path / "a", mrr=0.3, share=0.01, earned=False, median=800.0)
    b = _run(tmp_path / "b", mrr=0.31, share=0.01, earned=False, median=900.0)
    out = tmp_path / "page.md"
    assert main(["--without", str(a), "--with", str(b), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "adopted: False" in printed
    text = out.read_text()
    assert text.startswith("# Homology block: adoption") and "adopted: False" in text
    assert {"commit", "run date", "machine", "run command", "written by"} <= set(parse_stamp(text))
    # the tables are the rule's, cell for cell, in the layout of report.results_pages
    rule = parse_tables(text)["rule"]
    assert rule["holds"].tolist() == ["True", "True", "False"]
    assert rule["with"].tolist() == ["0.31", "0.01", "900.0"]
    for name, block in table_blocks(text).items():
        assert render_table(parse_tables(text)[name]) == block, name
    assert parse_tables(text)["figures"].set_index("figure").loc["history_hit@20", "with"] == "0.3"
