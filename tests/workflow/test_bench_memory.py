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


SNAKEMAKE_LOG = """\
Select jobs to execute...

[Tue Dec  1 22:04:11 2026]
localrule vision_scene_model:
    input: results/vision/scenes/featurizer.joblib
    output: results/vision/scenes/infinite_imputation_pca_model.joblib
    log: logs/vision/scene_model_infinite_imputation_pca.log
    jobid: 3
    wildcards: method=infinite_imputation_pca
    priority: 7
    resources: tmpdir=/tmp, runtime=60, mem_mb=8000, mem=8 GB, mem_mib=7630
22:04:18 [vision_scene_model] fitted
[Tue Dec  1 22:04:19 2026]
Finished jobid: 3 (Rule: vision_scene_model)

[Tue Dec  1 22:04:19 2026]
rule metabolic_cv:
    input: results/metabolic/features.pkl
    output: results/metabolic/cv/knn.pkl
    log: logs/metabolic/cv_knn.log
    jobid: 4
    resources: tmpdir=/tmp, runtime=120, mem_mb=8000, mem=8 GB, mem_mib=7630

[Tue Dec  1 22:04:20 2026]
rule metabolic_cv:
    output: results/metabolic/cv/zero.pkl
    log: logs/metabolic/cv_zero.log
    resources: tmpdir=/tmp, runtime=120, mem_mb=9000, mem=9 GB, mem_mib=8583

[Tue Dec  1 22:04:21 2026]
localrule all:
    input: results/enzyme_ranking.tsv
    jobid: 0
    resources: tmpdir=/tmp
"""


def test_declared_memory_per_step_from_the_snakemake_log():
    """The benchmark reads each job's declared mem_mb from Snakemake's log
    under the step name of the job's own log (per-method cross-validations
    as one step, with their largest declaration); a job with no log is no
    step."""
    assert _bench().declared_memory(SNAKEMAKE_LOG) == {
        "vision/scene_model_infinite_imputation_pca": 8000,
        "metabolic/cv (all methods)": 9000,
    }
