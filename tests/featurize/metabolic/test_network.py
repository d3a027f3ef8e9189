"""Tests for featurize.metabolic.network: the directed network (toy model, iFF708, iMM904)."""

from __future__ import annotations

import pytest

from geomargin.featurize.metabolic.metabolites import metabolite_keys
from geomargin.featurize.metabolic.model_io import load_model
from geomargin.featurize.metabolic.network import build_directed_network
from fixtures.toy_network import toy_model

# hand-computed from the reaction list in tests/fixtures/toy_network.py
TOY_DIRECTED = ["T_A", "R1", "R2", "R2__rev", "R3__rev", "R4a", "R5"]
TOY_SUBSTRATES = {"T_A": {"A"}, "R1": {"A"}, "R2": {"B"}, "R2__rev": {"C"}, "R3__rev": {"D"},
                  "R4a": {"D"}, "R5": {"B"}}
TOY_PRODUCTS = {"T_A": {"A"}, "R1": {"B"}, "R2": {"C"}, "R2__rev": {"B"}, "R3__rev": {"C"},
                "R4a": set(), "R5": {"D"}}
TOY_DEGREE = {"A": 2, "B": 4, "C": 3, "D": 3, "E": 1, "atp": 6, "adp": 6}


def test_toy_directed_network_hand_computed():
    net = build_directed_network(toy_model(), n_currency=2, extra_currency=("E",))
    assert list(net.reactions.index) == TOY_DIRECTED
    assert net.dropped == {"boundary": ("EX_A", "DM_E"), "biomass": ("OBJ",), "empty": ()}
    assert net.merged == {"R4a": ("R4a", "R4b")} and net.n_merged == 1
    assert net.degree == TOY_DEGREE
    assert net.currency == ("adp", "atp", "E")  # tie at degree 6 broken by key, then the extra one
    assert {k: set(v) for k, v in net.substrates.items()} == TOY_SUBSTRATES
    assert {k: set(v) for k, v in net.products.items()} == TOY_PRODUCTS
    df = net.reactions
    assert df.loc["R3__rev", "equation"] == "D + ADP -> C + ATP"  # irreversible-backward: reversed
    assert df.loc["R3__rev", "reaction_id"] == "R3" and df.loc["R3__rev", "direction"] == "reverse"
    assert df.loc["R2__rev", "equation"] == "C + ADP -> B + ATP"
    assert df.loc["T_A", "equation"] == "A [extracellular] -> A [cytosol]"
    assert df.loc["R4a", "genes"] == ("g4a", "g4b")
    assert df.loc["R4a", "ec_numbers"] == "2.7.1.9;2.7.1.10"
    assert df.loc["R4a", "model_reactions"] == "R4a;R4b"
    assert df.loc["T_A", "genes"] == () and df.loc["R1", "ec_numbers"] == "2.7.1.1"
    # the compartments of a reaction's metabolites, as the model names them
    assert df.loc["T_A", "compartments"] == "cytosol;extracellular"
    assert df.loc["R1", "compartments"] == "cytosol"


def test_formulas_by_compartment_free_key():
    m = toy_model()
    assert build_directed_network(m, n_currency=0).formulas == {}  # the toy has no formulas
    # A in two compartments: the first by metabolite id (A_c) gives the key's formula
    m.metabolites.get_by_id("A_e").formula = "C6H12O6X"
    m.metabolites.get_by_id("A_c").formula = "C6H12O6"
    m.metabolites.get_by_id("B_c").formula = " C6H11O9P "
    m.metabolites.get_by_id("C_c").formula = ""
    assert build_directed_network(m, n_currency=0).formulas == {"A": "C6H12O6", "B": "C6H11O9P"}


def test_toy_no_merge_no_currency():
    net = build_directed_network(toy_model(), n_currency=0, merge_isozymes=False)
    assert list(net.reactions.index) == TOY_DIRECTED[:-1] + ["R4b", "R5"]
    assert net.currency == () and net.n_merged == 0
    assert set(net.substrates["R1"]) == {"A", "atp"} and set(net.products["R4b"]) == {"E", "adp"}


@pytest.mark.parametrize("n_currency, extra", [(7, ()), (100, ()), (5, ("A", "E"))])
def test_every_metabolite_currency_names_the_key(n_currency, extra):
    """Not the later, misleading "contributes no usable feature" of a data source."""
    from geomargin.common.exceptions import ConfigValueError

    with pytest.raises(ConfigValueError) as err:
        build_directed_network(toy_model(), n_currency=n_currency, extra_currency=extra)
    assert str(err.value) == (
        f"metabolic.n_currency is {n_currency}" + (" (with 2 metabolic.extra_currency)" if extra else "")
        + ": every one of the network's 7 metabolites became currency, so no reaction keeps a substrate or "
        "product; expected fewer than 7 currency metabolites (yeast networks use about 14)")
    assert build_directed_network(toy_model(), n_currency=6).currency == ("adp", "atp", "B", "C", "D", "A")


def test_biomass_by_name_and_bad_parameter():
    m = toy_model()
    m.objective = "R5"  # R5 is dropped as the objective, OBJ only by its name
    m.reactions.OBJ.name = "Biomass production"
    net = build_directed_network(m, n_currency=0)
    assert set(net.dropped["biomass"]) == {"OBJ", "R5"}
    with pytest.raises(ValueError, match="'n_currency' parameter of build_directed_network must be an int >= 0. Got -1"):
        build_directed_network(m, n_currency=-1)


# ------------------------------------------------------------------ real data
def test_iff708_directed_network(iff708):
    net = build_directed_network(iff708)
    assert set(net.dropped["biomass"]) == {"R_GROWTH", "R_VGRO"}
    assert len(net.dropped["boundary"]) == 210  # 105 uptake + 105 excretion
    assert {"ATP", "ADP", "NADH", "NAD(+)", "H(+)"} <= set(net.currency) and len(net.currency) == 14
    # independent count: forward + backward directions over the merged reactions
    nonboundary = [r for r in iff708.reactions if r.id not in set(net.dropped["boundary"]) | set(net.dropped["biomass"])]
    groups = {}
    for r in nonboundary:
        groups.setdefault(frozenset((m.id, c) for m, c in r.metabolites.items()), []).append(r)
    expected = sum((min(x.lower_bound for x in g) < 0) + (max(x.upper_bound for x in g) > 0) for g in groups.values())
    assert len(net.reactions) == expected
    assert net.n_merged == len(nonboundary) - len(groups)
    row = net.reactions.loc["R_GLK1_1"]
    assert row["genes"] == ("YCL040W", "YFR053C", "YGL253W")  # merged with hexokinases HXK1/HXK2
    assert "ATP" in row["equation"] and " -> " in row["equation"]


def test_imm904_directed_network(mirror):
    m = load_model(mirror / "yeast/network/iMM904.json")
    net = build_directed_network(m)
    assert net.dropped["biomass"] == ("BIOMASS_SC5_notrace",)
    assert len(net.dropped["boundary"]) == len(m.boundary) == 164
    assert {"h", "h2o", "atp", "adp", "pi", "nad", "nadh"} <= set(net.currency)
    # compartment-free keys: glucose in cytosol and outside is one key
    keys = metabolite_keys(m)
    assert keys["glc__D_c"] == keys["glc__D_e"] == "glc__D"
    assert net.n_merged == sum(len(v) - 1 for v in net.merged.values())
    assert all(" -> " in e for e in net.reactions["equation"])


def test_names_carrying_their_compartment_print_it_once():
    """yeast-GEM names its metabolites 'ATP [cytoplasm]': an equation spanning
    compartments names each compartment once, not 'ATP [cytoplasm] [cytoplasm]'."""
    import cobra

    m = cobra.Model("tags")
    m.compartments = {"c": "cytoplasm", "e": "extracellular"}
    a_e = cobra.Metabolite("s_1_e", name="glucose [extracellular]", compartment="e")
    a_c = cobra.Metabolite("s_1_c", name="glucose [cytoplasm]", compartment="c")
    b_c = cobra.Metabolite("s_2_c", name="glucose 6-phosphate [cytoplasm]", compartment="c")
    t = cobra.Reaction("T1", lower_bound=0, upper_bound=1000)
    r = cobra.Reaction("R1", lower_bound=0, upper_bound=1000)
    m.add_reactions([t, r])
    t.add_metabolites({a_e: -1, a_c: 1})
    r.add_metabolites({a_c: -1, b_c: 1})
    t.gene_reaction_rule, r.gene_reaction_rule = "YAL001C", "YAL002W"
    eq = build_directed_network(m, n_currency=0).reactions["equation"]
    assert eq["T1"] == "glucose [extracellular] -> glucose [cytoplasm]"
    assert eq["R1"] == "glucose -> glucose 6-phosphate"
    comps = build_directed_network(m, n_currency=0).reactions["compartments"]
    assert comps["T1"] == "cytoplasm;extracellular" and comps["R1"] == "cytoplasm"
