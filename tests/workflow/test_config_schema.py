"""The config is checked before any job runs: `snakemake -n` with a bad
--configfile exits non-zero with a message naming the offending key, and a dry
run of the default target works from a fresh copy of the repository.

Every case is a real `snakemake -n` on a copy of the toy config with one
change; the dry runs are started together (they are mostly interpreter
start-up) and each test reads its own result."""

from __future__ import annotations

import copy
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from toy_data import write_toy_inputs
from workflow_helpers import MAIN_TARGET, REPO, SNAKEMAKE, run_snakemake, toy_config

pytestmark = pytest.mark.slow


def _set(path: str, value):
    """A config mutator: set the dotted key ``path`` to ``value``."""
    def mutate(config: dict) -> None:
        *parents, last = path.split(".")
        node = config
        for key in parents:
            node = node[key]
        node[last] = value
    return mutate


# case id -> (mutation, strings that must all appear in stderr)
BAD_CONFIGS = {
    "unknown_top_level_key": (_set("bogus_top_key", 1), ["bogus_top_key", "was unexpected"]),
    "unknown_nested_key": (_set("metabolic.ranking.bogus_nested_key", 1),
                           ["bogus_nested_key", "['metabolic']['ranking']"]),
    "unknown_dataset_key": (_set("metabolic.datasets.toy.bogus_dataset_key", "x"),
                            ["bogus_dataset_key", "['toy']"]),
    "negative_seed": (_set("seed", -1), ["['seed']", "-1"]),
    "one_split": (_set("metabolic.n_splits", 1), ["['metabolic']['n_splits']"]),
    "val_fraction_above_one": (_set("metabolic.val_fraction", 1.5), ["['metabolic']['val_fraction']", "1.5"]),
    "seed_not_integer": (_set("seed", "zero"), ["['seed']", "'zero'"]),
    "unknown_method": (_set("metabolic.methods", ["geometric", "zero", "svm_magic"]),
                       ["svm_magic", "['metabolic']['methods']"]),
    "unknown_candidates_choice": (_set("metabolic.ranking.candidates", "everything"),
                                  ["everything", "['candidates']"]),
    "vision_one_split": (_set("vision.n_splits", 1), ["['vision']['n_splits']"]),
    # cross-key checks done in workflow/rules/common.smk
    # a registered method that metabolic.methods does not cross-validate
    "ranking_method_not_cross_validated": (_set("metabolic.ranking.method", "robust_socp"),
                                           ["metabolic.ranking", "robust_socp"]),
    "ranking_method_unknown": (_set("metabolic.ranking.method", "mean_not_run"),
                               ["['metabolic']['ranking']['method']", "mean_not_run"]),
    "dataset_not_defined": (_set("metabolic.dataset", "no_such_set"), ["metabolic.dataset", "no_such_set"]),
    # A typo in a method name must not be accepted silently where the name is
    # a key or a list item the schema does not restrict.
    "param_grid_for_unknown_method": (_set("metabolic.param_grids.geometrc", [{"C": 1.0}]), ["geometrc"]),
    "unknown_vision_method": (_set("vision.methods", ["geometric", "svm_magic"]), ["svm_magic", "vision"]),
    "unknown_mcar_dataset": (_set("mcar.datasets", {"iris": ["mcar50"]}), ["iris", "mcar"]),
    "bad_mcar_scenario": (_set("mcar.datasets", {"wdbc": ["mcar150"]}), ["mcar150", "mcar"]),
    "unknown_mcar_method": (_set("mcar.methods", ["zero", "svm_magic"]), ["svm_magic", "mcar"]),
    # values the schema accepts but the code would fail on later (common/config_checks.py)
    "top_n_float": (_set("metabolic.ranking.top_n", 3.0),
                    ["config: metabolic.ranking.top_n is 3.0; expected an integer (write 3)"]),
    "n_splits_float": (_set("metabolic.n_splits", 3.0),
                       ["config: metabolic.n_splits is 3.0; expected an integer (write 3)"]),
    "seed_float": (_set("seed", 1.0), ["config: seed is 1.0; expected an integer (write 1)"]),
    # a renamed key: its new name, not the schema's "not allowed"
    "renamed_key": (_set("metabolic.representation", "summary"),
                    ["config: metabolic.representation is renamed; write metabolic.source_features: "
                     "'summary' (same values)"]),
    "seed_too_large": (_set("seed", 2 ** 32), ["['seed']", "4294967296 is greater than the maximum"]),
    "unknown_grid_parameter": (_set("metabolic.param_grids.zero", [{"kernel": ["linear"], "Cc": [1.0]}]),
                               ["config: metabolic.param_grids.zero names parameter 'Cc', which zero does not "
                                "have; closest: ['C']"]),
    # grid values out of range: each estimator's _parameter_constraints, before any job
    "negative_grid_C": (_set("metabolic.param_grids.geometric", [{"kernel": "linear", "C": -1.0, "n_iter": 2}]),
                        ["config: metabolic.param_grids.geometric gives C = -1.0: The 'C' parameter of "
                         "GeometricMarginSVC must be a float > 0. Got -1.0 instead."]),
    "unknown_grid_kernel": (_set("metabolic.param_grids.zero", [{"kernel": ["sigmoid"], "C": [1.0]}]),
                            ["config: metabolic.param_grids.zero gives kernel = 'sigmoid': The 'kernel' "
                             "parameter of ImputedSVC must be one of 'linear', 'poly', 'rbf'. Got 'sigmoid' "
                             "instead."]),
    # the older releases' runs: their grids are checked like today's, their keys by the schema
    "older_runs_unknown_grid_parameter": (
        _set("metabolic.older_runs", {"param_grids": {"zero": [{"kernel": ["linear"], "Cc": [1.0]}]}}),
        ["config: metabolic.older_runs.param_grids.zero names parameter 'Cc', which zero does not have"]),
    "older_runs_unknown_key": (_set("metabolic.older_runs", {"methods": ["zero"]}),
                               ["methods", "['metabolic']['older_runs']"]),
    "older_runs_negative_sample": (_set("metabolic.older_runs", {"validation_reactions_per_fold": -1}),
                                   ["['metabolic']['older_runs']['validation_reactions_per_fold']", "-1"]),
}


def test_schema_method_names_are_the_registry():
    """The schema's method enum and models.registry name the same methods."""
    import yaml

    from geomargin.models.registry import METHODS

    schema = yaml.safe_load((REPO / "workflow" / "schemas" / "config.schema.yaml").read_text())
    enum = schema["properties"]["metabolic"]["properties"]["methods"]["items"]["enum"]
    assert enum == list(METHODS)


def _schema_defaults(schema: dict, path: tuple = ()):
    """(key path, default) of every schema property with a ``default``."""
    for key, sub in (schema.get("properties") or {}).items():
        if "default" in sub:
            yield path + (key,), sub["default"]
        yield from _schema_defaults(sub, path + (key,))


def test_schema_defaults_are_the_values_of_config_yaml():
    """A key left out of every given config file takes the schema's default,
    and that is config/config.yaml's value; except each section's
    ``param_grids``, whose default ``{}`` means each method's own grid
    (models/registry.py), as config/README.md says."""
    import yaml

    schema = yaml.safe_load((REPO / "workflow" / "schemas" / "config.schema.yaml").read_text())
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    checked, differ = 0, []
    for path, default in _schema_defaults(schema):
        value = config
        for key in path:
            value = value.get(key, KeyError) if isinstance(value, dict) else KeyError
        if value is KeyError:
            continue  # a key config.yaml leaves to the schema (optional settings)
        checked += 1
        if value != default and path[-1] != "param_grids":
            differ.append((".".join(path), default, value))
    assert checked > 50
    assert differ == []


def test_default_older_runs_grids_are_single_points_of_the_full_grids():
    """config/config.yaml's ``older_runs.param_grids`` gives each method it
    names one point (no inner validation in the older runs), and that point
    lies on the method's grid in ``param_grids``, for a validated method:
    the older runs choose among what today's run chooses among."""
    import yaml
    from geomargin.models.selection import expand_grid

    met = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["metabolic"]
    older = met["older_runs"]["param_grids"]
    assert older, "config.yaml gives the older runs no grids"
    assert set(older) <= set(met["ranking"]["validation_methods"])
    for method, grid in older.items():
        points = expand_grid(grid)
        assert len(points) == 1, (method, points)
        assert points[0] in expand_grid(met["param_grids"][method]), (method, points[0])


@pytest.fixture(scope="module")
def dry_runs(tmp_path_factory):
    """{case: CompletedProcess} of `snakemake -n` for the good toy config
    ("valid") and every entry of BAD_CONFIGS, each in its own directory."""
    root = tmp_path_factory.mktemp("config_schema")
    inputs = write_toy_inputs(root / "inputs")
    base = toy_config(inputs, root)
    cases = {"valid": base}
    for name, (mutate, _) in BAD_CONFIGS.items():
        config = copy.deepcopy(base)
        mutate(config)
        cases[name] = config

    def run(item):
        name, config = item
        workdir = root / name
        workdir.mkdir()
        return name, run_snakemake(workdir, config, MAIN_TARGET, extra=["-n"], timeout=300)

    with ThreadPoolExecutor(max_workers=3) as pool:
        return dict(pool.map(run, cases.items()))


def test_valid_toy_config_dry_run_passes(dry_runs):
    """The control: without the change, the same dry run succeeds and plans
    the whole enzyme-ranking job."""
    proc = dry_runs["valid"]
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    for rule in ["metabolic_features", "metabolic_cv", "metabolic_accuracy",
                 "metabolic_ranking_validation", "enzyme_ranking"]:
        assert rule in out


@pytest.mark.parametrize("case", list(BAD_CONFIGS))
def test_bad_config_is_rejected_naming_the_key(dry_runs, case):
    proc = dry_runs[case]
    out = proc.stdout + proc.stderr  # Snakemake 9 prints its errors on stdout
    assert proc.returncode != 0, f"{case}: config accepted\n{out[-2000:]}"
    for text in BAD_CONFIGS[case][1]:
        assert text in out, f"{case}: {text!r} not in the output:\n{out[-3000:]}"
    # the run stopped while reading the config: no job was planned or started
    assert "Job stats" not in out
    assert not (Path(proc.args[4]) / "results").exists()


def _fresh_copy(dest: Path) -> Path:
    """The repository's files as a fresh clone would have them: tracked and
    untracked-but-not-ignored files of the working tree (no downloads,
    results, logs or .snakemake)."""
    listing = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], capture_output=True, text=True)
    if listing.returncode != 0:
        pytest.skip(f"not a git checkout: {listing.stderr.strip()}")
    for rel in filter(None, listing.stdout.split("\0")):
        src = REPO / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    return dest


def test_default_target_dry_run_from_fresh_clone(tmp_path):
    """`snakemake -n` with the repository's own config/config.yaml, in a copy
    without downloads: plans the fetches and every final output."""
    clone = _fresh_copy(tmp_path / "clone")
    assert not (clone / "data" / "downloads").exists()
    proc = subprocess.run([str(SNAKEMAKE), "-n", "--cores", "2"], cwd=clone, capture_output=True,
                          text=True, timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    for rule in ["fetch_file", "fetch_uiuc_cars", "metabolic_features", "enzyme_ranking",
                 "vision_cv", "mcar_data", "mcar_cv", "mcar_accuracy", "all"]:
        assert rule in out, f"rule {rule} not planned:\n{out[-3000:]}"
    # the MCAR benchmark: one CV job per (dataset, scenario, method) of the config
    import re

    import yaml

    mcar = yaml.safe_load((clone / "config" / "config.yaml").read_text())["mcar"]
    n_jobs = sum(len(sc) for sc in mcar["datasets"].values()) * len(mcar["methods"])
    counts = dict(re.findall(r"^(mcar_cv)\s+(\d+)$", out, flags=re.M))
    assert counts == {"mcar_cv": str(n_jobs)}, out[-3000:]
    assert not (clone / "results").exists()
