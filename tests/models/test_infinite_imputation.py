"""InfiniteImputationSVC (Dick, Haider & Scheffer, ICML 2008)."""

import numpy as np
import pytest
from scipy.optimize import approx_fprime
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import check_estimator

from geomargin.models.infinite_imputation import MAX_TRAIN, InfiniteImputationSVC


def _data(n=80, seed=0, frac=0.3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.3 * rng.normal(size=n) > 0.5).astype(int)
    Xm = X.copy()
    Xm[rng.random(X.shape) < frac] = np.nan
    return X, Xm, y


@pytest.mark.parametrize("C,gamma", [(0.5, 0.1), (2.0, 0.3), (10.0, "scale")])
def test_no_missing_values_is_the_rbf_svc(C, gamma):
    X, _, y = _data()
    ours = InfiniteImputationSVC(C=C, gamma=gamma, svm_tol=1e-8).fit(X, y)
    ref = SVC(C=C, gamma=gamma, tol=1e-8).fit(X, y)
    np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(X), atol=1e-4)
    assert len(ours.imputations_) == 1 and ours.beta_.tolist() == [1.0]


def _mean_imputed(Xm):
    return np.where(np.isnan(Xm), np.nanmean(Xm, 0), Xm)


@pytest.mark.parametrize("prior", ["mean", "class_mean"])
def test_greedy_objective_decreases_and_imputations_are_valid(prior):
    _, Xm, y = _data(seed=1)
    clf = InfiniteImputationSVC(C=2.0, gamma=0.3, prior=prior, imputation_reg=1.0, max_iter=15).fit(Xm, y)
    J = np.array(clf.objective_)
    assert np.all(np.diff(J) <= 1e-9) and J[-1] < J[0]
    assert len(J) <= 16 and clf.n_iter_ <= 15
    assert clf.beta_.sum() == pytest.approx(1.0) and np.all(clf.beta_ > 0)
    obs = ~np.isnan(Xm)
    for Xt in clf.imputations_:
        np.testing.assert_array_equal(Xt[obs], Xm[obs])
    if prior == "mean":
        # J at the start = libsvm dual objective on the mean imputation (R = 0 there)
        X0 = _mean_imputed(Xm)
        ref = SVC(C=2.0, gamma=0.3, tol=1e-5).fit(X0, y)
        K = np.exp(-0.3 * ((X0[:, None] - X0[None]) ** 2).sum(-1))
        c = np.zeros(len(y))
        c[ref.support_] = ref.dual_coef_[0]
        assert J[0] == pytest.approx(np.abs(c).sum() - 0.5 * c @ K @ c, rel=1e-6)


@pytest.mark.parametrize("prior", ["mean", "class_mean"])
def test_imputation_gradient_matches_finite_differences(prior):
    _, Xm, y = _data(n=30, seed=2)
    clf = InfiniteImputationSVC(C=1.0, gamma=0.3, prior=prior, imputation_reg=0.7)
    clf.gamma_ = 0.3
    clf._miss = np.isnan(Xm)
    clf._X0 = _mean_imputed(Xm)
    ys = np.where(y == 1, 1.0, -1.0)
    if prior == "class_mean":
        clf._classes = [(np.flatnonzero(ys == s),
                         float(rbf_kernel(clf._X0[ys == s], gamma=0.3).mean()))
                        for s in (-1.0, 1.0)]
    rng = np.random.default_rng(3)
    c = rng.uniform(-1, 1, size=30)
    Xt = clf._X0 + np.where(clf._miss, rng.normal(size=Xm.shape), 0.0)
    f = lambda v: clf._h(np.where(clf._miss, v.reshape(Xm.shape), Xt), c)[0]  # noqa: E731
    num = approx_fprime(Xt.ravel(), f, 1e-6).reshape(Xm.shape)
    ana = clf._h(Xt, c)[1]
    np.testing.assert_allclose(ana, np.where(clf._miss, num, 0.0), atol=1e-4)


def test_strong_regulariser_keeps_the_prior_imputation():
    _, Xm, y = _data(seed=4)
    clf = InfiniteImputationSVC(C=2.0, gamma=0.3, imputation_reg=1e6, svm_tol=1e-8).fit(Xm, y)
    X0 = _mean_imputed(Xm)
    ref = SVC(C=2.0, gamma=0.3, tol=1e-8).fit(X0, y)
    np.testing.assert_allclose(clf.decision_function(Xm), ref.decision_function(X0), atol=1e-3)


def _sign_data(n, seed, missing=0.5, misleading=False):
    """The class is the sign of x0 (|x0| uniform in (0, 2)); x1 is noise.
    ``missing`` of the rows lose x0, so mean imputation puts all of them, of
    both classes, on the boundary x0 = mean. With ``misleading`` x1 agrees
    with the class on exactly those rows: fitting them after mean
    imputation needs x1, which is noise on complete (test) rows."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    sign = 2.0 * y - 1.0
    X = np.column_stack([sign * rng.uniform(0.0, 2.0, n), rng.normal(size=n)])
    miss = rng.random(n) < missing
    if misleading:
        X[miss, 1] = sign[miss] * np.abs(X[miss, 1])
    X[miss, 0] = np.nan
    return X, y, miss


def test_learned_imputations_move_to_their_class_side():
    """What the method is for: each new imputation descends -1/2 c'K(X)c,
    i.e. widens the margin, so a missing x0 moves from the mean (the
    boundary, shared by both classes) to its own class's side."""
    sides = []
    for seed in range(6):
        X, y, miss = _sign_data(60, seed)
        clf = InfiniteImputationSVC(C=10.0, gamma=1.0, imputation_reg=0.1, max_iter=10).fit(X, y)
        assert len(clf.beta_) > 1                      # imputations were learned
        x0 = sum(b * imp[:, 0] for b, imp in zip(clf.beta_, clf.imputations_))
        sides.append(np.mean(np.sign(x0[miss] - clf.fill_values_[0]) == 2 * y[miss] - 1))
    assert np.mean(sides) >= 0.9, sides              # mean imputation: 0


def test_learned_imputations_help_where_mean_imputation_misleads():
    """On _sign_data(misleading=True) the mean-imputed SVM must lean on x1;
    the learned imputations separate the classes along x0 instead, which
    generalises to complete test rows."""
    Xt, yt, _ = _sign_data(2000, 100, missing=0.0)
    gains = []
    for seed in range(8):
        X, y, _ = _sign_data(60, seed, misleading=True)
        ours = InfiniteImputationSVC(C=10.0, gamma=1.0, imputation_reg=0.1, max_iter=10).fit(X, y)
        ref = SVC(C=10.0, gamma=1.0).fit(_mean_imputed(X), y)
        gains.append(ours.score(Xt, yt) - ref.score(Xt, yt))
    assert np.mean(gains) >= 0.03 and np.sum(np.array(gains) > 0) >= 6, gains


def test_errors_beyond_limits():
    X = np.zeros((MAX_TRAIN + 1, 2))
    X[:, 0] = np.arange(MAX_TRAIN + 1)
    y = np.arange(MAX_TRAIN + 1) % 2
    with pytest.raises(ValueError, match=f"at most {MAX_TRAIN} training instances"):
        InfiniteImputationSVC().fit(X, y)
    with pytest.raises(ValueError, match="The 'prior' parameter of InfiniteImputationSVC must be one of"):
        InfiniteImputationSVC(prior="median").fit(X[:10], y[:10])


def test_sklearn_estimator_checks():
    check_estimator(InfiniteImputationSVC(max_iter=5))


def test_in_place_rbf_gives_the_plain_expressions_bits():
    """The kernel is evaluated in place; it must be bit for bit the plain
    ``exp(-gamma * max(sa + sb - 2 * A @ B.T, 0))`` (for B = A too)."""
    from geomargin.models.infinite_imputation import _rbf

    rng = np.random.default_rng(2)
    A = rng.normal(size=(300, 40)) * 3
    A[rng.random(A.shape) < 0.5] = 0.0
    for B in (A, A[:70] + 0.5):
        sa, sb = np.sum(A ** 2, 1), np.sum(B ** 2, 1)
        ref = np.exp(-0.037 * np.maximum(sa[:, None] + sb[None] - 2 * A @ B.T, 0.0))
        assert np.array_equal(_rbf(A, B, 0.037), ref)
