"""Hard negatives for the scene detectors, mined from the training negatives.

A classifier trained on the 1050 UIUC training crops has seen 500 non-car
windows, while a scene offers thousands; many of its false detections are
background textures (road, foliage, facades). As in Dalal & Triggs (2005),
the windows of training negatives that a first model scores highest are
added as negatives and the model is refitted once. The UIUC negatives are
100x40 crops, as large as one window, so each is enlarged by the factors of
``scales`` (``cv2.resize``, bilinear) and every window on a ``stride`` grid
of the enlarged image is a candidate negative: it holds no car by
construction. No test scene is used.

Per method, the windows scoring above ``margin`` (the SVM margin, -1: the
windows that violate or sit inside it) are kept, at most ``max_windows`` of
them, highest scores first. Window features are computed once per image and
shared by every method's scorer.
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

import cv2
import numpy as np

from geomargin.common.parallel import process_starmap
from geomargin.detect.scenes import window_origins

__all__ = ["negative_windows", "mine_hard_negatives"]


def negative_windows(image: np.ndarray, scales: Sequence[float], stride: int
                     ) -> list[tuple[np.ndarray, np.ndarray]]:
    """``[(enlarged image, window origins), ...]``, one per scale in ``scales``
    (each > 1 enlarges the 40x100 crop; 1 keeps it, one window)."""
    out = []
    for s in scales:
        s = float(s)
        if not np.isfinite(s) or s < 1:
            raise ValueError(f"hard-negative scales must be >= 1 (enlargements of a 40x100 crop); got {s}")
        level = image if s == 1 else cv2.resize(image, None, fx=s, fy=s, interpolation=cv2.INTER_LINEAR)
        out.append((level, window_origins(level.shape, stride)))
    return out


def _top(X: np.ndarray, v: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` rows of highest ``v`` (ties: first rows first), best first."""
    order = np.argsort(-v, kind="stable")[:k]
    return X[order], v[order]


def _mine_image(image, featurizer, scorers, scales, stride, margin, max_windows):
    feats = {k: [] for k in scorers}
    vals = {k: [] for k in scorers}
    for level, origins in negative_windows(image, scales, stride):
        X = featurizer.transform_windows(level, origins)
        for k, fn in scorers.items():
            v = np.asarray(fn(X), dtype=float)
            hard = v > margin
            feats[k].append(X[hard].astype(np.float32))
            vals[k].append(v[hard])
    return {k: _top(np.concatenate(feats[k]), np.concatenate(vals[k]), max_windows) for k in scorers}


def _merge(parts: list[dict], k: int) -> dict:
    """Per method, the best ``k`` of several results (earlier parts first on ties)."""
    return {m: _top(np.concatenate([p[m][0] for p in parts]), np.concatenate([p[m][1] for p in parts]), k)
            for m in parts[0]}


def _mine_images(images, *args):
    """The best windows of several images, merged image by image (bounded memory)."""
    best = None
    for img in images:
        part = _mine_image(img, *args)
        best = part if best is None else _merge([best, part], args[-1])
    return best


def mine_hard_negatives(featurizer, scorers: Mapping[str, Callable[[np.ndarray], np.ndarray]],
                        images: Sequence[np.ndarray], *, scales: Sequence[float] = (1.5, 2.0, 2.5),
                        stride: int = 4, margin: float = -1.0, max_windows: int = 3000,
                        n_jobs: int = 1, chunk: int = 100, progress: Callable[[str], None] | None = None
                        ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Hard negatives per method from the windows of enlarged negative images.

    Parameters
    ----------
    featurizer : fitted :class:`geomargin.featurize.vision.featurizer.CarPartFeaturizer`
        (anything with ``transform_windows(image, origins)``).
    scorers : {method: callable} mapping window features to scores (e.g.
        :class:`geomargin.detect.scenes.DecisionScorer` of a model trained on
        the crops).
    images : training negatives (40x100 float images in [0, 1]).
    scales, stride : enlargement factors of each image and the window grid step.
    margin : a window is hard for a method when its score is above this.
    max_windows : at most this many per method, highest scores first.
    n_jobs, chunk : processes, and images per batch (the running best
        ``max_windows`` are kept between batches, so memory stays bounded).
    progress : called with a message after each batch (e.g. a logger's ``info``).

    Returns
    -------
    {method: (features float32 (k, n_features), scores (k,))}, best first;
    the same for any ``n_jobs`` and ``chunk``.

    Examples
    --------
    >>> import numpy as np
    >>> class Mean:  # one feature: the window's mean brightness
    ...     def transform_windows(self, img, origins):
    ...         return np.array([[img[r:r + 40, c:c + 100].mean()] for r, c in origins])
    >>> neg = [np.linspace(0, 1, 4000, dtype=np.float32).reshape(40, 100)]
    >>> got = mine_hard_negatives(Mean(), {"bright": lambda X: X[:, 0] - 0.5}, neg,
    ...                           scales=[1.0, 2.0], stride=20, max_windows=2)
    >>> got["bright"][0].shape
    (2, 1)
    """
    if not isinstance(max_windows, (int, np.integer)) or max_windows < 1:
        raise ValueError(f"max_windows must be an int >= 1; got {max_windows!r}")
    if not isinstance(stride, (int, np.integer)) or stride < 1:
        raise ValueError(f"stride must be an int >= 1; got {stride!r}")
    if not scorers:
        raise ValueError("scorers must be a non-empty mapping of method -> callable")
    if len(images) == 0:
        raise ValueError("no negative images to mine hard negatives from")
    best = None
    args = (featurizer, dict(scorers), tuple(scales), int(stride), float(margin), int(max_windows))
    step = max(int(chunk), 1)
    for start in range(0, len(images), step):
        batch = images[start:start + step]
        if n_jobs == 1:
            parts = [_mine_images(batch, *args)]
        else:
            # one task per process and batch: the featurizer and the scorers
            # (models) are sent to a worker once per batch, not once per image
            bounds = np.linspace(0, len(batch), min(len(batch), n_jobs) + 1).astype(int)
            parts = process_starmap(_mine_images, [(batch[a:b], *args) for a, b in zip(bounds[:-1], bounds[1:])
                                                   if b > a], n_jobs)
        best = _merge(([best] if best is not None else []) + parts, int(max_windows))
        if progress is not None:
            done = min(start + step, len(images))
            progress(f"{done}/{len(images)} negatives mined; hard windows kept per method: "
                     + ", ".join(f"{k} {len(v[1])}" for k, v in best.items()))
    return best
