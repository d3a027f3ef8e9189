"""The homology block end to end on the toy input set (real Snakemake, real
phmmer): with metabolic.homology_features the searches run once, the
features step reads them, the ranking can be ranked on them and says so,
and the provenance lists the hit table's sha256; without the key none of it
is planned."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from geomargin.common.io import sha256_file
from toy_data import write_toy_inputs
from workflow_helpers import console, run_snakemake, snakemake_cmd, toy_config

pytestmark = pytest.mark.slow

AMINO = list("ACDEFGHIKLMNPQRSTVWY")


def write_toy_proteome(path, genes, seed=0):
    """One random protein family per 8 consecutive genes (each member about
    80% identical to the family's ancestor); a table laid out as yeast-GEM's
    swissprot.tsv, whose name and ec_code columns hold nonsense."""
    rng = np.random.default_rng(seed)
    rows = ["uniprot\tname\tgene_id\tec_code\tMW\tsequence"]
    ancestor = None
    for i, g in enumerate(genes):
        if i % 8 == 0:
            ancestor = rng.choice(AMINO, 150)
        seq = "".join(np.where(rng.random(150) < 0.2, rng.choice(AMINO, 150), ancestor))
        rows.append(f"P{i:05d}\tnonsense {i}\tNAME{i} {g}\t9.9.9.9\t1\t{seq}")
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.fixture(scope="module")
def homology_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("homology_workflow")
    inputs = write_toy_inputs(tmp / "inputs")
    model = json.loads(inputs["model"].read_text())
    genes = sorted(g["id"] for g in model["genes"])
    proteome = write_toy_proteome(tmp / "inputs" / "proteome.tsv", genes)
    config = toy_config(inputs, tmp, methods=["geometric", "zero"], homology_features=True,
                        proteome=f"file:{proteome}")
    config["metabolic"]["param_grids"].pop("mean")
    config["metabolic"]["ranking"]["evidence"] = ["motifs", "subsystem", "compounds", "homology"]
    proc = run_snakemake(tmp, config, "results/enzyme_ranking.tsv")
    assert proc.returncode == 0, console(proc)[-4000:]
    return tmp, inputs, config


def test_homology_end_to_end(homology_run):
    tmp, _, config = homology_run
    hits = tmp / "downloads" / "derived" / "homology_hits.tsv.gz"
    assert hits.is_file()
    names = np.load(tmp / "results" / "metabolic" / "features" / "features.npz")["feature_names"].tolist()
    assert names[-3:] == ["candidate:homology:motif_max", "candidate:homology:compound_max",
                          "candidate:homology:subsystem_max"]
    orphans = pd.read_csv(tmp / "results" / "orphan_reactions.tsv", sep="\t", keep_default_na=False)
    assert orphans["ranked_on"].str.contains("homology").any()
    ranking = pd.read_csv(tmp / "results" / "enzyme_ranking.tsv", sep="\t", keep_default_na=False)
    assert ranking["evidence"].str.contains(r"similar to \S+ .*% of its self-score, E ").any()
    prov = pd.read_csv(tmp / "results" / "metabolic" / "provenance.tsv", sep="\t", keep_default_na=False)
    row = prov[(prov["kind"] == "input") & (prov["name"] == "homology")]["value"].iloc[0]
    assert f"sha256={sha256_file(hits)}" in row


def test_without_the_key_nothing_of_it_is_planned(homology_run, tmp_path):
    _, inputs, _ = homology_run
    config = toy_config(inputs, tmp_path)
    import subprocess

    proc = subprocess.run(snakemake_cmd(tmp_path, config, "results/enzyme_ranking.tsv", extra=("-n",)),
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "metabolic_homology" not in proc.stdout + proc.stderr
