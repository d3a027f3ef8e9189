"""Tests for featurize.metabolic.metabolites: compartment-free metabolite keys."""

from __future__ import annotations

import cobra

from featurize.metabolic.metabolites import metabolite_keys


def test_name_based_keys_strip_compartment_tags():
    m = cobra.Model("x")
    m.compartments = {"C_1": "Mitochondrion", "C_2": "Cytoplasm"}
    m.add_metabolites([cobra.Metabolite("M_1", name="ATP", compartment="C_1"),
                       cobra.Metabolite("M_2", name="ATP", compartment="C_2"),
                       cobra.Metabolite("M_3", name="NADH [Cytoplasm]", compartment="C_2"),
                       cobra.Metabolite("M_4", name="", compartment="C_2")])
    assert metabolite_keys(m) == {"M_1": "ATP", "M_2": "ATP", "M_3": "NADH", "M_4": "M_4"}
