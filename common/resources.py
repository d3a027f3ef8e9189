"""The resources a workflow job has used: one line for the end of its log.

:func:`resource_line` gives the wall seconds since the process started, the
CPU seconds (user + system) of the process, of its child processes that have
ended (``RUSAGE_CHILDREN``) and of those still alive (worker pools not yet
shut down), and the peak resident memory of the largest of them.
``workflow/scripts/_bootstrap.py`` writes it when a job ends;
``benchmarks/bench_main_job.py`` sums it per step.

Examples
--------
>>> resource_line().startswith(RESOURCE_PREFIX)
True
"""

from __future__ import annotations

import resource
import time

__all__ = ["RESOURCE_PREFIX", "resource_line"]

#: Start of the line (after the log's time stamp and rule name).
RESOURCE_PREFIX = "resources:"


def _peak_rss_kb(pid: int) -> int:
    """Peak resident memory (VmHWM, kB) of a live process; 0 when unknown."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def resource_line() -> str:
    """``resources: wall W s, cpu C s (this process A, ended children B,
    live children L), peak_rss R MB`` for the calling process.

    Peak RSS counts pages a forked worker shares with its parent in both, so
    it is an upper bound of the memory they needed together.
    """
    import psutil

    me = psutil.Process()
    own, ended = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    live_cpu, live_peak = 0.0, 0
    for child in me.children(recursive=True):
        try:
            t = child.cpu_times()
            live_cpu += t.user + t.system
            live_peak = max(live_peak, _peak_rss_kb(child.pid))
        except psutil.Error:
            pass
    cpu = own.ru_utime + own.ru_stime + ended.ru_utime + ended.ru_stime + live_cpu
    peak_mb = max(own.ru_maxrss, ended.ru_maxrss, live_peak) / 1024
    wall = time.time() - me.create_time()
    return (f"{RESOURCE_PREFIX} wall {wall:.1f} s, cpu {cpu:.1f} s (this process "
            f"{own.ru_utime + own.ru_stime:.1f}, ended children {ended.ru_utime + ended.ru_stime:.1f}, "
            f"live children {live_cpu:.1f}), peak_rss {peak_mb:.0f} MB")
