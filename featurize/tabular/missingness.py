"""The seeded removal protocols of the missing-completely-at-random (MCAR)
sanity check.

Protocols (every random choice takes a seed):

* :func:`remove_mcar` — per instance, ``round(fraction * d)`` of the ``d``
  features chosen uniformly at random become NaN.
* :func:`remove_square_patch` — per image, one square patch of
  ``fraction * H * W`` pixels (a perfect square) at a uniformly random
  position becomes NaN; the analogue of the paper's MNIST protocol, where
  the patch pixels are structurally absent.
* :func:`standardize_observed` — label-free z-scoring of each column over
  its observed (non-NaN) entries.

Scenario names used by the workflow: ``"mcar50"`` (remove 50% at random),
``"patch25"`` (a square patch of 25% of the pixels); see :func:`parse_scenario`.

Example
-------
>>> import numpy as np
>>> X = np.arange(20.0).reshape(2, 10)
>>> np.isnan(remove_mcar(X, 0.5, seed=0)).sum(axis=1).tolist()
[5, 5]
"""

from __future__ import annotations

import math
import re

import numpy as np

from geomargin.common.exceptions import GeomarginInputError
from geomargin.featurize.tabular.datasets import TabularDataset

__all__ = [
    "remove_mcar",
    "remove_square_patch",
    "standardize_observed",
    "parse_scenario",
    "apply_scenario",
]


# -------------------------------------------------------------- removal
def _check_fraction(func: str, fraction) -> float:
    if isinstance(fraction, bool) or not isinstance(fraction, (int, float, np.floating)) \
            or not 0 <= fraction < 1:
        raise GeomarginInputError(f"The 'fraction' parameter of {func} must be a float in [0, 1). "
                                  f"Got {fraction!r} instead.")
    return float(fraction)


def remove_mcar(X, fraction: float, seed: int) -> np.ndarray:
    """Per instance, set ``round(fraction * d)`` randomly chosen features to NaN.

    The removed positions are drawn independently for every row, uniformly
    among all ``d`` features (so they may include a value that was already
    missing). Returns a new float array; ``X`` is not modified.

    Examples
    --------
    >>> X = np.ones((3, 4))
    >>> Z = remove_mcar(X, 0.5, seed=1)
    >>> np.isnan(Z).sum(axis=1).tolist(), bool(np.array_equal(Z, remove_mcar(X, 0.5, seed=1), equal_nan=True))
    ([2, 2, 2], True)
    """
    fraction = _check_fraction("remove_mcar", fraction)
    X = np.array(X, dtype=float)
    if X.ndim != 2:
        raise GeomarginInputError(f"remove_mcar expects a 2-D array. Got shape {X.shape} instead.")
    n, d = X.shape
    k = int(round(fraction * d))
    if k == 0:
        return X
    rng = np.random.default_rng(seed)
    # a random permutation per row: argsort of uniform keys; first k columns go
    cols = np.argsort(rng.random((n, d)), axis=1)[:, :k]
    X[np.arange(n)[:, None], cols] = np.nan
    return X


def patch_side(image_shape: tuple[int, int], fraction: float) -> int:
    """Side of the square patch holding ``fraction`` of the pixels (must be exact).

    Examples
    --------
    >>> patch_side((8, 8), 0.25)
    4
    """
    fraction = _check_fraction("patch_side", fraction)
    h, w = image_shape
    area = fraction * h * w
    side = int(round(math.sqrt(area)))
    if abs(side * side - area) > 1e-9 or side > min(h, w):
        ok = [f"{s * s / (h * w):g}" for s in range(1, min(h, w) + 1)]
        raise GeomarginInputError(f"A square patch of fraction {fraction!r} of {h}x{w} pixels "
                                  f"({area:g} pixels) is not a square that fits; valid fractions: "
                                  f"{', '.join(ok)}.")
    return side


def remove_square_patch(X, image_shape: tuple[int, int], fraction: float, seed: int,
                        return_origins: bool = False):
    """Per image, set a square patch of ``fraction`` of the pixels to NaN.

    Rows of ``X`` are row-major flattened ``image_shape`` images. The patch
    (side :func:`patch_side`) has its top-left corner drawn uniformly among
    the ``(H - s + 1) * (W - s + 1)`` positions where it fits.

    Returns
    -------
    ndarray, or (ndarray, ndarray of shape (n, 2)) with ``return_origins``
        The images with NaN patches (and the (row, col) of each top-left corner).

    Examples
    --------
    >>> Z, o = remove_square_patch(np.zeros((1, 64)), (8, 8), 0.25, seed=0, return_origins=True)
    >>> int(np.isnan(Z).sum()), o.shape
    (16, (1, 2))
    """
    X = np.array(X, dtype=float)
    h, w = (int(v) for v in image_shape)
    if X.ndim != 2 or X.shape[1] != h * w:
        raise GeomarginInputError(f"remove_square_patch expects rows of {h}x{w}={h * w} pixels. "
                                  f"Got an array of shape {X.shape} instead.")
    s = patch_side((h, w), fraction)
    n = X.shape[0]
    rng = np.random.default_rng(seed)
    origins = np.column_stack([rng.integers(0, h - s + 1, n), rng.integers(0, w - s + 1, n)])
    if s > 0:
        imgs = X.reshape(n, h, w)
        dr, dc = np.meshgrid(np.arange(s), np.arange(s), indexing="ij")
        rows = origins[:, 0, None, None] + dr
        cols = origins[:, 1, None, None] + dc
        imgs[np.arange(n)[:, None, None], rows, cols] = np.nan
        X = imgs.reshape(n, h * w)
    return (X, origins) if return_origins else X


def standardize_observed(X) -> np.ndarray:
    """Centre and scale each column over its observed entries (NaN kept).

    Label-free. A column with fewer than two observed values or zero spread
    is only centred (or left as is if nothing is observed).

    Examples
    --------
    >>> standardize_observed(np.array([[1.0, 5.0], [3.0, np.nan], [np.nan, 5.0]])).tolist()
    [[-1.0, 0.0], [1.0, nan], [nan, 0.0]]
    """
    X = np.array(X, dtype=float)
    obs = ~np.isnan(X)
    cnt = obs.sum(axis=0)
    mean = np.where(cnt > 0, np.nansum(X, axis=0) / np.maximum(cnt, 1), 0.0)
    dev = np.where(obs, X - mean, 0.0)
    std = np.sqrt((dev ** 2).sum(axis=0) / np.maximum(cnt, 1))
    std = np.where((cnt > 1) & (std > 1e-12), std, 1.0)
    return (X - mean) / std


# ------------------------------------------------------------- scenarios
_SCEN = re.compile(r"^(mcar|patch)(\d{1,2})$")


def parse_scenario(scenario: str) -> tuple[str, float]:
    """``"mcar50"`` -> ``("mcar", 0.5)``; ``"patch25"`` -> ``("patch", 0.25)``.

    Examples
    --------
    >>> parse_scenario("mcar90")
    ('mcar', 0.9)
    """
    m = _SCEN.match(str(scenario))
    if not m:
        raise GeomarginInputError(f"Unknown missingness scenario {scenario!r}: expected 'mcar<percent>' "
                                  "(e.g. mcar50: remove 50% of each instance's features at random) or "
                                  "'patch<percent>' (e.g. patch25: a random square patch of 25% of "
                                  "the pixels, image datasets only).")
    return m.group(1), int(m.group(2)) / 100.0


def apply_scenario(ds: TabularDataset, scenario: str, seed: int, standardize: bool = True) -> np.ndarray:
    """The features of ``ds`` after the scenario's removal (then
    :func:`standardize_observed` unless ``standardize=False``).

    Examples
    --------
    >>> ds = TabularDataset(name="toy", X=np.arange(128.0).reshape(2, 64), y=np.array([0, 1]),
    ...                     feature_names=[f"p{j}" for j in range(64)], class_names=["a", "b"],
    ...                     image_shape=(8, 8))
    >>> np.isnan(apply_scenario(ds, "patch25", seed=0)).sum(axis=1)   # a 4x4 patch each
    array([16, 16])
    """
    kind, fraction = parse_scenario(scenario)
    if kind == "mcar":
        X = remove_mcar(ds.X, fraction, seed=seed)
    else:
        if ds.image_shape is None:
            raise GeomarginInputError(f"Scenario {scenario!r} removes an image patch, but dataset "
                                      f"{ds.name!r} is not an image dataset; use 'mcar<percent>'.")
        X = remove_square_patch(ds.X, ds.image_shape, fraction, seed=seed)
    return standardize_observed(X) if standardize else X
