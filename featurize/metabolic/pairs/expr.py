"""The ``expr`` block: co-expression of the candidate with the neighbour genes.

One feature per condition k: ``z_g(k) * mean_h z_h(k)``, where each profile is
centred (its mean over present conditions subtracted) and divided by its norm
over present values, so that summing the terms over k gives Pearson's r. The
mean runs over neighbours with a value at k; the feature is NaN where g has no
value or no neighbour has one. Profiles with fewer than two values or zero
variance count as no expression data. Summaries: the mean r (the sum of the
point-wise terms), the largest r with one neighbour and the mean of the three
largest.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from geomargin.featurize.metabolic.pairs.base import SourceBlock

__all__ = ["ExprBlock"]


class ExprBlock(SourceBlock):
    """Expression profiles (genes x conditions, NaN = missing)."""

    name = "expr"
    config_key = "metabolic.datasets.<dataset>.expression"
    items = ("r_mean", "r_max", "r_top3")

    def prepare(self, df: pd.DataFrame, network_genes) -> None:
        x = df.to_numpy(dtype=np.float64)
        present = ~np.isnan(x)
        n_present = present.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.nansum(x, axis=1) / n_present
            xc = x - mean[:, None]
            norm = np.sqrt(np.nansum(xc * xc, axis=1))
        keep = (n_present >= 2) & (norm > 1e-12 * np.maximum(1.0, np.nanmax(np.abs(x), axis=1, initial=0)))
        z = xc[keep] / norm[keep, None]
        genes = list(df.index[keep])
        k = x.shape[1]
        Z = np.vstack([z, np.full((1, k), np.nan)])
        self._keep(df.columns, genes, {
            "Z": Z, "Z0": np.nan_to_num(Z, nan=0.0),
            "P": np.vstack([present[keep], np.zeros((1, k), bool)]).astype(np.float64)})

    def _sums(self, B_rows):
        a = self.arrays
        return a["Z0"][B_rows].sum(axis=0), a["P"][B_rows].sum(axis=0)

    def gather(self, rows):
        a = self.arrays
        return {"Z": a["Z"][rows], "Z0": a["Z0"][rows], "P": a["P"][rows]}

    def fast_block(self, B_rows, gd, out):
        S, C = self._sums(B_rows)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(C > 0.5, S / np.where(C > 0.5, C, 1.0), np.nan)
        np.multiply(gd["Z"], mean, out=out)

    def fast_sum(self, B_rows, gd):
        S, C = self._sums(B_rows)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(C > 0.5, S / np.where(C > 0.5, C, 1.0), 0.0)
        out = gd["Z0"] @ mean
        out[gd["P"] @ (C > 0.5) < 0.5] = np.nan   # no condition with both values
        return out

    def block(self, B_rows, g_rows, sub_rows):
        a = self.arrays
        S, C = (v[None, :] for v in self._sums(B_rows))
        S = S - sum(a["Z0"][s] for s in sub_rows)
        C = C - sum(a["P"][s] for s in sub_rows)
        with np.errstate(invalid="ignore", divide="ignore"):
            return a["Z"][g_rows] * np.where(C > 0.5, S / np.where(C > 0.5, C, 1.0), np.nan)

    def similarity(self, g_rows, nb_rows):
        Z0 = self.arrays["Z0"]
        return Z0[g_rows] @ Z0[nb_rows].T

    def summaries(self, S):
        largest = np.nanmax(S, axis=1)
        filled = np.where(np.isnan(S), -np.inf, S)
        k = min(3, S.shape[1])
        top = -np.sort(-np.partition(filled, S.shape[1] - k, axis=1)[:, -k:], axis=1)
        top[np.isinf(top)] = np.nan
        return [largest, np.nanmean(top, axis=1)]

    def zscores(self, rows: np.ndarray) -> np.ndarray:
        """Standardized profiles of the genes at ``rows`` (population standard
        deviation over their present conditions; NaN rows without data)."""
        a = self.arrays
        n = a["P"][rows].sum(axis=1)
        return a["Z"][rows] * np.sqrt(n)[:, None]
