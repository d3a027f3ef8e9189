"""What the scheduler is told about the per-method jobs: in a dry run of the
default configuration, the jobs of one stage that take longest start first
(their ``priority``, common.smk's ``longest_first``), and each job declares
memory enough for its own peak (``mem_mb``: ``sbatch --mem`` on a cluster)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SNAKEMAKE = Path(sys.executable).with_name("snakemake")


@pytest.fixture(scope="module")
def planned(tmp_path_factory) -> dict[str, dict[str, tuple[int, int]]]:
    """rule -> {method: (priority, mem_mb)} of a dry run of the scene targets
    and the main job with the default configuration (nothing is fetched)."""
    work = tmp_path_factory.mktemp("dry")
    proc = subprocess.run(
        [str(SNAKEMAKE), "-n", "-s", str(REPO / "Snakefile"), "-d", str(work),
         "--configfile", str(REPO / "config" / "config.yaml"), "--cores", "2",
         "results/vision/scene_detection.tsv", "results/enzyme_ranking.tsv"],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    jobs: dict[str, dict[str, tuple[int, int]]] = {}
    for block in re.split(r"\n(?=\S*rule \w+:)", proc.stdout + proc.stderr):
        rule = re.match(r"\S*rule (\w+):", block)
        method = re.search(r"^\s+wildcards: method=(\w+)", block, re.M)
        if rule and method:
            prio = re.search(r"^\s+priority: (\d+)", block, re.M)
            mem = re.search(r"\bmem_mb=(\d+)", block)
            jobs.setdefault(rule.group(1), {})[method.group(1)] = (int(prio.group(1)) if prio else 0,
                                                                   int(mem.group(1)))
    return jobs


def _order(jobs: dict[str, tuple[int, int]]) -> list[str]:
    """Methods with a priority, highest first."""
    return [m for m, (p, _) in sorted(jobs.items(), key=lambda kv: -kv[1][0]) if p > 0]


def test_longest_jobs_of_each_stage_start_first(planned):
    assert _order(planned["vision_scene_model"])[:3] == ["infinite_imputation_pca", "geometric",
                                                          "robust_socp_pca"]
    assert _order(planned["vision_scene_crop_model"])[:3] == ["hgb", "geometric", "infinite_imputation_pca"]
    assert _order(planned["metabolic_cv"])[:2] == ["knn", "robust_socp_pca"]
    # every method of each stage is planned, listed or not
    assert len(planned["vision_scene_model"]) == len(planned["vision_scene_crop_model"]) == 12


def test_dick_et_al_scene_refit_declares_its_kernels(planned):
    """Up to 50 kernels of 4050 x 4050 float64 (6.6 GB); the other refits
    keep the rule's 4000 MB."""
    mem = {m: mb for m, (_, mb) in planned["vision_scene_model"].items()}
    assert mem.pop("infinite_imputation_pca") == 8000
    assert set(mem.values()) == {4000}
