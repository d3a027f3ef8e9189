# Time-split validation: the whole metabolic pipeline runs once more on an
# older model release (older_releases.smk), and the older orphans are scored against the genes
# that a newer release gave them. A test, never a tuning set: nothing in the
# pipeline reads its table.

TIME_SPLIT = MET["time_split"]
for _key in ("older", "newer"):
    if TIME_SPLIT[_key] not in MET["datasets"]:
        raise ValueError(
            f"config: metabolic.time_split.{_key} is {TIME_SPLIT[_key]!r}, which is not one of "
            f"the input sets under metabolic.datasets ({', '.join(sorted(MET['datasets']))})."
        )


# The time split's tables and plot: made in TS_STAGED, published as one set.
TS_STAGED = f"{MET_DIR}/staged/time_split"
TIME_SPLIT_OUTPUTS = {
    "table": "time_split_validation.tsv",
    "reactions": "time_split_reactions.tsv",
    "orphans": "time_split_orphans.tsv",
    "later_genes": "time_split_later_genes.tsv",
    "calibration": "time_split_calibration.tsv",
    "reliability": "time_split_reliability.tsv",
    "shown": "time_split_shown.tsv",
    "plot": "time_split_calibration.png",
}


use rule metabolic_release_split as metabolic_time_split with:
    input:
        **release_split_inputs(TIME_SPLIT["older"], TIME_SPLIT["newer"]),
    output:
        # staged, then published as one set (metabolic_time_split_publish)
        **{k: f"{TS_STAGED}/{v}" for k, v in TIME_SPLIT_OUTPUTS.items()},
    log:
        "logs/metabolic/time_split.log",
    benchmark:
        "logs/metabolic/time_split.benchmark.tsv"
    params:
        newer_sha256=content_sha256(MET["datasets"][TIME_SPLIT["newer"]]["network"]),
        releases=[TIME_SPLIT["older"], TIME_SPLIT["newer"]],
        config_key="metabolic.time_split",


# The space the time split's publish needs, checked before it (as for the
# main publish: metabolic_publish_space).
use rule metabolic_publish_space as metabolic_time_split_publish_space with:
    input:
        **{k: f"{TS_STAGED}/{v}" for k, v in TIME_SPLIT_OUTPUTS.items()},
    output:
        temp(f"{TS_STAGED}/publish_space.txt"),
    log:
        "logs/metabolic/time_split_publish_space.log",
    benchmark:
        "logs/metabolic/time_split_publish_space.benchmark.tsv"
    params:
        published={f"{MET_DIR}/{v}": k for k, v in TIME_SPLIT_OUTPUTS.items()},


# Publishes the time split as one set (common/publish.py): a failed rerun of
# the time split leaves the previous set (bytes and mtimes). update():
# Snakemake must not delete the previous set before the job.
rule metabolic_time_split_publish:
    input:
        **{k: f"{TS_STAGED}/{v}" for k, v in TIME_SPLIT_OUTPUTS.items()},
        space_checked=rules.metabolic_time_split_publish_space.output[0],
    output:
        table=report(
            update(f"{MET_DIR}/time_split_validation.tsv"),
            caption="../report/time_split_validation.rst",
            category="Enzyme ranking",
        ),
        reactions=update(f"{MET_DIR}/time_split_reactions.tsv"),
        orphans=update(f"{MET_DIR}/time_split_orphans.tsv"),
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
    benchmark:
        "logs/metabolic/time_split_publish.benchmark.tsv"
    conda:
        "../envs/geomargin.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../scripts/publish_staged.py"
