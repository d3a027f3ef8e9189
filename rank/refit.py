"""The decision function a ranking scores candidates with.

A non-learned baseline (:mod:`geomargin.rank.non_learned`) scores from the features
alone. A learned method is refitted on every training instance with the
hyperparameters that most of its outer cross-validation folds chose
(:func:`geomargin.models.selection.consensus_params`), and scores by
:func:`geomargin.rank.scoring.ranking_decision`. The final ranking of today's orphans
and the time-split validation of an older release's orphans use this one
function, so both rank exactly alike.

Example
-------
>>> from geomargin.rank.refit import ranking_decision_for  # doctest: +SKIP
>>> decision, params = ranking_decision_for("hgb", "cv/hgb.pkl", data, featurizer, seed=0)  # doctest: +SKIP
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence

import numpy as np
from threadpoolctl import threadpool_limits

from geomargin.common.io import load_pickle
from geomargin.common.parallel import fork_map
from geomargin.models.registry import get_method
from geomargin.models.selection import consensus_params, fit_estimator
from geomargin.rank.non_learned import BASELINES, baseline_scores
from geomargin.rank.scoring import ranking_decision

__all__ = ["ranking_decision_for", "ranking_decisions_for", "refit_model"]


def ranking_decision_for(model_name: str, cv_path, data: Mapping[str, np.ndarray], featurizer, *,
                         seed: int, margin_rule: str = "scaled",
                         log: logging.Logger | None = None) -> tuple[Callable[[np.ndarray], np.ndarray], dict]:
    """``(decision_function, params)`` of ``model_name`` for ranking.

    Parameters
    ----------
    model_name : str
        A baseline of :data:`geomargin.rank.non_learned.BASELINES` or a method of
        :mod:`geomargin.models.registry` (no gene correction suffix).
    cv_path : path-like or None
        The method's pickled cross-validation result (its ``best_params``
        per fold); unused for a baseline.
    data : mapping
        The training instances: ``X``, ``y``, ``groups``, ``instance_group``.
    featurizer : PairFeaturizer
        Needed by the baselines.
    seed : int
        ``random_state`` of the refitted model.
    margin_rule : {"scaled", "unscaled"}
    log : Logger, optional

    Returns
    -------
    decision_function : callable
        Candidate feature matrix -> one score per row.
    params : dict
        The refitted model's hyperparameters (empty for a baseline).
    """
    if model_name in BASELINES:
        return (lambda X: baseline_scores(model_name, featurizer, X)), {}
    model, params = refit_model(model_name, cv_path, data, seed=seed, log=log)
    return ranking_decision(model, margin_rule), params


def refit_model(model_name: str, cv_path, data: Mapping[str, np.ndarray], *, seed: int,
                log: logging.Logger | None = None) -> tuple[object, dict]:
    """``(model, params)``: the learned method ``model_name`` refitted on
    every instance of ``data`` with the hyperparameters most of its outer
    folds chose (see :func:`ranking_decision_for`)."""
    cv = load_pickle(cv_path)
    params = consensus_params(cv.best_params)
    if log is not None:
        log.info("refitting %s on all %d instances with %s (the choice of most outer folds)",
                 model_name, len(data["y"]), params)
    start = time.perf_counter()
    model = get_method(model_name).make(groups=data["groups"], random_state=seed).set_params(**params)
    fit_estimator(model, data["X"], data["y"], query=data["instance_group"])
    if log is not None:
        log.info("fit %s in %.1f s", model_name, time.perf_counter() - start)
    return model, params


def ranking_decisions_for(model_names: Sequence[str], cv_paths: Mapping[str, object],
                          data: Mapping[str, np.ndarray], featurizer, *, seed: int,
                          margin_rule: str = "scaled", n_jobs: int = 1,
                          log: logging.Logger | None = None) -> dict[str, Callable[[np.ndarray], np.ndarray]]:
    """{name: decision function} of several rankings' models, as
    :func:`ranking_decision_for` gives each; the learned ones are refitted
    by ``n_jobs`` forked processes (:func:`geomargin.common.parallel.fork_map`), each
    with one BLAS/OpenMP thread, the fitted models coming back by pickle.
    Every fit is the same as in one process: each sees the same data,
    parameters and seed, and nothing is shared between fits."""
    learned = [m for m in dict.fromkeys(model_names) if m not in BASELINES]
    # read the arrays here: an NpzFile (np.load of an .npz) reads lazily from one open file,
    # whose offset forked workers would share
    data = {k: np.asarray(data[k]) for k in ("X", "y", "groups", "instance_group")}

    def fit(name):
        with threadpool_limits(1):
            return refit_model(name, cv_paths.get(name), data, seed=seed, log=log)[0]
    models = dict(zip(learned, fork_map(fit, learned, n_jobs=n_jobs, chunks_per_job=1)))
    return {m: ranking_decision_for(m, None, data, featurizer, seed=seed)[0] if m in BASELINES
            else ranking_decision(models[m], margin_rule) for m in dict.fromkeys(model_names)}
