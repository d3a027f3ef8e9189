"""The ``loc`` block: subcellular compartments of the candidate against the neighbour genes.

One feature per compartment: the point-wise Hamming distance
``|a_g(k) - a_h(k)|`` averaged over neighbours, ``a_g + m - 2 a_g m`` with
``m`` the neighbours' mean. Summaries: the mean Hamming distance and the
fraction of neighbours that share a compartment.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from common.exceptions import GeomarginInputError
from featurize.metabolic.pairs.base import SourceBlock

__all__ = ["LocBlock"]


class LocBlock(SourceBlock):
    """Localization (genes x compartments, 0/1)."""

    name = "loc"
    config_key = "metabolic.datasets.<dataset>.localization"
    items = ("hamming_mean", "share_fraction")

    def prepare(self, df: pd.DataFrame, network_genes) -> None:
        x = df.to_numpy(dtype=np.float64)
        if np.isnan(x).any() or (x < 0).any() or (x > 1).any():
            raise GeomarginInputError("sources['loc'] must hold 0/1 values without NaN "
                                      "(genes without localization data: leave them out)")
        genes = list(df.index)
        self._keep(df.columns, genes, {
            "A": np.vstack([x, np.zeros((1, x.shape[1]))]),
            "An": np.vstack([x, np.full((1, x.shape[1]), np.nan)]),
            "has": np.r_[np.ones(len(genes)), 0.0]})

    def gather(self, rows):
        return {"A": self.arrays["An"][rows]}

    def fast_block(self, B_rows, gd, out):
        a = self.arrays
        cn = a["has"][B_rows].sum()
        if cn < 0.5:
            out[...] = np.nan
            return
        m = a["A"][B_rows].sum(axis=0) / cn
        np.multiply(gd["A"], 1.0 - 2.0 * m, out=out)
        out += m

    def fast_sum(self, B_rows, gd):
        a = self.arrays
        cn = a["has"][B_rows].sum()
        if cn < 0.5:
            return np.full(gd["A"].shape[0], np.nan)
        m = a["A"][B_rows].sum(axis=0) / cn
        return gd["A"] @ (1.0 - 2.0 * m) + m.sum()   # NaN rows stay NaN

    def block(self, B_rows, g_rows, sub_rows):
        a = self.arrays
        has = a["has"]
        n = len(g_rows)
        Cn = np.full(n, has[B_rows].sum()) - sum(has[s] for s in sub_rows)
        ok = (Cn > 0.5) & (has[g_rows] > 0)
        safe = np.where(Cn > 0.5, Cn, 1.0)[:, None]
        SA = np.broadcast_to(a["A"][B_rows].sum(axis=0), (n, a["A"].shape[1])) - sum(a["A"][s] for s in sub_rows)
        m = SA / safe
        ag = a["A"][g_rows]
        out = ag + m - 2.0 * ag * m
        out[~ok] = np.nan
        return out

    def similarity(self, g_rows, nb_rows):
        A = self.arrays["A"]
        return A[g_rows] @ A[nb_rows].T

    def summaries(self, S):
        shared = np.where(np.isnan(S), np.nan, S > 0)
        return [np.nanmean(shared, axis=1)]
