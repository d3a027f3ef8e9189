"""Tests for rank.later_genes: each later gene's class by hand on the toy
network, the table per ranking and class by hand, and the homolog columns
only with the homology block."""

from __future__ import annotations

import pandas as pd
import pytest

from toy_pairs import homology_featurizers

def _three_reactions() -> pd.DataFrame:
    """Time-split rows of one ranking over three reactions: a's later genes
    at ranks 1, 7 and 40 of 100 candidates; b's and c's missed."""
    return pd.DataFrame({"ranking": ["m", "m", "m"], "reaction": ["a", "b", "c"], "n_candidates": [100] * 3,
                         "later_genes": ["G1;G2;G3", "G4", "G5;G6"], "later_gene_ranks": ["1;7;40", "0", "0;0"]})


def test_later_gene_evidence_by_hand_on_the_toy_network():
    """Each later gene's class is what the older release showed of it, by
    hand on the toy network: R4's related reactions are R2 (funnel, G2) and
    R1 (chain_up, G1); G3 catalyses only R1's fork partner R3; G5 catalyses
    nothing; G9 is not a candidate; R3 was not ranked."""
    from toy_pairs import toy

    from geomargin.featurize.metabolic.pairs import PairFeaturizer
    from geomargin.rank.later_genes import later_gene_evidence

    net, motifs, sources = toy()
    f = PairFeaturizer(net, motifs, sources, min_domain_genes=2, domain_eps=1.0)
    benchmark = {"R4": frozenset({"G5", "G1", "G9", "G3", "G2"}), "R3": frozenset({"G2"})}
    model_genes = {g for genes in net.reactions["genes"] for g in genes}
    got = later_gene_evidence(f, benchmark, ["R4"], ["G1", "G2", "G3", "G4", "G5"], model_genes)
    assert got.values.tolist() == [
        ["R4", "G1", "catalyses_adjacent", True], ["R4", "G2", "catalyses_adjacent", True],
        ["R4", "G3", "other_reactions", True], ["R4", "G5", "no_older_reaction", True],
        ["R4", "G9", "not_a_candidate", False], ["R3", "G2", "reaction_not_ranked", True]]


def test_later_gene_table_counts_genes_and_resamples_reactions():
    from geomargin.rank.later_genes import later_gene_table

    rows = _three_reactions()
    ev = pd.DataFrame({"reaction": ["a", "a", "a", "b", "c", "c"], "gene": ["G1", "G2", "G3", "G4", "G5", "G6"],
                       "later_gene_evidence": ["catalyses_adjacent", "other_reactions", "other_reactions",
                                               "not_a_candidate", "reaction_not_ranked", "reaction_not_ranked"],
                       "candidate": [True, True, True, False, True, True]})
    t = later_gene_table(rows, ev, n_boot=200).set_index("later_gene_evidence")
    # classes in LATER_GENE_EVIDENCE order after "all"; a class without genes is left out
    assert list(t.index) == ["all", "reaction_not_ranked", "not_a_candidate", "catalyses_adjacent",
                             "other_reactions"]
    assert t["later_genes"].tolist() == [6, 2, 1, 1, 2] and t["reactions"].tolist() == [3, 1, 1, 1, 1]
    assert t.loc["all", "share"] == 1 and t.loc["other_reactions", "share"] == pytest.approx(2 / 6)
    # by hand: genes at ranks 1, 7, 40 and three misses
    assert t.loc["all", "hit@1"] == pytest.approx(1 / 6) and t.loc["all", "hit@50"] == pytest.approx(3 / 6)
    assert t.loc["other_reactions", "hit@5"] == 0 and t.loc["other_reactions", "hit@20"] == pytest.approx(0.5)
    assert t.loc["other_reactions", "median_rank"] == pytest.approx(23.5)
    # one gene among 100 candidates in random order; a gene that is no candidate, never
    assert t.loc["catalyses_adjacent", "random_hit@5"] == pytest.approx(0.05)
    assert t.loc["not_a_candidate", "random_hit@50"] == 0
    assert t.loc["reaction_not_ranked", "random_hit@1"] == pytest.approx(0.01)
    # the pairs of one reaction are resampled together: one reaction, no spread
    assert t.loc["other_reactions", "hit@20_lo"] == t.loc["other_reactions", "hit@20_hi"] == pytest.approx(0.5)
    with pytest.raises(ValueError, match="no evidence class"):
        later_gene_table(rows, ev.iloc[1:], n_boot=10)


def test_later_gene_evidence_says_which_later_genes_had_a_homolog():
    """On the homology toy (tests/featurize/metabolic/test_homology.py) the
    orphan R4's homology items are > 0 for G1, G2 and G6, zero for G3 and
    G4, absent for G7 (no sequence). G6 and G7 have no older reaction: G6
    has a homolog among the genes around R4, G7 none; G9 is not a candidate
    and unknown. Without the block the table is the one of before."""
    from geomargin.rank.later_genes import later_gene_evidence

    net, on, off = homology_featurizers()
    benchmark = {"R4": frozenset({"G3", "G6", "G7", "G9"}), "R3": frozenset({"G6"})}
    model_genes = {g for genes in net.reactions["genes"] for g in genes}
    cands = ["G1", "G2", "G3", "G4", "G6", "G7"]
    got = later_gene_evidence(on, benchmark, ["R4"], cands, model_genes)
    assert got.values.tolist() == [
        ["R4", "G3", "other_reactions", True, False], ["R4", "G6", "no_older_reaction", True, True],
        ["R4", "G7", "no_older_reaction", True, False], ["R4", "G9", "not_a_candidate", False, False],
        # R3 was not ranked; G6 still has a homolog among R3's genes (s(G6, G2) on its motif neighbour R2)
        ["R3", "G6", "reaction_not_ranked", True, True]]
    before = later_gene_evidence(off, benchmark, ["R4"], cands, model_genes)
    pd.testing.assert_frame_equal(before, got.drop(columns="homolog"))


def test_later_gene_table_counts_the_genes_with_a_homolog():
    from geomargin.rank.later_genes import later_gene_columns, later_gene_table

    rows = _three_reactions()
    ev = pd.DataFrame({"reaction": ["a", "a", "a", "b", "c", "c"], "gene": ["G1", "G2", "G3", "G4", "G5", "G6"],
                       "later_gene_evidence": ["catalyses_adjacent", "no_older_reaction", "no_older_reaction",
                                               "not_a_candidate", "no_older_reaction", "no_older_reaction"],
                       "candidate": [True, True, True, False, True, True],
                       "homolog": [True, True, False, False, False, True]})
    t = later_gene_table(rows, ev, n_boot=50).set_index("later_gene_evidence")
    assert t.columns[:3].tolist() == ["ranking", "later_genes", "with_homolog"]
    assert t["later_genes"].tolist() == [6, 1, 1, 4] and t["with_homolog"].tolist() == [3, 0, 1, 2]
    # without the column (the block off): the table of before, to the byte
    before = later_gene_table(rows, ev.drop(columns="homolog"), n_boot=50)
    assert "with_homolog" not in before.columns
    pd.testing.assert_frame_equal(before, t.reset_index()[before.columns])
    # per reaction, each later gene's class and whether it had a homolog, in the order of later_genes
    cols = later_gene_columns(rows, ev)
    assert cols["later_gene_evidence"].tolist() == ["catalyses_adjacent;no_older_reaction;no_older_reaction",
                                                    "not_a_candidate", "no_older_reaction;no_older_reaction"]
    assert cols["later_gene_homolog"].tolist() == ["yes;yes;no", "no", "no;yes"]
    assert "later_gene_homolog" not in later_gene_columns(rows, ev.drop(columns="homolog")).columns
    with pytest.raises(ValueError, match="^later_gene_columns: no evidence class for later gene 'G1' of 'a'"):
        later_gene_columns(rows, ev.iloc[1:])
