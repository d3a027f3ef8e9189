"""Tests for rank.refit: the refits of several rankings' models by forked
processes are the fits of one process."""

from __future__ import annotations

import os
import pickle
from types import SimpleNamespace

import numpy as np

from geomargin.rank.refit import ranking_decision_for, ranking_decisions_for


class _ReadHere(dict):
    """A mapping that may only be read in the process that made it."""

    def __init__(self, *args):
        super().__init__(*args)
        self.pid = os.getpid()

    def __getitem__(self, key):
        if os.getpid() != self.pid:
            raise RuntimeError(f"{key!r} read in a worker process")
        return super().__getitem__(key)


def test_refits_by_processes_equal_one_process(tmp_path):
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
    names = list(params)
    one = ranking_decisions_for(names, paths, data, None, seed=3, n_jobs=1)
    # the time split passes a lazily read .npz, whose one open file the workers must not read at
    # once: the arrays are read in this process (a read in a worker raises here)
    two = ranking_decisions_for(names, paths, _ReadHere(data), None, seed=3, n_jobs=2)
    Xt = rng.normal(size=(30, 4))
    Xt[:10, :2] = np.nan
    assert list(two) == names
    for name in names:
        alone, _ = ranking_decision_for(name, paths[name], data, None, seed=3)
        np.testing.assert_array_equal(two[name](Xt), one[name](Xt))
        np.testing.assert_array_equal(two[name](Xt), alone(Xt))
    assert np.ptp(two["geometric"](Xt)) > 0
