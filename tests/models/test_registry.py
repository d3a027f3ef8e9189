"""Method registry: names, factories, default grids."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from geomargin.models.registry import METHODS, MethodSpec, get_method, register_method, svm_grid
from geomargin.models.selection import expand_grid, nested_cross_validate

nan = np.nan
CORE = ["geometric", "avg_w", "zero", "mean", "flags", "knn", "em", "hgb", "logreg_indicator"]


@pytest.fixture(scope="module")
def data():
    rng = np.random.RandomState(0)
    groups = np.repeat(np.arange(3), 2)
    X = rng.randn(60, 6)
    y = (X[:, 0] + X[:, 2] > 0).astype(int)
    X[(rng.rand(60, 3) < 0.3)[:, groups]] = nan
    return X, y, groups


def test_core_names_registered():
    assert set(CORE) <= set(METHODS)
    for name in CORE:
        spec = get_method(name)
        assert spec.name == name and spec.label


def test_unknown_name_lists_valid_names():
    with pytest.raises(KeyError) as err:
        get_method("svm")
    msg = str(err.value)
    assert "Unknown method 'svm'" in msg
    for name in CORE:
        assert name in msg


def test_default_grids_follow_the_paper():
    kernels = {(p["kernel"], p.get("degree")) for p in expand_grid(svm_grid())}
    assert kernels == {("linear", None), ("poly", 2), ("poly", 3), ("rbf", None)}
    assert len(expand_grid(get_method("zero").param_grid)) == 12
    assert {p["n_neighbors"] for p in expand_grid(get_method("knn").param_grid)} == {3, 5, 10, 20}
    assert {p["n_components"] for p in expand_grid(get_method("em").param_grid)} == \
        {3, 5, 10, 15, 20}
    assert {p["n_iter"] for p in expand_grid(get_method("geometric").param_grid)} == \
        {1, 2, 3, 4, 5}


@pytest.mark.parametrize("name", CORE)
def test_every_grid_point_is_a_valid_parameter_setting(name, data):
    X, y, groups = data
    spec = get_method(name)
    est = spec.make(groups=groups, random_state=0)
    valid = est.get_params()
    points = expand_grid(spec.param_grid)
    for p in points:
        assert set(p) <= set(valid), f"{name}: {set(p) - set(valid)} not parameters"
    # the first and last point fit and score on small data; the first (the
    # simplest: linear or least flexible) must rank the training data well.
    # (The last is RBF for the SVMs: the masked RBF of the geometric methods
    # may be indefinite, so no accuracy is asserted for it here.)
    for i, p in enumerate((points[0], points[-1])):
        clf = spec.make(groups=groups, random_state=0).set_params(**p)
        if name == "em":
            clf.set_params(n_components=2)
        if name == "knn":
            clf.set_params(n_neighbors=3)
        if name == "hgb":
            clf.set_params(max_iter=10, min_samples_leaf=5)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # indefinite masked RBF
            clf.fit(X, y)
        d = clf.decision_function(X)
        assert d.shape == (len(y),) and np.isfinite(d).all()
        if i == 0:
            assert roc_auc_score(y, d) > 0.85


def test_groups_reach_the_estimators(data):
    _, _, groups = data
    for name in ("geometric", "avg_w", "flags"):
        est = get_method(name).make(groups=groups)
        np.testing.assert_array_equal(est.get_params()["groups"], groups)
    assert get_method("em").make(random_state=5).random_state == 5
    assert get_method("hgb").make(random_state=5).random_state == 5


@pytest.mark.parametrize("name", ["geometric", "avg_w"])
def test_geometric_methods_run_in_nested_cv(name, data):
    X, y, groups = data
    res = nested_cross_validate(name, X, y, feature_groups=groups, n_splits=3,
                                param_grid={"C": [1.0, 10.0]}, seed=0)
    assert len(res.folds) == 3 and not np.isnan(res.oof_score).any()
    assert res.folds["accuracy"].mean() > 0.7


def test_register_method():
    spec = MethodSpec("tmp_method", "Temporary", lambda groups=None, random_state=None: None, [])
    try:
        register_method(spec)
        assert get_method("tmp_method") is spec
        with pytest.raises(ValueError, match="already registered"):
            register_method(spec)
        register_method(spec, replace=True)
    finally:
        METHODS.pop("tmp_method", None)
    with pytest.raises(TypeError, match="expects a MethodSpec"):
        register_method({"name": "x"})


def _with_absent_block(X, groups, at=4):
    """``X`` with a block of two columns absent in every row inserted at
    column ``at`` (a feature block that no instance has: the toy network has
    no funnel motif), and the blocks with it."""
    Xa = np.insert(X, [at, at], np.nan, axis=1)
    ga = np.insert(groups, [at, at], groups.max() + 1)
    return Xa, ga


@pytest.mark.parametrize("name", sorted(METHODS))
def test_every_method_leaves_out_a_block_absent_in_every_row(name, data):
    """Every method treats a column absent in every training row the same
    way: its decision values are those of the same method fitted without the
    column (bit for bit), and values that rows to score hold in it are
    ignored."""
    X, y, groups = data
    Xa, ga = _with_absent_block(X, groups)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = get_method(name).make(groups=groups, random_state=0).fit(X, y)
        est = get_method(name).make(groups=ga, random_state=0).fit(Xa, y)
        d_ref = ref.decision_function(X)
        scored = Xa.copy()
        scored[:, 4:6] = np.random.RandomState(1).randn(len(X), 2)
        np.testing.assert_array_equal(est.decision_function(Xa), d_ref)
        np.testing.assert_array_equal(est.decision_function(scored), d_ref)


@pytest.mark.parametrize("name", sorted(n for n in METHODS
                                        if hasattr(get_method(n).make(), "grid_decision_function")))
def test_grid_shortcut_leaves_out_a_block_absent_in_every_row(name, data):
    """The shared-kernel grid path of model selection does the same as fit."""
    X, y, groups = data
    Xa, ga = _with_absent_block(X, groups)
    grid = [p for p in expand_grid(get_method(name).param_grid)][:4]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = get_method(name).make(groups=groups, random_state=0).grid_decision_function(
            grid, X[:40], y[:40], X[40:])
        out = get_method(name).make(groups=ga, random_state=0).grid_decision_function(
            grid, Xa[:40], y[:40], Xa[40:])
    for a, b in zip(out, ref):
        np.testing.assert_array_equal(a, b)

