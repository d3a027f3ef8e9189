"""Tests for models._kernels: masked kernels, kernels from a Gram matrix and
per-pattern norms."""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from geomargin.models._kernels import columns_dot, kernel_from_gram, masked_kernel
from geomargin.models._pattern_norms import PatternNorms, feature_blocks

NAN = np.nan


def brute_kernel(X, Z, kernel, degree, gamma, coef0):
    K = np.zeros((len(X), len(Z)))
    for i, x in enumerate(X):
        for j, z in enumerate(Z):
            v = ~np.isnan(x) & ~np.isnan(z)
            if kernel == "linear":
                K[i, j] = x[v] @ z[v]
            elif kernel == "poly":
                K[i, j] = (gamma * x[v] @ z[v] + coef0) ** degree
            else:
                K[i, j] = np.exp(-gamma * ((x[v] - z[v]) ** 2).sum())
    return K


def test_hand_values():
    X = np.array([[1.0, NAN, 2.0], [3.0, 4.0, NAN]])
    Z = np.array([[NAN, 1.0, 1.0], [2.0, 2.0, 2.0]])
    # linear: <x1,z1> = 2 (feature 3), <x1,z2> = 2 + 4 = 6, <x2,z1> = 4, <x2,z2> = 6 + 8 = 14
    np.testing.assert_allclose(masked_kernel(X, Z), [[2, 6], [4, 14]])
    np.testing.assert_allclose(masked_kernel(X, Z, "poly", degree=2, gamma=0.5, coef0=1.0),
                               [[4, 16], [9, 64]])
    # rbf: ||x1-z1||^2 over {3} = 1; x1-z2 over {1,3}: 1 + 0; x2-z1 over {2}: 9; x2-z2 over {1,2}: 1 + 4
    np.testing.assert_allclose(masked_kernel(X, Z, "rbf", gamma=0.1),
                               np.exp(-0.1 * np.array([[1, 1], [9, 5]])))


@pytest.mark.parametrize("kernel", ["linear", "poly", "rbf"])
def test_matches_brute_force(kernel):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(15, 6))
    X[rng.random(X.shape) < 0.4] = NAN
    Z = rng.normal(size=(7, 6))
    Z[rng.random(Z.shape) < 0.4] = NAN
    np.testing.assert_allclose(masked_kernel(X, Z, kernel, 3, 0.4, 0.7),
                               brute_kernel(X, Z, kernel, 3, 0.4, 0.7), atol=1e-12)


def test_feature_blocks_refine_groups_and_patterns():
    M = np.array([[1, 1, 0, 0, 1], [1, 1, 1, 1, 0]], dtype=bool)
    b = feature_blocks(np.array([0, 0, 0, 1, 1]), M)
    # features 0,1 always together (group 0); 2 alone (group 0, different pattern); 3 and 4 split
    assert b[0] == b[1] and len({b[0], b[2], b[3], b[4]}) == 4


@pytest.mark.parametrize("kernel,degree", [("linear", 1), ("poly", 1), ("poly", 2),
                                           ("poly", 3), ("rbf", 2)])
@pytest.mark.parametrize("block", [1, 2])
def test_pattern_norms_brute_force(kernel, degree, block):
    """||w^(P)||^2 = sum_jk b_j b_k K(x_j restricted to P, x_k restricted to P)."""
    rng = np.random.default_rng(1)
    n, d = 30, 6
    groups = np.arange(d) // block
    X = rng.normal(size=(n, d))
    X[(rng.random((n, d // block)) < 0.35)[:, groups]] = NAN
    beta = rng.normal(size=n)
    Mq = ~np.isnan(rng.normal(size=(12, d)) * np.where(rng.random((12, d // block)) < 0.4, NAN, 1)[:, groups])
    pn = PatternNorms(np.nan_to_num(X), ~np.isnan(X), beta, kernel, degree, 0.6, 1.2, groups)
    got, full = pn.norms_and_full(Mq)
    for i in range(12):
        Xr = np.where(Mq[i], X, NAN)
        assert got[i] == pytest.approx(beta @ brute_kernel(Xr, Xr, kernel, degree, 0.6, 1.2) @ beta,
                                       rel=1e-9, abs=1e-9)
    assert full == pytest.approx(beta @ brute_kernel(X, X, kernel, degree, 0.6, 1.2) @ beta, rel=1e-9)
    # cached block statistics reused for a compatible batch give the same values
    np.testing.assert_allclose(pn.norms(Mq[:3]), got[:3], rtol=1e-10)


@pytest.mark.parametrize("block", [1, 3])
def test_prepared_cubic_norms_equal_the_generic_path(block):
    """PatternNorms.prepare (moment tensors of a degree-3 polynomial kernel)
    gives the generic per-pattern values, and the brute force, on patterns
    respecting the groups; other patterns and kernels keep their paths."""
    rng = np.random.default_rng(3)
    n, d = 40, 12
    groups = np.arange(d) // block
    X = rng.normal(size=(n, d))
    X[(rng.random((n, d // block)) < 0.35)[:, groups]] = NAN
    beta = rng.normal(size=n)
    Mq = (rng.random((200, d // block)) < 0.6)[:, groups]
    Mq[0] = False  # the empty pattern
    Mq[1] = True
    pn = PatternNorms(np.nan_to_num(X), ~np.isnan(X), beta, "poly", 3, 0.6, 1.2, groups)
    generic = pn.norms(Mq)
    assert pn.prepare() is pn and pn._cache3 is not None
    np.testing.assert_allclose(pn.norms(Mq), generic, rtol=1e-11, atol=1e-11)
    for i in (0, 1, 7):
        Xr = np.where(Mq[i], X, NAN)
        assert pn.norms(Mq[i:i + 1])[0] == pytest.approx(
            beta @ brute_kernel(Xr, Xr, "poly", 3, 0.6, 1.2) @ beta, rel=1e-9, abs=1e-9)
    if block > 1:  # a pattern splitting a group falls back to the generic path
        split = np.ones((1, d), bool)
        split[0, 0] = False
        assert pn.norms(split)[0] == pytest.approx(
            PatternNorms(np.nan_to_num(X), ~np.isnan(X), beta, "poly", 3, 0.6, 1.2, groups).norms(split)[0],
            rel=1e-12)
    # other kernels: prepare is a no-op
    rbf = PatternNorms(np.nan_to_num(X), ~np.isnan(X), beta, "rbf", 2, 0.6, 1.2, groups)
    assert rbf.prepare()._cache3 is None


def test_geometric_prepare_scoring_keeps_the_scores():
    from geomargin.models.geometric import GeometricMarginSVC
    rng = np.random.default_rng(4)
    X = rng.normal(size=(80, 8))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    X[(rng.random((80, 4)) < 0.3)[:, np.arange(8) // 2]] = NAN
    est = GeometricMarginSVC(kernel="poly", degree=3, C=1.0, groups=np.arange(8) // 2).fit(X, y)
    Xt = rng.normal(size=(300, 8))
    Xt[(rng.random((300, 4)) < 0.4)[:, np.arange(8) // 2]] = NAN
    before = est.decision_function(Xt)
    assert est.prepare_scoring() is est
    np.testing.assert_allclose(est.decision_function(Xt), before, rtol=1e-10, atol=1e-12)


def test_bad_kernel_name():
    with pytest.raises(ValueError, match="'kernel' parameter of masked_kernel"):
        masked_kernel(np.ones((2, 2)), kernel="sigmoid")


def test_kernel_from_gram_matches_sklearn():
    from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel
    rng = np.random.RandomState(1)
    A, B = rng.randn(5, 3), rng.randn(4, 3)
    G, sa, sb = A @ B.T, (A * A).sum(1), (B * B).sum(1)
    np.testing.assert_allclose(kernel_from_gram(G, sa, sb, kernel="poly", degree=3, gamma=0.4,
                                                coef0=1.0),
                               polynomial_kernel(A, B, degree=3, gamma=0.4, coef0=1.0))
    np.testing.assert_allclose(kernel_from_gram(G, sa, sb, kernel="rbf", degree=3, gamma=0.4,
                                                coef0=1.0), rbf_kernel(A, B, gamma=0.4))


@pytest.mark.parametrize("n", [7, 300, 1500, 2048, 2049, 2051, 2303])
def test_columns_dot_is_the_gathered_product_bit_for_bit(n):
    """The chunked product (no n x n_sv copy) gives the bits of ``K[:, sv] @ v``
    for chunk counts that divide n and that do not, and odd tails."""
    rng = np.random.default_rng(n)
    A = rng.standard_normal((n, 300))
    K = A @ A.T
    sv = np.sort(rng.choice(n, min(n, 701) - 2, replace=False))
    v = rng.standard_normal(len(sv))
    with threadpool_limits(1):
        want = K[:, sv] @ v
    for threads in (1, 2):  # one BLAS thread inside, whatever the caller's limit
        with threadpool_limits(threads):
            for chunk in (256, 512, 1024):
                assert np.array_equal(columns_dot(K, sv, v, chunk=chunk), want)
    with pytest.raises(ValueError, match="multiple of 256"):
        columns_dot(K, sv, v, chunk=300)
