"""Compound formulas, their similarity and the ``compound_<kind>`` blocks of
PairFeaturizer: hand-computed values and a brute-force reference written
from the definition (one pair at a time, plain Python)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pytest

from geomargin.common.exceptions import GeomarginInputError
from geomargin.featurize.metabolic.compounds import (characteristic_compounds, compound_similarity,
                                           compound_vectors, element_counts)
from geomargin.featurize.metabolic.pairs import PairFeaturizer


@dataclass
class ToyNet:
    reactions: pd.DataFrame
    substrates: dict
    products: dict
    formulas: dict = field(default_factory=dict)


def test_element_counts_by_hand():
    assert element_counts("C6H12O6") == {"C": 6, "H": 12, "O": 6}
    assert element_counts("C5H7O4R") == {"C": 5, "H": 7, "O": 4, "R": 1}
    assert element_counts("HO4P") == {"H": 1, "O": 4, "P": 1}
    assert element_counts("CoN") == {"Co": 1, "N": 1}
    for bad in ["", "  ", None, "(C6H10O5)n", "c6h12o6", "C6 H12"]:
        assert element_counts(bad) is None


def test_compound_vectors_and_similarity_by_hand():
    v = compound_vectors({"leu": "C6H13NO2", "glc": "C6H12O6", "h": "H", "x": "", "fe": "Fe"})
    # H+ and a formula without C, N, O, P, S have no vector; nor has an empty formula
    assert sorted(v) == ["glc", "leu"]
    np.testing.assert_allclose(v["leu"], np.log([7, 2, 3, 1, 1]))
    keys, S = compound_similarity(v)
    assert keys == ["glc", "leu"]
    # the same composition is 1 up to rounding (the Gram-matrix form of the distance)
    k2, S2 = compound_similarity({f"k{i}": np.log1p(np.array([i, 3.0, 7.0, 1.0, 0.0])) for i in range(60)}
                                 | {"x": np.log1p(np.array([59, 3.0, 7.0, 1.0, 0.0]))})
    assert S2[k2.index("x"), k2.index("k59")] == pytest.approx(1.0, abs=1e-6)
    d = math.sqrt(math.log(2) ** 2 + (math.log(7) - math.log(3)) ** 2)
    np.testing.assert_allclose(S, [[1.0, math.exp(-d)], [math.exp(-d), 1.0]])
    assert compound_similarity({}) == ([], pytest.approx(np.zeros((0, 0))))
    with pytest.raises(GeomarginInputError, match="5 finite entries"):
        compound_similarity({"a": np.ones(3)})


def test_characteristic_compounds():
    # a symport: the carried compound is on both sides, the co-ion is not
    assert characteristic_compounds(frozenset({"leu", "na1"}), frozenset({"leu"}), "transport") == {"leu"}
    # an antiport carries both
    assert characteristic_compounds(frozenset({"a", "b"}), frozenset({"a", "b"}), "transport") == {"a", "b"}
    # a transport that changes its compound (group translocation): all of them
    assert characteristic_compounds(frozenset({"glc"}), frozenset({"g6p"}), "transport") == {"glc", "g6p"}
    assert characteristic_compounds(frozenset({"glc"}), frozenset({"g6p"}), "enzymatic") == {"glc", "g6p"}


FORMULAS = {"leu": "C6H13NO2", "ile": "C6H13NO2", "val": "C5H11NO2", "glc": "C6H12O6",
            "g6p": "C6H13O9P", "f6p": "C6H13O9P", "unk": ""}


def hand_toy():
    """R1 carries leu (G1, both directions), R3 ile (G1), R2 glc (G2), R4 val
    (orphan); R5 glc -> g6p (G1), R6 g6p -> f6p (G2) are enzymatic; R7
    carries a compound without formula (G3); G4 carries glc (R8) and leu (R9)."""
    ids = ["R1", "R1__rev", "R2", "R3", "R4", "R5", "R6", "R7", "R8", "R9"]
    model = ["R1", "R1", "R2", "R3", "R4", "R5", "R6", "R7", "R8", "R9"]
    genes = [("G1",), ("G1",), ("G2",), ("G1",), (), ("G1",), ("G2",), ("G3",), ("G4",), ("G4",)]
    kinds = ["transport"] * 5 + ["enzymatic"] * 2 + ["transport"] * 3
    subs = {"R1": {"leu"}, "R1__rev": {"leu"}, "R2": {"glc"}, "R3": {"ile"}, "R4": {"val"},
            "R5": {"glc"}, "R6": {"g6p"}, "R7": {"unk"}, "R8": {"glc"}, "R9": {"leu"}}
    prods = {"R1": {"leu"}, "R1__rev": {"leu"}, "R2": {"glc"}, "R3": {"ile"}, "R4": {"val"},
             "R5": {"g6p"}, "R6": {"f6p"}, "R7": {"unk"}, "R8": {"glc"}, "R9": {"leu"}}
    reactions = pd.DataFrame({"reaction_id": model, "genes": genes, "reaction_kind": kinds},
                             index=ids)
    net = ToyNet(reactions, {k: frozenset(v) for k, v in subs.items()},
                 {k: frozenset(v) for k, v in prods.items()}, dict(FORMULAS))
    motifs = {"fork": {}}
    sources = {"loc": pd.DataFrame({"nucleus": [1, 0, 1]}, index=["G1", "G2", "G3"])}
    return net, motifs, sources


def compound(f, x, kind):
    for t, s, sl in f.blocks_:
        if (t, s) == ("candidate", f"compound_{kind}"):
            return x[..., sl]
    raise KeyError(kind)


def test_compound_block_by_hand():
    net, motifs, sources = hand_toy()
    f = PairFeaturizer(net, motifs, sources, reaction_kinds=True, compounds=True)
    assert f.compound_kinds_ == ["enzymatic", "transport"]
    assert f.feature_names_[-4:] == [f"candidate:compound_{k}:{it}" for k in ("enzymatic", "transport")
                                     for it in ("max_similarity", "mean_similarity")]
    assert f.groups_[-1] == f.groups_[-2] == f.groups_[-3] + 1
    sim_val_leu = 6 / 7  # exp(-|log 7 - log 6|): one carbon apart, nothing else
    d = math.sqrt((math.log(7) - math.log(6)) ** 2 + math.log(2) ** 2 + (math.log(7) - math.log(3)) ** 2)
    sim_val_glc = math.exp(-d)
    x = f.transform(["R4"] * 4, ["G1", "G2", "G3", "G9"])
    # G1 carries leu (R1, both directions count once) and ile (R3); R5 is enzymatic
    np.testing.assert_allclose(compound(f, x[0], "transport"), [sim_val_leu, sim_val_leu])
    np.testing.assert_allclose(compound(f, x[1], "transport"), [sim_val_glc, sim_val_glc])
    # G3's only transport carries a compound without formula; G9 catalyses nothing
    assert np.isnan(compound(f, x[2:], "transport")).all()
    # a transport reaction: the enzymatic block is absent for everyone
    assert np.isnan(compound(f, x, "enzymatic")).all()
    # R1 for G1: its own reaction (either direction) is left out: only ile, identical formula
    for r in ("R1", "R1__rev"):
        np.testing.assert_allclose(compound(f, f.transform([r], ["G1"])[0], "transport"), [1.0, 1.0])
    # R3 for G1: leu (1.0) only
    np.testing.assert_allclose(compound(f, f.transform(["R3"], ["G1"])[0], "transport"), [1.0, 1.0])
    # enzymatic R5 (glc -> g6p) for G2: R6 (g6p -> f6p) shares g6p: 1.0; G1 has no other enzymatic
    y = f.transform(["R5", "R5"], ["G2", "G1"])
    np.testing.assert_allclose(compound(f, y[0], "enzymatic"), [1.0, 1.0])
    assert np.isnan(compound(f, y[1], "enzymatic")).all()
    # G4 carries glc (R8) and leu (R9): for R4 (val) the max is leu's, the mean of both
    np.testing.assert_allclose(compound(f, f.transform(["R4"], ["G4"])[0], "transport"),
                               [sim_val_leu, (sim_val_leu + sim_val_glc) / 2])
    assert f.compound_reactions("R4", "G4") == [("R9", pytest.approx(sim_val_leu)),
                                                ("R8", pytest.approx(sim_val_glc))]
    assert f.compound_reactions("R4", "G4", top=1) == [("R9", pytest.approx(sim_val_leu))]
    # R2 (glc) for G1: leu and ile have one formula, so max = mean
    v = compound_vectors(FORMULAS)
    s_glc_leu = math.exp(-np.linalg.norm(v["glc"] - v["leu"]))
    np.testing.assert_allclose(compound(f, f.transform(["R2"], ["G1"])[0], "transport"),
                               [s_glc_leu, s_glc_leu])
    # a reaction whose compounds have no formula: absent for every gene
    assert np.isnan(compound(f, f.transform(["R7"] * 2, ["G1", "G2"]), "transport")).all()
    assert f.compound_reactions("R4", "G1") == [("R1", pytest.approx(sim_val_leu)),
                                                ("R3", pytest.approx(sim_val_leu))]
    assert f.compound_reactions("R4", "G9") == []
    # a network without formulas (iFF708): no compound block at all, the same features as without
    net.formulas = {}
    g = PairFeaturizer(net, motifs, sources, reaction_kinds=True, compounds=True)
    h = PairFeaturizer(net, motifs, sources, reaction_kinds=True)
    assert g.compound_kinds_ == [] and g.feature_names_ == h.feature_names_
    np.testing.assert_array_equal(g.transform(["R4", "R1"], ["G1", "G2"]), h.transform(["R4", "R1"], ["G1", "G2"]))
    net.formulas = dict(FORMULAS)
    # candidate_matrix and transform agree
    genes = ["G1", "G2", "G3", "G4", "G9"]
    for r in net.reactions.index:
        np.testing.assert_array_equal(f.candidate_matrix(r, genes), f.transform([r] * 5, genes))


def test_compound_block_errors():
    net, motifs, sources = hand_toy()
    with pytest.raises(ValueError, match="'compounds' parameter of PairFeaturizer must be a bool"):
        PairFeaturizer(net, motifs, sources, reaction_kinds=True, compounds="yes")
    with pytest.raises(ValueError, match="needs reaction_kinds=True"):
        PairFeaturizer(net, motifs, sources, compounds=True)

    @dataclass
    class NoFormulas:
        reactions: pd.DataFrame

    with pytest.raises(GeomarginInputError, match="no 'formulas'"):
        PairFeaturizer(NoFormulas(net.reactions), motifs, sources, reaction_kinds=True, compounds=True)


def reference_compound(net, r, g, kinds):
    """The compound blocks from their definition, one pair at a time."""
    rx = net.reactions
    v = compound_vectors(net.formulas)

    def about(rr):
        t = characteristic_compounds(net.substrates[rr], net.products[rr], rx.loc[rr, "reaction_kind"])
        return [c for c in sorted(t) if c in v]

    def sim(a, b):
        return max((math.exp(-float(np.linalg.norm(v[x] - v[y]))) for x in a for y in b), default=None)

    out = np.full(2 * len(kinds), np.nan)
    kind = rx.loc[r, "reaction_kind"]
    mine = about(r)
    if kind not in kinds or not mine:
        return out
    own = rx.loc[r, "reaction_id"]
    seen = {}
    for rr in rx.index:  # the first direction of each model reaction stands for it
        m = rx.loc[rr, "reaction_id"]
        if m == own or m in seen or g not in rx.loc[rr, "genes"] or rx.loc[rr, "reaction_kind"] != kind:
            continue
        if about(rr):
            seen[m] = sim(mine, about(rr))
    if seen:
        j = 2 * kinds.index(kind)
        out[j:j + 2] = [max(seen.values()), sum(seen.values()) / len(seen)]
    return out


@pytest.mark.parametrize("seed", range(4))
def test_compound_block_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    keys = list(FORMULAS) + ["etoh", "gly", "h"]
    formulas = {**FORMULAS, "etoh": "C2H6O", "gly": "C2H5NO2", "h": "H"}
    genes = [f"Y{i}" for i in range(6)]
    ids, model, gl, kinds, subs, prods = [], [], [], [], {}, {}
    for i in range(10):
        kind = str(rng.choice(["enzymatic", "transport", "spontaneous"]))
        g = tuple(sorted(rng.choice(genes, size=rng.integers(0, 3), replace=False)))
        s = frozenset(rng.choice(keys, size=rng.integers(1, 3), replace=False))
        p = s if kind == "transport" and rng.random() < 0.7 else \
            frozenset(rng.choice(keys, size=rng.integers(1, 3), replace=False))
        directions = [f"R{i}"] + ([f"R{i}__rev"] if rng.random() < 0.4 else [])
        for d, (a, b) in zip(directions, [(s, p), (p, s)]):
            ids.append(d)
            model.append(f"R{i}")
            gl.append(g)
            kinds.append(kind)
            subs[d], prods[d] = a, b
    reactions = pd.DataFrame({"reaction_id": model, "genes": gl, "reaction_kind": kinds}, index=ids)
    net = ToyNet(reactions, subs, prods, formulas)
    sources = {"loc": pd.DataFrame({"a": [1] * 6}, index=genes)}
    f = PairFeaturizer(net, {"fork": {}}, sources, reaction_kinds=True, compounds=True)
    cand = genes + ["Z1"]
    present = 0
    for r in ids:
        C = f.candidate_matrix(r, cand)
        got = C[:, -2 * len(f.compound_kinds_):] if f.compound_kinds_ else C[:, :0]
        for i, g in enumerate(cand):
            ref = reference_compound(net, r, g, f.compound_kinds_)
            # the featurizer's values lie on the float32 grid (float32_grid): one step apart at most
            np.testing.assert_allclose(got[i], ref, rtol=2.0 ** -23, atol=1e-14, err_msg=f"{r} {g}")
        present += int(np.isfinite(got).any(axis=1).sum())
    assert present >= 5  # the draw exercises the block, not only its absence


def test_compound_evidence_in_the_explanation():
    from geomargin.rank.evidence import candidate_evidence
    net, motifs, sources = hand_toy()
    f = PairFeaturizer(net, motifs, sources, reaction_kinds=True, compounds=True)
    ev = candidate_evidence(f, lambda X: np.nan_to_num(X).sum(axis=1), "R4", "G1", names={},
                            gene_domains={}, gene_compartments={})
    assert ev["similar_compounds"] == "R1(0.86);R3(0.86)"  # 6/7, both carry a leu-like compound
    assert "acts on the most similar compounds in R1 (0.86), R3 (0.86)" in ev["evidence"]
    ev = candidate_evidence(f, lambda X: np.nan_to_num(X).sum(axis=1), "R4", "G9", names={},
                            gene_domains={}, gene_compartments={})
    assert ev["similar_compounds"] == "" and "similar compounds" not in ev["evidence"]


@pytest.mark.parametrize("seed", range(4))
def test_reaction_evidence_is_where_the_blocks_are_present(seed):
    """reaction_evidence names "subsystem" / "compounds" exactly when that
    block is present for some gene of the network, and "motifs" exactly when
    a motif neighbour has a gene (random networks, every reaction)."""
    rng = np.random.default_rng(100 + seed)
    keys = list(FORMULAS) + ["etoh", "h"]
    formulas = {**FORMULAS, "etoh": "C2H6O", "h": "H"}
    genes = [f"Y{i}" for i in range(5)]
    ids, gl, kinds, subsystems, subs, prods = [], [], [], [], {}, {}
    for i in range(12):
        ids.append(f"R{i}")
        gl.append(tuple(sorted(rng.choice(genes, size=rng.integers(0, 3), replace=False))))
        kinds.append(str(rng.choice(["enzymatic", "transport"])))
        subsystems.append(str(rng.choice(["A", "B", "C", ""])))
        subs[f"R{i}"] = frozenset(rng.choice(keys, size=rng.integers(1, 3), replace=False))
        prods[f"R{i}"] = subs[f"R{i}"] if kinds[-1] == "transport" else \
            frozenset(rng.choice(keys, size=rng.integers(1, 3), replace=False))
    reactions = pd.DataFrame({"reaction_id": ids, "genes": gl, "reaction_kind": kinds,
                              "subsystem": subsystems}, index=ids)
    net = ToyNet(reactions, subs, prods, formulas)
    motifs = {"fork": {r: frozenset(str(o) for o in rng.choice(ids, size=rng.integers(0, 3), replace=False)
                                    if o != r) for r in ids}}
    sources = {"loc": pd.DataFrame({"a": [1.0] * 5}, index=genes)}
    f = PairFeaturizer(net, motifs, sources, reaction_kinds=True, subsystems=True, compounds=True)
    assert f.evidence_names_ == ["motifs", "subsystem", "compounds"]
    seen = set()
    for r in ids:
        C = f.candidate_matrix(r, genes)
        present = {name for t, name, sl in f.blocks_ if t == "candidate" and np.isfinite(C[:, sl]).any()}
        expected = []
        own = set(reactions.at[r, "genes"])
        if any(set(reactions.at[o, "genes"]) - own for o in motifs["fork"][r]):
            expected.append("motifs")
        if "subsystem" in present:
            expected.append("subsystem")
        if any(name.startswith("compound_") for name in present):
            expected.append("compounds")
        assert f.reaction_evidence(r) == expected, r
        seen.update(expected)
    assert seen == {"motifs", "subsystem", "compounds"}  # the draw exercises every kind
