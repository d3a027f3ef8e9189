"""ImputedSVC, HGB and LogRegIndicator against independent scikit-learn fits."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import check_estimator

from geomargin.models.baselines import ImputedSVC, LogRegIndicator, make_hgb

nan = np.nan


@pytest.fixture(scope="module")
def data():
    rng = np.random.RandomState(0)
    groups = np.repeat(np.arange(4), 2)
    X = rng.randn(120, 8)
    y = (X[:, 0] + 0.7 * X[:, 2] - 0.5 * X[:, 5] + 0.3 * rng.randn(120) > 0).astype(int)
    X[(rng.rand(120, 4) < 0.35)[:, groups]] = nan
    return X, y, groups


@pytest.mark.parametrize("imputer", ["zero", "mean", "flags", "knn", "em"])
@pytest.mark.parametrize("kernel, degree", [("linear", 2), ("poly", 2), ("poly", 3), ("rbf", 2)])
def test_equals_sklearn_svc_on_imputed_data(data, imputer, kernel, degree):
    X, y, groups = data
    clf = ImputedSVC(imputer=imputer, kernel=kernel, degree=degree, C=2.0, groups=groups,
                     n_neighbors=3, n_components=2, random_state=0,
                     representation="rows" if kernel == "linear" else "auto").fit(X[:90], y[:90])
    Z, Zt = clf.imputer_.transform(X[:90]), clf.imputer_.transform(X[90:])
    ref = SVC(kernel=kernel, degree=degree, C=2.0, coef0=1.0, gamma="scale").fit(Z, y[:90])
    np.testing.assert_allclose(clf.decision_function(X[90:]), ref.decision_function(Zt),
                               atol=1e-6)
    np.testing.assert_array_equal(clf.predict(X[90:]), ref.predict(Zt))
    np.testing.assert_array_equal(np.sort(clf.support_), np.sort(ref.support_))


def test_flags_uses_groups(data):
    X, y, groups = data
    clf = ImputedSVC(imputer="flags", groups=groups).fit(X, y)
    assert clf.coef_.shape == (1, 8 + 4)        # 8 features + one flag per block


def test_string_labels_and_classes(data):
    X, y, _ = data
    labels = np.array(["neg", "pos"])[y]
    clf = ImputedSVC(imputer="mean").fit(X, labels)
    np.testing.assert_array_equal(clf.classes_, ["neg", "pos"])
    d = clf.decision_function(X)
    np.testing.assert_array_equal(clf.predict(X), np.where(d > 0, "pos", "neg"))


def test_grid_decision_function_equals_separate_fits(data):
    X, y, groups = data
    grid = [{"imputer": "knn", "n_neighbors": 3, "kernel": "rbf", "C": 1.0},
            {"imputer": "knn", "n_neighbors": 5, "kernel": "poly", "degree": 3, "C": 0.5},
            {"imputer": "knn", "n_neighbors": 3, "kernel": "linear", "C": 10.0},
            {"imputer": "em", "n_components": 2, "kernel": "rbf", "C": 1.0},
            {"imputer": "flags", "kernel": "poly", "degree": 2, "C": 1.0}]
    base = ImputedSVC(groups=groups, random_state=0)
    got = base.grid_decision_function(grid, X[:90], y[:90], X[90:])
    for p, g in zip(grid, got):
        ref = clone(base).set_params(**p).fit(X[:90], y[:90]).decision_function(X[90:])
        np.testing.assert_allclose(g, ref, atol=1e-8)


def test_logreg_indicator_equals_manual_pipeline(data):
    X, y, _ = data
    mine = LogRegIndicator(C=0.3).fit(X[:90], y[:90])
    ref = make_pipeline(SimpleImputer(strategy="mean", add_indicator=True),
                        StandardScaler(), LogisticRegression(C=0.3, max_iter=1000)
                        ).fit(X[:90], y[:90])
    np.testing.assert_allclose(mine.decision_function(X[90:]), ref.decision_function(X[90:]),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(mine.predict_proba(X[90:]), ref.predict_proba(X[90:]),
                               rtol=1e-6, atol=1e-8)


def test_hgb_on_raw_nan_is_deterministic(data):
    X, y, _ = data
    a = make_hgb(random_state=0, max_iter=20).fit(X, y).decision_function(X)
    b = make_hgb(random_state=0, max_iter=20).fit(X, y).decision_function(X)
    np.testing.assert_array_equal(a, b)
    assert make_hgb().early_stopping is False


def test_hgb_scores_each_row_on_its_own(data):
    """AbsentColumnsHGB declares row_independent_decision, which lets the
    explanations score many candidates in one call: a row's decision in a
    batch is bit-for-bit its decision alone."""
    from geomargin.rank.scoring import row_independent

    X, y, _ = data
    model = make_hgb(random_state=0, max_iter=20).fit(X, y)
    assert row_independent(model.decision_function)
    together = model.decision_function(X)
    alone = np.concatenate([model.decision_function(X[i:i + 1]) for i in range(len(X))])
    np.testing.assert_array_equal(together, alone)
    assert not row_independent(model.predict_proba)


def test_hgb_scores_repeated_rows_once(data, monkeypatch):
    """Repeated rows are scored once (the trees see only the distinct rows)
    and every copy gets the decision of its row alone, bit for bit."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    X, y, _ = data
    model = make_hgb(random_state=0, max_iter=20).fit(X, y)
    Xr = np.vstack([X[:7], X[:7], X[3:5]])[[0, 9, 14, 2, 8, 7, 15, 1, 3, 4, 5, 6, 10, 11, 12, 13]]
    seen = []
    orig = HistGradientBoostingClassifier._raw_predict
    monkeypatch.setattr(HistGradientBoostingClassifier, "_raw_predict",
                        lambda self, X, n_threads=None: seen.append(len(X)) or orig(self, X, n_threads))
    got = model.decision_function(Xr)
    assert seen == [len({row.tobytes() for row in model._present(X[:7])})] and seen[0] < len(Xr)
    alone = np.concatenate([model.decision_function(Xr[i:i + 1]) for i in range(len(Xr))])
    np.testing.assert_array_equal(got, alone)


@pytest.mark.parametrize("kwargs, msg", [
    ({"n_neighbors": 0}, "The 'n_neighbors' parameter of ImputedSVC must be an int >= 1. "
                         "Got 0 instead."),
    ({"imputer": "median"}, "The 'imputer' parameter of ImputedSVC must be one of 'zero', "
                            "'mean', 'flags', 'knn', 'em'. Got 'median' instead."),
    ({"C": -1}, "The 'C' parameter of ImputedSVC must be a float > 0. Got -1 instead."),
    ({"kernel": "sigmoid"}, "The 'kernel' parameter of ImputedSVC must be one of 'linear', "
                            "'poly', 'rbf'. Got 'sigmoid' instead."),
    ({"gamma": "big"}, "The 'gamma' parameter of ImputedSVC must be 'scale', 'auto' or a "
                       "float > 0. Got 'big' instead."),
    ({"degree": 0}, "The 'degree' parameter of ImputedSVC must be an int >= 1. Got 0 instead."),
])
def test_bad_params(data, kwargs, msg):
    X, y, _ = data
    with pytest.raises(ValueError) as err:
        ImputedSVC(**kwargs).fit(X, y)
    assert str(err.value) == msg


def test_bad_inputs(data):
    X, y, _ = data
    with pytest.raises(ValueError, match="ImputedSVC is a binary classifier and y must have "
                                         "exactly two classes"):
        ImputedSVC().fit(X, np.arange(len(y)) % 3)
    Xi = X.copy()
    Xi[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        ImputedSVC().fit(Xi, y)
    with pytest.raises(ValueError, match="every value is absent"):
        ImputedSVC().fit(np.full((4, 3), nan), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="'groups' parameter of ImputedSVC must be an integer "
                                         "array of length n_features=8"):
        ImputedSVC(imputer="flags", groups=[0, 1]).fit(X, y)
    with pytest.raises(ValueError, match="LogRegIndicator is a binary classifier"):
        LogRegIndicator().fit(X, np.arange(len(y)) % 3)


@pytest.mark.parametrize("est", [ImputedSVC(), ImputedSVC(imputer="knn", kernel="rbf"),
                                 LogRegIndicator()],
                         ids=["ImputedSVC", "ImputedSVC-knn-rbf", "LogRegIndicator"])
def test_check_estimator(est):
    check_estimator(est)


@pytest.mark.parametrize("imputer", ["zero", "mean", "flags"])
def test_rows_equal_gram_and_no_gram_is_built(data, imputer, monkeypatch):
    """representation 'rows' (libsvm on the imputed rows) solves the QP of
    'gram' (measured relative decision difference 0 here; bound 1e-6), in
    fit and in grid_decision_function,
    without any n x n matrix; non-linear kernels keep the Gram matrix."""
    import geomargin.models.baselines as bl

    X, y, groups = data
    grid = [{"C": C, "representation": "rows"} for C in (0.1, 1.0, 10.0)] + [{"kernel": "rbf"}]
    kw = dict(imputer=imputer, groups=groups)
    with monkeypatch.context() as m:  # no Gram matrix for the linear points
        m.setattr(bl, "kernel_from_gram", None)
        rows = [ImputedSVC(**kw, **p).fit(X[:90], y[:90]) for p in grid[:3]]
        got = ImputedSVC(**kw).grid_decision_function(grid[:3], X[:90], y[:90], X[90:])
    got += ImputedSVC(**kw).grid_decision_function(grid[3:], X[:90], y[:90], X[90:])
    mixed = ImputedSVC(**kw).grid_decision_function(grid, X[:90], y[:90], X[90:])
    for p, r, g, g_mixed in zip(grid, rows, got, mixed):
        gram = ImputedSVC(**kw, **{**p, "representation": "gram"}).fit(X[:90], y[:90])
        assert (r.representation_, gram.representation_) == ("rows", "gram")
        np.testing.assert_array_equal(r.support_, gram.support_)
        f_gram = gram.decision_function(X[90:])
        f = r.decision_function(X[90:])
        assert np.abs(f - f_gram).max() <= 1e-6 * np.abs(f_gram).max(), p
        np.testing.assert_allclose(g, f, rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(g_mixed, f, rtol=1e-10, atol=1e-10)
    rbf = ImputedSVC(kernel="rbf", **kw).fit(X[:90], y[:90])
    assert rbf.representation_ == "gram"
    np.testing.assert_allclose(got[3], rbf.decision_function(X[90:]), rtol=1e-10, atol=1e-10)
    with pytest.raises(ValueError, match="representation='rows' needs kernel='linear'"):
        ImputedSVC(kernel="poly", representation="rows").fit(X, y)
