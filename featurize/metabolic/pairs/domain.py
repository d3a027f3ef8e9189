"""The ``domain`` block: InterPro domain content of the candidate against the neighbour genes.

One feature per InterPro domain seen in at least ``min_domain_genes`` genes of
the network: the point-wise symmetric Kullback-Leibler term
``(p_g(k) - p_h(k)) (log p_g(k) - log p_h(k))`` on smoothed domain-content
distributions ``p_g = (a_g + eps) / sum_k (a_g(k) + eps)`` with
``eps = domain_eps`` (a pseudo-count per domain), averaged over neighbours. A
gene is without domain data if it has no domain at all in the table given
(before the column filter); a gene whose domains are all rare gets the
uniform distribution. Summaries: the mean symmetric KL divergence (the sum of
the point-wise terms), the fraction of neighbours that share a domain with
``g`` and ``log(1 + the most domains shared with one neighbour)``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from geomargin.common.exceptions import GeomarginInputError
from geomargin.featurize.metabolic.pairs.base import WholeRowSourceBlock

__all__ = ["DomainBlock"]


class DomainBlock(WholeRowSourceBlock):
    """Domain counts or 0/1 presence (genes x domains).

    Parameters
    ----------
    min_domain_genes : int
        Keep domains present in at least this many genes of the network.
    domain_eps : float
        Pseudo-count added to every domain count before normalizing.
    """

    name = "domain"
    config_key = "metabolic.datasets.<dataset>.annotation (and metabolic.min_domain_genes)"
    items = ("kl_mean", "share_fraction", "shared_max_log1p")
    _rows_key = "grp"

    def __init__(self, min_domain_genes: int, domain_eps: float):
        self.min_domain_genes = min_domain_genes
        self.domain_eps = domain_eps

    @classmethod
    def create(cls, featurizer):
        return cls(featurizer.min_domain_genes, featurizer.domain_eps)

    def prepare(self, df: pd.DataFrame, network_genes) -> None:
        x = df.to_numpy(dtype=np.float64)
        if np.isnan(x).any() or (x < 0).any():
            raise GeomarginInputError("sources['domain'] must hold counts >= 0 "
                                      "(0/1 presence), without NaN")
        has_any = x.sum(axis=1) > 0
        in_net = df.index.isin(network_genes)
        n_net = (x[in_net] > 0).sum(axis=0)
        cols = n_net >= self.min_domain_genes
        a = x[has_any][:, cols]
        genes = list(df.index[has_any])
        eps = self.domain_eps
        d = a.shape[1]
        n_g = a.sum(axis=1)
        denom = n_g + eps * d
        p = (a + eps) / denom[:, None]
        lp = np.log(p) if p.size else p
        zero = np.zeros((1, d))
        # Fast path: a gene's distribution is the constant c = eps / denom on
        # the domains it lacks, so rows are one of a few "background" rows
        # (one per distinct domain total) plus sparse corrections.
        totals, grp = np.unique(n_g, return_inverse=True)
        gc = eps / (totals + eps * d)
        gl = np.log(gc)
        ri, ki = np.nonzero(a > 0)
        c, lc = eps / denom, np.log(eps / denom)
        pv = p[ri, ki]
        indptr = np.r_[np.searchsorted(ri, np.arange(len(genes) + 1)), len(ri)]
        self._keep(df.columns[cols], genes, {
            "P": np.vstack([p, zero]), "L": np.vstack([lp, zero]),
            "PL": np.vstack([p * lp, zero]),
            "has": np.r_[np.ones(len(genes)), 0.0],
            "grp": np.r_[grp.reshape(-1), len(totals)].astype(np.intp),
            "gc": gc, "gl": gl, "indptr": indptr.astype(np.intp), "cols": ki.astype(np.intp),
            "dP": pv - c[ri], "dL": np.log(pv) - lc[ri], "dPL": pv * np.log(pv) - c[ri] * lc[ri]})
        # 0/1 kept-domain membership, last row = nothing
        a = self.arrays
        n_rows = self.null
        self._binary = sp.csr_matrix(
            (np.ones(len(a["cols"])), a["cols"], np.r_[a["indptr"][:n_rows + 1], a["indptr"][n_rows]]),
            shape=(n_rows + 1, len(self.items_)))

    @property
    def presence(self):
        """0/1 membership of the kept domains (CSR, the source's rows x
        ``items_``; the last, null row empty)."""
        return self._binary

    def _means(self, B_rows, cn):
        a = self.arrays
        return (a["P"][B_rows].sum(axis=0) / cn, a["L"][B_rows].sum(axis=0) / cn,
                a["PL"][B_rows].sum(axis=0) / cn)

    def gather(self, rows):
        a = self.arrays
        starts = a["indptr"][rows]
        counts = a["indptr"][rows + 1] - starts
        total = int(counts.sum())
        offs = np.cumsum(counts) - counts
        idx = np.arange(total) - np.repeat(offs - starts, counts)
        return {"grp": a["grp"][rows], "ii": np.repeat(np.arange(len(rows)), counts),
                "kk": a["cols"][idx], "dP": a["dP"][idx], "dL": a["dL"][idx], "dPL": a["dPL"][idx]}

    def _fast_block(self, B_rows, cn, gd, out):
        a = self.arrays
        mP, mL, mPL = self._means(B_rows, cn)
        # p_g lp_g - p_g mean(lp_h) - lp_g mean(p_h) + mean(p_h lp_h):
        # background rows, then the sparse corrections of each gene's domains
        gc, gl = a["gc"][:, None], a["gl"][:, None]
        R = np.vstack([gc * gl - gc * mL - gl * mP + mPL, np.full((1, len(mP)), np.nan)])
        out[...] = R[gd["grp"]]
        kk = gd["kk"]
        out[gd["ii"], kk] += gd["dPL"] - gd["dP"] * mL[kk] - gd["dL"] * mP[kk]

    def _fast_sum(self, B_rows, cn, gd):
        a = self.arrays
        n = gd["grp"].shape[0]
        mP, mL, mPL = self._means(B_rows, cn)
        gc, gl = a["gc"], a["gl"]
        R = np.r_[gc * gl * len(mP) - gc * mL.sum() - gl * mP.sum() + mPL.sum(), np.nan]
        kk = gd["kk"]
        corr = gd["dPL"] - gd["dP"] * mL[kk] - gd["dL"] * mP[kk]
        return R[gd["grp"]] + np.bincount(gd["ii"], weights=corr, minlength=n)

    def _block(self, g_rows, means):
        a = self.arrays
        sums = {key: means(key) for key in ("P", "L", "PL")}
        pg, lg = a["P"][g_rows], a["L"][g_rows]
        return pg * lg - pg * sums["L"] - lg * sums["P"] + sums["PL"]

    def similarity(self, g_rows, nb_rows):
        return (self._binary[g_rows] @ self._binary[nb_rows].T).toarray()

    def summaries(self, S):
        shared = np.where(np.isnan(S), np.nan, S > 0)
        return [np.nanmean(shared, axis=1), np.log1p(np.nanmax(S, axis=1))]
