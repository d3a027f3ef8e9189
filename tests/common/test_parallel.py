import os

import numpy as np
import pytest

from common.parallel import can_fork, fork_map


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
