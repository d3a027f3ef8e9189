"""A block-additive kernel that keeps structurally absent blocks absent, with
an explicit (approximate) feature map.

The kernel of two instances sums a per-block kernel over the feature blocks
valid in *both*::

    K(x, z) = sum_{b valid in x and z} k_b(x_b, z_b),
    k_b(u, v) = exp(-gamma_b ||u - v||^2)

Each term is a positive semi-definite kernel multiplied by the PSD kernel
``[b valid in x][b valid in z]``, so ``K`` is PSD by construction (unlike the
RBF of distances over the features valid in both, which is not). Its
feature space is the direct sum of the blocks' feature spaces, and an
instance lives in the sum of the spaces of its valid blocks: the restriction
``w^(i)`` of the geometric margin (Chechik et al., JMLR 2008) is ``w`` on the
instance's valid blocks, so ``||w^(i)||`` stays well defined.

:class:`BlockKernelMap` gives ``K`` an explicit map ``phi(x)`` (the blocks'
maps side by side; NaN for an absent block), so that a *linear*
geometric-margin SVM on ``phi(x)`` solves the kernel problem at linear cost
in fitting and scoring. Per block the map is scikit-learn's
:class:`~sklearn.kernel_approximation.Nystroem` (default) or random Fourier
features (:class:`~sklearn.kernel_approximation.RBFSampler`);
:func:`block_additive_kernel` computes the exact ``K`` for comparison.

Within a valid block, isolated absent values (e.g. one expression condition
not measured) are filled with the block's training column means, in the map
and in the exact kernel alike.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.kernel_approximation import Nystroem, RBFSampler
from sklearn.utils.extmath import row_norms
from sklearn.utils.validation import check_is_fitted

from geomargin.common.checks import (int_at_least, one_of, positive_float, positive_float_or,
                           validate_params)
from geomargin.models._validation import (AbsentFeatureClassifierMixin, validate_feature_groups,
                                validate_X_fit, validate_X_predict)
from geomargin.models._pattern_norms import _scales
from geomargin.models.reduce import block_fill, block_present, blockwise_transform, iter_blocks

__all__ = ["BlockKernelMap", "BlockKernelGeometricSVC", "block_additive_kernel", "median_gamma"]


def median_gamma(B: np.ndarray, max_rows: int = 1000, seed: int = 0) -> float:
    """``1 / median squared distance`` between rows of ``B`` (the median
    heuristic), on at most ``max_rows`` rows drawn with ``seed``; 1.0 when
    every distance is 0 or there are fewer than two rows.

    Examples
    --------
    >>> median_gamma(np.array([[0.0], [1.0], [3.0]]))   # distances^2: 1, 9, 4
    0.25
    """
    B = np.asarray(B, dtype=np.float64)
    if B.shape[0] > max_rows:
        B = B[np.random.default_rng(seed).choice(B.shape[0], max_rows, replace=False)]
    if B.shape[0] < 2:
        return 1.0
    sq = (B * B).sum(axis=1)
    D = sq[:, None] + sq[None, :] - 2.0 * (B @ B.T)
    d = D[np.triu_indices(B.shape[0], k=1)]
    med = float(np.median(np.maximum(d, 0.0)))
    return 1.0 / med if med > 0 else 1.0


class BlockKernelMap(TransformerMixin, BaseEstimator):
    """Explicit feature map of the block-additive RBF kernel; absent blocks stay absent.

    Parameters
    ----------
    groups : array-like of int, shape (n_features,), default=None
        Feature blocks present or absent together (None: one block per
        feature). A block is valid in a row when any of its features is.
    n_components : int, default=100
        Map dimensions per block (at most the block's training rows for
        Nyström).
    gamma : "median" or float, default="median"
        RBF width of every block: ``"median"`` takes the median heuristic per
        block (:func:`median_gamma` on the training rows where it is valid);
        a float is used for every block.
    gamma_scale : float, default=1.0
        Multiplies every block's gamma (a knob for a parameter grid).
    method : {"nystroem", "rff"}, default="nystroem"
        Nyström on ``n_components`` training rows of the block, or random
        Fourier features.
    random_state : int, default=0
        Seeds the landmark / frequency draw of every block.

    Attributes
    ----------
    blocks_ : list of ndarray
        Input columns of each block, in increasing group id.
    maps_ : list of fitted Nystroem / RBFSampler or None
        None for a block never valid in training (no output columns).
    fill_ : list of ndarray
        Training column means filling isolated absent values.
    gammas_ : ndarray
        Gamma of each block.
    groups_out_ : ndarray of int
        Block id of each output column (pass it as ``groups`` to the
        classifier on the mapped features).

    Examples
    --------
    >>> X = np.array([[0.0, 1.0, 2.0], [1.0, np.nan, np.nan], [2.0, 0.5, 1.0], [0.5, 2.0, 0.0]])
    >>> m = BlockKernelMap(groups=[0, 1, 1], n_components=4, gamma=0.5).fit(X)
    >>> Z = m.transform(X)
    >>> Z.shape, m.groups_out_.tolist()         # block 1 is valid in 3 training rows
    ((4, 7), [0, 0, 0, 0, 1, 1, 1])
    >>> bool(np.isnan(Z[1, 4:]).all())              # block 1 absent in row 1
    True
    >>> K = block_additive_kernel(X, X, groups=[0, 1, 1], gammas=m.gammas_, fill=m.fill_)
    >>> bool(np.allclose(np.nan_to_num(Z) @ np.nan_to_num(Z).T, K))   # landmarks = all rows: exact
    True
    """

    _parameter_constraints: dict = {
        "n_components": int_at_least(1), "method": one_of("nystroem", "rff"),
        "gamma": positive_float_or("median"), "gamma_scale": positive_float(),
        "random_state": int_at_least(0),
    }
    # a column absent in every training row is left out (models._validation)
    _drops_absent_columns = True

    def __init__(self, groups=None, *, n_components: int = 100, gamma="median",
                 gamma_scale: float = 1.0, method: str = "nystroem", random_state: int = 0):
        self.groups = groups
        self.n_components = n_components
        self.gamma = gamma
        self.gamma_scale = gamma_scale
        self.method = method
        self.random_state = random_state

    def fit(self, X, y=None) -> "BlockKernelMap":
        """Fit one map per block on the training rows where the block is valid."""
        validate_params(self)
        k = int(self.n_components)
        X = validate_X_fit(self, X)
        groups = validate_feature_groups(self, self.groups, X.shape[1])
        self.blocks_, self.maps_, self.fill_, gammas, out = [], [], [], [], []
        for gid, cols, B, valid in iter_blocks(X, groups):
            P = B[valid]
            fill = block_fill(P)
            P = np.where(np.isnan(P), fill, P)
            seed = int(np.random.SeedSequence([int(self.random_state), gid])
                       .generate_state(1)[0] % (2**31 - 1))
            gamma = median_gamma(P, seed=seed) if self.gamma == "median" else float(self.gamma)
            gamma *= float(self.gamma_scale)
            self.blocks_.append(cols)
            self.fill_.append(fill)
            gammas.append(gamma)
            if len(P) == 0:
                self.maps_.append(None)
                continue
            if self.method == "nystroem":
                mp = Nystroem(kernel="rbf", gamma=gamma, n_components=min(k, len(P)),
                              random_state=seed).fit(P)
                width = mp.components_.shape[0]
            else:
                mp = RBFSampler(gamma=gamma, n_components=k, random_state=seed).fit(P)
                width = k
            self.maps_.append(mp)
            out += [gid] * width
        self.gammas_ = np.asarray(gammas)
        self.groups_out_ = np.asarray(out, dtype=np.intp)
        return self

    def transform(self, X) -> np.ndarray:
        """The blocks' maps side by side; NaN for the blocks absent in a row."""
        check_is_fitted(self, "maps_")
        X = validate_X_predict(self, X)
        widths = [0 if mp is None else mp.components_.shape[0] if isinstance(mp, Nystroem)
                  else mp.n_components for mp in self.maps_]
        return blockwise_transform(X, self.blocks_, self.maps_, self.fill_, widths, apply=_map_block)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags


def _rbf_to_landmarks(mp: Nystroem, B: np.ndarray) -> np.ndarray:
    """``rbf_kernel(B, mp.components_, gamma=mp.gamma)`` for finite float64
    ``B``, bit for bit, by scikit-learn's operations without its per-call
    input checks (``euclidean_distances(squared=True)``, then the
    exponential)."""
    C = mp.components_
    K = -2 * (B @ C.T)
    K += row_norms(B, squared=True)[:, np.newaxis]
    K += row_norms(C, squared=True)[np.newaxis, :]
    np.maximum(K, 0.0, out=K)
    K *= -mp.gamma
    np.exp(K, out=K)
    return K


def _nystroem_rbf(mp: Nystroem, B: np.ndarray) -> np.ndarray:
    """``mp.transform(B)`` for a fitted RBF Nyström map and finite float64
    ``B``, bit for bit, without scikit-learn's per-call input checks (the
    same operations in the same order: :func:`_rbf_to_landmarks`, then the
    normalisation; the tests compare the two)."""
    return _rbf_to_landmarks(mp, B) @ mp.normalization_.T


def _lean_nystroem(mp) -> bool:
    """Whether ``mp`` is an RBF Nyström map with its own gamma and no
    ``kernel_params`` (the maps :func:`_rbf_to_landmarks` reproduces)."""
    return (isinstance(mp, Nystroem) and mp.kernel == "rbf" and mp.gamma is not None
            and mp.kernel_params is None)


def _map_block(mp, B: np.ndarray) -> np.ndarray:
    """One block's map of its valid rows (:func:`_nystroem_rbf` for an RBF
    Nyström map with its own gamma on a float64 block, the map's own
    ``transform`` otherwise)."""
    if _lean_nystroem(mp) and B.dtype == np.float64:
        return _nystroem_rbf(mp, B)
    return mp.transform(B)


def block_additive_kernel(X, Z, groups, gammas, fill=None) -> np.ndarray:
    """The exact block-additive RBF kernel between the rows of ``X`` and ``Z``.

    ``K[i, j] = sum_b [b valid in X_i and Z_j] exp(-gammas[b] ||X_ib - Z_jb||^2)``
    over the blocks of ``groups`` (in increasing group id), isolated absent
    values of a valid block filled with ``fill[b]`` (default 0).

    Examples
    --------
    >>> X = np.array([[0.0, 1.0], [np.nan, 2.0]])
    >>> block_additive_kernel(X, X, groups=[0, 1], gammas=[1.0, 1.0]).round(4).tolist()
    [[2.0, 0.3679], [0.3679, 1.0]]
    """
    X = np.asarray(X, dtype=np.float64)
    Z = np.asarray(Z, dtype=np.float64)
    groups = np.asarray(groups)
    ids = np.unique(groups)
    if len(gammas) != len(ids):
        raise ValueError(f"block_additive_kernel: {len(ids)} blocks but {len(gammas)} gammas")
    K = np.zeros((X.shape[0], Z.shape[0]))
    for b, g in enumerate(ids):
        cols = np.flatnonzero(groups == g)
        f = np.zeros(len(cols)) if fill is None else np.asarray(fill[b], dtype=np.float64)
        A, C = X[:, cols], Z[:, cols]
        va, vc = block_present(A), block_present(C)
        A, C = np.where(np.isnan(A), f, A), np.where(np.isnan(C), f, C)
        d = (A * A).sum(1)[:, None] + (C * C).sum(1)[None, :] - 2.0 * A @ C.T
        K += np.exp(-float(gammas[b]) * np.maximum(d, 0.0)) * (va[:, None] & vc[None, :])
    return K


class BlockKernelGeometricSVC(AbsentFeatureClassifierMixin, BaseEstimator):
    """Geometric-margin SVM with the block-additive RBF kernel.

    :class:`BlockKernelMap` maps every valid block, then a linear
    :class:`~geomargin.models.geometric.GeometricMarginSVC` with the map's blocks as
    ``groups`` runs the paper's iteration on the mapped rows: the margin of
    an instance is measured with ``||w^(i)||``, ``w`` restricted to the
    mapped blocks valid in it. Fitting and scoring cost is linear in the
    number of rows (no n x n kernel).

    Parameters
    ----------
    groups : array-like of int, shape (n_features,), default=None
        Feature blocks (see :class:`BlockKernelMap`).
    C : float, default=1.0
    n_iter : int, default=3
        QP solves of the geometric-margin iteration.
    n_components, gamma, gamma_scale, method
        Of the map (:class:`BlockKernelMap`).
    tol : float, default=1e-3
        libsvm tolerance.
    random_state : int, default=0
        Seeds the map.

    Attributes
    ----------
    map_ : BlockKernelMap
    svc_ : GeometricMarginSVC
    classes_ : ndarray of shape (2,)
    intercept_ : ndarray of shape (1,)

    Examples
    --------
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(80, 4); y = (X[:, 0] ** 2 + X[:, 2] > 1).astype(int)
    >>> X[:40, 2:] = np.nan                     # block 1 absent in half the rows
    >>> clf = BlockKernelGeometricSVC(groups=[0, 0, 1, 1], C=10.0, n_components=40).fit(X, y)
    >>> bool(clf.score(X, y) > 0.8)
    True
    """

    _parameter_constraints: dict = {
        **BlockKernelMap._parameter_constraints,
        "C": positive_float(), "n_iter": int_at_least(1), "tol": positive_float(),
    }

    def __init__(self, groups=None, *, C: float = 1.0, n_iter: int = 3,
                 n_components: int = 100, gamma="median", gamma_scale: float = 1.0,
                 method: str = "nystroem", tol: float = 1e-3, random_state: int = 0):
        self.groups = groups
        self.C = C
        self.n_iter = n_iter
        self.n_components = n_components
        self.gamma = gamma
        self.gamma_scale = gamma_scale
        self.method = method
        self.tol = tol
        self.random_state = random_state

    def fit(self, X, y) -> "BlockKernelGeometricSVC":
        """Fit the map on ``X``, then the geometric-margin iteration on the mapped rows."""
        from geomargin.models.geometric import GeometricMarginSVC  # lazy: avoids an import cycle

        validate_params(self)
        self.map_ = BlockKernelMap(self.groups, n_components=self.n_components, gamma=self.gamma,
                                   gamma_scale=self.gamma_scale, method=self.method,
                                   random_state=self.random_state).fit(X)
        Z = self.map_.transform(X)
        self.svc_ = GeometricMarginSVC(C=self.C, kernel="linear", n_iter=self.n_iter,
                                       groups=self.map_.groups_out_, tol=self.tol).fit(Z, y)
        self.classes_ = self.svc_.classes_
        self.intercept_ = self.svc_.intercept_
        self.n_features_in_ = self.map_.n_features_in_
        self._folded()  # with the fit, so that prediction leaves the estimator as it is
        return self

    def decision_function(self, X) -> np.ndarray:
        """Geometric margins ``<w, phi(x)> / s(x) + b`` of the mapped rows."""
        return self.decision_and_scales(X)[0]

    def scales(self, X) -> np.ndarray:
        """``s(x) = ||w^(x)|| / ||w||`` of the mapped rows."""
        return self.decision_and_scales(X)[1]

    def decision_and_scales(self, X) -> tuple[np.ndarray, np.ndarray]:
        """``(decision_function(X), scales(X))`` in one pass.

        With RBF Nyström maps (the default) the map is folded into the
        weights: ``<w_b, phi_b(x)> = k_b(x) . (N_b^T w_b)``, ``k_b(x)`` the
        kernel values of block ``b`` to its landmarks and ``N_b`` its
        normalisation, and ``||w^(x)||^2`` sums ``||w_b||^2`` over the valid
        blocks. The mapped rows are never built; the scores equal
        ``svc_.decision_and_scales(map_.transform(X))`` up to rounding (the
        sums are associated differently). Other maps are applied.
        """
        check_is_fitted(self, "svc_")
        folded = self._folded()
        if folded is None:
            return self.svc_.decision_and_scales(self.map_.transform(X))
        X = validate_X_predict(self.map_, X)
        raw = np.zeros(X.shape[0])
        valid = np.zeros((X.shape[0], len(folded)), dtype=bool)
        for j, (cols, mp, fill, v, _) in enumerate(folded):
            B = X[:, cols]
            valid[:, j] = block_present(B)
            if valid[:, j].any():
                Bv = B[valid[:, j]]
                raw[valid[:, j]] += _rbf_to_landmarks(mp, np.where(np.isnan(Bv), fill, Bv)) @ v
        wb2 = np.array([w2 for *_, w2 in folded])
        s, _ = _scales(self.svc_._norms, valid, self.svc_._wn2, num=valid.astype(np.float64) @ wb2)
        b = float(self.intercept_[0])
        f = raw / s + b
        f[~valid.any(axis=1)] = b
        return f, s

    def _folded(self) -> list | None:
        """Per block with a map, ``(cols, map, fill, N^T w_b, ||w_b||^2)``;
        None unless every map is an RBF Nyström map and the linear model
        kept every mapped column. Computed once per fit."""
        cache = getattr(self, "_folded_cache", None)
        if cache is not None and cache[0] is self.svc_:
            return cache[1]
        svc, folded = self.svc_, []
        present = getattr(svc, "present_features_", None)
        ok = svc.kernel == "linear" and (present is None or present.all())
        start = 0
        for cols, mp, fill in zip(self.map_.blocks_, self.map_.maps_, self.map_.fill_):
            if mp is None:
                continue
            if not (ok and _lean_nystroem(mp)):
                ok = False
                break
            width = mp.components_.shape[0]
            w = svc.coef_[0, start:start + width]
            folded.append((cols, mp, fill, mp.normalization_.T @ w, float(w @ w)))
            start += width
        result = folded if ok and start == svc.coef_.shape[1] else None
        self._folded_cache = (svc, result)
        return result
