# Time-split validation: the whole metabolic pipeline runs once more on an
# older model release (a Snakemake module of metabolic_release.smk, its
# results under results/time_split/<older>/, its inputs fetched by this
# workflow's fetch rules), and the older orphans are scored against the genes
# that a newer release gave them. A test, never a tuning set: nothing in the
# pipeline reads its table.

TIME_SPLIT = MET["time_split"]
for _key in ("older", "newer"):
    if TIME_SPLIT[_key] not in MET["datasets"]:
        raise ValueError(
            f"config: metabolic.time_split.{_key} is {TIME_SPLIT[_key]!r}, which is not one of "
            f"the input sets under metabolic.datasets ({', '.join(sorted(MET['datasets']))})."
        )
OLDER_DIR = f"results/time_split/{TIME_SPLIT['older']}"


module older_release:
    snakefile:
        "metabolic_release.smk"
    config:
        older_release_config(TIME_SPLIT["older"])
    replace_prefix:
        {
            "results/": f"{OLDER_DIR}/",
            "logs/": f"logs/time_split/{TIME_SPLIT['older']}/",
        }


use rule * from older_release as older_*


# The time split's tables and plot: made in TS_STAGED, published as one set.
TS_STAGED = f"{MET_DIR}/staged/time_split"
TIME_SPLIT_OUTPUTS = {
    "table": "time_split_validation.tsv",
    "reactions": "time_split_reactions.tsv",
    "later_genes": "time_split_later_genes.tsv",
    "calibration": "time_split_calibration.tsv",
    "reliability": "time_split_reliability.tsv",
    "shown": "time_split_shown.tsv",
    "plot": "time_split_calibration.png",
}


rule metabolic_time_split:
    input:
        featurizer=rules.older_metabolic_features.output.featurizer,
        features=rules.older_metabolic_features.output.features,
        validation=rules.older_metabolic_ranking_validation.output.table,
        cv=expand(f"{OLDER_DIR}/metabolic/cv/{{method}}.pkl", method=ranking_models()),
        # the older run's confidence and its own check (never fitted on the time split)
        calibrator=rules.older_metabolic_calibration.output.calibrator,
        older_calibration=rules.older_metabolic_calibration.output.table,
        older_reliability=rules.older_metabolic_calibration.output.reliability,
        newer_network=input_ref(MET["datasets"][TIME_SPLIT["newer"]]["network"]),
    output:
        # staged, then published as one set (metabolic_time_split_publish)
        **{k: f"{TS_STAGED}/{v}" for k, v in TIME_SPLIT_OUTPUTS.items()},
    log:
        "logs/metabolic/time_split.log",
    conda:
        "../envs/geomargin.yaml"
    threads: 2
    resources:
        # holds the score matrix of every older orphan x candidate for every validated model
        mem_mb=9000,
        runtime=120,
    params:
        newer_sha256=content_sha256(MET["datasets"][TIME_SPLIT["newer"]]["network"]),
        method=MET["ranking"]["method"],
        validation_methods=MET["ranking"]["validation_methods"],
        gene_corrections=MET["ranking"]["gene_corrections"],
        cv_methods=ranking_models(),
        margin_rule=MET["ranking"]["margin_rule"],
        batch_size=MET["ranking"]["batch_size"],
        n_bootstrap=MET["ranking"]["n_bootstrap"],
        kinds=MET["ranking"]["kinds"],
        evidence=MET["ranking"]["evidence"],
        top_n=MET["ranking"]["top_n"],
        releases=[TIME_SPLIT["older"], TIME_SPLIT["newer"]],
        seed=config["seed"],
    script:
        "../scripts/metabolic_time_split.py"


# Publishes the time split as one set (common/publish.py): a failed rerun of
# the time split leaves the previous set (bytes and mtimes). update():
# Snakemake must not delete the previous set before the job.
rule metabolic_time_split_publish:
    input:
        **{k: f"{TS_STAGED}/{v}" for k, v in TIME_SPLIT_OUTPUTS.items()},
    output:
        table=report(
            update(f"{MET_DIR}/time_split_validation.tsv"),
            caption="../report/time_split_validation.rst",
            category="Enzyme ranking",
        ),
        reactions=update(f"{MET_DIR}/time_split_reactions.tsv"),
        later_genes=report(
            update(f"{MET_DIR}/time_split_later_genes.tsv"),
            caption="../report/time_split_later_genes.rst",
            category="Enzyme ranking",
        ),
        calibration=report(
            update(f"{MET_DIR}/time_split_calibration.tsv"),
            caption="../report/time_split_calibration.rst",
            category="Enzyme ranking",
        ),
        reliability=update(f"{MET_DIR}/time_split_reliability.tsv"),
        shown=update(f"{MET_DIR}/time_split_shown.tsv"),
        plot=report(
            update(f"{MET_DIR}/time_split_calibration.png"),
            caption="../report/time_split_calibration.rst",
            category="Enzyme ranking",
        ),
    log:
        "logs/metabolic/time_split_publish.log",
    conda:
        "../envs/geomargin.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        root=MET_DIR,
    script:
        "../scripts/publish_staged.py"
