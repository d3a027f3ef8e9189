"""Distinct rows of an array, compared by their bytes: the missingness
patterns of a data set, each computed with once."""

from __future__ import annotations

import numpy as np


def _distinct_byte_rows(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(first, inverse)``: the index of the first of each distinct row of
    a 2-D array, rows compared by their bytes (so NaN rows compare exactly),
    in the order of the sorted byte keys, and ``A == A[first][inverse]``.

    >>> first, inv = _distinct_byte_rows(np.array([[1.0, np.nan], [0.0, 2.0], [1.0, np.nan]]))
    >>> first.tolist(), inv.tolist()
    ([1, 0], [1, 0, 1])
    """
    if A.shape[0] == 0:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    A = np.ascontiguousarray(A)
    keys = A.view(np.dtype((np.void, A.itemsize * A.shape[1]))).ravel()
    _, first, inv = np.unique(keys, return_index=True, return_inverse=True)
    return first, inv.reshape(-1)


def _unique_rows(B: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct boolean rows of ``B`` and the inverse index, in the order of
    ``np.unique(B, axis=0)`` (lexicographic: packbits puts the first column in
    the highest bit, and the byte keys sort as unsigned bytes)."""
    first, inv = _distinct_byte_rows(np.packbits(B, axis=1))
    return B[first], inv


def _patterns(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of ``mask`` in lexicographic order and the inverse
    index, as ``np.unique(mask, axis=0, return_inverse=True)`` gives them,
    from one byte key per row (``np.unique`` on rows sorts them as records,
    which cost most of the scoring of a fitted mixture)."""
    if mask.shape[1] == 0:
        uniq, inv = np.unique(mask, axis=0, return_inverse=True)
        return uniq, inv.ravel()
    return _unique_rows(np.ascontiguousarray(mask, dtype=bool))
