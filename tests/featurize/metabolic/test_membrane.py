"""The ``membrane_<kind>`` blocks: by hand on a toy network, what the
annotation file gives them, and their refusals."""

from __future__ import annotations

import numpy as np
import pytest

from geomargin.common.exceptions import GeomarginInputError
from geomargin.featurize.metabolic.annotation import MEMBRANE_TERMS, parse_gaf
from geomargin.featurize.metabolic.pairs import PairFeaturizer
from toy_pairs import toy


def block(f, x, kind):
    for t, s, sl in f.blocks_:
        if (t, s) == ("candidate", f"membrane_{kind}"):
            return x[..., sl]
    raise KeyError(kind)


def _kinds_net():
    net, motifs, sources = toy()
    net.reactions["reaction_kind"] = ["transport", "enzymatic", "transport", "enzymatic"]
    return net, motifs, sources


def test_by_hand():
    """1 for a membrane gene, 0 for another gene with domains, absent without
    domain data and in the other kind's block."""
    net, motifs, sources = _kinds_net()
    f = PairFeaturizer(net, motifs, sources, reaction_kinds=True, membrane_genes={"G3", "g5"})
    assert f.membrane_kinds_ == ["enzymatic", "transport"]
    assert f.feature_names_[-2:] == ["candidate:membrane_enzymatic:membrane",
                                     "candidate:membrane_transport:membrane"]
    genes = ["G1", "G2", "G3", "G4", "G5", "G9"]   # G4 has no domain data, G9 no data at all
    x = f.transform(["R1"] * len(genes), genes)   # R1: transport
    np.testing.assert_array_equal(block(f, x, "transport")[:, 0], [0, 0, 1, np.nan, 1, np.nan])
    assert np.isnan(block(f, x, "enzymatic")).all()
    x = f.transform(["R2"] * len(genes), genes)   # R2: enzymatic
    np.testing.assert_array_equal(block(f, x, "enzymatic")[:, 0], [0, 0, 1, np.nan, 1, np.nan])
    assert np.isnan(block(f, x, "transport")).all()
    # the block reads no gene rule: R1's own gene rule does not change it
    net2, _, _ = _kinds_net()
    net2.reactions.at["R1", "genes"] = ()
    g = PairFeaturizer(net2, motifs, sources, reaction_kinds=True, membrane_genes={"G3", "G5"})
    np.testing.assert_array_equal(block(g, g.transform(["R1"] * 3, ["G1", "G3", "G5"]), "transport"),
                                  block(f, f.transform(["R1"] * 3, ["G1", "G3", "G5"]), "transport"))
    # the other features are those without the block
    off = PairFeaturizer(net, motifs, sources, reaction_kinds=True)
    assert off.membrane_kinds_ == [] and f.feature_names_[:-2] == off.feature_names_
    np.testing.assert_array_equal(f.transform(["R1"] * 6, genes)[:, :-2], off.transform(["R1"] * 6, genes))


def test_refusals():
    net, motifs, sources = _kinds_net()
    with pytest.raises(ValueError, match="membrane_genes.*reaction_kinds=True"):
        PairFeaturizer(net, motifs, sources, membrane_genes={"G1"})
    with pytest.raises(GeomarginInputError, match="no 'domain' table"):
        PairFeaturizer(net, motifs, {"expr": sources["expr"]}, reaction_kinds=True, membrane_genes={"G1"})
    with pytest.raises(ValueError, match="membrane_genes.*collection of gene ids"):
        PairFeaturizer(net, motifs, sources, reaction_kinds=True, membrane_genes="G1")


def test_parse_gaf(tmp_path):
    """A gene is a membrane protein by an IEA InterPro2GO row for a membrane
    term; not by a curated row, a NOT row or an IEA row of another term."""
    def row(orf, go, evidence="IEA", with_from="InterPro:IPR000001", qualifier="enables", aspect="C"):
        return "\t".join(["SGD", "S0", orf, qualifier, go, "GO_REF:0000002", evidence, with_from, aspect,
                          "d", f"{orf}|X", "protein", "taxon:559292", "20220314", "InterPro", "", ""])
    go = sorted(MEMBRANE_TERMS)[0]
    lines = [row("YAL001C", go), row("YAL002W", go, evidence="IDA", with_from=""),
             row("YAL003W", go, qualifier="NOT|located_in"), row("YAL004W", "GO:0005737"),
             row("YAL005C", "GO:0055085", aspect="P")]
    p = tmp_path / "x.gaf"
    p.write_text("!gaf-version: 2.2\n" + "\n".join(lines) + "\n")
    assert parse_gaf(p).membrane == {"YAL001C", "YAL005C"}


def test_on_the_real_annotation(mirror):
    """On the SGD file of 2022: transporters are membrane proteins, enolase and
    CDC31 (a spindle-pole-body protein) are not."""
    ann = parse_gaf(mirror / "yeast" / "annotation" / "sgd_2022-05-17.gaf")
    assert {"YGR289C", "YNL142W", "YBR294W"} <= ann.membrane      # MAL11, MEP2, SUL1
    assert not {"YGR254W", "YOR257W"} & ann.membrane              # ENO1, CDC31
    assert 300 < len(ann.membrane) < 700 and ann.membrane <= set(ann.domains.index)
