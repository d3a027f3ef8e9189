"""Faults and bad input, on the real workflow with the toy inputs: nothing lost.

* A run killed (SIGKILL of its whole process group) during cross-validation
  and restarted (`--unlock`, then `--rerun-incomplete`) completes, keeps the
  work finished before the kill, and its outputs equal an uninterrupted run's.
* A run killed while it publishes its results (the last job) leaves the
  previous complete set of results, or the new complete set, never a mix and
  never a missing file; restarted, it publishes the new set.
* A rerun that would publish with too little free space (a small tmpfs, or
  free space reported short) stops before the publish job with one line
  naming the folder, the space needed and the space free; the published set
  keeps its bytes and mtimes, and the next run with space publishes.
* Two runs with the same seed give identical outputs; another seed draws other
  impostor pairs.
* A corrupt or mismatched input stops the run, exits non-zero, names the file
  in the job's log, and leaves the results of an earlier run untouched.
* A sha256 mismatch in the mirror, and a missing mirror without network, give
  the fetch message (file, sources, how to set a mirror), not a traceback.

"Identical" means byte-identical after removing the wall-clock columns named
in ``workflow_helpers.TIMING_COLUMNS`` (accuracy.tsv's ``fit_seconds_mean``):
they are the only columns that may differ, and the tests check they exist.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from geomargin.common.publish import SPACE_MARGIN, _human
from workflow_helpers import (MAIN_OUTPUTS, MAIN_TARGET, REPO, TRACEBACK, console, output_bytes,
                              run_snakemake, small_config, snakemake_cmd)

pytestmark = pytest.mark.slow

INSTANCES = "results/metabolic/features/instances.tsv"
FEATURES = "results/metabolic/features/features.npz"
PROVENANCE = "results/metabolic/provenance.tsv"  # inputs, sha256, versions of the run
COMPARED = (*MAIN_OUTPUTS, INSTANCES, PROVENANCE)
# No network for the fetch tests, deterministically and without touching it:
# pip may not use an index (and reads no config file that could add one), and
# urllib goes through a proxy on the discard port of localhost, which refuses.
OFFLINE_ENV = {
    "PIP_NO_INDEX": "1",
    "PIP_INDEX_URL": "http://127.0.0.1:9/simple",
    "PIP_CONFIG_FILE": os.devnull,
    "http_proxy": "http://127.0.0.1:9",
    "https_proxy": "http://127.0.0.1:9",
    "HTTP_PROXY": "http://127.0.0.1:9",
    "HTTPS_PROXY": "http://127.0.0.1:9",
    "no_proxy": "",
    "NO_PROXY": "",
    "GEOMARGIN_DATA_MIRROR": "",
}




def assert_same_outputs(dir_a: Path, dir_b: Path) -> None:
    for rel in COMPARED:
        assert output_bytes(dir_a, rel) == output_bytes(dir_b, rel), f"{rel} differs"
    a, b = np.load(dir_a / FEATURES), np.load(dir_b / FEATURES)
    for key in ["X", "y", "groups", "feature_names", "instance_group", "fold_group"]:
        np.testing.assert_array_equal(a[key], b[key], err_msg=f"features.npz[{key!r}] differs")


# ----------------------------------------------------------------- full runs
# (the toy_inputs and reference_run fixtures are in conftest.py)
def test_identical_comparison_drops_only_the_timing_column(reference_run):
    header = (reference_run / "results/metabolic/accuracy.tsv").read_text().splitlines()[0]
    assert "fit_seconds_mean" in header.split("\t")
    for rel in ["results/enzyme_ranking.tsv", "results/metabolic/ranking_validation.tsv", INSTANCES]:
        assert output_bytes(reference_run, rel) == (reference_run / rel).read_bytes()


def test_same_seed_twice_gives_identical_outputs(tmp_path, toy_inputs, reference_run):
    proc = run_snakemake(tmp_path, small_config(toy_inputs, tmp_path), MAIN_TARGET)
    assert proc.returncode == 0, console(proc)[-4000:]
    assert_same_outputs(reference_run, tmp_path)


def test_other_seed_draws_other_impostor_pairs(tmp_path, toy_inputs, reference_run):
    proc = run_snakemake(tmp_path, small_config(toy_inputs, tmp_path, seed=1), INSTANCES)
    assert proc.returncode == 0, console(proc)[-4000:]
    ref = pd.read_csv(reference_run / INSTANCES, sep="\t")
    other = pd.read_csv(tmp_path / INSTANCES, sep="\t")
    assert (tmp_path / INSTANCES).read_bytes() != (reference_run / INSTANCES).read_bytes()

    def pairs(df, label):
        return set(map(tuple, df.loc[df["label"] == label, ["reaction", "gene"]].to_numpy()))

    # positives are every (reaction, gene) of the model: not random
    assert pairs(ref, 1) == pairs(other, 1)
    # impostors are drawn with the seed: same number, other pairs
    assert len(pairs(ref, 0)) == len(pairs(other, 0)) > 0
    assert pairs(ref, 0) != pairs(other, 0)


def _processes_under(directory: Path) -> list[int]:
    """PIDs whose command line mentions ``directory`` (snakemake and its jobs)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if str(directory) in cmdline and int(entry.name) != os.getpid():
                pids.append(int(entry.name))
    return pids


def _run_and_kill_when(cmd: list[str], out_path: Path, started, never: str) -> None:
    """Run ``cmd`` in a new session, its output in ``out_path``; as soon as
    ``started()`` is true, SIGKILL the whole process group (everything the
    run started). Fails with ``never`` if that does not happen in 10 min."""
    with open(out_path, "w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            deadline = time.monotonic() + 600
            while not started():
                assert proc.poll() is None, out_path.read_text()[-3000:]
                assert time.monotonic() < deadline, never
                time.sleep(0.01)
        finally:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=60)


def test_killed_during_cross_validation_then_restarted(tmp_path, toy_inputs, reference_run):
    config = small_config(toy_inputs, tmp_path)
    # kill at once: the toy cross-validation takes about a second once its
    # log exists (the log opens after the script's imports)
    _run_and_kill_when(snakemake_cmd(tmp_path, config, MAIN_TARGET), tmp_path / "killed_run.out",
                       lambda: list((tmp_path / "logs/metabolic").glob("cv_*.log")),
                       "cross-validation never started")
    time.sleep(0.5)
    left = _processes_under(tmp_path)
    for pid in left:  # a job that left the group: started by this test, end it
        os.kill(pid, signal.SIGKILL)
    assert not left, f"processes of the killed run survived the group kill: {left}"

    # the kill hit cross-validation: features done, CV unfinished, nothing after it
    assert (tmp_path / FEATURES).is_file()
    assert not all((tmp_path / f"results/metabolic/cv/{m}.pkl").is_file() for m in ["geometric", "zero"])
    for rel in MAIN_OUTPUTS:
        assert not (tmp_path / rel).exists(), rel
    features_mtime = (tmp_path / FEATURES).stat().st_mtime_ns

    # SIGKILL leaves Snakemake's lock: the documented recovery is --unlock,
    # then the same command with --rerun-incomplete.
    unlock = run_snakemake(tmp_path, config, MAIN_TARGET, extra=["--unlock"])
    assert unlock.returncode == 0, console(unlock)[-3000:]
    rerun = run_snakemake(tmp_path, config, MAIN_TARGET, extra=["--rerun-incomplete"])
    assert rerun.returncode == 0, console(rerun)[-4000:]
    # work finished before the kill is kept, not redone
    assert (tmp_path / FEATURES).stat().st_mtime_ns == features_mtime
    assert "rule metabolic_features:" not in console(rerun)
    assert_same_outputs(reference_run, tmp_path)


# Every path the publish job writes (workflow/rules/metabolic.smk, metabolic_provenance).
PUBLISHED = ("results/enzyme_ranking.tsv", "results/enzyme_ranking_quality.tsv",
             "results/orphan_reactions.tsv", "results/enzyme_ranking.html",
             "results/metabolic/accuracy.tsv", "results/metabolic/accuracy.png",
             "results/metabolic/ranking_validation.tsv", PROVENANCE)


def _published_view(workdir: Path) -> dict:
    return {rel: ((workdir / rel).read_bytes(), (workdir / rel).stat().st_mtime_ns)
            if (workdir / rel).is_file() else None for rel in PUBLISHED}


def test_killed_during_publish_keeps_a_complete_set(tmp_path, toy_inputs, reference_run):
    workdir = tmp_path / "run"
    shutil.copytree(reference_run, workdir, symlinks=True)
    config = small_config(toy_inputs, workdir)
    config["metabolic"]["ranking"]["top_n"] = 2  # a new ranking: reruns the last jobs
    before = _published_view(workdir)
    assert all(before.values())
    log = workdir / "logs/metabolic/provenance.log"
    log.unlink()  # it reappears when the publish script has started
    _run_and_kill_when(snakemake_cmd(workdir, config, MAIN_TARGET), tmp_path / "killed_run.out",
                       log.exists, "the publish job never started")
    killed = _published_view(workdir)
    assert "rule metabolic_provenance:" in (tmp_path / "killed_run.out").read_text()

    unlock = run_snakemake(workdir, config, MAIN_TARGET, extra=["--unlock"])
    assert unlock.returncode == 0, console(unlock)[-3000:]
    rerun = run_snakemake(workdir, config, MAIN_TARGET, extra=["--rerun-incomplete"])
    assert rerun.returncode == 0, console(rerun)[-4000:]
    after = _published_view(workdir)
    assert after["results/enzyme_ranking.tsv"][0] != before["results/enzyme_ranking.tsv"][0]
    prov = pd.read_csv(workdir / PROVENANCE, sep="\t").set_index("name")
    assert json.loads(prov.loc["metabolic", "value"])["ranking"]["top_n"] == 2

    missing = [rel for rel, v in killed.items() if v is None]
    assert not missing, f"the killed publish lost {missing}"
    if killed != before:  # not the old set (bytes and mtimes): then the whole new set
        assert {rel: v[0] for rel, v in killed.items()} == {rel: v[0] for rel, v in after.items()}, \
            "the killed publish left a mix of two runs' results"
    # one generation of the set is kept, nothing half-written
    store = workdir / "results/.published"
    assert len([p for p in store.iterdir() if p.name.startswith("set-")]) == 1


# ------------------------------------------------------- full disk while publishing
# The jobs of a run with too little free space see shutil.disk_usage report
# GEOMARGIN_TEST_FREE_BYTES free (this module first on their PYTHONPATH).
SHORT_DISK_SITECUSTOMIZE = """import os, shutil
_disk_usage = shutil.disk_usage
def disk_usage(path):
    usage = _disk_usage(path)
    return usage._replace(free=min(usage.free, int(os.environ["GEOMARGIN_TEST_FREE_BYTES"])))
shutil.disk_usage = disk_usage
"""


def _published_links(workdir: Path) -> dict[str, tuple[bytes, int]]:
    """Every published path of the main job (a link into results/.published/):
    its bytes and mtime."""
    return {str(p.relative_to(workdir)): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted((workdir / "results").rglob("*"))
            if p.is_symlink() and p.is_file() and ".published" not in p.parts}


@contextlib.contextmanager
def _small_disk(directory: Path, size: str = "8m"):
    """A tmpfs of ``size`` mounted on ``directory``, unmounted after."""
    directory.mkdir()
    try:
        proc = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(directory)],
                              capture_output=True, text=True)
    except FileNotFoundError:
        pytest.skip("a real full disk needs a small file system: no mount command")
    if proc.returncode != 0:
        pytest.skip("a real full disk needs a small file system: mounting a tmpfs was refused "
                    f"({proc.stderr.strip() or proc.returncode}; it needs root with CAP_SYS_ADMIN)")
    try:
        yield directory
    finally:
        if subprocess.run(["umount", str(directory)]).returncode != 0:
            subprocess.run(["umount", "-l", str(directory)], check=True)


@pytest.mark.parametrize("disk, free_share", [("tmpfs", 0.5), ("tmpfs", 1.5), ("reported", 0.5)],
                         ids=["tmpfs-backup-too-big", "tmpfs-new-set-too-big", "reported-free-space"])
def test_full_disk_stops_before_the_publish(tmp_path, toy_inputs, reference_run, disk, free_share):
    """#71, class 6. A rerun that would publish a new set with too little
    free space stops before the publish job, with one line naming the folder,
    the space needed (the new set, Snakemake's copy of the published set in
    .snakemake/backups/, the margin) and the space free; the published set
    keeps its bytes and mtimes, and the next run with space publishes.

    ``free_share`` is the free space as a share of the published set's
    bytes: below 1 Snakemake's own copy of the published set fails (a raw
    traceback before the check); at 1.5 that copy fits and the new set does
    not (a raw OSError in the publish job, then Snakemake copies the old set
    back through its links: new mtimes). ``tmpfs``: the run is on a small
    file system filled to that free space; ``reported``: the jobs are told
    that much is free (any machine)."""
    with contextlib.ExitStack() as stack:
        workdir = tmp_path / "run"
        if disk == "tmpfs":
            workdir = stack.enter_context(_small_disk(tmp_path / "disk")) / "run"
        shutil.copytree(reference_run, workdir, symlinks=True)
        before = _published_links(workdir)
        assert len(before) == 12
        published_bytes = sum(len(data) for data, _ in before.values())
        free = int(free_share * published_bytes)
        env = None
        if disk == "tmpfs":
            filler = workdir.parent / "filler"
            filler.write_bytes(b"\0" * (shutil.disk_usage(workdir).free - free))
        else:
            (tmp_path / "site").mkdir()
            (tmp_path / "site" / "sitecustomize.py").write_text(SHORT_DISK_SITECUSTOMIZE)
            env = {"PYTHONPATH": os.pathsep.join([str(tmp_path / "site"), os.environ.get("PYTHONPATH", "")]),
                   "GEOMARGIN_TEST_FREE_BYTES": str(free)}
        config = small_config(toy_inputs, workdir)
        config["metabolic"]["ranking"]["top_n"] = 2  # a new ranking to publish
        proc = run_snakemake(workdir, config, MAIN_TARGET, env=env, timeout=600)
        out = console(proc)
        assert proc.returncode != 0 and TRACEBACK not in out, out[-4000:]
        # the new set: each staged file (the provenance, made by the publish job, at its present size)
        staged = workdir / "results/metabolic/staged"
        new = sum((staged / Path(rel).name).stat().st_size if (staged / Path(rel).name).is_file()
                  else len(before[rel][0]) for rel in before)
        line = (re.escape(f"[metabolic_publish_space] DiskSpaceError: results/: publishing needs "
                          f"{_human(new + published_bytes + SPACE_MARGIN)} (the new set {_human(new)}, Snakemake's "
                          f"copy of the published set in .snakemake/backups/ {_human(published_bytes)}, "
                          f"{_human(SPACE_MARGIN)} to spare), ")
                # the free space the check saw: on the tmpfs, what the jobs before it left
                + (re.escape(_human(free)) if disk == "reported" else r"[0-9.]+ k?B")
                + re.escape(" free; free space there and rerun\n"))
        assert re.search(line, out), out[-4000:]
        assert "Error in rule metabolic_publish_space" in out and "rule metabolic_provenance:" not in out
        assert _published_links(workdir) == before  # bytes and mtimes
        assert not (workdir / ".snakemake/backups").exists() or not any((workdir / ".snakemake/backups").iterdir())

        # with the space freed, the next run publishes the new set
        if disk == "tmpfs":
            filler.unlink()
        rerun = run_snakemake(workdir, config, MAIN_TARGET, timeout=600)
        assert rerun.returncode == 0, console(rerun)[-4000:]
        prov = pd.read_csv(workdir / PROVENANCE, sep="\t").set_index("name")
        assert json.loads(prov.loc["metabolic", "value"])["ranking"]["top_n"] == 2
        assert (workdir / "results/enzyme_ranking.tsv").read_bytes() != before["results/enzyme_ranking.tsv"][0]
        assert not (workdir / "results/metabolic/staged/publish_space.txt").exists()  # temp(): checked again next time


# ------------------------------------------------------------- bad inputs
def _truncated_sbml(inputs: dict, directory: Path) -> Path:
    import cobra

    from geomargin.featurize.metabolic.model_io import load_model

    model = cobra.io.load_json_model(str(inputs["model"]))
    intact = directory / "model.xml"
    cobra.io.write_sbml_model(model, str(intact))
    # control: the intact SBML export is a valid model for the workflow
    assert len(load_model(intact).reactions) == len(model.reactions)
    data = intact.read_bytes()
    bad = directory / "model_truncated.xml"
    bad.write_bytes(data[: len(data) // 2])
    return bad


def _non_numeric_expression(inputs: dict, directory: Path) -> Path:
    lines = Path(inputs["expression"]).read_text().splitlines(keepends=True)
    cells = lines[5].split("\t")
    cells[3] = "1.2.3"
    lines[5] = "\t".join(cells)
    bad = directory / "expression_bad.tsv"
    bad.write_text("".join(lines))
    return bad


def _unknown_gene_rule(inputs: dict, directory: Path) -> Path:
    import json

    raw = json.loads(Path(inputs["model"]).read_text())
    rxn = next(r for r in raw["reactions"] if r["gene_reaction_rule"])
    rxn["gene_reaction_rule"] += " or YZZ999W"
    bad = directory / "model_unknown_gene.json"
    bad.write_text(json.dumps(raw))
    return bad


# case -> (make the bad file, config key it replaces, strings the log must hold)
BAD_INPUTS = {
    "truncated_sbml": (_truncated_sbml, "network", ["InputFileError", "not a readable SBML file"]),
    "non_numeric_expression_cell": (_non_numeric_expression, "expression",
                                    ["InputFileError", "non-numeric value '1.2.3'", "line 6",
                                     "column 'c2'"]),
    "gene_rule_names_unknown_gene": (_unknown_gene_rule, "network",
                                     ["UnknownGeneError", "YZZ999W", "not in the model's 'genes' list"]),
}


@pytest.fixture(scope="module")
def bad_input_runs(tmp_path_factory, toy_inputs, reference_run):
    """Per case: a copy of the finished reference run (results, logs and
    Snakemake's metadata) rerun on the main target with one input replaced by
    a bad file. Returns {case: (workdir, bad file, process, results before)}."""
    root = tmp_path_factory.mktemp("bad_inputs")

    def run(case):
        make, key, _ = BAD_INPUTS[case]
        workdir = root / case
        shutil.copytree(reference_run, workdir, symlinks=True)
        bad = make(toy_inputs, root)
        config = small_config(toy_inputs, workdir)
        toy = config["metabolic"]["datasets"]["toy"]
        toy[key] = [f"file:{bad}"] if key == "expression" else f"file:{bad}"
        before = {rel: ((workdir / rel).read_bytes(), (workdir / rel).stat().st_mtime_ns)
                  for rel in (*MAIN_OUTPUTS, PROVENANCE)}
        proc = run_snakemake(workdir, config, MAIN_TARGET, timeout=600)
        return case, (workdir, bad, proc, before)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(run, BAD_INPUTS))


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_bad_input_stops_run_names_file_keeps_results(bad_input_runs, case):
    workdir, bad, proc, before = bad_input_runs[case]
    out = console(proc)
    assert proc.returncode != 0, out[-3000:]
    # the featurization job failed; Snakemake points to its log
    assert "Error in rule metabolic_features" in out, out[-3000:]
    assert "logs/metabolic/features.log" in out
    log = (workdir / "logs/metabolic/features.log").read_text()
    assert f"{bad}: " in log, log[-3000:]  # InputFileError / UnknownGeneError start with the path
    for text in BAD_INPUTS[case][2]:
        assert text in log, f"{text!r} not in the log:\n{log[-3000:]}"
    # nothing downstream ran; the earlier run's results are untouched
    for rule in ["metabolic_cv", "metabolic_accuracy", "enzyme_ranking"]:
        assert f"rule {rule}:" not in out
    for rel in MAIN_OUTPUTS:
        data, mtime = before[rel]
        assert (workdir / rel).read_bytes() == data, rel
        assert (workdir / rel).stat().st_mtime_ns == mtime, rel


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_bad_input_leaves_provenance_of_earlier_run(bad_input_runs, case):
    """provenance.tsv records the inputs of the results beside it: a run that
    fails on a bad input must not replace it with a record of the bad file."""
    workdir, bad, _, before = bad_input_runs[case]
    data, mtime = before[PROVENANCE]
    assert str(bad) not in (workdir / PROVENANCE).read_text()
    assert (workdir / PROVENANCE).read_bytes() == data
    assert (workdir / PROVENANCE).stat().st_mtime_ns == mtime


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_bad_input_error_is_shown_on_the_console(bad_input_runs, case):
    """Snakemake's own error block does not list the job's inputs: the
    console must carry the error naming the bad file, without a traceback."""
    _, bad, proc, _ = bad_input_runs[case]
    out = console(proc)
    assert TRACEBACK not in out, out[-3000:]
    assert f"{bad}: " in out, out[-3000:]
    for text in BAD_INPUTS[case][2]:
        assert text in out, f"{text!r} not on the console:\n{out[-3000:]}"


# ------------------------------------------------- truncated intermediate files
@pytest.mark.parametrize("rel, reader", [
    ("results/metabolic/features/features.npz", "metabolic_cv"),
    ("results/metabolic/cv/geometric.pkl", None),
])
def test_truncated_intermediate_file_is_named(tmp_path, toy_inputs, reference_run, rel, reader):
    """A features.npz or cv/*.pkl cut short (as a crash or a full disk leaves
    it) stops the next job that reads it with one line naming the file and
    how to rebuild it; the published results keep their bytes and mtimes."""
    workdir = tmp_path / "run"
    shutil.copytree(reference_run, workdir, symlinks=True)
    before = {r: ((workdir / r).read_bytes(), (workdir / r).stat().st_mtime_ns)
              for r in (*MAIN_OUTPUTS, PROVENANCE)}
    cut = workdir / rel
    cut.write_bytes(cut.read_bytes()[:300])
    proc = run_snakemake(workdir, small_config(toy_inputs, workdir), MAIN_TARGET, timeout=600)
    out = console(proc)
    assert proc.returncode != 0 and TRACEBACK not in out, out[-3000:]
    assert f"InputFileError: {rel}: is truncated or corrupt (" in out, out[-3000:]
    assert ("(an interrupted run or a full disk leaves such a file; delete it, or run snakemake with "
            "--rerun-incomplete, to rebuild it)") in out
    if reader:
        assert f"Error in rule {reader}" in out
    assert "rule metabolic_provenance:" not in out
    for r, (data, mtime) in before.items():
        assert (workdir / r).read_bytes() == data and (workdir / r).stat().st_mtime_ns == mtime, r


# ------------------------------------------------------------------ fetch
def _registry() -> dict:
    return yaml.safe_load((REPO / "data" / "registry.yaml").read_text())["files"]


def _leftovers(directory: Path) -> list[str]:
    return sorted(str(p) for p in directory.rglob("*") if p.name.startswith(".") or ".part" in p.name)


def test_sha256_mismatch_in_mirror_stops_fetch(tmp_path, toy_inputs):
    entry = _registry()["yeast_imm904"]
    mirror = tmp_path / "fake_mirror"
    altered = mirror / entry["mirror_path"]
    altered.parent.mkdir(parents=True)
    altered.write_text('{"id": "not iMM904", "metabolites": [], "reactions": []}\n')
    config = small_config(toy_inputs, tmp_path)
    config["data_mirror"] = str(mirror)
    target = f"{config['download_dir']}/{entry['path']}"
    proc = run_snakemake(tmp_path, config, target, env=OFFLINE_ENV, timeout=600)
    out = console(proc)
    assert proc.returncode != 0, out[-3000:]
    assert "Error in rule fetch_file" in out, out[-3000:]
    assert TRACEBACK not in out, out[-3000:]
    log = (tmp_path / "logs/fetch" / f"{entry['path']}.log").read_text()
    for text in ["FetchError", "could not fetch 'yeast_imm904'", f"mirror {altered}",
                 f"sha256 mismatch for yeast_imm904 from mirror {altered}: expected {entry['sha256']}",
                 "PyPI wheel cameo==0.13.6", "data_mirror"]:
        assert text in log, f"{text!r} not in the log:\n{log[-3000:]}"
    # no file with wrong bytes (or a partial one) is left in the download folder
    assert not Path(target).exists()
    assert _leftovers(Path(config["download_dir"])) == []


OFFLINE_NAMES = ["yeast_iff708", "yeast_imm904"]  # a url source and a PyPI wheel source


@pytest.fixture(scope="module")
def offline_fetch_run(tmp_path_factory, toy_inputs):
    """Fetch two registered files with a mirror folder that does not exist and
    no network; returns (workdir, mirror, process)."""
    tmp = tmp_path_factory.mktemp("offline_fetch")
    reg = _registry()
    config = small_config(toy_inputs, tmp)
    mirror = tmp / "no_such_mirror"
    config["data_mirror"] = str(mirror)
    targets = [f"{config['download_dir']}/{reg[n]['path']}" for n in OFFLINE_NAMES]
    proc = run_snakemake(tmp, config, *targets, extra=["--keep-going"], env=OFFLINE_ENV, timeout=600)
    return tmp, mirror, proc


def _fetch_message(name: str, mirror: Path) -> list[str]:
    """Lines of the FetchError message expected for ``name``: the file, every
    location tried and how to set a mirror."""
    entry = _registry()[name]
    expected = [f"could not fetch {name!r} ({entry['path']})",
                f"mirror {mirror / entry['mirror_path']}: no such file",
                "config key `data_mirror`", "GEOMARGIN_DATA_MIRROR"]
    for source in entry["sources"]:
        if "url" in source:
            expected.append(f"url {source['url']}")
        else:
            w = source["pypi_wheel"]
            expected.append(f"PyPI wheel {w['package']}=={w['version']}")
    return expected


def test_missing_mirror_and_no_network_gives_fetch_message(offline_fetch_run):
    tmp, mirror, proc = offline_fetch_run
    out = console(proc)
    assert proc.returncode != 0, out[-3000:]
    assert TRACEBACK not in out, out[-3000:]
    reg = _registry()
    for name in OFFLINE_NAMES:
        path = reg[name]["path"]
        assert f"logs/fetch/{path}.log" in out
        log = (tmp / "logs/fetch" / f"{path}.log").read_text()
        assert "FetchError: could not fetch" in log
        for text in _fetch_message(name, mirror):
            assert text in log, f"{name}: {text!r} not in the log:\n{log[-3000:]}"
        assert not (tmp / "downloads" / path).exists()


def test_fetch_message_is_shown_on_the_console(offline_fetch_run):
    """The user reads Snakemake's console, which otherwise only says
    "CalledProcessError ... check log file(s)": the FetchError text itself
    must be there, without a traceback."""
    _, mirror, proc = offline_fetch_run
    out = console(proc)
    assert TRACEBACK not in out, out[-3000:]
    for name in OFFLINE_NAMES:
        for text in _fetch_message(name, mirror):
            assert text in out, f"{name}: {text!r} not on the console:\n{out[-3000:]}"
