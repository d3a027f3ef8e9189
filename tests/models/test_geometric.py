"""Tests for models.geometric (GeometricMarginSVC, AverageNormSVC)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import check_estimator

from geomargin.models.average_norm import AverageNormSVC
from geomargin.models.geometric import GeometricMarginSVC
from toy_data import geometric_margin

NAN = np.nan


def fig1_data():
    """The geometry of Fig. 1 of Chechik et al.: complete instances at
    +-(1, 1) and instances missing feature 2 at x1 = +-1.6 (living on the
    x1 axis), plus far-away non-support points.

    By hand (hard margin, b = 0 by symmetry):
    * zero-filling puts the partial instances at (+-1.6, 0); the SVM's
      constraints are w1 + w2 >= 1 and 1.6 w1 >= 1, so w = (0.625, 0.375),
      direction (1, 0.6): the geometric margin of the complete instances is
      1.6 / sqrt(1.36) = 1.372.
    * the geometric margin of a partial instance is 1.6 whatever w1 > 0, so
      the max-geometric-margin direction is (1, 1) with margin sqrt(2) (the
      iteration converges to w = (0.5, 0.5): with s = 1/sqrt(2) for partial
      instances the constraint 1.6 w1 sqrt(2) >= 1 is inactive).
    """
    X = np.array([[1.0, 1.0], [-1.0, -1.0], [1.6, NAN], [-1.6, NAN],
                  [3.0, 3.5], [-3.0, -3.5], [4.0, NAN], [-4.0, NAN]])
    y = np.array([1, 0, 1, 0, 1, 0, 1, 0])
    return X, y


def test_fig1_zero_filling_mis_scales_and_geometric_does_not():
    X, y = fig1_data()
    X0 = np.nan_to_num(X)
    svc = SVC(kernel="linear", C=1e4, tol=1e-8).fit(X0, y)
    w0 = svc.coef_[0]
    np.testing.assert_allclose(w0, [0.625, 0.375], atol=1e-6)
    assert geometric_margin(w0, svc.intercept_[0], X, y) == pytest.approx(1.6 / np.sqrt(1.36), abs=1e-5)

    clf = GeometricMarginSVC(C=1e4, n_iter=5, tol=1e-8).fit(X, y)
    np.testing.assert_allclose(clf.coef_, [[0.5, 0.5]], atol=1e-6)
    assert abs(clf.intercept_[0]) < 1e-6
    assert geometric_margin(clf.coef_[0], 0.0, X, y) == pytest.approx(np.sqrt(2), abs=1e-6)
    # first QP is the zero-filled SVM; the iteration then moves to (0.5, 0.5)
    assert clf.n_iter_ < 5  # converged: s stopped changing
    assert clf.s_history_[0].tolist() == [1.0] * 8
    # s after the first QP for a partial instance: 0.625 / ||(0.625, 0.375)||
    assert clf.s_history_[1][2] == pytest.approx(0.625 / np.hypot(0.625, 0.375), abs=1e-6)
    np.testing.assert_allclose(clf.s_[[0, 2]], [1.0, 1 / np.sqrt(2)], atol=1e-6)
    # the objective 1/2 ||w||^2 (no slack; C * libsvm's tolerance-level
    # violations stay < 1e-3) decreases from 0.5*(0.625^2+0.375^2) to 0.25
    assert clf.objective_[0] == pytest.approx(0.5 * (0.625**2 + 0.375**2), abs=1e-3)
    assert clf.objective_[-1] == pytest.approx(0.25, abs=1e-3)
    assert clf.objective_[-1] < clf.objective_[0] - 0.01
    # decision_function = margin in the instance's own subspace times ||w||
    f = clf.decision_function([[1.6, NAN], [1.0, 1.0], [NAN, 2.0]])
    np.testing.assert_allclose(f, [1.6 * np.sqrt(0.5), np.sqrt(2) * np.sqrt(0.5),
                                   2.0 * np.sqrt(0.5)], atol=1e-6)


@pytest.mark.parametrize("kernel,kw", [
    ("linear", {}), ("poly", {"degree": 2, "coef0": 1.0}),
    ("poly", {"degree": 3, "coef0": 0.5, "gamma": 0.3}), ("rbf", {}), ("rbf", {"gamma": 0.2})])
def test_no_missing_equals_svc(kernel, kw):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 6))
    y = (X[:, 0] - X[:, 2] + 0.5 * rng.normal(size=80) > 0).astype(int)
    ref = SVC(kernel=kernel, C=2.0, **kw).fit(X, y)
    clf = GeometricMarginSVC(kernel=kernel, C=2.0, n_iter=4, representation="rows" if kernel == "linear" else "auto",
                             **kw).fit(X, y)
    Xt = rng.normal(size=(30, 6))
    np.testing.assert_allclose(clf.decision_function(Xt), ref.decision_function(Xt), atol=1e-6)
    np.testing.assert_allclose(clf.decision_function(X), ref.decision_function(X), atol=1e-6)
    np.testing.assert_allclose(clf.s_, 1.0, atol=1e-9)
    # AverageNormSVC with no absent value is a plain SVM too (p_k = 1)
    avg = AverageNormSVC(kernel=kernel, C=2.0, representation="rows" if kernel == "linear" else "auto",
                         **kw).fit(X, y)
    np.testing.assert_allclose(avg.decision_function(Xt), ref.decision_function(Xt), atol=1e-6)


def block_missing(n, d, block, seed, frac=0.5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, :block].sum(1) + X[:, block:2 * block].sum(1) > 0).astype(int)
    groups = np.arange(d) // block
    absent = rng.random((n, d // block)) < frac
    X[absent[:, groups]] = NAN
    return X, y, groups


@pytest.mark.parametrize("kernel", ["linear", "poly", "rbf"])
def test_feature_absent_everywhere_changes_nothing(kernel):
    X, y, groups = block_missing(60, 8, 2, seed=2, frac=0.3)
    Xe = np.column_stack([X[:, :3], np.full(60, NAN), X[:, 3:]])
    kw = dict(kernel=kernel, C=1.0, n_iter=3, degree=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # indefinite masked rbf
        a = GeometricMarginSVC(**kw).fit(X, y)
        b = GeometricMarginSVC(**kw).fit(Xe, y)
    Xt, _, _ = block_missing(20, 8, 2, seed=3, frac=0.3)
    Xte = np.column_stack([Xt[:, :3], np.full(20, NAN), Xt[:, 3:]])
    np.testing.assert_allclose(b.decision_function(Xte), a.decision_function(Xt), atol=1e-8)
    np.testing.assert_allclose(b.s_, a.s_, atol=1e-10)


def test_geometric_with_groups_matches_without():
    X, y, groups = block_missing(80, 12, 3, seed=4)
    for kernel in ["linear", "poly"]:
        a = GeometricMarginSVC(kernel=kernel, n_iter=3).fit(X, y)
        b = GeometricMarginSVC(kernel=kernel, n_iter=3, groups=groups).fit(X, y)
        np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-8)


def test_scales_match_brute_force_poly():
    """s_i for poly computed by hand: restrict every support vector to the
    instance's valid features and evaluate the double sum directly."""
    X, y, groups = block_missing(50, 6, 2, seed=5, frac=0.4)
    clf = GeometricMarginSVC(kernel="poly", degree=2, gamma=0.5, coef0=1.0, n_iter=2).fit(X, y)
    sv = X[clf.support_]
    beta = clf.beta_

    def norm2(P):
        Z = np.where(np.isnan(sv) | ~P, 0.0, sv)
        K = (0.5 * Z @ Z.T + 1.0) ** 2
        return beta @ K @ beta

    full = norm2(np.ones(6, dtype=bool))
    for i in range(10):
        P = ~np.isnan(X[i])
        if P.any():
            assert clf.s_[i] == pytest.approx(max(np.sqrt(norm2(P) / full), 1e-3), rel=1e-8)


@pytest.mark.parametrize("kw", [{}, {"kernel": "poly", "degree": 2, "gamma": 0.5, "coef0": 1.0}])
def test_decision_and_scales_equal_the_two_calls(kw):
    X, y, _ = block_missing(80, 6, 2, seed=6, frac=0.4)
    clf = GeometricMarginSVC(n_iter=2, **kw).fit(X, y)
    f, s = clf.decision_and_scales(X)
    assert np.array_equal(f, clf.decision_function(X)) and np.array_equal(s, clf.scales(X))


def test_instance_with_no_valid_feature():
    X, y, _ = block_missing(40, 4, 2, seed=6, frac=0.3)
    X[0] = NAN
    for kernel in ["linear", "poly"]:
        clf = GeometricMarginSVC(kernel=kernel, n_iter=3).fit(X, y)  # RuntimeWarnings are errors
        assert clf.s_[0] == 1.0
        f = clf.decision_function(np.array([[NAN] * 4, [1.0, NAN, NAN, NAN]]))
        assert f[0] == clf.intercept_[0]
        assert np.isfinite(f).all()
        avg = AverageNormSVC(kernel=kernel).fit(X, y)
        assert avg.decision_function(np.full((1, 4), NAN))[0] == avg.intercept_[0]


def test_average_norm_is_rescaled_svm():
    """avg|w| for the linear kernel: SVC on x_k / sqrt(p_k) (zero-filled)."""
    X, y, _ = block_missing(60, 6, 2, seed=7, frac=0.4)
    X[:, 5] = NAN  # never valid: left out (models._validation)
    p = (~np.isnan(X)).mean(0)
    Xs = np.nan_to_num(X[:, :5]) / np.sqrt(p[:5])
    ref = SVC(kernel="linear", C=1.0).fit(Xs, y)
    avg = AverageNormSVC(C=1.0, representation="rows").fit(X, y)
    np.testing.assert_allclose(avg.decision_function(X), ref.decision_function(Xs), atol=1e-6)
    # objective: (1/n) sum_i ||w^(i)||^2 = sum_k p_k w_k^2 = ||v||^2 of the scaled SVM
    w = avg.coef_[0]
    assert avg.present_features_.tolist() == [True] * 5 + [False] and w.shape == (6,) and w[5] == 0.0
    np.testing.assert_allclose((p[:5] * w[:5] * w[:5]).sum(), (ref.coef_[0] ** 2).sum(), rtol=1e-8)


def test_iterations_change_the_solution_with_missing_values():
    X, y, groups = block_missing(120, 8, 2, seed=8)
    clf = GeometricMarginSVC(n_iter=4, groups=groups).fit(X, y)
    assert len(clf.s_history_) == clf.n_iter_ + 1 == len(clf.objective_) + 1
    assert np.ptp(clf.s_) > 0.05  # instances do get different scales
    # s_ are ||w^(i)|| / ||w|| of the final w
    w = clf.coef_[0]
    M = ~np.isnan(X)
    expected = np.maximum(np.sqrt(M @ (w * w) / (w @ w)), 1e-3)
    expected[~M.any(1)] = 1.0  # rows with no valid feature
    assert (~M.any(1)).sum() > 0
    np.testing.assert_allclose(clf.s_, expected, rtol=1e-10)


def test_predict_labels_and_sign():
    X, y, _ = block_missing(60, 4, 1, seed=9, frac=0.2)
    labels = np.where(y == 1, "pos", "neg")
    clf = GeometricMarginSVC().fit(X, labels)
    assert clf.classes_.tolist() == ["neg", "pos"]
    f = clf.decision_function(X)
    assert (clf.predict(X) == np.where(f > 0, "pos", "neg")).all()
    assert (clf.predict(X) == labels).mean() >= 0.75


@pytest.mark.parametrize("Est", [GeometricMarginSVC, AverageNormSVC])
def test_bad_input(Est):
    X, y, _ = block_missing(20, 4, 2, seed=10, frac=0.2)
    with pytest.raises(ValueError, match="Only binary classification is supported"):
        Est().fit(X, np.arange(20) % 3)
    with pytest.raises(ValueError, match=r"exactly two classes\. Got one class \[1\.0\]"):
        Est().fit(X, np.ones(20))
    Xi = X.copy()
    Xi[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        Est().fit(Xi, y)
    with pytest.raises(ValueError, match="every value is absent"):
        Est().fit(np.full((20, 4), NAN), y)
    with pytest.raises(ValueError, match=r"'groups' parameter of .* length n_features=4"):
        Est(groups=[0, 1]).fit(X, y)
    with pytest.raises(ValueError, match=r"The 'C' parameter of \w+ must be a float > 0. Got -1 instead."):
        Est(C=-1).fit(X, y)
    with pytest.raises(ValueError, match=r"'kernel' parameter .* one of 'linear', 'poly', 'rbf'. Got 'sigmoid'"):
        Est(kernel="sigmoid").fit(X, y)
    with pytest.raises(ValueError, match="'gamma' parameter"):
        Est(gamma=0.0).fit(X, y)
    with pytest.raises(ValueError, match="'degree' parameter"):
        Est(degree=0).fit(X, y)


def test_bad_n_iter():
    X, y, _ = block_missing(20, 4, 2, seed=10, frac=0.2)
    for bad in (0, 1.5, "3"):
        with pytest.raises(ValueError, match=r"The 'n_iter' parameter of GeometricMarginSVC must be an int >= 1"):
            GeometricMarginSVC(n_iter=bad).fit(X, y)


@pytest.mark.parametrize("est", [GeometricMarginSVC(), GeometricMarginSVC(kernel="poly", n_iter=2),
                                 GeometricMarginSVC(solver="liblinear"), AverageNormSVC()],
                         ids=["geometric-linear", "geometric-poly", "geometric-liblinear", "avg"])
def test_check_estimator(est):
    # every check must pass: no expected failures for these two estimators
    check_estimator(est)


def _independent_kernel(X, kernel, degree, gamma, coef0):
    """Masked kernel by brute force with the documented convention for a row
    with no valid feature (phi = 0: its kernel row and column are 0)."""
    M = ~np.isnan(X)
    n = len(X)
    K = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            v = M[i] & M[j]
            if not (M[i].any() and M[j].any()):
                continue
            if kernel == "linear":
                K[i, j] = X[i, v] @ X[j, v]
            elif kernel == "poly":
                K[i, j] = (gamma * X[i, v] @ X[j, v] + coef0) ** degree
            else:
                K[i, j] = np.exp(-gamma * ((X[i, v] - X[j, v]) ** 2).sum())
    return K


@pytest.mark.parametrize("kernel", ["linear", "poly"])
def test_iterations_stay_consistent_with_sparse_and_empty_rows(kernel):
    """Regression: with rows that have no valid feature (and rows with very
    few valid ones, hence small s_i) poly n_iter >= 2 collapsed to constant
    predictions: training zeroed the kernel rows of empty instances while the
    pattern norms and decision_function used the raw masked value coef0**2,
    so prediction added c^2 * (sum of the empty support vectors' beta) to
    every score. Every iteration must solve the QP it claims and score the
    training set with the function that QP fitted."""
    rng = np.random.default_rng(11)
    n, d, block = 160, 12, 2
    X, y, groups = block_missing(n, d, block, seed=11, frac=0.55)
    # a few rows with a single valid block, several with none
    few = rng.choice(n, 25, replace=False)
    keep = rng.integers(0, d // block, size=25)
    for r, g in zip(few, keep):
        X[r, groups != g] = NAN
    X[few[:8]] = NAN
    empty = np.isnan(X).all(1)
    assert empty.sum() >= 8
    gamma, coef0, C = 0.2, 1.0, 1.0
    K = _independent_kernel(X, kernel, 2, gamma, coef0)
    ys = np.where(y == 1, 1.0, -1.0)
    accs = []
    for n_iter in range(1, 6):
        clf = GeometricMarginSVC(kernel=kernel, degree=2, gamma=gamma, coef0=coef0, C=C,
                                 n_iter=n_iter, groups=groups, tol=1e-8,
                                 representation="rows" if kernel == "linear" else "auto").fit(X, y)
        s_qp = clf.s_history_[clf.n_iter_ - 1]  # the scales the last QP used
        # the last QP, solved independently on the brute-force scaled kernel
        ref = SVC(kernel="precomputed", C=C, tol=1e-8).fit(K / np.outer(s_qp, s_qp), ys)
        assert ref.intercept_[0] == pytest.approx(clf.intercept_[0], abs=1e-5)
        beta = np.zeros(n)
        beta[ref.support_] = ref.dual_coef_[0] / s_qp[ref.support_]
        beta_clf = np.zeros(n)
        beta_clf[clf.support_] = clf.beta_
        np.testing.assert_allclose(beta_clf, beta, atol=1e-5)
        # ||w||^2 from the pattern norms = beta' K beta (what the QP minimised)
        assert clf.w_norm_ ** 2 == pytest.approx(beta @ K @ beta, rel=1e-6)
        # decision values on the training set = sum_j beta_j K_ij / s_i + b
        # with s_i the updated scales; empty rows score exactly b
        f = clf.decision_function(X)
        expected = K @ beta / clf.s_ + ref.intercept_[0]
        expected[empty] = ref.intercept_[0]
        np.testing.assert_allclose(f, expected, atol=1e-4)
        accs.append(float(np.mean((f > 0) == (y == 1))))
    assert min(accs[1:]) >= accs[0] - 0.05, accs
    assert min(accs) >= 0.65, accs  # chance is about 0.5


def test_grid_decision_function_equals_separate_fits():
    X, y, groups = block_missing(120, 10, 2, seed=12, frac=0.5)
    X[:4] = NAN  # rows with no valid feature, in training
    Xv, _, _ = block_missing(40, 10, 2, seed=13, frac=0.5)
    Xv[0] = NAN
    grid = [{"kernel": k, "C": C, "n_iter": t, **kw}
            for k, kw in [("linear", {}), ("poly", {"degree": 2}), ("poly", {"degree": 3, "coef0": 0.5}),
                          ("rbf", {"gamma": 0.1})]
            for C in (0.5, 4.0) for t in (1, 2, 3, 5)]
    # first_tol = tol: every QP is solved alike, so sharing is exact
    base = GeometricMarginSVC(groups=groups, tol=1e-6, first_tol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # indefinite masked rbf
        got = base.grid_decision_function(grid, X, y, Xv)
        for p, g in zip(grid, got):
            ref = GeometricMarginSVC(groups=groups, tol=1e-6, first_tol=1e-6, **p).fit(X, y)
            np.testing.assert_allclose(g, ref.decision_function(Xv), rtol=1e-8, atol=1e-8,
                                       err_msg=str(p))
    assert not hasattr(base, "n_features_in_")
    # the iterations do change the scores (else sharing would be trivial)
    assert np.abs(got[0] - got[2]).max() > 1e-3
    # opt-in first_tol (10 tol): without n_iter=1 in the grid, the runs solve
    # QP 1 as fit does (exactly equal); with it, they continue from QP 1 solved
    # to tol, so they differ from fit only at the tolerance level (10 first_tol)
    lin = [p for p in grid if p["kernel"] == "linear"]
    for sub, atol in (([p for p in lin if p["n_iter"] > 1], 1e-8), (lin, 1e-2)):
        base = GeometricMarginSVC(groups=groups, tol=1e-4, first_tol=1e-3)
        for p, g in zip(sub, base.grid_decision_function(sub, X, y, Xv)):
            ref = GeometricMarginSVC(groups=groups, tol=1e-4, first_tol=1e-3, **p).fit(X, y)
            assert ref.n_iter_ >= min(p["n_iter"], 2)  # QP 1 was not the last
            np.testing.assert_allclose(g, ref.decision_function(Xv), rtol=0, atol=atol,
                                       err_msg=str(p))
    assert not hasattr(base, "n_features_in_")


def test_average_norm_grid_equals_separate_fits():
    X, y, groups = block_missing(100, 8, 2, seed=14, frac=0.5)
    X[:3] = NAN
    Xv, _, _ = block_missing(30, 8, 2, seed=15, frac=0.5)
    Xv[0] = NAN
    grid = [{"kernel": k, "C": C, **kw}
            for k, kw in [("linear", {}), ("poly", {"degree": 2}), ("rbf", {})] for C in (0.5, 4.0)]
    got = AverageNormSVC(tol=1e-6).grid_decision_function(grid, X, y, Xv)
    for p, g in zip(grid, got):
        ref = AverageNormSVC(tol=1e-6, **p).fit(X, y).decision_function(Xv)
        np.testing.assert_allclose(g, ref, rtol=1e-8, atol=1e-8, err_msg=str(p))


def test_liblinear_solver_agrees_with_libsvm():
    """solver='liblinear' solves the same QPs up to liblinear's bias penalty:
    on these centred data with a small bias, decision values close to
    libsvm's, same predictions, and the geometric iteration still changes the
    solution (the error against the paper's QP at small C and on non-centred
    data is measured in test_geometric_reference.py)."""
    X, y, groups = block_missing(300, 40, 4, seed=21, frac=0.5)
    for C in (0.01, 0.1, 1.0):
        ref = GeometricMarginSVC(C=C, n_iter=3, groups=groups).fit(X, y)
        ll = GeometricMarginSVC(C=C, n_iter=3, groups=groups, solver="liblinear").fit(X, y)
        d_ref, d_ll = ref.decision_function(X), ll.decision_function(X)
        scale = np.abs(d_ref).max()
        assert np.abs(d_ref - d_ll).max() < 0.05 * scale, C
        assert np.mean(np.sign(d_ref) == np.sign(d_ll)) >= 0.99
        assert np.isclose(ll.objective_[-1], ref.objective_[-1], rtol=1e-2)
        assert len(ll.s_history_) == len(ref.s_history_)
        assert not hasattr(ll, "dual_coef_") and ll.coef_.shape == (1, X.shape[1])
    one = GeometricMarginSVC(C=0.1, n_iter=1, groups=groups, solver="liblinear").fit(X, y)
    assert np.abs(one.decision_function(X) - ll.decision_function(X)).max() > 1e-3


def test_liblinear_grid_equals_separate_fits_and_bad_solver():
    X, y, groups = block_missing(120, 10, 2, seed=12, frac=0.5)
    Xv, _, _ = block_missing(40, 10, 2, seed=13, frac=0.5)
    grid = [{"C": C, "n_iter": t} for C in (0.1, 1.0) for t in (1, 3)]
    base = GeometricMarginSVC(groups=groups, solver="liblinear", first_tol=1e-3)  # = tol
    for p, g in zip(grid, base.grid_decision_function(grid, X, y, Xv)):
        ref = GeometricMarginSVC(groups=groups, solver="liblinear", first_tol=1e-3, **p).fit(X, y)
        np.testing.assert_allclose(g, ref.decision_function(Xv), rtol=1e-10, atol=1e-10)
    with pytest.raises(ValueError, match="solver='liblinear' needs kernel='linear'"):
        GeometricMarginSVC(kernel="poly", solver="liblinear").fit(X, y)
    with pytest.raises(ValueError, match="'solver' parameter of GeometricMarginSVC"):
        GeometricMarginSVC(solver="cvx").fit(X, y)


def test_first_qp_uses_first_tol_and_never_ends_the_iteration():
    """QP 1 (at s = 1) is solved to first_tol (default None = tol, the strict
    iteration; a looser value is an opt-in) when more QPs follow; the
    returned solution always comes from a QP solved to tol."""
    X, y, groups = block_missing(200, 12, 3, seed=31, frac=0.5)
    ys = np.where(y == 1, 1.0, -1.0)
    M = ~np.isnan(X)
    X0 = np.where(M, X, 0.0)
    K = X0 @ X0.T

    def scales_of(svc):  # s_i = ||w^(i)|| / ||w|| by brute force; 1 for empty rows
        w = X0[svc.support_].T @ svc.dual_coef_[0]
        s = np.sqrt((M * w ** 2).sum(1)) / np.linalg.norm(w)
        return np.where(M.any(1), np.maximum(s, 1e-3), 1.0)

    for first_tol, expect_tol in ((None, 1e-3), (1e-2, 1e-2), (0.05, 0.05), (1e-3, 1e-3)):
        clf = GeometricMarginSVC(C=1.0, n_iter=2, tol=1e-3, first_tol=first_tol, representation="rows").fit(X, y)
        loose = SVC(kernel="precomputed", C=1.0, tol=expect_tol).fit(K, ys)
        np.testing.assert_allclose(clf.s_history_[1], scales_of(loose), atol=1e-10)
        # QP 2 (the last) used those scales and was solved to tol
        s1 = clf.s_history_[1]
        qp2 = SVC(kernel="precomputed", C=1.0, tol=1e-3).fit(K / np.outer(s1, s1), ys)
        assert clf.n_iter_ == 2
        np.testing.assert_allclose(clf.intercept_, qp2.intercept_, atol=1e-10)
        np.testing.assert_allclose(clf.dual_coef_, qp2.dual_coef_, atol=1e-10)
    # the loose and the tol-solved QP 1 really differ (else this test is empty)
    exact = SVC(kernel="precomputed", C=1.0, tol=1e-3).fit(K, ys)
    for loose_tol in (1e-2, 0.05):
        loose = SVC(kernel="precomputed", C=1.0, tol=loose_tol).fit(K, ys)
        assert np.abs(scales_of(exact) - scales_of(loose)).max() > 1e-8, loose_tol
    # n_iter=1: QP 1 is final and solved to tol (a plain SVM on the masked kernel)
    one = GeometricMarginSVC(C=1.0, n_iter=1, tol=1e-3, representation="rows").fit(X, y)
    np.testing.assert_allclose(one.intercept_, exact.intercept_, atol=1e-10)
    # QP 1 "converging" at a loose first_tol does not end the iteration: with
    # a huge s_tol QP 2 is still solved, to tol; at the default QP 1 is final
    two = GeometricMarginSVC(C=1.0, n_iter=5, s_tol=10.0, first_tol=1e-2, representation="rows").fit(X, y)
    assert two.n_iter_ == 2
    assert GeometricMarginSVC(C=1.0, n_iter=5, s_tol=10.0).fit(X, y).n_iter_ == 1
    # nothing absent: every s stays 1, so QP 1 is final and solved to tol
    Xf = np.nan_to_num(X, nan=0.5)
    full = GeometricMarginSVC(C=1.0, n_iter=5, representation="rows").fit(Xf, y)
    ref = SVC(kernel="linear", C=1.0).fit(Xf, y)
    assert full.n_iter_ == 1
    np.testing.assert_allclose(full.decision_function(Xf), ref.decision_function(Xf), atol=1e-8)


def test_bad_first_tol():
    X, y, _ = block_missing(40, 4, 2, seed=1)
    with pytest.raises(ValueError, match="The 'first_tol' parameter of GeometricMarginSVC must be"):
        GeometricMarginSVC(first_tol=-1).fit(X, y)


def _rows_gram_data(seed):
    """Block-missing training data with empty rows (and an empty validation
    row), for the representation tests."""
    X, y, groups = block_missing(150, 10, 2, seed=40 + seed, frac=0.5)
    X[:4] = NAN
    Xv, _, _ = block_missing(40, 10, 2, seed=50 + seed, frac=0.5)
    Xv[0] = NAN
    return X, y, groups, Xv


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rows_equal_gram(seed):
    """representation='rows' (SVC(kernel='linear') on X0 / s) solves the QPs
    of representation='gram' (SVC on the precomputed X0 X0' / (s_i s_j)):
    same support and, up to rounding, the same dual coefficients, scales and
    decision values. Not bit for bit: libsvm sees kernel values rounded
    differently (its own dot products, then its float32 kernel cache), and
    its iterates can then part at the level of its tolerance, and how far
    depends on the CPU's BLAS kernels. Measured on these 3 seeds at tol =
    1e-3: relative decision difference <= 2e-10 at C = 0.1 (bound 1e-5),
    <= 1.9e-4 at C = 1 (bound 1e-3), <= 2.5e-3 at C = 10 (bound 1e-2, the
    reference tolerance of test_geometric_reference.py); the Gram path alone
    moves by up to 2e-3 at C = 10 when the features are permuted. Rows with
    no valid feature are zero rows, so they score the intercept."""
    X, y, groups, Xv = _rows_gram_data(seed)
    empty = np.isnan(X).all(axis=1)
    for C, rel, s_atol in ((0.1, 1e-5, 1e-6), (1.0, 1e-3, 1e-4), (10.0, 1e-2, 1e-3)):
        kw = dict(C=C, n_iter=4, groups=groups)
        gram = GeometricMarginSVC(representation="gram", **kw).fit(X, y)
        rows = GeometricMarginSVC(representation="rows", **kw).fit(X, y)
        assert (gram.representation_, rows.representation_) == ("gram", "rows")
        assert rows.n_iter_ == gram.n_iter_ >= 2, C  # the scales did change the QP
        assert np.abs(rows.s_history_[1] - 1.0).max() > 1e-2
        np.testing.assert_array_equal(rows.support_, gram.support_)
        for a, b in zip(rows.s_history_, gram.s_history_):
            np.testing.assert_allclose(a, b, rtol=0, atol=s_atol, err_msg=str(C))
        for a, b in ((rows.beta_, gram.beta_), (rows.dual_coef_, gram.dual_coef_),
                     (rows.intercept_, gram.intercept_)):
            assert np.abs(a - b).max() <= rel * np.abs(b).max(), C
        np.testing.assert_allclose(rows.objective_, gram.objective_, rtol=rel)
        for Z in (X, Xv):
            f_gram, f_rows = gram.decision_function(Z), rows.decision_function(Z)
            assert np.abs(f_rows - f_gram).max() <= rel * np.abs(f_gram).max(), C
        f_train = rows.decision_function(X)
        assert np.all(f_train[empty] == rows.intercept_[0])
        assert rows.decision_function(Xv)[0] == rows.intercept_[0]


class _SpySVC(SVC):
    """SVC that records the kernel of every fit."""
    kernels: list = []

    def fit(self, X, y, sample_weight=None):
        _SpySVC.kernels.append((self.kernel, np.shape(X)))
        return super().fit(X, y, sample_weight=sample_weight)


def test_auto_representation_picks_the_primal_for_few_linear_features(monkeypatch):
    """'auto': the primal interior point on the rows for a linear kernel with
    4 n_features <= n_samples (no libsvm fit, no n x n matrix is ever built)
    and libsvm on the precomputed kernel otherwise (poly, or linear with more
    features); 'rows' (libsvm on the rows) and 'primal' need the linear kernel."""
    import geomargin.models._kernels as kernels_module
    import geomargin.models._masked_svc as masked_module
    import geomargin.models.geometric as geo

    monkeypatch.setattr(masked_module, "SVC", _SpySVC)
    monkeypatch.setattr(kernels_module, "SVC", _SpySVC)
    X, y, groups, _ = _rows_gram_data(0)

    def kernels_of(**kw):
        _SpySVC.kernels = []
        est = GeometricMarginSVC(groups=groups, n_iter=2, **kw).fit(*data)
        return est.representation_, {k for k, _ in _SpySVC.kernels}, _SpySVC.kernels

    data = (X, y)
    with monkeypatch.context() as m:  # the rows path never builds a kernel matrix
        m.setattr(geo.GeometricMarginSVC, "_kernel", None)
        assert kernels_of()[:2] == ("primal", set())
        rep, kernels, fits = kernels_of(representation="rows")
        assert rep == "rows" and kernels == {"linear"}
        assert all(shape == X.shape for _, shape in fits)
    assert kernels_of(kernel="poly")[:2] == ("gram", {"precomputed"})
    assert kernels_of(representation="gram")[:2] == ("gram", {"precomputed"})
    data = (X[:40], y[:40])  # 4 n_features = n_samples: still the rows
    assert kernels_of()[:2] == ("primal", set())
    data = (X[:39], y[:39])  # one row fewer: the Gram matrix
    assert np.isnan(X[:39]).all(axis=0).sum() == 0  # still 10 features
    assert kernels_of()[:2] == ("gram", {"precomputed"})
    assert kernels_of(representation="rows")[:2] == ("rows", {"linear"})
    with pytest.raises(ValueError, match="representation='rows' needs kernel='linear'"):
        GeometricMarginSVC(kernel="rbf", representation="rows").fit(X, y)
    with pytest.raises(ValueError, match="representation='primal' needs kernel='linear'"):
        GeometricMarginSVC(kernel="poly", representation="primal").fit(X, y)
    with pytest.raises(ValueError, match="'representation' parameter of GeometricMarginSVC"):
        GeometricMarginSVC(representation="dense").fit(X, y)


def test_grid_decision_function_with_rows(monkeypatch):
    """grid_decision_function on the rows: equal to separate fits on the rows,
    equal to the Gram path up to rounding (the bounds of test_rows_equal_gram),
    and it builds no Gram matrix for
    the linear points (the poly points of the same grid still get theirs)."""
    import geomargin.models._geometric_grid as grid_module

    X, y, groups, Xv = _rows_gram_data(1)
    grid = [{"C": C, "n_iter": t} for C in (0.1, 1.0, 10.0) for t in (1, 2, 4)]
    base = GeometricMarginSVC(groups=groups, representation="rows")
    got_gram = GeometricMarginSVC(groups=groups, representation="gram").grid_decision_function(
        grid, X, y, Xv)
    with monkeypatch.context() as m:
        m.setattr(grid_module, "_train_val_kernels", None)
        got = base.grid_decision_function(grid, X, y, Xv)
    for p, g, g_gram in zip(grid, got, got_gram):
        ref = GeometricMarginSVC(groups=groups, representation="rows", **p).fit(X, y)
        assert ref.representation_ == "rows"
        np.testing.assert_allclose(g, ref.decision_function(Xv), rtol=1e-10, atol=1e-10,
                                   err_msg=str(p))
        rel = {0.1: 1e-5, 1.0: 1e-3, 10.0: 1e-2}[p["C"]]  # as in test_rows_equal_gram
        assert np.abs(g - g_gram).max() <= rel * np.abs(g_gram).max(), p
        assert g[0] == ref.intercept_[0]  # the empty validation row
    assert np.abs(got[0] - got[2]).max() > 1e-3  # the iterations matter
    mixed = grid[:2] + [{"kernel": "poly", "degree": 2, "n_iter": 2, "representation": "auto"}]
    out = base.grid_decision_function(mixed, X, y, Xv)
    ref = GeometricMarginSVC(groups=groups, kernel="poly", degree=2, n_iter=2).fit(X, y)
    np.testing.assert_allclose(out[2], ref.decision_function(Xv), rtol=1e-10, atol=1e-10)


def test_average_norm_rows_equal_gram(monkeypatch):
    """AverageNormSVC: representation 'rows' (auto for linear, 4 n_features
    <= n_samples) solves the QP of 'gram' (one QP; measured relative decision
    difference 0 here) and builds no Gram matrix, in fit and in
    grid_decision_function; poly keeps the Gram matrix."""
    import geomargin.models.average_norm as avg_module

    X, y, groups = block_missing(150, 10, 2, seed=44, frac=0.5)
    X[:4] = NAN
    X[:, 9] = NAN  # never valid: dropped
    Xv, _, _ = block_missing(40, 10, 2, seed=45, frac=0.5)
    Xv[0] = NAN
    grid = [{"C": C} for C in (0.1, 1.0, 10.0)]
    with monkeypatch.context() as m:
        m.setattr(avg_module, "_train_val_kernels", None)
        m.setattr(AverageNormSVC, "_kernel", None)
        got = AverageNormSVC(representation="rows").grid_decision_function(grid, X, y, Xv)
        rows = [AverageNormSVC(representation="rows", **p).fit(X, y) for p in grid]
    for p, g, r in zip(grid, got, rows):
        gram = AverageNormSVC(representation="gram", **p).fit(X, y)
        assert (r.representation_, gram.representation_) == ("rows", "gram")
        np.testing.assert_array_equal(r.support_, gram.support_)
        f_gram = gram.decision_function(Xv)
        assert np.abs(r.decision_function(Xv) - f_gram).max() <= 1e-6 * np.abs(f_gram).max(), p
        np.testing.assert_allclose(g, r.decision_function(Xv), rtol=1e-10, atol=1e-10)
        assert g[0] == r.intercept_[0]
    assert AverageNormSVC(kernel="poly").fit(X, y).representation_ == "gram"
    with pytest.raises(ValueError, match="representation='rows' needs kernel='linear'"):
        AverageNormSVC(kernel="poly", representation="rows").fit(X, y)


@pytest.mark.parametrize("kernel", ["linear", "poly"])
def test_fit_rescales_its_gram_in_place_as_the_copy_would(kernel):
    """fit rescales its one kernel matrix in place between QPs (own_kernel);
    grid_decision_function keeps the shared kernel and rescales a copy. Both
    are the same QPs: the same scales, support and decision values up to
    the last bits of the rescaled kernel, which libsvm's iterates carry to
    the level of its tolerance (test_rows_equal_gram: <= 2e-10 relative at
    C = 0.1; at C = 1 up to 1e-4 already from a permutation of the features)."""
    X, y, groups, Xv = _rows_gram_data(0)
    kw = dict(C=0.1, n_iter=4, groups=groups, kernel=kernel, representation="gram")
    est = GeometricMarginSVC(**kw).fit(X, y)
    assert est.n_iter_ >= 3 and np.abs(est.s_history_[2] - 1.0).max() > 1e-2
    (f_copy,) = GeometricMarginSVC(**kw).grid_decision_function([{}], X, y, Xv)
    f = est.decision_function(Xv)
    assert np.abs(f - f_copy).max() <= 1e-6 * np.abs(f_copy).max()
    # the last objective is the one of the final model's own training decisions
    ys = np.where(y == est.classes_[1], 1.0, -1.0)
    hinge = np.maximum(0.0, 1.0 - ys * est.decision_function(X)).sum()
    assert est.objective_[-1] == pytest.approx(0.5 * est.w_norm_ ** 2 + 0.1 * hinge, rel=1e-9)


@pytest.mark.parametrize("cls", [GeometricMarginSVC, AverageNormSVC])
def test_cache_size_auto_is_a_resource_setting_only(cls):
    """``cache_size="auto"`` caps libsvm's cache at 64 MB on a precomputed
    kernel (500 on the rows); the solution is the same bit for bit as with
    a large or a tiny cache."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 6))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    X[rng.random(400) < 0.3, 3:] = NAN
    auto = cls(representation="gram").fit(X, y)
    assert auto._svc().cache_size == 64.0
    assert auto._svc(rows=True, shape=(400, 300)).cache_size == 500.0  # libsvm on the rows
    want = auto.decision_function(X)
    for mb in (0.01, 500.0):
        other = clone(auto).set_params(cache_size=mb).fit(X, y)
        assert other._svc().cache_size == mb
        assert np.array_equal(other.decision_function(X), want)
    with pytest.raises(ValueError, match="cache_size"):
        clone(auto).set_params(cache_size="big").fit(X, y)


@pytest.mark.parametrize("kernel", ["linear", "poly"])
def test_fitted_model_holds_one_copy_of_its_support_vectors(kernel):
    # a linear model scores with w alone and keeps support_vectors_ only; a
    # kernel model also keeps their zero-filled values and masks for the
    # kernel expansion. The cross-validation keeps every fold's model, so a
    # second and third copy per fold added up (geometric_block on yeast-GEM).
    rng = np.random.RandomState(3)
    X = rng.randn(600, 40)
    X[rng.rand(600, 40) < 0.3] = NAN
    y = (np.nansum(X[:, :5], axis=1) > 0).astype(int)
    est = GeometricMarginSVC(kernel=kernel, C=1.0, n_iter=2).fit(X, y)
    copies = [getattr(est, "_X0_sv", None), getattr(est, "_M_sv", None), est._norms.X0, est._norms.M]
    if kernel == "linear":
        assert all(c is None for c in copies)
    else:
        assert all(c is not None and c.shape == est.support_vectors_.shape for c in copies)
    X_new = rng.randn(50, 40)
    X_new[rng.rand(50, 40) < 0.3] = NAN
    f, s = est.decision_and_scales(X_new)
    if kernel == "linear":  # <w, x> / s + b with the explicit w
        np.testing.assert_allclose(f, np.nan_to_num(X_new) @ est.coef_[0] / s + est.intercept_[0])
