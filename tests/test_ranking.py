"""rank_candidates / true_gene_ranks / ranking_metrics / supporting_neighbours."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from models.ranking import (rank_candidates, ranking_metrics, supporting_neighbours,
                            true_gene_ranks)

SCORES = {"R1": {"G1": 0.5, "G2": 2.0, "G3": 0.5, "G4": -1.0, "G5": np.nan},
          "R2": {"G1": 3.0, "G2": 1.0, "G3": 2.0, "G4": 4.0, "G5": 0.0}}


def score_fn_factory(calls):
    def score_fn(reaction, genes):
        calls.append(len(genes))
        return np.array([SCORES[reaction][g] for g in genes])
    return score_fn


def test_rank_candidates_order_ties_and_batches():
    calls = []
    # candidates in a scrambled order: ranking must not depend on it
    out = rank_candidates(score_fn_factory(calls), ["R1", "R2"],
                          ["G3", "G5", "G1", "G4", "G2"], top_n=4, batch_size=2)
    # batches outside, reactions inside
    assert calls == [2, 2, 2, 2, 1, 1]
    assert list(out.columns) == ["reaction", "rank", "gene", "score"]
    r1 = out[out.reaction == "R1"]
    # G2 2.0; G1 and G3 tie at 0.5 -> gene id order; then G4; NaN last (cut by top_n)
    assert r1.gene.tolist() == ["G2", "G1", "G3", "G4"]
    assert r1["rank"].tolist() == [1, 2, 3, 4]
    assert out[out.reaction == "R2"].gene.tolist() == ["G4", "G1", "G3", "G2"]
    full = rank_candidates(score_fn_factory([]), ["R1"], ["G3", "G5", "G1", "G4", "G2"],
                           top_n=None, batch_size=10)
    assert full.gene.tolist() == ["G2", "G1", "G3", "G4", "G5"]
    assert math.isnan(full.score.iloc[-1])


def test_true_gene_ranks_consistent_with_ranking():
    cands = ["G5", "G4", "G3", "G2", "G1"]
    ranks = true_gene_ranks(score_fn_factory([]), "R1", cands, ["G3", "G4", "G9"], batch_size=3,
                            filtered=False)
    assert ranks == {"G3": 3, "G4": 4}
    # filtered: the other true gene (G3, ranked above G4) is removed for G4
    ranks = true_gene_ranks(score_fn_factory([]), "R1", cands, ["G3", "G4", "G9"], batch_size=3)
    assert ranks == {"G3": 3, "G4": 3}
    full = rank_candidates(score_fn_factory([]), ["R2"], cands, top_n=None, batch_size=3)
    r = true_gene_ranks(score_fn_factory([]), "R2", cands, cands, batch_size=2, filtered=False)
    assert {g: int(k) for g, k in zip(full.gene, full["rank"])} == r


def test_ranking_metrics_hand_values():
    m = ranking_metrics([1, 3, 10, 11, 50, 200], n_candidates=5594)
    assert m["hit@1"] == pytest.approx(1 / 6)
    assert m["hit@10"] == pytest.approx(3 / 6)
    assert m["hit@50"] == pytest.approx(5 / 6)
    assert m["mrr"] == pytest.approx((1 + 1 / 3 + 1 / 10 + 1 / 11 + 1 / 50 + 1 / 200) / 6)
    assert m["median_rank"] == 10.5
    assert m["n_true"] == 6 and m["n_candidates"] == 5594
    m2 = ranking_metrics([2, 7, 1], n_candidates=[10, 20, 30])
    assert m2["median_rank"] == 2 and m2["n_candidates"] == 20
    assert m2["mrr"] == pytest.approx((0.5 + 1 / 7 + 1) / 3)
    empty = ranking_metrics([], n_candidates=10)
    assert empty["n_true"] == 0 and math.isnan(empty["mrr"])


def test_ranking_bad_inputs():
    with pytest.raises(ValueError, match="integers >= 1"):
        ranking_metrics([0, 2], 10)
    with pytest.raises(ValueError, match="exceeds"):
        ranking_metrics([11], 10)
    with pytest.raises(ValueError, match="batch_size"):
        rank_candidates(score_fn_factory([]), ["R1"], ["G1"], top_n=1, batch_size=0)
    with pytest.raises(ValueError, match="top_n"):
        rank_candidates(score_fn_factory([]), ["R1"], ["G1"], top_n=0, batch_size=1)
    with pytest.raises(ValueError, match="one score per gene"):
        rank_candidates(lambda r, g: np.zeros(1), ["R1"], ["G1", "G2"], top_n=1, batch_size=5)


class FakeFeaturizer:
    """Two neighbours; removing one changes the single feature."""

    def neighbour_genes(self, reaction, gene):
        return {"fork": ["H1", "H2"], "funnel": ["H2"]}

    def candidate_matrix(self, reaction, genes):
        return np.array([[3.0, 1.0]] * len(genes))

    def leave_one_out(self, reaction, gene):
        return ["H1", "H2"], np.array([[2.5, 1.0], [1.0, np.nan]])


def test_supporting_neighbours():
    dec = lambda X: np.nansum(X, axis=1)  # noqa: E731
    out = supporting_neighbours(FakeFeaturizer(), dec, "R1", "G1", top=3)
    # base 4; without H1 3.5 (drop 0.5), without H2 1.0 (drop 3.0)
    assert out == [("H2", "fork+funnel", 3.0), ("H1", "fork", 0.5)]
    assert supporting_neighbours(FakeFeaturizer(), dec, "R1", "G1", top=1) == [
        ("H2", "fork+funnel", 3.0)]


def test_supporting_neighbours_with_pair_featurizer():
    from featurize.pairs import PairFeaturizer

    class Net:
        reactions = pd.DataFrame({"genes": [("A",), ("B",), ("C",)]}, index=["R1", "R2", "R3"])

    motifs = {"fork": {"R1": frozenset({"R2", "R3"})}}
    loc = pd.DataFrame({"x": [1, 1, 0, 1]}, index=["A", "B", "C", "G"])
    f = PairFeaturizer(Net(), motifs, {"loc": loc})
    # score = 1 - Hamming: G agrees with B, not with C -> B supports
    dec = lambda X: 1 - np.nan_to_num(X[:, 0], nan=1.0)  # noqa: E731
    assert supporting_neighbours(f, dec, "R1", "G") == [("B", "fork", 0.5)]
