# A time split of any two releases: the older release's orphans, ranked by the
# older run's models (older_releases.smk) exactly as today's orphans are, by
# every ranking, scored against the genes that the newer release gave them.
# Its tables go to results/metabolic/release_history/<older>/<newer>/; the
# release history (release_history.smk) learns from some and reports others.

RH_DIR = f"{MET_DIR}/release_history"


rule metabolic_release_split:
    input:
        unpack(lambda wc: release_split_inputs(wc.older, wc.newer)),
    output:
        table=f"{RH_DIR}/{{older}}/{{newer}}/time_split_validation.tsv",
        reactions=f"{RH_DIR}/{{older}}/{{newer}}/time_split_reactions.tsv",
        orphans=f"{RH_DIR}/{{older}}/{{newer}}/time_split_orphans.tsv",
        later_genes=f"{RH_DIR}/{{older}}/{{newer}}/time_split_later_genes.tsv",
        calibration=f"{RH_DIR}/{{older}}/{{newer}}/time_split_calibration.tsv",
        reliability=f"{RH_DIR}/{{older}}/{{newer}}/time_split_reliability.tsv",
        shown=f"{RH_DIR}/{{older}}/{{newer}}/time_split_shown.tsv",
        plot=f"{RH_DIR}/{{older}}/{{newer}}/time_split_calibration.png",
    log:
        "logs/metabolic/release_history/{older}/{newer}/time_split.log",
    benchmark:
        "logs/metabolic/release_history/{older}/{newer}/time_split.benchmark.tsv"
    wildcard_constraints:
        older="[^/]+",
        newer="[^/]+",
    conda:
        "../envs/geomargin.yaml"
    threads: 2
    resources:
        # holds the score matrix of every older orphan x candidate for every validated model
        mem_mb=9000,
        runtime=120,
    params:
        newer_sha256=lambda wc: content_sha256(MET["datasets"][wc.newer]["network"]),
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
        releases=lambda wc: [wc.older, wc.newer],
        # the config key a pair that gained no gene is named by
        config_key="metabolic.release_history",
        seed=config["seed"],
    script:
        "../scripts/metabolic_time_split.py"
