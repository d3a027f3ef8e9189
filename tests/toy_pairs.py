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
