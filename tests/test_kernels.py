"""Tests for models._kernels: masked kernels and per-pattern norms."""

from __future__ import annotations

import numpy as np
import pytest

from models._kernels import PatternNorms, feature_blocks, masked_kernel

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


def test_bad_kernel_name():
    with pytest.raises(ValueError, match="'kernel' parameter of masked_kernel"):
        masked_kernel(np.ones((2, 2)), kernel="sigmoid")
