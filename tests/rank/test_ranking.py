"""rank.scoring, rank.metrics and rank.non_learned: ranking, its metrics and the baselines."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from geomargin.rank.non_learned import COEXPR, coexpression_scores
from geomargin.rank.metrics import (bootstrap_ranking_metrics, choose_ranking_method, ranking_metrics, ranking_quality,
                          top1_by_kind, top1_concentration, top1_group_concentration, top1_record)
from geomargin.rank.scoring import (correct_scores, rank_candidates, ranking_decision, ranking_name,
                          split_ranking_name, true_gene_ranks)

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
    # reaction by reaction, each on the same batches
    assert calls == [2, 2, 1, 2, 2, 1]
    assert list(out.columns) == ["reaction", "rank", "gene", "score", "model_score"]
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


# ------------------------------------------- bootstrap, top-1 genes, baselines, margin rules


def test_bootstrap_matches_brute_force_resampling():
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"reaction": rng.choice(list("abcdefghij"), size=40),
                       "rank": rng.integers(1, 120, size=40)})
    m = bootstrap_ranking_metrics(df, n_candidates=200, n_boot=300, seed=7)
    # brute force with the same generator draws: resample reactions, pool ranks
    uniq = sorted(df.reaction.unique())
    g = np.random.default_rng(7)
    boot = {"hit@10": [], "mrr": [], "median_rank": []}
    for _ in range(300):
        pick = g.integers(0, len(uniq), size=len(uniq))
        r = np.concatenate([df.loc[df.reaction == uniq[i], "rank"].to_numpy() for i in pick])
        boot["hit@10"].append(np.mean(r <= 10))
        boot["mrr"].append(np.mean(1.0 / r))
        boot["median_rank"].append(np.median(r))
    for key, vals in boot.items():
        lo, hi = np.quantile(vals, [0.025, 0.975])
        assert m[f"{key}_lo"] == pytest.approx(lo)
        assert m[f"{key}_hi"] == pytest.approx(hi)
    # the point estimates are those of ranking_metrics on all ranks
    assert m["mrr"] == pytest.approx(np.mean(1.0 / df["rank"]))
    assert m["n_reactions"] == len(uniq)


def test_bootstrap_bad_input():
    with pytest.raises(ValueError, match="'n_boot' parameter of bootstrap_ranking_metrics must be an int >= 1. Got 0"):
        bootstrap_ranking_metrics(pd.DataFrame({"reaction": ["a"], "rank": [1]}), 5, n_boot=0)
    with pytest.raises(ValueError, match="missing \\['reaction'\\]"):
        bootstrap_ranking_metrics(pd.DataFrame({"rank": [1]}), 5)


def test_top1_concentration_by_hand():
    df = pd.DataFrame({"reaction": ["r1", "r2", "r3", "r4", "r4"], "rank": [1, 1, 1, 1, 2],
                       "gene": ["B", "A", "B", "A", "B"]})
    first = df.loc[df["rank"] == 1, "gene"]
    assert top1_concentration(first) == ("A", 2, 0.5)      # tie A/B at 2: smallest id
    assert top1_concentration(first.iloc[:0]) [:2] == ("", 0)
    # reactions without a scored candidate ("") are left out of the share
    assert top1_concentration(["B", "", "B", "A"]) == ("B", 2, 2 / 3)


def test_choose_ranking_method():
    t = pd.DataFrame({"method": [COEXPR, "geometric", "hgb"], "mrr": [0.03, 0.31, 0.29]})
    assert choose_ranking_method(t) == "geometric"
    with pytest.raises(ValueError, match="needs the columns 'method' and 'mrr'"):
        choose_ranking_method(t.drop(columns="mrr"))
    with pytest.raises(ValueError, match="no method has a validated 'mrr'"):
        choose_ranking_method(t.assign(mrr=np.nan))


def test_coexpression_scores_by_hand():
    """The toy network of test_pairs: R1's fork neighbours for candidate G5
    are G2 and G3; G5's centred unit profile (1, 0, -1)/sqrt2, G2's
    (1, -1, NA)/sqrt2, G3's (-1, -1, 2)/sqrt6. Mean Pearson terms summed over
    conditions: c0 (1/s2)(1/s2 - 1/s6)/2, c1 0, c2 (-1/s2)(2/s6) (G3 only)."""
    from toy_pairs import toy

    from geomargin.featurize.metabolic.pairs import PairFeaturizer

    net, motifs, sources = toy()
    f = PairFeaturizer(net, motifs, sources, min_domain_genes=2, domain_eps=1.0)
    X = f.transform(["R1", "R4"], ["G5", "G5"])
    s2, s6 = np.sqrt(2), np.sqrt(6)
    fork = (1 / s2) * (1 / s2 - 1 / s6) / 2 + 0.0 - 2 / (s2 * s6)
    # R1: only the fork block has expression neighbours (chain_down R4 has no gene)
    np.testing.assert_allclose(f.block_sums(X, "expr")[0], [fork, np.nan, np.nan, np.nan])
    # R4: funnel R2 (G2), chain_up R1 (G1); scores = the larger mean r
    g1 = np.array([-1.0, 0.0, 1.0]) / s2
    g5 = np.array([1.0, 0.0, -1.0]) / s2
    g2 = np.array([1.0, -1.0]) / s2
    r_funnel, r_chain_up = g5[:2] @ g2, g5 @ g1
    np.testing.assert_allclose(f.block_sums(X, "expr")[1], [np.nan, r_funnel, r_chain_up, np.nan])
    np.testing.assert_allclose(coexpression_scores(f, X), [fork, max(r_funnel, r_chain_up)])
    # the feature scale does not change the sums
    f.fit_feature_scale(f.transform(["R1", "R4", "R2"], ["G5", "G3", "G5"]))
    np.testing.assert_allclose(coexpression_scores(f, f.transform(["R1", "R4"], ["G5", "G5"])),
                               [fork, max(r_funnel, r_chain_up)])


def test_unscaled_rule_is_w_dot_x_plus_b_for_the_geometric_margin():
    from geomargin.models.geometric import GeometricMarginSVC

    rng = np.random.RandomState(0)
    X = rng.randn(60, 4)
    y = (X[:, 0] + X[:, 2] > 0).astype(int)
    X[:30, 2:] = np.nan
    clf = GeometricMarginSVC(C=1.0, kernel="linear", n_iter=3, groups=[0, 0, 1, 1]).fit(X, y)
    expected = np.nan_to_num(X) @ clf.coef_.ravel() + clf.intercept_[0]
    np.testing.assert_allclose(ranking_decision(clf, "unscaled")(X), expected, atol=1e-10)
    np.testing.assert_allclose(ranking_decision(clf, "scaled")(X), clf.decision_function(X))
    with pytest.raises(ValueError, match="'margin_rule' parameter of ranking_decision must be one of"):
        ranking_decision(clf, "calibrated")
    # the default is the config's and the schema's
    np.testing.assert_array_equal(ranking_decision(clf)(X), clf.decision_function(X))


def test_adjacency_scores_count_related_reactions_the_candidate_catalyses():
    """Toy network of test_pairs: R1's fork partners R2 (G2) and R3 (G1, G3);
    its chain_down partner R4 has no gene. R2's fork partner R1 (G1), its
    chain_up partner R3 (G1, G3)."""
    from toy_pairs import toy

    from geomargin.featurize.metabolic.pairs import PairFeaturizer
    from geomargin.rank.non_learned import adjacency_scores, baseline_scores

    net, motifs, sources = toy()
    f = PairFeaturizer(net, motifs, sources, min_domain_genes=2, domain_eps=1.0)
    X = f.transform(["R1", "R1", "R1", "R2", "R2"], ["G1", "G2", "G5", "G1", "G3"])
    np.testing.assert_allclose(adjacency_scores(f, X), [1.0, 1.0, 0.0, 2.0, 1.0])
    f.fit_feature_scale(X)   # the scale is undone
    X = f.transform(["R1", "R2"], ["G1", "G1"])
    np.testing.assert_allclose(baseline_scores("adjacency", f, X), [1.0, 2.0])
    plain = PairFeaturizer(net, motifs, sources, adjacency=False)
    with pytest.raises(ValueError, match="needs the featurizer's net blocks"):
        adjacency_scores(plain, plain.transform(["R1"], ["G1"]))


def test_ranking_decisions_equal_one_rule_at_a_time():
    """One pass for both margin rules gives exactly what each rule gives alone,
    for the linear geometric margin, the block-kernel one (decision_and_scales:
    one map) and the pairwise one, and a model without scales."""
    from geomargin.models.block_kernel import BlockKernelGeometricSVC
    from geomargin.models.geometric import GeometricMarginSVC
    from geomargin.rank.scoring import ranking_decisions
    from geomargin.models.rank_svm import GeometricMarginRankSVC
    from geomargin.models.registry import get_method

    rng = np.random.RandomState(1)
    X = rng.randn(80, 6)
    y = (X[:, 0] + X[:, 3] > 0).astype(int)
    X[:40, 3:] = np.nan
    groups = [0, 0, 0, 1, 1, 1]
    query = np.repeat(np.arange(20), 4)
    models = [GeometricMarginSVC(C=1.0, n_iter=2, groups=groups).fit(X, y),
              BlockKernelGeometricSVC(C=1.0, n_iter=2, n_components=10, groups=groups,
                                      random_state=0).fit(X, y),
              GeometricMarginRankSVC(C=1.0, n_iter=2).fit(X, y, query=query),
              get_method("zero").make(groups=groups, random_state=0).fit(X, y)]
    Xt = rng.randn(30, 6)
    Xt[::2, :3] = np.nan
    for model in models:
        both = ranking_decisions(model, ["scaled", "unscaled"])(Xt)
        assert set(both) == {"scaled", "unscaled"}
        for rule in ("scaled", "unscaled"):
            np.testing.assert_array_equal(both[rule], ranking_decision(model, rule)(Xt))
        if hasattr(model, "scales"):  # the rules differ where some feature is absent
            assert not np.allclose(both["scaled"], both["unscaled"])
    with pytest.raises(ValueError, match="'margin_rules' parameter of ranking_decisions must be a list of"):
        ranking_decisions(models[0], ["scaled", "calibrated"])


def test_gene_corrections_by_hand():
    # SCORES as a (reactions x genes) matrix; G5 has no evidence for R1
    S = np.array([[SCORES[r][g] for g in ["G1", "G2", "G3", "G4", "G5"]] for r in ["R1", "R2"]])
    centred = correct_scores(S, "centred")
    # gene means over the two reactions: G1 1.75, G2 1.5, G3 1.25, G4 1.5, G5 0 (R2 only)
    np.testing.assert_allclose(centred[0, :4], [0.5 - 1.75, 2.0 - 1.5, 0.5 - 1.25, -1.0 - 1.5])
    np.testing.assert_allclose(centred[1], [3.0 - 1.75, 1.0 - 1.5, 2.0 - 1.25, 4.0 - 1.5, 0.0])
    assert np.isnan(centred[0, 4])
    # population SD of two values a, b is |a - b| / 2: z = +-1 (0 where a gene has one value)
    z = correct_scores(S, "z")
    np.testing.assert_allclose(z[0, :4], [-1, 1, -1, -1])
    np.testing.assert_allclose(z[1], [1, -1, 1, 1, 0])
    np.testing.assert_array_equal(correct_scores(S, "none"), S)
    # a gene with the same score everywhere gets z = 0, not +-1 from rounding error
    flat = correct_scores(np.array([[0.1, 1.0], [0.1, 2.0], [0.1, 3.0]]), "z")
    np.testing.assert_array_equal(flat[:, 0], [0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="'gene_correction' parameter of correct_scores must be one of"):
        correct_scores(S, "median")
    with pytest.raises(ValueError, match="at least 2 of them; got 1"):
        correct_scores(S[:1], "centred")


def test_rank_candidates_with_a_gene_correction():
    cands = ["G3", "G5", "G1", "G4", "G2"]
    out = rank_candidates(score_fn_factory([]), ["R1", "R2"], cands, top_n=None, batch_size=2,
                          gene_correction="centred")
    # R2 by score - gene mean: G4 2.5, G1 1.25, G3 0.75, G5 0.0, G2 -0.5
    r2 = out[out["reaction"] == "R2"]
    assert r2["gene"].tolist() == ["G4", "G1", "G3", "G5", "G2"]
    np.testing.assert_allclose(r2["score"], [2.5, 1.25, 0.75, 0.0, -0.5])
    np.testing.assert_allclose(r2["model_score"], [4.0, 3.0, 2.0, 0.0, 1.0])
    # R1: G2 0.5, G3 -0.75, G1 -1.25, G4 -2.5, G5 NaN (last)
    assert out[out["reaction"] == "R1"]["gene"].tolist() == ["G2", "G3", "G1", "G4", "G5"]
    plain = rank_candidates(score_fn_factory([]), ["R1", "R2"], cands, top_n=None, batch_size=2)
    np.testing.assert_array_equal(plain["score"], plain["model_score"])


def test_ranking_names():
    assert ranking_name("hgb", "z") == "hgb+z"
    assert split_ranking_name("geometric+centred") == ("geometric", "centred")
    assert split_ranking_name("geometric@unscaled") == ("geometric@unscaled", "none")
    for bad in ["hgb+median", "+centred"]:
        with pytest.raises(ValueError, match="is not a ranking name"):
            split_ranking_name(bad)


def test_top1_by_kind_by_hand():
    # validation: T first for 3 of 4 transport reactions (right twice; the kind's hit@1 is 2/4)
    # and for 1 of 4 enzymatic ones (wrong; hit@1 3/4)
    tops = pd.DataFrame({
        "method": ["m"] * 8, "reaction": list("abcdefgh"),
        "top_gene": ["T", "T", "T", "U", "T", "E", "E", "E"],
        "top_is_true": [True, True, False, False, False, True, True, True],
        "reaction_kind": ["transport"] * 4 + ["enzymatic"] * 4})
    # orphans: T first for 2 of 4 transport ones (0.5 <= 0.75) and 1 of 2 enzymatic ones
    orphans = pd.DataFrame({"reaction_kind": ["transport"] * 4 + ["enzymatic"] * 2,
                            "gene": ["T", "T", "X", "Y", "T", "E"]})
    t = top1_by_kind(tops, "m", "T", orphans).set_index("reaction_kind")
    assert t.loc["transport", ["orphans", "orphan_tops", "tops", "correct", "reactions"]].tolist() \
        == [4, 2, 3, 2, 4]
    assert t.loc["transport", "precision"] == pytest.approx(2 / 3)
    assert t.loc["transport", "hit1"] == pytest.approx(0.5)
    assert bool(t.loc["transport", "earned"])
    # enzymatic: share 0.5 > 0.25 and never right: not earned
    assert not bool(t.loc["enzymatic", "earned"])
    assert t.loc["enzymatic", "orphan_share"] == pytest.approx(0.5)
    # pooled: T is right for 2 of its 4 firsts, below the method's hit@1 of 5/8: not earned
    assert not top1_record(tops, "m", "T", orphan_share=0.5)["earned"]
    # a kind without held-out reactions is never earned
    only = top1_by_kind(tops, "m", "T", pd.DataFrame({"reaction_kind": ["spontaneous"], "gene": ["T"]}))
    assert only["reactions"].tolist() == [0] and not only["earned"].any()


def test_top1_counted_by_near_copy_group_by_hand():
    """A reaction written three times (one group) topped by G counts once; H tops two
    reactions of their own groups, so by groups H leads (2 of 3) while by rows G does (3 of 5)."""
    top = pd.DataFrame({"reaction": ["a16", "a18", "a20", "b", "c", "c"], "rank": [1, 1, 1, 1, 1, 2],
                        "gene": ["G", "G", "G", "H", "H", "G"]})
    kinds = pd.Series("transport", index=["a16", "a18", "a20", "b", "c"])
    groups = pd.Series({"a16": "a", "a18": "a", "a20": "a", "b": "b", "c": "c", "x1": "x", "x2": "x"})
    # validation: H first for both members of group x and for y (not in the map: its own group), G for z
    tops = pd.DataFrame({"method": ["m"] * 4, "reaction": ["x1", "x2", "y", "z"],
                         "top_gene": ["H", "H", "H", "G"], "top_is_true": [True] * 4,
                         "reaction_kind": ["transport"] * 4})
    q, details = ranking_quality(top, None, tops, kinds, method="m", chosen_by="config",
                                 margin_rule="scaled", gene_correction="none", fold_groups=groups)
    row = q.iloc[0]
    assert (row["orphan_top1_gene"], row["orphan_top1_reactions"]) == ("G", 3)
    assert row["orphan_top1_share"] == pytest.approx(3 / 5)
    assert (row["orphan_top1_gene_by_group"], row["orphan_groups_ranked"]) == ("H", 3)
    assert row["orphan_top1_groups"] == pytest.approx(2.0)
    assert row["orphan_top1_group_share"] == pytest.approx(2 / 3)
    # held-out groups x, y, z: H tops x and y
    assert row["orphan_top1_validated_group_share"] == pytest.approx(2 / 3)
    assert details["by_group"]["validated_groups"] == 3
    # a group whose members have different first genes splits its weight
    split = top1_group_concentration(pd.DataFrame({"reaction": ["a1", "a2", "b", "c"], "gene": ["G", "H", "H", ""]}),
                                     {"a1": "a", "a2": "a", "b": "b", "c": "c"})
    assert split == ("H", 1.5, 2, 0.75)
    # without groups the columns are not there
    q0, d0 = ranking_quality(top, None, tops, kinds, method="m", chosen_by="config",
                             margin_rule="scaled", gene_correction="none")
    assert "orphan_top1_group_share" not in q0.columns and d0["by_group"] is None


def test_rank_candidates_by_processes_equals_one_process():
    """n_jobs splits the reactions over forked processes; the table is the same."""
    cands = ["G3", "G5", "G1", "G4", "G2"]
    reactions = ["R1", "R2"] * 5
    for kw in ({}, {"gene_correction": "centred", "standardised": True}):
        one = rank_candidates(score_fn_factory([]), reactions, cands, top_n=3, batch_size=2, **kw)
        two = rank_candidates(score_fn_factory([]), reactions, cands, top_n=3, batch_size=2, n_jobs=2, **kw)
        pd.testing.assert_frame_equal(one, two)


def test_validation_refuses_repeated_candidates():
    """The validation ranks each candidate once (its ranks are read from one
    index per candidate): a repeated gene is an input error, named."""
    from geomargin.rank.validation import validate_ranking

    with pytest.raises(ValueError, match="candidate gene 'G2' is listed more than once"):
        validate_ranking(None, None, ["G1", "G2", "G3", "G2"], pd.DataFrame(), {}, margin_rule="scaled")
