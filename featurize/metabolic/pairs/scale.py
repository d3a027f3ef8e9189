"""The feature scale of :class:`~geomargin.featurize.metabolic.pairs.PairFeaturizer`
(:class:`FeatureScale`: unit standard deviation per feature over its present
values, its undoing, and the per-motif sums of a source block) and the
float32 grid every feature matrix is put on (:func:`float32_grid`).
:class:`PairFeaturizer` inherits the methods from :class:`FeatureScale`.
"""

from __future__ import annotations

import numpy as np

__all__ = ["FeatureScale", "ZERO_SNAP", "float32_grid"]


#: Feature values closer to 0 than this are set to 0 (:func:`float32_grid`):
#: a value that is 0 in exact arithmetic can come out as a rounding residue
#: of a few 1e-16 times its terms' size.
ZERO_SNAP = 2.0 ** -32


def float32_grid(X: np.ndarray) -> np.ndarray:
    """Round the float64 array ``X`` in place to the nearest float32 values,
    values closer to 0 than :data:`ZERO_SNAP` to 0 (still float64; NaN stays
    NaN), and return it.

    Every feature matrix the featurizer returns is on this grid, so that its
    values do not depend on the machine: BLAS kernels and numpy's SIMD loops
    differ between CPUs (AVX2, AVX-512) in the last bits of sums and
    products, and gradient boosting's bin edges and kNN's distance ties turn
    such bits into other models. On the grid, two machines' values differ
    only where one lies within a few float64 ulps of a float32 rounding
    boundary or of ``ZERO_SNAP``, which is rare; the 7 significant digits
    kept are more than any feature's precision.

    Examples
    --------
    >>> x = np.array([0.1, np.nan, 1.0 + 2.0 ** -40, -1e-16])
    >>> float32_grid(x).tolist()[2:], bool(x[0] == np.float32(0.1)), bool(np.isnan(x[1]))
    ([1.0, 0.0], True, True)
    """
    with np.errstate(over="ignore"):
        q = X.astype(np.float32)
    if np.isinf(q).sum() != np.isinf(X).sum():
        raise ValueError("float32_grid: a feature value beyond float32's range (|x| > 3.4e38)")
    q[np.abs(q) < ZERO_SNAP] = 0.0
    X[...] = q
    return X


class FeatureScale:
    """Feature-scale methods of :class:`~geomargin.featurize.metabolic.pairs.PairFeaturizer`."""

    def fit_feature_scale(self, X: np.ndarray) -> np.ndarray:
        """Scale every feature to unit standard deviation over its present values.

        The blocks have very different natural scales (point-wise Pearson
        terms are ~1/n_conditions, symmetric-KL terms can be large, Hamming
        terms are 0/1), which would let one source dominate any kernel. The
        scale is label-free and is *not* a centring: 0 keeps its meaning, so
        zero imputation stays zero imputation. Features with fewer than two
        present values or no spread keep scale 1. ``X`` must be unscaled
        output of this featurizer (e.g. the training pairs); afterwards every
        matrix this featurizer returns is multiplied by the scale.

        Returns
        -------
        scale : ndarray of shape (n_features,)
        """
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.n_features_:
            raise ValueError(f"fit_feature_scale: X must have shape (n, {self.n_features_}); "
                             f"got {X.shape}")
        present = (~np.isnan(X)).sum(axis=0)
        sd = np.zeros(self.n_features_)
        cols = present >= 2
        if cols.any():
            sd[cols] = np.nanstd(X[:, cols], axis=0)
        ok = (present >= 2) & np.isfinite(sd) & (sd > 1e-12)
        scale = np.ones(self.n_features_)
        scale[ok] = 1.0 / sd[ok]
        self.feature_scale_ = float32_grid(scale)
        return self.feature_scale_

    def scaled(self, X: np.ndarray) -> np.ndarray:
        """``X`` (unscaled output of this featurizer) times the fitted scale,
        on the float32 grid (:func:`float32_grid`), as every matrix the
        featurizer builds once the scale is fitted; a new array."""
        if self.feature_scale_ is None:
            raise ValueError("scaled: fit_feature_scale has not been called")
        return float32_grid(np.asarray(X, dtype=np.float64) * self.feature_scale_)

    def block_sums(self, X: np.ndarray, kind: str) -> np.ndarray:
        """Per motif type, the sum of the ``kind`` block of each row, unscaled.

        For ``expr`` this is the mean Pearson r between the candidate's
        profile and those of the motif type's neighbours (over the
        conditions both have; the features are its point-wise terms); for
        ``domain`` the mean symmetric KL divergence of the domain contents;
        for ``loc`` the mean Hamming distance of the compartments. NaN where
        the block is absent.

        Parameters
        ----------
        X : ndarray of shape (n, n_features)
            Rows as returned by this featurizer (scaled or not: the
            feature scale, if fitted, is undone).
        kind : {"expr", "domain", "loc"}

        Returns
        -------
        ndarray of shape (n, len(motif_types_))
        """
        if kind not in self.sources_:
            raise ValueError(f"block_sums: kind must be one of {self.sources_}. Got {kind!r} instead.")
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.n_features_:
            raise ValueError(f"block_sums: X must have shape (n, {self.n_features_}); got {X.shape}")
        out = np.full((X.shape[0], len(self.motif_types_)), np.nan)
        for j, t in enumerate(self.motif_types_):
            sl = self._block_at[t, kind]
            if sl.stop == sl.start:
                continue
            B = self.unscaled(X, sl)
            if self.source_features == "summary":  # the first summary is the mean
                out[:, j] = B[:, 0]
                continue
            present = ~np.isnan(B).all(axis=1)
            out[present, j] = np.nansum(B[present], axis=1)
        return out

    def unscaled(self, X: np.ndarray, columns) -> np.ndarray:
        """Columns ``columns`` (a slice or indices) of ``X`` in the features'
        own units: divided by the fitted :meth:`fit_feature_scale`, if any.

        Examples
        --------
        >>> F = FeatureScale()
        >>> F.feature_scale_ = np.array([2.0, 4.0, 1.0])
        >>> F.unscaled(np.array([[2.0, 4.0, 5.0]]), [0, 1]).tolist()
        [[1.0, 1.0]]
        """
        B = np.asarray(X, dtype=np.float64)[:, columns]
        if self.feature_scale_ is not None:
            B = B / self.feature_scale_[columns]
        return B
