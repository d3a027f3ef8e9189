"""Called right after the imports of every workflow script: send stderr to the
rule's log, log progress to the log *and* the console, and cap the
BLAS/OpenMP threads at the rule's ``threads``. A job's time and memory are
recorded by Snakemake's ``benchmark:`` directive (every rule's
``logs/<step>.benchmark.tsv``; ``benchmarks/bench_main_job.py`` sums them).

The project's package, ``geomargin``, is installed in the job's environment:
editable in the driver's venv (``requirements.txt``), which local and SLURM
jobs share; editable in the rule environment of ``--sdm conda``
(``workflow/envs/geomargin.yaml``). No job edits ``sys.path``."""

from __future__ import annotations

import logging
import sys
import traceback


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
        # Bad input, failed fetches and a disk too full to publish are
        # explained by their message (file or folder, value, what was
        # expected): show it on the console and in the log. Anything else is
        # a bug: full traceback in the log, summary on both.
        from geomargin.common.exceptions import DiskSpaceError, FetchError, GeomarginInputError

        if issubclass(exc_type, (GeomarginInputError, FetchError, DiskSpaceError)):
            logger.error("%s: %s", exc_type.__name__, exc)
        else:
            traceback.print_exception(exc_type, exc, tb, file=log_file)
            logger.error("%s: %s (traceback in %s)", exc_type.__name__, exc, snakemake.log[0])

    sys.excepthook = excepthook
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(int(snakemake.threads))
    except ImportError:  # pragma: no cover - threadpoolctl ships with scikit-learn
        pass
    return logger
