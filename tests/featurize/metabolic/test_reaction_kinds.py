"""Tests for featurize.metabolic.reaction_kinds on real reactions of iMM904 and iFF708
(expected kinds read by hand from the reactions' names and equations)."""

from __future__ import annotations

import cobra
import pytest

from geomargin.featurize.metabolic.metabolites import metabolite_keys
from geomargin.featurize.metabolic.network import build_directed_network
from geomargin.featurize.metabolic.reaction_kinds import reaction_kind, reaction_kinds


@pytest.mark.parametrize("rid, expected", [
    # sbt__D_e <=> sbt__D_c, "D sorbitol transport via passive diffusion"
    ("SBT_Dt", ("transport", True)),
    # glc__D_e --> glc__D_c, "Glucose transport uniport" (has 17 genes)
    ("GLCt1", ("transport", False)),
    # CO2 mitochondrial diffusion
    ("CO2tm", ("transport", True)),
    # 2aobut_c + h_c --> aact_c + co2_c, "(spontaneous)"
    ("AOBUTDs", ("spontaneous", False)),
    # "Non enzymatic reaction" (oxaloglutarate -> 2-oxoadipate + CO2, mitochondrial)
    ("OXAGm", ("spontaneous", False)),
    # "... spontaneous conversion to L 4 Hydroxyglutamate semialdehyde mitochondrial"
    ("PHCHGSm", ("spontaneous", False)),
    # hexokinase: atp_c + glc__D_c --> adp_c + g6p_c + h_c
    ("HEX1", ("enzymatic", False)),
    # ATP synthase moves protons from c to m: the same compound on both sides
    ("ATPS3m", ("transport", False)),
])
def test_imm904_kinds(imm904, rid, expected):
    keys = metabolite_keys(imm904)
    assert reaction_kind(imm904.reactions.get_by_id(rid), keys) == expected


def test_imm904_structure_alone_makes_a_transport(imm904):
    """Without its S_Transport__Extracellular subsystem, SBT_Dt is still a
    transport (sorbitol on both sides, e vs c); an enzymatic reaction put in
    a transport subsystem becomes one because the model says so."""
    keys = metabolite_keys(imm904)
    r = imm904.reactions.get_by_id("SBT_Dt").copy()
    r.subsystem = ""
    assert reaction_kind(r, keys) == ("transport", True)
    h = imm904.reactions.get_by_id("HEX1").copy()
    h.subsystem = "S_Transport__Mitochondrial"
    assert reaction_kind(h, keys)[0] == "transport"


@pytest.mark.parametrize("rid, expected", [
    ("R_U50_", ("spontaneous", False)),     # "Non-enzymatic reaction"
    ("R_U66_", ("spontaneous", False)),     # "Spontaneous conversion"
    ("R_GLK1_1", ("enzymatic", False)),     # glucokinase
    ("R_U109_", ("transport", False)),      # "Transport of O2, mitochondrial", same name both sides
    # glutamate/H+ symport: the compound has different names in the two
    # compartments (L-glutamate / glutamate), so only SBO:0000185 says transport
    ("R_U134_", ("transport", False)),
])
def test_iff708_kinds(iff708, rid, expected):
    keys = metabolite_keys(iff708)
    r = iff708.reactions.get_by_id(rid)
    assert reaction_kind(r, keys) == expected
    if rid == "R_U134_":
        plain = r.copy()
        plain.annotation.pop("sbo")
        assert reaction_kind(plain, keys)[0] == "enzymatic"


def test_directed_network_columns_both_models(imm904, iff708):
    net = build_directed_network(imm904)
    df = net.reactions
    assert df.loc["SBT_Dt", "reaction_kind"] == "transport" and df.loc["SBT_Dt", "named_diffusion"]
    assert df.loc["SBT_Dt__rev", "reaction_kind"] == "transport"
    assert df.loc["AOBUTDs", "subsystem"] == "S_Threonine_and_Lysine_Metabolism"
    assert (df["subsystem"] != "").all()      # iMM904 gives every reaction a subsystem
    assert (df["ec_numbers"] == "").all()     # and no EC number
    assert set(df["reaction_kind"]) == {"enzymatic", "transport", "spontaneous", "pseudo"}
    assert list(df.index[df["reaction_kind"] == "pseudo"]) == ["ATPM"]   # ATP maintenance
    # iFF708: EC numbers from MIRIAM ec-code annotations, no subsystems
    df = build_directed_network(iff708).reactions
    # glucokinase merged with the hexokinases of identical stoichiometry
    assert df.loc["R_GLK1_1", "ec_numbers"] == "2.7.1.2;2.7.1.1"
    assert (df["subsystem"] == "").all()
    assert df.loc["R_U50_", "reaction_kind"] == "spontaneous"
    kinds = reaction_kinds(iff708)
    assert kinds["R_U134_"] == ("transport", False)


def test_text_in_notes_counts():
    m = cobra.Model("m")
    a = cobra.Metabolite("a_c", name="A", compartment="c")
    b = cobra.Metabolite("b_c", name="B", compartment="c")
    r = cobra.Reaction("R", name="A to B")
    m.add_reactions([r])
    r.add_metabolites({a: -1, b: 1})
    assert reaction_kind(r) == ("enzymatic", False)
    r.notes = {"comment": ["occurs non-enzymatically? no: Nonenzymatic at pH 7"]}
    assert reaction_kind(r) == ("spontaneous", False)
    r.annotation["sbo"] = "SBO:0000185"
    assert reaction_kind(r) == ("transport", False)


def test_pseudo_kind_on_real_reactions(imm904, yeast_gem_902):
    keys = metabolite_keys(imm904)
    # "ATP maintenance requirement": bookkeeping, no enzyme
    assert reaction_kind(imm904.reactions.get_by_id("ATPM"), keys)[0] == "pseudo"
    # a lumped enzyme chain with genes (FAS1/FAS2) keeps its kind
    assert reaction_kind(imm904.reactions.get_by_id("FAS80_L"), keys)[0] == "enzymatic"
    kinds = reaction_kinds(yeast_gem_902)
    expected = {
        "r_4041": "pseudo",       # biomass pseudoreaction (SBO:0000629)
        "r_4046": "pseudo",       # non-growth associated maintenance reaction (SBO:0000630)
        "r_4047": "pseudo",       # protein pseudoreaction (SBO:0000395)
        "r_1449": "pseudo",       # inositol-P-ceramide B' (C24) [Golgi] SLIME rxn
        "r_1097": "transport",    # (R,R)-butanediol transport, s_0035 <=> s_0036
        "r_1008": "spontaneous",  # spontaneous cis-aconitate(3-) to trans-aconitate
        "r_0029": "enzymatic",    # 2-oxo-4-methyl-3-carboxypentanoate decarboxylation
    }
    assert {r: kinds[r][0] for r in expected} == expected
    orphans = [r for r in yeast_gem_902.reactions if not r.genes and r not in yeast_gem_902.boundary]
    pseudo = [r for r in orphans if kinds[r.id][0] == "pseudo"]
    # the release's 186 SLIME reactions, its 10 pseudoreactions and its maintenance reaction
    assert sum("SLIME rxn" in r.name for r in pseudo) == 186
    assert sum("pseudoreaction" in r.name for r in pseudo) == 10
    assert len(pseudo) == 186 + 10 + 1
    # no reaction with a gene is pseudo
    assert not [r.id for r in yeast_gem_902.reactions if r.genes and kinds[r.id][0] == "pseudo"]
