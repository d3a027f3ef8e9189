"""IntegratedLogisticRegression (Williams, Liao, Xue, Carin & Krishnapuram, TPAMI 2007)."""

import numpy as np
import pytest
from scipy.optimize import check_grad
from scipy.special import expit
from sklearn.linear_model import LogisticRegression
from sklearn.utils.estimator_checks import check_estimator

from geomargin.models.integrated_logreg import MAX_GRAPH_INSTANCES, IntegratedLogisticRegression
from toy_data import noisy_linear


def _data(n=150, d=4, seed=0, frac=0.0):
    return noisy_linear(n, d, seed, frac, noise=0.5)


@pytest.mark.parametrize("C", [0.05, 1.0, 20.0])
def test_no_missing_values_is_logistic_regression(C):
    X, _, y = _data()
    ours = IntegratedLogisticRegression(C=C).fit(X, y)
    ref = LogisticRegression(C=C, tol=1e-10, max_iter=10000).fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, atol=1e-5, rtol=1e-5)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, atol=1e-5)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-6)
    assert ours.mixture_ is None


@pytest.mark.parametrize("kw", [dict(), dict(n_components=2), dict(covariance="lowrank", rank=2),
                                dict(n_components=2, em_method="vb"), dict(graph_reg=0.5)])
def test_gradient_matches_finite_differences(kw):
    _, Xm, y = _data(frac=0.3, seed=1)
    clf = IntegratedLogisticRegression(C=0.5, random_state=0, **kw).fit(
        Xm, y, label_noise=0.1, X_unlabeled=Xm[:20])
    cond = clf._conditional(Xm)
    ys = np.where(y == clf.classes_[1], 1.0, -1.0)
    eps = np.full(len(y), 0.1)
    A = clf._graph_matrix(np.vstack([Xm, Xm[:20]])) if clf.graph_reg else None
    theta = np.random.default_rng(2).normal(size=5)
    f = lambda t: clf._objective(t, cond, ys, eps, A)[0]  # noqa: E731
    g = lambda t: clf._objective(t, cond, ys, eps, A)[1]  # noqa: E731
    assert check_grad(f, g, theta) < 1e-4 * max(1.0, np.abs(g(theta)).max())
    # and the fitted point is stationary
    opt = np.concatenate([clf.coef_[0], clf.intercept_])
    assert np.abs(g(opt)).max() < 1e-4


def test_probit_integral_matches_monte_carlo():
    _, Xm, y = _data(n=300, frac=0.3, seed=3)
    clf = IntegratedLogisticRegression(C=1.0).fit(Xm, y)
    gm = clf.mixture_
    mu, S = gm.means_[0], gm.covariances_[0]
    w, b = clf.coef_[0], clf.intercept_[0]
    rng = np.random.default_rng(4)
    rows = np.flatnonzero(np.isnan(Xm[:, :2]).any(1))[:8]
    P = clf.predict_proba(Xm[rows])[:, 1]
    for p, x in zip(P, Xm[rows]):
        o, m = ~np.isnan(x), np.isnan(x)
        cm = mu[m] + S[np.ix_(m, o)] @ np.linalg.solve(S[np.ix_(o, o)], x[o] - mu[o])
        cc = S[np.ix_(m, m)] - S[np.ix_(m, o)] @ np.linalg.solve(S[np.ix_(o, o)], S[np.ix_(o, m)])
        draws = rng.multivariate_normal(cm, cc, 200000)
        mc = expit(draws @ w[m] + x[o] @ w[o] + b).mean()
        assert p == pytest.approx(mc, abs=0.02)  # probit approximation error, not MC error


def test_label_noise_near_one_half_removes_the_signal():
    X, _, y = _data()
    clean = IntegratedLogisticRegression(C=1.0).fit(X, y)
    clf = IntegratedLogisticRegression(C=1.0).fit(X, y, label_noise=0.499)
    # the likelihood gradient is scaled by (1 - 2 eps) = 0.002: w collapses towards 0
    assert np.linalg.norm(clf.coef_) < 0.05 * np.linalg.norm(clean.coef_)
    per_instance = np.where(np.arange(len(y)) % 2 == 0, 0.0, 0.3)
    noisy = IntegratedLogisticRegression(C=1.0).fit(X, y, label_noise=per_instance)
    assert np.linalg.norm(noisy.coef_) < np.linalg.norm(clean.coef_)
    with pytest.raises(ValueError, match="'label_noise' argument"):
        IntegratedLogisticRegression().fit(X, y, label_noise=0.6)


def test_graph_term_is_the_laplacian_penalty():
    X, _, y = _data(n=60, seed=5)
    clf = IntegratedLogisticRegression(C=1.0, graph_reg=2.0).fit(X, y, X_unlabeled=X[:10] + 0.1)
    Xall = np.vstack([X, X[:10] + 0.1])
    D2 = ((Xall[:, None] - Xall[None]) ** 2).sum(-1)
    s2 = np.median(D2[np.triu_indices(len(Xall), 1)])
    assert clf.graph_bandwidth_ == pytest.approx(s2)
    W = np.exp(-D2 / (2 * s2))
    np.fill_diagonal(W, 0)
    w, b = clf.coef_[0], clf.intercept_[0]
    f = Xall @ w + b
    pen = 0.5 * (W * (f[:, None] - f[None]) ** 2).sum() / len(Xall) ** 2
    plain = IntegratedLogisticRegression(C=1.0)
    plain.classes_ = clf.classes_
    ys = np.where(y == clf.classes_[1], 1.0, -1.0)
    cond = clf._conditional(X)
    theta = np.concatenate([w, [b]])
    base = plain._objective(theta, cond, ys, np.zeros(len(y)), None)[0]
    assert clf.objective_ == pytest.approx(base + 2.0 * pen, rel=1e-8)
    # a strong penalty shrinks the score differences between neighbours
    assert np.linalg.norm(clf.coef_) < np.linalg.norm(IntegratedLogisticRegression(C=1.0).fit(X, y).coef_)


def test_mixture_with_missing_values_predicts_well():
    X, Xm, y = _data(n=300, frac=0.3, seed=6)
    for method in ("em", "vb"):
        clf = IntegratedLogisticRegression(C=1.0, n_components=2, em_method=method,
                                           random_state=0).fit(Xm, y)
        assert clf.score(X, y) > 0.8
        P = clf.predict_proba(Xm)
        np.testing.assert_allclose(P.sum(1), 1.0)
        np.testing.assert_array_equal(clf.predict(Xm), clf.classes_[(P[:, 1] > 0.5).astype(int)])


def test_grid_points_share_one_mixture_fit():
    # two C on the same rows: the second reuses the first's mixture
    # (gaussian_em.fit_shared), and its model is bit for bit the one a
    # fresh mixture fit gives
    from geomargin.models import gaussian_em
    _, X, y = _data(frac=0.3)   # X with absent values
    first = IntegratedLogisticRegression(C=0.1, random_state=0).fit(X, y)
    second = IntegratedLogisticRegression(C=1.0, random_state=0).fit(X, y)
    assert first.mixture_ is not None and second.mixture_ is first.mixture_
    gaussian_em._SHARED_FITS.clear()
    fresh = IntegratedLogisticRegression(C=1.0, random_state=0).fit(X, y)
    assert fresh.mixture_ is not first.mixture_
    np.testing.assert_array_equal(fresh.coef_, second.coef_)
    np.testing.assert_array_equal(fresh.decision_function(X), second.decision_function(X))
    # other rows, or no integer seed: a fit of its own
    assert IntegratedLogisticRegression(C=1.0, random_state=0).fit(X[1:], y[1:]).mixture_ \
        is not fresh.mixture_
    assert IntegratedLogisticRegression(C=1.0).fit(X, y).mixture_ is not fresh.mixture_


def test_errors_beyond_limits():
    rng = np.random.default_rng(0)
    y = np.arange(10) % 2
    Xbig = rng.normal(size=(10, 301))
    Xbig[0, 0] = np.nan
    with pytest.raises(ValueError, match="covariance='diag' or covariance='lowrank'"):
        IntegratedLogisticRegression().fit(Xbig, y)
    X = rng.normal(size=(10, 2))
    with pytest.raises(ValueError, match=f"the limit is {MAX_GRAPH_INSTANCES}"):
        IntegratedLogisticRegression(graph_reg=1.0).fit(X, y, X_unlabeled=np.zeros((MAX_GRAPH_INSTANCES, 2)))
    with pytest.raises(ValueError, match="The 'C' parameter of IntegratedLogisticRegression must be a float > 0"):
        IntegratedLogisticRegression(C=-1).fit(X, y)
    with pytest.raises(ValueError, match="fitted on complete data only"):
        IntegratedLogisticRegression().fit(X, y).predict(np.array([[np.nan, 1.0]]))


def test_sklearn_estimator_checks():
    check_estimator(IntegratedLogisticRegression())
