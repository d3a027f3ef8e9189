"""Model selection as in the paper, without ever choosing on test data.

:func:`nested_cross_validate` runs an outer stratified K-fold (grouped
when instance groups are given); inside each training fold
:func:`select_params` holds out ``val_fraction`` of it (groups kept whole),
fits every grid point on the rest, and picks the point with the best
validation accuracy (ties: higher validation ROC AUC, then the earlier
grid point in :class:`~sklearn.model_selection.ParameterGrid` order). The
chosen point is refitted on the whole training fold and scored on the test
fold, which is used for nothing else.

Speed: an estimator may define
``grid_decision_function(param_list, X_train, y_train, X_val) -> list of
arrays`` returning the validation decision values of every grid point (it
must equal fitting each point separately); :class:`geomargin.models.baselines.ImputedSVC`
uses it to fit each imputer once and to derive every kernel from one Gram
matrix. Other estimators are fitted once per grid point. A grid of a single
point is used without an inner validation fit.

Determinism: every split and every estimator seed derives from ``seed``.
"""

from __future__ import annotations

import inspect

import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.metrics import accuracy_score, roc_auc_score
from sklearn.model_selection import (
    ParameterGrid,
    StratifiedGroupKFold,
    StratifiedKFold,
    StratifiedShuffleSplit,
)

from geomargin.common.checks import check_param, check_positive_int
from geomargin.models.registry import MethodSpec, get_method

__all__ = ["CVResult", "FoldResult", "nested_cross_validate", "evaluate_fold", "fit_estimator",
           "fold_seed", "select_params", "expand_grid", "consensus_params"]

_NAME = "nested_cross_validate"


@dataclass
class CVResult:
    """Outcome of :func:`nested_cross_validate`.

    Attributes
    ----------
    folds : pandas.DataFrame
        One row per outer fold: ``fold`` (0-based), ``accuracy``,
        ``roc_auc``, ``fit_seconds`` (the final refit on the training fold),
        ``n_train``, ``n_test``, ``best_params`` (JSON string) and
        ``select_seconds`` (the inner grid search).
    oof_score : ndarray of shape (n_samples,)
        Out-of-fold decision values (positive = ``classes[1]``); every
        instance is in exactly one test fold, so none is NaN.
    test_index : list of ndarray
        Test indices per fold.
    models : list
        The fitted estimator of each fold.
    best_params : list of dict
        The chosen grid point per fold.
    classes : ndarray of shape (2,)
        Sorted class labels; ``oof_score > 0`` predicts ``classes[1]``.
    """

    folds: pd.DataFrame
    oof_score: np.ndarray
    test_index: list[np.ndarray]
    models: list[Any]
    best_params: list[dict]
    classes: np.ndarray = field(default_factory=lambda: np.array([]))


def _spec(method) -> MethodSpec:
    if isinstance(method, MethodSpec):
        return method
    return get_method(method)


def expand_grid(param_grid: dict | Sequence[dict]) -> list[dict]:
    """All grid points, in ParameterGrid order (scalars are accepted as values).

    Examples
    --------
    >>> expand_grid([{"kernel": "linear", "C": [1, 10]}, {"kernel": ["rbf"], "C": [1]}])
    [{'C': 1, 'kernel': 'linear'}, {'C': 10, 'kernel': 'linear'}, {'C': 1, 'kernel': 'rbf'}]
    """
    if isinstance(param_grid, dict):
        param_grid = [param_grid]
    wrapped = []
    for d in param_grid:
        if not isinstance(d, dict):
            raise TypeError("param_grid must be a dict or a list of dicts mapping parameter "
                            f"names to lists of values. Got an element {d!r}.")
        wrapped.append({k: (list(v) if isinstance(v, (list, tuple, np.ndarray)) else [v])
                        for k, v in d.items()})
    points = list(ParameterGrid(wrapped))
    if not points:
        raise ValueError("param_grid has no point; give at least one (an empty dict {} "
                         "means the method's defaults).")
    return points


def _seed(seed: int, *path: int) -> int:
    return int(np.random.SeedSequence([int(seed), *path]).generate_state(1)[0] % (2**31 - 1))


def _check_common(X, y, instance_groups, val_fraction, seed):
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0]:
        raise ValueError(f"X must be 2-D and y 1-D with one label per row. "
                         f"Got X of shape {X.shape} and y of shape {y.shape} instead.")
    classes = np.unique(y)
    if classes.size != 2:
        raise ValueError(f"Model selection here is for binary labels: y must have exactly "
                         f"two classes. Got {classes.tolist()[:10]} instead.")
    if instance_groups is not None:
        instance_groups = np.asarray(instance_groups)
        if instance_groups.shape != (X.shape[0],):
            raise ValueError(f"The 'instance_groups' parameter of {_NAME} must have one label "
                             f"per instance (length {X.shape[0]}). Got shape "
                             f"{instance_groups.shape} instead.")
    check_param(_NAME, "val_fraction", val_fraction,
                lambda v: isinstance(v, (float, int)) and 0 < v < 1, "a float in (0, 1)")
    check_param(_NAME, "seed", seed, lambda v: isinstance(v, (int, np.integer)) and v >= 0,
                "an int >= 0")
    return X, y, classes, instance_groups


def _inner_split(y, instance_groups, val_fraction, seed):
    """Hold out ~val_fraction of the instances (whole groups), stratified."""
    if instance_groups is None:
        sss = StratifiedShuffleSplit(n_splits=1, test_size=val_fraction, random_state=seed)
        return next(sss.split(np.zeros(len(y)), y))
    n = max(2, int(round(1.0 / val_fraction)))
    sgkf = StratifiedGroupKFold(n_splits=n, shuffle=True, random_state=seed)
    return next(sgkf.split(np.zeros(len(y)), y, instance_groups))


def _check_query(query, X):
    if query is None:
        return None
    query = np.asarray(query)
    if query.shape != (np.shape(X)[0],):
        raise ValueError(f"The 'query' parameter of {_NAME} must have one label per row of X, shape "
                         f"({np.shape(X)[0]},). Got shape {query.shape} instead.")
    return query


def _query(query, instance_groups):
    """The queries of a ranking objective: ``query``, else the instance groups."""
    return instance_groups if query is None else np.asarray(query)


def fit_estimator(est, X, y, query=None):
    """``est.fit(X, y)``; estimators with a ranking objective (a ``query``
    argument in ``fit``, :class:`geomargin.models.rank_svm.GeometricMarginRankSVC`)
    also get ``query``: the instance groups, so that pairs are formed within
    a group (None: one group).

    Examples
    --------
    >>> from geomargin.models.rank_svm import GeometricMarginRankSVC
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 0.0], [0.0, 2.0]])
    >>> r = fit_estimator(GeometricMarginRankSVC(), X, [1, 0, 1, 0], query=[0, 0, 1, 1])
    >>> r.n_pairs_
    2
    """
    if "query" in inspect.signature(est.fit).parameters:
        return est.fit(X, y, query=query)
    return est.fit(X, y)


def _scores(y_true_pos: np.ndarray, dv: np.ndarray) -> tuple[float, float]:
    acc = float(np.mean((dv > 0) == y_true_pos))
    auc = float(roc_auc_score(y_true_pos, dv)) if 0 < y_true_pos.sum() < len(y_true_pos) \
        else float("nan")
    return acc, auc


def _decision(est, X) -> np.ndarray:
    if hasattr(est, "decision_function"):
        return np.asarray(est.decision_function(X), dtype=np.float64).ravel()
    return np.asarray(est.predict_proba(X)[:, 1] - 0.5, dtype=np.float64)


def grid_validation_table(method, X, y, *, feature_groups=None, instance_groups=None, query=None,
                     val_fraction: float = 0.2, param_grid=None, seed: int = 0) -> pd.DataFrame:
    """Validation accuracy and ROC AUC of every grid point (one inner split).

    Same arguments as :func:`select_params`; returns one row per grid
    point with columns ``params`` (dict), ``val_accuracy``, ``val_roc_auc``,
    in grid order.
    """
    spec = _spec(method)
    X, y, classes, instance_groups = _check_common(X, y, instance_groups, val_fraction, seed)
    points = expand_grid(spec.param_grid if param_grid is None else param_grid)
    tr, va = _inner_split(y, instance_groups, val_fraction, seed)
    est = spec.make(groups=feature_groups, random_state=_seed(seed, 1))
    if hasattr(est, "grid_decision_function"):
        dvs = est.grid_decision_function(points, X[tr], y[tr], X[va])
    else:
        q = _query(query, instance_groups)
        q = None if q is None else q[tr]
        dvs = [_decision(fit_estimator(clone(est).set_params(**p), X[tr], y[tr], q), X[va])
               for p in points]
    pos = y[va] == classes[1]
    rows = []
    for p, dv in zip(points, dvs):
        acc, auc = _scores(pos, np.asarray(dv, dtype=np.float64))
        rows.append({"params": p, "val_accuracy": acc, "val_roc_auc": auc})
    return pd.DataFrame(rows)


def select_params(method, X, y, *, feature_groups=None, instance_groups=None, query=None,
                  val_fraction: float = 0.2, param_grid=None, seed: int = 0) -> dict:
    """Choose a grid point on an inner validation split of ``(X, y)``.

    Parameters
    ----------
    method : str or MethodSpec
        Registry name (see :mod:`geomargin.models.registry`) or a spec.
    X : array-like of shape (n_samples, n_features)
        NaN = absent feature.
    y : array-like of shape (n_samples,)
        Binary labels.
    feature_groups : array-like of int, optional
        Feature blocks, passed to ``spec.make(groups=...)``.
    instance_groups : array-like, optional
        Instances sharing a label are kept on the same side of the split
        (then ``StratifiedGroupKFold`` with ``round(1 / val_fraction)``
        folds gives the validation part; otherwise
        ``StratifiedShuffleSplit``).
    query : array-like, optional
        The query of each instance for an estimator with a ranking objective
        (pairs are formed within a query, :func:`fit_estimator`); default
        ``instance_groups``.
    val_fraction : float, default=0.2
    param_grid : dict or list of dict, optional
        ParameterGrid-style grid; default ``spec.param_grid``.
    seed : int, default=0
        Seeds the split and the estimator.

    Returns
    -------
    dict
        The chosen point: best validation accuracy, then best validation
        ROC AUC, then earliest in grid order. With one grid point, that
        point (nothing is fitted).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(100, 4); y = (X[:, 0] > 0).astype(int); X[::4, 1] = np.nan
    >>> select_params("zero", X, y, param_grid={"C": [0.001, 1.0]}, seed=0)
    {'C': 1.0}
    """
    spec = _spec(method)
    points = expand_grid(spec.param_grid if param_grid is None else param_grid)
    if len(points) == 1:
        _check_common(X, y, instance_groups, val_fraction, seed)
        return dict(points[0])
    table = grid_validation_table(spec, X, y, feature_groups=feature_groups,
                             instance_groups=instance_groups, query=query, val_fraction=val_fraction,
                             param_grid=points, seed=seed)
    auc = table["val_roc_auc"].fillna(-np.inf).to_numpy()
    acc = table["val_accuracy"].to_numpy()
    # lexicographic: accuracy, AUC, earliest index (np.lexsort: last key primary)
    order = np.lexsort((np.arange(len(points)), -np.round(auc, 12), -np.round(acc, 12)))
    return dict(table["params"].iloc[order[0]])


def _to_json(params: dict) -> str:
    def conv(v):
        if isinstance(v, np.generic):
            return v.item()
        if isinstance(v, np.ndarray):
            return v.tolist()
        return str(v)
    return json.dumps(params, sort_keys=True, default=conv)


@dataclass
class FoldResult:
    """One outer fold, as :func:`evaluate_fold` returns it.

    Attributes
    ----------
    row : dict
        ``accuracy``, ``roc_auc`` (NaN when the test fold has one class),
        ``fit_seconds`` (the refit), ``n_train``, ``n_test``,
        ``best_params`` (JSON string), ``select_seconds`` (the inner search).
    decision : ndarray of shape (n_test,)
        Test decision values (positive = ``classes[1]``; ``predict_proba - 0.5``
        for an estimator without ``decision_function``).
    prediction : ndarray of shape (n_test,)
        ``estimator.predict`` on the test fold.
    estimator : the estimator refitted on the training fold.
    best_params : dict
    """

    row: dict
    decision: np.ndarray
    prediction: np.ndarray
    estimator: Any
    best_params: dict

    def summary(self) -> str:
        r = self.row
        return (f"best {r['best_params']} accuracy {r['accuracy']:.3f} roc_auc {r['roc_auc']:.3f} "
                f"(select {r['select_seconds']:.1f}s, refit {r['fit_seconds']:.1f}s)")


def fold_seed(seed: int, fold: int) -> int:
    """The seed of outer fold ``fold`` (0-based): its inner split and its
    estimator's ``random_state``; independent streams per fold."""
    return _seed(seed, fold)


def evaluate_fold(method, X_train, y_train, X_test, y_test, *, classes=None,
                  feature_groups=None, instance_groups=None, query=None, val_fraction: float = 0.2,
                  param_grid=None, seed: int = 0, fold: int = 0) -> FoldResult:
    """The body of one outer fold of :func:`nested_cross_validate`: choose the
    parameters on an inner split of the training fold (:func:`select_params`),
    refit on the whole training fold, score the test fold.

    Every split and the estimator take :func:`fold_seed` ``(seed, fold)``.
    ``instance_groups`` and ``query`` (default ``instance_groups``) are
    those of the training rows. ``classes`` (sorted,
    two) defaults to the classes of ``y_train``. Used by
    :func:`nested_cross_validate` and by the workflow scripts whose outer
    folds are made elsewhere (the car crops, featurized per fold).

    Returns
    -------
    FoldResult
    """
    spec = _spec(method)
    y_train, y_test = np.asarray(y_train), np.asarray(y_test)
    classes = np.unique(y_train) if classes is None else np.asarray(classes)
    points = expand_grid(spec.param_grid if param_grid is None else param_grid)
    s = fold_seed(seed, fold)
    t0 = time.perf_counter()
    best = select_params(spec, X_train, y_train, feature_groups=feature_groups,
                         instance_groups=instance_groups, query=query, val_fraction=val_fraction,
                         param_grid=points, seed=s)
    t_sel = time.perf_counter() - t0
    est = spec.make(groups=feature_groups, random_state=s).set_params(**best)
    t0 = time.perf_counter()
    fit_estimator(est, X_train, y_train, _query(query, instance_groups))
    t_fit = time.perf_counter() - t0
    dv = _decision(est, X_test)
    pred = est.predict(X_test)
    acc = float(accuracy_score(y_test, pred))
    _, auc = _scores(y_test == classes[1], dv)
    row = {"accuracy": acc, "roc_auc": auc, "fit_seconds": t_fit, "n_train": int(len(y_train)),
           "n_test": int(len(y_test)), "best_params": _to_json(best), "select_seconds": t_sel}
    return FoldResult(row=row, decision=dv, prediction=pred, estimator=est, best_params=best)


def nested_cross_validate(method, X, y, *, feature_groups=None, instance_groups=None, query=None,
                          n_splits: int = 5, val_fraction: float = 0.2, param_grid=None,
                          seed: int = 0, progress: Callable[[str], None] | None = None
                          ) -> CVResult:
    """Outer K-fold evaluation with inner-validation parameter choice.

    Parameters
    ----------
    method : str or MethodSpec
        Registry name or spec.
    X : array-like of shape (n_samples, n_features)
        NaN = absent feature.
    y : array-like of shape (n_samples,)
        Binary labels.
    feature_groups : array-like of int, optional
        Feature blocks for the estimator (``spec.make(groups=...)``).
    instance_groups : array-like, optional
        Instances with the same label never go to different folds
        (``StratifiedGroupKFold``; else ``StratifiedKFold``), outer and inner.
    query : array-like, optional
        The query of each instance for an estimator with a ranking objective
        (:func:`fit_estimator`); default ``instance_groups``.
    n_splits : int, default=5
    val_fraction : float, default=0.2
        Share of each training fold held out to choose parameters.
    param_grid : dict or list of dict, optional
        Overrides the method's default grid.
    seed : int, default=0
        Seeds the outer shuffle, every inner split and every estimator.
    progress : callable(str), optional
        Receives one line per fold, e.g. ``"fold 1/5 zero: ..."``.

    Returns
    -------
    CVResult

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(200, 5); y = (X[:, 0] + 0.3 * rng.randn(200) > 0).astype(int)
    >>> X[rng.rand(200, 5) < 0.3] = np.nan
    >>> res = nested_cross_validate("mean", X, y, param_grid={"C": [0.1, 1.0]}, seed=0)
    >>> list(res.folds.columns)[:7]
    ['fold', 'accuracy', 'roc_auc', 'fit_seconds', 'n_train', 'n_test', 'best_params']
    >>> bool(res.folds["accuracy"].mean() > 0.7), bool(np.isnan(res.oof_score).any())
    (True, False)
    """
    spec = _spec(method)
    X, y, classes, instance_groups = _check_common(X, y, instance_groups, val_fraction, seed)
    query = _check_query(query, X)
    check_positive_int(_NAME, "n_splits", n_splits, minimum=2)
    points = expand_grid(spec.param_grid if param_grid is None else param_grid)
    if instance_groups is None:
        splitter = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=seed)
        splits = list(splitter.split(X, y))
    else:
        n_groups = len(np.unique(instance_groups))
        if n_splits > n_groups:
            raise ValueError(f"The 'n_splits' parameter of {_NAME} must be an int <= the number of "
                             f"instance groups ({n_groups}). Got {n_splits!r} instead.")
        splitter = StratifiedGroupKFold(n_splits=n_splits, shuffle=True, random_state=seed)
        splits = list(splitter.split(X, y, instance_groups))
    oof = np.full(X.shape[0], np.nan)
    rows, models, bests, tests = [], [], [], []
    for k, (tr, te) in enumerate(splits):
        fold = evaluate_fold(spec, X[tr], y[tr], X[te], y[te], classes=classes,
                             feature_groups=feature_groups,
                             instance_groups=None if instance_groups is None
                             else instance_groups[tr],
                             query=None if query is None else query[tr],
                             val_fraction=val_fraction, param_grid=points, seed=seed, fold=k)
        oof[te] = fold.decision
        rows.append({"fold": k, **fold.row})
        models.append(fold.estimator)
        bests.append(fold.best_params)
        tests.append(te)
        if progress is not None:
            progress(f"fold {k + 1}/{len(splits)} {spec.name}: {fold.summary()}")
    return CVResult(folds=pd.DataFrame(rows), oof_score=oof, test_index=tests,
                    models=models, best_params=bests, classes=classes)


def consensus_params(best_params: Sequence[dict]) -> dict:
    """The hyperparameters chosen by the most outer folds (ties: the earliest
    fold's choice), used to refit a final model on all known data.

    Examples
    --------
    >>> consensus_params([{"C": 1.0}, {"C": 10.0}, {"C": 10.0}])
    {'C': 10.0}
    >>> consensus_params([{"C": 1.0}, {"C": 10.0}])
    {'C': 1.0}
    """
    if not best_params:
        raise ValueError("consensus_params needs the parameters chosen in at least one fold")
    keys = [tuple(sorted((k, repr(v)) for k, v in p.items())) for p in best_params]
    counts = {k: keys.count(k) for k in keys}
    best = max(counts.values())
    first = next(i for i, k in enumerate(keys) if counts[k] == best)
    return dict(best_params[first])
