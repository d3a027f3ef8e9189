"""The ``homology`` block by hand on a toy network, its leak rule, its
evidence, and the phmmer searches on known sequences."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from geomargin.featurize.metabolic.compounds import compound_similarity, compound_vectors
from geomargin.featurize.metabolic.homology import Homology, read_hits, search_homologs, write_hits
from geomargin.featurize.metabolic.pairs import PairFeaturizer
from geomargin.featurize.metabolic.pairs.explanations import homology_phrase
from toy_pairs import HOMOLOGY_GENES as GENES
from toy_pairs import homology_hits as hits
from toy_pairs import homology_toy as toy_net

def features(homology, reaction, genes=GENES):
    net, motifs, sources = toy_net()
    f = PairFeaturizer(net, motifs, sources, adjacency=False, homology=homology)
    sl = [s for t, k, s in f.blocks_ if (t, k) == ("candidate", "homology")][0]
    return f, f.transform([reaction] * len(genes), genes)[:, sl]


def c_xy():
    keys, sim = compound_similarity(compound_vectors(toy_net()[0].formulas))
    return sim[keys.index("x"), keys.index("y")]


def test_layout_and_names():
    f, _ = features(hits(), "R4")
    assert f.homology_block_
    assert f.feature_names_[-3:] == ["candidate:homology:motif_max", "candidate:homology:compound_max",
                                     "candidate:homology:subsystem_max"]


def test_by_hand_on_the_orphan():
    """R4: motif set {G1}; same-kind set R1 (G1, c = 1) and R2 (G2, c = c_xy);
    subsystem set {G1, G2, G4}. G1 is alone in its motif set (absent), G7
    has no sequence (absent), G3 has one but no hit (0)."""
    _, X = features(hits(), "R4")
    c = c_xy()
    want = np.array([
        # motif_max, compound_max, subsystem_max
        [np.nan, 0.15 * c, 0.15],          # G1: never itself
        [0.2, 0.2, 0.2],                  # G2: s(G2, G1)
        [0.0, 0.0, 0.0],                  # G3: a sequence, no hit
        [0.0, 0.0, 0.0],                  # G4: a sequence, no hit
        [0.4, max(0.4, 0.5 * c), 0.5],    # G6
        [np.nan, np.nan, np.nan],         # G7: no sequence
    ])
    np.testing.assert_allclose(X, want, rtol=1e-6)


def test_absent_items_are_nan_never_zero():
    """R3 (subsystem B) has no other reaction of its subsystem: the item is
    absent for every gene; without any hit table row the values are 0
    where a gene has a sequence, NaN where it has none."""
    _, X = features(hits(), "R3")
    assert np.isnan(X[:, 2]).all()
    empty = Homology(pd.DataFrame(columns=["query", "target", "bits", "evalue"]), frozenset(GENES[:5]))
    _, X = features(empty, "R4")   # no self-score: no gene counts, every item absent
    assert np.isnan(X).all()


def test_leak_rule_own_genes_and_the_candidate_never_count():
    """R3's own genes G1 and G3 are in no set of R3: changing their hits
    changes nothing of R3's features, though it changes R4's (where G1 is
    not an own gene), so the test can fail."""
    base = hits()
    changed = hits(G1_G6=95, G3_G6=50, G1_G4=90, G3_G2=49)
    _, a = features(base, "R3")
    _, b = features(changed, "R3")
    np.testing.assert_array_equal(a, b)
    # R3: motif set {G2}, same-kind set R5 (G4; c(R3, R5) = 1: both name z)
    np.testing.assert_allclose(a[GENES.index("G6"), :2], [0.5, 0.1], rtol=1e-6)
    _, c4 = features(base, "R4")
    _, d4 = features(changed, "R4")
    assert not np.allclose(c4[GENES.index("G6")], d4[GENES.index("G6")])


def test_evidence_and_sentence():
    f, _ = features(hits(), "R4")
    assert "homology" in f.evidence_names_
    assert "homology" in f.reaction_evidence("R4")
    best = f.homologs("R4", "G6")
    assert best == [("G2", 0.5, 1e-30, "R2", "y transport")]
    assert homology_phrase(best, {"G2": "FUR4"}) == "similar to FUR4 (y transport), 50% of its self-score, E 1e-30"
    assert f.homologs("R4", "G7") == [] and homology_phrase([], {}) == ""
    # no hit of any set's gene on another gene: no homology evidence
    lonely = Homology(hits().hits[lambda d: d["query"] == d["target"]], frozenset(GENES[:5]))
    g, _ = features(lonely, "R4")
    assert "homology" not in g.reaction_evidence("R4")


def _random_protein(rng, n):
    return "".join(rng.choice(list("ACDEFGHIKLMNPQRSTVWY"), size=n))


def test_search_on_known_sequences(tmp_path):
    """A query finds itself (its self-score), an identical copy (share 1), a
    90%-identical mutant (share between 0.5 and 1) and not an unrelated
    protein; the table survives its gzip TSV."""
    rng = np.random.default_rng(0)
    a = _random_protein(rng, 200)
    mutant = "".join(c if rng.random() > 0.1 else rng.choice(list("ACDEFGHIKLMNPQRSTVWY")) for c in a)
    seqs = {"YAL001C": a, "YAL002W": a, "YAL003W": mutant, "YAL004W": _random_protein(rng, 200)}
    table = search_homologs(seqs, ["yal001c"], max_evalue=1e-5, cpus=1)
    assert table["query"].unique().tolist() == ["YAL001C"]
    assert set(table["target"]) == {"YAL001C", "YAL002W", "YAL003W"}
    shares = Homology(table, frozenset(seqs)).shares().set_index("target")["share"]
    assert shares["YAL002W"] == pytest.approx(1.0)
    assert 0.5 < shares["YAL003W"] < 1.0
    # a query's hits do not depend on the other queries: one table serves every release
    both = search_homologs(seqs, ["YAL001C", "YAL004W"], max_evalue=1e-5, cpus=2)
    pd.testing.assert_frame_equal(both[both["query"] == "YAL001C"].reset_index(drop=True), table)
    assert set(both["query"]) == {"YAL001C", "YAL004W"}
    write_hits(table, tmp_path / "h.tsv.gz")
    back = read_hits(tmp_path / "h.tsv.gz")
    assert back[["query", "target"]].equals(table[["query", "target"]])
    np.testing.assert_allclose(back["bits"], table["bits"], atol=0.05)


def test_a_pair_named_twice_is_refused():
    from geomargin.common.exceptions import GeomarginInputError

    h = hits()
    twice = Homology(pd.concat([h.hits, h.hits.iloc[[2]]], ignore_index=True), h.sequenced)
    with pytest.raises(GeomarginInputError, match=r"the hits name the pair \(G1, G6\) more than once"):
        features(twice, "R4")
