"""Tests for rank.time_split: matching older orphans to a later release's genes
(by hand on a toy pair of releases), the random expectation (brute force) and
the metrics over benchmark reactions (by hand)."""

from __future__ import annotations

import itertools

import cobra
import numpy as np
import pandas as pd
import pytest

from geomargin.featurize.metabolic.network import build_directed_network
from toy_pairs import homology_featurizers

from geomargin.rank.time_split import (best_later_ranks, later_genes, random_expectation, reaction_clusters,
                                      time_split_metrics, time_split_table)


def _release(rules: dict[str, str], reversible: set[str]) -> cobra.Model:
    m = cobra.Model("release")
    mets = {x: cobra.Metabolite(f"{x}_c", name=x, compartment="c") for x in "ABCDEF"}
    m.add_metabolites(list(mets.values()))
    spec = {"R1": ("A", "B"), "R2": ("B", "C"), "R3": ("C", "D"), "R4": ("D", "E"), "R5": ("E", "F")}
    for rid, rule in rules.items():
        s, p = spec[rid]
        r = cobra.Reaction(rid, lower_bound=-1000 if rid in reversible else 0, upper_bound=1000)
        m.add_reactions([r])
        r.add_metabolites({mets[s]: -1, mets[p]: 1})
        r.gene_reaction_rule = rule
    return m


def test_older_orphans_matched_to_later_genes_by_reaction_id():
    older = _release({"R1": "G1", "R2": "", "R3": "", "R4": ""}, reversible={"R3"})
    # the later release: R2 gained G5; R3 gained a complex (G1 and G6); R4
    # is still an orphan; R5 is new
    newer = _release({"R1": "G1", "R2": "G5", "R3": "G1 and G6", "R4": "", "R5": "G9"}, reversible=set())
    net = build_directed_network(older, n_currency=0)
    orphans = net.reactions[[not g for g in net.reactions["genes"]]]
    assert list(orphans.index) == ["R2", "R3", "R3__rev", "R4"]
    rules = {r.id: {g.id for g in r.genes} for r in newer.reactions}
    assert later_genes(orphans, rules) == {"R2": frozenset({"G5"}), "R3": frozenset({"G1", "G6"}),
                                           "R3__rev": frozenset({"G1", "G6"})}
    # a reaction that the later release dropped gains nothing; a merged
    # isozyme group gains the genes of any of its reactions
    merged = pd.DataFrame({"model_reactions": ["R7;R2", "R8"]}, index=["R7", "R8"])
    assert later_genes(merged, rules) == {"R7": frozenset({"G5"})}


def test_best_later_rank_follows_the_ranking_order():
    scores = np.array([0.5, np.nan, 0.9, 0.5])
    cands = ["D", "A", "B", "C"]
    # order: B (0.9), C and D tie at 0.5 (C first by id), then A (NaN)
    assert best_later_ranks(scores, cands, frozenset({"D"})) == (3, 1, "D")
    assert best_later_ranks(scores, cands, frozenset({"A", "D", "Z"})) == (3, 2, "D")
    assert best_later_ranks(scores, cands, frozenset({"A"})) == (4, 1, "A")
    assert best_later_ranks(scores, cands, frozenset({"Z"})) == (0, 0, "")


@pytest.mark.parametrize("n, m", [(6, 1), (6, 2), (5, 3), (4, 4)])
def test_random_expectation_equals_brute_force(n, m):
    best = [min(p.index(i) for i in range(m)) + 1 for p in itertools.permutations(range(n))]
    e = random_expectation(n, m, ks=(1, 2, 5))
    for k in (1, 2, 5):
        assert e[f"hit@{k}"] == pytest.approx(np.mean([b <= k for b in best]))
    assert e["mrr"] == pytest.approx(np.mean([1 / b for b in best]))


def test_metrics_count_every_benchmark_reaction():
    rows = pd.DataFrame({"best_rank": [1, 4, 25, 0, 0], "n_candidates": [10, 10, 100, 100, 0],
                         "n_later_candidates": [1, 1, 2, 0, 0]})
    m = time_split_metrics(rows, n_boot=200, seed=1)
    # by hand: 5 reactions, two of them missed (not ranked / no later gene a candidate)
    assert m["reactions"] == 5
    assert m["hit@1"] == pytest.approx(1 / 5) and m["hit@5"] == pytest.approx(2 / 5)
    assert m["hit@20"] == pytest.approx(2 / 5) and m["hit@50"] == pytest.approx(3 / 5)
    assert m["mrr"] == pytest.approx((1 + 1 / 4 + 1 / 25) / 5)
    assert m["median_rank"] == 4
    assert m["hit@50_lo"] <= m["hit@50"] <= m["hit@50_hi"]
    assert m["random_hit@1"] == pytest.approx((0.1 + 0.1 + random_expectation(100, 2)["hit@1"]) / 5)


def test_rows_score_each_matrix_once_as_each_model_alone():
    """time_split_rows builds every candidate matrix once and scores it with
    every model: the ranks are those of each model's own score matrix
    (rank.scoring.pair_score_fn, the reference), gene corrections included."""
    from toy_pairs import toy

    from geomargin.featurize.metabolic.pairs import PairFeaturizer
    from geomargin.rank.scoring import correct_scores, gene_id_ranks, pair_score_fn, score_matrix
    from geomargin.rank.time_split import time_split_rows

    net, motifs, sources = toy()
    f = PairFeaturizer(net, motifs, sources, min_domain_genes=2, domain_eps=1.0)
    cands = ["G1", "G2", "G3", "G4", "G5"]
    orphans = pd.DataFrame({"reaction_kind": ["enzymatic"] * 4, "eligible": [True, True, False, True]},
                           index=["R1", "R2", "R3", "R4"])
    benchmark = {"R1": frozenset({"G2"}), "R3": frozenset({"G1"}), "R4": frozenset({"G3", "G5"})}
    w = np.linspace(-1.0, 1.0, f.n_features_)
    decisions = {"a": lambda X: np.nan_to_num(X) @ w, "b": lambda X: -np.nanmean(np.abs(X), axis=1)}
    rankings = [("a", "a", "none"), ("b+centred", "b", "centred"), ("b", "b", "none")]
    got, none = time_split_rows(f, orphans, cands, benchmark, decisions, rankings, batch_size=2)
    assert none.empty and list(none.columns)[:3] == ["reaction", "rank", "gene"]
    eligible = ["R1", "R2", "R4"]
    gene_rank = gene_id_ranks(cands)
    for name, model, correction in rankings:
        S = correct_scores(score_matrix(pair_score_fn(f, decisions[model]), eligible, cands, 2), correction)
        for r, genes in benchmark.items():
            row = got[(got["ranking"] == name) & (got["reaction"] == r)].iloc[0]
            ranks = [int(k) for k in row["later_gene_ranks"].split(";")]
            assert row["later_genes"].split(";") == sorted(genes) and len(ranks) == len(genes)
            if r not in eligible:
                assert (row["ranked"], row["best_rank"], row["best_gene"]) == (False, 0, "")
                assert ranks == [0] * len(genes)
                continue
            best, _, gene = best_later_ranks(S[eligible.index(r)], cands, genes, gene_rank)
            assert (row["ranked"], row["best_rank"], row["best_gene"]) == (True, best, gene)
            # each later gene at its own place in the ranking (G1..G5 are all candidates)
            for g, k in zip(sorted(genes), ranks):
                assert k == best_later_ranks(S[eligible.index(r)], cands, frozenset({g}), gene_rank)[0]
    assert len(got) == len(rankings) * len(benchmark)
    # the rows the ranking "b+centred" shows (top 2): a later gene is labelled at its rank
    again, shown = time_split_rows(f, orphans, cands, benchmark, decisions, rankings, batch_size=2,
                                   shown=("b+centred", 2))
    pd.testing.assert_frame_equal(again, got)
    # the orphans scored by forked processes: the same rows and the same shown rows
    forked, shown_forked = time_split_rows(f, orphans, cands, benchmark, decisions, rankings, batch_size=2,
                                           shown=("b+centred", 2), n_jobs=2)
    pd.testing.assert_frame_equal(forked, got)
    pd.testing.assert_frame_equal(shown_forked, shown)
    assert set(shown["reaction"]) == {"R1", "R4"} and (shown.groupby("reaction")["rank"].max() <= 2).all()
    for row in got[got["ranking"] == "b+centred"].itertuples():
        if not row.ranked:
            continue
        mine = shown[shown["reaction"] == row.reaction]
        labelled = mine.loc[mine["label"] == 1, "rank"].tolist()
        assert (labelled[:1] == [row.best_rank]) if row.best_rank <= 2 else labelled == []
        # the first candidate's standing is that of the shown rows' first row
        first = mine[mine["rank"] == 1].iloc[0]
        assert (row.first_score_z, row.first_gap_z) == pytest.approx((first["score_z"], first["gap_next_z"]), abs=1e-6)
    # and of every ranking, by hand from its own score matrix; NaN where not ranked
    for name, model, correction in rankings:
        S = correct_scores(score_matrix(pair_score_fn(f, decisions[model]), eligible, cands, 2), correction)
        for r in benchmark:
            row = got[(got["ranking"] == name) & (got["reaction"] == r)].iloc[0]
            if r not in eligible:
                assert np.isnan(row["first_score_z"]) and np.isnan(row["first_gap_z"])
                continue
            s = S[eligible.index(r)]
            s = np.sort(s[~np.isnan(s)])[::-1]
            z = (s - s.mean()) / s.std()
            assert (row["first_score_z"], row["first_gap_z"]) == pytest.approx((z[0], z[0] - z[1]), abs=1e-6)
    with pytest.raises(ValueError, match="shown ranking"):
        time_split_rows(f, orphans, cands, benchmark, decisions, rankings, shown=("nope", 2))


def test_cluster_bootstrap_keeps_a_reactions_rows_together():
    rows = pd.DataFrame({"best_rank": [1, 0, 1, 0], "n_candidates": [10] * 4, "n_later_candidates": [1] * 4})
    alone = time_split_metrics(rows, n_boot=500, seed=3)
    together = time_split_metrics(rows, n_boot=500, seed=3, clusters=["a", "a", "a", "a"])
    assert alone["hit@1_lo"] < 0.5 < alone["hit@1_hi"]
    assert together["hit@1_lo"] == together["hit@1_hi"] == 0.5
    # one label per row: the same draws as without labels
    each = time_split_metrics(rows, n_boot=500, seed=3, clusters=["a", "b", "c", "d"])
    assert (each["hit@1_lo"], each["hit@1_hi"]) == pytest.approx((alone["hit@1_lo"], alone["hit@1_hi"]))
    with pytest.raises(ValueError, match="cluster labels"):
        time_split_metrics(rows, n_boot=10, clusters=["a"])


def test_table_resamples_both_directions_of_a_model_reaction_together():
    """Each reaction written twice (r, r__rev) with the same outcome: the
    table's intervals are those of each model reaction once, and it counts
    both the directed and the model reactions."""
    once = pd.DataFrame({"ranking": "m", "reaction": ["r1", "r2", "r3", "r4", "r5"],
                         "reaction_kind": "transport", "ranked": True, "best_rank": [1, 0, 3, 1, 40],
                         "n_candidates": 50, "n_later_genes": 1, "n_later_candidates": [1, 0, 1, 1, 1]})
    twice = pd.concat([once, once.assign(reaction=once["reaction"] + "__rev")], ignore_index=True)
    a, b = (time_split_table(t, n_boot=300, seed=2).iloc[0] for t in (once, twice))
    assert (a["reactions"], a["model_reactions"], b["reactions"], b["model_reactions"]) == (5, 5, 10, 5)
    for col in ("hit@1", "hit@1_lo", "hit@1_hi", "mrr", "mrr_lo", "mrr_hi"):
        assert b[col] == pytest.approx(a[col]), col
    assert reaction_clusters(["r_1", "r_1__rev", "r__revx"]).tolist() == ["r_1", "r_1", "r__revx"]


def test_shown_order_rows_moves_only_the_shown_later_genes():
    """By hand: a reaction's shown rows listed at new positions; a later gene
    among them takes its position, one beyond them keeps its rank, a gene that
    is not a candidate stays 0; the best rank and gene follow; other rankings
    are untouched."""
    from geomargin.rank.time_split import shown_order_rows

    rows = pd.DataFrame({
        "ranking": ["m", "m", "other"], "reaction": ["a", "b", "a"], "best_rank": [2, 25, 2],
        "best_gene": ["Y", "W", "Y"], "later_genes": ["W;Y;Z", "W", "W;Y;Z"],
        "later_gene_ranks": ["30;2;0", "25", "30;2;0"]})
    shown = pd.DataFrame({"reaction": ["a", "a", "a", "b", "b"], "gene": ["X", "Y", "V", "P", "Q"]})
    out = shown_order_rows(rows, shown, [1, 3, 2, 2, 1], "m")
    assert out.loc[0, "later_gene_ranks"] == "30;3;0" and out.loc[0, "best_rank"] == 3
    assert out.loc[0, "best_gene"] == "Y"
    assert out.loc[1, "later_gene_ranks"] == "25" and out.loc[1, "best_rank"] == 25
    pd.testing.assert_series_equal(out.loc[2], rows.loc[2])
    # listed at their score ranks (positions = the shown rows' ranks), nothing changes
    same = shown_order_rows(rows, shown.assign(gene=["X", "Y", "V", "P", "Q"]), [1, 2, 3, 1, 2], "m")
    pd.testing.assert_frame_equal(same, rows)


def test_time_split_rows_mark_the_shown_candidates_with_homology_evidence():
    """On the homology toy, a ranking that lists the candidates in the order
    given (G1, G2, G3, G4, G6, G7): among its first 3, G1 and G2 have
    homology evidence for R4; among all 6, G6 (rank 5) too. Without the
    block, or without homology_top_n, no column. Listed by confidence, the
    ranks follow the shown rows."""
    from geomargin.rank.time_split import shown_order_rows, time_split_rows

    _, on, off = homology_featurizers()
    cands = ["G1", "G2", "G3", "G4", "G6", "G7"]
    orphans = pd.DataFrame({"reaction_kind": ["transport", "enzymatic"], "eligible": [True, False]},
                           index=["R4", "R3"])
    benchmark = {"R4": frozenset({"G6"}), "R3": frozenset({"G6"})}
    decisions = {"m": lambda X: -np.arange(len(X), dtype=float)}
    plan = [("m", "m", "none")]
    top3, _ = time_split_rows(on, orphans, cands, benchmark, decisions, plan, batch_size=10, homology_top_n=3)
    assert top3["homology_ranks"].tolist() == ["1;2", ""] and top3["best_rank"].tolist() == [5, 0]
    six, _ = time_split_rows(on, orphans, cands, benchmark, decisions, plan, batch_size=10, homology_top_n=6)
    assert six["homology_ranks"].tolist() == ["1;2;5", ""]
    plain, _ = time_split_rows(off, orphans, cands, benchmark, decisions, plan, batch_size=10, homology_top_n=3)
    assert plain.columns.tolist() == top3.columns[:-1].tolist()
    assert "homology_ranks" not in time_split_rows(on, orphans, cands, benchmark, decisions, plan)[0].columns
    # the first three listed in the order G3, G1, G2
    shown = pd.DataFrame({"reaction": "R4", "gene": ["G1", "G2", "G3"], "homology": [True, True, False]})
    moved = shown_order_rows(top3, shown, [2, 3, 1], "m")
    assert moved["homology_ranks"].tolist() == ["2;3", ""]
    with pytest.raises(ValueError, match="^shown_order_rows: the rows have 'homology_ranks'"):
        shown_order_rows(top3, shown.drop(columns="homology"), [2, 3, 1], "m")
