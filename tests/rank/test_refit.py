"""Tests for rank.refit: a time split scores with models refitted by their own
jobs (``refit_model``, pickled) exactly as ``ranking_decision_for`` scores."""

from __future__ import annotations

import pickle
from types import SimpleNamespace

import numpy as np
import pytest

from geomargin.rank.refit import ranking_decision_for, ranking_decisions_from, refit_model


def _data_and_paths(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    X[:50, 2:] = np.nan                                   # block 1 absent in some rows
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 2]) > 0).astype(int)
    data = {"X": X, "y": y, "groups": np.array([0, 0, 1, 1]), "instance_group": np.arange(len(y)) // 4}
    params = {"geometric": {"C": 0.5, "kernel": "linear"}, "flags": {"C": 1.0, "kernel": "linear"},
              "hgb": {"learning_rate": 0.1, "max_leaf_nodes": 15}}
    paths = {}
    for name, best in params.items():
        paths[name] = tmp_path / f"{name}.pkl"
        paths[name].write_bytes(pickle.dumps(SimpleNamespace(best_params=[best, best, {"C": 9.0}])))
    return data, paths


def test_pickled_refits_score_as_ranking_decision_for(tmp_path):
    data, paths = _data_and_paths(tmp_path)
    # as the refit jobs leave them: each model pickled, then read back by the time split
    models = {name: pickle.loads(pickle.dumps(refit_model(name, path, data, seed=3)[0]))
              for name, path in paths.items()}
    names = [*paths, "coexpr"]
    featurizer = SimpleNamespace()
    decisions = ranking_decisions_from(names, models, featurizer)
    assert list(decisions) == names
    Xt = np.random.default_rng(1).normal(size=(30, 4))
    Xt[:10, :2] = np.nan
    for name in paths:
        alone, params = ranking_decision_for(name, paths[name], data, None, seed=3)
        np.testing.assert_array_equal(decisions[name](Xt), alone(Xt))
    # the refit takes the choice of most folds, not the odd one out
    assert params == {"learning_rate": 0.1, "max_leaf_nodes": 15}
    assert np.ptp(decisions["geometric"](Xt)) > 0


def test_a_missing_refit_is_named(tmp_path):
    data, paths = _data_and_paths(tmp_path)
    models = {"flags": refit_model("flags", paths["flags"], data, seed=3)[0]}
    with pytest.raises(KeyError, match="no refitted model of geometric, hgb"):
        ranking_decisions_from(["flags", "geometric", "hgb", "coexpr"], models, None)
