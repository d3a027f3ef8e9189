"""The geometric-margin SVM's validation decisions for many parameter
settings at once (:meth:`GeometricMarginSVC.grid_decision_function
<geomargin.models.geometric.GeometricMarginSVC.grid_decision_function>`, which
model selection calls): settings that differ only in ``n_iter`` share one run
of the iteration, and settings with the same kernel share its Gram matrix."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
from sklearn.base import clone

from geomargin.common.checks import validate_params

from ._kernels import columns_dot, resolve_gamma
from ._masked_svc import _train_val_kernels
from ._pattern_norms import _scales
from ._validation import validate_binary_y, validate_feature_groups, validate_X_fit, validate_X_predict

__all__ = ["grid_decisions"]


def grid_decisions(estimator, param_list, X_train, y_train, X_val) -> list:
    """``estimator.grid_decision_function(param_list, X_train, y_train,
    X_val)`` of a :class:`~geomargin.models.geometric.GeometricMarginSVC`:
    its docstring gives the contract."""
    ests = []
    runs: "OrderedDict[tuple, list[int]]" = OrderedDict()
    proto = clone(estimator)  # validation sets n_features_in_: not on the estimator
    X_train = validate_X_fit(proto, X_train)
    M = ~np.isnan(X_train)
    X0 = np.where(M, X_train, 0.0)
    for i, p in enumerate(param_list):
        est = clone(estimator).set_params(**p)
        validate_params(est)
        est._check_iteration_params()
        est.gamma_ = resolve_gamma(est, est.gamma, X_train)
        ests.append(est)
        g = est.groups
        key = (est.kernel, int(est.degree) if est.kernel == "poly" else None,
               est.gamma_ if est.kernel != "linear" else None,
               float(est.coef0) if est.kernel == "poly" else None,
               float(est.C), float(est.tol), est.cache_size,
               None if g is None else tuple(np.asarray(g).ravel().tolist()), est.solver,
               float(est.s_tol), est.first_tol, est._rows_or_liblinear(X0))
        runs.setdefault(key, []).append(i)
    _, ys = validate_binary_y(proto, y_train, X_train)
    Xv = validate_X_predict(proto, X_val)
    Mv = ~np.isnan(Xv)
    X0v = np.where(Mv, Xv, 0.0)
    empty_v = ~Mv.any(axis=1)
    gram: dict = {}  # linear Gram matrices, shared by linear and poly kernels

    out: list = [None] * len(ests)
    kcache: dict = {}
    for key, idx in runs.items():
        run = ests[idx[0]]
        kkey = key[:4]
        if run._rows_or_liblinear(X0):
            K = Kv = None
        else:
            if kkey not in kcache:
                kcache.clear()  # keep at most one kernel pair in memory
                kcache[kkey] = _train_val_kernels(run, X0, M, X0v, Mv, gram)
            K, Kv = kcache[kkey]
        run.present_features_ = proto.present_features_
        groups = validate_feature_groups(run, run.groups, X_train.shape[1])
        wanted = {}
        for i in idx:
            wanted.setdefault(int(ests[i].n_iter), []).append(i)
        t_max = max(wanted)
        # as in fit, QP 1 is solved to first_tol when it is not final; when
        # a setting wants n_iter=1, QP 1 is final for it (solved to tol)
        # and the longer runs continue from that solution
        first_tol = (run._first_tol(M) if t_max > 1 and 1 not in wanted
                     else float(run.tol))
        f = None
        for t, (s, sv, dual, beta, b, norms, wn2) in enumerate(
                run._iterate(K, X0, M, ys, groups, t_max, first_tol), start=1):
            sv_, _ = _scales(norms, Mv, wn2)
            if beta is None:  # liblinear
                raw_v = X0v @ norms.w
            elif Kv is None:  # libsvm on the rows
                raw_v = X0v @ (X0[sv].T @ beta)
            else:
                raw_v = columns_dot(Kv, sv, beta)
            f = raw_v / sv_ + b
            f[empty_v] = b
            for i in wanted.get(t, ()):
                out[i] = f
        for i in idx:  # converged before n_iter: the last solution
            if out[i] is None:
                out[i] = f
    return out
