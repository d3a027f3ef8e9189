import os

import numpy as np
import pytest

from geomargin.common.parallel import balanced_bounds, can_fork, fork_map


def test_fork_map_keeps_order_and_reads_what_the_function_closes_over():
    big = np.arange(100_000)   # reaches the workers by fork, never pickled

    def fn(i):
        return i, int(big[i * 1000]), os.getpid()

    items = list(range(23))
    out = fork_map(fn, items, n_jobs=2)
    assert [o[:2] for o in out] == [(i, i * 1000) for i in items]
    if can_fork():
        assert os.getpid() not in {o[2] for o in out}
    assert {o[2] for o in fork_map(fn, items, n_jobs=1)} == {os.getpid()}
    assert fork_map(fn, [], n_jobs=2) == []


def test_fork_map_raises_the_workers_error():
    def fn(i):
        if i == 5:
            raise ValueError("item 5 is bad")
        return i

    with pytest.raises(ValueError, match="item 5 is bad"):
        fork_map(fn, range(10), n_jobs=2)


def test_balanced_bounds_cut_at_the_prefix_sums_nearest_equal_shares():
    # one heavy item first: equal counts would give parts of 7 and 3
    assert balanced_bounds([5, 1, 1, 1, 1, 1], 2) == [0, 1, 6]
    rng = np.random.default_rng(0)
    for _ in range(200):
        w = rng.integers(0, 20, size=rng.integers(1, 30))
        n = int(rng.integers(1, 12))
        b = balanced_bounds(w, n)
        # contiguous, non-empty parts covering every item, at most n of them
        assert b[0] == 0 and b[-1] == len(w) and all(x < y for x, y in zip(b[:-1], b[1:]))
        assert len(b) - 1 <= min(n, len(w))
        # each inner bound is a prefix whose sum is nearest to a multiple of sum / n
        prefix = np.r_[0, np.cumsum(w)]
        targets = prefix[-1] * np.arange(1, min(n, len(w))) / min(n, len(w))
        for k in b[1:-1]:
            assert any(abs(prefix[k] - t) == np.min(np.abs(prefix - t)) for t in targets)
