"""Tests for featurize.metabolic.metabolites: compartment-free metabolite keys in every
id style and from every file of one release."""

from __future__ import annotations

import cobra
import pytest

from geomargin.featurize.metabolic.metabolites import metabolite_keys
from geomargin.featurize.metabolic.model_io import load_model
from geomargin.featurize.metabolic.motifs import find_motifs
from geomargin.featurize.metabolic.network import build_directed_network


def test_name_based_keys_strip_compartment_tags():
    m = cobra.Model("x")
    m.compartments = {"C_1": "Mitochondrion", "C_2": "Cytoplasm"}
    m.add_metabolites([cobra.Metabolite("M_1", name="ATP", compartment="C_1"),
                       cobra.Metabolite("M_2", name="ATP", compartment="C_2"),
                       cobra.Metabolite("M_3", name="NADH [Cytoplasm]", compartment="C_2"),
                       cobra.Metabolite("M_4", name="", compartment="C_2")])
    assert metabolite_keys(m) == {"M_1": "ATP", "M_2": "ATP", "M_3": "NADH", "M_4": "M_4"}


def _styled_model(style: str) -> cobra.Model:
    """A glucose uptake and hexokinase step written in one id style: the
    same compound must get one key in both compartments in every style."""
    comps = {"c": "cytoplasm", "e": "extracellular"}
    compounds = [("glc__D", "D-glucose", "CHEBI:4167"), ("g6p", "D-glucose 6-phosphate", "CHEBI:4170"),
                 ("atp", "ATP", "CHEBI:30616"), ("adp", "ADP", "CHEBI:456216")]
    m = cobra.Model(style)
    mets, n = {}, 0
    for base, name, chebi in compounds:
        for c in ("c", "e") if base == "glc__D" else ("c",):
            n += 1
            mid = {"bigg": f"{base}_{c}", "bracket": f"{base}[{c}]", "escaped": f"{base}__91__{c}__93__",
                   "field": f"s_{n:04d}", "raven": f"s_{n:04d}[{c}]"}[style]
            label = f"{name} [{comps[c]}]" if style == "raven" else name
            met = cobra.Metabolite(mid, name=label, compartment=c)
            if style in ("field", "raven"):
                met.annotation["chebi"] = chebi
            mets[base, c] = met
    m.add_metabolites(list(mets.values()))
    m.compartments = comps
    up = cobra.Reaction("GLCt", lower_bound=0, upper_bound=1000)
    hex1 = cobra.Reaction("HEX1", lower_bound=0, upper_bound=1000)
    m.add_reactions([up, hex1])
    up.add_metabolites({mets["glc__D", "e"]: -1, mets["glc__D", "c"]: 1})
    hex1.add_metabolites({mets["glc__D", "c"]: -1, mets["atp", "c"]: -1, mets["g6p", "c"]: 1, mets["adp", "c"]: 1})
    up.gene_reaction_rule, hex1.gene_reaction_rule = "HXT1", "HXK1"
    return m


@pytest.mark.parametrize("style", ["bigg", "bracket", "escaped", "field", "raven"])
def test_every_id_style_gives_one_key_per_compound(style):
    m = _styled_model(style)
    keys = metabolite_keys(m)
    by_base = {}
    for met in m.metabolites:
        by_base.setdefault(met.name.split(" [")[0], set()).add(keys[met.id])
    assert all(len(v) == 1 for v in by_base.values()), by_base
    assert len({next(iter(v)) for v in by_base.values()}) == 4
    net = build_directed_network(m, n_currency=0)
    assert dict(net.reactions["reaction_kind"]) == {"GLCt": "transport", "HEX1": "enzymatic"}
    assert find_motifs(net)["chain_down"]["GLCt"] == frozenset({"HEX1"})
    # BiGG-style ids name the compound; the other styles are keyed by name
    glucose = keys[next(x.id for x in m.metabolites if x.compartment == "e")]
    assert glucose == ("glc__D" if style in ("bigg", "bracket", "escaped") else "D-glucose")


def test_annotation_class_shared_within_a_compartment_does_not_merge():
    """A ChEBI id that two lipid species of one compartment share is a class,
    not an identity: it must not join them (or their copies elsewhere)."""
    m = cobra.Model("lipids")
    m.compartments = {"c": "cytoplasm", "m": "mitochondrion"}
    mets = [cobra.Metabolite("s_1", name="PC (16:0)", compartment="c"),
            cobra.Metabolite("s_2", name="PC (18:1)", compartment="c"),
            cobra.Metabolite("s_3", name="PC (16:0)", compartment="m")]
    for x in mets:
        x.annotation["chebi"] = "CHEBI:64482"
    m.add_metabolites(mets)
    keys = metabolite_keys(m)
    assert keys["s_1"] == keys["s_3"] == "PC (16:0)" and keys["s_2"] == "PC (18:1)"


def test_annotations_link_copies_whose_names_differ():
    m = cobra.Model("x")
    m.compartments = {"c": "cytoplasm", "e": "extracellular"}
    a = cobra.Metabolite("s_1", name="glucose", compartment="c")
    b = cobra.Metabolite("s_2", name="D-glucose", compartment="e")
    for x in (a, b):
        x.annotation["metanetx.chemical"] = "MNXM41"
    m.add_metabolites([a, b])
    keys = metabolite_keys(m)
    assert keys["s_1"] == keys["s_2"]


def test_one_release_same_network_from_mat_and_yaml(mirror):
    """yeast-GEM 8.3.0 ships a RAVEN .mat (ids s_0001[ce]) and a RAVEN YAML
    (ids s_0001, compartment as a field): the same directed network, kinds,
    currency and motifs from both."""
    mat = load_model(mirror / "yeast/network/yeastGEM-8.3.0.mat")
    yml = load_model(mirror / "yeast/network/yeastGEM-8.3.0.yml")
    km, ky = metabolite_keys(mat), metabolite_keys(yml)
    assert {mid.split("[")[0]: k for mid, k in km.items()} == ky
    nm, ny = build_directed_network(mat), build_directed_network(yml)
    assert nm.currency == ny.currency
    # (the two files list some reactions in another order)
    cols = ["reaction_kind", "genes", "direction", "subsystem", "ec_numbers"]
    assert nm.reactions[cols].sort_index().equals(ny.reactions[cols].sort_index())
    assert nm.substrates == ny.substrates and nm.products == ny.products
    assert find_motifs(nm) == find_motifs(ny)
    # copies of a compound are one key: transports are transports
    assert (nm.reactions["reaction_kind"] == "transport").sum() > 1000
    # RAVEN's names carry their compartment: equations print it once. (The
    # YAML rounds the SLIME reactions' coefficients to 5 digits; the .mat does not.)
    real = nm.reactions.index[nm.reactions["reaction_kind"] != "pseudo"]
    assert nm.reactions.loc[real, "equation"].equals(ny.reactions.loc[real, "equation"])
    assert nm.reactions.loc["r_1097", "equation"] == \
        "(R,R)-2,3-butanediol [cytoplasm] -> (R,R)-2,3-butanediol [extracellular]"
