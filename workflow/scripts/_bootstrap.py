"""Called right after the imports of every workflow script: send stderr to the
rule's log, log progress to the log *and* the console, cap the BLAS/OpenMP
threads at the rule's ``threads``, and log the job's resources when it ends
(:func:`resource_line`; ``benchmarks/bench_main_job.py`` reads it).

The project's packages are importable in a job without touching ``sys.path``:
Snakemake's preamble appends this folder (``workflow/scripts``) to
``sys.path``, and ``common``, ``data``, ``featurize``, ``models``, ``rank``,
``detect`` and ``report`` here are relative symlinks to the repository's
packages (``../../<package>``). That
holds for local runs, ``--sdm conda`` (Snakemake removes ``PYTHONPATH`` from a
conda job's environment, so a ``PYTHONPATH`` setting would not) and SLURM jobs
(the same checkout on a shared file system)."""

from __future__ import annotations

import atexit
import logging
import resource
import sys
import time
import traceback

#: Start of the log's last line (:func:`resource_line`).
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
    """The job's resources so far, one line: wall seconds since the process
    started, CPU seconds (user + system) of this process, of its child
    processes that have ended (``RUSAGE_CHILDREN``) and of those still alive
    (worker pools not yet shut down), and the peak resident memory of the
    largest of them (MB).

    >>> resource_line().startswith(RESOURCE_PREFIX)
    True
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


def setup(snakemake) -> logging.Logger:
    """Prepare a script run by Snakemake's ``script:`` directive."""
    console = sys.__stderr__
    log_file = open(snakemake.log[0], "w", buffering=1)
    sys.stderr = log_file
    logger = logging.getLogger("geomargin")
    logger.setLevel(logging.INFO)
    logger.handlers.clear()
    fmt = logging.Formatter(f"%(asctime)s [{snakemake.rule}] %(message)s", "%H:%M:%S")
    for stream in (log_file, console):
        handler = logging.StreamHandler(stream)
        handler.setFormatter(fmt)
        logger.addHandler(handler)
    logger.propagate = False

    def excepthook(exc_type, exc, tb):
        # Bad input and failed fetches are explained by their message (file,
        # value, what was expected): show it on the console and in the log.
        # Anything else is a bug: full traceback in the log, summary on both.
        from common.exceptions import FetchError, GeomarginInputError

        if issubclass(exc_type, (GeomarginInputError, FetchError)):
            logger.error("%s: %s", exc_type.__name__, exc)
        else:
            traceback.print_exception(exc_type, exc, tb, file=log_file)
            logger.error("%s: %s (traceback in %s)", exc_type.__name__, exc, snakemake.log[0])

    sys.excepthook = excepthook
    atexit.register(lambda: logger.info("%s", resource_line()))
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(int(snakemake.threads))
    except ImportError:  # pragma: no cover - threadpoolctl ships with scikit-learn
        pass
    return logger
