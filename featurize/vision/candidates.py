"""Landmark candidates: local maxima of a response map inside each
landmark's search window; the NCC detector (template matching)."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

__all__ = ["landmark_candidates"]


def _search_regions(positions: np.ndarray, radius: int, patch_size: int,
                    image_shape: tuple[int, int]) -> np.ndarray:
    """Per landmark, (r0, r1, c0, c1) of the search window in response-map
    coordinates (patch top-left; half-open), clipped so the patch stays inside
    the image frame."""
    H, W = image_shape
    p = patch_size
    h = p // 2
    out = np.empty((len(positions), 4), int)
    for k, (r, c) in enumerate(positions):
        r0, r1 = max(r - radius, h), min(r + radius, H - 1 - h)
        c0, c1 = max(c - radius, h), min(c + radius, W - 1 - h)
        out[k] = (r0 - h, r1 - h + 1, c0 - h, c1 - h + 1)
    return out


def _block_candidates(blocks: np.ndarray, threshold: float, max_candidates: int):
    """Local maxima of each block (n, bh, bw) scoring above ``threshold``.

    A pixel is a local maximum when it is > each of its (up to 8) neighbours
    inside the block that come before it in raster order and >= those after
    it (so a flat plateau gives a single candidate). Returns ``(flat index (n, K) or -1, score (n, K) or NaN)``
    ordered by decreasing score (ties: lower flat index first).
    """
    n, bh, bw = blocks.shape
    b = np.where(np.isfinite(blocks), blocks, -np.inf)
    pad = np.full((n, bh + 2, bw + 2), -np.inf, dtype=b.dtype)
    pad[:, 1:-1, 1:-1] = b
    # Neighbours earlier in raster order must be strictly lower, later ones
    # lower or equal: a plateau yields one candidate (its first pixel).
    before = np.full_like(b, -np.inf)
    after = np.full_like(b, -np.inf)
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if dr or dc:
                tgt = before if (dr < 0 or (dr == 0 and dc < 0)) else after
                np.maximum(tgt, pad[:, 1 + dr:1 + dr + bh, 1 + dc:1 + dc + bw], out=tgt)
    ok = (b > before) & (b >= after) & (b > threshold)
    score = np.where(ok, b, -np.inf).reshape(n, -1)
    K = min(max_candidates, bh * bw)
    order = np.argsort(-score, axis=1, kind="stable")[:, :K]
    top = np.take_along_axis(score, order, axis=1)
    valid = np.isfinite(top)
    idx = np.where(valid, order, -1)
    sc = np.where(valid, top, np.nan)
    if K < max_candidates:
        idx = np.pad(idx, ((0, 0), (0, max_candidates - K)), constant_values=-1)
        sc = np.pad(sc, ((0, 0), (0, max_candidates - K)), constant_values=np.nan)
    return idx, sc


def _ncc_map(image: np.ndarray, template: np.ndarray) -> np.ndarray:
    r = cv2.matchTemplate(np.ascontiguousarray(image, dtype=np.float32), template,
                          cv2.TM_CCOEFF_NORMED)
    return np.nan_to_num(r, nan=-1.0, posinf=-1.0, neginf=-1.0)


def _candidates_in_maps(resp: np.ndarray, origins: np.ndarray, region: np.ndarray,
                        patch_size: int, threshold: float, max_candidates: int):
    """Candidates of one landmark for windows with top-left ``origins`` (m, 2)
    reading ``resp`` - a response map (Hr, Wr) shared by all windows, or one map
    per window (m, Hr, Wr) with all origins 0. Returns centres (m, K, 2) in the
    image frame (-1 if absent) and scores (m, K) (NaN if absent)."""
    r0, r1, c0, c1 = region
    bh, bw = r1 - r0, c1 - c0
    if resp.ndim == 2:
        view = sliding_window_view(resp, (bh, bw))
        blocks = view[origins[:, 0] + r0, origins[:, 1] + c0]
    else:
        blocks = resp[:, r0:r1, c0:c1]
    idx, sc = _block_candidates(blocks, threshold, max_candidates)
    dr, dc = np.divmod(np.maximum(idx, 0), bw)
    h = patch_size // 2
    rows = origins[:, [0]] + r0 + dr + h
    cols = origins[:, [1]] + c0 + dc + h
    pos = np.stack([rows, cols], axis=-1)
    pos[idx < 0] = -1
    return pos, sc


def landmark_candidates(images: np.ndarray, positions: np.ndarray, templates: np.ndarray,
                        search_radius: int = 8, threshold: float = 0.3,
                        max_candidates: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """Candidate locations of every landmark in every image.

    Parameters
    ----------
    images : (n, h, w) images in the car frame (already oriented).
    positions : (L, 2) expected (row, col) patch centres.
    templates : (L, p, p) templates (odd p).
    search_radius : half-side of the square search window around each
        expected centre (clipped so the patch stays inside the image).
    threshold : minimum NCC (``cv2.TM_CCOEFF_NORMED``) of a candidate.
    max_candidates : slots per landmark.

    Returns
    -------
    centres : int (n, L, max_candidates, 2), (row, col) patch centres ordered
        by decreasing score; (-1, -1) for an absent slot.
    scores : float (n, L, max_candidates), NaN for an absent slot.

    Examples
    --------
    >>> import numpy as np, cv2
    >>> img = np.zeros((40, 100), np.float32)
    >>> _ = cv2.circle(img, (30, 20), 5, 1.0, -1)
    >>> tpl = np.zeros((21, 21), np.float32); _ = cv2.circle(tpl, (10, 10), 5, 1.0, -1)
    >>> c, s = landmark_candidates(img[None], np.array([[18, 33]]), tpl[None], 8, 0.5, 3)
    >>> c[0, 0, 0].tolist(), round(float(s[0, 0, 0]), 3)
    ([20, 30], 1.0)
    """
    images = np.asarray(images, dtype=np.float32)
    templates = np.asarray(templates, dtype=np.float32)
    positions = np.asarray(positions, dtype=int)
    n, H, W = images.shape
    L, p = templates.shape[0], templates.shape[1]
    regions = _search_regions(positions, int(search_radius), p, (H, W))
    origins = np.zeros((n, 2), int)
    centres = np.empty((n, L, max_candidates, 2), int)
    scores = np.empty((n, L, max_candidates))
    for k in range(L):
        resp = np.stack([_ncc_map(im, templates[k]) for im in images])
        centres[:, k], scores[:, k] = _candidates_in_maps(
            resp, origins, regions[k], p, threshold, max_candidates)
    return centres, scores
