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
        impostor_pool=MET["impostor_pool"],
        adjacency=MET["adjacency_features"],
        representation=MET["representation"],
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
        margin_rule=MET["ranking"]["margin_rule"],
        n_bootstrap=MET["ranking"]["n_bootstrap"],
        seed=config["seed"],
    script:
        "../scripts/metabolic_ranking_validation.py"


rule enzyme_ranking:
    input:
        # the method is chosen from the validation ("auto"): every candidate model
        cv=expand(f"{MET_DIR}/cv/{{method}}.pkl", method=ranking_models()),
        features=rules.metabolic_features.output.features,
        featurizer=rules.metabolic_features.output.featurizer,
        # The final ranking is only worth reading beside its validation and the
        # method comparison; building them here keeps the three outputs together.
        validation=rules.metabolic_ranking_validation.output.table,
        accuracy=rules.metabolic_accuracy.output.table,
        # what the ranking was made from, for the report
        provenance=rules.metabolic_provenance.output[0],
        # cross-validated ranks of true genes: validated_precision per rank
        true_ranks=rules.metabolic_ranking_validation.output.ranks,
    output:
        ranking=report(
            "results/enzyme_ranking.tsv",
            caption="../report/enzyme_ranking.rst",
            category="Enzyme ranking",
        ),
        quality=report(
            "results/enzyme_ranking_quality.tsv",
            caption="../report/enzyme_ranking_quality.rst",
            category="Enzyme ranking",
        ),
        orphans=report(
            "results/orphan_reactions.tsv",
            caption="../report/orphan_reactions.rst",
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
        cv_methods=ranking_models(),
        margin_rule=MET["ranking"]["margin_rule"],
        top_n=MET["ranking"]["top_n"],
        batch_size=MET["ranking"]["batch_size"],
        seed=config["seed"],
        kinds=MET["ranking"]["kinds"],
    script:
        "../scripts/enzyme_ranking.py"


rule enzyme_browser:
    input:
        ranking=rules.enzyme_ranking.output.ranking,
        orphans=rules.enzyme_ranking.output.orphans,
        featurizer=rules.metabolic_features.output.featurizer,
        validation=rules.metabolic_ranking_validation.output.table,
        # the page's inlined JavaScript and CSS: editing them rebuilds the page
        assets=[
            str(REPO / "models" / "browser_assets" / f)
            for f in ("browser.js", "browser.css")
        ],
    output:
        report(
            "results/enzyme_ranking.html",
            caption="../report/enzyme_browser.rst",
            category="Enzyme ranking",
        ),
    log:
        "logs/metabolic/enzyme_browser.log",
    conda:
        "../envs/geomargin.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        dataset=MET["dataset"],
        bigg_model=DATASET.get("bigg_model", ""),
    script:
        "../scripts/enzyme_browser.py"
