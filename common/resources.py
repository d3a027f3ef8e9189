"""The resources a workflow job has used: one line for the end of its log.

:func:`resource_line` gives the wall seconds since the process started, the
CPU seconds (user + system) of the process, of its child processes that have
ended (``RUSAGE_CHILDREN``) and of those still alive (worker pools not yet
shut down), the peak resident memory of the largest of them and, once
:func:`start_job_sampler` has run, the peak of their *summed* resident
memory (what a cluster's per-job memory limit compares with ``mem_mb``).
``workflow/scripts/_bootstrap.py`` starts the sampler when a job starts and
writes the line when it ends; ``benchmarks/bench_main_job.py`` sums it per
step.

Examples
--------
>>> resource_line().startswith(RESOURCE_PREFIX)
True
"""

from __future__ import annotations

import resource
import threading
import time

__all__ = ["RESOURCE_PREFIX", "JOB_SAMPLE_INTERVAL", "JobMemorySampler", "start_job_sampler", "resource_line",
           "process_tree", "tree_memory"]

#: Start of the line (after the log's time stamp and rule name).
RESOURCE_PREFIX = "resources:"

#: Seconds between samples of a job's summed resident memory. One sample
#: reads the process table (to find the job's descendants) and each of the
#: job's processes' memory counters; its CPU cost grows with the number of
#: processes on the machine (time ``JobMemorySampler().sample()`` to see it).
JOB_SAMPLE_INTERVAL = 0.5

#: The sampler of this process's job (:func:`start_job_sampler`), if started.
_SAMPLER: "JobMemorySampler | None" = None


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


def process_tree(proc) -> list:
    """``proc`` (a :class:`psutil.Process`) and all its descendants ([] once
    it has ended)."""
    import psutil

    try:
        return [proc, *proc.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def tree_memory(procs: list, pss: bool = True) -> tuple[int, int]:
    """Resident bytes of ``procs``: summed RSS, and summed PSS (proportional
    set size: a page shared by k processes counts 1/k in each, so pages a
    forked worker shares with its parent count once; the physical memory
    the tree holds), 0 unless ``pss``. A process that ended meanwhile, or
    may not be read, counts 0."""
    import psutil

    rss = total_pss = 0
    for p in procs:
        try:
            if pss:
                m = p.memory_full_info()
                total_pss += m.pss
            else:
                m = p.memory_info()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        rss += m.rss
    return rss, total_pss


class JobMemorySampler:
    """Peak of the summed resident memory (RSS) of a process and all its
    descendants, sampled every ``interval`` seconds by a daemon thread.

    A job whose workers run beside it (forked or spawned processes) needs
    their memory together: the largest process's peak understates it. A
    page a forked worker shares with its parent is counted in both, so the
    sum is an upper bound of the physical memory; a peak shorter than
    ``interval`` may be missed (:func:`resource_line` also reports the
    largest process's own peak, which is not sampled).

    Examples
    --------
    >>> s = JobMemorySampler(interval=0.05).start()
    >>> s.stop() > 0
    True
    """

    def __init__(self, interval: float = JOB_SAMPLE_INTERVAL):
        self.interval = interval
        self.peak_bytes = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def sample(self) -> int:
        """Summed RSS bytes of the process and its live descendants now
        (the peak so far is kept in ``peak_bytes``)."""
        import psutil

        total = tree_memory(process_tree(psutil.Process()), pss=False)[0]
        self.peak_bytes = max(self.peak_bytes, total)
        return total

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.sample()

    def start(self) -> "JobMemorySampler":
        """Take a first sample and keep sampling in a daemon thread."""
        self.sample()
        self._thread = threading.Thread(target=self._run, name="job-memory-sampler", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> int:
        """Stop sampling (after one last sample); return the peak in bytes."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.sample()
        return self.peak_bytes


def start_job_sampler(interval: float = JOB_SAMPLE_INTERVAL) -> JobMemorySampler:
    """Start sampling this job's summed memory (once per process; a second
    call returns the running sampler); :func:`resource_line` then reports
    its peak."""
    global _SAMPLER
    if _SAMPLER is None:
        _SAMPLER = JobMemorySampler(interval).start()
    return _SAMPLER


def resource_line() -> str:
    """``resources: wall W s, cpu C s (this process A, ended children B,
    live children L), peak_rss R MB`` for the calling process, followed by
    ``, job_peak_rss J MB (processes summed, sampled every I s)`` once
    :func:`start_job_sampler` has run.

    Peak RSS counts pages a forked worker shares with its parent in both, so
    it is an upper bound of the memory they needed together. ``J`` is at
    least ``R``: the sampled peak of the summed memory may miss a short
    spike that one process's own peak records.
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
    line = (f"{RESOURCE_PREFIX} wall {wall:.1f} s, cpu {cpu:.1f} s (this process "
            f"{own.ru_utime + own.ru_stime:.1f}, ended children {ended.ru_utime + ended.ru_stime:.1f}, "
            f"live children {live_cpu:.1f}), peak_rss {peak_mb:.0f} MB")
    if _SAMPLER is not None:
        job_mb = max(_SAMPLER.stop() / 2**20, peak_mb)
        line += f", job_peak_rss {job_mb:.0f} MB (processes summed, sampled every {_SAMPLER.interval:g} s)"
    return line
