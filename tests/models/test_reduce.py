"""BlockPCA (models/reduce.py): per-block PCA that keeps absent blocks absent."""

import numpy as np
import pytest
from sklearn.decomposition import PCA

from geomargin.models.reduce import BlockPCA, reduced_pipeline
from geomargin.models.registry import get_method
from geomargin.models.selection import nested_cross_validate


def test_hand_computed_projection_and_absence():
    # block 0 = columns 0, 1 on the line (t, 2t); block 1 = column 2
    X = np.array([[1.0, 2.0, 5.0], [2.0, 4.0, np.nan], [3.0, 6.0, 7.0], [np.nan, np.nan, 6.0]])
    bp = BlockPCA(groups=[0, 0, 1], n_components=2).fit(X)
    Z = bp.transform(X)
    # block 0 keeps min(2, 2 cols, 3 present rows) = 2 components, block 1 one
    assert Z.shape == (4, 3)
    assert bp.groups_out_.tolist() == [0, 0, 1]
    # first component of block 0: centred coordinate along (1, 2)/sqrt(5): -sqrt5, 0, sqrt5
    first = Z[:3, 0] * np.sign(Z[2, 0])
    np.testing.assert_allclose(first, [-np.sqrt(5), 0.0, np.sqrt(5)], atol=1e-12)
    np.testing.assert_allclose(Z[:3, 1], 0.0, atol=1e-12)  # no variance left
    # block 1: centred at mean(5, 7, 6) = 6 over its present rows
    np.testing.assert_allclose(np.abs(Z[[0, 2, 3], 2]), [1.0, 1.0, 0.0], atol=1e-12)
    # absence is kept exactly: row 3 lacks block 0, row 1 lacks block 1
    assert np.isnan(Z[3, :2]).all() and np.isnan(Z[1, 2])
    assert not np.isnan(Z[[0, 2], :]).any()


def test_matches_sklearn_pca_when_nothing_is_absent():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 8))
    groups = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    Z = BlockPCA(groups=groups, n_components=2).fit_transform(X)
    for g, cols in ((0, slice(0, 4)), (1, slice(4, 8))):
        ref = PCA(n_components=2, svd_solver="full").fit_transform(X[:, cols])
        np.testing.assert_allclose(np.abs(Z[:, 2 * g:2 * g + 2]), np.abs(ref), atol=1e-10)


def test_transform_gives_sklearn_pca_transform_bits():
    """BlockPCA projects without scikit-learn's input checks; the coefficients
    must be exactly (bit for bit) those of each block's PCA.transform."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 12)) * rng.uniform(0.1, 50, size=12) + rng.normal(size=12) * 100
    X[rng.random(300) < 0.3, :5] = np.nan          # block 0 absent in about 30% of rows
    X[rng.random((300, 12)) < 0.02] = np.nan       # isolated absent values
    groups = np.repeat([0, 1, 2], [5, 4, 3])
    bp = BlockPCA(groups=groups, n_components=2).fit(X[:200])
    Z = bp.transform(X[200:])
    start = 0
    for cols, pca, fill in zip(bp.blocks_, bp.pcas_, bp.fill_):
        B = X[200:, cols]
        valid = ~np.isnan(B).all(axis=1)
        ref = pca.transform(np.where(np.isnan(B[valid]), fill, B[valid]))
        assert np.array_equal(Z[valid, start:start + ref.shape[1]], ref)
        assert np.isnan(Z[~valid, start:start + ref.shape[1]]).all()
        start += ref.shape[1]
    assert start == Z.shape[1]


def test_isolated_absent_values_are_filled_with_training_means():
    X = np.array([[0.0, 0.0], [2.0, 4.0], [4.0, 8.0], [np.nan, 8.0]])
    bp = BlockPCA(groups=[0, 0], n_components=1).fit(X[:3])
    # column means (2, 4): the row (nan, 8) projects like (2, 8)
    np.testing.assert_allclose(bp.transform(X[3:]), bp.transform(np.array([[2.0, 8.0]])))
    np.testing.assert_allclose(bp.fill_[0], [2.0, 4.0])


def test_block_never_present_in_training_is_dropped():
    X = np.array([[1.0, np.nan], [2.0, np.nan], [3.0, np.nan]])
    bp = BlockPCA(groups=[0, 1], n_components=3).fit(X)
    assert bp.pcas_[1] is None
    assert bp.transform(np.array([[1.0, 5.0]])).shape == (1, 1)


def test_bad_parameters_are_named():
    X = np.ones((4, 2))
    with pytest.raises(ValueError, match="'n_components' parameter of BlockPCA"):
        BlockPCA(n_components=0).fit(X)
    with pytest.raises(ValueError, match="groups"):
        BlockPCA(groups=[0, 0, 1]).fit(X)


def test_reduced_method_in_nested_cross_validation():
    rng = np.random.default_rng(1)
    n = 120
    y = rng.integers(0, 2, n)
    X = rng.normal(size=(n, 12)) + 1.5 * y[:, None] * np.r_[np.ones(6), np.zeros(6)]
    X[rng.random(n) < 0.4, 6:] = np.nan  # the second block is absent in ~40% of rows
    groups = np.repeat([0, 1], 6)
    spec = get_method("integrated_logreg_pca")
    res = nested_cross_validate(spec, X, y, feature_groups=groups, n_splits=3,
                                param_grid=[{"clf__C": [1.0], "clf__n_components": [1]}], seed=0)
    assert res.folds["accuracy"].mean() > 0.8  # the first block separates the classes
    est = spec.make(groups=groups, random_state=0)
    assert est.steps[0][1].n_components == 3
    pipe = reduced_pipeline(est.steps[1][1], groups=groups, n_components=1).fit(X, y)
    assert pipe.named_steps["blockpca"].transform(X).shape == (n, 2)
