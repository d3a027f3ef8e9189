"""Map a function over items in forked worker processes, results in order.

The ranking steps score and explain thousands of reactions with a fitted
model and a featurizer that take seconds to build and much memory to copy.
A forked worker inherits them (copy-on-write) without pickling; only the
items and the results cross between processes. Where fork is not safe
(macOS, Windows) or one job is asked for, the map runs in this process.
Each item's result is the same either way: the function sees the same
item, and nothing is shared between items.

Examples
--------
>>> fork_map(lambda x: x * x, range(5), n_jobs=2)
[0, 1, 4, 9, 16]
"""

from __future__ import annotations

import multiprocessing as mp
import sys
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor

import numpy as np

__all__ = ["fork_map", "can_fork", "contiguous_parts", "balanced_bounds", "process_starmap"]

#: The function of the current :func:`fork_map` (set before the workers fork).
_task: Callable | None = None


def can_fork() -> bool:
    """Whether worker processes are forked (Linux; fork is unsafe after BLAS
    or system frameworks start on macOS, and absent on Windows)."""
    return sys.platform.startswith("linux")


def contiguous_parts(items: list, n_parts: int) -> list[list]:
    """``items`` in ``min(n_parts, len(items))`` contiguous parts of near-equal size, in order.

    >>> contiguous_parts([1, 2, 3, 4, 5], 2), contiguous_parts([], 3)
    ([[1, 2], [3, 4, 5]], [])
    """
    n = min(len(items), max(1, int(n_parts)))
    if n == 0:
        return []
    bounds = [len(items) * k // n for k in range(n + 1)]
    return [items[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def balanced_bounds(weights, n_parts: int) -> list[int]:
    """Bounds ``[0, ..., len(weights)]`` of at most ``n_parts`` contiguous,
    non-empty parts whose summed weights are near equal: each inner bound is
    the one whose prefix sum is nearest to a multiple of ``sum / n_parts``.
    For work whose cost varies from item to item (scenes of different sizes),
    parts of equal cost keep every worker busy to the end, where parts of
    equal count leave one worker finishing the largest alone.

    >>> balanced_bounds([5, 1, 1, 1, 1, 1], 2), balanced_bounds([1, 1, 1, 1], 2), balanced_bounds([], 3)
    ([0, 1, 6], [0, 2, 4], [0])
    """
    w = np.asarray(weights, dtype=float).reshape(-1)
    n = min(w.size, max(1, int(n_parts)))
    if n == 0:
        return [0]
    prefix = np.r_[0.0, np.cumsum(w)]
    targets = prefix[-1] * np.arange(1, n) / n
    right = np.clip(np.searchsorted(prefix, targets), 1, w.size)
    nearer_left = (targets - prefix[right - 1]) < (prefix[right] - targets)
    cuts = np.where(nearer_left, right - 1, right)
    return np.unique(np.r_[0, cuts, w.size]).tolist()


def _run(chunk: list) -> list:
    return [_task(item) for item in chunk]


def fork_map(fn: Callable, items: Iterable, n_jobs: int = 1, chunks_per_job: int = 4) -> list:
    """``[fn(item) for item in items]``, by ``n_jobs`` forked processes.

    Parameters
    ----------
    fn : callable
        Called once per item; it, and what it reads, reach the workers by
        fork (a lambda or closure is fine). Its results must pickle.
    items : iterable
        Must pickle.
    n_jobs : int, default 1
        Worker processes; 1 (or fewer than 2 items, or no fork) maps here.
    chunks_per_job : int, default 4
        The items go to the workers in ``n_jobs * chunks_per_job``
        contiguous chunks (fewer round trips than one item at a time, and
        a slow chunk does not hold up the rest).

    Returns
    -------
    list
        One result per item, in the items' order.
    """
    global _task
    items = list(items)
    n_jobs = max(1, int(n_jobs))
    if n_jobs == 1 or len(items) < 2 or not can_fork():
        return [fn(item) for item in items]
    chunks = contiguous_parts(items, n_jobs * max(1, int(chunks_per_job)))
    _task = fn
    try:
        with ProcessPoolExecutor(max_workers=min(n_jobs, len(chunks)), mp_context=mp.get_context("fork")) as pool:
            return [result for chunk in pool.map(_run, chunks) for result in chunk]
    finally:
        _task = None


def process_starmap(fn: Callable, calls: Iterable[tuple], n_jobs: int) -> list:
    """``[fn(*args) for args in calls]`` on ``n_jobs`` joblib (loky) worker
    processes with one BLAS/OpenMP thread each, results in order.

    joblib would otherwise pass on the parent's ``OMP_NUM_THREADS`` /
    ``OPENBLAS_NUM_THREADS``, which Snakemake sets to the job's threads: each
    of ``threads`` workers would then run ``threads`` BLAS threads.
    ``fn`` and the arguments must pickle (large arrays reach the workers
    memory-mapped).

    >>> process_starmap(pow, [(2, 3), (3, 2)], n_jobs=2)
    [8, 9]
    """
    from joblib import Parallel, delayed, parallel_config

    with parallel_config(backend="loky", inner_max_num_threads=1):
        return Parallel(n_jobs=n_jobs)(delayed(fn)(*args) for args in calls)
