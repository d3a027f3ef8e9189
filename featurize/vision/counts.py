"""How many landmark candidates cars and non-cars get."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["candidate_count_distribution"]


def candidate_count_distribution(counts: np.ndarray, y: np.ndarray, max_candidates: int):
    """Distribution of the number of candidates per (image, landmark), by class.

    Parameters
    ----------
    counts : ndarray of int, shape (n_images, n_landmarks)
        Candidates found for each landmark of each image (0 = every slot of
        the landmark absent).
    y : ndarray, shape (n_images,)
        1 for cars, 0 for non-cars.
    max_candidates : int
        The candidate cap; counts range over ``0..max_candidates``.

    Returns
    -------
    pandas.DataFrame
        One row per count ``0..max_candidates`` with the number and the
        fraction of (image, landmark) pairs of cars and of non-cars that
        have that many candidates.

    Examples
    --------
    >>> d = candidate_count_distribution(np.array([[0, 2], [1, 1]]), np.array([1, 0]), 2)
    >>> d[["candidates", "cars", "non_cars"]].to_numpy().tolist()
    [[0, 1, 0], [1, 0, 2], [2, 1, 0]]
    """
    counts = np.asarray(counts)
    y = np.asarray(y)
    if counts.ndim != 2 or len(counts) != len(y):
        raise ValueError(f"counts must have shape (n_images, n_landmarks) with n_images = len(y) = "
                         f"{len(y)}. Got shape {counts.shape} instead.")
    if counts.size and (counts.min() < 0 or counts.max() > max_candidates):
        raise ValueError(f"counts must lie in 0..max_candidates = {max_candidates}. "
                         f"Got range {counts.min()}..{counts.max()} instead.")
    if not np.isin(y, (0, 1)).all():
        raise ValueError(f"y must hold 0 (non-car) and 1 (car). Got values {np.unique(y)} instead.")
    k = np.arange(max_candidates + 1)
    out = {"candidates": k}
    for name, label in (("cars", 1), ("non_cars", 0)):
        c = np.bincount(counts[y == label].ravel(), minlength=max_candidates + 1)
        out[name] = c
        out[f"{name}_fraction"] = c / max(c.sum(), 1)
    return pd.DataFrame(out)
