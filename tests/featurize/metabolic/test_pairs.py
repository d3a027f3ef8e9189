"""PairFeaturizer and build_instances on a toy network with hand-computed
features, plus a brute-force reference implementation on random data."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from geomargin.common.exceptions import GeomarginInputError
from geomargin.featurize.metabolic.pairs import SUMMARY_ITEMS, PairFeaturizer, build_instances, candidate_pools
from geomargin.featurize.metabolic.pairs import featurizer as featurizer_module
from geomargin.featurize.metabolic.pairs.registry import BLOCKS
from toy_pairs import ToyNet, toy

#: One step of the float32 grid the featurizer's values lie on (float32_grid):
#: the largest relative difference from a float64 reference.
F32 = 2.0 ** -23


@pytest.fixture
def feat():
    net, motifs, sources = toy()
    return PairFeaturizer(net, motifs, sources, min_domain_genes=2, domain_eps=1.0)


def block(f, x, motif, source):
    for t, s, sl in f.blocks_:
        if (t, s) == (motif, source):
            return x[sl]
    raise KeyError((motif, source))


def test_layout(feat):
    assert feat.motif_types_ == ["fork", "funnel", "chain_up", "chain_down"]
    assert feat.sources_ == ["expr", "domain", "loc"]
    # D3 is in G3 only among network genes (G5 is not in the network): dropped
    assert feat.feature_names_[:9] == ["fork:expr:c0", "fork:expr:c1", "fork:expr:c2",
                                       "fork:domain:D1", "fork:domain:D2", "fork:loc:nucleus",
                                       "fork:loc:cytoplasm", "fork:net:adjacent_log1p_count",
                                       "fork:net:adjacent_fraction"]
    assert len(feat.feature_names_) == 4 * (3 + 2 + 2 + 2)
    assert feat.groups_.tolist()[:10] == [0, 0, 0, 1, 1, 2, 2, 3, 3, 4]
    assert feat.groups_.max() == 15
    net, motifs, sources = toy()
    plain = PairFeaturizer(net, motifs, sources, adjacency=False)
    assert len(plain.feature_names_) == 4 * (3 + 2 + 2)
    assert plain.groups_.max() == 11


def test_transform_in_processes_equals_one_process(feat):
    """n_jobs builds different reactions' rows in forked processes: the same matrix,
    rows in the pairs' order (reactions interleaved, a gene without data, repeats)."""
    reactions = ["R1", "R2", "R1", "R4", "R3", "R2", "R1", "R4"]
    genes = ["G1", "G1", "G5", "G2", "G3", "G2", "G1", "G1"]
    one = feat.transform(reactions, genes)
    two = feat.transform(reactions, genes, n_jobs=2)
    np.testing.assert_array_equal(two, one)
    # and row by row, each pair alone
    for i, (r, g) in enumerate(zip(reactions, genes)):
        np.testing.assert_array_equal(feat.transform([r], [g], n_jobs=2)[0], one[i])


def test_adjacency_block_by_hand(feat):
    # fork partners of R1: R2 (G2), R3 (G1, G3): n = 2
    x = feat.transform(["R1", "R1", "R1"], ["G1", "G3", "G5"])
    np.testing.assert_allclose(block(feat, x[0], "fork", "net"), [math.log(2), 0.5])
    np.testing.assert_allclose(block(feat, x[1], "fork", "net"), [math.log(2), 0.5])
    np.testing.assert_allclose(block(feat, x[2], "fork", "net"), [0.0, 0.0])
    # chain_down partner R4 has no gene; R1 has no funnel partner: absent
    assert np.isnan(block(feat, x[2], "chain_down", "net")).all()
    assert np.isnan(block(feat, x[2], "funnel", "net")).all()
    # R2's fork partner R1 is catalysed by G1 only: G1 is no neighbour gene of
    # its own (the data blocks are absent) but the net block says it catalyses R1
    y = feat.transform(["R2"], ["G1"])[0]
    assert np.isnan(block(feat, y, "fork", "expr")).all()
    np.testing.assert_allclose(block(feat, y, "fork", "net"), [math.log(2), 1.0])
    assert feat.adjacency_reactions("R1", "g1") == {"fork": ["R3"], "funnel": [], "chain_up": [],
                                                   "chain_down": []}
    # candidate_matrix agrees with transform
    np.testing.assert_array_equal(feat.candidate_matrix("R1", ["G1", "G3", "G5"]), x)


def test_registry_gives_the_documented_layout():
    """Blocks of each motif type in registry order (expr, domain, loc, net), motif
    type after motif type, then the candidate's blocks (role_<kind>, subsystem,
    domain_kind_<kind>, site, membrane_<kind>), one group id per block, consecutive."""
    assert [b.name for b in BLOCKS] == ["expr", "domain", "loc", "net", "role", "subsystem", "compound",
                                        "domain_kind", "site", "membrane", "homology"]
    for b in BLOCKS:  # every family declares itself once
        assert b.name and b.param and b.config_key and b.items and isinstance(b.per_motif, bool)
    net, motifs, sources = toy()
    net.reactions["reaction_kind"] = ["transport", "enzymatic", "transport", "enzymatic"]
    net.reactions["subsystem"] = ["A", "A;B", "B", "A"]
    net.reactions["compartments"] = ["cytosol;mitochondria", "cytosol", "nucleus", ""]
    f = PairFeaturizer(net, motifs, sources, reaction_kinds=True, subsystems=True,
                       source_features="summary", domain_kinds=True, sites=True, membrane_genes={"G1"})
    motif_blocks = [(t, k) for t in ["fork", "funnel", "chain_up", "chain_down"]
                    for k in ["expr", "domain", "loc", "net"]]
    assert [(t, k) for t, k, _ in f.blocks_] == motif_blocks + [
        ("candidate", "role_enzymatic"), ("candidate", "role_transport"), ("candidate", "subsystem"),
        ("candidate", "domain_kind_enzymatic"), ("candidate", "domain_kind_transport"),
        ("candidate", "site"), ("candidate", "membrane_enzymatic"), ("candidate", "membrane_transport")]
    starts = [sl.start for _, _, sl in f.blocks_]
    assert starts == sorted(starts) and f.blocks_[-1][2].stop == f.n_features_
    for j, (t, k, sl) in enumerate(f.blocks_):
        assert f.groups_[sl].tolist() == [j] * (sl.stop - sl.start)
        assert f.feature_names_[sl.start].startswith(f"{t}:{k}:")
    assert f.feature_names_[:3] == [f"fork:expr:{it}" for it in SUMMARY_ITEMS["expr"]]


def test_kind_features_by_hand():
    net, motifs, sources = toy()
    net.reactions["reaction_kind"] = ["transport", "enzymatic", "transport", "enzymatic"]
    f = PairFeaturizer(net, motifs, sources, min_domain_genes=2, domain_eps=1.0, reaction_kinds=True)
    assert f.feature_names_[7:11] == ["fork:net:adjacent_log1p_count", "fork:net:adjacent_fraction",
                                      "fork:net:same_kind_log1p_count", "fork:net:same_kind_fraction"]
    # no spontaneous reaction here: no block for that kind
    assert f.role_kinds_ == ["enzymatic", "transport"]
    assert f.feature_names_[-4:] == [f"candidate:role_{k}:{it}" for k in ("enzymatic", "transport")
                                     for it in ("same_kind_log1p_count", "same_kind_fraction")]
    assert f.groups_[-1] == f.groups_[-2] == f.groups_[-3] + 1 == f.groups_[-5] + 2
    # R1 (transport): fork partners R2 (enzymatic, G2) and R3 (transport, G1 G3)
    x = f.transform(["R1"] * 4, ["G1", "G2", "G3", "G5"])
    np.testing.assert_allclose(block(f, x[0], "fork", "net"), [math.log(2), 0.5, math.log(2), 0.5])
    np.testing.assert_allclose(block(f, x[1], "fork", "net"), [math.log(2), 0.5, 0.0, 0.0])
    np.testing.assert_allclose(block(f, x[3], "fork", "net"), [0.0, 0.0, 0.0, 0.0])
    # role: G1's other reactions = {R3 (transport)}; G2's = {R2 (enzymatic)};
    # G3's = {R3}; G5 catalyses nothing: absent
    np.testing.assert_allclose(block(f, x[0], "candidate", "role_transport"), [math.log(2), 1.0])
    np.testing.assert_allclose(block(f, x[1], "candidate", "role_transport"), [0.0, 0.0])
    np.testing.assert_allclose(block(f, x[2], "candidate", "role_transport"), [math.log(2), 1.0])
    assert np.isnan(block(f, x[3], "candidate", "role_transport")).all()
    # R1 is a transport reaction: the other kind's role block is absent
    assert np.isnan(block(f, x[0], "candidate", "role_enzymatic")).all()
    # R2 (enzymatic) for G1: other reactions R1, R3, both transport
    y = f.transform(["R2"], ["G1"])[0]
    np.testing.assert_allclose(block(f, y, "candidate", "role_enzymatic"), [0.0, 0.0])
    assert np.isnan(block(f, y, "candidate", "role_transport")).all()
    net.reactions.loc["R4", "reaction_kind"] = "exchange"
    with pytest.raises(GeomarginInputError, match="reaction_kind of reaction 'R4' is 'exchange'"):
        PairFeaturizer(net, motifs, sources, reaction_kinds=True)
    net.reactions.loc["R4", "reaction_kind"] = "enzymatic"
    with pytest.raises(ValueError, match="needs adjacency=True"):
        PairFeaturizer(net, motifs, sources, adjacency=False, reaction_kinds=True)
    with pytest.raises(GeomarginInputError, match="no 'reaction_kind' column"):
        PairFeaturizer(*toy(), reaction_kinds=True)


def test_subsystem_block_by_hand():
    net, motifs, sources = toy()
    # R1: A; R2: A and B; R3: B; R4 (no gene): A
    net.reactions["subsystem"] = ["A", "A;B", "B", "A"]
    f = PairFeaturizer(net, motifs, sources, min_domain_genes=2, domain_eps=1.0, subsystems=True)
    assert f.subsystem_block_
    assert f.feature_names_[-3:] == ["candidate:subsystem:same_subsystem_log1p_count",
                                     "candidate:subsystem:same_subsystem_fraction",
                                     "candidate:subsystem:subsystem_coverage"]
    assert f.groups_[-1] == f.groups_[-3] == f.groups_[-4] + 1
    x = f.transform(["R1"] * 4 + ["R4"] * 2, ["G1", "G2", "G3", "G5", "G2", "G1"])
    # R1 (A): the other reactions with a gene sharing A are {R2}: n_s = 1.
    # G1's other reaction is R3 (B): s = 0, m = 1
    np.testing.assert_allclose(block(f, x[0], "candidate", "subsystem"), [0.0, 0.0, 0.0])
    # G2 catalyses R2 (A;B): s = 1, m = 1
    np.testing.assert_allclose(block(f, x[1], "candidate", "subsystem"), [math.log(2), 1.0, 1.0])
    np.testing.assert_allclose(block(f, x[2], "candidate", "subsystem"), [0.0, 0.0, 0.0])
    # G5 catalyses nothing: absent
    assert np.isnan(block(f, x[3], "candidate", "subsystem")).all()
    # R4 (A): R1 (G1) and R2 (G2) share A: n_s = 2; G1's others R1 (A), R3 (B)
    np.testing.assert_allclose(block(f, x[4], "candidate", "subsystem"), [math.log(2), 1.0, 0.5])
    np.testing.assert_allclose(block(f, x[5], "candidate", "subsystem"), [math.log(2), 0.5, 0.5])
    assert f.subsystem_reactions("R4", "g1") == ["R1"]
    assert f.subsystem_reactions("R1", "G1") == []
    # a reaction without a subsystem, or whose subsystem has no other reaction with a gene: absent
    net.reactions["subsystem"] = ["", "A", "B", "C"]
    f = PairFeaturizer(net, motifs, sources, subsystems=True)
    x = f.transform(["R1", "R3", "R4"], ["G2", "G1", "G1"])
    assert np.isnan(x[:, -3:]).all()
    # no reaction with a gene has a subsystem (iFF708): no block at all
    net.reactions["subsystem"] = ["", "", "", "A"]
    f = PairFeaturizer(net, motifs, sources, subsystems=True)
    assert not f.subsystem_block_ and not any("subsystem" in n for n in f.feature_names_)
    assert f.subsystem_reactions("R4", "G1") == []
    with pytest.raises(ValueError, match="'subsystems' parameter of PairFeaturizer must be a bool"):
        PairFeaturizer(net, motifs, sources, subsystems="yes")
    with pytest.raises(GeomarginInputError, match="no 'subsystem' column"):
        PairFeaturizer(*toy(), subsystems=True)


def test_near_copies_count_once_in_role_and_subsystem():
    """A gene named on three near-copies of one reaction (one fold group) has done
    one reaction: the role and subsystem blocks count the group once, of a
    kind when a member of that kind names the gene."""
    _, _, sources = toy()
    net = ToyNet(pd.DataFrame(
        {"reaction_id": ["R1", "R2", "R3", "R4", "R5"],
         "genes": [("G1",), ("G1",), ("G1",), ("G2",), ()],
         "reaction_kind": ["transport", "transport", "enzymatic", "transport", "transport"],
         "subsystem": ["A", "A", "A", "A", "A"]},
        index=["R1", "R2", "R3", "R4", "R5"]))
    motifs = {t: {} for t in ("fork", "funnel", "chain_up", "chain_down")}
    groups = pd.Series(["copies", "copies", "copies", "R4", "R5"], index=net.reactions.index)
    kw = dict(min_domain_genes=1, domain_eps=1.0, reaction_kinds=True, subsystems=True)
    grouped = PairFeaturizer(net, motifs, sources, fold_groups=groups, **kw)
    plain = PairFeaturizer(net, motifs, sources, **kw)
    x, y = (f.transform(["R5"], ["G1"])[0] for f in (grouped, plain))
    # grouped: G1's other reactions {copies}: m = 1, of kind transport (R1) 1;
    # the subsystem's other reactions with a gene {copies, R4}: n_s = 2, s = 1
    np.testing.assert_allclose(block(grouped, x, "candidate", "role_transport"), [math.log(2), 1.0])
    np.testing.assert_allclose(block(grouped, x, "candidate", "subsystem"), [math.log(2), 1.0, 0.5])
    # each model reaction its own: m = 3, 2 of them transports; n_s = 4, s = 3
    np.testing.assert_allclose(block(plain, y, "candidate", "role_transport"), [math.log(3), 2 / 3])
    np.testing.assert_allclose(block(plain, y, "candidate", "subsystem"), [math.log(4), 1.0, 0.75])
    # the evidence still names every reaction the gene catalyses
    assert grouped.subsystem_reactions("R5", "G1") == ["R1", "R2", "R3"]
    with pytest.raises(GeomarginInputError, match="directions of model reaction 'R1' in groups"):
        net.reactions.loc["R2", "reaction_id"] = "R1"
        PairFeaturizer(net, motifs, sources, fold_groups=groups.replace({"copies": "c"}).where(
            groups.index != "R1", "other"), **kw)


def test_hand_computed_terms(feat):
    x = feat.transform(["R1"], ["G5"])[0]
    s2, s6 = math.sqrt(2), math.sqrt(6)
    # fork neighbours of R1 for G5: genes of R2, R3 = {G2, G1, G3} minus R1's own G1
    assert feat.neighbour_genes("R1", "G5")["fork"] == ["G2", "G3"]
    # centred unit profiles: G5 (1,0,-1)/s2, G2 (1,-1,NA)/s2, G3 (-1,-1,2)/s6
    np.testing.assert_allclose(block(feat, x, "fork", "expr"),
                               [1 / s2 * (1 / s2 - 1 / s6) / 2, 0.0, -1 / s2 * 2 / s6])
    # eps=1, kept domains D1, D2: p(G5)=p(G2)=(2/3,1/3), p(G3)=(1/3,2/3)
    # KL terms vs G2 are 0, vs G3 (1/3)log 2 each; average over 2 neighbours
    np.testing.assert_allclose(block(feat, x, "fork", "domain"), [math.log(2) / 6] * 2)
    # Hamming: G5 (1,0) vs G2 (1,1) -> (0,1); vs G3 (0,1) -> (1,1)
    np.testing.assert_allclose(block(feat, x, "fork", "loc"), [0.5, 1.0])
    # chain_down of R1 is R4, which has no gene: whole block absent
    assert np.isnan(block(feat, x, "chain_down", "expr")).all()
    assert np.isnan(block(feat, x, "chain_down", "loc")).all()
    # R1 has no funnel / chain_up entry
    assert np.isnan(block(feat, x, "funnel", "domain")).all()


def test_candidate_gene_excluded_from_neighbours(feat):
    x = feat.transform(["R1"], ["G3"])[0]
    assert feat.neighbour_genes("R1", "G3")["fork"] == ["G2"]
    # only G2 remains: loc G3 (0,1) vs G2 (1,1)
    np.testing.assert_allclose(block(feat, x, "fork", "loc"), [1.0, 0.0])
    # expression: G3 * G2 at c0, c1; c2 missing for G2 -> NaN
    s2, s6 = math.sqrt(2), math.sqrt(6)
    np.testing.assert_allclose(block(feat, x, "fork", "expr"),
                               [-1 / s6 / s2, 1 / s6 / s2, np.nan])
    # R2's only fork neighbour gene is G1: candidate G1 leaves the block empty
    y = feat.transform(["R2"], ["G1"])[0]
    assert np.isnan(block(feat, y, "fork", "expr")).all()
    assert np.isnan(block(feat, y, "fork", "loc")).all()
    # ... but another candidate sees G1
    z = feat.transform(["R2"], ["G5"])[0]
    np.testing.assert_allclose(block(feat, z, "fork", "loc"), [0.0, 0.0])


def test_reaction_own_genes_excluded(feat):
    # R3 (genes G1, G3): its fork partner R1 only has G1, an own gene -> empty
    x = feat.transform(["R3"], ["G5"])[0]
    assert np.isnan(block(feat, x, "fork", "expr")).all()
    # chain_down partner R2 has G2 -> present
    np.testing.assert_allclose(block(feat, x, "chain_down", "loc"), [0.0, 1.0])
    assert feat.neighbour_genes("R3", "G5") == {"fork": [], "funnel": [], "chain_up": [],
                                                "chain_down": ["G2"]}


def test_missing_source_data_leaves_source_absent(feat):
    # G4 has localization only
    x = feat.transform(["R1"], ["G4"])[0]
    assert np.isnan(block(feat, x, "fork", "expr")).all()
    assert np.isnan(block(feat, x, "fork", "domain")).all()
    np.testing.assert_allclose(block(feat, x, "fork", "loc"), [0.5, 1.0])
    # unknown gene: every data block absent; it catalyses none of R1's fork partners
    u = feat.transform(["R1"], ["YXX999W"])[0]
    assert all(np.isnan(block(feat, u, t, k)).all() for t in feat.motif_types_
               for k in ("expr", "domain", "loc"))
    np.testing.assert_array_equal(block(feat, u, "fork", "net"), [0.0, 0.0])
    # R4's funnel neighbour G2 has no domain... (it has); G4-less neighbours:
    # R2 chain_up -> R3 genes {G1, G3}; candidate G1 leaves G3
    y = feat.transform(["R2"], ["G1"])[0]
    np.testing.assert_allclose(block(feat, y, "chain_up", "loc"), [1.0, 1.0])


def test_neighbours_without_data_are_skipped():
    net, motifs, sources = toy()
    # G2 gets no localization: R1 fork neighbours {G2, G3} -> only G3 counts
    sources["loc"] = sources["loc"].drop(index="G2")
    f = PairFeaturizer(net, motifs, sources)
    x = f.transform(["R1"], ["G5"])[0]
    np.testing.assert_allclose(block(f, x, "fork", "loc"), [1.0, 1.0])
    # R1 with candidate G3: the remaining neighbour G2 has no loc -> loc block absent,
    # expression block present
    y = f.transform(["R1"], ["G3"])[0]
    assert np.isnan(block(f, y, "fork", "loc")).all()
    assert not np.isnan(block(f, y, "fork", "expr")[:2]).any()


# --------------------------------------------------------------- reference
def reference_features(f: PairFeaturizer, net, motifs, sources, eps, min_dom, r, g,
                       drop=None, hidden=frozenset(), unit_of=None):
    """Brute force from the definitions, one pair at a time; the reactions in
    ``hidden`` (r's near-copies) are read as if they were not there, and
    ``unit_of`` (model reaction -> group label) says which model reactions
    the role and subsystem blocks count as one."""
    own = set(net.reactions.loc[r, "genes"])
    expr = sources["expr"]
    x = expr.to_numpy(float)
    xc = x - np.nanmean(x, axis=1, keepdims=True)
    z = pd.DataFrame(xc / np.sqrt(np.nansum(xc ** 2, axis=1, keepdims=True)),
                     index=expr.index, columns=expr.columns)
    netgenes = {h for gs in net.reactions["genes"] for h in gs}
    dom = sources["domain"]
    dom_has = dom[dom.sum(axis=1) > 0]
    keep = [c for c in dom.columns if (dom.loc[dom.index.isin(netgenes), c] > 0).sum() >= min_dom]
    a = dom_has[keep].to_numpy(float)
    p = pd.DataFrame((a + eps) / (a + eps).sum(axis=1, keepdims=True), index=dom_has.index,
                     columns=keep)
    loc = sources["loc"]
    out = []
    for t in f.motif_types_:
        nb = set()
        for o in motifs[t].get(r, ()):
            if o not in hidden:
                nb |= set(net.reactions.loc[o, "genes"])
        nb -= own | {g}
        if drop is not None:
            nb -= {drop}
        nb = sorted(nb)
        # expr
        if not nb or g not in z.index:
            out.append(np.full(expr.shape[1], np.nan))
        else:
            vals = []
            for k in expr.columns:
                hs = [z.loc[h, k] for h in nb if h in z.index and not np.isnan(z.loc[h, k])]
                vals.append(z.loc[g, k] * np.mean(hs) if hs else np.nan)
            out.append(np.array(vals))
        # domain
        hs = [h for h in nb if h in p.index]
        if not nb or g not in p.index or not hs:
            out.append(np.full(len(keep), np.nan))
        else:
            pg = p.loc[g].to_numpy()
            out.append(np.mean([(pg - p.loc[h].to_numpy()) * (np.log(pg) - np.log(p.loc[h].to_numpy()))
                                for h in hs], axis=0))
        hs = [h for h in nb if h in loc.index]
        if not nb or g not in loc.index or not hs:
            out.append(np.full(loc.shape[1], np.nan))
        else:
            ag = loc.loc[g].to_numpy(float)
            out.append(np.mean([np.abs(ag - loc.loc[h].to_numpy(float)) for h in hs], axis=0))
        # net: related reactions with a gene, and how many name g (never changed by `drop`)
        if f.adjacency:
            adj = [o for o in motifs[t].get(r, ()) if net.reactions.loc[o, "genes"] and o not in hidden]
            c = sum(g in net.reactions.loc[o, "genes"] for o in adj)
            vals = [math.log(1 + c), c / len(adj)] if adj else [np.nan, np.nan]
            if f.reaction_kinds:
                kind = net.reactions.loc[r, "reaction_kind"]
                cs = sum(g in net.reactions.loc[o, "genes"] for o in adj
                         if net.reactions.loc[o, "reaction_kind"] == kind)
                vals += [math.log(1 + cs), cs / len(adj)] if adj else [np.nan, np.nan]
            out.append(np.array(vals))
    if f.reaction_kinds:
        out.append(reference_role(net, r, g, hidden, unit_of))
    if f.subsystem_block_:
        out.append(reference_subsystem(net, r, g, hidden, unit_of))
    return np.concatenate(out)


def reference_subsystem(net, r, g, hidden=frozenset(), unit_of=None):
    """The subsystem block from its definition, one pair at a time: over the
    other units (model reactions, both directions once, a fold group once
    with its members' subsystems and genes together), m =
    those naming g, s = those of them sharing a subsystem with r, n_s = those
    with a gene sharing a subsystem with r."""
    rx = net.reactions
    model_of = rx["reaction_id"]
    unit = (lambda m: m) if unit_of is None else unit_of.__getitem__
    subs, genes = {}, {}
    for rr in rx.index:
        u = unit(model_of[rr])
        subs.setdefault(u, set()).update(x for x in rx.loc[rr, "subsystem"].split(";") if x)
        genes.setdefault(u, set()).update(rx.loc[rr, "genes"])
    mine_u = unit(model_of[r])
    mine = subs[mine_u]
    gone = {unit(model_of[o]) for o in hidden}
    others = [u for u in subs if u != mine_u and u not in gone]
    m_g = [u for u in others if g in genes[u]]
    s = sum(bool(subs[u] & mine) for u in m_g)
    n_s = sum(bool(subs[u] & mine) and bool(genes[u]) for u in others)
    if not mine or n_s == 0 or not m_g:
        return np.full(3, np.nan)
    return np.array([math.log(1 + s), s / len(m_g), s / n_s])


KINDS = ("enzymatic", "transport", "spontaneous")


def reference_role(net, r, g, hidden=frozenset(), unit_of=None):
    """The role block from its definition: the other units (model reactions,
    both directions once, a fold group once) whose genes name g,
    and how many of them have a member of r's kind that names g."""
    rx = net.reactions
    model_of = rx["reaction_id"]
    unit = (lambda m: m) if unit_of is None else unit_of.__getitem__
    mine_u = unit(model_of[r])
    gone = {unit(model_of[o]) for o in hidden}
    others = {}
    for rr in rx.index:
        u = unit(model_of[rr])
        if u != mine_u and u not in gone and g in rx.loc[rr, "genes"]:
            others.setdefault(u, set()).add(rx.loc[rr, "reaction_kind"])
    # one block per kind that some reaction with a gene has; only r's own is present
    kinds = [k for k in KINDS if any(rx.loc[rr, "reaction_kind"] == k and rx.loc[rr, "genes"]
                                     for rr in rx.index)]
    out = np.full(2 * len(kinds), np.nan)
    kind = rx.loc[r, "reaction_kind"]
    if others and kind in kinds:
        mk = sum(kind in ks for ks in others.values())
        j = 2 * kinds.index(kind)
        out[j:j + 2] = [math.log(1 + mk), mk / len(others)]
    return out


def random_toy(seed):
    rng = np.random.default_rng(seed)
    genes = [f"Y{i:02d}" for i in range(12)]
    rids = [f"R{i}" for i in range(9)]
    rg = [tuple(sorted(rng.choice(genes, size=rng.integers(0, 3), replace=False)))
          for _ in rids]
    # R7 and R8 are the two directions of one model reaction (same genes, same kind)
    rg[8] = rg[7]
    model = [r if r != "R8" else "R7" for r in rids]
    kinds = list(rng.choice(["enzymatic", "transport"], size=len(rids)))
    kinds[8] = kinds[7]
    # subsystems: none, one or two of three (";"-joined); both directions alike
    # (from a generator of their own: the other draws stay those of the seed)
    rng_s = np.random.default_rng(seed + 100)
    subsystems = [";".join(sorted(rng_s.choice(["S1", "S2", "S3"], size=rng_s.integers(0, 3),
                                               replace=False))) for _ in rids]
    subsystems[8] = subsystems[7]
    net = ToyNet(pd.DataFrame({"reaction_id": model, "genes": rg, "reaction_kind": kinds,
                               "subsystem": subsystems}, index=rids))
    motifs = {}
    for t in ["fork", "funnel", "chain_up", "chain_down"]:
        motifs[t] = {r: frozenset(o for o in rids if o != r and rng.random() < 0.35)
                     for r in rids}
    x = rng.normal(size=(10, 7))
    x[rng.random(x.shape) < 0.25] = np.nan
    expr = pd.DataFrame(x, index=genes[:9] + ["Z1"], columns=[f"c{i}" for i in range(7)])
    dom = pd.DataFrame((rng.random((12, 6)) < 0.3).astype(int), index=genes[1:] + ["Z2"],
                       columns=[f"IPR{i}" for i in range(6)])
    loc = pd.DataFrame((rng.random((9, 4)) < 0.4).astype(int), index=genes[2:10] + ["Z3"],
                       columns=list("abcd"))
    return net, motifs, {"expr": expr, "domain": dom, "loc": loc}, genes + ["Z1", "Z2", "Z3"]


@pytest.mark.parametrize("seed,kinds,subsystems", [(0, False, False), (1, False, True),
                                                    (2, False, False), (3, True, False),
                                                    (4, True, True), (5, True, True)])
def test_matches_brute_force_reference(seed, kinds, subsystems):
    net, motifs, sources, genes = random_toy(seed)
    f = PairFeaturizer(net, motifs, sources, min_domain_genes=2, domain_eps=0.05,
                       reaction_kinds=kinds, subsystems=subsystems)
    assert f.subsystem_block_ == subsystems
    for r in net.reactions.index:
        C = f.candidate_matrix(r, genes)
        T = f.transform([r] * len(genes), genes)
        np.testing.assert_array_equal(np.isnan(C), np.isnan(T))
        np.testing.assert_allclose(C, T, rtol=1e-12, atol=1e-14)
        for i, g in enumerate(genes):
            ref = reference_features(f, net, motifs, sources, 0.05, 2, r, g)
            np.testing.assert_allclose(C[i], ref, rtol=F32, atol=1e-12,
                                       err_msg=f"{r} {g}")
        # leave one neighbour out == brute force without that neighbour
        g = genes[seed]
        hs, X = f.leave_one_out(r, g)
        assert hs == sorted(set().union(*f.neighbour_genes(r, g).values()))
        for h, row in zip(hs, X):
            ref = reference_features(f, net, motifs, sources, 0.05, 2, r, g, drop=h)
            np.testing.assert_allclose(row, ref, rtol=F32, atol=1e-12)


@pytest.mark.parametrize("seed,kinds,subsystems", [(0, False, False), (3, True, False),
                                                    (4, True, True), (5, True, True)])
def test_near_copies_are_never_read(seed, kinds, subsystems):
    """With ``fold_groups`` a reaction's features are those of the
    definitions with the other reactions of its group not there: not as
    motif neighbours, not as other reactions of its subsystem or kind."""
    net, motifs, sources, genes = random_toy(seed)
    rng = np.random.default_rng(seed + 7)
    model = net.reactions["reaction_id"]
    label = dict(zip(sorted(set(model)), rng.integers(0, 3, size=len(set(model)))))
    groups = pd.Series([f"grp{label[m]}" for m in model], index=net.reactions.index)
    f = PairFeaturizer(net, motifs, sources, min_domain_genes=2, domain_eps=0.05,
                       reaction_kinds=kinds, subsystems=subsystems, fold_groups=groups)
    plain = PairFeaturizer(net, motifs, sources, min_domain_genes=2, domain_eps=0.05,
                           reaction_kinds=kinds, subsystems=subsystems)
    changed = 0
    for r in net.reactions.index:
        hidden = frozenset(o for o in net.reactions.index if groups[o] == groups[r] and o != r)
        C = f.candidate_matrix(r, genes)
        for i, g in enumerate(genes):
            ref = reference_features(f, net, motifs, sources, 0.05, 2, r, g, hidden=hidden,
                                     unit_of={m: groups[o] for o, m in model.items()})
            np.testing.assert_allclose(C[i], ref, rtol=F32, atol=1e-12, err_msg=f"{r} {g}")
        changed += not np.array_equal(np.nan_to_num(C, nan=-9.0),
                                      np.nan_to_num(plain.candidate_matrix(r, genes), nan=-9.0))
        for t, related in f.adjacency_reactions(r, genes[seed]).items():
            assert not set(related) & hidden
        assert not {o for o in f.subsystem_reactions(r, genes[seed])} & {model[o] for o in hidden}
    assert changed  # the groups hide something in every draw


def test_groups_of_one_model_reaction_change_nothing(feat):
    """Each model reaction its own group: the features without groups."""
    net, motifs, sources = toy()
    grouped = PairFeaturizer(net, motifs, sources, min_domain_genes=2, domain_eps=1.0,
                             fold_groups=net.reactions["reaction_id"])
    genes = ["G1", "G2", "G3", "G4", "G5", "G9"]
    for r in net.reactions.index:
        np.testing.assert_array_equal(grouped.candidate_matrix(r, genes), feat.candidate_matrix(r, genes))
    with pytest.raises(GeomarginInputError, match="fold_groups has no group for reaction 'R4'"):
        PairFeaturizer(net, motifs, sources, fold_groups={"R1": 1, "R2": 1, "R3": 2})


def reference_summary(f, net, motifs, sources, eps, min_dom, r, g, drop=None):
    """Brute force of source_features="summary" from its definitions: the
    block means from the point-wise reference, per-neighbour comparisons
    written out one neighbour at a time."""
    pw = reference_features(f, net, motifs, sources, eps, min_dom, r, g, drop=drop)
    own = set(net.reactions.loc[r, "genes"])
    expr = sources["expr"]
    x = expr.to_numpy(float)
    xc = x - np.nanmean(x, axis=1, keepdims=True)
    z = pd.DataFrame(xc / np.sqrt(np.nansum(xc ** 2, axis=1, keepdims=True)), index=expr.index)
    netgenes = {h for gs in net.reactions["genes"] for h in gs}
    dom = sources["domain"]
    keep = [c for c in dom.columns if (dom.loc[dom.index.isin(netgenes), c] > 0).sum() >= min_dom]
    dom_sets = {h: {c for c in keep if dom.loc[h, c] > 0} for h in dom.index
                if dom.loc[h].sum() > 0}
    loc = sources["loc"]
    out, start = [], 0
    width = {"expr": expr.shape[1], "domain": len(keep), "loc": loc.shape[1],
             "net": 4 if f.reaction_kinds else 2}
    for t in f.motif_types_:
        nb = set()
        for o in motifs[t].get(r, ()):
            nb |= set(net.reactions.loc[o, "genes"])
        nb = sorted(nb - own - {g} - ({drop} if drop else set()))
        for kind in ("expr", "domain", "loc", "net"):
            block = pw[start:start + width[kind]]
            start += width[kind]
            if kind == "net":
                out.append(block)
                continue
            k = len(SUMMARY_ITEMS[kind])
            if np.isnan(block).all():
                out.append(np.full(k, np.nan))
                continue
            if kind == "expr":
                rs = [np.nansum(z.loc[g].to_numpy() * z.loc[h].to_numpy()) for h in nb
                      if h in z.index]
                top = sorted(rs, reverse=True)[:3]
                out.append(np.array([np.nansum(block), max(rs), np.mean(top)]))
            elif kind == "domain":
                shared = [len(dom_sets[g] & dom_sets[h]) for h in nb if h in dom_sets]
                out.append(np.array([np.nansum(block), np.mean([c > 0 for c in shared]),
                                     np.log1p(max(shared))]))
            else:
                shared = [(loc.loc[g] * loc.loc[h]).sum() for h in nb if h in loc.index]
                out.append(np.array([np.nansum(block), np.mean([c > 0 for c in shared])]))
    if f.reaction_kinds or f.subsystem_block_:  # the role and subsystem blocks are copied as they are
        out.append(pw[start:])
    return np.concatenate(out)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_summary_source_features_match_brute_force(seed):
    net, motifs, sources, genes = random_toy(seed)
    f = PairFeaturizer(net, motifs, sources, min_domain_genes=2, domain_eps=0.05,
                       source_features="summary", reaction_kinds=seed == 2, subsystems=seed >= 1)
    assert f.feature_names_[:9] == ["fork:expr:r_mean", "fork:expr:r_max", "fork:expr:r_top3",
                                    "fork:domain:kl_mean", "fork:domain:share_fraction",
                                    "fork:domain:shared_max_log1p", "fork:loc:hamming_mean",
                                    "fork:loc:share_fraction", "fork:net:adjacent_log1p_count"]
    checked = 0
    for r in net.reactions.index:
        C = f.candidate_matrix(r, genes)
        np.testing.assert_allclose(C, f.transform([r] * len(genes), genes), rtol=1e-12)
        for i, g in enumerate(genes):
            ref = reference_summary(f, net, motifs, sources, 0.05, 2, r, g)
            np.testing.assert_allclose(C[i], ref, rtol=F32, atol=1e-12, err_msg=f"{r} {g}")
            checked += int(not np.isnan(ref[1]))
        g = genes[seed]
        hs, X = f.leave_one_out(r, g)
        for h, row in zip(hs, X):
            ref = reference_summary(f, net, motifs, sources, 0.05, 2, r, g, drop=h)
            np.testing.assert_allclose(row, ref, rtol=F32, atol=1e-12, err_msg=f"{r} {g} -{h}")
    assert checked > 10  # the random networks do exercise the expression summaries
    # block_sums reads the mean column: equal to the point-wise sums (each
    # point-wise term on the float32 grid before they are summed)
    pw = PairFeaturizer(net, motifs, sources, min_domain_genes=2, domain_eps=0.05)
    r = net.reactions.index[0]
    np.testing.assert_allclose(f.block_sums(f.candidate_matrix(r, genes), "expr"),
                               pw.block_sums(pw.candidate_matrix(r, genes), "expr"), rtol=1e-5, atol=1e-7)
    with pytest.raises(ValueError, match="'source_features' parameter of PairFeaturizer"):
        PairFeaturizer(net, motifs, sources, source_features="both")


def test_pickle_with_the_former_parameter_name_loads(feat):
    """A featurizer pickled when ``source_features`` was named
    ``representation`` loads with the new name and the same features."""
    import pickle

    state = dict(vars(feat))
    state["representation"] = state.pop("source_features")
    old = PairFeaturizer.__new__(PairFeaturizer)
    old.__dict__.update(state)
    loaded = pickle.loads(pickle.dumps(old))
    assert loaded.source_features == feat.source_features and "representation" not in vars(loaded)
    np.testing.assert_array_equal(loaded.transform(["R1", "R2"], ["G1", "G3"]),
                                  feat.transform(["R1", "R2"], ["G1", "G3"]))
    again = pickle.loads(pickle.dumps(feat))
    assert vars(again).keys() == vars(feat).keys()


def test_transform_pairs_in_any_order(feat):
    rs = ["R3", "R1", "R4", "R1", "R2"]
    gs = ["G5", "G5", "G3", "G3", "G1"]
    X = feat.transform(rs, gs)
    for i, (r, g) in enumerate(zip(rs, gs)):
        np.testing.assert_array_equal(X[i], feat.candidate_matrix(r, [g])[0])


def test_bad_inputs():
    net, motifs, sources = toy()
    with pytest.raises(GeomarginInputError, match="subset of"):
        PairFeaturizer(net, motifs, {"expression": sources["expr"]})
    bad = {**motifs, "fork": {"R1": frozenset({"R9"})}}
    with pytest.raises(GeomarginInputError, match="'R9'"):
        PairFeaturizer(net, bad, sources)
    with pytest.raises(ValueError, match="min_domain_genes"):
        PairFeaturizer(net, motifs, sources, min_domain_genes=0)
    loc = sources["loc"].copy()
    loc.iloc[0, 0] = 2
    with pytest.raises(GeomarginInputError, match="loc"):
        PairFeaturizer(net, motifs, {"loc": loc})
    dup = pd.concat([sources["expr"], sources["expr"].iloc[:1].rename(index={"G1": "g1"})])
    with pytest.raises(GeomarginInputError, match="duplicate genes"):
        PairFeaturizer(net, motifs, {"expr": dup})
    f = PairFeaturizer(net, motifs, sources)
    with pytest.raises(GeomarginInputError, match="'R7'"):
        f.candidate_matrix("R7", ["G1"])
    with pytest.raises(ValueError, match="one gene per reaction"):
        f.transform(["R1", "R2"], ["G1"])


def test_gene_ids_normalized():
    net, motifs, sources = toy()
    net.reactions.at["R2", "genes"] = ("YER060W_A",)
    expr = sources["expr"].rename(index={"G2": "YER060W-A"})
    f = PairFeaturizer(net, motifs, {"expr": expr})
    assert f.neighbour_genes("R1", "g5")["fork"] == ["G3", "YER060W-A"]
    a = f.transform(["R1"], ["G5"])
    b = f.transform(["R1"], ["g5"])
    np.testing.assert_array_equal(a, b)
    assert not np.isnan(a).all()


# --------------------------------------------------------------- instances
def test_build_instances():
    net, _, _ = toy()
    net.reactions.loc["R1__rev"] = ["R1", ("G1",)]
    pool = ["G1", "G2", "G3", "G4", "G5", "G6"]
    inst = build_instances(net, pool, negatives_per_positive=2, seed=3)
    pos = inst[inst.label == 1]
    assert list(zip(pos.reaction, pos.gene)) == [("R1", "G1"), ("R2", "G2"), ("R3", "G1"),
                                                 ("R3", "G3"), ("R1__rev", "G1")]
    neg = inst[inst.label == 0]
    assert neg.groupby("reaction").size().to_dict() == {"R1": 2, "R2": 2, "R3": 4, "R1__rev": 2}
    for r, g in zip(neg.reaction, neg.gene):
        assert g in pool and g not in net.reactions.loc[r, "genes"]
    # no duplicate impostor within a reaction when the pool is large enough
    assert not neg.duplicated(["reaction", "gene"]).any()
    assert inst.loc[inst.reaction == "R1__rev", "instance_group"].eq("R1").all()
    assert "R4" not in set(inst.reaction)
    again = build_instances(net, pool, negatives_per_positive=2, seed=3)
    pd.testing.assert_frame_equal(inst, again)
    other = build_instances(net, pool, negatives_per_positive=2, seed=4)
    assert not other.equals(inst)
    with pytest.raises(ValueError, match="negatives_per_positive"):
        build_instances(net, pool, negatives_per_positive=-1, seed=0)
    # mix_fraction 0 keeps the draws; 1 draws every impostor from mix_genes
    same = build_instances(net, pool, 2, seed=3, mix_genes=["X1", "X2", "X3"], mix_fraction=0.0)
    pd.testing.assert_frame_equal(inst, same)
    allmix = build_instances(net, pool, 2, seed=3, mix_genes=["X1", "X2", "X3"], mix_fraction=1.0)
    assert set(allmix.loc[allmix.label == 0, "gene"]) <= {"X1", "X2", "X3"}
    # a mix of 0.5 over many draws: about half from each pool (binomial, 400 draws)
    wide = [f"P{i}" for i in range(400)]
    big = build_instances(net, wide, 100, seed=5, mix_genes=[f"X{i}" for i in range(400)], mix_fraction=0.5)
    share = big.loc[big.label == 0, "gene"].str.startswith("X").mean()
    assert abs(share - 0.5) < 0.1
    with pytest.raises(ValueError, match="'mix_fraction' parameter of build_instances"):
        build_instances(net, pool, 1, seed=0, mix_genes=["X1"], mix_fraction=1.5)
    with pytest.raises(ValueError, match="needs a non-empty mix_genes"):
        build_instances(net, pool, 1, seed=0, mix_fraction=0.5)


def test_candidate_pools():
    expr = pd.DataFrame({"c0": [1.0, np.nan, 2.0]}, index=["G2", "G9", "G7"])
    loc = pd.DataFrame({"nucleus": [0.0]}, index=["G8"])
    sources = {"expr": expr, "loc": loc}
    model = ["G1", "G2"]
    # "all": every gene with a value in some source (G9 has none)
    assert candidate_pools("all", "network", 0.5, model, sources) == (["G2", "G7", "G8"], model, 0.0)
    assert candidate_pools("all", "candidates", 0.5, model, sources) == (["G2", "G7", "G8"],
                                                                         ["G2", "G7", "G8"], 0.0)
    assert candidate_pools("all", "mix", 0.25, model, sources) == (["G2", "G7", "G8"], model, 0.25)
    assert candidate_pools("model", "candidates", 0.5, model, sources) == (model, model, 0.0)


# --------------------------------------------------------------- real data
def test_real_network_integration(mirror):
    io_mod = pytest.importorskip("geomargin.featurize.metabolic.model_io")
    net_mod = pytest.importorskip("geomargin.featurize.metabolic.network")
    mot_mod = pytest.importorskip("geomargin.featurize.metabolic.motifs")
    from geomargin.featurize.metabolic.annotation import parse_gaf
    from geomargin.featurize.metabolic.expression import load_expression
    y = Path(mirror) / "yeast"
    model = io_mod.load_model(y / "network" / "iMM904.json")
    net = net_mod.build_directed_network(model)
    motifs = mot_mod.find_motifs(net)
    ann = parse_gaf(y / "annotation" / "sgd_2022-05-17.gaf")
    expr = load_expression([y / "expression" / "gasch2000_subset.tsv"])
    f = PairFeaturizer(net, motifs, {"expr": expr, "domain": ann.domains,
                                     "loc": ann.localization})
    n_dom = sum(1 for n in f.feature_names_ if n.startswith("fork:domain:"))
    assert 100 < n_dom < ann.domains.shape[1]
    inst = build_instances(net, sorted({g for gs in net.reactions.genes for g in gs}), 1, 0)
    sub = inst.iloc[:200]
    X = f.transform(sub.reaction, sub.gene)
    assert X.shape == (200, len(f.feature_names_))
    assert np.isfinite(X[~np.isnan(X)]).all()
    assert (~np.isnan(X)).any(axis=0).sum() > 0.2 * X.shape[1]


def test_candidate_matrix_out_buffer(feat):
    genes = ["G1", "G2", "G3", "G4", "G5", "NOPE"]
    buf = np.full((len(genes), len(feat.feature_names_)), 7.0)
    res = feat.candidate_matrix("R1", genes, out=buf)
    assert res is buf
    np.testing.assert_array_equal(np.isnan(buf), np.isnan(feat.transform(["R1"] * 6, genes)))
    # a reused buffer gives the same values for another reaction
    np.testing.assert_array_equal(
        np.nan_to_num(feat.candidate_matrix("R2", genes, out=buf), nan=-9),
        np.nan_to_num(feat.transform(["R2"] * 6, genes), nan=-9))
    with pytest.raises(ValueError, match="C-contiguous float64"):
        feat.candidate_matrix("R1", genes, out=np.zeros((2, 2)))


def test_candidate_matrix_alternating_batches(feat):
    """Scoring reaction by reaction on several candidate batches (the
    gathered data of recent batches kept) gives every matrix as a fresh
    featurizer does, also after more batches than it keeps."""
    batches = [["G1", "G2"], ["G3", "G4", "G5"], ["G2", "G5", "NOPE"]]
    batches += [[g] for g in ("G1", "G2", "G3", "G4", "G5")] * 2
    assert len(batches) > featurizer_module.RECENT_BATCHES
    net, motifs, sources = toy()
    for r in ("R1", "R2", "R1"):
        for genes in batches:
            fresh = PairFeaturizer(net, motifs, sources, min_domain_genes=2, domain_eps=1.0)
            np.testing.assert_array_equal(feat.candidate_matrix(r, genes), fresh.candidate_matrix(r, genes))
    assert len(feat._gather_recent) == featurizer_module.RECENT_BATCHES


def test_fit_feature_scale_is_unit_std_over_present_values_without_centring():
    """Independent check against a hand computation on a small matrix."""
    import numpy as np
    import pandas as pd
    from types import SimpleNamespace

    from geomargin.featurize.metabolic.pairs import PairFeaturizer

    net = SimpleNamespace(reactions=pd.DataFrame({"genes": [("YAL001C",), ("YAL002W",)]},
                                                 index=["R1", "R2"]))
    motifs = {"fork": {"R1": frozenset({"R2"}), "R2": frozenset({"R1"})}}
    expr = pd.DataFrame({"c0": [1.0, 2.0, 0.5], "c1": [0.0, 1.0, 3.0]},
                        index=["YAL001C", "YAL002W", "YAL003W"])
    f = PairFeaturizer(net, motifs, {"expr": expr}, adjacency=False)
    raw = f.transform(["R1", "R1", "R2"], ["YAL003W", "YAL001C", "YAL003W"])
    X = np.array([[2.0, np.nan], [4.0, 5.0], [np.nan, np.nan]])[:, : f.n_features_]
    scale = f.fit_feature_scale(X)
    # column 0: present 2, 4 -> std 1 -> scale 1; column 1: one value -> 1
    assert scale.tolist() == [1.0, 1.0][: f.n_features_]
    X2 = np.array([[1.0, 0.0], [3.0, 4.0], [np.nan, 8.0]])[:, : f.n_features_]
    scale = f.fit_feature_scale(X2)
    np.testing.assert_allclose(scale, [1.0, 1.0 / np.std([0.0, 4.0, 8.0])][: f.n_features_])
    scaled = f.transform(["R1", "R1", "R2"], ["YAL003W", "YAL001C", "YAL003W"])
    np.testing.assert_allclose(scaled, raw * scale, equal_nan=True)
    # zero stays zero (no centring)
    assert np.all((scaled == 0) == (raw == 0))


def test_expression_zscores_hand_computed(feat):
    z = feat.expression_zscores(["G1", "G2", "G4", "g1"])
    # G1 = (1, 2, 3): mean 2, population sd sqrt(2/3)
    s = math.sqrt(2 / 3)
    assert np.allclose(z.loc["G1"].to_numpy(), [-1 / s, 0, 1 / s])
    # G2 = (2, 0, NaN): over the two present values mean 1, sd 1
    assert np.allclose(z.iloc[1].to_numpy()[:2], [1, -1]) and np.isnan(z.iloc[1, 2])
    assert z.iloc[2].isna().all()                 # G4 has no expression data
    assert np.allclose(z.iloc[3], z.iloc[0])      # ids are normalized
    assert list(z.columns) == ["c0", "c1", "c2"]


# ------------------------------------------------------------ fold groups
def test_fold_groups_join_the_acyl_chain_copies_of_a_lipid_reaction():
    """The copies of one reaction per acyl chain share a group; a transport
    of the same lipid class between other compartments, and a reaction of
    the same lipid classes with other cofactors, do not."""
    import cobra

    from geomargin.featurize.metabolic.network import build_directed_network
    from geomargin.featurize.metabolic.pairs.sampling import fold_groups

    m = cobra.Model("lipids")
    mets = {}   # yeast-GEM's style: s_NNNN ids, compartment as a field, keys from names
    for n in ["PC (16:0)", "PC (18:1)", "PA (16:0)", "PA (18:1)", "A", "B", "ATP", "ADP", "H2O", "Pi",
              "palmitoyl-CoA", "hexacosanoyl-CoA", "hexadecanoate (n-C16:0)", "oleate", "2-oxobutanoate",
              "2-oxohexanoate"]:
        for c in ("c", "er", "lp"):
            mets[n, c] = cobra.Metabolite(f"s_{len(mets):04d}", name=n, compartment=c)
    for rid, stoich, rule, lb in [
            ("r_pc16", {("PC (16:0)", "c"): -1, ("PA (16:0)", "c"): 1}, "YAL001C", 0),
            ("r_pc18", {("PC (18:1)", "c"): -1, ("PA (18:1)", "c"): 1}, "YAL001C", -1000),
            ("r_ab", {("A", "c"): -1, ("B", "c"): 1}, "YAL002W", -1000),
            # transports of PC: cytosol-ER (two chain copies) and ER-lipid particle
            ("t_c_er16", {("PC (16:0)", "c"): -1, ("PC (16:0)", "er"): 1}, "YAL003W", 0),
            ("t_c_er18", {("PC (18:1)", "c"): -1, ("PC (18:1)", "er"): 1}, "YAL003W", 0),
            ("t_er_lp16", {("PC (16:0)", "er"): -1, ("PC (16:0)", "lp"): 1}, "", 0),
            # a PA kinase and a phosphatase between the same lipid classes
            ("k_pa16", {("PA (16:0)", "er"): -1, ("ATP", "er"): -1, ("PC (16:0)", "er"): 1,
                        ("ADP", "er"): 1}, "YAL004W", 0),
            ("p_pa18", {("PC (18:1)", "er"): -1, ("H2O", "er"): -1, ("PA (18:1)", "er"): 1,
                        ("Pi", "er"): 1}, "", 0),
            # one acyl-CoA transport per chain length, and fatty acids named two ways
            ("a_c16", {("palmitoyl-CoA", "c"): -1, ("palmitoyl-CoA", "er"): 1}, "YAL005W", 0),
            ("a_c26", {("hexacosanoyl-CoA", "c"): -1, ("hexacosanoyl-CoA", "er"): 1}, "", 0),
            ("f_c16", {("hexadecanoate (n-C16:0)", "c"): -1, ("hexadecanoate (n-C16:0)", "lp"): 1}, "", 0),
            ("f_c18", {("oleate", "c"): -1, ("oleate", "lp"): 1}, "", 0),
            # short keto acids are not acyl chains
            ("o_c4", {("2-oxobutanoate", "c"): -1, ("2-oxobutanoate", "er"): 1}, "", 0),
            ("o_c6", {("2-oxohexanoate", "c"): -1, ("2-oxohexanoate", "er"): 1}, "", 0)]:
        r = cobra.Reaction(rid, lower_bound=lb, upper_bound=1000)
        m.add_reactions([r])
        r.add_metabolites({mets[k]: v for k, v in stoich.items()})
        r.gene_reaction_rule = rule
    net = build_directed_network(m, n_currency=0)
    groups = fold_groups(net)
    assert groups.to_dict() == {"r_pc16": "r_pc16", "r_pc18": "r_pc16", "r_pc18__rev": "r_pc16",
                                "r_ab": "r_ab", "r_ab__rev": "r_ab",
                                "t_c_er16": "t_c_er16", "t_c_er18": "t_c_er16", "t_er_lp16": "t_er_lp16",
                                "k_pa16": "k_pa16", "p_pa18": "p_pa18",
                                "a_c16": "a_c16", "a_c26": "a_c16", "f_c16": "f_c16", "f_c18": "f_c16",
                                "o_c4": "o_c4", "o_c6": "o_c6"}
    inst = build_instances(net, ["YAL001C", "YAL002W", "YAL003W", "YAL004W", "YAL005W"],
                           negatives_per_positive=1, seed=0)
    assert inst.set_index("reaction")["fold_group"].groupby(level=0).first().to_dict() == \
        {r: groups[r] for r in set(inst["reaction"])}
    assert inst.loc[inst.reaction == "r_pc18", "instance_group"].eq("r_pc18").all()  # the query


def test_fold_groups_on_real_models(imm904, yeast_gem_902):
    """iMM904 writes no lipid species: every group is the model reaction,
    as before. yeast-GEM 9.0.2 joins its acyl-chain copies."""
    from geomargin.featurize.metabolic.network import build_directed_network
    from geomargin.featurize.metabolic.pairs.sampling import fold_groups

    net = build_directed_network(imm904)
    assert fold_groups(net).equals(net.reactions["reaction_id"].rename("fold_group"))
    net = build_directed_network(yeast_gem_902)
    with_genes = net.reactions.index[net.reactions["genes"].map(bool)]
    groups = fold_groups(net)[with_genes]
    models = net.reactions.loc[with_genes, "reaction_id"]
    assert groups.nunique() < models.nunique() - 1000
    assert groups.value_counts().iloc[0] > 100   # one acyltransferase, written per chain pair
    # DRS2 flips PE and PS between the Golgi and the ER; the orphan PE
    # transports between the ER and lipid particles are other reactions
    groups = fold_groups(net)
    has_genes = net.reactions["genes"].map(bool)
    drs2 = net.reactions.index[net.reactions["genes"].map(lambda g: "YAL026C" in g)]
    assert len(drs2) == 32
    assert has_genes[groups.isin(groups[drs2])].all()
    # one beta-oxidation step, written once per chain length, is one group
    assert groups["r_0124"] == groups["r_0125"] == groups["r_2239"]   # acyl-CoA oxidase C18, C14, C20
    # only the fatty acid transports (cytosol-peroxisome, cytosol-extracellular)
    # join orphans with reactions that have genes: myristate's transport shows
    # FAT1 as a near-copy gene instead of reading it
    mixed = has_genes.groupby(groups).nunique().gt(1)
    assert sorted(mixed.index[mixed]) == ["r_1236", "r_1777"]
    assert not has_genes["r_1777"] and "YBR041W" in net.reactions.at["r_1835", "genes"]
    assert groups["r_1835"] == "r_1777"


def test_features_lie_on_the_float32_grid_and_ignore_last_bits():
    """Every matrix is rounded to float32 values, scale included, so a change
    in the last bits of a computation (another CPU's BLAS or SIMD loops) does
    not reach the features: here the expression data perturbed by 1e-13."""
    from geomargin.featurize.metabolic.pairs.scale import float32_grid

    net, motifs, sources = toy()
    f = PairFeaturizer(net, motifs, sources, min_domain_genes=2, domain_eps=1.0)
    reactions, genes = ["R1", "R2", "R3", "R4"] * 3, ["G1", "G2", "G3", "G5"] * 3
    X = f.transform(reactions, genes)
    assert np.array_equal(X, X.astype(np.float32), equal_nan=True)
    expr = sources["expr"]
    shaken = {**sources, "expr": expr + 1e-13 * np.arange(expr.size).reshape(expr.shape)}
    g = PairFeaturizer(net, motifs, shaken, min_domain_genes=2, domain_eps=1.0)
    Y = g.transform(reactions, genes)
    assert not np.array_equal(shaken["expr"], expr) and np.isfinite(X).sum() > 20
    np.testing.assert_array_equal(Y, X)
    # the fitted scale and the scaled matrices too
    f.fit_feature_scale(X)
    g.fit_feature_scale(Y)
    assert np.array_equal(f.feature_scale_, f.feature_scale_.astype(np.float32))
    np.testing.assert_array_equal(g.scaled(Y), f.scaled(X))
    np.testing.assert_array_equal(f.candidate_matrix("R4", ["G1", "G3"]), g.candidate_matrix("R4", ["G1", "G3"]))
    with pytest.raises(ValueError, match="beyond float32's range"):
        float32_grid(np.array([1e39]))
    with pytest.raises(ValueError, match="fit_feature_scale has not been called"):
        PairFeaturizer(net, motifs, sources).scaled(X)
