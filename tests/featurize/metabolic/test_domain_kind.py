"""The ``domain_kind_<kind>`` blocks: by hand on a toy network, and against a
brute-force count on random networks with fold groups."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from geomargin.common.exceptions import GeomarginInputError
from geomargin.featurize.metabolic.pairs import PairFeaturizer
from toy_pairs import ToyNet, kinds_toy

MOTIFS = {t: {} for t in ("fork", "funnel", "chain_up", "chain_down")}


def block(f, x, name):
    for t, s, sl in f.blocks_:
        if (t, s) == ("candidate", name):
            return x[..., sl]
    raise KeyError(name)


def test_by_hand():
    """G1 (domains D1, D2) transports in R1; G2 (D1) transports in R2; G3 (D2)
    is an enzyme (R3). For the transport R4 and the candidate G5 (D1, D2):
    D1 is held by G1, G2 (both transport): 2/2; D2 by G1, G3: 1/2."""
    net, dom = kinds_toy()
    f = PairFeaturizer(net, MOTIFS, {"domain": dom}, min_domain_genes=1, reaction_kinds=True,
                       domain_kinds=True)
    assert f.domain_kinds_ == ["enzymatic", "transport"]
    assert f.feature_names_[-6:] == [f"candidate:domain_kind_{k}:{i}" for k in ("enzymatic", "transport")
                                     for i in ("max_share", "mean_share", "log1p_max_genes")]
    x = f.transform(["R4"] * 4, ["G5", "G1", "G6", "G7"])
    np.testing.assert_allclose(block(f, x[0], "domain_kind_transport"), [1.0, 0.75, math.log(3)])
    assert np.isnan(block(f, x[0], "domain_kind_enzymatic")).all()
    # G1 never counts for itself: D1's others {G2, G5}: 1 of 2; D2's {G3, G5}: 0
    np.testing.assert_allclose(block(f, x[1], "domain_kind_transport"), [0.5, 0.25, math.log(2)])
    # no domain (G6), unknown gene (G7): absent
    assert np.isnan(block(f, x[2:], "domain_kind_transport")).all()
    # R1's own gene rule is never read: for R1, G2 is the only other transporter
    np.testing.assert_allclose(block(f, f.transform(["R1"], ["G5"])[0], "domain_kind_transport"),
                               [0.5, 0.25, math.log(2)])
    # R3 (enzymatic): D2 is held by G1 and G3, G3 only through R3 itself
    np.testing.assert_allclose(block(f, f.transform(["R3"], ["G5"])[0], "domain_kind_enzymatic"),
                               [0.0, 0.0, 0.0])
    # the evidence: the domain with the largest share
    assert f.kind_domains("R4", "G5", top=2) == [("D1", 2, 2), ("D2", 1, 2)]
    assert f.kind_domains("R4", "G1") == [("D1", 1, 2)]
    assert f.kind_domains("R4", "G6") == [] and f.kind_domains("R4", "G7") == []
    off = PairFeaturizer(net, MOTIFS, {"domain": dom}, min_domain_genes=1, reaction_kinds=True)
    assert off.kind_domains("R4", "G5") == []
    assert off.domain_kinds_ == [] and f.feature_names_[:-6] == off.feature_names_
    np.testing.assert_array_equal(x[:, :-6], off.transform(["R4"] * 4, ["G5", "G1", "G6", "G7"]))


def _brute(reactions, groups, dom, kept, reaction, gene):
    """The three items of one pair, counted gene by gene."""
    kind = reactions.at[reaction, "reaction_kind"]
    mine = groups[reaction]
    does = {g for r, gs in reactions["genes"].items()
            if groups[r] != mine and reactions.at[r, "reaction_kind"] == kind for g in gs}
    if gene not in dom.index:
        return [np.nan] * 3
    shares, counts = [], []
    for d in kept:
        if dom.at[gene, d] <= 0:
            continue
        others = [h for h in dom.index if h != gene and dom.at[h, d] > 0]
        if not others:
            continue
        n = sum(h in does for h in others)
        shares.append(n / len(others))
        counts.append(n)
    if not shares:
        return [np.nan] * 3
    return [max(shares), float(np.mean(shares)), math.log1p(max(counts))]


@pytest.mark.parametrize("seed", range(4))
def test_brute_force(seed):
    rng = np.random.default_rng(seed)
    genes = [f"G{i}" for i in range(12)]
    ids = [f"R{i}" for i in range(10)]
    rules = [tuple(rng.choice(genes, size=rng.integers(0, 3), replace=False)) for _ in ids]
    kinds = rng.choice(["enzymatic", "transport"], size=len(ids))
    reactions = pd.DataFrame({"reaction_id": ids, "genes": rules, "reaction_kind": kinds}, index=ids)
    groups = pd.Series([f"g{i // 2}" if i < 4 else f"g{i}" for i in range(len(ids))], index=ids)
    have = genes[:10] + ["X1", "X2"]  # two genes outside the network; G10, G11 without domains
    dom = pd.DataFrame((rng.random((len(have), 5)) < 0.4).astype(float), index=have,
                       columns=[f"D{i}" for i in range(5)])
    f = PairFeaturizer(ToyNet(reactions), MOTIFS, {"domain": dom}, min_domain_genes=1,
                       reaction_kinds=True, domain_kinds=True, fold_groups=groups)
    network = sorted({g for gs in rules for g in gs})
    kept = list(dom.columns[dom.loc[dom.index.isin(network)].sum() > 0])  # min_domain_genes=1
    dom_rows = dom[dom.sum(axis=1) > 0]
    pairs = [(r, g) for r in ids for g in genes + ["X1", "X2", "Z9"]]
    X = f.transform([r for r, _ in pairs], [g for _, g in pairs])
    for (r, g), x in zip(pairs, X):
        want = _brute(reactions, groups, dom_rows, kept, r, g)
        got = block(f, x, f"domain_kind_{reactions.at[r, 'reaction_kind']}")
        np.testing.assert_allclose(got, want, rtol=2.0 ** -22, err_msg=f"{r}, {g}")


def test_needs_kinds_and_domains():
    net = ToyNet(pd.DataFrame({"reaction_id": ["R1"], "genes": [("G1",)], "reaction_kind": ["transport"]},
                              index=["R1"]))
    dom = pd.DataFrame([[1.0]], index=["G1"], columns=["D1"])
    with pytest.raises(ValueError, match="'domain_kinds' parameter of PairFeaturizer needs reaction_kinds"):
        PairFeaturizer(net, MOTIFS, {"domain": dom}, domain_kinds=True)
    loc = pd.DataFrame([[1.0]], index=["G1"], columns=["nucleus"])
    with pytest.raises(GeomarginInputError, match=r"sources has no 'domain' table .*\['loc'\]"):
        PairFeaturizer(net, MOTIFS, {"loc": loc}, reaction_kinds=True, domain_kinds=True)
