"""The base of the SVMs of :mod:`geomargin.models.geometric` and
:mod:`geomargin.models.average_norm`: libsvm on a masked kernel (or on the rows), the
kernel with their convention for rows with no valid feature, and the
training and validation kernels a grid shares."""

from __future__ import annotations

from sklearn.base import BaseEstimator
from sklearn.svm import SVC

from geomargin.common.checks import (positive_float_or)

from ._kernels import (SVC_PARAMETER_CONSTRAINTS, _check_representation,
                       _kernel_from_filled, _rows_qp)
from ._validation import (AbsentFeatureClassifierMixin)

#: libsvm kernel cache (MB) of ``cache_size="auto"``: on the rows, and on a precomputed kernel
ROWS_CACHE_MB, PRECOMPUTED_CACHE_MB = 500.0, 64.0


def _cache_mb(cache_size, precomputed: bool) -> float:
    """libsvm's ``cache_size`` for ``cache_size`` (a float, or ``"auto"``)."""
    if cache_size == "auto":
        return PRECOMPUTED_CACHE_MB if precomputed else ROWS_CACHE_MB
    return float(cache_size)


class _MaskedSVCBase(AbsentFeatureClassifierMixin, BaseEstimator):
    """Shared prediction code: a kernel expansion over stored support vectors."""

    _parameter_constraints: dict = {**SVC_PARAMETER_CONSTRAINTS, "cache_size": positive_float_or("auto")}

    def _svc(self, rows: bool = False, shape: tuple[int, int] | None = None):
        """libsvm on a precomputed kernel, or (``rows``) the QP on the rows of
        ``shape`` with the linear kernel (:func:`geomargin.models._kernels._rows_qp`:
        libsvm or the primal interior point, by ``representation``): the
        same QP when the precomputed kernel is ``X0 @ X0.T`` of those rows."""
        if rows:
            return _rows_qp(self.representation, self.kernel, *shape, C=self.C, tol=self.tol,
                            cache_size=_cache_mb(self.cache_size, precomputed=False))
        return SVC(kernel="precomputed", C=float(self.C), tol=float(self.tol),
                   cache_size=_cache_mb(self.cache_size, precomputed=True))

    def _check_representation(self) -> None:
        _check_representation(self)

    def _kernel(self, X0, M, Z0, Mz, G=None):
        """Masked kernel with the estimators' convention for rows with no
        valid feature: ``phi(x) = 0``, i.e. their kernel rows/columns are 0.
        ``G = X0 @ Z0.T`` may be given (it is not modified).

        (The raw masked formula would give ``coef0 ** degree`` for ``poly``
        and 1 for ``rbf``.) Training, the pattern norms and prediction must
        all use this same kernel: mixing the two conventions puts the empty
        support vectors' ``beta_j`` into ``w`` at prediction time only.
        """
        K = _kernel_from_filled(X0, M, Z0, Mz, self.kernel, self.degree,
                                self.gamma_, self.coef0, G=G)
        if self.kernel != "linear":
            ex, ez = ~M.any(axis=1), ~Mz.any(axis=1)
            if ex.any():
                K[ex, :] = 0.0
            if ez.any():
                K[:, ez] = 0.0
        return K


def _train_val_kernels(est, X0, M, X0v, Mv, gram: dict):
    """``(K_train, K_val_train)``: ``est._kernel`` on the linear Gram matrices
    cached in ``gram`` (computed on first use, shared by every kernel)."""
    if "G" not in gram:
        gram["G"] = X0 @ X0.T
        gram["Gv"] = X0v @ X0.T
    return est._kernel(X0, M, X0, M, G=gram["G"]), est._kernel(X0v, Mv, X0, M, G=gram["Gv"])
