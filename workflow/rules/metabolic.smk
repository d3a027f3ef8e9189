# Enzyme ranking on a metabolic network:
# fetch -> featurize -> nested cross-validation per method -> accuracy table,
# ranking validation -> ranked candidates for reactions without a known gene.

MET_DIR = "results/metabolic"


rule metabolic_features:
    input:
        **metabolic_inputs(),
    output:
        features=f"{MET_DIR}/features/features.npz",
        instances=f"{MET_DIR}/features/instances.tsv",
        featurizer=f"{MET_DIR}/features/featurizer.pkl",
        summary=f"{MET_DIR}/features/summary.tsv",
    log:
        "logs/metabolic/features.log",
    conda:
        "../envs/geomargin.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        dataset=MET["dataset"],
        localization=DATASET["localization"],
        n_currency=MET["n_currency"],
        extra_currency=MET["extra_currency"],
        min_domain_genes=MET["min_domain_genes"],
        negatives_per_positive=MET["negatives_per_positive"],
        min_source_coverage=MET["min_source_coverage"],
        duplicate_genes=MET["duplicate_genes"],
        candidates=MET["ranking"]["candidates"],
        seed=config["seed"],
    script:
        "../scripts/metabolic_features.py"


rule metabolic_provenance:
    input:
        **metabolic_inputs(),
        # only inputs that featurized cleanly are recorded (a failed run must
        # not leave a provenance newer than the results it describes)
        features_ok=rules.metabolic_features.output.summary,
    output:
        report(
            f"{MET_DIR}/provenance.tsv",
            caption="../report/provenance.rst",
            category="Enzyme ranking",
        ),
    log:
        "logs/metabolic/provenance.log",
    conda:
        "../envs/geomargin.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        config={"seed": config["seed"], **MET},
    script:
        "../scripts/provenance.py"


rule metabolic_cv:
    input:
        features=rules.metabolic_features.output.features,
    output:
        cv=f"{MET_DIR}/cv/{{method}}.pkl",
        folds=f"{MET_DIR}/cv/{{method}}_folds.tsv",
    log:
        "logs/metabolic/cv_{method}.log",
    conda:
        "../envs/geomargin.yaml"
    threads: 1
    resources:
        mem_mb=6000,
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
        table=f"{MET_DIR}/accuracy.tsv",
        plot=report(
            f"{MET_DIR}/accuracy.png",
            caption="../report/metabolic_accuracy.rst",
            category="Enzyme ranking",
        ),
    log:
        "logs/metabolic/accuracy.log",
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
        table=report(
            f"{MET_DIR}/ranking_validation.tsv",
            caption="../report/ranking_validation.rst",
            category="Enzyme ranking",
        ),
    log:
        "logs/metabolic/ranking_validation.log",
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
        seed=config["seed"],
    script:
        "../scripts/metabolic_ranking_validation.py"


rule enzyme_ranking:
    input:
        cv=f"{MET_DIR}/cv/{MET['ranking']['method']}.pkl",
        features=rules.metabolic_features.output.features,
        featurizer=rules.metabolic_features.output.featurizer,
        # The final ranking is only worth reading beside its validation and the
        # method comparison; building them here keeps the three outputs together.
        validation=rules.metabolic_ranking_validation.output.table,
        accuracy=rules.metabolic_accuracy.output.table,
        # what the ranking was made from, for the report
        provenance=rules.metabolic_provenance.output[0],
    output:
        report(
            "results/enzyme_ranking.tsv",
            caption="../report/enzyme_ranking.rst",
            category="Enzyme ranking",
        ),
    log:
        "logs/metabolic/enzyme_ranking.log",
    conda:
        "../envs/geomargin.yaml"
    threads: 2
    resources:
        mem_mb=6000,
        runtime=60,
    params:
        method=MET["ranking"]["method"],
        top_n=MET["ranking"]["top_n"],
        batch_size=MET["ranking"]["batch_size"],
        seed=config["seed"],
    script:
        "../scripts/enzyme_ranking.py"
