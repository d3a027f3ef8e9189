"""Bad and odd input on the real workflow with the toy inputs.

* Gene ids that differ only in case, surrounding whitespace, invisible
  characters or the ``_A``/``-A`` suffix give byte-identical results (and a
  gzip-compressed model reads like the plain one); every changed id is listed
  with file and line in the job's log. The run is made under ``umask 022`` and
  leaves only group/other-readable files.
* A source that matches too few network genes or has no usable signal,
  conflicting duplicate rows, an id not understood, an empty or unreadable
  file, a reaction using an undefined metabolite, a gene rule cobrapy cannot
  parse, a model read without gene rules or naming an undeclared gene
  product, a reaction id the directed network reserves, a GAF without the
  rows a source reads, a config value that passes the schema but is wrong
  (an integer written as a float, a seed too large, an unknown grid
  parameter, a currency id matching nothing, more impostors than the pools
  hold), more folds than reactions, and a failing final step each stop the
  run with a one-line message (file or config key, value, expectation), exit
  non-zero, and leave the earlier results *and their provenance* untouched
  (bytes and mtime).
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import signal
import stat
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pandas as pd
import pytest

from workflow_helpers import (MAIN_OUTPUTS, MAIN_TARGET, TRACEBACK, console, output_bytes,
                              run_snakemake, small_config, snakemake_cmd)

pytestmark = pytest.mark.slow

ZWSP = "\u200b"
INSTANCES = "results/metabolic/features/instances.tsv"
PROVENANCE = "results/metabolic/provenance.tsv"






# ------------------------------------------------- equivalent ids, umask 022
def _odd_ids(inputs: dict, directory: Path) -> dict:
    """The toy inputs with every model gene id lower-cased, one behind a
    zero-width space, the model gzip-compressed, and expression ids with
    trailing spaces, lower case and invisible characters."""
    raw = json.loads(Path(inputs["model"]).read_text())
    first = raw["genes"][0]["id"]
    rename = {g["id"]: g["id"].lower() for g in raw["genes"]}
    rename[first] = ZWSP + first.lower()
    for g in raw["genes"]:
        g["id"] = rename[g["id"]]
    for r in raw["reactions"]:
        r["gene_reaction_rule"] = " ".join(rename.get(t, t) for t in r["gene_reaction_rule"].split(" "))
    model = directory / "model_odd.json.gz"
    model.write_bytes(gzip.compress(json.dumps(raw, indent=1).encode()))
    lines = Path(inputs["expression"]).read_text().splitlines(keepends=True)
    for k in range(1, len(lines)):
        gene, rest = lines[k].split("\t", 1)
        gene = [gene.lower(), gene + " ", ZWSP + gene, "\ufeff" + gene + "\u00a0"][k % 4]
        lines[k] = gene + "\t" + rest
    expression = directory / "expression_odd.tsv"
    expression.write_text("".join(lines))
    return {"model": model, "expression": expression, "first_gene": first}


@pytest.fixture(scope="module")
def odd_ids_run(tmp_path_factory, toy_inputs, reference_run):
    tmp = tmp_path_factory.mktemp("odd_ids")
    odd = _odd_ids(toy_inputs, tmp)
    config = small_config(toy_inputs, tmp)
    toy = config["metabolic"]["datasets"]["toy"]
    toy["network"] = f"file:{odd['model']}"
    toy["expression"] = [f"file:{odd['expression']}"]
    cmd = snakemake_cmd(tmp, config, MAIN_TARGET)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900,
                          preexec_fn=lambda: os.umask(0o022))
    return tmp, odd, proc


def test_odd_gene_ids_give_identical_results(odd_ids_run, reference_run):
    tmp, _, proc = odd_ids_run
    assert proc.returncode == 0, console(proc)[-4000:]
    for rel in (*MAIN_OUTPUTS, INSTANCES):
        assert output_bytes(tmp, rel) == output_bytes(reference_run, rel), f"{rel} differs"


def test_odd_gene_ids_are_listed_with_file_and_line(odd_ids_run):
    tmp, odd, proc = odd_ids_run
    log = (tmp / "logs/metabolic/features.log").read_text()
    first = odd["first_gene"]
    model_text = gzip.decompress(odd["model"].read_bytes()).decode()
    line = next(i for i, t in enumerate(model_text.split("\n"), 1) if "\\u200b" + first.lower() in t)
    assert (f"{odd['model']}:{line}: gene id '\\u200b{first.lower()}' read as '{first}' "
            "(removed U+200B ZERO WIDTH SPACE; upper-cased)") in log
    expr_lines = odd["expression"].read_text().splitlines()
    gene = expr_lines[1].split("\t")[0]  # file line 2: trailing space
    assert f"{odd['expression']}:2: gene id {gene!r} read as {gene.strip()!r} " \
           "(surrounding whitespace removed)" in log
    gene = expr_lines[2].split("\t")[0]  # file line 3: zero-width space
    assert f"{odd['expression']}:3: gene id {gene!r} read as {gene[1:]!r} " \
           "(removed U+200B ZERO WIDTH SPACE)" in log
    gene = expr_lines[3].split("\t")[0]  # file line 4: byte-order mark, no-break space
    assert f"{odd['expression']}:4: gene id {gene!r} read as {gene[1:-1]!r} " \
           "(Unicode NFKC; removed U+FEFF ZERO WIDTH NO-BREAK SPACE; surrounding whitespace removed)" in log
    assert "gene ids: " in console(proc) and "changed to their canonical form" in console(proc)


def test_run_under_umask_022_leaves_readable_outputs(odd_ids_run):
    tmp, _, proc = odd_ids_run
    assert proc.returncode == 0
    files = [p for d in ("results", "logs") for p in (tmp / d).rglob("*") if p.is_file()]
    assert len(files) > 15
    unreadable = [f"{p.relative_to(tmp)} {oct(stat.S_IMODE(p.stat().st_mode))}" for p in files
                  if stat.S_IMODE(p.stat().st_mode) & 0o044 != 0o044]
    assert unreadable == []  # the atomic writer's files were 0600


# ------------------------------------------------------------ bad input
def _expression_lines(inputs):
    return Path(inputs["expression"]).read_text().splitlines(keepends=True)


def _no_gene_ids(inputs, d):
    lines = _expression_lines(inputs)
    p = d / "expression_noids.tsv"
    p.write_text(lines[0] + "".join(f"probe{k}\t{ln.split(chr(9), 1)[1]}" for k, ln in enumerate(lines[1:])))
    return p


def _every_cell(inputs, d, value: str, name: str):
    """The toy expression table with every value cell set to ``value``."""
    lines = _expression_lines(inputs)
    n = len(lines[0].split("\t")) - 1
    p = d / name
    p.write_text(lines[0] + "".join(ln.split("\t", 1)[0] + f"\t{value}" * n + "\n" for ln in lines[1:]))
    return p


def _only_na(inputs, d):
    return _every_cell(inputs, d, "NA", "expression_na.tsv")


def _constant_rows(inputs, d):
    return _every_cell(inputs, d, "1.5", "expression_constant.tsv")


def _two_conditions(inputs, d):
    lines = _expression_lines(inputs)
    p = d / "expression_two.tsv"
    p.write_text("".join("\t".join(ln.rstrip("\n").split("\t")[:3]) + "\n" for ln in lines))
    return p


def _conflicting_duplicate(inputs, d):
    lines = _expression_lines(inputs)
    gene, rest = lines[1].split("\t", 1)
    cells = rest.rstrip("\n").split("\t")
    cells[0] = "9.9"
    p = d / "expression_dup.tsv"
    p.write_text("".join(lines) + gene.lower() + "\t" + "\t".join(cells) + "\n")
    return p


def _lookalike_id(inputs, d):
    lines = _expression_lines(inputs)
    lines[4] = "\u0423" + lines[4][1:]  # Cyrillic capital U for the leading Y
    p = d / "expression_lookalike.tsv"
    p.write_text("".join(lines))
    return p


def _headerless(inputs, d):
    """The toy expression table whose header line was lost."""
    p = d / "expression_headerless.tsv"
    p.write_text("".join(_expression_lines(inputs)[1:]))
    return p


def _empty(inputs, d):
    p = d / "expression_empty.tsv"
    p.write_text("")
    return p


def _undefined_metabolite(inputs, d):
    raw = json.loads(Path(inputs["model"]).read_text())
    raw["reactions"][1]["metabolites"]["ghost_c"] = 1.0
    p = d / "model_ghost.json"
    p.write_text(json.dumps(raw))
    return p


def _unreadable_model(inputs, d):
    p = d / "model_corrupt.json.gz"
    p.write_bytes(gzip.compress(Path(inputs["model"]).read_bytes())[:200])  # truncated
    return p


def _malformed_rule(inputs, d):
    raw = json.loads(Path(inputs["model"]).read_text())
    rxn = next(r for r in raw["reactions"] if r["gene_reaction_rule"])
    rxn["gene_reaction_rule"] = "(" + rxn["gene_reaction_rule"]
    p = d / "model_rule.json"
    p.write_text(json.dumps(raw))
    return p


def _no_gene_rules(inputs, d):
    """A model read without its gene rules (as cobrapy reads a RAVEN .mat)."""
    raw = json.loads(Path(inputs["model"]).read_text())
    for r in raw["reactions"]:
        r["gene_reaction_rule"] = ""
    p = d / "model_norules.json"
    p.write_text(json.dumps(raw))
    return p


def _undeclared_gene_product(inputs, d):
    """SBML whose gene rule names a gene product the model does not declare."""
    import re

    import cobra

    model = cobra.io.load_json_model(str(inputs["model"]))
    p = d / "model_undeclared.xml"
    cobra.io.write_sbml_model(model, str(p))
    xml = p.read_text()
    first = re.search(r"<fbc:geneProduct [^>]*/>", xml).group(0)
    p.write_text(xml.replace(first, "", 1))
    return p


def _reserved_reverse_id(inputs, d):
    raw = json.loads(Path(inputs["model"]).read_text())
    base = next(r for r in raw["reactions"] if r.get("lower_bound", 0) < 0)
    raw["reactions"].append({**base, "id": base["id"] + "__rev", "name": "copy"})
    p = d / "model_rev.json"
    p.write_text(json.dumps(raw))
    return p


def _gaf_one_compartment(inputs, d):
    """Every gene in the same compartment: the localization carries no signal."""
    rows = []
    for ln in Path(inputs["annotation"]).read_text().splitlines(keepends=True):
        cells = ln.split("\t")
        if len(cells) > 8 and cells[8] == "C":
            cells[4] = "GO:0005739"
        rows.append("\t".join(cells))
    p = d / "annotation_onecompartment.gaf"
    p.write_text("".join(rows))
    return p


def _gaf_without_interpro(inputs, d):
    lines = Path(inputs["annotation"]).read_text().splitlines(keepends=True)
    p = d / "annotation_nointerpro.gaf"
    p.write_text("".join(ln for ln in lines if "InterPro:" not in ln))
    return p


def _n_reactions_with_genes(inputs) -> int:
    raw = json.loads(Path(inputs["model"]).read_text())
    return sum(bool(r["gene_reaction_rule"]) for r in raw["reactions"])


# case -> (make the bad file, config key it replaces, strings the log and console must hold)
BAD_INPUTS = {
    "expression_without_gene_ids": (_no_gene_ids, "expression", [
        "SourceCoverageError: source 'expr:expression' (", "has data for 0/52 (0.0%) of the network's genes",
        "config key metabolic.min_source_coverage requires at least 10.0%",
        "ids in the source, e.g. ['probe0', 'probe1'"]),
    "expression_only_na": (_only_na, "expression", [
        "SourceCoverageError: source 'expr:expression' (", "holds no data for any gene: no profile has 3 or more measured conditions"]),
    # a source without usable signal: every profile constant, or too few conditions
    "expression_constant_rows": (_constant_rows, "expression", [
        "SourceCoverageError: source 'expr:expression' (", "holds no data for any gene: no profile has 3 or "
        "more measured conditions with some variation (config key metabolic.min_conditions)"]),
    "expression_two_conditions": (_two_conditions, "expression", [
        "ConfigValueError: source 'expr:expression (", "has 2 condition(s); config key "
        "metabolic.min_conditions requires at least 3"]),
    "conflicting_duplicate_rows": (_conflicting_duplicate, "expression", [
        "DuplicateGeneError: ", "1 gene(s) on several rows with different values",
        "(lines 2, 66)", "metabolic.duplicate_genes"]),
    "id_not_understood": (_lookalike_id, "expression", [
        "GeneIdError: ", ": line 5: gene id '\u0423", "is not a valid gene id after normalisation"]),
    "empty_expression_file": (_empty, "expression", [
        "InputFileError: ", ": is empty (no header line)"]),
    # the first record read as the header would lose its gene and name the columns
    "expression_without_header": (_headerless, "expression", [
        "InputFileError: ", "expression_headerless.tsv: line 1 is a record, not a header: gene 'YAL001W' "
        "with the values '0.1821', '-0.3370', '0.1710', ... (expected a header line first (the gene id "
        "column's name, then one name per condition); the header line seems lost)"]),
    "undefined_metabolite": (_undefined_metabolite, "network", [
        "InputFileError: ", "reaction 'R_p0_1' uses metabolite(s) ['ghost_c'] that are not in the "
        "model's 'metabolites' list"]),
    "unreadable_model": (_unreadable_model, "network", [
        "InputFileError: ", ": cannot be read: EOFError"]),
    "malformed_gene_rule": (_malformed_rule, "network", [
        "GeneIdError: ", "cobrapy cannot parse 1 gene rule(s)"]),
    # models that load without what the pipeline needs
    "model_without_gene_rules": (_no_gene_rules, "network", [
        "InputFileError: ", ": no reaction has a gene rule (", "use a file with gene rules"]),
    "undeclared_gene_product": (_undeclared_gene_product, "network", [
        "UnknownGeneError: ", "has a gene rule naming gene product(s) [",
        "that are not declared in the model's listOfGeneProducts"]),
    "reserved_reverse_id": (_reserved_reverse_id, "network", [
        "InputFileError: ", "__rev' has the id that the directed network gives the reverse direction "
        "of reversible reaction", "ids ending in '__rev' are reserved for reverse directions"]),
    # a source without rows of the kind the pipeline reads: says so
    "localization_in_one_compartment": (_gaf_one_compartment, "annotation", [
        "SourceCoverageError: source 'loc' (", "annotation_onecompartment.gaf) contributes no usable "
        "feature: each of its ", "takes at most one value over the "]),
    "gaf_without_interpro_rows": (_gaf_without_interpro, "annotation", [
        "SourceCoverageError: source 'domain' (", "holds no data for any gene: the file has no row "
        "with evidence IEA and an InterPro id in its with/from column (column 8)"]),
}


def _rerun(reference_run, workdir: Path, config: dict):
    shutil.copytree(reference_run, workdir, symlinks=True)
    before = {rel: ((workdir / rel).read_bytes(), (workdir / rel).stat().st_mtime_ns)
              for rel in (*MAIN_OUTPUTS, PROVENANCE)}
    proc = run_snakemake(workdir, config, MAIN_TARGET, timeout=600)
    return proc, before


@pytest.fixture(scope="module")
def bad_input_runs(tmp_path_factory, toy_inputs, reference_run):
    root = tmp_path_factory.mktemp("input_bad")

    def run(case):
        make, key, _ = BAD_INPUTS[case]
        workdir = root / case
        bad = make(toy_inputs, root)
        config = small_config(toy_inputs, workdir)
        toy = config["metabolic"]["datasets"]["toy"]
        toy[key] = [f"file:{bad}"] if key == "expression" else f"file:{bad}"
        config["metabolic"]["ranking"]["top_n"] = 5  # would show in a premature provenance
        proc, before = _rerun(reference_run, workdir, config)
        return case, (workdir, bad, proc, before)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(run, BAD_INPUTS))


def _assert_untouched(workdir: Path, before: dict) -> None:
    for rel, (data, mtime) in before.items():
        assert (workdir / rel).read_bytes() == data, rel
        assert (workdir / rel).stat().st_mtime_ns == mtime, rel


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_bad_input_stops_with_named_error(bad_input_runs, case):
    workdir, bad, proc, before = bad_input_runs[case]
    out = console(proc)
    assert proc.returncode != 0, out[-3000:]
    assert "Error in rule metabolic_features" in out, out[-3000:]
    assert TRACEBACK not in out, out[-3000:]
    log = (workdir / "logs/metabolic/features.log").read_text()
    assert TRACEBACK not in log, log[-3000:]
    assert str(bad) in out and str(bad) in log
    for text in BAD_INPUTS[case][2]:
        assert text in log, f"{text!r} not in the log:\n{log[-3000:]}"
        assert text in out, f"{text!r} not on the console:\n{out[-3000:]}"
    # one line: the error and its message
    error_lines = [ln for ln in log.splitlines() if "Error: " in ln]
    assert len(error_lines) == 1, error_lines
    for rule in ["metabolic_cv", "metabolic_accuracy", "enzyme_ranking", "metabolic_provenance"]:
        assert f"rule {rule}:" not in out
    _assert_untouched(workdir, before)


# ------------------------------------------------------------ bad config
def _set(config: dict, path: str, value) -> None:
    *parents, last = path.split(".")
    node = config
    for k in parents:
        node = node[k]
    node[last] = value


# case -> (config key, bad value, stops before any job?, strings the console must hold)
BAD_CONFIG = {
    "integral_float": ("metabolic.ranking.top_n", 3.0, True, [
        "ConfigValueError in file", "config: metabolic.ranking.top_n is 3.0; expected an integer (write 3)"]),
    "seed_too_large": ("seed", 2**32, True, ["seed", "4294967295"]),
    "unknown_grid_parameter": ("metabolic.param_grids.zero", [{"kernel": "linear", "Cc": 1.0}], True, [
        "ConfigValueError in file", "config: metabolic.param_grids.zero names parameter 'Cc', which "
        "zero does not have; closest: ['C'] (all: C, coef0, degree, gamma,"]),
    "currency_matching_nothing": ("metabolic.extra_currency", ["p0m9"], False, [
        "metabolic.extra_currency: 'p0m9' is not a metabolite key of this network", "closest: "]),
    "every_metabolite_currency": ("metabolic.n_currency", 10000, False, [
        "ConfigValueError: metabolic.n_currency is 10000: every one of the network's ",
        " metabolites became currency, so no reaction keeps a substrate or product; expected fewer than "]),
    "negatives_beyond_the_pool": ("metabolic.negatives_per_positive", 1000, False, [
        "ConfigValueError: config: metabolic.negatives_per_positive is 1000, but reaction ",
        "expected at most ", "(more would repeat training pairs)"]),
}


@pytest.fixture(scope="module")
def bad_config_runs(tmp_path_factory, toy_inputs, reference_run):
    root = tmp_path_factory.mktemp("config_bad")

    def run(case):
        key, value, _, _ = BAD_CONFIG[case]
        workdir = root / case
        config = small_config(toy_inputs, workdir)
        _set(config, key, value)
        proc, before = _rerun(reference_run, workdir, config)
        return case, (workdir, proc, before)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(run, BAD_CONFIG))


@pytest.mark.parametrize("case", list(BAD_CONFIG))
def test_bad_config_stops_naming_the_key(bad_config_runs, case):
    workdir, proc, before = bad_config_runs[case]
    key, value, before_any_job, texts = BAD_CONFIG[case]
    out = console(proc)
    assert proc.returncode != 0, out[-3000:]
    assert TRACEBACK not in out, out[-3000:]
    for text in texts:
        assert text in out, f"{text!r} not on the console:\n{out[-3000:]}"
    if before_any_job:
        assert "rule " not in out, out[-3000:]
    else:  # needs the model: the features job stops, nothing after it runs
        assert "Error in rule metabolic_features" in out, out[-3000:]
        assert "rule metabolic_cv" not in out, out[-3000:]
    _assert_untouched(workdir, before)


# -------------------------------------------------- failing downstream steps
@pytest.fixture(scope="module")
def downstream_runs(tmp_path_factory, toy_inputs, reference_run):
    root = tmp_path_factory.mktemp("input_downstream")

    def too_many_folds():
        workdir = root / "n_splits"
        config = small_config(toy_inputs, workdir)
        config["metabolic"]["n_splits"] = 100
        config["metabolic"]["ranking"]["top_n"] = 5
        return ("n_splits", *(_rerun(reference_run, workdir, config)), workdir)

    def failing_ranking():
        # the final ranking step dies (SIGKILL to the whole run while it
        # works) after a top_n change, cross-validation and validation of
        # this run having finished: the old results and provenance must stay
        workdir = root / "ranking"
        config = small_config(toy_inputs, workdir)
        config["metabolic"]["ranking"]["top_n"] = 5
        config["metabolic"]["n_splits"] = 4  # new accuracy and validation
        shutil.copytree(reference_run, workdir, symlinks=True)
        before = {rel: ((workdir / rel).read_bytes(), (workdir / rel).stat().st_mtime_ns)
                  for rel in (*MAIN_OUTPUTS, PROVENANCE)}
        ranking_log = workdir / "logs/metabolic/enzyme_ranking.log"
        ranking_log.unlink()
        cmd = snakemake_cmd(workdir, config, MAIN_TARGET)
        with open(workdir / "killed_run.out", "w") as out:
            proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
            try:
                deadline = time.monotonic() + 900
                while not ranking_log.exists() and proc.poll() is None and time.monotonic() < deadline:
                    time.sleep(0.05)
            finally:
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=60)
        result = subprocess.CompletedProcess(cmd, proc.returncode, (workdir / "killed_run.out").read_text(), "")
        return "ranking", result, before, workdir

    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = [pool.submit(too_many_folds), pool.submit(failing_ranking)]
        return {f.result()[0]: f.result()[1:] for f in futures}


def test_too_many_folds_is_a_config_message(downstream_runs, toy_inputs):
    proc, before, workdir = downstream_runs["n_splits"]
    out = console(proc)
    assert proc.returncode != 0, out[-3000:]
    assert TRACEBACK not in out, out[-3000:]
    n = _n_reactions_with_genes(toy_inputs)
    text = (f"ConfigValueError: config key metabolic.n_splits is 100, but "
            f"results/metabolic/features/features.npz holds {n} model reactions with known genes "
            f"(cross-validation groups); expected an int from 2 to {n}")
    assert text in out, out[-3000:]
    assert "rule metabolic_provenance:" not in out


@pytest.mark.parametrize("case", ["n_splits", "ranking"])
def test_failing_downstream_step_leaves_results_and_provenance(downstream_runs, case):
    proc, before, workdir = downstream_runs[case]
    assert proc.returncode != 0, console(proc)[-3000:]
    _assert_untouched(workdir, before)
    # the provenance still gives the configuration of the results beside it
    prov = pd.read_csv(workdir / PROVENANCE, sep="\t")
    config = json.loads(prov.loc[prov["kind"] == "config", "value"].iloc[0])
    assert config["ranking"]["top_n"] == 3


def test_ranking_failure_was_the_final_step(downstream_runs):
    proc, _, workdir = downstream_runs["ranking"]
    out = console(proc)
    assert proc.returncode == -signal.SIGKILL, out[-3000:]
    assert "rule enzyme_ranking:" in out and "rule metabolic_provenance:" not in out, out[-3000:]
    # the validation of this run finished (the ranking needs it: "auto" picks
    # the method from it), but it is only staged, not published beside the old
    # ranking. The accuracy table runs beside the ranking, so it may or may
    # not have been staged by the time of the kill; it is never published
    # (test_failing_downstream_step_leaves_results_and_provenance).
    name = "ranking_validation.tsv"
    assert output_bytes(workdir, f"results/metabolic/staged/{name}") != \
        output_bytes(workdir, f"results/metabolic/{name}"), name
