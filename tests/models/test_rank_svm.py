"""GeometricMarginRankSVC against a reference written from its equations
(cvxpy primal at fixed pair scales, iterated from s = 1), at the default
parameters, plus the exact intercept and the pair construction by hand."""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest
from sklearn.utils.estimator_checks import check_estimator

from geomargin.models.geometric import S_MIN
from geomargin.models.rank_svm import GeometricMarginRankSVC, best_hinge_intercept, ranking_pairs


def reference_rank(X, y, query, C, n_iter):
    """min 1/2 ||w||^2 + C sum xi  s.t.  w.(x_i - x_j) / s_ij >= 1 - xi, xi >= 0,
    over every (positive i, negative j) of one query; absent = 0 in the
    difference; s_ij = ||w restricted to features valid in i or j|| / ||w||."""
    pairs = [(i, j) for i in range(len(y)) for j in range(len(y))
             if y[i] == 1 and y[j] == 0 and query[i] == query[j]]
    M = ~np.isnan(X)
    X0 = np.where(M, X, 0.0)
    D = np.array([X0[i] - X0[j] for i, j in pairs])
    V = np.array([M[i] | M[j] for i, j in pairs])
    s = np.ones(len(pairs))
    for it in range(n_iter):
        w = cp.Variable(X.shape[1])
        xi = cp.Variable(len(pairs), nonneg=True)
        cons = [cp.multiply(1.0 / s, D @ w) >= 1 - xi]
        cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + C * cp.sum(xi)), cons).solve(
            solver=cp.CLARABEL, tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
        wv = w.value
        if it + 1 < n_iter:
            s = np.array([max(np.sqrt((wv[v] ** 2).sum() / (wv ** 2).sum()), S_MIN) for v in V])
    return wv


def block_absent_data(seed, n_queries=12, per_query=5, d=6):
    """Queries of one positive and four negatives; each query has one of
    two blocks of features absent for all its rows or absent at random."""
    rng = np.random.default_rng(seed)
    w_true = rng.normal(size=d)
    X, y, q = [], [], []
    for k in range(n_queries):
        Z = rng.normal(size=(per_query, d))
        f = Z @ w_true + 0.5 * rng.normal(size=per_query)
        lab = np.zeros(per_query, int)
        lab[np.argmax(f)] = 1
        if k % 3 == 0:
            Z[:, : d // 2] = np.nan          # a block absent in the whole query
        Z[rng.random(Z.shape) < 0.15] = np.nan  # and some at random
        X.append(Z)
        y.append(lab)
        q += [k] * per_query
    return np.vstack(X), np.concatenate(y), np.array(q)


@pytest.mark.parametrize("seed,n_iter", [(0, 1), (1, 3), (2, 3)])
def test_defaults_match_the_reference(seed, n_iter):
    X, y, q = block_absent_data(seed)
    ref = reference_rank(X, y, q, C=1.0, n_iter=n_iter)
    est = GeometricMarginRankSVC(n_iter=n_iter).fit(X, y, query=q)  # default C, tol
    w = est.coef_[0]
    # liblinear's dual coordinate descent at its default tol=1e-4, against an
    # interior-point solve at 1e-10: measured within 3e-4 relative here
    assert np.linalg.norm(w - ref) <= 2e-3 * np.linalg.norm(ref)
    # the rankings within every query are the reference's
    M = ~np.isnan(X)
    f_ref = np.where(M, X, 0.0) @ ref
    f = np.where(M, X, 0.0) @ w
    for k in np.unique(q):
        idx = q == k
        assert np.argmax(f[idx]) == np.argmax(f_ref[idx])
    assert est.n_pairs_ == 12 * 4 and est.n_iter_ == n_iter


def test_geometric_scales_change_the_solution():
    # with n_iter > 1 the pairs are rescaled: QP 2 is the plain RankSVM QP on
    # the differences divided by the scales of QP 1's solution, and that
    # changes the solution
    X, y, q = block_absent_data(3)
    est1 = GeometricMarginRankSVC(n_iter=1, random_state=0).fit(X, y, query=q)
    est2 = GeometricMarginRankSVC(n_iter=2, random_state=0).fit(X, y, query=q)
    w1, w2 = est1.coef_[0], est2.coef_[0]
    w3 = GeometricMarginRankSVC(n_iter=3).fit(X, y, query=q).coef_[0]
    assert np.linalg.norm(w1 - w3) > 1e-3 * np.linalg.norm(w1)
    # the scales of QP 2, by hand from w1: ||w1 on the features valid in i or j|| / ||w1||
    pi, pj = ranking_pairs(np.where(y == 1, 1.0, -1.0), q)
    M = ~np.isnan(X)
    V = M[pi] | M[pj]
    s = np.maximum(np.sqrt((V * w1 ** 2).sum(axis=1) / (w1 ** 2).sum()), S_MIN)
    np.testing.assert_allclose(est1.pair_scales_, 1.0)
    np.testing.assert_allclose(est2.pair_scales_, s, rtol=1e-12)
    assert s.min() < 0.9                              # the rescaling is material
    # QP 2 at those scales, solved by cvxpy
    X0 = np.where(M, X, 0.0)
    D = (X0[pi] - X0[pj]) / s[:, None]
    w = cp.Variable(X.shape[1])
    xi = cp.Variable(len(pi), nonneg=True)
    cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + cp.sum(xi)), [D @ w >= 1 - xi]).solve(
        solver=cp.CLARABEL, tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    # liblinear at tol=1e-4 against the interior point (as in the test above)
    assert np.linalg.norm(w2 - w.value) <= 2e-3 * np.linalg.norm(w.value)
    assert np.linalg.norm(w1 - w.value) > 2e-2 * np.linalg.norm(w.value)


def test_scores_and_scales():
    X, y, q = block_absent_data(4)
    est = GeometricMarginRankSVC().fit(X, y, query=q)
    w, b = est.coef_[0], est.intercept_[0]
    M = ~np.isnan(X)
    s = np.sqrt((M * w ** 2).sum(axis=1) / (w ** 2).sum())
    np.testing.assert_allclose(est.scales(X), np.maximum(s, S_MIN))
    np.testing.assert_allclose(est.decision_function(X), np.where(M, X, 0) @ w / s + b)
    empty = np.full((1, X.shape[1]), np.nan)
    assert est.decision_function(empty)[0] == b
    assert set(est.predict(X)) <= {0, 1}


def test_best_hinge_intercept_is_the_brute_force_minimum():
    rng = np.random.default_rng(0)
    for _ in range(20):
        f = rng.normal(size=15)
        y = np.where(rng.random(15) < 0.4, 1.0, -1.0)
        b = best_hinge_intercept(f, y)

        def loss(c):
            return np.maximum(0, 1 - y * (f + c)).sum()
        grid = np.r_[y - f, np.linspace(-6, 6, 2001)]
        assert loss(b) <= min(loss(c) for c in grid) + 1e-12


def test_ranking_pairs_by_hand_and_subsampling():
    y = np.array([1.0, -1.0, -1.0, 1.0, -1.0, 1.0])
    q = np.array(["a", "a", "a", "b", "b", "c"])   # query c has no negative: no pair
    i, j = ranking_pairs(y, q)
    assert list(zip(i.tolist(), j.tolist())) == [(0, 1), (0, 2), (3, 4)]
    i, j = ranking_pairs(y, None)                   # one query: all positives x negatives
    assert len(i) == 3 * 3
    a = ranking_pairs(y, q, max_pairs_per_query=1, random_state=0)
    b = ranking_pairs(y, q, max_pairs_per_query=1, random_state=0)
    assert [x.tolist() for x in a] == [x.tolist() for x in b] and len(a[0]) == 2


def test_bad_inputs():
    X, y, q = block_absent_data(0)
    with pytest.raises(ValueError, match="The 'C' parameter of GeometricMarginRankSVC must be a "
                                         "float > 0. Got -1 instead."):
        GeometricMarginRankSVC(C=-1).fit(X, y, query=q)
    with pytest.raises(ValueError, match="max_pairs_per_query.*None or an int >= 1"):
        GeometricMarginRankSVC(max_pairs_per_query=0).fit(X, y, query=q)
    with pytest.raises(ValueError, match="'query' argument.*shape"):
        GeometricMarginRankSVC().fit(X, y, query=q[:-1])
    with pytest.raises(ValueError, match="no query holds both"):
        GeometricMarginRankSVC().fit(X, y, query=np.arange(len(y)))


def test_check_estimator():
    check_estimator(GeometricMarginRankSVC())
