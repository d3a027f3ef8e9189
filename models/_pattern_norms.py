"""Norms of ``w`` restricted to a missingness pattern, for the geometric-margin
SVM (:class:`PatternNorms`), the feature blocks they are computed over, and
the per-instance scale ``s = ||w^(i)|| / ||w||`` read from them
(:func:`_scales`, floored at :data:`S_MIN`).

The geometric margin of instance ``i`` uses ``||w^(i)||``, the norm of ``w``
restricted to the features valid in ``x_i``. For a kernel machine
``w = sum_j beta_j phi(x_j)`` and we follow Chechik et al. (JMLR 9, 2008,
Sec. 4): restricting ``w`` to the features ``P`` valid in ``x_i`` means
restricting every support vector to ``P``, so::

    ||w^(P)||^2 = sum_jk beta_j beta_k K_P(x_j, x_k)

where ``K_P`` is the masked kernel evaluated on ``x_j`` and ``x_k`` with every
feature outside ``P`` treated as absent, i.e. over ``P & valid(j) & valid(k)``.
For the linear kernel this is exactly ``sum_{f in P} w_f^2`` with the explicit
``w = X0_sv.T @ beta``. ``||w||^2`` is the same quantity with ``P`` = all features.

The value only depends on the pattern ``P``, so it is computed once per
distinct pattern. Features are first merged into *blocks*: the coarsest
partition that refines the caller's ``groups`` and in which every block is
wholly present or wholly absent in every queried instance (so ``groups`` is a
hint, never needed for correctness). Patterns are then subsets of blocks and:

* ``poly`` with ``degree`` 1 or 2 uses a closed form: with
  ``Z = X0_sv.T @ diag(beta) @ X0_sv`` (built in column chunks) and block sums
  ``T2[g, h] = sum_{f in g, f' in h} Z_ff'^2``, ``T1[g] = sum_{f in g} w_f^2``,
  ``T0 = (sum beta)^2``, a pattern with block indicator ``m`` has
  ``||w^(P)||^2 = gamma^2 m.T2.m + 2 gamma coef0 m.T1 + coef0^2 T0`` (degree 2)
  -- cost ``O(n_sv d^2 + n G^2)``, independent of the number of patterns.
* other kernels (``poly`` degree >= 3, ``rbf``) sum per-block Gram (or
  squared-distance) matrices over support-vector row chunks for all distinct
  patterns at once: cost ``O(n_sv^2 (d + G n_patterns))``, memory bounded
  by chunking (never ``n x n x n_groups``).
"""

from __future__ import annotations

import numpy as np

from ._kernels import _CHUNK_ELEMENTS
from ._rows import _unique_rows

#: Lower bound on the scale ``s = ||w^(x)|| / ||w||`` of an instance that has
#: valid features: a numerical guard so that ``K_ij / (s_i s_j)`` stays
#: bounded when ``w`` almost vanishes on an instance's features.
S_MIN = 1e-3

__all__ = ["PatternNorms", "feature_blocks"]


def feature_blocks(groups: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Coarsest partition of features refining ``groups`` whose blocks are
    wholly present or wholly absent in every row of ``masks``.

    Returns block codes ``0..G-1`` (one per feature).
    """
    n, d = masks.shape
    packed = np.packbits(masks, axis=0).T  # (d, ceil(n/8)): one key per feature
    keys = np.concatenate([groups.astype(np.int64).view(np.uint8).reshape(d, 8),
                           packed], axis=1)
    keys = np.ascontiguousarray(keys).view(np.dtype((np.void, keys.shape[1]))).ravel()
    _, codes = np.unique(keys, return_inverse=True)
    return codes.reshape(-1).astype(np.intp)


class PatternNorms:
    """``||w^(P)||^2`` for ``w = sum_j beta_j phi(x_j)`` and row patterns ``P``.

    Parameters
    ----------
    X0_sv : ndarray of shape (n_sv, d)
        Zero-filled support vectors.
    M_sv : ndarray of bool, shape (n_sv, d)
        Their validity masks.
    beta : ndarray of shape (n_sv,)
        Expansion coefficients of ``w``.
    kernel, degree, gamma, coef0
        The masked kernel (see :func:`masked_kernel`).
    groups : ndarray of int, shape (d,)
        Feature blocks known to be present/absent together (a hint).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 2.0], [3.0, np.nan]])
    >>> pn = PatternNorms(np.nan_to_num(X), ~np.isnan(X), np.array([1.0, -1.0]),
    ...                   "linear", 2, 1.0, 1.0, np.arange(2))
    >>> pn.norms(np.array([[True, False], [True, True]]))   # w = (-2, 2)
    array([4., 8.])
    """

    def __init__(self, X0_sv, M_sv, beta, kernel, degree, gamma, coef0, groups):
        X0 = np.ascontiguousarray(X0_sv, dtype=np.float64)
        self.beta = np.asarray(beta, dtype=np.float64)
        self.kernel, self.degree = kernel, int(degree)
        self.gamma, self.coef0 = float(gamma), float(coef0)
        self.groups = np.asarray(groups, dtype=np.intp)
        self.d = X0.shape[1]
        if kernel == "linear" or (kernel == "poly" and self.degree <= 2):
            self.w = X0.T @ self.beta  # explicit linear part, cheap
        # a linear kernel's norms need w alone: its support vectors are not
        # kept (a fitted model would otherwise hold a second copy of them)
        self.X0 = None if kernel == "linear" else X0
        self.M = None if kernel == "linear" else np.asarray(M_sv, dtype=bool)
        self._cache = None  # (blocks, T2, T1) for the closed-form poly path
        self._cache3 = None  # (blocks, T1, T2, T3, S) from prepare(): poly degree 3

    # -- public -----------------------------------------------------------
    def full_norm(self) -> float:
        """``||w||^2`` (all features)."""
        return float(self.norms(np.ones((1, self.d), dtype=bool))[0])

    def norms_and_full(self, Mq: np.ndarray) -> tuple[np.ndarray, float]:
        """``(norms(Mq), ||w||^2)`` in one pass (the all-features pattern is
        compatible with any block partition)."""
        Mq = np.asarray(Mq, dtype=bool)
        out = self.norms(np.vstack([Mq, np.ones((1, self.d), dtype=bool)]))
        return out[:-1], float(out[-1])

    def norms(self, Mq: np.ndarray) -> np.ndarray:
        """Squared norms of ``w`` restricted to each row pattern of ``Mq``."""
        Mq = np.asarray(Mq, dtype=bool)
        if self.kernel == "linear":
            return Mq.astype(np.float64) @ (self.w * self.w)
        if self.kernel == "poly" and self.degree <= 2:
            return self._poly_closed_form(Mq)
        if getattr(self, "_cache3", None) is not None and _compatible(self._cache3[0], Mq):
            return self._poly3_prepared(Mq)
        return self._generic(Mq)

    # -- poly degree <= 2 ---------------------------------------------------
    def _poly_closed_form(self, Mq):
        # blocks must be unions of the cached blocks? recompute when not.
        if self._cache is not None and _compatible(self._cache[0], Mq):
            blocks, T2, T1 = self._cache
        else:
            blocks = feature_blocks(self.groups, Mq)
            T2, T1 = self._block_stats(blocks)
            self._cache = (blocks, T2, T1)
        G = T1.shape[0]
        P = _block_patterns(blocks, G, Mq)  # (n_q, G) float 0/1
        g, c = self.gamma, self.coef0
        S = self.beta.sum()
        lin = P @ T1
        if self.degree == 1:
            out = g * lin + c * S * S
        else:
            quad = np.einsum("ij,ij->i", P @ T2, P)
            out = g * g * quad + 2.0 * g * c * lin + c * c * S * S
        return out

    def _block_stats(self, blocks):
        G = int(blocks.max()) + 1 if blocks.size else 0
        order = np.argsort(blocks, kind="stable")
        sb = blocks[order]
        starts = np.flatnonzero(np.r_[True, sb[1:] != sb[:-1]])
        T1 = np.add.reduceat((self.w * self.w)[order], starts) if G else np.zeros(0)
        T2 = np.zeros((G, G))
        if self.degree >= 2 and G:
            # Z = X0.T diag(beta) X0 is symmetric: compute the block-upper
            # triangle in column chunks aligned to block starts, then mirror.
            X0 = self.X0[:, order]
            Xb = X0 * self.beta[:, None]
            d = X0.shape[1]
            # about 8 column chunks: the upper triangle is 36 of the 64 chunk pairs
            step = max(1, min(_CHUNK_ELEMENTS // max(d, 1), -(-d // 8)))
            cuts = [0]
            for st in starts[1:]:
                if st - cuts[-1] >= step:
                    cuts.append(int(st))
            cuts.append(d)
            for k in range(len(cuts) - 1):
                a, b = cuts[k], cuts[k + 1]
                g0 = int(np.searchsorted(starts, a))          # first block of the chunk
                g1 = int(np.searchsorted(starts, b))          # one past its last block
                Zc = Xb[:, a:].T @ X0[:, a:b]                  # rows a..d, columns a..b
                Zc *= Zc
                rows = np.add.reduceat(Zc, starts[g0:] - a, axis=0)   # (G - g0, b - a)
                T2[g0:, g0:g1] = np.add.reduceat(rows, starts[g0:g1] - a, axis=1)
            iu = np.triu_indices(G, 1)
            T2[iu] = T2.T[iu]
        return T2, T1

    # -- poly degree 3, many patterns: moment tensors ----------------------------
    #: largest number of blocks for which :meth:`prepare` stores the G^3 tensor
    MAX_PREPARED_BLOCKS = 256

    def prepare(self) -> "PatternNorms":
        """Make :meth:`norms` of many patterns cheap (polynomial kernel of degree 3).

        With ``A^g_ij`` the inner product of support vectors i and j over
        block g (a group of ``groups``), a pattern P's kernel value is
        ``(gamma a_ij + c)^3`` with ``a_ij = sum_{g in P} A^g_ij``, so
        ``||w^(P)||^2 = gamma^3 T3[P, P, P] + 3 gamma^2 c T2[P, P] +
        3 gamma c^2 T1[P] + c^3 (sum beta)^2`` with the moment tensors
        ``T1_g = sum_ij beta_i beta_j A^g_ij``, ``T2_gh = sum_ij ... A^g_ij
        A^h_ij`` and ``T3_ghk = sum_ij ... A^g_ij A^h_ij A^k_ij``. Computing
        them costs about n_sv^2 G^3 / 6 multiply-adds once; afterwards a
        pattern costs G^3 instead of n_sv^2 G (the generic path): worth it for
        more than about G^2 / 4 distinct patterns, e.g. the sliding windows of
        many scenes. The result is the generic path's up to rounding. Queries
        whose masks do not respect the groups, other kernels, and more than
        :attr:`MAX_PREPARED_BLOCKS` groups keep the other paths.
        """
        if self.kernel != "poly" or self.degree != 3 or getattr(self, "_cache3", None) is not None:
            return self
        blocks = np.unique(self.groups, return_inverse=True)[1].reshape(-1).astype(np.intp)
        G = int(blocks.max()) + 1 if blocks.size else 0
        if G == 0 or G > self.MAX_PREPARED_BLOCKS or self.X0.shape[0] == 0:
            return self
        order = np.argsort(blocks, kind="stable")
        sb = blocks[order]
        starts = np.r_[np.flatnonzero(np.r_[True, sb[1:] != sb[:-1]]), sb.size]
        X = self.X0[:, order]
        n = X.shape[0]
        T1, T2, T3 = np.zeros(G), np.zeros((G, G)), np.zeros((G, G, G))
        rows = max(1, min(n, _CHUNK_ELEMENTS // (8 * n * G)))
        for r0 in range(0, n, rows):                   # pairs i <= j, i in [r0, r1)
            r1 = min(n, r0 + rows)
            ii, jj = np.nonzero(np.arange(r0, r1)[:, None] <= np.arange(n)[None, :])
            w = self.beta[ii + r0] * self.beta[jj] * np.where(ii + r0 == jj, 1.0, 2.0)
            B = np.empty((w.size, G))
            for g in range(G):
                a, b = starts[g], starts[g + 1]
                B[:, g] = (X[r0:r1, a:b] @ X[:, a:b].T)[ii, jj]
            T1 += w @ B
            T2 += (B * w[:, None]).T @ B
            for g in range(G):                         # h, k >= g; the rest by symmetry below
                T3[g, g:, g:] += (B[:, g:] * (w * B[:, g])[:, None]).T @ B[:, g:]
        s = np.sort(np.indices((G, G, G), dtype=np.int32).reshape(3, -1), axis=0)
        T3 = T3[s[0], s[1], s[2]].reshape(G, G, G)
        S = float(self.beta.sum() ** 2)
        self._cache3 = (blocks, T1, T2, T3, S)
        return self

    def _poly3_prepared(self, Mq: np.ndarray) -> np.ndarray:
        blocks, T1, T2, T3, S = self._cache3
        G = T1.shape[0]
        U, inv = _unique_rows(_block_patterns(blocks, G, Mq) > 0)
        U = U.astype(np.float64)
        g, c = self.gamma, self.coef0
        out = np.empty(U.shape[0])
        T3f = T3.reshape(G, G * G)
        step = max(1, _CHUNK_ELEMENTS // (G * G))
        for a in range(0, U.shape[0], step):
            p = U[a:a + step]
            cub = np.einsum("pgh,pg,ph->p", (p @ T3f).reshape(len(p), G, G), p, p)
            quad = np.einsum("pg,pg->p", p @ T2, p)
            out[a:a + step] = g ** 3 * cub + 3 * g * g * c * quad + 3 * g * c * c * (p @ T1) + c ** 3 * S
        return out[inv]

    # -- generic: per distinct pattern ---------------------------------------
    def _generic(self, Mq):
        blocks = feature_blocks(self.groups, Mq)
        G = int(blocks.max()) + 1 if blocks.size else 0
        P = _block_patterns(blocks, G, Mq) > 0
        uniq, inv = _unique_rows(P)
        n_pat = uniq.shape[0]
        out = np.zeros(n_pat)
        n_sv = self.X0.shape[0]
        if n_pat == 0:
            return np.zeros(Mq.shape[0])
        if n_sv == 0 or G == 0:
            # every support vector restricted to nothing: K_P = k(empty)
            k0 = self.coef0 ** self.degree if self.kernel == "poly" else 1.0
            return np.full(Mq.shape[0], k0 * self.beta.sum() ** 2)
        order = np.argsort(blocks, kind="stable")
        sb = blocks[order]
        starts = np.r_[np.flatnonzero(np.r_[True, sb[1:] != sb[:-1]]), len(sb)]
        X0 = self.X0[:, order]
        rbf = self.kernel == "rbf"
        if rbf:
            M = self.M[:, order].astype(np.float64)
            X2 = X0 * X0
        U = uniq.astype(np.float64)  # (n_pat, G)
        pat_step = max(1, min(n_pat, _CHUNK_ELEMENTS // (4 * n_sv)))
        r = max(1, min(n_sv, _CHUNK_ELEMENTS // (n_sv * (G + pat_step))))
        for r0 in range(0, n_sv, r):
            r1 = min(n_sv, r0 + r)
            stack = np.empty((G, r1 - r0, n_sv))
            for g in range(G):
                a, b = starts[g], starts[g + 1]
                blk = X0[r0:r1, a:b] @ X0[:, a:b].T
                if rbf:
                    blk *= -2.0
                    blk += X2[r0:r1, a:b] @ M[:, a:b].T
                    blk += M[r0:r1, a:b] @ X2[:, a:b].T
                stack[g] = blk
            stack = stack.reshape(G, -1)
            wts = np.outer(self.beta[r0:r1], self.beta).ravel()
            for p0 in range(0, n_pat, pat_step):
                p1 = min(n_pat, p0 + pat_step)
                S = U[p0:p1] @ stack  # (p, r*n_sv): inner products / sq. distances over P
                if rbf:
                    np.maximum(S, 0.0, out=S)
                    S *= -self.gamma
                    np.exp(S, out=S)
                else:
                    S *= self.gamma
                    S += self.coef0
                    S **= self.degree
                out[p0:p1] += S @ wts
        return out[inv]


def _compatible(blocks: np.ndarray, Mq: np.ndarray) -> bool:
    """True when every block is wholly present or wholly absent in each row."""
    if Mq.shape[0] == 0 or blocks.size == 0:
        return True
    order = np.argsort(blocks, kind="stable")
    sb = blocks[order]
    starts = np.flatnonzero(np.r_[True, sb[1:] != sb[:-1]])
    counts = np.diff(np.r_[starts, sb.size])
    present = np.add.reduceat(Mq[:, order].astype(np.int32), starts, axis=1)
    return bool(np.all((present == 0) | (present == counts)))


def _block_patterns(blocks: np.ndarray, G: int, Mq: np.ndarray) -> np.ndarray:
    """(n_q, G) 0/1 matrix: block present in row (blocks are whole by construction)."""
    first = np.zeros(G, dtype=np.intp)
    first[blocks[::-1]] = np.arange(blocks.size)[::-1]
    return Mq[:, first].astype(np.float64)

def _scales(norms: PatternNorms, M: np.ndarray, wn2: float,
            num: np.ndarray | None = None) -> tuple[np.ndarray, bool]:
    """Per-row ``s = ||w^(i)|| / ||w||`` (1 for empty rows, floored at S_MIN).

    Returns ``(s, ok)``; ``ok`` is False when ``||w|| = 0`` (then ``s = 1``).
    """
    n = M.shape[0]
    if not np.isfinite(wn2) or wn2 <= 0.0:
        return np.ones(n), False
    num = np.maximum(norms.norms(M) if num is None else num, 0.0)
    s = np.sqrt(num / wn2)
    np.maximum(s, S_MIN, out=s)
    s[~M.any(axis=1)] = 1.0
    return s, True
