"""The ``site`` block: the name mapping, by hand on a toy network, against a
brute-force count on random data, and its refusals."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from geomargin.common.exceptions import GeomarginInputError
from geomargin.featurize.metabolic.pairs import PairFeaturizer
from geomargin.featurize.metabolic.pairs.site import GO_SITE_TERMS, SITES, site_of
from toy_pairs import ToyNet

MOTIFS = {t: {} for t in ("fork", "funnel", "chain_up", "chain_down")}


def block(f, x):
    for t, s, sl in f.blocks_:
        if (t, s) == ("candidate", "site"):
            return x[..., sl]
    raise KeyError("site")


@pytest.mark.parametrize("label, site", [
    # yeast-GEM 9.0.2's compartment names
    ("cytoplasm", "cytoplasm"), ("mitochondrial membrane", "mitochondrion"), ("Golgi membrane", "golgi"),
    ("endoplasmic reticulum membrane", "er"), ("vacuolar membrane", "vacuole"), ("peroxisome", "peroxisome"),
    ("lipid particle", "lipid_particle"), ("cell envelope", "cell_periphery"),
    ("extracellular", "cell_periphery"), ("nucleus", "nucleus"),
    # iMM904's and iFF708's
    ("cytosol", "cytoplasm"), ("mitochondria", "mitochondrion"), ("peroxisome/glyoxysome", "peroxisome"),
    ("golgi apparatus", "golgi"), ("extracellular space", "cell_periphery"), ("Cytoplasm", "cytoplasm"),
    # YeastGFP categories
    ("ER", "er"), ("late Golgi", "golgi"), ("nuclear periphery", "nucleus"), ("nucleolus", "nucleus"),
    ("cell periphery", "cell_periphery"), ("ER to Golgi", None), ("bud neck", None), ("endosome", None),
    ("ambiguous", None), ("punctate composite", None), ("spindle pole", None),
    # GO ids of the GAF's Huh 2003 rows
    ("GO:0005739", "mitochondrion"), ("GO:0000324", "vacuole"), ("GO:0005783", "er"),
    ("GO:0005811", "lipid_particle"), ("GO:0005935", None), ("GO:0005768", None),
])
def test_site_of(label, site):
    assert site_of(label) == site


def test_every_go_term_has_a_site():
    assert {site_of(go) for go in GO_SITE_TERMS} == set(SITES)


def _net():
    return ToyNet(pd.DataFrame(
        {"reaction_id": ["R1", "R2", "R3", "R4"], "genes": [("G1",), ("G2",), (), ()],
         "compartments": ["cytosol;mitochondria", "mitochondria", "bud", ""]},
        index=["R1", "R2", "R3", "R4"]))


#: G1 cytoplasm; G2 cytoplasm + mitochondrion; G3 mitochondrion + vacuole;
#: G4 only a category of no site; G5 cytoplasm
LOC = pd.DataFrame([[1, 0, 0, 0], [1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 0, 1], [1, 0, 0, 0]],
                   index=["G1", "G2", "G3", "G4", "G5"],
                   columns=["cytoplasm", "mitochondrion", "vacuole", "bud neck"])


def test_by_hand():
    f = PairFeaturizer(_net(), MOTIFS, {"loc": LOC}, sites=True)
    assert f.site_block_
    assert f.feature_names_[-3:] == ["candidate:site:match_share", "candidate:site:other_share",
                                     "candidate:site:match_rarity"]
    # 4 genes with a site: cytoplasm 3 of them, mitochondrion 2, vacuole 1
    x = f.transform(["R1"] * 6, ["G1", "G2", "G3", "G4", "G5", "G9"])
    b = block(f, x)
    np.testing.assert_allclose(b[0], [0.5, 0.0, math.log(4 / 3)])
    np.testing.assert_allclose(b[1], [1.0, 0.0, math.log(4 / 2)])
    np.testing.assert_allclose(b[2], [0.5, 0.5, math.log(4 / 2)])
    assert np.isnan(b[3]).all() and np.isnan(b[5]).all()   # no site; unknown gene
    # R2 (mitochondrion only): G1 is elsewhere
    b = block(f, f.transform(["R2"] * 2, ["G1", "G3"]))
    np.testing.assert_allclose(b[0], [0.0, 1.0, 0.0])
    np.testing.assert_allclose(b[1], [1.0, 0.5, math.log(2)])
    # compartments of no site, or none: absent for every candidate
    assert np.isnan(block(f, f.transform(["R3", "R4"], ["G2", "G2"]))).all()
    # the block needs no gene rule: R2's own gene rule does not change it
    net = _net()
    net.reactions.at["R2", "genes"] = ()
    g = PairFeaturizer(net, MOTIFS, {"loc": LOC}, sites=True)
    np.testing.assert_array_equal(block(g, g.transform(["R2"] * 2, ["G1", "G3"])),
                                  block(f, f.transform(["R2"] * 2, ["G1", "G3"])))
    # the other features are those of sites=False
    off = PairFeaturizer(_net(), MOTIFS, {"loc": LOC})
    assert not off.site_block_ and f.feature_names_[:-3] == off.feature_names_
    np.testing.assert_array_equal(x[:, :-3], off.transform(["R1"] * 6, ["G1", "G2", "G3", "G4", "G5", "G9"]))
    # the explanation API names the sites
    b = f._network_blocks["site"]
    assert b.reaction_sites("R1") == ["cytoplasm", "mitochondrion"]
    assert b.gene_sites(f._index.gid["G3"]) == ["mitochondrion", "vacuole"] and b.gene_sites(None) == []


def _brute(comps, loc, reaction, gene):
    """The three items of one pair, site by site."""
    r_sites = {site_of(c) for c in comps[reaction].split(";") if c} - {None}
    site_sets = {g: {site_of(c) for c in loc.columns if loc.at[g, c] > 0} - {None} for g in loc.index}
    with_site = [g for g, s in site_sets.items() if s]
    if not r_sites or gene not in loc.index or not site_sets[gene]:
        return [np.nan] * 3
    mine = site_sets[gene]
    match = mine & r_sites
    rarity = max([math.log(len(with_site) / sum(s in site_sets[h] for h in with_site)) for s in match],
                 default=0.0)
    return [len(match) / len(r_sites), len(mine - r_sites) / len(mine), rarity]


@pytest.mark.parametrize("seed", range(4))
def test_brute_force(seed):
    rng = np.random.default_rng(seed)
    names = ["cytosol", "mitochondrial membrane", "vacuole", "extracellular", "Golgi", "bud"]
    cats = ["GO:0005737", "GO:0005739", "GO:0000329", "GO:0005886", "GO:0005794", "GO:0005935"]
    ids = [f"R{i}" for i in range(8)]
    genes = [f"G{i}" for i in range(10)]
    comps = pd.Series([";".join(sorted(set(rng.choice(names, size=rng.integers(0, 3))))) for _ in ids],
                      index=ids)
    rules = [tuple(rng.choice(genes, size=rng.integers(0, 3), replace=False)) for _ in ids]
    net = ToyNet(pd.DataFrame({"reaction_id": ids, "genes": rules, "compartments": comps}, index=ids))
    have = genes[:8] + ["X1"]
    loc = pd.DataFrame((rng.random((len(have), len(cats))) < 0.35).astype(float), index=have, columns=cats)
    loc = loc[loc.sum(axis=1) > 0]
    f = PairFeaturizer(net, MOTIFS, {"loc": loc}, sites=True)
    pairs = [(r, g) for r in ids for g in genes + ["X1", "Z9"]]
    X = f.transform([r for r, _ in pairs], [g for _, g in pairs])
    for (r, g), x in zip(pairs, X):
        np.testing.assert_allclose(block(f, x), _brute(comps, loc, r, g), rtol=2.0 ** -22,
                                   err_msg=f"{r}, {g}")


def test_needs_loc_and_compartments():
    net = _net()
    dom = pd.DataFrame([[1.0]], index=["G1"], columns=["D1"])
    with pytest.raises(GeomarginInputError, match=r"sources has no 'loc' table .*\['domain'\]"):
        PairFeaturizer(net, MOTIFS, {"domain": dom}, sites=True)
    net.reactions = net.reactions.drop(columns="compartments")
    with pytest.raises(GeomarginInputError, match="net.reactions has no 'compartments' column"):
        PairFeaturizer(net, MOTIFS, {"loc": LOC}, sites=True)


@pytest.mark.parametrize("path", ["yeast-GEM-9.0.2.yml", "yeastGEM-8.3.0.yml", "iMM904.json", "iFF708.xml"])
def test_every_compartment_of_the_real_models_has_a_site(mirror, path):
    from geomargin.featurize.metabolic.model_io import load_model

    model = load_model(mirror / "yeast/network" / path)
    assert {name: site_of(name) for name in model.compartments.values() if site_of(name) is None} == {}


def test_calibration_site_flags_read_the_block():
    """``rank.evidence_flags.candidate_flags``: ``site_match`` where the candidate
    is seen at one of the reaction's sites, ``site_elsewhere`` where it is seen
    only at others, neither without a site or without the block."""
    from geomargin.rank.evidence_flags import CANDIDATE_FLAGS, candidate_flags

    f = PairFeaturizer(_net(), MOTIFS, {"loc": LOC}, sites=True)
    flags = candidate_flags(f, f.candidate_matrix("R2", ["G1", "G3", "G4", "G9"]))
    match, elsewhere = (flags[:, CANDIDATE_FLAGS.index(k)].tolist() for k in ("site_match", "site_elsewhere"))
    assert match == [False, True, False, False] and elsewhere == [True, False, False, False]
    off = PairFeaturizer(_net(), MOTIFS, {"loc": LOC})
    assert not candidate_flags(off, off.candidate_matrix("R2", ["G1", "G3"]))[:, -2:].any()
