"""EM / VB-EM for Gaussian mixtures with missing values (models.gaussian_em)."""

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from geomargin.models.gaussian_em import MAX_FULL_DIM, GaussianMixtureEM

MUS = np.array([[0.0, 0.0, 0.0, 0.0], [3.0, 3.0, -2.0, 1.0]])


def _mixture(n=2000, frac=0.25, seed=0):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(4, 4)) * 0.4
    B = rng.normal(size=(4, 4)) * 0.4
    covs = [A @ A.T + 0.5 * np.eye(4), B @ B.T + 0.3 * np.eye(4)]
    z = rng.random(n) < 0.3
    X = np.where(z[:, None], rng.multivariate_normal(MUS[1], covs[1], n),
                 rng.multivariate_normal(MUS[0], covs[0], n))
    X[rng.random(X.shape) < frac] = np.nan
    return X, covs


@pytest.mark.parametrize("covariance,method", [("full", "em"), ("full", "vb"),
                                               ("lowrank", "em"), ("diag", "em")])
def test_recovers_known_mixture_with_25pct_missing(covariance, method):
    X, covs = _mixture()
    gm = GaussianMixtureEM(2, covariance=covariance, method=method, rank=2,
                           random_state=0).fit(X)
    order = np.argsort(gm.means_[:, 0])
    # tolerances at n=2000, 25% MCAR: means 0.15, weights 0.05
    assert np.abs(gm.means_[order] - MUS).max() < 0.15
    assert np.abs(gm.weights_[order] - [0.7, 0.3]).max() < 0.05
    if covariance != "diag":  # diag cannot represent the true correlations
        for k in range(2):
            assert np.abs(gm.covariances_[order[k]] - covs[k]).max() < 0.2
    assert gm.converged_


def test_single_gaussian_matches_closed_form_without_missing():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 3)) @ rng.normal(size=(3, 3))
    gm = GaussianMixtureEM(1, reg_covar=1e-8).fit(X)
    np.testing.assert_allclose(gm.means_[0], X.mean(0), atol=1e-10)
    np.testing.assert_allclose(gm.covariances_[0], np.cov(X.T, bias=True), atol=1e-6)
    # observed-data log-likelihood equals scipy's
    ll = multivariate_normal(X.mean(0), np.cov(X.T, bias=True)).logpdf(X).mean()
    assert gm.score(X) == pytest.approx(ll, rel=1e-6)


def test_conditional_moments_match_gaussian_formulas():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(500, 3)) @ np.array([[1, 0.8, 0.2], [0, 1, 0.5], [0, 0, 1.0]])
    gm = GaussianMixtureEM(1, reg_covar=1e-8).fit(X)
    mu, S = gm.means_[0], gm.covariances_[0]
    x = np.array([[0.7, np.nan, -0.3]])
    cond = gm.conditional(x)
    o, m = [0, 2], [1]
    Soo_inv = np.linalg.inv(S[np.ix_(o, o)])
    cm = mu[m] + S[np.ix_(m, o)] @ Soo_inv @ (x[0, o] - mu[o])
    cc = S[np.ix_(m, m)] - S[np.ix_(m, o)] @ Soo_inv @ S[np.ix_(o, m)]
    assert cond.means[0, 0, 1] == pytest.approx(cm[0], rel=1e-8)
    w = np.array([0.3, 2.0, -1.0])
    assert cond.quad(w)[0, 0] == pytest.approx(4.0 * cc[0, 0], rel=1e-8)
    np.testing.assert_allclose(cond.means[0, 0, o], x[0, o])


@pytest.mark.parametrize("covariance,method", [("full", "em"), ("full", "vb"), ("lowrank", "em"),
                                               ("diag", "em")])
def test_conditional_means_alone_are_the_conditionals_bits(covariance, method):
    # the means-only path (what the robust SOCP's completions read) gives
    # exactly conditional().means, on rows with every absence pattern,
    # complete rows and rows with nothing observed among them
    X, _ = _mixture(n=400, frac=0.35, seed=3)
    gm = GaussianMixtureEM(2, covariance=covariance, method=method, rank=2, random_state=0).fit(X)
    Xnew, _ = _mixture(n=120, frac=0.4, seed=4)
    Xnew[:3] = np.nan
    for A in (X, Xnew):
        np.testing.assert_array_equal(gm.conditional_means(A), gm.conditional(A).means)


def test_vb_prunes_superfluous_components():
    X, _ = _mixture(n=1500, seed=3)
    gm = GaussianMixtureEM(5, method="vb", random_state=0, max_iter=300).fit(X)
    big = np.sort(gm.weights_)[::-1]
    assert big[:2].sum() > 0.95  # two real clusters keep (almost) all the mass


def test_lowrank_conditional_matches_dense_formula():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(400, 2)) @ rng.normal(size=(2, 8)) + 0.3 * rng.normal(size=(400, 8))
    X[rng.random(X.shape) < 0.2] = np.nan
    gm = GaussianMixtureEM(1, covariance="lowrank", rank=2).fit(X)
    mu, S = gm.means_[0], gm.covariances_[0]
    x = X[:20]
    cond = gm.conditional(x)
    w = rng.normal(size=8)
    q = cond.quad(w)[:, 0]
    for i in range(20):
        m = np.flatnonzero(np.isnan(x[i]))
        o = np.flatnonzero(~np.isnan(x[i]))
        cc = S[np.ix_(m, m)] - S[np.ix_(m, o)] @ np.linalg.solve(S[np.ix_(o, o)], S[np.ix_(o, m)])
        cm = mu[m] + S[np.ix_(m, o)] @ np.linalg.solve(S[np.ix_(o, o)], x[i, o] - mu[o])
        assert q[i] == pytest.approx(w[m] @ cc @ w[m], rel=1e-6, abs=1e-10)
        np.testing.assert_allclose(cond.means[i, 0, m], cm, rtol=1e-6, atol=1e-10)


def test_errors_beyond_limits():
    X = np.zeros((5, MAX_FULL_DIM + 1))
    with pytest.raises(ValueError, match="covariance='diag' or covariance='lowrank'"):
        GaussianMixtureEM().fit(X)
    with pytest.raises(ValueError, match="'n_components' parameter of GaussianMixtureEM"):
        GaussianMixtureEM(n_components=0).fit(np.ones((4, 2)))
    with pytest.raises(ValueError, match="must be 'full' when method='vb'"):
        GaussianMixtureEM(method="vb", covariance="diag").fit(np.ones((4, 2)))


@pytest.mark.parametrize("d", [1, 7, 8, 9, 19, 64])
def test_patterns_are_numpys_unique_rows(d):
    """_patterns gives np.unique(mask, axis=0, return_inverse=True)'s rows,
    in its order, from byte keys."""
    from geomargin.models._rows import _patterns

    rng = np.random.default_rng(d)
    for n, p in ((0, 0.5), (1, 0.5), (500, 0.5), (500, 0.9), (50, 0.0)):
        mask = rng.random((n, d)) < p
        uniq, inv = np.unique(mask, axis=0, return_inverse=True)
        got_uniq, got_inv = _patterns(mask)
        np.testing.assert_array_equal(got_uniq, uniq)
        np.testing.assert_array_equal(got_inv, inv.ravel())


def _per_pattern_estep(gm, X, uniq, inv):
    """The E-step pattern by pattern (each pattern's rows as one compact
    x_o), as ``_estep`` computes it for the other covariances."""
    n, d = X.shape
    K = gm.n_components
    logp, means = np.zeros((n, K)), np.empty((n, K, d))
    missing, diags, factors = [], [], []
    for p in range(uniq.shape[0]):
        rows = np.flatnonzero(inv == p)
        o, m = np.flatnonzero(uniq[p]), np.flatnonzero(~uniq[p])
        xo = X[np.ix_(rows, o)]
        dg, fc = [], []
        for k in range(K):
            lp, cm, dk, fk = gm._component_terms(k, xo, o, m)
            logp[rows, k] = lp
            means[rows, k] = X[rows]
            means[np.ix_(rows, [k], m)] = cm[:, None, :]
            dg.append(dk)
            fc.append(fk)
        missing.append(m)
        diags.append(np.array(dg).reshape(K, m.size))
        factors.append(np.array(fc).reshape(K, m.size, 0))
    return gm._responsibilities(logp, means, inv, missing, diags, factors, None)


def test_diag_estep_for_all_rows_gives_the_per_pattern_bits():
    """The diagonal E-step works on all rows at once (grouped by their number
    of observed values); it must give exactly (bit for bit) what the
    pattern-by-pattern E-step gives: responsibilities, completed means,
    per-pattern variances and the log-likelihood. Rows have 0 to 300 observed
    values (pairwise sums over more than 128 terms included)."""
    from geomargin.models._rows import _patterns

    rng = np.random.default_rng(5)
    blocks = np.repeat(np.arange(30), 10)
    X = rng.normal(size=(400, 300)) * rng.uniform(0.5, 20, 300) + rng.normal(size=300) * 5
    X[(rng.random((400, 30)) < rng.uniform(0.05, 0.95, (400, 1)))[:, blocks]] = np.nan
    X[rng.random((400, 300)) < 0.01] = np.nan
    X[0] = np.nan
    gm = GaussianMixtureEM(3, covariance="diag", max_iter=5, random_state=0).fit(X[:250])
    uniq, inv = _patterns(~np.isnan(X))
    assert len(np.unique(uniq.sum(axis=1))) > 50
    got, ll = gm._estep(X, uniq, inv)
    ref, ll_ref = _per_pattern_estep(gm, X, uniq, inv)
    assert ll == ll_ref
    assert np.array_equal(got.resp, ref.resp) and np.array_equal(got.means, ref.means)
    assert np.array_equal(got.pattern, ref.pattern)
    for a, b in zip(got.missing + got.diag + got.factor, ref.missing + ref.diag + ref.factor, strict=True):
        assert a.shape == b.shape and np.array_equal(a, b)


def _naive_em_step(X, weights, means, covs, ridge, covariance, rank=None):
    """One EM step for a Gaussian mixture with missing values, written row by
    row from the textbook (Ghahramani & Jordan 1994): responsibilities from
    the observed coordinates' marginal density, each row completed by its
    conditional mean with the conditional covariance added to the second
    moment; then the M-step and the estimator's ridge (and, for "diag", the
    diagonal; for "lowrank", the probabilistic-PCA projection). Returns the
    new ``(weights, means, covs)`` and the observed-data log-likelihood of
    the *given* parameters, summed over rows."""
    n, d = X.shape
    K = len(weights)
    resp = np.zeros((n, K))
    xhat = np.zeros((n, K, d))
    ccov = np.zeros((n, K, d, d))
    loglik = 0.0
    for i in range(n):
        o, m = np.flatnonzero(~np.isnan(X[i])), np.flatnonzero(np.isnan(X[i]))
        logp = np.array([np.log(weights[k]) + multivariate_normal(means[k][o], covs[k][np.ix_(o, o)]).logpdf(X[i, o])
                         for k in range(K)])
        top = logp.max()
        loglik += top + np.log(np.exp(logp - top).sum())
        resp[i] = np.exp(logp - top) / np.exp(logp - top).sum()
        for k in range(K):
            S = covs[k]
            gain = S[np.ix_(m, o)] @ np.linalg.inv(S[np.ix_(o, o)])
            xhat[i, k, o] = X[i, o]
            xhat[i, k, m] = means[k][m] + gain @ (X[i, o] - means[k][o])
            ccov[i, k][np.ix_(m, m)] = S[np.ix_(m, m)] - gain @ S[np.ix_(o, m)]
    Nk = resp.sum(0)
    new_w = Nk / n
    new_mu = np.einsum("nk,nkd->kd", resp, xhat) / Nk[:, None]
    new_cov = []
    for k in range(K):
        dev = xhat[:, k] - new_mu[k]
        second = (np.einsum("n,nd,ne->de", resp[:, k], dev, dev) + np.einsum("n,nde->de", resp[:, k], ccov[:, k])) / Nk[k]
        if covariance == "diag":
            new_cov.append(np.diag(np.diag(second) + ridge))
        elif covariance == "lowrank":
            vals, vecs = np.linalg.eigh(second)
            vals, vecs = vals[::-1], vecs[:, ::-1]
            noise = vals[rank:].mean()
            W = vecs[:, :rank] * np.sqrt(np.maximum(vals[:rank] - noise, 0.0))
            new_cov.append(W @ W.T + np.diag(np.maximum(np.diag(second) - (W ** 2).sum(1), 0.0) + ridge))
        else:
            new_cov.append(second + ridge * np.eye(d))
    return new_w, new_mu, np.array(new_cov), loglik


@pytest.mark.parametrize("covariance", ["full", "diag", "lowrank"])
@pytest.mark.parametrize("steps", [1, 4])
def test_one_em_step_equals_the_row_by_row_reference(covariance, steps):
    # independent reference for the per-pattern, vectorised E- and M-steps (Woodbury for
    # "lowrank"): from the estimator's parameters after `steps` steps, one naive step must give
    # its parameters after `steps + 1`, and the naive log-likelihood must be its score
    X, _ = _mixture(n=150, frac=0.3, seed=3)
    X[np.isnan(X).all(1), 0] = 0.5
    kw = dict(covariance=covariance, rank=2, tol=1e-300, random_state=0)
    before = GaussianMixtureEM(2, max_iter=steps, **kw).fit(X)
    after = GaussianMixtureEM(2, max_iter=steps + 1, **kw).fit(X)
    assert before.n_iter_ == steps and after.n_iter_ == steps + 1
    observed = [X[~np.isnan(X[:, j]), j] for j in range(X.shape[1])]
    ridge = 1e-3 * np.mean([v.var() for v in observed])
    w, mu, cov, loglik = _naive_em_step(X, before.weights_, before.means_, before.covariances_, ridge,
                                        covariance, rank=2)
    np.testing.assert_allclose(after.weights_, w, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(after.means_, mu, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(after.covariances_, cov, rtol=1e-7, atol=1e-10)
    assert before.score(X) == pytest.approx(loglik / len(X), rel=1e-10)
    # EM never lowers the observed-data log-likelihood
    assert after.score(X) >= before.score(X) - 1e-12
