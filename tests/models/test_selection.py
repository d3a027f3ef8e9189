"""Nested cross-validation: determinism, grouping, no selection on test data."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin

from geomargin.models.baselines import ImputedSVC
from geomargin.models.registry import MethodSpec
from geomargin.models.selection import (
    expand_grid,
    nested_cross_validate,
    select_params,
    grid_validation_table,
)

nan = np.nan


@pytest.fixture(scope="module")
def data():
    rng = np.random.RandomState(0)
    groups = np.repeat(np.arange(5), 2)
    X = rng.randn(150, 10)
    y = (X[:, 0] - X[:, 3] + 0.5 * rng.randn(150) > 0).astype(int)
    X[(rng.rand(150, 5) < 0.3)[:, groups]] = nan
    return X, y, groups


class Spy(ClassifierMixin, BaseEstimator):
    """Records the row ids (column 0) it is fitted on and scores."""

    log: list = []

    def __init__(self, a=1.0):
        self.a = a

    def fit(self, X, y):
        Spy.log.append(("fit", frozenset(X[:, 0].astype(int).tolist())))
        self.classes_ = np.unique(y)
        return self

    def decision_function(self, X):
        Spy.log.append(("score", frozenset(X[:, 0].astype(int).tolist())))
        return self.a * (X[:, 1] - 0.5)

    def predict(self, X):
        return self.classes_[(self.decision_function(X) > 0).astype(int)]


def spy_spec(grid):
    return MethodSpec("spy", "spy", lambda groups=None, random_state=None: Spy(), grid)


def spy_data(n=100, seed=0):
    rng = np.random.RandomState(seed)
    y = rng.randint(0, 2, n)
    x1 = np.where(rng.rand(n) < 0.8, y, 1 - y).astype(float)
    return np.column_stack([np.arange(n), x1]), y


def test_test_fold_never_used_for_selection():
    X, y = spy_data()
    Spy.log = []
    marks = []
    res = nested_cross_validate(spy_spec([{"a": [1.0, -1.0, 2.0]}]), X, y, seed=3,
                                progress=lambda s: marks.append(len(Spy.log)))
    start = 0
    for k, te in enumerate(res.test_index):
        test = set(te.tolist())
        train = set(range(len(y))) - test
        calls = Spy.log[start:marks[k]]
        start = marks[k]
        # 3 inner fits + 3 validation scorings, then the refit and the test
        # scoring (decision values, then predictions)
        assert [c[0] for c in calls] == ["fit", "score"] * 3 + ["fit", "score", "score"]
        for kind, rows in calls[:-2]:
            assert rows <= train, "test instances reached fit or validation"
        inner_fit, inner_val = calls[0][1], calls[1][1]
        assert inner_fit | inner_val == train and not inner_fit & inner_val
        assert len(inner_val) == pytest.approx(0.2 * len(train), abs=1)
        assert calls[-3] == ("fit", frozenset(train))          # refit on the whole fold
        assert calls[-2] == calls[-1] == ("score", frozenset(test))
    # a = -1 inverts the informative score: never chosen
    assert all(p["a"] != -1.0 for p in res.best_params)


def test_tie_break_accuracy_then_auc_then_grid_order():
    X, y = spy_data()
    # a = 1 and a = 2 give identical predictions and AUC: earliest wins
    assert select_params(spy_spec([{"a": [2.0, 1.0]}]), X, y, seed=0) == {"a": 2.0}
    assert select_params(spy_spec([{"a": [1.0, 2.0]}]), X, y, seed=0) == {"a": 1.0}
    assert select_params(spy_spec([{"a": [-1.0, 1.0]}]), X, y, seed=0) == {"a": 1.0}


def test_single_point_grid_is_not_fitted():
    X, y = spy_data()
    Spy.log = []
    assert select_params(spy_spec([{"a": 3.0}]), X, y, seed=0) == {"a": 3.0}
    assert Spy.log == []


def test_deterministic_given_seed(data):
    X, y, groups = data
    grid = {"kernel": ["linear", "rbf"], "C": [0.1, 1.0]}
    a = nested_cross_validate("zero", X, y, feature_groups=groups, param_grid=grid, seed=7)
    b = nested_cross_validate("zero", X, y, feature_groups=groups, param_grid=grid, seed=7)
    cols = ["fold", "accuracy", "roc_auc", "n_train", "n_test", "best_params"]
    pd.testing.assert_frame_equal(a.folds[cols], b.folds[cols])
    np.testing.assert_array_equal(a.oof_score, b.oof_score)
    c = nested_cross_validate("zero", X, y, feature_groups=groups, param_grid=grid, seed=8)
    assert any(not np.array_equal(t1, t2) for t1, t2 in zip(a.test_index, c.test_index))


def test_result_structure_and_metrics(data):
    X, y, groups = data
    res = nested_cross_validate("mean", X, y, feature_groups=groups,
                                param_grid={"C": [0.1, 1.0]}, seed=0)
    f = res.folds
    assert list(f.columns) == ["fold", "accuracy", "roc_auc", "fit_seconds", "n_train",
                               "n_test", "best_params", "select_seconds"]
    assert len(f) == 5 and f["n_test"].sum() == len(y)
    assert not np.isnan(res.oof_score).any()
    all_te = np.concatenate(res.test_index)
    np.testing.assert_array_equal(np.sort(all_te), np.arange(len(y)))
    for k, te in enumerate(res.test_index):
        # the stored model reproduces the reported out-of-fold scores and accuracy
        np.testing.assert_allclose(res.models[k].decision_function(X[te]), res.oof_score[te])
        acc = np.mean(res.models[k].predict(X[te]) == y[te])
        assert f.loc[k, "accuracy"] == pytest.approx(acc)
        assert json.loads(f.loc[k, "best_params"]) == res.best_params[k]
        assert res.models[k].get_params()["C"] == res.best_params[k]["C"]
        # stratified: class balance of each test fold near the overall one
        assert abs(y[te].mean() - y.mean()) < 0.1
    assert f["accuracy"].mean() > 0.75


def test_grouped_folds_never_split_a_group(data):
    X, y, groups = data
    inst = np.arange(len(y)) // 3                 # 50 groups of 3 instances
    res = nested_cross_validate("zero", X, y, instance_groups=inst,
                                param_grid={"C": [0.1, 1.0]}, seed=1)
    seen = {}
    for k, te in enumerate(res.test_index):
        for g in np.unique(inst[te]):
            assert g not in seen
            seen[g] = k
        assert set(np.flatnonzero(np.isin(inst, inst[te]))) == set(te.tolist())
    assert len(seen) == 50


def test_grouped_inner_split_keeps_groups():
    X, y = spy_data(120, seed=2)
    inst = np.arange(120) // 4
    Spy.log = []
    select_params(spy_spec([{"a": [1.0, 2.0]}]), X, y, instance_groups=inst, seed=0)
    fit_rows, val_rows = Spy.log[0][1], Spy.log[1][1]
    assert not set(inst[list(fit_rows)]) & set(inst[list(val_rows)])
    assert len(val_rows) == pytest.approx(24, abs=8)


def test_validation_table_matches_manual_fit(data):
    X, y, groups = data
    from geomargin.models.selection import _inner_split
    tab = grid_validation_table("flags", X, y, feature_groups=groups,
                           param_grid={"kernel": ["linear", "poly"], "C": [1.0]}, seed=4)
    tr, va = _inner_split(y, None, 0.2, 4)
    for _, row in tab.iterrows():
        clf = ImputedSVC(imputer="flags", groups=groups, **row["params"]).fit(X[tr], y[tr])
        assert row["val_accuracy"] == pytest.approx(np.mean(clf.predict(X[va]) == y[va]))


def test_expand_grid_and_errors(data):
    X, y, _ = data
    assert expand_grid({"C": 1.0}) == [{"C": 1.0}]
    with pytest.raises(ValueError, match="param_grid has no point"):
        expand_grid([])
    with pytest.raises(ValueError, match=r"The 'val_fraction' parameter of nested_cross_validate "
                                         r"must be a float in \(0, 1\)\. Got 1\.5 instead\."):
        nested_cross_validate("zero", X, y, val_fraction=1.5)
    with pytest.raises(ValueError, match="'instance_groups' parameter of nested_cross_validate "
                                         "must have one label per instance"):
        nested_cross_validate("zero", X, y, instance_groups=[1, 2, 3])
    with pytest.raises(ValueError, match="exactly two classes"):
        nested_cross_validate("zero", X, np.arange(len(y)) % 3)
    with pytest.raises(ValueError, match="The 'n_splits' parameter of nested_cross_validate "
                                         "must be an int >= 2. Got 1 instead."):
        nested_cross_validate("zero", X, y, n_splits=1)
    with pytest.raises(KeyError, match="Unknown method 'svm'"):
        nested_cross_validate("svm", X, y)


def test_consensus_params_ties_and_empty():
    from geomargin.models.selection import consensus_params
    # the choice of most folds, compared by value (dict order does not matter)
    assert consensus_params([{"C": 1.0, "gamma": 2}, {"gamma": 2, "C": 1.0}, {"C": 3.0, "gamma": 2}]) \
        == {"C": 1.0, "gamma": 2}
    # a tie goes to the earliest fold's choice
    assert consensus_params([{"C": 3.0}, {"C": 1.0}, {"C": 1.0}, {"C": 3.0}]) == {"C": 3.0}
    with pytest.raises(ValueError, match="at least one fold"):
        consensus_params([])


def test_query_of_the_ranking_objective_is_apart_from_the_fold_groups():
    """Folds are made of fold groups (several reactions each), while the rank
    SVM forms its pairs within each reaction (the query)."""
    rng = np.random.RandomState(0)
    n_q, per_q = 8, 10
    X = rng.randn(n_q * per_q, 3)
    y = np.tile([1, 1] + [0] * (per_q - 2), n_q)
    X[y == 1, 0] += 2.0
    query = np.repeat(np.arange(n_q), per_q)
    fold_group = query // 2  # two reactions per fold group
    grid = [{"C": 1.0, "n_iter": 1}]
    apart = nested_cross_validate("geometric_rank", X, y, instance_groups=fold_group, query=query,
                                  n_splits=2, param_grid=grid, seed=0)
    merged = nested_cross_validate("geometric_rank", X, y, instance_groups=fold_group,
                                   n_splits=2, param_grid=grid, seed=0)
    for tests, a, m in zip(apart.test_index, apart.models, merged.models):
        n_train_queries = n_q - len(np.unique(query[tests]))
        assert a.n_pairs_ == n_train_queries * 2 * (per_q - 2)   # within each reaction
        assert m.n_pairs_ == 2 * a.n_pairs_                      # within each pair of reactions
        # the folds follow the fold groups either way
        assert set(fold_group[tests]).isdisjoint(np.delete(fold_group, tests))
    with pytest.raises(ValueError, match="'query' parameter"):
        nested_cross_validate("zero", X, y, query=query[:5], n_splits=2, param_grid={"C": [1.0]})
