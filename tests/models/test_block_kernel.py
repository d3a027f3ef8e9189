"""BlockKernelMap / block_additive_kernel: the explicit map against the exact
kernel, positive semi-definiteness, absent blocks, errors."""

from __future__ import annotations

import re

import numpy as np
import pytest

from geomargin.models.block_kernel import (BlockKernelGeometricSVC, BlockKernelMap, _nystroem_rbf, block_additive_kernel,
                                 median_gamma)
from geomargin.models.reduce import block_present


def _block_data(n=60, seed=0):
    """Three blocks (2, 3, 1 features); each block absent in ~30% of rows,
    plus a few isolated absent values inside valid blocks."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6))
    groups = np.array([0, 0, 1, 1, 1, 2])
    for g in range(3):
        X[np.ix_(rng.random(n) < 0.3, np.flatnonzero(groups == g))] = np.nan
    X[3, 2] = np.nan  # isolated, block 1 stays valid in row 3 if 3, 4 are
    return X, groups


def test_exact_kernel_by_hand():
    X = np.array([[0.0, 1.0, 1.0], [np.nan, 3.0, 1.0], [2.0, np.nan, np.nan]])
    K = block_additive_kernel(X, X, groups=[0, 1, 1], gammas=[0.5, 0.25])
    # row0-row1: block 0 absent in row1; block1: ||(1,1)-(3,1)||^2 = 4 -> exp(-1)
    # row0-row2: block 0: (0-2)^2 = 4 -> exp(-2); block 1 absent in row 2
    expected = np.array([[2.0, np.exp(-1.0), np.exp(-2.0)],
                         [np.exp(-1.0), 1.0, 0.0],
                         [np.exp(-2.0), 0.0, 1.0]])
    np.testing.assert_allclose(K, expected, rtol=0, atol=1e-12)


def test_kernel_is_psd_with_absent_blocks():
    X, groups = _block_data()
    m = BlockKernelMap(groups=groups).fit(X)
    K = block_additive_kernel(X, X, groups, m.gammas_, m.fill_)
    assert np.linalg.eigvalsh(K).min() > -1e-9


def test_nystroem_on_all_rows_is_exact():
    X, groups = _block_data()
    m = BlockKernelMap(groups=groups, n_components=len(X)).fit(X)
    Z = np.nan_to_num(m.transform(X))
    K = block_additive_kernel(X, X, groups, m.gammas_, m.fill_)
    np.testing.assert_allclose(Z @ Z.T, K, atol=1e-6)


def test_approximate_maps_converge_to_exact_kernel():
    X, groups = _block_data(n=200, seed=1)
    Xt, _ = _block_data(n=50, seed=2)
    errs = {}
    for method, k in (("rff", 50), ("rff", 3000), ("nystroem", 20), ("nystroem", 120)):
        m = BlockKernelMap(groups=groups, n_components=k, method=method, random_state=0).fit(X)
        Z, Zt = np.nan_to_num(m.transform(X)), np.nan_to_num(m.transform(Xt))
        K = block_additive_kernel(Xt, X, groups, m.gammas_, m.fill_)
        errs[method, k] = np.abs(Zt @ Z.T - K).max()
    assert errs["rff", 3000] < errs["rff", 50]
    assert errs["rff", 3000] < 0.15      # 3 blocks, each a Monte Carlo error ~ 1/sqrt(3000)
    assert errs["nystroem", 120] < errs["nystroem", 20]
    assert errs["nystroem", 120] < 0.05


def test_absent_blocks_stay_absent_and_groups_out():
    X, groups = _block_data()
    m = BlockKernelMap(groups=groups, n_components=5).fit(X)
    Z = m.transform(X)
    assert m.groups_out_.tolist() == [0] * 5 + [1] * 5 + [2] * 5
    for g in range(3):
        absent = np.isnan(X[:, groups == g]).all(axis=1)
        cols = m.groups_out_ == g
        assert np.isnan(Z[np.ix_(absent, cols)]).all()
        assert not np.isnan(Z[np.ix_(~absent, cols)]).any()


def test_map_equals_scikit_learns_nystroem_bit_for_bit():
    """The scoring path (:func:`_nystroem_rbf`, no per-call checks) gives
    exactly what each block's ``Nystroem.transform`` gives, and the mapped
    matrix is the blocks' maps side by side."""
    rng = np.random.default_rng(4)
    X, groups = _block_data(n=300, seed=4)
    X = X * rng.uniform(0.1, 30.0, size=6)
    m = BlockKernelMap(groups=groups, n_components=20, gamma_scale=0.7).fit(X)
    Z = m.transform(X)
    start = 0
    for cols, mp, fill in zip(m.blocks_, m.maps_, m.fill_):
        B = X[:, cols]
        valid = block_present(B)
        Bv = np.where(np.isnan(B[valid]), fill, B[valid])
        ref = mp.transform(Bv)
        assert np.array_equal(_nystroem_rbf(mp, Bv), ref)
        assert np.array_equal(Z[valid, start:start + ref.shape[1]], ref)
        start += ref.shape[1]
    assert start == Z.shape[1]


def test_decision_and_scales_equal_the_two_calls():
    X, groups = _block_data(n=200, seed=5)
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 2]) > 0).astype(int)
    est = BlockKernelGeometricSVC(groups=groups, n_components=10).fit(X, y)
    f, s = est.decision_and_scales(X)
    assert np.array_equal(f, est.decision_function(X)) and np.array_equal(s, est.scales(X))


@pytest.mark.parametrize("method", ["nystroem", "rff"])
def test_scores_equal_the_linear_model_on_the_mapped_rows(method):
    """The folded scores (kernel values to the landmarks times ``N^T w_b``,
    never building the mapped rows) equal the linear geometric-margin model
    on ``map_.transform(X)`` up to rounding, on rows with absent blocks,
    isolated absent values and rows with no valid block; random Fourier
    features are mapped, so they agree exactly."""
    X, groups = _block_data(n=300, seed=6)
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 3]) > 0).astype(int)
    est = BlockKernelGeometricSVC(groups=groups, n_components=15, method=method, C=10.0).fit(X, y)
    Xq, _ = _block_data(n=120, seed=7)
    Xq[:4] = np.nan
    f, s = est.decision_and_scales(Xq)
    f_ref, s_ref = est.svc_.decision_and_scales(est.map_.transform(Xq))
    assert (est._folded() is None) == (method == "rff")
    # the 1-feature block's 15 landmarks make its normalisation large
    # (entries ~1e5), so the two associations differ by ~1e-10 of the scores
    assert np.allclose(f, f_ref, rtol=0, atol=1e-8 * np.abs(f_ref).max())
    assert np.allclose(s, s_ref, rtol=0, atol=1e-12)
    assert np.all(f[:4] == est.intercept_[0]) and np.all(s[:4] == 1.0)
    if method == "rff":
        assert np.array_equal(f, f_ref) and np.array_equal(s, s_ref)
    else:
        assert not np.array_equal(f, f_ref)  # the folded path did run


def test_refit_recomputes_the_folded_weights():
    X, groups = _block_data(n=200, seed=8)
    y = (np.nan_to_num(X[:, 0]) > 0).astype(int)
    est = BlockKernelGeometricSVC(groups=groups, n_components=10).fit(X, y)
    first = est.decision_function(X)
    est.set_params(C=0.01).fit(X, y)
    ref = est.svc_.decision_function(est.map_.transform(X))
    assert np.allclose(est.decision_function(X), ref, rtol=0, atol=1e-8 * np.abs(ref).max())
    assert not np.allclose(first, ref)


def test_block_never_valid_in_training_has_no_columns():
    X, groups = _block_data()
    X[:, 5] = np.nan
    m = BlockKernelMap(groups=groups, n_components=4).fit(X)
    assert 2 not in m.groups_out_
    assert m.transform(np.ones((2, 6))).shape == (2, 8)


def test_median_gamma_by_hand():
    # squared distances 1, 4, 9 -> median 4
    assert median_gamma(np.array([[0.0], [1.0], [3.0]])) == pytest.approx(0.25)
    assert median_gamma(np.zeros((3, 2))) == 1.0


def test_deterministic_given_random_state():
    X, groups = _block_data()
    a = BlockKernelMap(groups=groups, n_components=8, method="rff", random_state=3).fit_transform(X)
    b = BlockKernelMap(groups=groups, n_components=8, method="rff", random_state=3).fit_transform(X)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("param, value, expected", [
    ("n_components", 0, "an int >= 1"),
    ("method", "svd", "one of 'nystroem', 'rff'"),
    ("gamma", -1.0, "'median' or a float > 0"),
    ("gamma_scale", 0.0, "a float > 0"),
    ("random_state", -2, "an int >= 0"),
])
def test_bad_parameters(param, value, expected):
    X, groups = _block_data()
    message = f"The '{param}' parameter of BlockKernelMap must be {expected}. Got {value!r} instead."
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        BlockKernelMap(groups=groups, **{param: value}).fit(X)
