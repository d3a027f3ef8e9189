"""Benchmark of the main job from cached data: wall time and peak memory of
``snakemake --cores 2 results/enzyme_ranking.tsv``, and the time to score all
orphan reactions x all candidate genes.

    python benchmarks/bench_main_job.py [--workdir DIR] [--cores 2]
                                        [--configfile config/config.yaml]

The inputs are fetched first (from the mirror, ``$GEOMARGIN_DATA_MIRROR`` or
``../shared/data``, else their public sources) into ``DIR/downloads``; that
step is not timed ("from cached data"). Then the whole target is built in
``DIR`` from scratch and timed. Peak memory is the largest *sum* of the
resident memory of Snakemake and all its job processes, sampled every 0.2 s
(jobs run concurrently, so the largest single process would understate it).
The scoring time is the one the ``enzyme_ranking`` job logs for its
vectorised, batched scoring of every orphan reaction against every candidate.

Prints a markdown table with the issue's targets (20 min and 4 GB for the
whole target with 2 cores; 2 min for the scoring).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[1]
TARGET = "results/enzyme_ranking.tsv"


def tree_rss(proc: psutil.Process) -> int:
    """Resident bytes of ``proc`` and all its descendants."""
    total = 0
    try:
        procs = [proc, *proc.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0
    for p in procs:
        try:
            total += p.memory_info().rss
        except psutil.NoSuchProcess:
            pass
    return total


def run_sampled(cmd: list[str], log: Path) -> tuple[float, int, int]:
    """Run ``cmd``; return (wall seconds, peak summed RSS bytes, exit code)."""
    with open(log, "w") as fh:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT)
        ps = psutil.Process(proc.pid)
        peak = 0
        while proc.poll() is None:
            peak = max(peak, tree_rss(ps))
            time.sleep(0.2)
        return time.perf_counter() - start, peak, proc.returncode


def main() -> int:
    mirror = os.environ.get("GEOMARGIN_DATA_MIRROR", str(REPO.parent / "shared" / "data"))
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workdir", type=Path, default=None,
                    help="working directory (default: a new temporary directory)")
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--configfile", type=Path, default=REPO / "config" / "config.yaml")
    args = ap.parse_args()
    work = args.workdir or Path(tempfile.mkdtemp(prefix="geomargin-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    snakemake = str(Path(sys.executable).with_name("snakemake"))
    # the target comes first: --config and --omit-from take several values
    base = [snakemake, TARGET, "-s", str(REPO / "Snakefile"), "-d", str(work), "--cores", str(args.cores),
            "--configfile", str(args.configfile),
            "--config", f"data_mirror={mirror}", f"download_dir={work / 'downloads'}"]

    print(f"workdir {work}; fetching the inputs (not timed) ...", file=sys.stderr)
    fetch = subprocess.run([*base, "--omit-from", "metabolic_features"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if fetch.returncode:
        print(fetch.stderr, file=sys.stderr)
        return fetch.returncode
    print(f"building {TARGET} with --cores {args.cores} (log: {work / 'snakemake.log'}) ...",
          file=sys.stderr)
    wall, peak, rc = run_sampled(base, work / "snakemake.log")
    if rc:
        print(f"snakemake failed (exit {rc}); see {work / 'snakemake.log'}", file=sys.stderr)
        return rc

    scoring = "n/a"
    log = work / "logs" / "metabolic" / "enzyme_ranking.log"
    m = re.search(r"scored (\d+) reactions x (\d+) candidates in ([0-9.]+) s", log.read_text())
    if m:
        scoring = f"{float(m.group(3)):.1f}"
        what = f"{m.group(1)} orphan reactions x {m.group(2)} candidates"
    else:
        what = "(no scoring line in the enzyme_ranking log)"
    print(f"\n`python benchmarks/bench_main_job.py --cores {args.cores}` "
          f"(config {args.configfile.name})\n")
    print("| step | seconds | target s | peak RSS MB | target MB |")
    print("|---|---:|---:|---:|---:|")
    print(f"| {TARGET}, whole target from cached data, --cores {args.cores} | {wall:.0f} | 1200 "
          f"| {peak / 2**20:.0f} | 4096 |")
    print(f"| scoring {what} | {scoring} | 120 | | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
