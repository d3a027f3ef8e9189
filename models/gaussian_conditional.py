"""The conditional moments of the missing part of each instance under a
Gaussian mixture (:class:`Conditional`), as
:meth:`geomargin.models.gaussian_em.GaussianMixtureEM.conditional` returns them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Conditional"]


@dataclass
class Conditional:
    """Per-instance conditional moments of the missing part.

    Attributes
    ----------
    resp : (n, K) responsibilities ``p(k | x_o)``.
    means : (n, K, d) completed vectors: observed values kept, missing ones
        replaced by the conditional mean under component ``k``.
    pattern : (n,) index into ``missing`` / ``diag`` / ``factor``.
    missing : list of int arrays, the missing coordinates of each pattern.
    diag : list of (K, m) arrays; factor : list of (K, m, q) arrays.
        ``S_pk = diag(diag[p][k]) + factor[p][k] @ factor[p][k].T``
        is the conditional covariance of the missing coordinates of pattern
        ``p`` under component ``k`` (zero on the observed coordinates).
    """

    resp: np.ndarray
    means: np.ndarray
    pattern: np.ndarray
    missing: list
    diag: list
    factor: list

    def quad(self, w: np.ndarray) -> np.ndarray:
        """(n, K) array of ``w^T S_ik w``."""
        n, K = self.resp.shape
        per_pattern = np.zeros((len(self.missing), K))
        for p, m in enumerate(self.missing):
            if m.size == 0:
                continue
            wm = w[m]
            per_pattern[p] = self.diag[p] @ (wm ** 2)
            if self.factor[p].shape[2]:
                per_pattern[p] += np.sum(np.einsum("kmq,m->kq", self.factor[p], wm) ** 2, axis=1)
        return per_pattern[self.pattern]

    def cov_times(self, w: np.ndarray, c: np.ndarray) -> np.ndarray:
        """``sum_ik c_ik S_ik w`` as a (d,) vector (gradient helper)."""
        d = self.means.shape[2]
        K = self.resp.shape[1]
        out = np.zeros(d)
        cp = np.zeros((len(self.missing), K))
        np.add.at(cp, self.pattern, c)
        for p, m in enumerate(self.missing):
            if m.size == 0 or not np.any(cp[p]):
                continue
            wm = w[m]
            v = (cp[p][:, None] * self.diag[p]).sum(0) * wm
            F = self.factor[p]
            if F.shape[2]:
                proj = np.einsum("kmq,m->kq", F, wm) * cp[p][:, None]
                v = v + np.einsum("kmq,kq->m", F, proj)
            out[m] += v
        return out

    def collapsed(self, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Moment-matched single Gaussian for instance ``i``.

        Returns ``(mean (d,), missing idx (m,), diag (m,), factor (m, q))``
        with ``Cov(x_m | x_o) = diag(diag) + factor @ factor.T`` exactly
        (mixture of within-component covariances plus between-component
        spread of the conditional means).
        """
        p = self.pattern[i]
        m = self.missing[p]
        r = self.resp[i]
        mean = r @ self.means[i]
        diag = r @ self.diag[p] if m.size else np.zeros(0)
        parts = [np.sqrt(r[k]) * self.factor[p][k] for k in range(r.size) if self.factor[p].shape[2]]
        if r.size > 1 and m.size:
            dev = (self.means[i][:, m] - mean[m]) * np.sqrt(r)[:, None]
            parts.append(dev.T)
        factor = np.hstack(parts) if parts else np.zeros((m.size, 0))
        return mean, m, diag, factor
