"""The ``loc`` block: subcellular compartments of the candidate against the neighbour genes.

One feature per compartment: the point-wise Hamming distance
``|a_g(k) - a_h(k)|`` averaged over neighbours, ``a_g + m - 2 a_g m`` with
``m`` the neighbours' mean. Summaries: the mean Hamming distance and the
fraction of neighbours that share a compartment.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from geomargin.common.exceptions import GeomarginInputError
from geomargin.featurize.metabolic.pairs.base import WholeRowSourceBlock

__all__ = ["LocBlock"]


class LocBlock(WholeRowSourceBlock):
    """Localization (genes x compartments, 0/1)."""

    name = "loc"
    config_key = "metabolic.datasets.<dataset>.localization"
    items = ("hamming_mean", "share_fraction")
    _rows_key = "A"

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

    def _mean(self, B_rows, cn):
        return self.arrays["A"][B_rows].sum(axis=0) / cn

    def _fast_block(self, B_rows, cn, gd, out):
        m = self._mean(B_rows, cn)
        np.multiply(gd["A"], 1.0 - 2.0 * m, out=out)
        out += m

    def _fast_sum(self, B_rows, cn, gd):
        m = self._mean(B_rows, cn)
        return gd["A"] @ (1.0 - 2.0 * m) + m.sum()   # NaN rows stay NaN

    def _block(self, g_rows, means):
        m = means("A")
        ag = self.arrays["A"][g_rows]
        return ag + m - 2.0 * ag * m

    def similarity(self, g_rows, nb_rows):
        A = self.arrays["A"]
        return A[g_rows] @ A[nb_rows].T

    def summaries(self, S):
        shared = np.where(np.isnan(S), np.nan, S > 0)
        return [np.nanmean(shared, axis=1)]
