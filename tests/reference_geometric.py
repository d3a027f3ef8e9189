"""Independent reference for the geometric-margin classifiers, written from the
paper's equations only (Chechik et al., JMLR 9, 2008), with no code from
``models/``.

* :func:`reference_geometric` -- the non-separable iteration (Sec. 4): start
  with ``s_i = 1``; solve the primal QP at fixed ``s`` with cvxpy::

      min_{w, b, xi}  1/2 ||w||^2 + C sum_i xi_i
      s.t.            y_i (<w, phi(x_i)> / s_i + b) >= 1 - xi_i,  xi_i >= 0

  then set ``s_i = ||w^(i)|| / ||w||``, where ``w^(i)`` keeps the coordinates
  of ``w`` that are defined for the features valid in ``x_i``. The bias is
  *not* divided by ``s_i`` (the paper's eq. 7; the convention documented in
  :class:`geomargin.models.geometric.GeometricMarginSVC`). The decision value of ``x``
  with valid features ``P`` is ``<w, phi(x)> / s(x) + b``,
  ``s(x) = ||w^(P)|| / ||w||``. Stopping rule as documented for the
  estimator: at most ``n_iter`` QPs, earlier once no ``s_i`` moves by more
  than ``s_tol``.
* ``phi`` is explicit: the identity (zero-filled) for the linear kernel, and
  for ``(gamma <x, z> + c)^2`` the degree-2 map
  ``[c, sqrt(2 gamma c) x_k, gamma x_k x_l (all ordered pairs k, l)]``; a
  coordinate is defined for ``x`` when every feature it involves is valid
  (the constant always, for a row with a valid feature). A row with no valid
  feature has ``phi = 0`` and ``s = 1`` (documented convention).
* :func:`make_data` -- the data on which the tests and
  ``benchmarks/geometric_vs_reference.py`` compare the estimator with the
  reference.
* :func:`reference_separable_margin` -- the separable problem (eq. 4),
  ``max_{||w|| = 1, b} min_i y_i (w.x_i + b) / ||w^(i)||``, by brute force for
  ``d = 2``: a dense grid of directions, for each the best ``b`` exactly (the
  crossings of the class-wise margin lines), then a bounded scalar
  refinement of the angle.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
from scipy.optimize import minimize_scalar


def scale_gamma(X: np.ndarray) -> float:
    """``gamma="scale"``: 1 / (mean number of valid features per row * variance
    of the valid values)."""
    M = ~np.isnan(X)
    return float(1.0 / (M.sum(axis=1).mean() * X[M].var()))


def feature_map(X: np.ndarray, kernel: str, gamma: float = 1.0, coef0: float = 1.0):
    """Explicit ``(Phi, D)``: feature vectors (0 where undefined) and the 0/1
    matrix of coordinates defined for each row."""
    M = ~np.isnan(X)
    X0 = np.where(M, X, 0.0)
    n, d = X.shape
    empty = ~M.any(axis=1)
    if kernel == "linear":
        Phi, D = X0.copy(), M.astype(float)
    elif kernel == "poly2":
        const = np.full((n, 1), coef0)
        lin = np.sqrt(2.0 * gamma * coef0) * X0
        quad = gamma * (X0[:, :, None] * X0[:, None, :]).reshape(n, d * d)
        Phi = np.hstack([const, lin, quad])
        Dq = (M[:, :, None] & M[:, None, :]).reshape(n, d * d)
        D = np.hstack([np.ones((n, 1), dtype=bool), M, Dq]).astype(float)
    else:
        raise ValueError(f"kernel must be 'linear' or 'poly2', got {kernel!r}")
    Phi[empty] = 0.0
    D[empty] = 0.0
    return Phi, D


def solve_fixed_s(Phi: np.ndarray, ys: np.ndarray, s: np.ndarray, C: float):
    """The primal QP at fixed ``s`` (cvxpy, Clarabel, tight tolerances)."""
    n, p = Phi.shape
    w, b, xi = cp.Variable(p), cp.Variable(), cp.Variable(n)
    A = Phi / s[:, None]
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + C * cp.sum(xi)),
                      [cp.multiply(ys, A @ w + b) >= 1 - xi, xi >= 0])
    prob.solve(solver="CLARABEL", tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
    if prob.status != cp.OPTIMAL:
        raise RuntimeError(f"reference QP: status {prob.status}")
    return np.asarray(w.value, dtype=float), float(b.value)


def subspace_scales(w: np.ndarray, D: np.ndarray) -> np.ndarray:
    """``||w^(i)|| / ||w||`` (1 for rows with no defined coordinate)."""
    s = np.sqrt(D @ (w * w)) / np.linalg.norm(w)
    s[D.sum(axis=1) == 0] = 1.0
    return s


def reference_geometric(X_train, y_train, X_test, *, kernel="linear", C=1.0, n_iter=3,
                        s_tol=1e-3, gamma=None, coef0=1.0):
    """Decision values on ``X_test`` of the paper's iteration (see module doc).

    ``y_train`` in {0, 1} (1 = positive). ``gamma=None`` = ``"scale"``.
    Returns ``(f_test, scales_history)``.
    """
    X_train, X_test = np.asarray(X_train, float), np.asarray(X_test, float)
    ys = np.where(np.asarray(y_train) == 1, 1.0, -1.0)
    g = scale_gamma(X_train) if gamma is None else gamma
    Phi, D = feature_map(X_train, kernel, g, coef0)
    Phit, Dt = feature_map(X_test, kernel, g, coef0)
    s = np.ones(len(ys))
    history = [s]
    for _ in range(n_iter):
        w, b = solve_fixed_s(Phi, ys, s, C)
        s_new = subspace_scales(w, D)
        history.append(s_new)
        done = np.max(np.abs(s_new - s)) <= s_tol
        s = s_new
        if done:
            break
    f = Phit @ w / subspace_scales(w, Dt) + b
    return f, history


def _best_b(u, ys, nrm):
    """max_b min_i ys_i (u_i + b) / nrm_i, exactly: the minimum of the
    increasing (positive) and decreasing (negative) lines is concave and
    peaks where a positive line meets a negative one, so every such crossing
    is a candidate."""
    pos, neg = ys > 0, ys < 0
    up, npos, un, nneg = u[pos], nrm[pos], u[neg], nrm[neg]
    # (u_i + b) / n_i = -(u_j + b) / n_j  ->  b = -(u_i n_j + u_j n_i) / (n_i + n_j)
    cand = -(up[:, None] * nneg[None, :] + un[None, :] * npos[:, None]) / (
        npos[:, None] + nneg[None, :])
    cand = cand.ravel()
    vals = np.minimum(((up[None, :] + cand[:, None]) / npos[None, :]).min(axis=1),
                      ((-un[None, :] - cand[:, None]) / nneg[None, :]).min(axis=1))
    k = int(np.argmax(vals))
    return float(vals[k]), float(cand[k])


def reference_separable_margin(X, y, n_grid=3600):
    """Brute-force ``max_{||w||=1, b} min_i y_i (w.x_i + b) / ||w^(i)||`` for
    two features (every row must have a valid feature). Returns
    ``(margin, w, b)``."""
    X = np.asarray(X, float)
    if X.shape[1] != 2:
        raise ValueError("the brute-force reference handles 2 features")
    M = ~np.isnan(X)
    X0 = np.where(M, X, 0.0)
    ys = np.where(np.asarray(y) == 1, 1.0, -1.0)

    def margin(theta):
        w = np.array([np.cos(theta), np.sin(theta)])
        nrm = np.sqrt(M @ (w * w))
        if np.any(nrm < 1e-12):
            return -np.inf, 0.0
        return _best_b(X0 @ w, ys, nrm)

    thetas = np.linspace(-np.pi, np.pi, n_grid, endpoint=False)
    vals = np.array([margin(t)[0] for t in thetas])
    t0 = thetas[int(np.argmax(vals))]
    step = 2 * np.pi / n_grid
    res = minimize_scalar(lambda t: -margin(t)[0], bounds=(t0 - step, t0 + step),
                          method="bounded", options={"xatol": 1e-12})
    theta = res.x if -res.fun >= vals.max() else t0
    m, b = margin(theta)
    return m, np.array([np.cos(theta), np.sin(theta)]), b


def make_data(kind: str, seed: int, shift: float = 0.0, n: int = 200, d: int = 8):
    """Comparison data: ``(X_train, y_train, X_test, groups)``, the first 120
    of ``n`` rows for training, labels from a noisy linear rule on ``d``
    features. ``kind="block"``: pairs of features absent together (each pair
    with probability 0.4, ``groups`` the pairs); ``"mcar"``: each value absent
    with probability 0.3 (``groups=None``); no row loses every feature.
    ``shift`` is added to every feature (a non-centred problem needs a large
    bias)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    w = rng.normal(size=d)
    y = (X @ w + 0.5 * rng.normal(size=n) > 0).astype(int)
    if kind == "block":
        groups = np.arange(d) // 2
        absent = rng.random((n, int(groups.max()) + 1)) < 0.4
        absent[absent.all(axis=1), 0] = False
        X[absent[:, groups]] = np.nan
    else:
        groups = None
        absent = rng.random((n, d)) < 0.3
        absent[absent.all(axis=1), 0] = False
        X[absent] = np.nan
    X = X + shift
    return X[:120], y[:120], X[120:], groups
