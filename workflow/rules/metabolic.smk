# Enzyme ranking on a metabolic network:
# fetch -> featurize -> nested cross-validation per method -> accuracy table,
# ranking validation -> ranked candidates for reactions without a known gene.
# The results are made in MET_STAGED and published together with their
# provenance by the last rule (metabolic_provenance), so a run that fails at
# any step leaves the earlier results and their provenance as they were.

MET_DIR = "results/metabolic"
MET_STAGED = f"{MET_DIR}/staged"


rule metabolic_features:
    input:
        **metabolic_inputs(),
        # the proteome and the homology searches, with metabolic.homology_features
        **homology_inputs(),
    output:
        features=f"{MET_DIR}/features/features.npz",
        instances=f"{MET_DIR}/features/instances.tsv",
        featurizer=f"{MET_DIR}/features/featurizer.pkl",
        summary=f"{MET_DIR}/features/summary.tsv",
        # role, path, bytes and sha256 of each input as read (the provenance's)
        inputs_read=f"{MET_DIR}/features/inputs_read.tsv",
    log:
        "logs/metabolic/features.log",
    benchmark:
        "logs/metabolic/features.benchmark.tsv"
    conda:
        "../envs/geomargin.yaml"
    threads: 2
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        dataset=MET["dataset"],
        # the inputs' content: a replaced file reruns everything (common.smk)
        inputs_sha256=metabolic_input_checksums(DATASET),
        localization=DATASET["localization"],
        n_currency=MET["n_currency"],
        extra_currency=MET["extra_currency"],
        min_domain_genes=MET["min_domain_genes"],
        negatives_per_positive=MET["negatives_per_positive"],
        impostor_pool=MET["impostor_pool"],
        impostor_mix=MET["impostor_mix"],
        adjacency=MET["adjacency_features"],
        kind_features=MET["kind_features"],
        subsystem_features=MET["subsystem_features"],
        compound_features=MET["compound_features"],
        domain_kind_features=MET["domain_kind_features"],
        site_features=MET["site_features"],
        membrane_features=MET["membrane_features"],
        homology_features=MET["homology_features"],
        source_features=MET["source_features"],
        min_source_coverage=MET["min_source_coverage"],
        min_conditions=MET.get("min_conditions", 3),
        duplicate_genes=MET["duplicate_genes"],
        candidates=MET["ranking"]["candidates"],
        seed=config["seed"],
    script:
        "../scripts/metabolic_features.py"


rule metabolic_cv:
    input:
        features=rules.metabolic_features.output.features,
    output:
        cv=f"{MET_DIR}/cv/{{method}}.pkl",
        folds=f"{MET_DIR}/cv/{{method}}_folds.tsv",
    log:
        "logs/metabolic/cv_{method}.log",
    benchmark:
        "logs/metabolic/cv_{method}.benchmark.tsv"
    priority: longest_first(CV_FIRST)
    conda:
        "../envs/geomargin.yaml"
    threads: 1
    resources:
        # the geometric margin's precomputed Gram matrix over the training pairs
        mem_mb=8000,
        runtime=120,
    params:
        grid=lambda wc: MET["param_grids"].get(wc.method),
        n_splits=MET["n_splits"],
        val_fraction=MET["val_fraction"],
        seed=config["seed"],
    script:
        "../scripts/metabolic_cv.py"


rule metabolic_accuracy:
    input:
        cv=expand(f"{MET_DIR}/cv/{{method}}.pkl", method=MET["methods"]),
        features=rules.metabolic_features.output.features,
    output:
        table=f"{MET_STAGED}/accuracy.tsv",
        plot=f"{MET_STAGED}/accuracy.png",
    log:
        "logs/metabolic/accuracy.log",
    benchmark:
        "logs/metabolic/accuracy.benchmark.tsv"
    conda:
        "../envs/geomargin.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        methods=MET["methods"],
    script:
        "../scripts/metabolic_accuracy.py"


rule metabolic_ranking_validation:
    input:
        cv=expand(
            f"{MET_DIR}/cv/{{method}}.pkl", method=MET["ranking"]["validation_methods"]
        ),
        instances=rules.metabolic_features.output.instances,
        featurizer=rules.metabolic_features.output.featurizer,
    output:
        ranks=f"{MET_DIR}/ranking/true_gene_ranks.tsv",
        tops=f"{MET_DIR}/ranking/top_genes.tsv",
        calibration_rows=f"{MET_DIR}/ranking/calibration_rows.tsv",
        table=f"{MET_STAGED}/ranking_validation.tsv",
    log:
        "logs/metabolic/ranking_validation.log",
    benchmark:
        "logs/metabolic/ranking_validation.benchmark.tsv"
    conda:
        "../envs/geomargin.yaml"
    threads: 2
    resources:
        mem_mb=6000,
        runtime=240,
    params:
        methods=MET["ranking"]["validation_methods"],
        batch_size=MET["ranking"]["batch_size"],
        per_fold=MET["ranking"]["validation_reactions_per_fold"],
        margin_rule=MET["ranking"]["margin_rule"],
        gene_corrections=MET["ranking"]["gene_corrections"],
        n_bootstrap=MET["ranking"]["n_bootstrap"],
        seed=config["seed"],
        # the calibration rows: the shown candidates of the cross-validation's choice (method;
        # the ranking the final step uses unless a release history applies)
        top_n=MET["ranking"]["top_n"],
        method=MET["ranking"]["method"],
    script:
        "../scripts/metabolic_ranking_validation.py"


rule metabolic_calibration:
    input:
        rows=rules.metabolic_ranking_validation.output.calibration_rows,
        # fold groups: the calibrator weighs each fold group once
        instances=rules.metabolic_features.output.instances,
        # the shown ranking's validated quality in both orders of its shown rows
        ranks=rules.metabolic_ranking_validation.output.ranks,
        tops=rules.metabolic_ranking_validation.output.tops,
    output:
        calibrator=f"{MET_DIR}/ranking/calibrator.pkl",
        shown_validation=f"{MET_STAGED}/shown_validation.tsv",
        table=f"{MET_STAGED}/calibration.tsv",
        reliability=f"{MET_STAGED}/calibration_reliability.tsv",
        plot=f"{MET_STAGED}/calibration.png",
    log:
        "logs/metabolic/calibration.log",
    benchmark:
        "logs/metabolic/calibration.benchmark.tsv"
    conda:
        "../envs/geomargin.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        threshold=MET["ranking"]["confidence_threshold"],
        order=MET["ranking"]["order"],
        # a release history lists its own choice by score: then no row of shown_validation.tsv is the listed one
        release_history=release_plan() is not None,
        n_bootstrap=MET["ranking"]["n_bootstrap"],
        seed=config["seed"],
    script:
        "../scripts/metabolic_calibration.py"


rule enzyme_ranking:
    input:
        # the ranking, confidence and threshold learned from the release history, and the
        # test pair's figures (metabolic.release_history; nothing when it does not apply)
        **history_ranking_inputs(),
        # the method is chosen from the validation ("auto"): every candidate model
        cv=expand(f"{MET_DIR}/cv/{{method}}.pkl", method=ranking_models()),
        features=rules.metabolic_features.output.features,
        featurizer=rules.metabolic_features.output.featurizer,
        # "auto" chooses the method from the validation; its quality is reported
        validation=rules.metabolic_ranking_validation.output.table,
        # cross-validated ranks of true genes: how the held-out reactions without motifs did
        true_ranks=rules.metabolic_ranking_validation.output.ranks,
        # the confidence of every shown candidate and the "no credible candidate" threshold
        calibrator=rules.metabolic_calibration.output.calibrator,
        # the validated quality of the ranking in the order its rows are shown
        shown_validation=rules.metabolic_calibration.output.shown_validation,
        # the held-out rank-1 candidates without network evidence: how often they were right
        calibration_rows=rules.metabolic_ranking_validation.output.calibration_rows,
        # how often the orphans' most frequent first gene was first, and right, in validation
        tops=rules.metabolic_ranking_validation.output.tops,
    output:
        ranking=f"{MET_STAGED}/enzyme_ranking.tsv",
        quality=f"{MET_STAGED}/enzyme_ranking_quality.tsv",
        orphans=f"{MET_STAGED}/orphan_reactions.tsv",
    log:
        "logs/metabolic/enzyme_ranking.log",
    benchmark:
        "logs/metabolic/enzyme_ranking.benchmark.tsv"
    conda:
        "../envs/geomargin.yaml"
    threads: 2
    resources:
        mem_mb=6000,
        runtime=60,
    params:
        method=MET["ranking"]["method"],
        cv_methods=ranking_models(),
        margin_rule=MET["ranking"]["margin_rule"],
        top_n=MET["ranking"]["top_n"],
        batch_size=MET["ranking"]["batch_size"],
        seed=config["seed"],
        kinds=MET["ranking"]["kinds"],
        evidence=MET["ranking"]["evidence"],
    script:
        "../scripts/enzyme_ranking.py"


rule enzyme_browser:
    input:
        # the release history's test pair, when it applies (shown first in the header)
        **history_test_input(),
        ranking=rules.enzyme_ranking.output.ranking,
        orphans=rules.enzyme_ranking.output.orphans,
        featurizer=rules.metabolic_features.output.featurizer,
        validation=rules.metabolic_ranking_validation.output.table,
        # the ranking's validated quality in the order its rows are shown
        shown_validation=rules.metabolic_calibration.output.shown_validation,
        # the confidence's threshold and its check
        calibration=rules.metabolic_calibration.output.table,
        # what the shown ranking was chosen on (read with a release history)
        quality=rules.enzyme_ranking.output.quality,
        # the time split, when the main job runs it (metabolic.time_split.in_main_job)
        time_split=time_split_in_main_job(),
        # the page's inlined JavaScript and CSS: editing them rebuilds the page
        assets=[
            str(REPO / "report" / "browser_assets" / f)
            for f in ("browser.js", "browser.css")
        ],
    output:
        f"{MET_STAGED}/enzyme_ranking.html",
    log:
        "logs/metabolic/enzyme_browser.log",
    benchmark:
        "logs/metabolic/enzyme_browser.benchmark.tsv"
    conda:
        "../envs/geomargin.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        dataset=MET["dataset"],
        # a function: Snakemake would read the address's {id} as a wildcard
        reaction_url=lambda wildcards: DATASET.get("reaction_url", ""),
        time_split_releases=[
            MET.get("time_split", {}).get(k, "") for k in ("older", "newer")
        ],
    script:
        "../scripts/enzyme_browser.py"


# The provenance's input table: the content the features step read, checked
# against the inputs as they are now after every result is staged, in a job
# of its own (a failing publish job would have Snakemake restore its update()
# outputs, with new mtimes).
rule metabolic_inputs_read:
    input:
        **metabolic_inputs(),
        # read by other steps, hashed here: the proteome and the homology searches' table,
        # the release history's networks (each when it applies)
        **homology_inputs(),
        **history_networks(),
        inputs_read=rules.metabolic_features.output.inputs_read,
        staged=[
            rules.enzyme_ranking.output.ranking,
            rules.enzyme_browser.output[0],
            rules.metabolic_accuracy.output.table,
            rules.metabolic_ranking_validation.output.table,
            rules.metabolic_calibration.output.table,
        ],
    output:
        f"{MET_STAGED}/inputs.tsv",
    log:
        "logs/metabolic/inputs_read.log",
    benchmark:
        "logs/metabolic/inputs_read.benchmark.tsv"
    conda:
        "../envs/geomargin.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../scripts/metabolic_inputs_read.py"


# Before the publish: stop with one line when the disk cannot hold it
# (common.publish.check_space). A job of its own: Snakemake copies the
# publish job's update() outputs to .snakemake/backups/ before that job
# starts, and back through their links (new mtimes) when it fails. temp():
# gone after the publish, so it runs again before every publish.
rule metabolic_publish_space:
    input:
        **metabolic_staged(),
    output:
        temp(f"{MET_STAGED}/publish_space.txt"),
    log:
        "logs/metabolic/publish_space.log",
    benchmark:
        "logs/metabolic/publish_space.benchmark.tsv"
    conda:
        "../envs/geomargin.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        # a function: the publish rule is defined below
        published=lambda wildcards: published_sources(rules.metabolic_provenance),
    script:
        "../scripts/publish_space.py"


# Last step: publish the results and their provenance as one set, swapped in
# at once (common/publish.py). update(): Snakemake must not delete the
# previous set before the job, so a killed publish leaves it in place.
rule metabolic_provenance:
    input:
        **metabolic_inputs(),
        **metabolic_staged(),
        inputs_table=rules.metabolic_inputs_read.output[0],
        space_checked=rules.metabolic_publish_space.output[0],
    output:
        **history_published(),
        ranking=report(
            update("results/enzyme_ranking.tsv"),
            caption="../report/enzyme_ranking.rst",
            category="Enzyme ranking",
        ),
        quality=report(
            update("results/enzyme_ranking_quality.tsv"),
            caption="../report/enzyme_ranking_quality.rst",
            category="Enzyme ranking",
        ),
        orphans=report(
            update("results/orphan_reactions.tsv"),
            caption="../report/orphan_reactions.rst",
            category="Enzyme ranking",
        ),
        browser=report(
            update("results/enzyme_ranking.html"),
            caption="../report/enzyme_browser.rst",
            category="Enzyme ranking",
        ),
        accuracy=update(f"{MET_DIR}/accuracy.tsv"),
        accuracy_plot=report(
            update(f"{MET_DIR}/accuracy.png"),
            caption="../report/metabolic_accuracy.rst",
            category="Enzyme ranking",
        ),
        validation=report(
            update(f"{MET_DIR}/ranking_validation.tsv"),
            caption="../report/ranking_validation.rst",
            category="Enzyme ranking",
        ),
        shown_validation=report(
            update(f"{MET_DIR}/shown_validation.tsv"),
            caption="../report/shown_validation.rst",
            category="Enzyme ranking",
        ),
        calibration=report(
            update(f"{MET_DIR}/calibration.tsv"),
            caption="../report/calibration.rst",
            category="Enzyme ranking",
        ),
        calibration_reliability=update(f"{MET_DIR}/calibration_reliability.tsv"),
        calibration_plot=report(
            update(f"{MET_DIR}/calibration.png"),
            caption="../report/calibration.rst",
            category="Enzyme ranking",
        ),
        provenance=report(
            update(f"{MET_DIR}/provenance.tsv"),
            caption="../report/provenance.rst",
            category="Enzyme ranking",
        ),
    log:
        "logs/metabolic/provenance.log",
    benchmark:
        "logs/metabolic/provenance.benchmark.tsv"
    conda:
        "../envs/geomargin.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        config={"seed": config["seed"], **MET},
        published={
            "staged_ranking": "ranking",
            "staged_quality": "quality",
            "staged_orphans": "orphans",
            "staged_browser": "browser",
            "staged_accuracy": "accuracy",
            "staged_accuracy_plot": "accuracy_plot",
            "staged_validation": "validation",
            "staged_shown_validation": "shown_validation",
            "staged_calibration": "calibration",
            "staged_calibration_reliability": "calibration_reliability",
            "staged_calibration_plot": "calibration_plot",
            **{f"staged_{k}": k for k in history_published()},
        },
    script:
        "../scripts/provenance.py"
