"""PrimalLinearSVM: the soft-margin linear SVM's primal QP by a primal-dual
interior point on (d + 1)-sized normal equations, and the estimators that
use it by default (representation "auto" -> "primal")."""

import cvxpy as cp
import numpy as np
import pytest
from sklearn.svm import SVC

from geomargin.models._linear_qp import SUPPORT_THRESHOLD, PrimalLinearSVM
from geomargin.models.baselines import ImputedSVC
from geomargin.models.average_norm import AverageNormSVC
from geomargin.models.geometric import GeometricMarginSVC
from toy_data import noisy_linear


def block_missing(n, d, block, seed, frac=0.5):
    """Gaussian rows, labels from the first two blocks, whole blocks absent at random."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, :2 * block].sum(1) > 0).astype(int)
    groups = np.arange(d) // block
    X[(rng.random((n, d // block)) < frac)[:, groups]] = np.nan
    return X, y, groups


def _objective(Z, ys, C, w, b):
    return 0.5 * w @ w + C * np.maximum(0.0, 1.0 - ys * (Z @ w + b)).sum()


@pytest.mark.parametrize("C", [0.01, 1.0, 100.0])
def test_solves_the_svm_qp_as_an_independent_cvxpy_model(C):
    X, _, y = noisy_linear(150, 5, seed=3, noise=0.6)
    ys = np.where(y == 1, 1.0, -1.0)
    qp = PrimalLinearSVM(C=C).fit(X, ys)
    # independent reference: the hinge-loss form, no slack variables
    w, b = cp.Variable(5), cp.Variable()
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + C * cp.sum(cp.pos(1 - cp.multiply(ys, X @ w + b)))))
    prob.solve(solver="ECOS")
    assert _objective(X, ys, C, qp.coef_[0], qp.intercept_[0]) == pytest.approx(prob.value, rel=1e-6)
    np.testing.assert_allclose(qp.coef_[0], w.value, atol=1e-4 * np.abs(w.value).max())
    # the multipliers: w = sum_i y_i alpha_i z_i over the support, sum_i y_i alpha_i = 0, 0 <= alpha <= C
    sv, dual = qp.support_, qp.dual_coef_[0]
    np.testing.assert_allclose(X[sv].T @ dual, qp.coef_[0], atol=1e-6 * np.abs(qp.coef_).max())
    assert abs(dual.sum()) <= 1e-6 * C * len(sv)
    assert np.all(np.abs(dual) <= C * (1 + 1e-9)) and np.all(np.abs(dual) > SUPPORT_THRESHOLD * np.abs(dual).max())
    # the support: libsvm's (solved tightly), plus at most rows lying on the margin (a degenerate
    # optimum: their multiplier may be 0 or not)
    svc = SVC(kernel="linear", C=C, tol=1e-10).fit(X, ys)
    f = qp.decision_function(X)
    assert set(svc.support_) <= set(qp.support_)
    extra = np.setdiff1d(qp.support_, svc.support_)
    assert np.all(np.abs(ys[extra] * f[extra] - 1.0) <= 1e-4), ys[extra] * f[extra]
    assert np.abs(f - svc.decision_function(X)).max() <= 1e-3 * np.abs(f).max()


@pytest.mark.parametrize("rescaled", [False, True])
def test_as_close_to_a_tightly_solved_optimum_as_clarabel(rescaled):
    """The decision values lie within 1e-6 (relative) of an independent cvxpy
    model solved by Clarabel to 1e-12, as do those of Clarabel at its default
    tolerances (what PrimalLinearSVM used before); ``rescaled``: rows divided
    by scales from 0.01 to 1, as the geometric margin's QPs see them."""
    X, y, _ = block_missing(600, 12, 3, seed=7, frac=0.4)
    Z = np.nan_to_num(X, nan=0.0)
    if rescaled:
        Z = Z / np.random.default_rng(1).uniform(0.01, 1.0, len(Z))[:, None]
    ys = np.where(y == 1, 1.0, -1.0)
    for C in (0.01, 1.0, 100.0):
        w, b = cp.Variable(Z.shape[1]), cp.Variable()
        prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w)
                                      + C * cp.sum(cp.pos(1 - cp.multiply(ys, Z @ w + b)))))
        prob.solve(solver="CLARABEL", tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
        f_ref = Z @ w.value + b.value
        qp = PrimalLinearSVM(C=C).fit(Z, ys)
        assert qp.status_ in ("solved", "almost solved")
        assert np.abs(qp.decision_function(Z) - f_ref).max() <= 1e-6 * np.abs(f_ref).max(), C
        prob.solve(solver="CLARABEL")
        assert np.abs(Z @ w.value + b.value - f_ref).max() <= 1e-6 * np.abs(f_ref).max(), C


def test_a_stalled_interior_point_falls_back_to_clarabel(monkeypatch):
    """Where the interior point cannot reach even the reduced tolerance
    (here: one step allowed), Clarabel solves the QP, to the reference."""
    import geomargin.models._linear_qp as lq

    X, _, y = noisy_linear(150, 5, seed=3, noise=0.6)
    ys = np.where(y == 1, 1.0, -1.0)
    monkeypatch.setattr(lq, "MAX_ITER", 1)
    qp = PrimalLinearSVM(C=1.0).fit(X, ys)
    assert qp.status_ == "solved by Clarabel"
    w, b = cp.Variable(5), cp.Variable()
    cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + cp.sum(cp.pos(1 - cp.multiply(ys, X @ w + b))))).solve(
        solver="ECOS")
    f_ref = X @ w.value + b.value
    assert np.abs(qp.decision_function(X) - f_ref).max() <= 1e-5 * np.abs(f_ref).max()


def test_labels_must_be_plus_minus_one():
    with pytest.raises(ValueError, match="y must hold both labels -1 and \\+1"):
        PrimalLinearSVM().fit(np.eye(3), [0, 1, 1])
    with pytest.raises(ValueError, match="unknown parameter 'kernel'"):
        PrimalLinearSVM().set_params(kernel="rbf")
    with pytest.raises(ValueError, match="NaN or infinite"):
        PrimalLinearSVM().fit(np.array([[0.0], [np.nan]]), [-1, 1])


def test_default_estimators_reach_libsvm_objective():
    """GeometricMarginSVC (one QP), AverageNormSVC and ImputedSVC by default
    solve their linear QP by the primal interior point: its objective is the
    tightly solved libsvm one's, and the decision values agree."""
    X, y, groups = block_missing(200, 12, 3, seed=5, frac=0.5)
    ys = np.where(y == 1, 1.0, -1.0)
    for make in (lambda **k: GeometricMarginSVC(groups=groups, n_iter=1, **k),
                 lambda **k: AverageNormSVC(**k), lambda **k: ImputedSVC(imputer="mean", **k)):
        for C in (0.1, 10.0):
            primal = make(C=C).fit(X, y)
            libsvm = make(C=C, representation="rows", tol=1e-10).fit(X, y)
            assert primal.representation_ == "primal" and libsvm.representation_ == "rows"
            f, f_ref = primal.decision_function(X), libsvm.decision_function(X)
            assert np.abs(f - f_ref).max() <= 1e-4 * np.abs(f_ref).max(), (type(primal).__name__, C)
            hinge = C * np.maximum(0.0, 1.0 - ys * f).sum(), C * np.maximum(0.0, 1.0 - ys * f_ref).sum()
            assert hinge[0] == pytest.approx(hinge[1], rel=1e-4)


def test_auto_gives_libsvm_the_gram_matrix_on_long_rows():
    """Above MAX_PRIMAL_FEATURES features the interior point's steps (up to n d^2)
    cost too much: "auto" gives libsvm the Gram matrix there, up to
    MAX_GRAM_ROWS rows, and the rows beyond."""
    from geomargin.models._kernels import MAX_GRAM_ROWS, MAX_PRIMAL_FEATURES, _resolve_representation

    rng = np.random.default_rng(0)
    d = MAX_PRIMAL_FEATURES + 1
    X = rng.normal(size=(4 * d, d))
    y = (X[:, 0] > 0).astype(int)
    assert ImputedSVC().fit(X, y).representation_ == "gram"
    assert ImputedSVC().fit(X[:, :-1], y).representation_ == "primal"
    assert GeometricMarginSVC(n_iter=1).fit(X, y).representation_ == "gram"
    assert _resolve_representation("auto", "linear", MAX_GRAM_ROWS, d) == "gram"
    assert _resolve_representation("auto", "linear", MAX_GRAM_ROWS + 1, d) == "rows"
