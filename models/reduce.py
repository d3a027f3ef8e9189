"""Block-wise PCA that keeps structural absence: reduce each feature block
(``groups``) to a few principal components, leaving the block's components
absent (NaN) wherever the whole block was absent.

The methods of Shivaswamy et al., Dick et al. and Williams et al. model a
Gaussian (mixture) of ``x`` with full covariances, which does not scale to
thousands of features. Reducing every block on its own keeps what makes the
data interesting here: an instance missing a motif block is still missing
exactly that block after the reduction, so those methods still see the
missingness pattern (structurally absent blocks), only in fewer dimensions.
PCA itself is scikit-learn's.

Within a present block, isolated absent values (e.g. one expression
condition not measured) are filled with the block's training column means
before projecting: a PCA coefficient needs every coordinate.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.decomposition import PCA
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import check_is_fitted

from geomargin.common.checks import int_at_least, validate_params
from geomargin.models._validation import validate_feature_groups, validate_X_fit, validate_X_predict

__all__ = ["BlockPCA", "reduced_pipeline", "present_features", "block_fill",
           "blockwise_transform", "block_present", "iter_blocks"]


def block_present(B: np.ndarray) -> np.ndarray:
    """Rows in which a feature block ``B`` is present: not all of its
    features absent (NaN)."""
    return ~np.isnan(B).all(axis=1)


def iter_blocks(X: np.ndarray, groups: np.ndarray):
    """The feature blocks of ``groups`` in increasing group id, as
    ``(gid, cols, B, present)``: the block's position ``gid``, its column
    indices, ``B = X[:, cols]`` and :func:`block_present` of ``B``.

    Examples
    --------
    >>> X = np.array([[1.0, np.nan, 2.0], [np.nan, np.nan, 3.0]])
    >>> [(gid, cols.tolist(), present.tolist())
    ...  for gid, cols, _, present in iter_blocks(X, np.array([5, 5, 1]))]
    [(0, [2], [True, True]), (1, [0, 1], [True, False])]
    """
    for gid, g in enumerate(np.unique(groups)):
        cols = np.flatnonzero(groups == g)
        B = X[:, cols]
        yield gid, cols, B, block_present(B)


def block_fill(P: np.ndarray) -> np.ndarray:
    """Column means of a block over the rows where it is valid (``P``), 0 for
    a column never observed: the values that fill isolated absent entries of
    a valid block.

    Examples
    --------
    >>> block_fill(np.array([[1.0, np.nan], [3.0, np.nan]])).tolist()
    [2.0, 0.0]
    """
    if len(P) == 0:
        return np.zeros(P.shape[1])
    return np.nanmean(np.where(np.isnan(P).all(axis=0), 0.0, P), axis=0)


def blockwise_transform(X: np.ndarray, blocks, transformers, fills, widths, apply=None) -> np.ndarray:
    """Apply a fitted transformer per block, side by side; a block absent
    in a row (all its features NaN) gives NaN outputs there, and isolated
    absent values of a valid block are filled with ``fills``. Blocks whose
    transformer is None have no output columns. ``apply(tf, B)`` maps a
    block's valid rows (default ``tf.transform(B)``)."""
    used = [(cols, tf, fill, width) for cols, tf, fill, width in zip(blocks, transformers, fills, widths)
            if tf is not None]
    Z = np.full((X.shape[0], sum(width for *_, width in used)), np.nan)
    start = 0
    for cols, tf, fill, width in used:
        B = X[:, cols]
        valid = block_present(B)
        if valid.any():
            Bv = B[valid]
            Bv = np.where(np.isnan(Bv), fill, Bv)
            Z[valid, start:start + width] = tf.transform(Bv) if apply is None else apply(tf, Bv)
        start += width
    return Z


def _project(pca: PCA, B: np.ndarray) -> np.ndarray:
    """``pca.transform(B)`` for a fitted, non-whitened PCA and a finite
    float64 ``B`` (checked once for all blocks by the caller): the two
    products scikit-learn's ``PCA._transform`` computes, in the same order,
    so the same bits, without its per-call input validation (which cost
    most of a block-PCA transform of many rows and blocks)."""
    Z = B @ pca.components_.T
    Z -= pca.mean_.reshape(1, -1) @ pca.components_.T
    return Z


class BlockPCA(TransformerMixin, BaseEstimator):
    """PCA per feature block, absent blocks stay absent.

    Parameters
    ----------
    groups : array-like of int, shape (n_features,), default=None
        Feature blocks present or absent together (None: one block per
        feature, i.e. no reduction).
    n_components : int, default=3
        Components kept per block (fewer for a block with fewer features or
        fewer training rows where it is present).

    Attributes
    ----------
    blocks_ : list of ndarray
        Column indices of each block, in increasing group id.
    pcas_ : list of PCA or None
        The fitted PCA of each block (None: the block was never present in
        training, its outputs are always absent).
    fill_ : list of ndarray
        Training column means used to fill isolated absent values.
    groups_out_ : ndarray of int
        ``groups`` of the output columns (one id per input block).
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 2.0, 5.0], [2.0, 4.0, np.nan], [3.0, 6.0, 7.0],
    ...               [np.nan, np.nan, 6.0]])
    >>> Z = BlockPCA(groups=[0, 0, 1], n_components=1).fit_transform(X)
    >>> Z.shape, bool(np.isnan(Z[3, 0])), bool(np.isnan(Z[1, 1]))
    ((4, 2), True, True)
    >>> np.round(np.abs(Z[:3, 0]), 4)   # coordinates along (1, 2) / sqrt(5), centred
    array([2.2361, 0.    , 2.2361])
    """

    _parameter_constraints: dict = {"n_components": int_at_least(1)}

    def __init__(self, groups=None, *, n_components: int = 3):
        self.groups = groups
        self.n_components = n_components

    def fit(self, X, y=None) -> "BlockPCA":
        """Fit one PCA per block on the training rows where it is present."""
        validate_params(self)
        k = int(self.n_components)
        X = validate_X_fit(self, X)
        groups = validate_feature_groups(self, self.groups, X.shape[1])
        self.blocks_, self.pcas_, self.fill_ = [], [], []
        out_groups = []
        for gid, cols, B, present in iter_blocks(X, groups):
            n_present = int(present.sum())
            kg = min(k, len(cols), n_present)
            self.blocks_.append(cols)
            if kg == 0:
                self.pcas_.append(None)
                self.fill_.append(np.zeros(len(cols)))
                continue
            P = B[present]
            fill = block_fill(P)
            P = np.where(np.isnan(P), fill, P)
            self.pcas_.append(PCA(n_components=kg, svd_solver="full").fit(P))
            self.fill_.append(fill)
            out_groups += [gid] * kg
        self.groups_out_ = np.asarray(out_groups, dtype=np.intp)
        return self

    def transform(self, X) -> np.ndarray:
        """Block PCA coefficients; NaN for the blocks absent in a row."""
        check_is_fitted(self, "pcas_")
        X = validate_X_predict(self, X)
        widths = [0 if p is None else p.n_components_ for p in self.pcas_]
        return blockwise_transform(X, self.blocks_, self.pcas_, self.fill_, widths, apply=_project)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags


def reduced_pipeline(estimator, groups=None, n_components: int = 3) -> Pipeline:
    """``Pipeline([("blockpca", BlockPCA(groups, n_components)), ("clf", estimator)])``.

    Parameters of the classifier are set as ``clf__<name>`` (e.g. in a
    parameter grid), those of the reduction as ``blockpca__n_components``.

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> reduced_pipeline(LogisticRegression(), groups=[0, 0, 1], n_components=1).steps[0][0]
    'blockpca'
    """
    return Pipeline([("blockpca", BlockPCA(groups=groups, n_components=n_components)),
                     ("clf", estimator)])


def present_features(X, min_fraction: float) -> np.ndarray:
    """Mask of the columns of ``X`` present (not NaN) in at least
    ``max(1, ceil(min_fraction * n_rows))`` rows.

    A feature (almost) no training instance has carries (almost) no
    information and breaks some methods (no mean to impute; gradient
    boosting cannot bin an all-absent column); an inner split then misses a
    kept feature with probability about ``val_fraction ** count``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, np.nan, np.nan], [2.0, 3.0, np.nan], [np.nan, 4.0, np.nan]])
    >>> present_features(X, 0.5)
    array([ True,  True, False])
    """
    X = np.asarray(X, dtype=np.float64)
    min_count = max(1, int(np.ceil(min_fraction * X.shape[0])))
    return (~np.isnan(X)).sum(axis=0) >= min_count
