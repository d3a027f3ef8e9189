"""The decision function a ranking scores candidates with.

A non-learned baseline (:mod:`rank.baselines`) scores from the features
alone. A learned method is refitted on every training instance with the
hyperparameters that most of its outer cross-validation folds chose
(:func:`models.selection.consensus_params`), and scores by
:func:`rank.scoring.ranking_decision`. The final ranking of today's orphans
and the time-split validation of an older release's orphans use this one
function, so both rank exactly alike.

Example
-------
>>> from rank.refit import ranking_decision_for  # doctest: +SKIP
>>> decision, params = ranking_decision_for("hgb", "cv/hgb.pkl", data, featurizer, seed=0)  # doctest: +SKIP
"""

from __future__ import annotations

import logging
import pickle
import time
from collections.abc import Callable, Mapping

import numpy as np

from models.registry import get_method
from models.selection import consensus_params, fit_estimator
from rank.baselines import BASELINES, baseline_scores
from rank.scoring import ranking_decision

__all__ = ["ranking_decision_for"]


def ranking_decision_for(model_name: str, cv_path, data: Mapping[str, np.ndarray], featurizer, *,
                         seed: int, margin_rule: str = "scaled",
                         log: logging.Logger | None = None) -> tuple[Callable[[np.ndarray], np.ndarray], dict]:
    """``(decision_function, params)`` of ``model_name`` for ranking.

    Parameters
    ----------
    model_name : str
        A baseline of :data:`rank.baselines.BASELINES` or a method of
        :mod:`models.registry` (no gene correction suffix).
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
    with open(cv_path, "rb") as fh:
        cv = pickle.load(fh)
    params = consensus_params(cv.best_params)
    if log is not None:
        log.info("refitting %s on all %d instances with %s (the choice of most outer folds)",
                 model_name, len(data["y"]), params)
    start = time.perf_counter()
    model = get_method(model_name).make(groups=data["groups"], random_state=seed).set_params(**params)
    fit_estimator(model, data["X"], data["y"], query=data["instance_group"])
    if log is not None:
        log.info("fit in %.1f s", time.perf_counter() - start)
    return ranking_decision(model, margin_rule), params
