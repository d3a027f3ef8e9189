"""RobustSOCPClassifier (Shivaswamy, Bhattacharyya & Smola, JMLR 2006)."""

import numpy as np
import pytest
from scipy.stats import norm
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import check_estimator

from geomargin.models.robust_socp import MAX_FULL_DIM_SOCP, RobustSOCPClassifier
from toy_data import noisy_linear


def _data(n=80, d=4, seed=0, frac=0.0):
    return noisy_linear(n, d, seed, frac, noise=0.3)


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_no_missing_values_is_the_soft_margin_svm(C):
    X, _, y = _data()
    ours = RobustSOCPClassifier(C=C).fit(X, y)
    svc = SVC(kernel="linear", C=C, tol=1e-8).fit(X, y)
    ref = svc.decision_function(X)
    np.testing.assert_allclose(ours.decision_function(X), ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())
    np.testing.assert_allclose(ours.coef_, svc.coef_, rtol=1e-4, atol=1e-5)
    assert ours.gaussians_ == {}


def _cond_mean(mu, S, x):
    o, m = ~np.isnan(x), np.isnan(x)
    out = x.copy()
    out[m] = mu[m] + S[np.ix_(m, o)] @ np.linalg.solve(S[np.ix_(o, o)], x[o] - mu[o])
    cc = S[np.ix_(m, m)] - S[np.ix_(m, o)] @ np.linalg.solve(S[np.ix_(o, o)], S[np.ix_(o, m)])
    return out, m, cc


def test_eta_one_half_is_svm_on_conditional_mean_imputation():
    _, Xm, y = _data(frac=0.3, seed=1)
    ours = RobustSOCPClassifier(C=1.0, eta=0.5, em="joint").fit(Xm, y)
    gm = ours.gaussians_["joint"]
    Xi = np.array([_cond_mean(gm.means_[0], gm.covariances_[0], x)[0] for x in Xm])
    svc = SVC(kernel="linear", C=1.0, tol=1e-8).fit(Xi, y)
    np.testing.assert_allclose(ours.coef_, svc.coef_, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ours.decision_function(Xm), svc.decision_function(Xi), atol=1e-4)


@pytest.mark.parametrize("covariance", ["full", "diag", "lowrank"])
def test_solution_satisfies_chance_constraints_and_objective(covariance):
    _, Xm, y = _data(frac=0.3, seed=2)
    eta = 0.8
    clf = RobustSOCPClassifier(C=1.0, eta=eta, em="per_class", covariance=covariance,
                               rank=2).fit(Xm, y)
    kappa = norm.ppf(eta)
    assert clf.kappa_ == pytest.approx(kappa)
    w, b = clf.coef_[0], clf.intercept_[0]
    ys = np.where(y == clf.classes_[1], 1.0, -1.0)
    xi = np.empty(len(y))
    for i, x in enumerate(Xm):
        gm = clf.gaussians_[clf.classes_[int(ys[i] > 0)]]
        if np.isnan(x).any():
            mu_i, m, cc = _cond_mean(gm.means_[0], gm.covariances_[0], x)
            spread = np.sqrt(w[m] @ cc @ w[m])
        else:
            mu_i, spread = x, 0.0
        xi[i] = max(0.0, 1 - ys[i] * (w @ mu_i + b) + kappa * spread)
    # the optimal slacks are the smallest feasible ones: objective recomputed by hand
    assert clf.objective_ == pytest.approx(0.5 * w @ w + xi.sum(), rel=1e-4, abs=1e-5)
    # robust constraints cost margin: objective above the eta=0.5 (plain imputation) one
    plain = RobustSOCPClassifier(C=1.0, eta=0.5, covariance=covariance, rank=2).fit(Xm, y)
    assert clf.objective_ > plain.objective_


def test_prediction_rule_and_worst_case_margin():
    X, Xm, y = _data(n=120, frac=0.3, seed=3)
    clf = RobustSOCPClassifier(C=1.0, eta=0.7).fit(Xm, y)
    f = clf.decision_function(Xm)
    full = ~np.isnan(Xm).any(1)
    np.testing.assert_allclose(f[full], Xm[full] @ clf.coef_[0] + clf.intercept_[0])
    i = np.flatnonzero(~full)[0]
    comps = []
    for lab in clf.classes_:
        gm = clf.gaussians_[lab]
        comps.append(_cond_mean(gm.means_[0], gm.covariances_[0], Xm[i])[0] @ clf.coef_[0] + clf.intercept_[0])
    d_minus, d_plus = comps
    expected = clf.classes_[1] if d_plus > -d_minus else clf.classes_[0]
    assert clf.predict(Xm[i:i + 1])[0] == expected
    wc = clf.worst_case_margin(Xm)
    np.testing.assert_allclose(wc[full], np.abs(f[full]))
    assert clf.score(X, y) > 0.8
    # joint Gaussian: worst-case margin = |w.mu + b| - kappa sqrt(w_m' S_mm|o w_m), by hand
    joint = RobustSOCPClassifier(C=1.0, eta=0.7, em="joint").fit(Xm, y)
    gm = joint.gaussians_["joint"]
    w, b = joint.coef_[0], joint.intercept_[0]
    wc = joint.worst_case_margin(Xm)
    for i in np.flatnonzero(~full)[:10]:
        mu_i, m, cc = _cond_mean(gm.means_[0], gm.covariances_[0], Xm[i])
        assert wc[i] == pytest.approx(abs(w @ mu_i + b) - joint.kappa_ * np.sqrt(w[m] @ cc @ w[m]),
                                      rel=1e-6, abs=1e-9)


def test_errors_beyond_limits():
    X = np.random.default_rng(0).normal(size=(10, MAX_FULL_DIM_SOCP + 1))
    y = np.arange(10) % 2
    with pytest.raises(ValueError, match="covariance='diag'"):
        RobustSOCPClassifier().fit(X, y)
    with pytest.raises(ValueError, match=r"The 'eta' parameter of RobustSOCPClassifier must be a float in \[0.5, 1\)"):
        RobustSOCPClassifier(eta=0.3).fit(X[:, :3], y)
    with pytest.raises(ValueError, match="Only binary classification"):
        RobustSOCPClassifier().fit(X[:, :3], np.arange(10) % 3)
    clf = RobustSOCPClassifier().fit(X[:, :3], y)
    with pytest.raises(ValueError, match="fitted on complete data only"):
        clf.predict(np.array([[np.nan, 1.0, 2.0]]))


def test_lowrank_runs_beyond_full_limit():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 120))
    y = (X[:, 0] > 0).astype(int)
    X[rng.random(X.shape) < 0.3] = np.nan
    clf = RobustSOCPClassifier(covariance="lowrank", rank=3, eta=0.6).fit(X, y)
    assert clf.coef_.shape == (1, 120) and clf.intercept_.shape == (1,)
    # the same SOCP written from the module docstring and solved by cvxpy:
    # each row's conditional mean and covariance under its class's fitted
    # (low-rank plus diagonal, stored dense) Gaussian, one cone per row
    import cvxpy as cp

    ys = np.where(y == clf.classes_[1], 1.0, -1.0)
    w, b = cp.Variable(120), cp.Variable()
    xi = cp.Variable(60, nonneg=True)
    cons = []
    for i, x in enumerate(X):
        gm = clf.gaussians_[clf.classes_[int(ys[i] > 0)]]
        mu_i, m, cc = _cond_mean(gm.means_[0], gm.covariances_[0], x)
        spread = cp.norm(np.linalg.cholesky(cc).T @ w[np.flatnonzero(m)]) if m.any() else 0.0
        cons.append(ys[i] * (mu_i @ w + b) >= 1 - xi[i] + clf.kappa_ * spread)
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + cp.sum(xi)), cons)
    prob.solve(solver="CLARABEL")
    assert clf.kappa_ == pytest.approx(norm.ppf(0.6))
    assert clf.objective_ == pytest.approx(prob.value, rel=1e-5)
    np.testing.assert_allclose(clf.coef_[0], w.value, atol=1e-4 * np.abs(w.value).max())
    assert clf.intercept_[0] == pytest.approx(float(b.value), abs=1e-4)


@pytest.mark.parametrize("em", ["per_class", "joint"])
def test_rows_sharing_a_covariance_share_a_cone_and_the_optimum_is_one_cone_per_row(em):
    # block absence, as in the enzyme and car features: few missing patterns, many rows each
    rng = np.random.default_rng(7)
    X, _, y = noisy_linear(150, 6, 7, 0.0, noise=0.3)
    X[rng.random(150) < 0.4, 2:4] = np.nan
    X[rng.random(150) < 0.3, 4:] = np.nan
    clf = RobustSOCPClassifier(C=1.0, eta=0.8, em=em).fit(X, y)
    patterns = {(int(c), tuple(np.isnan(x))) for c, x in zip(y, X) if np.isnan(x).any()}
    assert clf.n_cones_ == (len(patterns) if em == "per_class" else len({p for _, p in patterns}))
    assert clf.n_cones_ <= 6
    # independent reference: the SOCP of the module docstring, one cone per row
    import cvxpy as cp

    ys = np.where(y == clf.classes_[1], 1.0, -1.0)
    w, b = cp.Variable(6), cp.Variable()
    xi = cp.Variable(150, nonneg=True)
    cons = []
    for i, x in enumerate(X):
        gm = clf.gaussians_["joint" if em == "joint" else clf.classes_[int(ys[i] > 0)]]
        mu_i, m, cc = _cond_mean(gm.means_[0], gm.covariances_[0], x)
        spread = cp.norm(np.linalg.cholesky(cc).T @ w[np.flatnonzero(m)]) if m.any() else 0.0
        cons.append(ys[i] * (mu_i @ w + b) >= 1 - xi[i] + clf.kappa_ * spread)
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + cp.sum(xi)), cons)
    prob.solve(solver="CLARABEL")
    assert clf.objective_ == pytest.approx(prob.value, rel=1e-6)
    np.testing.assert_allclose(clf.coef_[0], w.value, atol=1e-5 * np.abs(w.value).max())
    assert clf.intercept_[0] == pytest.approx(float(b.value), abs=1e-5)


def test_sklearn_estimator_checks():
    check_estimator(RobustSOCPClassifier())
