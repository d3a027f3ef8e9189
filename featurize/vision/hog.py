"""Dense HOG: the HOG descriptor of every square patch of an image.

:func:`dense_hog` returns, for every patch position, exactly what
``skimage.feature.hog`` returns on that patch cut out of the image (square
cells tiling the patch, 2x2-cell blocks, L2-Hys normalisation). scikit-image
computes HOG on a cell grid only; a landmark detector needs it at every pixel
(a 21x21 patch has 441 positions per cell grid offset), and cutting out and
describing each patch separately repeats the work of every pixel for every
patch that covers it. Here the per-pixel
gradient histograms are summed over cells with integral images, once per
image.

The one subtlety is the patch border: scikit-image's gradient is a central
difference that is set to 0 on the first and last row (row gradient) and
column (column gradient) *of the patch*, so a pixel's contribution depends on
whether it lies on the border of the patch being described. The per-pixel
histograms are therefore computed for the four cases (interior, top/bottom
row, left/right column, corner) and the border cases enter as corrections
along the patch's border rows and columns.
"""

from __future__ import annotations

import numpy as np

__all__ = ["dense_hog", "hog_length"]

_L2HYS_CLIP = 0.2
_EPS = 1e-5  # scikit-image's block-normalisation epsilon


def hog_length(patch_size: int, cell_size: int, orientations: int) -> int:
    """Length of the descriptor of one patch (2x2-cell blocks)."""
    n = patch_size // cell_size
    return (n - 1) ** 2 * 4 * orientations


def _binned_magnitudes(g_row: np.ndarray, g_col: np.ndarray, orientations: int) -> np.ndarray:
    """(H, W, orientations): each pixel's gradient magnitude in its
    orientation bin (unsigned, [0, 180) degrees in equal bins), as
    ``skimage.feature.hog`` bins it."""
    mag = np.hypot(g_col, g_row)
    ori = np.rad2deg(np.arctan2(g_row, g_col)) % 180
    edges = (180.0 / orientations) * np.arange(1, orientations)
    b = np.searchsorted(edges, ori, side="right")
    out = np.zeros(mag.shape + (orientations,))
    np.put_along_axis(out, b[..., None], mag[..., None], axis=-1)
    return out


def _box_sums(a: np.ndarray, h: int, w: int) -> np.ndarray:
    """Sums of every h x w window of ``a`` (H, W, ...): (H - h + 1, W - w + 1, ...)."""
    c = np.zeros((a.shape[0] + 1, a.shape[1] + 1) + a.shape[2:])
    c[1:, 1:] = a.cumsum(0).cumsum(1)
    return c[h:, w:] - c[:-h, w:] - c[h:, :-w] + c[:-h, :-w]


def dense_hog(image: np.ndarray, patch_size: int = 21, cell_size: int = 7,
              orientations: int = 9) -> np.ndarray:
    """HOG descriptor of every ``patch_size`` x ``patch_size`` patch.

    Parameters
    ----------
    image : (H, W) grey image (any real dtype; computed in float64).
    patch_size : side of the square patch; a multiple of ``cell_size`` with
        at least 2 cells.
    cell_size : side of a square HOG cell.
    orientations : unsigned orientation bins.

    Returns
    -------
    D : float64 (H - patch_size + 1, W - patch_size + 1, L) with ``D[r, c]``
        equal to ``skimage.feature.hog(image[r:r + p, c:c + p], orientations,
        (cell_size, cell_size), (2, 2), "L2-Hys")`` (up to floating-point
        rounding) and ``L = hog_length(patch_size, cell_size, orientations)``.

    Examples
    --------
    >>> import numpy as np
    >>> from skimage.feature import hog
    >>> img = np.random.default_rng(0).random((30, 40))
    >>> D = dense_hog(img, 21, 7, 9)
    >>> D.shape
    (10, 20, 144)
    >>> ref = hog(img[3:24, 5:26], 9, (7, 7), (2, 2), "L2-Hys")
    >>> bool(np.allclose(D[3, 5], ref))
    True
    """
    p, cs, O = int(patch_size), int(cell_size), int(orientations)
    if cs < 1 or O < 1 or p % cs or p // cs < 2:
        raise ValueError(f"dense_hog: patch_size must be a multiple (>= 2x) of cell_size and "
                         f"orientations >= 1; got patch_size={patch_size}, "
                         f"cell_size={cell_size}, orientations={orientations}")
    img = np.asarray(image, dtype=np.float64)
    if img.ndim != 2 or img.shape[0] < p or img.shape[1] < p:
        raise ValueError(f"dense_hog: need a 2-D image of at least {p}x{p}; got shape {img.shape}")
    H, W = img.shape
    n = p // cs
    g_row = np.zeros_like(img)
    g_col = np.zeros_like(img)
    g_row[1:-1] = img[2:] - img[:-2]
    g_col[:, 1:-1] = img[:, 2:] - img[:, :-2]
    zero = np.zeros_like(img)
    B = _binned_magnitudes(g_row, g_col, O)                  # interior pixels
    dR = _binned_magnitudes(zero, g_col, O) - B              # on a top/bottom patch row
    dC = _binned_magnitudes(g_row, zero, O) - B              # on a left/right patch column
    dX = -(B + dR + dC)                                      # corner: no gradient at all
    cell = _box_sums(B, cs, cs)                              # (H-cs+1, W-cs+1, O)
    row_seg = _box_sums(dR, 1, cs)                           # (H, W-cs+1, O)
    col_seg = _box_sums(dC, cs, 1)                           # (H-cs+1, W, O)
    Hr, Wr = H - p + 1, W - p + 1
    last = p - 1
    hist = np.empty((Hr, Wr, n, n, O))
    for i in range(n):
        for j in range(n):
            r, c = i * cs, j * cs
            h = cell[r:r + Hr, c:c + Wr].copy()
            if i == 0:
                h += row_seg[0:Hr, c:c + Wr]
            if i == n - 1:
                h += row_seg[last:last + Hr, c:c + Wr]
            if j == 0:
                h += col_seg[r:r + Hr, 0:Wr]
            if j == n - 1:
                h += col_seg[r:r + Hr, last:last + Wr]
            for ci, cr in ((0, 0), (n - 1, last)):
                for cj, cc in ((0, 0), (n - 1, last)):
                    if i == ci and j == cj:
                        h += dX[cr:cr + Hr, cc:cc + Wr]
            hist[:, :, i, j] = h
    hist /= cs * cs
    nb = n - 1
    blocks = np.empty((Hr, Wr, nb, nb, 2, 2, O))
    for bi in range(nb):
        for bj in range(nb):
            blocks[:, :, bi, bj] = hist[:, :, bi:bi + 2, bj:bj + 2]
    flat = blocks.reshape(Hr, Wr, nb, nb, -1)
    flat /= np.sqrt((flat ** 2).sum(-1, keepdims=True) + _EPS ** 2)
    np.minimum(flat, _L2HYS_CLIP, out=flat)
    flat /= np.sqrt((flat ** 2).sum(-1, keepdims=True) + _EPS ** 2)
    return flat.reshape(Hr, Wr, -1)
