# geomargin: learning from structurally absent features.
#   snakemake --cores 8 results/enzyme_ranking.tsv       rank candidate enzymes (main job)
#   snakemake --cores 8 results/enzyme_ranking.html      ... and the candidate browser
#   snakemake --cores 8 results/detection_accuracy.tsv   car detection from landmark candidates
#   snakemake --cores 2 results/mcar/accuracy.tsv        missing-completely-at-random sanity check
# All parameters live in config/config.yaml (validated by workflow/schemas/config.schema.yaml).

from snakemake.utils import min_version, validate

from geomargin.common.config_checks import check_renamed_keys

min_version("9.0")


configfile: "config/config.yaml"


# a renamed key gets its new name, before the schema calls it unknown
check_renamed_keys(config)
validate(config, "workflow/schemas/config.schema.yaml")


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/fetch.smk"
include: "workflow/rules/homology.smk"
include: "workflow/rules/metabolic.smk"
# older releases' pipelines, and a time split of any two releases
include: "workflow/rules/older_releases.smk"
include: "workflow/rules/release_splits.smk"


# the release history, when metabolic.dataset is its test's newer release
if release_plan() is not None:

    include: "workflow/rules/release_history.smk"


# results/metabolic/time_split_validation.tsv (config metabolic.time_split)
if "time_split" in config["metabolic"]:

    include: "workflow/rules/time_split.smk"


include: "workflow/rules/vision_crops.smk"
include: "workflow/rules/vision_scenes.smk"
include: "workflow/rules/mcar.smk"


rule all:
    default_target: True
    input:
        "results/enzyme_ranking.tsv",
        "results/enzyme_ranking_quality.tsv",
        "results/orphan_reactions.tsv",
        "results/enzyme_ranking.html",
        "results/metabolic/accuracy.tsv",
        "results/metabolic/ranking_validation.tsv",
        "results/detection_accuracy.tsv",
        "results/vision/scene_detection.tsv",
        "results/vision/scene_detection_scale.tsv",
        "results/vision/candidates_easy.png",
        "results/vision/candidates_hard.png",
        "results/vision/candidate_counts.tsv",
        "results/mcar/accuracy.tsv",
