# Helpers shared by all .smk files: resolving input references and config checks.
import os
import re
from pathlib import Path

import yaml

# the names of rankings and baselines are the library's (the Snakefile's folder,
# the repository, is on sys.path)
from geomargin.rank.non_learned import BASELINES
from geomargin.rank.scoring import split_ranking_name

REPO = Path(workflow.basedir)
DOWNLOAD_DIR = config["download_dir"]

with open(REPO / "data" / "registry.yaml") as fh:
    REGISTRY = yaml.safe_load(fh)["files"]

# what the schema cannot check, before any job starts: integer keys given as
# floats, grid parameters a method does not have
from geomargin.common.config_checks import check_integers, check_param_grids

with open(REPO / "workflow" / "schemas" / "config.schema.yaml") as fh:
    check_integers(config, yaml.safe_load(fh))
for _section in ("metabolic", "vision", "mcar"):
    check_param_grids(config[_section].get("param_grids"), f"{_section}.param_grids")
check_param_grids(
    (config["metabolic"].get("older_runs") or {}).get("param_grids"),
    "metabolic.older_runs.param_grids",
)

MET = config["metabolic"]
if MET["dataset"] not in MET["datasets"]:
    raise ValueError(
        f"config: metabolic.dataset is {MET['dataset']!r}, which is not one of the "
        f"input sets under metabolic.datasets ({', '.join(sorted(MET['datasets']))})."
    )
DATASET = MET["datasets"][MET["dataset"]]


def registry_path(name):
    """Where the fetch step puts registered file `name`."""
    if name not in REGISTRY:
        raise ValueError(
            f"config: {name!r} is neither a name in data/registry.yaml "
            f"({', '.join(sorted(REGISTRY))}) nor a 'file:PATH' reference."
        )
    return f"{DOWNLOAD_DIR}/{REGISTRY[name]['path']}"


def input_ref(ref):
    """A config input reference: a registry name or 'file:PATH'."""
    return ref[len("file:") :] if ref.startswith("file:") else registry_path(ref)


# Ranking methods without a cross-validation of their own: "auto" (the
# validated ranking with the best MRR) and the non-learned baselines.
NOT_CROSS_VALIDATED = ("auto", *BASELINES)
# "<method>+<gene correction>" ranks by the method's corrected scores
_method, _correction = split_ranking_name(MET["ranking"]["method"])
_missing = [
    m
    for m in [_method, *MET["ranking"]["validation_methods"]]
    if m not in MET["methods"] and m not in NOT_CROSS_VALIDATED
]
if _missing:
    raise ValueError(
        f"config: metabolic.ranking names methods {_missing} that are not in "
        f"metabolic.methods {MET['methods']}; ranking needs their cross-validation."
    )
if _correction != "none" and _correction not in MET["ranking"]["gene_corrections"]:
    raise ValueError(
        f"config: metabolic.ranking.method {MET['ranking']['method']!r} ranks after the "
        f"{_correction!r} gene correction, which metabolic.ranking.gene_corrections "
        f"{MET['ranking']['gene_corrections']} does not validate; add it there."
    )


def content_sha256(ref):
    """What identifies the content of input `ref`: the registry's sha256 for a
    registered file (the fetch step verifies it), the sha256 of a 'file:'
    path's bytes, or of a 'file:' folder's files (names and bytes,
    common.io.sha256_tree). As a rule param it reruns the work that read a
    file replaced by one with other content but an older time stamp (cp -p,
    rsync -a), or a file changed, added or deleted inside a folder (which
    leaves the folder's own time stamp behind), which Snakemake's time
    stamps alone would miss."""
    from geomargin.common.io import sha256_file, sha256_tree

    if not ref.startswith("file:"):
        return REGISTRY[ref].get("sha256", "directory")
    path = Path(ref[len("file:") :])
    if path.is_dir():
        return sha256_tree(path)
    return sha256_file(path) if path.is_file() else "not a file"


def metabolic_input_checksums(dataset):
    """content_sha256 of every input of input set `dataset`."""
    refs = [dataset["network"], *dataset["expression"], dataset["annotation"]]
    if dataset["localization"] != "gaf":
        refs.append(dataset["localization"])
    return {ref: content_sha256(ref) for ref in refs}


def metabolic_inputs():
    inputs = {
        "network": input_ref(DATASET["network"]),
        "expression": [input_ref(r) for r in DATASET["expression"]],
        "annotation": input_ref(DATASET["annotation"]),
    }
    if DATASET["localization"] != "gaf":
        inputs["localization"] = input_ref(DATASET["localization"])
    return inputs


# The table of the homology searches (metabolic_homology in homology.smk), one
# for every release the workflow runs, outside results/ so that the older
# releases' modules (older_releases.smk) read this same file.
HOMOLOGY_HITS = f"{DOWNLOAD_DIR}/derived/homology_hits.tsv.gz"


def homology_inputs():
    """The homology block's inputs of the features step, when
    metabolic.homology_features asks for it: the proteome and the searches'
    table shared by every release (rule metabolic_homology); else nothing."""
    if not MET["homology_features"]:
        return {}
    return {"proteome": input_ref(MET["proteome"]), "homology": HOMOLOGY_HITS}


def homology_networks():
    """The network references of the input set and of every older release
    the workflow runs (older_releases(), below), each once."""
    refs = [DATASET["network"]] + [
        MET["datasets"][older]["network"] for older in older_releases()
    ]
    return list(dict.fromkeys(refs))


def longest_first(order):
    """Scheduling priority of a per-method job: the methods of ``order``
    (longest first) start first, in that order, when several of the rule's
    jobs are ready at once (longest-processing-time scheduling: with 2 cores
    the last job to finish decides when the next stage can start). Methods
    not listed have priority 0. The order changes no output, only when each
    job runs."""

    def priority(wildcards):
        if wildcards.method not in order:
            return 0
        return len(order) - order.index(wildcards.method)

    return priority


# Cross-validations, longest first on the default data (their wall seconds:
# logs/metabolic/cv_*.log of benchmarks/bench_main_job.py). knn and
# robust_socp_pca start together; geometric_block (an n x n Gram matrix)
# follows knn and so runs beside the short ones, not beside robust_socp_pca;
# the benchmark's summed peak includes it.
CV_FIRST = [
    "knn",
    "robust_socp_pca",
    "integrated_logreg_pca",
    "geometric_block",
    "geometric_rank",
    "geometric",
    "em",
    "hgb",
    "zero",
    "flags",
    "avg_w",
    "mean",
]


def ranking_models():
    """Methods whose cross-validation the final ranking may use: the
    validated ones ("auto" picks among them) and a configured method."""
    models = list(MET["ranking"]["validation_methods"])
    if _method not in NOT_CROSS_VALIDATED and _method not in models:
        models.append(_method)
    return models


# The vision pipelines (vision_crops.smk, vision_scenes.smk).
VIS = config["vision"]
VIS_DIR = "results/vision"
# The UIUC layout: the fetched dataset, or file:DIR (config vision.data).
VIS_DATA = input_ref(VIS["data"])
_vis_data_sha256 = []


def vis_data_sha256(wildcards):
    """content_sha256 of the vision data, computed once, when a vision job is
    planned: as a param of every rule that reads the folder, a file changed,
    added or deleted in it reruns that rule."""
    if not _vis_data_sha256:
        _vis_data_sha256.append(content_sha256(VIS["data"]))
    return _vis_data_sha256[0]


# Per-method jobs that take longest start first (longest_first above),
# ordered by wall seconds of the scene targets (docs/benchmarks/main_job.md,
# `bench_main_job.py --scenes`): the hard negatives wait for the last crop
# model, the detections for the last scene model.
CROP_MODEL_FIRST = [
    "hgb",
    "geometric",
    "infinite_imputation_pca",
    "em",
    "robust_socp_pca",
    "knn",
    "integrated_logreg_pca",
]
SCENE_MODEL_FIRST = [
    "infinite_imputation_pca",
    "geometric",
    "robust_socp_pca",
    "hgb",
    "em",
    "knn",
    "integrated_logreg_pca",
]


def scene_model_mem_mb(wildcards):
    """Declared memory of a scene model's refit: Dick et al.'s keeps one
    n x n float64 kernel per imputation of its set (up to max_iter = 50;
    n = 1050 crops + 3000 hard negatives: 131 MB each, 6.6 GB for 50); the
    others declare 4 GB (their measured peaks: docs/benchmarks/main_job.md)."""
    return 8000 if wildcards.method == "infinite_imputation_pca" else 4000


def vision_featurizer_params(wildcards):
    """The vision config values that are parameters of the landmark-candidate
    featurizer (its constructor's names, so none is listed twice); the seed is
    passed on its own. Imported when a vision job is planned, not for every
    workflow."""
    from geomargin.featurize.vision.featurizer import CarPartFeaturizer

    names = CarPartFeaturizer().get_params(deep=False)
    return {k: v for k, v in VIS.items() if k in names}


def older_release_config(older):
    """The workflow config with input set `older` as the metabolic input set
    and metabolic.older_runs applied (rank/history.py, older_run_config)."""
    from geomargin.rank.history import older_run_config

    return older_run_config(config, older)


def release_plan():
    """The checked release history (rank/history.py) when it applies: when
    metabolic.release_history is set and metabolic.dataset is its test's
    newer release; else None."""
    from geomargin.rank.history import check_release_history

    rh = MET.get("release_history")
    if not rh or MET["dataset"] != rh["test"][1]:
        return None
    return check_release_history(rh, MET["datasets"])


def older_releases():
    """Input sets whose whole metabolic pipeline runs once more as an older
    release (workflow/rules/older_releases.smk): the time split's, and the
    release history's history and test olders, each once."""
    olders = []
    if "time_split" in MET:
        olders.append(MET["time_split"]["older"])
    plan = release_plan()
    if plan is not None:
        olders.extend(plan.olders)
    return list(dict.fromkeys(olders))


def older_file(older, path):
    """A file of the older run of input set `older` (its results/ prefix)."""
    return f"results/time_split/{older}/{path}"


def release_split_inputs(older, newer):
    """The inputs of a time split of `older` against `newer`'s gene rules:
    the older run's features, validation, models and calibrator."""
    return {
        "featurizer": older_file(older, "metabolic/features/featurizer.pkl"),
        "features": older_file(older, "metabolic/features/features.npz"),
        "validation": older_file(older, "metabolic/staged/ranking_validation.tsv"),
        "cv": [older_file(older, f"metabolic/cv/{m}.pkl") for m in ranking_models()],
        # the older run's confidence and its own check (never fitted on the split)
        "calibrator": older_file(older, "metabolic/ranking/calibrator.pkl"),
        "older_calibration": older_file(older, "metabolic/staged/calibration.tsv"),
        "older_reliability": older_file(
            older, "metabolic/staged/calibration_reliability.tsv"
        ),
        "newer_network": input_ref(MET["datasets"][newer]["network"]),
    }


def time_split_in_main_job():
    """The time-split table as an input of the main job's browser, when
    metabolic.time_split.in_main_job asks for it; else nothing."""
    split = MET.get("time_split") or {}
    return (
        ["results/metabolic/time_split_validation.tsv"]
        if split.get("in_main_job")
        else []
    )


def history_ranking_inputs():
    """What the final ranking reads of the release history when it applies:
    the model learned from history and test together, and the test pair's
    headline (scored with what history alone chose); else nothing."""
    if release_plan() is None:
        return {}
    return {
        "history": "results/metabolic/release_history/all/history.pkl",
        "history_test": "results/metabolic/staged/history_test.tsv",
    }


def history_test_input():
    """The release history's test headline, shown first by the browser when
    the history applies; else nothing."""
    return {k: v for k, v in history_ranking_inputs().items() if k == "history_test"}


# staged release-history table -> its published path (metabolic_provenance)
HISTORY_PUBLISHED = {
    "history_test": "results/metabolic/history_test.tsv",
    "history_test_rankings": "results/metabolic/history_test_rankings.tsv",
    "history_test_confidence": "results/metabolic/history_test_confidence.tsv",
}


def history_staged():
    """The staged release-history tables the publish step swaps in, by role."""
    if release_plan() is None:
        return {}
    return {
        f"staged_{k}": f"results/metabolic/staged/{Path(v).name}"
        for k, v in HISTORY_PUBLISHED.items()
    }


def metabolic_staged():
    """The staged results the last step publishes, by role (with the release
    history's tables, when it applies); called by rules of metabolic.smk
    defined after the rules that make them."""
    return {
        **history_staged(),
        "staged_ranking": rules.enzyme_ranking.output.ranking,
        "staged_quality": rules.enzyme_ranking.output.quality,
        "staged_orphans": rules.enzyme_ranking.output.orphans,
        "staged_browser": rules.enzyme_browser.output[0],
        "staged_accuracy": rules.metabolic_accuracy.output.table,
        "staged_accuracy_plot": rules.metabolic_accuracy.output.plot,
        "staged_validation": rules.metabolic_ranking_validation.output.table,
        "staged_shown_validation": rules.metabolic_calibration.output.shown_validation,
        "staged_calibration": rules.metabolic_calibration.output.table,
        "staged_calibration_reliability": rules.metabolic_calibration.output.reliability,
        "staged_calibration_plot": rules.metabolic_calibration.output.plot,
    }


def published_sources(publish):
    """Published path -> the staged input role that the publish rule
    ``publish`` swaps in there ("" for the provenance, made by the job)."""
    staged = {out: role for role, out in publish.params.published.items()}
    return {str(path): staged.get(name, "") for name, path in publish.output.items()}


def history_published():
    """The published release-history tables, by role (update(): the
    previous set stays until the publish swaps the new one in)."""
    if release_plan() is None:
        return {}
    return {
        k: report(
            update(v),
            caption="../report/history_test.rst",
            category="Enzyme ranking",
        )
        for k, v in HISTORY_PUBLISHED.items()
    }


def history_networks():
    """The release history's networks, each once (provenance inputs)."""
    plan = release_plan()
    if plan is None:
        return {}
    names = dict.fromkeys(r for pair in plan.pairs("all") for r in pair)
    return {
        f"history_network_{n}": input_ref(MET["datasets"][n]["network"])
        for n in names
        if n != MET["dataset"]
    }


def pair_name(pair):
    return f"{pair[0]}->{pair[1]}"


def history_split_files(scope, name):
    """The time-split table `name` of each pair learned from in `scope`
    ("history": the history pairs alone; "all": history and test)."""
    return [
        f"results/metabolic/release_history/{older}/{newer}/time_split_{name}.tsv"
        for older, newer in release_plan().pairs(scope)
    ]


def history_candidates():
    """The rankings the release history chooses among: every validated
    method with and without each gene correction (no "@<rule>" row), or the
    configured method alone."""
    from geomargin.rank.scoring import ranking_name

    method = MET["ranking"]["method"]
    if method != "auto":
        return [method]
    return [
        ranking_name(m, c)
        for m in MET["ranking"]["validation_methods"]
        if "@" not in m
        for c in ["none", *MET["ranking"]["gene_corrections"]]
    ]


def history_cv_validation(scope):
    """The cross-validation a release-history scope may fall back on: the
    test's older run's for "history" (what the test's start knew), today's
    for "all"."""
    if scope == "history":
        return older_file(
            release_plan().test[0], "metabolic/staged/ranking_validation.tsv"
        )
    return "results/metabolic/staged/ranking_validation.tsv"
