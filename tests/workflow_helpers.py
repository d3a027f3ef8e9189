"""Helpers shared by the tests that run the real Snakemake workflow on the
small synthetic input set of :mod:`toy_data` in a temporary directory."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from pathlib import Path

import yaml

from toy_data import write_toy_inputs

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = Path(sys.executable).with_name("snakemake")
MAIN_TARGET = "results/enzyme_ranking.tsv"
# The three user-facing outputs of the enzyme-ranking job.
MAIN_OUTPUTS = (
    "results/enzyme_ranking.tsv",
    "results/metabolic/accuracy.tsv",
    "results/metabolic/ranking_validation.tsv",
)
# Wall-clock columns (accuracy.tsv has fit_seconds_mean; the per-fold tables
# fit_seconds and select_seconds): the only columns allowed to differ between
# two runs of the same config.
TIMING_COLUMNS = ("fit_seconds_mean", "fit_seconds", "select_seconds")


def toy_config(inputs: dict, tmp: Path, **overrides) -> dict:
    """A complete workflow config for the toy inputs; ``overrides`` replace
    keys of its ``metabolic`` section."""
    defaults = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config = {
        "data_mirror": "",
        "download_dir": str(tmp / "downloads"),
        "seed": 0,
        "metabolic": {
            "dataset": "toy",
            "datasets": {
                "toy": {
                    "network": f"file:{inputs['model']}",
                    "expression": [f"file:{inputs['expression']}"],
                    "annotation": f"file:{inputs['annotation']}",
                    "localization": "gaf",
                }
            },
            "n_currency": 0,
            "extra_currency": [],
            # the toy network's own genes as impostors (the tests' expectations were written for it)
            "impostor_pool": "network",
            "min_domain_genes": 2,
            "negatives_per_positive": 1,
            "methods": ["geometric", "zero", "mean"],
            "n_splits": 3,
            "val_fraction": 0.25,
            "param_grids": {
                "geometric": [{"kernel": "linear", "C": 1.0, "n_iter": 2},
                              {"kernel": "linear", "C": 0.1, "n_iter": 2}],
                "zero": [{"kernel": "linear", "C": 1.0}],
                "mean": [{"kernel": "linear", "C": 1.0}],
            },
            "ranking": {
                "method": "geometric",
                "top_n": 3,
                "candidates": "all",
                "validation_methods": ["geometric", "zero"],
                "batch_size": 16,
                "validation_reactions_per_fold": 0,
            },
        },
    }
    config["metabolic"].update(overrides)
    config["vision"] = copy.deepcopy(defaults["vision"])
    config["mcar"] = copy.deepcopy(defaults["mcar"])
    return config


#: What a crash looks like on the console (no input error may show one).
TRACEBACK = "Traceback (most recent call last)"


def small_config(inputs: dict, tmp: Path, seed: int = 0) -> dict:
    """The toy config with two methods (keeps each full run short)."""
    config = toy_config(inputs, tmp, methods=["geometric", "zero"])
    config["metabolic"]["param_grids"].pop("mean")
    config["seed"] = seed
    return config


def console(proc) -> str:
    """Everything a run printed (Snakemake 9 prints its errors on stdout)."""
    return proc.stdout + proc.stderr


def snakemake_cmd(workdir: Path, config: dict, *targets: str, extra=()) -> list[str]:
    """Write ``config`` to ``workdir/config.yaml``; return the snakemake command line.

    ``extra`` comes before the targets, so an option that takes several
    values must be given as one item, ``--opt=value``: ``--forcerun X``
    would take the targets as more rule names."""
    cfg = Path(workdir) / "config.yaml"
    cfg.write_text(yaml.safe_dump(config))
    return [str(SNAKEMAKE), "-s", str(REPO / "Snakefile"), "--directory", str(workdir),
            "--configfile", str(cfg), "--cores", "2", *extra, *targets]


def run_snakemake(workdir: Path, config: dict, *targets: str, extra=(), env=None,
                  timeout: float = 900) -> subprocess.CompletedProcess:
    """Run the workflow in ``workdir`` with ``config``; ``env`` entries are
    added to the current environment."""
    full_env = None if env is None else {**os.environ, **env}
    cmd = snakemake_cmd(workdir, config, *targets, extra=extra)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=full_env)


def output_bytes(workdir: Path, rel: str) -> bytes:
    """The bytes of output ``rel``, with the :data:`TIMING_COLUMNS` of a TSV
    removed (they hold wall-clock times, which no two runs share)."""
    data = (Path(workdir) / rel).read_bytes()
    if not rel.endswith(".tsv"):
        return data
    lines = data.split(b"\n")
    header = lines[0].split(b"\t")
    drop = {i for i, name in enumerate(header) if name.decode() in TIMING_COLUMNS}
    if not drop:
        return data
    return b"\n".join(b"\t".join(c for i, c in enumerate(line.split(b"\t")) if i not in drop)
                      if line else line for line in lines)


def main(argv=None) -> int:
    """``python tests/workflow_helpers.py DIR``: write the toy inputs and a
    complete config (DIR/config.yaml) for running the real workflow on them,
    e.g. through SLURM in CI."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("workdir", type=Path)
    args = parser.parse_args(argv)
    args.workdir.mkdir(parents=True, exist_ok=True)
    inputs = write_toy_inputs(args.workdir / "inputs")
    config = toy_config(inputs, args.workdir)
    (args.workdir / "config.yaml").write_text(yaml.safe_dump(config))
    print(args.workdir / "config.yaml")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
