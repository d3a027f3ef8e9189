"""rank.evidence on the hand-computed toy of test_pairs: orphan table and
reasons, co-expression r (hand-computed Pearson r), shared domains and
compartments, the ranking rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from geomargin.featurize.metabolic.pairs import PairFeaturizer
from geomargin.featurize.metabolic.bundle import items_by_gene
from geomargin.rank.evidence import (candidate_evidence, coexpression_r, explain_ranking, mark_ranked,
                           motif_less_validation, orphan_reactions, RANKING_COLUMNS, supporting_neighbours,
                           top1_with_motifs)
from toy_pairs import ToyNet, toy


@pytest.fixture
def setup():
    net, motifs, sources = toy()
    df = net.reactions.copy()
    # R5: orphan without motif neighbours; R6: orphan whose only neighbour (R5) has no gene
    extra = pd.DataFrame({"reaction_id": ["R5", "R6"], "genes": [(), ()]}, index=["R5", "R6"])
    df = pd.concat([df, extra])
    df["name"] = [f"reaction {r}" for r in df.index]
    df["equation"] = "a -> b"
    df["ec_numbers"] = ["", "", "", "1.1.1.1", "", ""]
    df["subsystem"] = ["S", "S", "S", "S_Transport", "", ""]
    df["reaction_kind"] = ["enzymatic"] * 3 + ["transport", "spontaneous", "enzymatic"]
    df["named_diffusion"] = [False] * 3 + [True, False, False]
    motifs = {t: dict(m) for t, m in motifs.items()}
    motifs["fork"]["R6"] = frozenset({"R5"})
    net = ToyNet(df)
    feat = PairFeaturizer(net, motifs, sources, min_domain_genes=2, domain_eps=1.0)
    domains = items_by_gene(sources["domain"])
    comps = items_by_gene(sources["loc"])
    return net, feat, domains, comps


def test_orphan_table_counts_and_reasons(setup):
    net, feat, _, _ = setup
    o = orphan_reactions(net, feat)
    assert o["reaction_id"].tolist() == ["R4", "R5", "R6"]
    r4 = o.loc["R4"]
    # R4: funnel R2 (gene G2), chain_up R1 (gene G1), nothing else
    assert (r4["funnel_reactions"], r4["funnel_genes"], r4["chain_up_reactions"],
            r4["chain_up_genes"], r4["fork_reactions"], r4["chain_down_reactions"]) == (1, 1, 1, 1, 0, 0)
    assert r4["reaction_kind"] == "transport" and r4["named_diffusion"] and r4["eligible"]
    assert o.loc["R5", "reason"] == "no motif neighbour"
    assert (o.loc["R6", "fork_reactions"], o.loc["R6", "fork_genes"]) == (1, 0)
    assert o.loc["R6", "reason"] == "no motif neighbour has a gene"
    left = orphan_reactions(net, feat, kinds=["enzymatic", "spontaneous"]).loc["R4"]
    assert not left["eligible"] and "transport reactions are left out" in left["reason"]
    with pytest.raises(ValueError, match="'kinds' parameter must list reaction kinds"):
        orphan_reactions(net, feat, kinds=["enzyme"])
    final = mark_ranked(o, ["R4"])
    assert final["ranked"].tolist() == ["yes", "no", "no"]
    assert "eligible" not in final.columns and final.columns[-2:].tolist() == ["ranked", "reason"]


def test_near_copies_are_listed_and_not_counted_as_neighbours(setup):
    """R4 in one group with R2 (a near-copy, gene G2): R2 is no longer R4's
    funnel neighbour, and its gene is named in ``near_copy_genes``."""
    net, feat, _, _ = setup
    groups = {r: r for r in net.reactions.index} | {"R4": "R2"}
    _, motifs, sources = toy()
    motifs = {t: dict(m) for t, m in motifs.items()}
    motifs["fork"]["R6"] = frozenset({"R5"})
    grouped = PairFeaturizer(net, motifs, sources, min_domain_genes=2, domain_eps=1.0,
                             fold_groups=groups)
    plain, o = orphan_reactions(net, feat), orphan_reactions(net, grouped)
    assert plain["near_copy_genes"].tolist() == ["", "", ""]
    assert o["near_copy_genes"].to_dict() == {"R4": "G2", "R5": "", "R6": ""}
    assert (plain.loc["R4", "funnel_reactions"], o.loc["R4", "funnel_reactions"]) == (1, 0)
    assert (o.loc["R4", "chain_up_reactions"], o.loc["R4", "chain_up_genes"]) == (1, 1)
    assert o.columns[-4:].tolist() == ["near_copy_genes", "ranked_on", "eligible", "reason"]


def motif_less_toy(subsystems=True):
    """The toy of ``setup`` with R5 (no motif neighbour) in subsystem S and
    two more spontaneous reactions with genes: R7 without a motif neighbour
    (subsystem S), R8 with R1 (gene G1) as its fork neighbour."""
    net, motifs, sources = toy()
    df = net.reactions.copy()
    extra = pd.DataFrame({"reaction_id": ["R5", "R6", "R7", "R8"], "genes": [(), (), ("G4",), ("G5",)]},
                         index=["R5", "R6", "R7", "R8"])
    df = pd.concat([df, extra])
    df["name"] = [f"reaction {r}" for r in df.index]
    df["equation"] = "a -> b"
    df["ec_numbers"] = ""
    df["subsystem"] = ["S", "S", "S", "S_Transport", "S", "", "S", ""]
    df["reaction_kind"] = ["enzymatic"] * 3 + ["transport", "spontaneous", "enzymatic"] + ["spontaneous"] * 2
    df["named_diffusion"] = False
    motifs = {t: dict(m) for t, m in motifs.items()}
    motifs["fork"]["R6"] = frozenset({"R5"})
    motifs["fork"]["R8"] = frozenset({"R1"})
    net = ToyNet(df)
    return net, PairFeaturizer(net, motifs, sources, min_domain_genes=2, domain_eps=1.0,
                               subsystems=subsystems)


def test_reactions_without_a_motif_neighbour_are_ranked_on_other_evidence():
    net, feat = motif_less_toy()
    o = orphan_reactions(net, feat)
    assert o["ranked_on"].to_dict() == {"R4": "motifs", "R5": "subsystem", "R6": ""}
    assert o["eligible"].tolist() == [True, True, False]
    assert o.loc["R6", "reason"] == "no motif neighbour has a gene; no other reaction of its subsystem has a gene"
    # only motifs allowed: as before the option existed
    o = orphan_reactions(net, feat, evidence=["motifs"])
    assert o["ranked_on"].tolist() == ["motifs", "", ""] and o["eligible"].tolist() == [True, False, False]
    assert o["reason"].tolist() == ["", "no motif neighbour", "no motif neighbour has a gene"]
    o = orphan_reactions(net, feat, evidence=["subsystem"])
    assert o.loc["R4", "reason"] == "no other reaction of its subsystem has a gene"
    assert o.loc["R5", "ranked_on"] == "subsystem"
    # without the subsystem block, its evidence cannot be used and is not claimed missing
    net2, feat2 = motif_less_toy(subsystems=False)
    o = orphan_reactions(net2, feat2)
    assert o.loc["R5", "reason"] == "no motif neighbour" and not o.loc["R5", "eligible"]
    with pytest.raises(ValueError, match="'evidence' parameter must list one or more of"):
        orphan_reactions(net, feat, evidence=["motif"])
    assert mark_ranked(orphan_reactions(net, feat), ["R4"]).set_index("reaction_id").loc[
        "R5", ["ranked_on", "ranked", "reason"]].tolist() == [
        "", "no", "no candidate has data of a source its neighbours have"]


def test_validation_summary_of_reactions_without_motif_neighbours():
    net, feat = motif_less_toy()
    true_ranks = pd.DataFrame({"method": ["m", "m", "m", "other"], "reaction": ["R7", "R7", "R8", "R7"],
                               "rank": [3, 12, 1, 1], "n_candidates": 20})
    top = pd.DataFrame({"reaction": ["R5", "R5", "R4"], "rank": [1, 2, 1], "gene": ["G1", "G2", "G3"]})
    got = motif_less_validation(true_ranks, "m", feat, top)
    # R7 (no motif neighbour gene): true genes at 3 and 12; R8 (fork neighbour R1 with G1) left out
    assert got == {"orphans_ranked_without_motifs": 1, "validated_without_motifs_n_reactions": 1,
                   "validated_without_motifs_hit@1": 0.0, "validated_without_motifs_hit@10": 0.5,
                   "validated_without_motifs_median_rank": 7.5}
    none = motif_less_validation(true_ranks[true_ranks["reaction"] == "R8"], "m", feat, top.iloc[2:])
    assert none["validated_without_motifs_n_reactions"] == 0 and none["orphans_ranked_without_motifs"] == 0
    assert np.isnan(none["validated_without_motifs_hit@10"])


def test_rank1_concentration_over_orphans_with_a_motif_neighbour_gene():
    # R4 has a motif neighbour gene; R5 is ranked on its subsystem alone
    net, feat = motif_less_toy()
    assert feat.has_motif_gene("R4") and not feat.has_motif_gene("R5")
    top = pd.DataFrame({"reaction": ["R5", "R5", "R4", "R4"], "rank": [1, 2, 1, 2],
                        "gene": ["G1", "G2", "G3", "G1"]})
    # G1 tops R5 and G3 tops R4: over the orphans with a motif neighbour gene, G3 tops 1 of 1
    assert top1_with_motifs(feat, top) == {"orphans_ranked_with_motifs": 1, "orphan_top1_gene_with_motifs": "G3",
                                           "orphan_top1_reactions_with_motifs": 1,
                                           "orphan_top1_share_with_motifs": 1.0}
    none = top1_with_motifs(feat, top[top["reaction"] == "R5"])
    assert none["orphans_ranked_with_motifs"] == 0 and none["orphan_top1_gene_with_motifs"] == ""
    assert np.isnan(none["orphan_top1_share_with_motifs"])


def test_coexpression_r_hand_computed(setup):
    _, feat, _, _ = setup
    # G3 = (0, 0, 3); chain_up neighbour G1 = (1, 2, 3): a plain Pearson r
    expected_up = np.corrcoef([0, 0, 3], [1, 2, 3])[0, 1]
    # funnel neighbour G2 = (2, 0, NaN): centred over its present values (1, -1)/sqrt(2);
    # G3 centred (-1, -1, 2)/sqrt(6): sum over the shared conditions = (-1 + 1)/sqrt(12) = 0
    r = coexpression_r(feat, "R4", "G3")
    assert r["chain_up"] == pytest.approx(expected_up)
    assert r["funnel"] == pytest.approx(0.0, abs=1e-12)
    assert np.isnan(r["fork"]) and np.isnan(r["chain_down"])
    # the feature scale does not change it
    X = feat.transform(["R1", "R2", "R3", "R4"], ["G3", "G5", "G2", "G3"])
    feat.fit_feature_scale(X)
    assert coexpression_r(feat, "R4", "G3")["chain_up"] == pytest.approx(expected_up)


def test_candidate_evidence_hand_computed(setup):
    _, feat, domains, comps = setup
    names = pd.Series({"G1": "ONE", "G2": "TWO", "G3": "THREE"})
    # the score sums the chain_up block: only G1 (the chain_up neighbour) supports it
    w = np.array([1.0 if t == "chain_up" else 0.0 for t, _, sl in feat.blocks_
                  for _ in range(sl.stop - sl.start)])

    def score(X):
        return np.nan_to_num(X) @ w

    ev = candidate_evidence(feat, score, "R4", "G3", names=names, gene_domains=domains,
                            gene_compartments=comps)
    assert ev["motif_blocks"] == "funnel,chain_up"
    assert ev["supporting_neighbours"] == "G1(chain_up)" and ev["supporting_names"] == "ONE"
    # G3 has D2, D3; G1 has D1, D2; G2 has D1 -> D2 shared with one neighbour
    assert ev["shared_domains"] == "D2(1)"
    # G3 cytoplasm; G1 nucleus; G2 nucleus + cytoplasm
    assert ev["shared_compartments"] == "cytoplasm(1)"
    assert "ONE (chain_up)" in ev["evidence"] and "with chain_up neighbours" in ev["evidence"]


def test_ranking_rows(setup):
    """The rows carry the candidates' confidence and flag as given (empty
    without them), the reaction's facts, and do not depend on the threads."""
    net, feat, domains, comps = setup
    top = pd.DataFrame({"reaction": ["R4", "R4"], "rank": [1, 2], "gene": ["G3", "G5"],
                        "score": [2.0, 1.0], "confidence": [0.61234, 0.2], "no_credible_candidate": False})
    names = pd.Series({"G3": "THREE"})
    desc = pd.Series({"G3": "a <b>gene</b>"})
    t = explain_ranking(top, feat, net, lambda X: np.nansum(X, axis=1), method="m", names=names,
                        descriptions=desc, gene_domains=domains, gene_compartments=comps)
    assert list(t.columns) == RANKING_COLUMNS + [f"coexpr_r_{m}" for m in feat.motif_types_] + ["method"]
    assert t["confidence"].tolist() == [0.6123, 0.2] and not t["no_credible_candidate"].any()
    assert t.loc[0, "reaction_kind"] == "transport" and t.loc[0, "subsystem"] == "S_Transport"
    assert t.loc[0, "ec_numbers"] == "1.1.1.1" and t.loc[0, "gene_description"] == "a <b>gene</b>"
    assert t.loc[1, "gene_name"] == "" and (t["method"] == "m").all()
    # processes compute the evidence of several reactions; the table does not depend on how many
    several = pd.DataFrame({"reaction": ["R4", "R4", "R1", "R6", "R6"], "rank": [1, 2, 1, 1, 2],
                            "gene": ["G3", "G5", "G2", "G1", "G4"], "score": [2.0, 1.0, 3.0, 0.5, 0.2],
                            "confidence": 0.5, "no_credible_candidate": False})
    one, two = (explain_ranking(several, feat, net, lambda X: np.nansum(X, axis=1), method="m", names=names,
                                descriptions=desc, gene_domains=domains, gene_compartments=comps, n_jobs=n)
                for n in (1, 2))
    pd.testing.assert_frame_equal(one, two)
    assert one["supporting_neighbours"].astype(bool).any()
    without_confidence = explain_ranking(top.drop(columns=["confidence", "no_credible_candidate"]), feat, net,
                           lambda X: np.nansum(X, axis=1), method="m", names=names, descriptions=desc,
                           gene_domains=domains, gene_compartments=comps)
    assert without_confidence["confidence"].isna().all()


def test_mark_ranked_with_confidence():
    net, feat = motif_less_toy()
    o = mark_ranked(orphan_reactions(net, feat), ["R4", "R5"], best_confidence=pd.Series({"R4": 0.3, "R5": 0.05}),
                    threshold=0.1).set_index("reaction_id")
    assert o["best_confidence"].tolist()[:2] == [0.3, 0.05] and np.isnan(o.loc["R6", "best_confidence"])
    assert o["no_credible_candidate"].tolist() == ["no", "yes", ""]
    assert list(o.columns[-4:]) == ["best_confidence", "no_credible_candidate", "ranked", "reason"]
    # with the support of each best candidate: beside its confidence, empty where there is none
    o = mark_ranked(orphan_reactions(net, feat), ["R4", "R5"], best_confidence=pd.Series({"R4": 0.3, "R5": 0.05}),
                    threshold=0.1, best_support=pd.Series({"R4": 12.5, "R5": 0.0, "R6": 3.0})).set_index("reaction_id")
    assert list(o.columns[-5:]) == ["best_confidence", "best_held_out_like", "no_credible_candidate", "ranked",
                                    "reason"]
    assert o["best_held_out_like"].tolist()[:2] == [12.5, 0.0] and np.isnan(o.loc["R6", "best_held_out_like"])


# ------------------------------------------------------------ supporting neighbours


class FakeFeaturizer:
    """Two neighbours; removing one changes the single feature."""

    def neighbour_genes(self, reaction, gene):
        return {"fork": ["H1", "H2"], "funnel": ["H2"]}

    def candidate_matrix(self, reaction, genes):
        return np.array([[3.0, 1.0]] * len(genes))

    def leave_one_out_many(self, reaction, genes):
        return [["H1", "H2"]] * len(genes), np.array([[2.5, 1.0], [1.0, np.nan]] * len(genes))


def test_supporting_neighbours():
    dec = lambda X: np.nansum(X, axis=1)  # noqa: E731
    out = supporting_neighbours(FakeFeaturizer(), dec, "R1", "G1", top=3)
    # base 4; without H1 3.5 (drop 0.5), without H2 1.0 (drop 3.0)
    assert out == [("H2", "fork+funnel", 3.0), ("H1", "fork", 0.5)]
    assert supporting_neighbours(FakeFeaturizer(), dec, "R1", "G1", top=1) == [
        ("H2", "fork+funnel", 3.0)]


def test_supporting_neighbours_with_pair_featurizer():
    from geomargin.featurize.metabolic.pairs import PairFeaturizer

    class Net:
        reactions = pd.DataFrame({"genes": [("A",), ("B",), ("C",)]}, index=["R1", "R2", "R3"])

    motifs = {"fork": {"R1": frozenset({"R2", "R3"})}}
    loc = pd.DataFrame({"x": [1, 1, 0, 1]}, index=["A", "B", "C", "G"])
    f = PairFeaturizer(Net(), motifs, {"loc": loc})
    # score = 1 - Hamming: G agrees with B, not with C -> B supports
    dec = lambda X: 1 - np.nan_to_num(X[:, 0], nan=1.0)  # noqa: E731
    assert supporting_neighbours(f, dec, "R1", "G") == [("B", "fork", 0.5)]


def test_candidates_evidence_equals_each_candidate_alone(setup):
    """The evidence of a reaction's candidates computed together (one
    candidate matrix, one stacked leave-one-out matrix) is each candidate's
    evidence computed alone, with a score that mixes every feature."""
    from geomargin.rank.evidence import candidates_evidence

    _, feat, domains, comps = setup
    rng = np.random.default_rng(0)
    w = rng.normal(size=feat.n_features_)

    def score(X):
        return np.nan_to_num(X, nan=-0.5) @ w

    genes = ["G3", "G5", "G1", "G2", "G4"]
    for r in ["R1", "R4", "R6"]:
        hss, X = feat.leave_one_out_many(r, genes)
        assert len(X) == sum(map(len, hss))
        start = 0
        for g, hs in zip(genes, hss):
            alone_hs, alone_X = feat.leave_one_out(r, g)
            assert hs == alone_hs
            np.testing.assert_array_equal(X[start:start + len(hs)], alone_X)
            start += len(hs)
        together = candidates_evidence(feat, score, r, genes, names={}, gene_domains=domains,
                                       gene_compartments=comps)
        for g, ev in zip(genes, together):
            alone = candidate_evidence(feat, score, r, g, names={}, gene_domains=domains, gene_compartments=comps)
            assert {k: v for k, v in ev.items() if k != "coexpr"} == \
                {k: v for k, v in alone.items() if k != "coexpr"}
            np.testing.assert_array_equal(list(ev["coexpr"].values()), list(alone["coexpr"].values()))
    assert any(candidates_evidence(feat, score, "R4", genes, names={}, gene_domains=domains,
                                   gene_compartments=comps)[i]["supporting_neighbours"] for i in range(5))


def test_candidates_evidence_row_independent_scores_once(setup):
    """A decision function that scores each row on its own
    (rank.scoring.row_independent) is called once per reaction on every
    row, with the same evidence as the per-candidate calls."""
    from geomargin.rank.evidence import candidates_evidence

    _, feat, domains, comps = setup
    w = np.random.default_rng(1).normal(size=feat.n_features_)

    class Model:
        row_independent_decision = True
        calls = 0

        def decision_function(self, X):
            Model.calls += 1
            return np.array([float(np.nan_to_num(x, nan=-0.5) @ w) for x in X])   # row by row

    model = Model()
    genes = ["G3", "G5", "G1", "G2", "G4"]
    seen = False
    for r in ["R1", "R4", "R6"]:
        Model.calls = 0
        batched = candidates_evidence(feat, model.decision_function, r, genes, names={}, gene_domains=domains,
                                      gene_compartments=comps)
        assert Model.calls <= 1
        per_candidate = candidates_evidence(feat, lambda X: model.decision_function(X), r, genes, names={},
                                            gene_domains=domains, gene_compartments=comps)
        for a, b in zip(batched, per_candidate):
            assert {k: v for k, v in a.items() if k != "coexpr"} == {k: v for k, v in b.items() if k != "coexpr"}
        seen |= any(ev["supporting_neighbours"] for ev in batched)
    assert seen


def test_shown_rows_flags_by_processes(setup):
    """shown_rows gives each row the candidate flags of its own candidate
    matrix, whatever the number of processes."""
    from geomargin.rank.evidence_flags import CANDIDATE_FLAGS, candidate_flags, shown_rows

    net, feat, _, _ = setup
    top = pd.DataFrame({"reaction": ["R4", "R4", "R1", "R6", "R6"], "rank": [1, 2, 1, 1, 2],
                        "gene": ["G3", "G5", "G2", "G1", "G4"], "score_z": 0.0, "gap_next_z": 0.0,
                        "gap_top_z": 0.0})
    one, two = (shown_rows(top, feat, net.reactions["reaction_kind"], n_jobs=n) for n in (1, 2))
    pd.testing.assert_frame_equal(one, two)
    for r, rows in one.groupby("reaction"):
        expected = candidate_flags(feat, feat.candidate_matrix(r, rows["gene"].tolist()))
        np.testing.assert_array_equal(rows[list(CANDIDATE_FLAGS)].to_numpy(), expected)
    assert one[["adjacent", "subsystem", "compounds"]].to_numpy().any()


def test_subsystem_evidence_counts_near_copies_once():
    """The sentence counts a fold group as one reaction, as the
    subsystem block does, and still lists every model reaction."""
    _, _, sources = toy()
    df = pd.DataFrame({"reaction_id": ["R1", "R2", "R3", "R4", "R5"],
                       "genes": [("G1",), ("G1",), ("G1",), ("G2",), ()],
                       "reaction_kind": ["transport"] * 5, "subsystem": ["A"] * 5},
                      index=["R1", "R2", "R3", "R4", "R5"])
    motifs = {t: {} for t in ("fork", "funnel", "chain_up", "chain_down")}
    kw = dict(names={}, gene_domains={}, gene_compartments={})
    for groups, words in [(["c", "c", "c", "R4", "R5"], "catalyses 1 other reaction(s) of this subsystem "
                                                         "(written as 3): R1, R2, R3"),
                          (None, "catalyses 3 other reaction(s) of this subsystem: R1, R2, R3")]:
        feat = PairFeaturizer(ToyNet(df), motifs, sources, subsystems=True,
                              fold_groups=None if groups is None else pd.Series(groups, index=df.index))
        ev = candidate_evidence(feat, lambda X: np.nansum(X, axis=1), "R5", "G1", **kw)
        assert ev["catalyses_in_subsystem"] == "R1;R2;R3"
        assert words in ev["evidence"]


def test_domain_kind_evidence_by_hand():
    """The sentence names the candidate's domain whose other carriers most
    often catalyse the reaction's kind (the domain_kind block's counts)."""
    df = pd.DataFrame({"reaction_id": ["R1", "R2", "R3", "R4"], "genes": [("G1",), ("G2",), ("G3",), ()],
                       "reaction_kind": ["transport", "transport", "enzymatic", "transport"]},
                      index=["R1", "R2", "R3", "R4"])
    dom = pd.DataFrame([[1, 1], [1, 0], [0, 1], [1, 1], [0, 0]],
                       index=["G1", "G2", "G3", "G5", "G6"], columns=["D1", "D2"])
    motifs = {t: {} for t in ("fork", "funnel", "chain_up", "chain_down")}
    kw = dict(names={}, gene_domains={}, gene_compartments={})
    feat = PairFeaturizer(ToyNet(df), motifs, {"domain": dom}, min_domain_genes=1, reaction_kinds=True,
                          domain_kinds=True)

    def words(reaction, gene):
        return candidate_evidence(feat, lambda X: np.nansum(X, axis=1), reaction, gene, **kw)["evidence"]

    assert "all 2 other genes with its domain D1 catalyse transport reactions" in words("R4", "G5")
    assert "1 of the 2 other genes with its domain D1 catalyse transport reactions" in words("R4", "G1")
    # no other carrier of D2 catalyses an enzymatic reaction but R3's own gene: nothing said
    assert "other gene" not in words("R3", "G5") and "other gene" not in words("R4", "G6")
    one = pd.DataFrame([[1], [1]], index=["G2", "G5"], columns=["D9"])
    feat = PairFeaturizer(ToyNet(df), motifs, {"domain": one}, min_domain_genes=1, reaction_kinds=True,
                          domain_kinds=True)
    assert "the one other gene with its domain D9 catalyses transport reactions" in words("R4", "G5")


def test_site_evidence_by_hand():
    """The sentence says where the candidate is seen against the reaction's
    compartments (the site block), and nothing without localization."""
    df = pd.DataFrame({"reaction_id": ["R1", "R2"], "genes": [("G1",), ()],
                       "compartments": ["cytosol;mitochondria", "vacuole"]}, index=["R1", "R2"])
    loc = pd.DataFrame([[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1]], index=["G1", "G2", "G3", "G4"],
                       columns=["cytoplasm", "nucleus", "ER"])
    motifs = {t: {} for t in ("fork", "funnel", "chain_up", "chain_down")}
    kw = dict(names={}, gene_domains={}, gene_compartments={})
    feat = PairFeaturizer(ToyNet(df), motifs, {"loc": loc}, sites=True)

    def words(reaction, gene):
        return candidate_evidence(feat, lambda X: np.nansum(X, axis=1), reaction, gene, **kw)["evidence"]

    assert "localized where the reaction runs: cytoplasm" in words("R1", "G3")
    assert "localized only elsewhere: nucleus (the reaction: cytoplasm, mitochondrion)" in words("R1", "G2")
    assert "localized only elsewhere: cytoplasm, nucleus (the reaction: vacuole)" in words("R2", "G3")
    assert "localized only elsewhere: ER (the reaction: cytoplasm, mitochondrion)" in words("R1", "G4")
    assert "localized" not in words("R1", "G9")
    off = PairFeaturizer(ToyNet(df), motifs, {"loc": loc})
    assert off.gene_sites("R1", "G2") == ([], [], [])
    assert feat.gene_sites("R1", "G3") == (["cytoplasm", "mitochondrion"], ["cytoplasm"], ["nucleus"])


def test_homology_evidence_ranks_and_names_the_homolog():
    """With the homology block, the orphan R4 of the homology toy can be
    ranked on homology alone, ranked_on says so, and the candidate's
    sentence names its best homolog and what it does; without the block
    the kind is never used nor claimed missing."""
    from toy_pairs import homology_hits, homology_toy

    net, motifs, sources = homology_toy()
    feat = PairFeaturizer(net, motifs, sources, adjacency=False, homology=homology_hits())
    o = orphan_reactions(net, feat, evidence=["homology"])
    assert o.loc["R4", "ranked_on"] == "homology" and o.loc["R4", "eligible"]
    assert orphan_reactions(net, feat).loc["R4", "ranked_on"] == "motifs+homology"
    names = {"G2": "FUR4"}
    ev = candidate_evidence(feat, lambda X: np.nansum(X, axis=1), "R4", "G6", names=names,
                            gene_domains={}, gene_compartments={})
    assert "similar to FUR4 (y transport), 50% of its self-score, E 1e-30" in ev["evidence"]
    none = PairFeaturizer(net, motifs, sources, adjacency=False)
    o = orphan_reactions(net, none, evidence=["homology"])
    assert not o.loc["R4", "eligible"] and o.loc["R4", "ranked_on"] == ""
    assert "homolog" not in o.loc["R4", "reason"]
    ev = candidate_evidence(none, lambda X: np.nansum(X, axis=1), "R4", "G6", names=names,
                            gene_domains={}, gene_compartments={})
    assert "similar to" not in ev["evidence"]
