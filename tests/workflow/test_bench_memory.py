"""benchmarks/bench_main_job.py's memory sampling: summed RSS counts the
pages a forked worker shares with its parent twice, summed PSS once."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

CHILD = """
import os, time
import numpy as np
a = np.ones(40_000_000)          # 305 MiB, touched
pid = os.fork()                  # the child shares every page of a
time.sleep(5)                    # PSS is sampled every 2 s
if pid:
    os.waitpid(pid, 0)
"""


def _bench():
    spec = importlib.util.spec_from_file_location("bench_main_job", REPO / "benchmarks" / "bench_main_job.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def test_summed_pss_counts_shared_pages_once(tmp_path):
    wall, cpu, rss, pss, pss_at, rc, sampler_cpu = _bench().run_sampled([sys.executable, "-c", CHILD], tmp_path / "log")
    assert rc == 0
    mb = 2 ** 20
    assert rss > 600 * mb                 # parent and child each hold the 305 MiB
    assert 300 * mb < pss < 0.75 * rss    # counted once
    assert 0 < pss_at <= wall
    assert 0 <= sampler_cpu < cpu          # the sampling's own CPU, reported apart
