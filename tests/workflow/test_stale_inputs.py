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
from workflow_helpers import MAIN_TARGET, console, run_snakemake, small_config

pytestmark = pytest.mark.slow

PROVENANCE = "results/metabolic/provenance.tsv"


def _sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_replaced_input_with_older_mtime_is_rerun(tmp_path):
    inputs = write_toy_inputs(tmp_path / "inputs")
    config = small_config(inputs, tmp_path)
    proc = run_snakemake(tmp_path, config, MAIN_TARGET)
    assert proc.returncode == 0, console(proc)[-3000:]
    expr = inputs["expression"]
    old_sha = _sha(expr)
    # other content (each gene's profile moved to another gene), time stamp
    # older than every result
    table = pd.read_csv(expr, sep="\t")
    table.iloc[:, 1:] = table.iloc[:, 1:].to_numpy()[::-1]
    table.to_csv(expr, sep="\t", index=False)
    os.utime(expr, (946684800, 946684800))   # 2000-01-01
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
