"""report.browser's data for the page: the reaction-page address and the
time-split summary of the header (the page itself: test_browser.py)."""

from __future__ import annotations

import pandas as pd
import pytest

from geomargin.report.browser import browser_data, time_split_summary, unearned_top_gene


def test_reaction_url_needs_the_id_placeholder():
    with pytest.raises(ValueError, match=r"reaction_url is 'https://x.org/r/'; expected an address with \{id\}"):
        browser_data(pd.DataFrame(), pd.DataFrame(), None, reaction_url="https://x.org/r/")


def test_time_split_summary_is_the_default_ranking_over_all_kinds():
    table = pd.DataFrame({
        "ranking": ["a", "a", "b", "b"], "default": [False, False, True, True],
        "reaction_kind": ["all", "transport", "transport", "all"], "reactions": [10, 8, 8, 10],
        "hit@1": [0.1, 0.2, 0.3, 0.4], "hit@1_lo": [0.0, 0.1, 0.2, 0.25], "hit@1_hi": [0.2, 0.3, 0.4, 0.5],
        "hit@5": [0.5] * 4, "hit@20": [0.6, 0.6, 0.7, 0.8], "random_hit@20": [0.01] * 4,
        "mrr": [0.2] * 4, "not_ranked": [1] * 4})
    got = time_split_summary(table, "8.3.0", "9.0.2")
    assert got == {"older": "8.3.0", "newer": "9.0.2", "ranking": "b", "reactions": 10.0, "hit@1": 0.4,
                   "hit@1_lo": 0.25, "hit@1_hi": 0.5, "hit@20": 0.8, "random_hit@20": 0.01, "mrr": 0.2}
    # read back from a TSV, "default" is text
    assert time_split_summary(table.astype({"default": str}), "o", "n")["ranking"] == "b"
    with pytest.raises(ValueError, match="no column 'default'"):
        time_split_summary(table.drop(columns="default"), "o", "n")
    with pytest.raises(ValueError, match="no row of the default ranking over all reaction kinds"):
        time_split_summary(table[table["reaction_kind"] != "all"], "o", "n")


def _quality(**kw):
    row = {"orphans_ranked": 1710, "orphan_top1_gene": "YAL026C", "orphan_top1_reactions": 112,
           "orphan_top1_share": 0.0655,
           "orphan_top1_validated_tops": 16, "orphan_top1_validated_correct": 0, "orphan_top1_earned": False}
    return pd.DataFrame([{**row, **kw}])


def test_unearned_top_gene_is_named_only_when_the_validation_does_not_earn_it():
    ranking = pd.DataFrame({"gene": ["YBR001C", "YAL026C"], "gene_name": ["NTH2", "DRS2"]})
    assert unearned_top_gene(_quality(), ranking) == {
        "gene": "YAL026C", "name": "DRS2", "reactions": 112, "share": 112 / 1710, "validated_tops": 16,
        "validated_correct": 0}
    # read back from a TSV, the flag is text
    assert unearned_top_gene(_quality(orphan_top1_earned="False"), ranking)["gene"] == "YAL026C"
    assert unearned_top_gene(_quality(orphan_top1_earned="True"), ranking) is None
    assert unearned_top_gene(_quality(orphan_top1_earned=True), ranking) is None
    # first for a single orphan is no concentration; no ranked orphan, no gene
    assert unearned_top_gene(_quality(orphan_top1_reactions=1), ranking) is None
    assert unearned_top_gene(_quality(orphan_top1_gene=float("nan"), orphan_top1_reactions=0), ranking) is None
    # a gene without a name in the ranking
    assert unearned_top_gene(_quality(), ranking.drop(columns="gene_name"))["name"] == ""
    with pytest.raises(ValueError, match="no column 'orphan_top1_earned'"):
        unearned_top_gene(_quality().drop(columns="orphan_top1_earned"), ranking)
    with pytest.raises(ValueError, match="has 2 rows; expected one"):
        unearned_top_gene(pd.concat([_quality(), _quality()]), ranking)
