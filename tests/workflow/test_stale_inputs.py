"""Results follow the *content* of every input: a file replaced by one with
other content but an older time stamp (as `cp -p`, `rsync -a` or a download
that keeps the server's time stamp leave it) reruns the work that read it,
and the provenance names the checksum of the file that was used."""

from __future__ import annotations

import hashlib
import os

import pandas as pd
import pytest

from toy_data import write_toy_inputs
from workflow_helpers import MAIN_TARGET, TRACEBACK, console, run_snakemake, small_config

pytestmark = pytest.mark.slow

PROVENANCE = "results/metabolic/provenance.tsv"
OLD = (946684800, 946684800)   # 2000-01-01: older than every result


def _sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _move_profiles(expr) -> None:
    """Other content for the expression table (each gene's profile moved to
    another gene), with a time stamp older than every result."""
    table = pd.read_csv(expr, sep="\t")
    table.iloc[:, 1:] = table.iloc[:, 1:].to_numpy()[::-1]
    table.to_csv(expr, sep="\t", index=False)
    os.utime(expr, OLD)


def test_replaced_input_with_older_mtime_is_rerun(tmp_path):
    inputs = write_toy_inputs(tmp_path / "inputs")
    config = small_config(inputs, tmp_path)
    proc = run_snakemake(tmp_path, config, MAIN_TARGET)
    assert proc.returncode == 0, console(proc)[-3000:]
    expr = inputs["expression"]
    old_sha = _sha(expr)
    _move_profiles(expr)
    assert _sha(expr) != old_sha
    proc = run_snakemake(tmp_path, config, MAIN_TARGET)
    out = console(proc)
    assert proc.returncode == 0, out[-3000:]
    assert "Nothing to be done" not in out and "metabolic_features" in out
    prov = pd.read_csv(tmp_path / PROVENANCE, sep="\t", keep_default_na=False)
    values = prov["value"].astype(str)
    assert values.str.contains(_sha(expr)).any()
    assert not values.str.contains(old_sha).any()
    # and a third run has nothing left to do
    proc = run_snakemake(tmp_path, config, MAIN_TARGET)
    assert proc.returncode == 0 and "Nothing to be done" in console(proc)


def test_input_changed_after_it_was_read_is_not_published(tmp_path):
    """The expression table rewritten after the features step read it and
    before the results are published: the publish stops naming the file and
    both checksums, the earlier results keep their bytes and mtimes, and the
    next run computes from the new content and names its checksum.

    A run already past the features step is made by going by time stamps
    only (the rewritten file gets an old one, so the features stay as they
    were read) and forcing the ranking step, and so every step after it, to
    run. Rerunning the features step alone instead would not do: Snakemake
    skips the steps after it when its outputs come out with the same bytes,
    which a pickle does or does not depending on the hash seed."""
    inputs = write_toy_inputs(tmp_path / "inputs")
    config = small_config(inputs, tmp_path)
    proc = run_snakemake(tmp_path, config, MAIN_TARGET)
    assert proc.returncode == 0, console(proc)[-3000:]
    before = {rel: ((tmp_path / rel).read_bytes(), (tmp_path / rel).stat().st_mtime_ns)
              for rel in (MAIN_TARGET, PROVENANCE)}
    expr = inputs["expression"]
    old_sha = _sha(expr)
    _move_profiles(expr)
    new_sha = _sha(expr)
    proc = run_snakemake(tmp_path, config, MAIN_TARGET,
                         extra=["--rerun-triggers=mtime", "--forcerun=enzyme_ranking"])
    out = console(proc)
    assert proc.returncode != 0 and TRACEBACK not in out, out[-3000:]
    assert "Error in rule metabolic_inputs_read" in out and "rule metabolic_provenance:" not in out
    assert (f"InputFileError: {expr}: changed after the features step read it (sha256 {old_sha} when read, "
            f"{new_sha} now) (the results describe the content read; run the workflow again to compute them "
            "from the file as it is now)") in out
    for rel, (data, mtime) in before.items():
        assert (tmp_path / rel).read_bytes() == data and (tmp_path / rel).stat().st_mtime_ns == mtime, rel
    proc = run_snakemake(tmp_path, config, MAIN_TARGET)
    assert proc.returncode == 0, console(proc)[-3000:]
    values = pd.read_csv(tmp_path / PROVENANCE, sep="\t", keep_default_na=False)["value"].astype(str)
    assert values.str.contains(f"{expr} sha256={new_sha} ").any() and not values.str.contains(old_sha).any()
    read = pd.read_csv(tmp_path / "results/metabolic/features/inputs_read.tsv", sep="\t")
    assert read.set_index("role").at["expression", "sha256"] == new_sha


SCENE_TABLE = "results/vision/scene_detection.tsv"


def _vision_config(tmp_path, cars):
    from test_vision_workflow import vision_config
    from workflow_helpers import toy_config

    config = toy_config(write_toy_inputs(tmp_path / "inputs"), tmp_path)
    config["vision"] = vision_config(config, cars)
    return config


def _age(*paths):
    """Give ``paths`` an old time stamp, as `cp -p` or `rsync -a` leave it."""
    for p in paths:
        os.utime(p, OLD)


def test_vision_folder_content_is_tracked(tmp_path):
    """With file:DIR as the car data, a file rewritten or deleted inside the
    folder (its own and the folder's time stamps left old) reruns what read
    it, and the rerun equals a run made on the changed folder from scratch."""
    from toy_vision import write_toy_cars

    cars = tmp_path / "inputs" / "uiuc_cars"
    write_toy_cars(cars)
    config = _vision_config(tmp_path, cars)
    work = tmp_path / "work"
    work.mkdir()
    proc = run_snakemake(work, config, SCENE_TABLE)
    assert proc.returncode == 0, console(proc)[-3000:]
    # the ground truth rewritten: scene 0's car moved out of reach of any detection
    truth = cars / "trueLocations.txt"
    lines = truth.read_text().splitlines(keepends=True)
    truth.write_text("0: (60,0)\n" + "".join(lines[1:]))
    _age(truth, cars)
    proc = run_snakemake(work, config, SCENE_TABLE)
    out = console(proc)
    assert proc.returncode == 0, out[-3000:]
    assert "Nothing to be done" not in out and "vision_scene_detection" in out
    assert pd.read_csv(work / SCENE_TABLE, sep="\t")["recall"].max() == pytest.approx(2 / 3)
    # training crops deleted: the featurizer is fitted again
    for k in range(5):
        (cars / "TrainImages" / f"pos-{k}.pgm").unlink()
    _age(cars / "TrainImages", cars)
    proc = run_snakemake(work, config, SCENE_TABLE)
    out = console(proc)
    assert proc.returncode == 0, out[-3000:]
    assert "vision_scene_featurizer" in out
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    proc = run_snakemake(fresh, config, SCENE_TABLE)
    assert proc.returncode == 0, console(proc)[-3000:]
    assert (work / SCENE_TABLE).read_bytes() == (fresh / SCENE_TABLE).read_bytes()
    proc = run_snakemake(work, config, SCENE_TABLE)
    assert proc.returncode == 0 and "Nothing to be done" in console(proc)
    # a truncated ground truth: the scenes without their line are named
    truth.write_text(lines[0] + lines[2])
    _age(truth, cars)
    proc = run_snakemake(work, config, SCENE_TABLE)
    out = console(proc)
    assert proc.returncode != 0 and TRACEBACK not in out, out[-3000:]
    assert (f"InputFileError: {truth}: has no line for 1 of the 3 scenes in TestImages/ (test-1.pgm) "
            "(every test image needs its line 'n: (row,col) ...', with no locations for an image "
            "without cars)") in out
