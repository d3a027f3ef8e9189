"""Benchmark of the main job from cached data: wall time, CPU use and peak
memory of ``snakemake --cores 2 results/enzyme_ranking.tsv``, per step and in
all, and the time to score all orphan reactions x all candidate genes.

    python benchmarks/bench_main_job.py [--workdir DIR] [--cores 2]
                                        [--configfile config/config.yaml [MORE.yaml ...]]
                                        [--dataset yeast | --scenes | --time-split]
                                        [--out docs/benchmarks/main_job.md]

The inputs are fetched first (from the mirror, ``$GEOMARGIN_DATA_MIRROR`` or
``../shared/data``, else their public sources) into ``DIR/downloads``; that
step is not timed ("from cached data"). Then the whole target is built in
``DIR`` from scratch and timed. Peak memory is the largest *sum* of the
resident memory of Snakemake and all its job processes (jobs run
concurrently, so the largest single process would understate it): summed
RSS in the table, sampled every 0.2 s, and below it summed PSS, which counts
a page shared by several processes once (a job's forked workers share their
parent's pages; summed RSS counts them in every worker), with the time of
that peak, sampled every 2 s (the kernel walks every page table to compute
it, and more often the sampler would slow the run it measures; its own CPU
seconds are printed, not counted).
The scoring time is the one the ``enzyme_ranking`` job logs for its
vectorised, batched scoring of every orphan reaction against every candidate.
CPU seconds of the whole target are those of every process Snakemake ran
(``RUSAGE_CHILDREN`` once it has ended); CPU utilisation is CPU seconds over
wall seconds (200% = both of 2 cores busy throughout). Per step, Snakemake's
``benchmark:`` file of every job (``logs/<step>.benchmark.tsv``, beside its
log: wall and CPU seconds, and the peak of its processes' summed resident
memory, as RSS, which a cluster's per-job limit compares with ``mem_mb``,
and as PSS); jobs of one rule are summed (``cv``: one job per method), and
their peaks are the largest of the rule's jobs.
``--dataset`` runs another input set of ``metabolic.datasets`` (``yeast``:
iMM904) instead of the config's default. ``--scenes`` builds the two scene
detection targets instead (``results/vision/scene_detection.tsv`` and
``results/vision/scene_detection_scale.tsv``: the featurizer, every scene
method's crop model, hard negatives and refit, and the detections in both
test sets), from the cached UIUC cars. ``--time-split`` builds the
time-split validation instead (``results/metabolic/time_split_validation.tsv``:
the whole metabolic pipeline on the older release of
``metabolic.time_split``, then its orphans scored against the newer
release's genes). ``--out FILE`` also writes the
table to FILE as a markdown section stamped with the commit, date, machine
and command (appended, or replacing the section of the same command).

Prints a markdown table with the issue's targets (20 min and 4 GB for the
whole target with 2 cores; 2 min for the scoring; 20 min for both scene
targets; 20 min more for the time split).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
import yaml
from geomargin.common.cli import mirror_dir
from geomargin.report.results_pages import machine, run_commit

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CONFIG = REPO / "config" / "config.yaml"
TARGET = "results/enzyme_ranking.tsv"
TIME_SPLIT_TARGET = "results/metabolic/time_split_validation.tsv"
SCENE_TARGETS = ("results/vision/scene_detection.tsv", "results/vision/scene_detection_scale.tsv")
# the per-run CPU sum of the steps that score older releases' orphans (and choose on them)
SCORING = "the scoring of older orphans and the choice"


#: The suffix of the ``benchmark:`` file every rule writes beside its log.
BENCHMARK_SUFFIX = ".benchmark.tsv"

#: Seconds between samples of the summed RSS (cheap: ``/proc/PID/statm``).
RSS_INTERVAL = 0.2
#: Seconds between samples of the summed PSS. The kernel computes PSS by
#: walking each process's page tables (``/proc/PID/smaps_rollup``), at a CPU
#: cost that grows with the memory resident: sampled as often as the RSS
#: beside a large job, the sampler would take CPU from the run it measures
#: (the table states the sampler's own CPU seconds).
PSS_INTERVAL = 2.0


def process_tree(proc) -> list:
    """``proc`` (a :class:`psutil.Process`) and all its descendants ([] once
    it has ended)."""
    try:
        return [proc, *proc.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def tree_memory(procs: list, pss: bool = True) -> tuple[int, int]:
    """Resident bytes of ``procs``: summed RSS, and summed PSS (proportional
    set size: a page shared by k processes counts 1/k in each, so pages a
    forked worker shares with its parent count once), 0 unless ``pss``. A
    process that ended meanwhile, or may not be read, counts 0."""
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


def run_sampled(cmd: list[str], log: Path) -> tuple[float, float, int, int, float, int, float]:
    """Run ``cmd``; return (wall seconds, CPU seconds of it and all its
    descendants, peak summed RSS bytes (every :data:`RSS_INTERVAL` s), peak
    summed PSS bytes (every :data:`PSS_INTERVAL` s), seconds from the start
    at that PSS peak, exit code, CPU seconds the sampling itself took)."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    own = time.process_time()
    with open(log, "w") as fh:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT)
        ps = psutil.Process(proc.pid)
        peak = peak_pss = 0
        peak_at, next_pss = 0.0, 0.0
        while proc.poll() is None:
            now = time.perf_counter() - start
            with_pss = now >= next_pss
            rss, pss = tree_memory(process_tree(ps), pss=with_pss)
            peak = max(peak, rss)
            if with_pss:
                next_pss = now + PSS_INTERVAL
                if pss > peak_pss:
                    peak_pss, peak_at = pss, now
            time.sleep(RSS_INTERVAL)
        wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return wall, cpu, peak, peak_pss, peak_at, proc.returncode, time.process_time() - own


#: A job as Snakemake's log announces it: its log file, then its resources.
JOB = re.compile(r"^\s+log: logs/(\S+)$.*?^\s+resources: .*?\bmem_mb=(\d+)", re.M | re.S)


def older_releases(configs: list[str], time_split: bool) -> list[str]:
    """The input sets whose pipeline the target runs once more as an older
    release (workflow/rules/older_releases.smk): the release history's
    olders when it applies to the configured input set, and with
    ``time_split`` the time split's older release."""
    from geomargin.rank.history import check_release_history

    met: dict = {}
    for c in configs:
        for k, v in (yaml.safe_load(Path(c).read_text()).get("metabolic") or {}).items():
            met[k] = {**met[k], **v} if isinstance(v, dict) and isinstance(met.get(k), dict) else v
    olders = []
    if time_split and met.get("time_split"):
        olders.append(met["time_split"]["older"])
    rh = met.get("release_history")
    if not time_split and rh and met.get("dataset") == rh["test"][1]:
        olders.extend(check_release_history(rh, met["datasets"]).olders)
    return list(dict.fromkeys(olders))


def shown_path(path: Path) -> str:
    """``path`` as the command line shows it: relative to the repository
    when inside it.

    >>> shown_path(REPO / "config" / "paper_kernels.yaml"), shown_path(Path("/elsewhere/c.yaml"))
    ('config/paper_kernels.yaml', '/elsewhere/c.yaml')
    """
    path = path.resolve()
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)


def release_of(step: str) -> str:
    """The release run a step belongs to: ``time_split/<older>/...`` steps
    to that older release; the scoring of older releases' orphans against
    newer releases' genes (``metabolic/time_split``,
    ``metabolic/release_history/...``: no release's own run) to
    :data:`SCORING`; the rest to the configured input set.

    >>> release_of("time_split/yeast_gem_830/metabolic/cv (all methods)"), release_of("metabolic/features")
    ('yeast_gem_830', 'the input set')
    >>> release_of("metabolic/release_history/yeast_gem_860/yeast_gem/time_split") == release_of("metabolic/time_split") == SCORING
    True
    """
    parts = step.split("/")
    if parts[0] == "time_split" and len(parts) > 2:
        return parts[1]
    if parts[0] == "metabolic" and len(parts) > 1 and parts[1].startswith(("time_split", "release_history")):
        return SCORING
    return "the input set"


def step_name(log: str) -> str:
    """The step of a job's log (``logs/``-relative path): the path without
    ``.log``, the cross-validation's per-method jobs as one step."""
    return re.sub(r"/cv_[^/]+$", "/cv (all methods)", log.removesuffix(".log"))


def declared_memory(snakemake_log: str) -> dict[str, int]:
    """Per step, the largest ``mem_mb`` its jobs declared (Snakemake's log of
    the run: each job's ``log:`` line, then its ``resources:`` line). A job
    whose peak exceeds it may be killed where the declaration is enforced
    (``sbatch --mem`` on a cluster)."""
    out: dict[str, int] = {}
    for block in re.split(r"\n(?=\S*rule \w+:)", snakemake_log):
        m = JOB.search(block)
        if m:
            name = step_name(m.group(1))
            out[name] = max(out.get(name, 0), int(m.group(2)))
    return out


def step_table(logs: Path, since: float = 0.0) -> list[tuple[str, int, float, float, int, int]]:
    """Per rule (the log's name without a ``_<wildcard>`` suffix for the
    cross-validation's per-method jobs): (step, jobs, wall s summed, CPU s
    summed, largest peak MB of one job's processes' summed RSS, the same as
    PSS), from the ``benchmark:`` files written after ``since`` (epoch
    seconds); in the order the steps finished."""
    import pandas as pd

    steps: dict[str, list] = {}
    files = [f for f in logs.rglob(f"*{BENCHMARK_SUFFIX}") if f.stat().st_mtime >= since]
    for path in sorted(files, key=lambda f: f.stat().st_mtime):
        record = pd.read_csv(path, sep="\t").iloc[-1]
        name = step_name(path.relative_to(logs).as_posix().removesuffix(BENCHMARK_SUFFIX) + ".log")
        row = steps.setdefault(name, [0, 0.0, 0.0, 0, 0])
        row[0] += 1
        row[1] += float(record["s"])
        row[2] += float(record["cpu_time"])
        row[3] = max(row[3], round(float(record["max_rss"])))
        row[4] = max(row[4], round(float(record["max_pss"])))
    return [(k, *v) for k, v in steps.items()]


def write_section(out: Path, command: str, config: str, table: str) -> None:
    """Write ``table`` into ``out`` as the section of ``command`` (replacing
    that section when present), stamped with commit, date and machine."""
    import datetime

    head = f"## `{command}`"
    stamp = (f"- **commit**: {run_commit(REPO, REPO)}\n- **date**: "
             f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC\n"
             f"- **machine**: {machine()}\n- **config**: {config}\n")
    section = f"{head}\n\n{stamp}\n{table}\n"
    text = out.read_text() if out.exists() else (
        "# Main job: measured speed and memory\n\n<!-- Written by `python benchmarks/bench_main_job.py "
        "--out`; do not edit by hand. -->\n")
    parts = re.split(r"(?m)^(?=## )", text)
    kept = [p for p in parts if not p.startswith(head + "\n")]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(kept).rstrip("\n") + "\n\n" + section)


def main() -> int:
    mirror = str(mirror_dir())
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workdir", type=Path, default=None,
                    help="working directory (default: a new temporary directory)")
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--configfile", type=Path, nargs="+", default=[DEFAULT_CONFIG],
                    help="config files, in order (default: config/config.yaml)")
    ap.add_argument("--out", type=Path, default=None,
                    help="also write the table into this markdown file (one section per command)")
    which = ap.add_mutually_exclusive_group()
    which.add_argument("--dataset", default=None,
                       help="input set of metabolic.datasets to run (default: the config's metabolic.dataset)")
    which.add_argument("--scenes", action="store_true",
                       help="build both scene detection targets instead of the main job")
    which.add_argument("--time-split", action="store_true",
                       help="build the time-split validation instead of the main job")
    args = ap.parse_args()
    if args.scenes:
        targets, first_step = list(SCENE_TARGETS), "vision_scene_featurizer"
    elif args.time_split:
        targets, first_step = [TIME_SPLIT_TARGET], ""
    else:
        targets, first_step = [TARGET], "metabolic_features"
    work = args.workdir or Path(tempfile.mkdtemp(prefix="geomargin-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    snakemake = str(Path(sys.executable).with_name("snakemake"))
    configs = [str(c) for c in args.configfile]
    if args.dataset:
        extra = work / "bench_dataset.yaml"
        extra.write_text(f"metabolic:\n  dataset: {args.dataset}\n")
        configs.append(str(extra))
    # the target comes first: --config and --omit-from take several values
    base = [snakemake, *targets, "-s", str(REPO / "Snakefile"), "-d", str(work), "--cores", str(args.cores),
            "--configfile", *configs,
            "--config", f"data_mirror={mirror}", f"download_dir={work / 'downloads'}"]

    print(f"workdir {work}; fetching the inputs (not timed) ...", file=sys.stderr)
    # every release run's first step is left out: only the fetches run, untimed
    first = [f for f in [first_step] if f] + [f"{o}_metabolic_features"
                                              for o in older_releases(configs, args.time_split)]
    fetch = subprocess.run([*base, "--omit-from", *first],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if fetch.returncode:
        print(fetch.stderr, file=sys.stderr)
        return fetch.returncode
    print(f"building {' '.join(targets)} with --cores {args.cores} (log: {work / 'snakemake.log'}) ...",
          file=sys.stderr)
    started = time.time()
    wall, cpu, peak, peak_pss, peak_at, rc, sampler_cpu = run_sampled(base, work / "snakemake.log")
    if rc:
        print(f"snakemake failed (exit {rc}); see {work / 'snakemake.log'}", file=sys.stderr)
        return rc

    tail = ""
    if not (args.scenes or args.time_split):
        log = work / "logs" / "metabolic" / "enzyme_ranking.log"
        m = re.search(r"scored (\d+) reactions x (\d+) candidates in ([0-9.]+) s", log.read_text())
        scoring = (f"{m.group(1)} orphan reactions x {m.group(2)} candidates: {float(m.group(3)):.1f} s"
                   if m else "(no scoring line in the enzyme_ranking log)")
        tail = f"Scoring {scoring}. "
    dataset = (f" --dataset {args.dataset}" if args.dataset else " --scenes" if args.scenes
               else " --time-split" if args.time_split else "")
    config_names = " ".join(c.name for c in args.configfile)
    # a section per command: a run with other config files than the default gets its own
    more = ("" if [c.resolve() for c in args.configfile] == [DEFAULT_CONFIG]
            else " --configfile " + " ".join(shown_path(c) for c in args.configfile))
    command = f"python benchmarks/bench_main_job.py --cores {args.cores}{dataset}{more}"
    declared = declared_memory((work / "snakemake.log").read_text())
    lines = ["| step | jobs | wall s (summed over jobs) | CPU s | CPU utilisation | peak RSS MB (one job's processes "
             "summed) | peak PSS MB (the same) | declared mem_mb |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    over = []
    per_release: dict[str, float] = {}
    for name, jobs, step_wall, step_cpu, job_rss, job_pss in step_table(work / "logs", since=started):
        per_release[release_of(name)] = per_release.get(release_of(name), 0.0) + step_cpu
        util = f"{100 * step_cpu / step_wall:.0f}%" if step_wall else ""
        mem = declared.get(name)
        if mem is not None and job_rss > mem:
            over.append(f"{name} ({job_rss} MB > {mem})")
        lines.append(f"| {name} | {jobs} | {step_wall:.0f} | {step_cpu:.0f} | {util} | {job_rss} "
                     f"| {job_pss} | {'' if mem is None else mem} |")
    lines.append(f"| **{' + '.join(targets)}, whole target** (--cores {args.cores}; peak = summed over processes) | | "
                 f"{wall:.0f} | {cpu:.0f} | {100 * cpu / wall:.0f}% | {peak / 2**20:.0f} | | |")
    lines.append("")
    lines.append("Steps whose job outgrew the memory it declares (`mem_mb`: `sbatch --mem` on a cluster; a "
                 "job's processes' summed RSS as Snakemake's benchmark samples it, counting pages that forked "
                 "workers share with their parent in each, so an upper bound): " + (", ".join(over) if over else "none") + ".")
    lines.append("")
    lines.append(f"Peak memory with pages shared between processes counted once (summed PSS; forked "
                 f"workers share their parent's pages, which summed RSS counts in each): "
                 f"{peak_pss / 2**20:.0f} MB, {peak_at:.0f} s after the start (sampled every {PSS_INTERVAL:g} s; "
                 f"summed RSS every {RSS_INTERVAL:g} s). The sampling itself took {sampler_cpu:.0f} CPU s, "
                 f"not counted above.")
    lines.append("")
    lines.append("CPU seconds per release run (its steps summed), and of the scoring of older releases' orphans "
                 "against newer releases' genes with the release history's choice: "
                 + ", ".join(f"{k} {v:.0f}" for k, v in per_release.items()) + ".")
    lines.append("")
    lines.append(tail + "Targets (issue #69): the main job with its release history <= 2400 s wall with peak <= "
                 "6144 MB on 2 cores. Targets (issue #31): whole target <= 1200 s with peak <= 4096 MB on the default input "
                 "set (iMM904: <= 600 s); CPU utilisation >= 180% on 2 cores; scoring <= 120 s; both scene "
                 "targets <= 1200 s; the time split <= 1200 s more.")
    table = "\n".join(lines)
    print(f"\n`{command}` (config {config_names})\n\n{table}")
    if args.out:
        write_section(args.out, command, config_names, table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
