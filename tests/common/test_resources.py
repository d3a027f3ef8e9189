"""common.resources: a job's resource line reports the peak of its
processes' summed memory, not only its largest process's."""

from __future__ import annotations

import re
import subprocess
import sys

from geomargin.common import resources

HOLD = """
import sys, time
import numpy as np
a = np.ones(25_000_000)   # 191 MiB, touched
print("ready", flush=True)
time.sleep(float(sys.argv[1]))
"""


def _children_holding_memory(n: int, seconds: float) -> None:
    procs = [subprocess.Popen([sys.executable, "-c", HOLD, str(seconds)], stdout=subprocess.PIPE, text=True)
             for _ in range(n)]
    for p in procs:  # all of them hold their memory at once
        assert p.stdout.readline().strip() == "ready"
    for p in procs:
        assert p.wait() == 0


def test_sampler_sums_the_processes_that_run_together(monkeypatch):
    mb = 2 ** 20
    sampler = resources.JobMemorySampler(interval=0.05)
    before = sampler.sample()              # this process (and any live children) alone
    monkeypatch.setattr(resources, "_SAMPLER", sampler.start())
    _children_holding_memory(2, 1.0)
    line = resources.resource_line()
    m = re.search(r"peak_rss (\d+) MB, job_peak_rss (\d+) MB \(processes summed, sampled every 0.05 s\)$", line)
    assert m, line
    assert int(m.group(2)) >= int(m.group(1))
    assert sampler.peak_bytes >= before + 2 * 190 * mb   # both children's 191 MiB, beside this process


def test_without_a_sampler_the_line_has_no_job_peak(monkeypatch):
    monkeypatch.setattr(resources, "_SAMPLER", None)
    line = resources.resource_line()
    assert line.startswith(resources.RESOURCE_PREFIX) and "job_peak_rss" not in line
