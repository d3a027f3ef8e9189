"""Motifs between directed reactions (Chechik et al. 2008, Fig. 3).

For directed reactions r and o (currency metabolites already removed by
:func:`geomargin.featurize.metabolic.network.build_directed_network`):

* ``fork``: r and o share a substrate;
* ``funnel``: r and o share a product;
* ``chain_down``: a product of r is a substrate of o (o is downstream of r);
* ``chain_up``: a product of o is a substrate of r (o is upstream of r).

With S and P the sparse reaction x metabolite incidence matrices of
substrates and products, the four relations are the non-zero patterns of
S S^T, P P^T, P S^T and S P^T. A reaction is never its own neighbour, and
the two directions of one model reaction (``<rid>`` and ``<rid>__rev``) are
not neighbours of each other either: they are the same enzyme activity, and
every reversible reaction would otherwise be chained to itself.

Example
-------
>>> from geomargin.featurize.metabolic.motifs import find_motifs               # doctest: +SKIP
>>> motifs = find_motifs(net)                              # doctest: +SKIP
>>> sorted(motifs["chain_down"]["R_ARO7"])                 # doctest: +SKIP
['R_PHA2']
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from geomargin.featurize.metabolic.network import DirectedNetwork

__all__ = ["MOTIF_TYPES", "find_motifs", "incidence_matrices"]

MOTIF_TYPES = ("fork", "funnel", "chain_up", "chain_down")


def incidence_matrices(net: DirectedNetwork) -> tuple[list[str], list[str], sp.csr_matrix, sp.csr_matrix]:
    """Reaction ids, metabolite keys and the 0/1 substrate (S) and product (P)
    incidence matrices (reactions x metabolites, CSR)."""
    rids = list(net.reactions.index)
    mets = sorted({m for r in rids for m in net.substrates[r]} | {m for r in rids for m in net.products[r]})
    col = {m: j for j, m in enumerate(mets)}

    def build(side: dict) -> sp.csr_matrix:
        rows = [i for i, r in enumerate(rids) for _ in side[r]]
        cols = [col[m] for r in rids for m in side[r]]
        data = np.ones(len(rows), dtype=np.int32)
        return sp.csr_matrix((data, (rows, cols)), shape=(len(rids), len(mets)))

    return rids, mets, build(net.substrates), build(net.products)


def find_motifs(net: DirectedNetwork) -> dict[str, dict[str, frozenset[str]]]:
    """Neighbours of every directed reaction for each motif type.

    Parameters
    ----------
    net : DirectedNetwork

    Returns
    -------
    dict
        ``{"fork", "funnel", "chain_up", "chain_down"} -> {reaction id ->
        frozenset of other directed reaction ids}``; every reaction of
        ``net`` is a key of every inner dict (empty set when it has none).
    """
    rids, _, S, P = incidence_matrices(net)
    n = len(rids)
    # the pair (r, r__rev) and (r, r) are excluded: build one exclusion matrix
    model_id = net.reactions["reaction_id"].to_numpy()
    _, code = np.unique(model_id, return_inverse=True)
    G = sp.csr_matrix((np.ones(n, dtype=np.int32), (np.arange(n), code)), shape=(n, code.max() + 1 if n else 0))
    same = (G @ G.T).astype(bool)

    products = {"fork": S @ S.T, "funnel": P @ P.T, "chain_down": P @ S.T, "chain_up": S @ P.T}
    out = {}
    for name in MOTIF_TYPES:
        M = (products[name] > 0).astype(np.int8).tocsr()
        M = (M - M.multiply(same)).tocsr()  # "and not same reaction"
        M.eliminate_zeros()
        ids = np.asarray(rids, dtype=object)
        out[name] = {
            rids[i]: frozenset(ids[M.indices[M.indptr[i]:M.indptr[i + 1]]].tolist()) for i in range(n)
        }
    return out
