"""Kernels over *structurally absent* features (NaN = absent): the masked
kernels, the choice of their representation (Gram, rows or primal) and the
kernel parameters of the SVMs over them.

Masked kernels
--------------
For two instances ``x`` and ``z`` only the features valid (not NaN) in *both*
take part:

* ``linear``  ``<x, z>_valid``  (= the dot product of the zero-filled vectors),
* ``poly``    ``(gamma * <x, z>_valid + coef0) ** degree``,
* ``rbf``     ``exp(-gamma * ||x - z||^2_valid)``, the squared distance taken
  over the features valid in both.

Everything is computed with matrix products on zero-filled data and 0/1
masks (``||x_S||^2`` terms as ``(X0 ** 2) @ Mz.T``); there is no Python loop
over pairs. Note that the masked RBF kernel (and ``poly`` with ``coef0 < 0``)
need not be positive semi-definite; libsvm accepts such kernels.

The per-pattern norms of ``w`` are :mod:`geomargin.models._pattern_norms`.
"""

from __future__ import annotations

import numpy as np
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from geomargin.common.checks import finite_float, int_at_least, one_of, positive_float, positive_float_or

from ._validation import as_float_array, check_choice, check_positive_float

__all__ = ["masked_kernel", "kernel_from_gram", "resolve_gamma",
           "KERNELS", "SVC_PARAMETER_CONSTRAINTS"]


#: Kernels of the SVM-based estimators.
KERNELS = ("linear", "poly", "rbf")

#: ``_parameter_constraints`` of the parameters every SVM on these kernels
#: takes: libsvm's ``C`` and ``tol``, the kernel and its ``degree``, ``gamma``
#: (:func:`resolve_gamma`) and ``coef0``. An estimator adds its own with
#: ``{**SVC_PARAMETER_CONSTRAINTS, ...}``.
SVC_PARAMETER_CONSTRAINTS: dict = {
    "C": positive_float(), "kernel": one_of(*KERNELS), "degree": int_at_least(1),
    "gamma": positive_float_or("scale", "auto"), "coef0": finite_float(),
    "tol": positive_float(),
}


#: Most features for which ``representation="auto"`` picks the primal interior point.
MAX_PRIMAL_FEATURES = 100

#: Most rows for which ``representation="auto"`` builds the n x n Gram matrix
#: of a linear kernel with more than :data:`MAX_PRIMAL_FEATURES` features
#: (8 n^2 bytes: 3.2 GB at this bound, within the 8 GB the cross-validation rule
#: declares); libsvm on the rows above.
MAX_GRAM_ROWS = 20000

#: Values of the SVM estimators' ``representation`` parameter.
QP_REPRESENTATIONS = ("auto", "gram", "rows", "primal")


def _resolve_representation(representation: str, kernel: str, n_samples: int, n_features: int) -> str:
    """What the QP is solved on: ``"gram"`` (libsvm on the precomputed n x n
    kernel), ``"rows"`` (libsvm on the rows, ``SVC(kernel="linear")``) or
    ``"primal"`` (the primal QP on the rows by an interior-point method,
    :class:`geomargin.models._linear_qp.PrimalLinearSVM`). All three are the same QP;
    the rows need ``kernel="linear"``. ``"auto"``, for the linear kernel
    with ``4 * n_features <= n_samples``: ``"primal"`` up to
    :data:`MAX_PRIMAL_FEATURES` features; above, ``"gram"`` up to
    :data:`MAX_GRAM_ROWS` rows and ``"rows"`` beyond; otherwise ``"gram"``.
    The interior point's steps cost up to ``n d^2`` on dense rows whatever
    ``C``; libsvm on the rows computes every kernel value it needs as a
    ``d``-term dot product, again and again as its cache turns over, while
    the Gram matrix costs one BLAS product and ``8 n^2`` bytes (``python
    benchmarks/bench_geometric.py --representations``).

    >>> [_resolve_representation("auto", "linear", n, d)
    ...  for n, d in ((1000, 59), (1000, 200), (30000, 200), (100, 59))]
    ['primal', 'gram', 'rows', 'gram']
    """
    if kernel != "linear" or representation == "gram":
        return "gram"
    if representation in ("rows", "primal"):
        return representation
    if 4 * n_features > n_samples:
        return "gram"
    if n_features <= MAX_PRIMAL_FEATURES:
        return "primal"
    return "gram" if n_samples <= MAX_GRAM_ROWS else "rows"


def _use_rows(representation: str, kernel: str, n_samples: int, n_features: int) -> bool:
    """Whether the QP is solved on the rows (``"rows"`` or ``"primal"``,
    :func:`_resolve_representation`) rather than a precomputed n x n kernel."""
    return _resolve_representation(representation, kernel, n_samples, n_features) != "gram"


def _rows_qp(representation: str, kernel: str, n_samples: int, n_features: int, C: float, tol: float,
             cache_size: float = 200.0):
    """The solver of the QP on the rows: ``PrimalLinearSVM`` for ``"primal"``,
    ``SVC(kernel="linear")`` for ``"rows"`` (:func:`_resolve_representation`)."""
    if _resolve_representation(representation, kernel, n_samples, n_features) == "primal":
        from ._linear_qp import PrimalLinearSVM

        return PrimalLinearSVM(C=float(C), tol=float(tol))
    return SVC(kernel="linear", C=float(C), tol=float(tol), cache_size=float(cache_size))


def _check_representation(est) -> None:
    """``representation="rows"`` or ``"primal"`` needs ``kernel="linear"``."""
    if est.representation in ("rows", "primal") and est.kernel != "linear":
        raise ValueError(f"{type(est).__name__}: representation={est.representation!r} needs kernel='linear'. "
                         f"Got kernel={est.kernel!r}; use representation='gram' or 'auto' for it.")


# Target number of float64 elements in a temporary chunk (~128 MB).
_CHUNK_ELEMENTS = 1 << 24


def _zero_fill(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mask = ~np.isnan(X)
    return np.where(mask, X, 0.0), mask


def masked_kernel(X, Z=None, kernel: str = "linear", degree: int = 2,
                  gamma: float = 1.0, coef0: float = 1.0) -> np.ndarray:
    """Gram matrix with NaN-as-absent semantics.

    Parameters
    ----------
    X : array-like of shape (n, d)
        Rows are instances, NaN marks an absent feature.
    Z : array-like of shape (m, d), default=None
        Second set of instances; ``None`` means ``X``.
    kernel : {"linear", "poly", "rbf"}, default="linear"
    degree : int, default=2
        Degree of the polynomial kernel.
    gamma : float, default=1.0
        Kernel coefficient for ``poly`` and ``rbf`` (ignored for ``linear``).
    coef0 : float, default=1.0
        Independent term of the polynomial kernel.

    Returns
    -------
    K : ndarray of shape (n, m)
        Kernel over the features valid in both instances.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, np.nan], [2.0, 3.0]])
    >>> masked_kernel(X, kernel="linear")
    array([[ 1.,  2.],
           [ 2., 13.]])
    >>> masked_kernel(X, kernel="rbf", gamma=1.0)[0, 1]  # only feature 0 counts
    np.float64(0.36787944117144233)
    """
    check_choice("masked_kernel", "kernel", kernel, KERNELS)
    X = as_float_array(X)
    Z = X if Z is None else as_float_array(Z)
    if Z.shape[1] != X.shape[1]:
        raise ValueError(f"masked_kernel: X has {X.shape[1]} features but Z has {Z.shape[1]}.")
    X0, Mx = _zero_fill(X)
    Z0, Mz = (X0, Mx) if Z is X else _zero_fill(Z)
    return _kernel_from_filled(X0, Mx, Z0, Mz, kernel, degree, gamma, coef0)


def kernel_from_gram(G: np.ndarray, sq_a: np.ndarray | None = None,
                     sq_b: np.ndarray | None = None, *, kernel: str, degree: int = 2,
                     gamma: float = 1.0, coef0: float = 1.0, sq_dist: np.ndarray | None = None,
                     copy: bool = True) -> np.ndarray:
    """Kernel matrix from the linear Gram matrix ``G = A @ B.T``.

    The one place where every kernel of :mod:`geomargin.models` is derived from a Gram
    matrix: poly = ``(gamma * G + coef0) ** degree`` (repeated products,
    not a float power), rbf = ``exp(-gamma * D2)``, as in
    :class:`sklearn.svm.SVC`. For rbf, ``D2`` is ``sq_dist`` when given (the
    masked distances of :func:`masked_kernel`), else
    ``sq_a[:, None] + sq_b[None, :] - 2 G`` from the squared row norms of
    complete rows; it is clipped at 0. ``copy=False`` may overwrite ``G``
    (and ``sq_dist``).

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[1.0, 0.0], [0.0, 2.0]])
    >>> kernel_from_gram(A @ A.T, kernel="poly", degree=2, gamma=1.0, coef0=1.0)
    array([[ 4.,  1.],
           [ 1., 25.]])
    """
    if kernel == "linear":
        return G.copy() if copy else G
    if kernel == "poly":
        B = G * gamma if copy else np.multiply(G, gamma, out=G)
        B += coef0
        if degree == 1:
            return B
        K = B * B
        for _ in range(degree - 2):
            K *= B
        return K
    if sq_dist is None:
        K = G * -2.0
        K += sq_a[:, None]
        K += sq_b[None, :]
    else:
        K = sq_dist.copy() if copy else sq_dist
    np.maximum(K, 0.0, out=K)
    K *= -gamma
    return np.exp(K, out=K)


def _kernel_from_filled(X0, Mx, Z0, Mz, kernel, degree, gamma, coef0,
                        G: np.ndarray | None = None) -> np.ndarray:
    """Masked kernel of zero-filled rows with masks; ``G = X0 @ Z0.T`` may
    be given (it is not modified)."""
    own = G is None
    if own:
        G = X0 @ Z0.T
    D2 = None
    if kernel == "rbf":
        # ||x - z||^2 over valid-in-both = x^2.mz + mx.z^2 - 2 x.z
        Mxf = Mx.astype(np.float64)
        Mzf = Mxf if Mz is Mx else Mz.astype(np.float64)
        D2 = G * -2.0
        D2 += (X0 * X0) @ Mzf.T
        D2 += Mxf @ (Z0 * Z0).T
    return kernel_from_gram(G, kernel=kernel, degree=degree, gamma=gamma, coef0=coef0,
                            sq_dist=D2, copy=not own)


#: rows of ``K[:, cols]`` gathered at once by :func:`columns_dot` (a multiple of 256)
COLUMNS_DOT_ROWS = 1024


def columns_dot(K: np.ndarray, cols: np.ndarray, v: np.ndarray, chunk: int = COLUMNS_DOT_ROWS) -> np.ndarray:
    """``K[:, cols] @ v`` without the ``n x len(cols)`` copy: the rows are
    gathered ``chunk`` at a time (a multiple of 256). With the n x n Gram
    matrix of a large training set and thousands of support vectors, that
    copy would be the fit's largest allocation after the Gram itself.

    The chunks start at multiples of 256 rows and none has fewer than 256,
    so they keep the row blocking of BLAS's matrix-vector kernels: with
    numpy's OpenBLAS every row's dot product has the bits of the whole
    product's on one thread (tests compare the two, with ragged tails).
    The products run on one BLAS thread whatever the caller's limit: with
    more, BLAS splits the rows among threads by their count, and the bits
    would depend on the thread count.

    >>> K = np.arange(12.0).reshape(4, 3)
    >>> columns_dot(K, np.array([0, 2]), np.array([1.0, -1.0]), chunk=256)
    array([-2., -2., -2., -2.])
    """
    if chunk % 256:
        raise ValueError(f"columns_dot: chunk is {chunk}, expected a multiple of 256")
    n = K.shape[0]
    # a last chunk of under 256 rows joins the one before: BLAS treats a
    # product of very few rows differently (other bits)
    starts = list(range(0, max(n - n % chunk if n % chunk < 256 else n, 1), chunk)) + [n]
    out = np.empty(n, dtype=np.result_type(K, v))
    with threadpool_limits(1, user_api="blas"):
        for start, stop in zip(starts[:-1], starts[1:]):
            out[start:stop] = K[start:stop][:, cols] @ v
    return out


def resolve_gamma(estimator, gamma, X: np.ndarray) -> float:
    """``"scale"`` -> ``1 / (mean #valid features per row * var(valid values))``,
    ``"auto"`` -> ``1 / mean #valid features per row``; a float > 0 as is.

    With no absent value ``"scale"`` equals scikit-learn's ``1 / (d * X.var())``.
    """
    if isinstance(gamma, str):
        check_choice(estimator, "gamma", gamma, ("scale", "auto"))
        mask = ~np.isnan(X)
        n_valid = mask.sum(axis=1).mean()
        if n_valid == 0:
            return 1.0
        if gamma == "auto":
            return float(1.0 / n_valid)
        var = float(X[mask].var())
        return float(1.0 / (n_valid * var)) if var != 0 else 1.0
    return check_positive_float(estimator, "gamma", gamma)
