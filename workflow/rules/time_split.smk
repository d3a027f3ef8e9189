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


use rule metabolic_release_split as metabolic_time_split with:
    input:
        **release_split_inputs(TIME_SPLIT["older"], TIME_SPLIT["newer"]),
    output:
        table=report(
            f"{MET_DIR}/time_split_validation.tsv",
            caption="../report/time_split_validation.rst",
            category="Enzyme ranking",
        ),
        reactions=f"{MET_DIR}/time_split_reactions.tsv",
        orphans=f"{MET_DIR}/time_split_orphans.tsv",
        later_genes=report(
            f"{MET_DIR}/time_split_later_genes.tsv",
            caption="../report/time_split_later_genes.rst",
            category="Enzyme ranking",
        ),
        calibration=report(
            f"{MET_DIR}/time_split_calibration.tsv",
            caption="../report/time_split_calibration.rst",
            category="Enzyme ranking",
        ),
        reliability=f"{MET_DIR}/time_split_reliability.tsv",
        shown=f"{MET_DIR}/time_split_shown.tsv",
        plot=report(
            f"{MET_DIR}/time_split_calibration.png",
            caption="../report/time_split_calibration.rst",
            category="Enzyme ranking",
        ),
    log:
        "logs/metabolic/time_split.log",
    params:
        newer_sha256=content_sha256(MET["datasets"][TIME_SPLIT["newer"]]["network"]),
        releases=[TIME_SPLIT["older"], TIME_SPLIT["newer"]],
