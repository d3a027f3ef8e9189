"""Tests for featurize.metabolic.motifs: the paper's Fig. 3 fragment, the toy network, real iFF708."""

from __future__ import annotations

import random

import cobra

from geomargin.featurize.metabolic.model_io import load_model
from geomargin.featurize.metabolic.motifs import MOTIF_TYPES, find_motifs
from geomargin.featurize.metabolic.network import build_directed_network
from fixtures.toy_network import toy_model


def _brute_force(net):
    """Independent O(n^2) definition, for checking the sparse implementation."""
    out = {t: {} for t in MOTIF_TYPES}
    ids = list(net.reactions.index)
    rid = net.reactions["reaction_id"]
    for r in ids:
        others = [o for o in ids if rid[o] != rid[r]]
        S, P = net.substrates, net.products
        out["fork"][r] = frozenset(o for o in others if S[r] & S[o])
        out["funnel"][r] = frozenset(o for o in others if P[r] & P[o])
        out["chain_down"][r] = frozenset(o for o in others if P[r] & S[o])
        out["chain_up"][r] = frozenset(o for o in others if P[o] & S[r])
    return out


def fig3_model() -> cobra.Model:
    """Chechik et al. Fig. 3: aromatic amino acid branch point at chorismate."""
    m = cobra.Model("fig3")
    names = {"chor": "chorismate", "pphn": "prephenate", "phpyr": "phenylpyruvate", "anth": "anthranilate",
             "gln__L": "L-glutamine", "glu__L": "L-glutamate", "pyr": "pyruvate", "co2": "CO2",
             "h2o": "H2O", "phe__L": "L-phenylalanine", "akg": "2-oxoglutarate"}
    met = {k: cobra.Metabolite(f"{k}_c", name=v, compartment="c") for k, v in names.items()}
    spec = {
        "ARO7": ({"chor": -1, "pphn": 1}, (0, 1000), "YPR060C"),
        "PHA2": ({"pphn": -1, "phpyr": 1, "co2": 1, "h2o": 1}, (0, 1000), "YNL316C"),
        "TRP2": ({"chor": -1, "gln__L": -1, "anth": 1, "pyr": 1, "glu__L": 1}, (0, 1000), "YER090W"),
        # transamination written phenylpyruvate-consuming but running backwards only:
        # phenylpyruvate + glutamate <- phenylalanine + 2-oxoglutarate, so ARO9 produces phenylpyruvate
        "ARO9": ({"phpyr": -1, "glu__L": -1, "phe__L": 1, "akg": 1}, (-1000, 0), "YHR137W"),
    }
    rx = {k: cobra.Reaction(k, name=k, lower_bound=b[0], upper_bound=b[1]) for k, (_, b, _) in spec.items()}
    m.add_reactions(list(rx.values()))
    for k, (st, _, gene) in spec.items():
        rx[k].add_metabolites({met[x]: c for x, c in st.items()})
        rx[k].gene_reaction_rule = gene
    return m


def test_fig3_fragment():
    net = build_directed_network(fig3_model(), n_currency=0, extra_currency=("glu__L", "co2", "h2o"))
    assert list(net.reactions.index) == ["ARO7", "PHA2", "TRP2", "ARO9__rev"]
    assert "phpyr" in net.products["ARO9__rev"]
    mo = find_motifs(net)
    assert "PHA2" in mo["chain_down"]["ARO7"] and "ARO7" in mo["chain_up"]["PHA2"]
    assert "TRP2" in mo["fork"]["ARO7"] and "ARO7" in mo["fork"]["TRP2"]
    assert "ARO9__rev" in mo["funnel"]["PHA2"] and "PHA2" in mo["funnel"]["ARO9__rev"]
    assert mo["fork"]["PHA2"] == frozenset()
    # and nothing else: full expected table
    assert mo == {
        "fork": {"ARO7": {"TRP2"}, "PHA2": set(), "TRP2": {"ARO7"}, "ARO9__rev": set()},
        "funnel": {"ARO7": set(), "PHA2": {"ARO9__rev"}, "TRP2": set(), "ARO9__rev": {"PHA2"}},
        "chain_down": {"ARO7": {"PHA2"}, "PHA2": set(), "TRP2": set(), "ARO9__rev": set()},
        "chain_up": {"ARO7": set(), "PHA2": {"ARO7"}, "TRP2": set(), "ARO9__rev": set()},
    }


def test_fig3_glutamate_not_currency_links_trp2_and_aro9():
    net = build_directed_network(fig3_model(), n_currency=0)
    mo = find_motifs(net)
    assert mo["funnel"]["TRP2"] == {"ARO9__rev"}  # both produce glutamate


def test_toy_network_hand_computed():
    net = build_directed_network(toy_model(), n_currency=2, extra_currency=("E",))
    mo = find_motifs(net)
    expected = {
        "fork": {"T_A": {"R1"}, "R1": {"T_A"}, "R2": {"R5"}, "R5": {"R2"}, "R2__rev": set(),
                 "R3__rev": {"R4a"}, "R4a": {"R3__rev"}},
        "funnel": {"T_A": set(), "R1": {"R2__rev"}, "R2__rev": {"R1"}, "R2": {"R3__rev"}, "R3__rev": {"R2"},
                   "R4a": set(), "R5": set()},
        # T_A -> T_A (A to A) is not a self-chain; R2 -> R2__rev is its own reverse: excluded
        "chain_down": {"T_A": {"R1"}, "R1": {"R2", "R5"}, "R2": set(), "R2__rev": {"R5"},
                       "R3__rev": {"R2__rev"}, "R4a": set(), "R5": {"R3__rev", "R4a"}},
        "chain_up": {"T_A": set(), "R1": {"T_A"}, "R2": {"R1"}, "R2__rev": {"R3__rev"}, "R3__rev": {"R5"},
                     "R4a": {"R5"}, "R5": {"R1", "R2__rev"}},
    }
    assert mo == expected
    assert all(isinstance(v, frozenset) for t in mo.values() for v in t.values())


def test_empty_network():
    net = build_directed_network(cobra.Model("empty"))
    assert find_motifs(net) == {t: {} for t in MOTIF_TYPES}


def test_iff708_matches_brute_force(mirror):
    net = build_directed_network(load_model(mirror / "yeast/network/iFF708.xml"))
    mo = find_motifs(net)
    brute = _brute_force(net)
    sample = random.Random(0).sample(list(net.reactions.index), 200)
    for t in MOTIF_TYPES:
        assert set(mo[t]) == set(net.reactions.index)
        for r in sample:
            assert mo[t][r] == brute[t][r], (t, r)
    # chain_up is the transpose of chain_down
    pairs_down = {(r, o) for r, s in mo["chain_down"].items() for o in s}
    pairs_up = {(o, r) for r, s in mo["chain_up"].items() for o in s}
    assert pairs_down == pairs_up and pairs_down
