"""The hand-computed toy network of the pair-feature tests: four reactions,
five genes, three sources (expression, domains, localization). Shared by the
featurizer, bundle, evidence and ranking tests; nothing here is real data."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass
class ToyNet:
    reactions: pd.DataFrame


def toy():
    reactions = pd.DataFrame(
        {"reaction_id": ["R1", "R2", "R3", "R4"],
         "genes": [("G1",), ("G2",), ("G1", "G3"), ()]},
        index=["R1", "R2", "R3", "R4"])
    motifs = {
        "fork": {"R1": frozenset({"R2", "R3"}), "R2": frozenset({"R1"}),
                 "R3": frozenset({"R1"})},
        "funnel": {"R4": frozenset({"R2"}), "R2": frozenset({"R4"})},
        "chain_up": {"R4": frozenset({"R1"}), "R2": frozenset({"R3"})},
        "chain_down": {"R1": frozenset({"R4"}), "R3": frozenset({"R2"})},
    }
    expr = pd.DataFrame([[1, 2, 3], [2, 0, np.nan], [0, 0, 3], [4, 2, 0]],
                        index=["G1", "G2", "G3", "G5"], columns=["c0", "c1", "c2"], dtype=float)
    dom = pd.DataFrame([[1, 1, 0], [1, 0, 0], [0, 1, 1], [1, 0, 1]],
                       index=["G1", "G2", "G3", "G5"], columns=["D1", "D2", "D3"])
    loc = pd.DataFrame([[1, 0], [1, 1], [0, 1], [0, 0], [1, 0]],
                       index=["G1", "G2", "G3", "G4", "G5"], columns=["nucleus", "cytoplasm"])
    return ToyNet(reactions), motifs, {"expr": expr, "domain": dom, "loc": loc}


def kinds_toy() -> tuple[ToyNet, pd.DataFrame]:
    """A network of reaction kinds and a domain table: G1 transports in R1,
    G2 in R2, G3 is an enzyme (R3), R4 is an orphan transport; domains G1
    {D1, D2}, G2 {D1}, G3 {D2}, G5 {D1, D2}, G6 none."""
    net = ToyNet(pd.DataFrame(
        {"reaction_id": ["R1", "R2", "R3", "R4"], "genes": [("G1",), ("G2",), ("G3",), ()],
         "reaction_kind": ["transport", "transport", "enzymatic", "transport"]},
        index=["R1", "R2", "R3", "R4"]))
    dom = pd.DataFrame([[1, 1], [1, 0], [0, 1], [1, 1], [0, 0]],
                       index=["G1", "G2", "G3", "G5", "G6"], columns=["D1", "D2"])
    return net, dom


HOMOLOGY_GENES = ["G1", "G2", "G3", "G4", "G6", "G7"]


@dataclass
class CompoundNet:
    reactions: pd.DataFrame
    formulas: dict
    substrates: dict
    products: dict


def homology_toy():
    """R1, R2 transport x and y (G1, G2), R3 converts x to z (G1, G3), R4 is
    an orphan transport of x, R5 converts z to y (G4); R1, R2, R4, R5 are
    of subsystem A, R3 of B. R4's motif neighbour is R1, R3's is R2."""
    ids = ["R1", "R2", "R3", "R4", "R5"]
    reactions = pd.DataFrame({
        "reaction_id": ids, "name": ["x transport", "y transport", "x to z", "x transport 2", "z to y"],
        "genes": [("G1",), ("G2",), ("G1", "G3"), (), ("G4",)],
        "reaction_kind": ["transport", "transport", "enzymatic", "transport", "enzymatic"],
        "subsystem": ["A", "A", "B", "A", "A"], "equation": "a -> b", "ec_numbers": "",
        "named_diffusion": False}, index=ids)
    formulas = {"x": "C6H12O6", "y": "C5H10O5", "z": "C3H6O3"}
    subs = {"R1": frozenset("x"), "R2": frozenset("y"), "R3": frozenset("x"), "R4": frozenset("x"),
            "R5": frozenset("z")}
    prods = {"R1": frozenset("x"), "R2": frozenset("y"), "R3": frozenset("z"), "R4": frozenset("x"),
             "R5": frozenset("y")}
    motifs = {"fork": {"R4": frozenset({"R1"}), "R1": frozenset({"R4"})},
              "funnel": {"R3": frozenset({"R2"}), "R2": frozenset({"R3"})}}
    loc = pd.DataFrame({"nucleus": [1, 0, 1, 0, 1, 0]}, index=HOMOLOGY_GENES, dtype=float)
    return CompoundNet(reactions, formulas, subs, prods), motifs, {"loc": loc}


def homology_hits(**changed):
    """Self-scores G1 100, G2 200, G3 50, G4 80; s(G6, G1) = 0.4,
    s(G6, G2) = 0.5, s(G6, G4) = 0.1, s(G2, G1) = 0.2, s(G1, G2) = 0.15,
    s(G6, G3) = 0.9. G7 has no sequence."""
    bits = {("G1", "G1"): 100, ("G2", "G2"): 200, ("G3", "G3"): 50, ("G4", "G4"): 80,
            ("G1", "G6"): 40, ("G2", "G6"): 100, ("G4", "G6"): 8, ("G1", "G2"): 20, ("G2", "G1"): 30,
            ("G3", "G6"): 45}
    bits.update({tuple(k.split("_")): v for k, v in changed.items()})
    rows = [(q, t, float(b), 1e-30) for (q, t), b in sorted(bits.items())]
    table = pd.DataFrame(rows, columns=["query", "target", "bits", "evalue"])
    from geomargin.featurize.metabolic.homology import Homology

    return Homology(table, frozenset({"G1", "G2", "G3", "G4", "G6"}))


def homology_featurizers():
    """The homology toy's network and two featurizers of it: with the
    homology block (the hits of :func:`homology_hits`) and without it."""
    from geomargin.featurize.metabolic.pairs import PairFeaturizer

    net, motifs, sources = homology_toy()
    return (net, PairFeaturizer(net, motifs, sources, adjacency=False, homology=homology_hits()),
            PairFeaturizer(net, motifs, sources, adjacency=False))
