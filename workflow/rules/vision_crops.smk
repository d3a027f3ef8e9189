# Part-based car detection (Chechik et al. 2008, Sec. 4.1) on the UIUC cars,
# crop cross-validation: fetch -> per-fold landmark-candidate features
# (featurizer fitted on the fold's training crops only) -> per-method CV ->
# accuracy table + chart, the candidates figures and the candidate counts.
# Scene detection is in vision_scenes.smk; VIS, VIS_DIR, VIS_DATA and
# vision_featurizer_params are in common.smk.


rule vision_fold_features:
    input:
        data=VIS_DATA,
    output:
        f"{VIS_DIR}/features/fold{{fold}}.npz",
    log:
        "logs/vision/features_fold{fold}.log",
    benchmark:
        "logs/vision/features_fold{fold}.benchmark.tsv"
    wildcard_constraints:
        fold=r"\d+",
    conda:
        "../envs/geomargin.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=20,
    params:
        # the folder's content: a changed file reruns the rule (common.smk)
        data_sha256=vis_data_sha256,
        featurizer=vision_featurizer_params,
        n_splits=VIS["n_splits"],
        seed=config["seed"],
    script:
        "../scripts/vision_features.py"


rule vision_cv:
    input:
        expand(f"{VIS_DIR}/features/fold{{fold}}.npz", fold=range(VIS["n_splits"])),
    output:
        folds=f"{VIS_DIR}/cv/{{method}}.tsv",
        scores=f"{VIS_DIR}/cv/{{method}}_scores.tsv",
    log:
        "logs/vision/cv_{method}.log",
    benchmark:
        "logs/vision/cv_{method}.benchmark.tsv"
    conda:
        "../envs/geomargin.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=120,
    params:
        val_fraction=VIS["val_fraction"],
        min_present_fraction=VIS["min_present_fraction"],
        grid=lambda wc: VIS["param_grids"].get(wc.method),
        seed=config["seed"],
    script:
        "../scripts/vision_cv.py"


rule vision_detection_accuracy:
    input:
        expand(f"{VIS_DIR}/cv/{{method}}.tsv", method=VIS["methods"]),
    output:
        table=report(
            "results/detection_accuracy.tsv",
            caption="../report/detection_accuracy.rst",
            category="Car detection",
        ),
        plot=report(
            f"{VIS_DIR}/detection_accuracy.png",
            caption="../report/detection_accuracy.rst",
            category="Car detection",
        ),
    log:
        "logs/vision/detection_accuracy.log",
    benchmark:
        "logs/vision/detection_accuracy.benchmark.tsv"
    conda:
        "../envs/geomargin.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        methods=VIS["methods"],
    script:
        "../scripts/vision_accuracy.py"


rule vision_candidates_figure:
    input:
        data=VIS_DATA,
        scores=expand(f"{VIS_DIR}/cv/{{method}}_scores.tsv", method=VIS["methods"]),
        features=expand(
            f"{VIS_DIR}/features/fold{{fold}}.npz", fold=range(VIS["n_splits"])
        ),
    output:
        easy=report(
            f"{VIS_DIR}/candidates_easy.png",
            caption="../report/candidates.rst",
            category="Car detection",
        ),
        hard=report(
            f"{VIS_DIR}/candidates_hard.png",
            caption="../report/candidates.rst",
            category="Car detection",
        ),
    log:
        "logs/vision/candidates_figure.log",
    benchmark:
        "logs/vision/candidates_figure.benchmark.tsv"
    conda:
        "../envs/geomargin.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        # the folder's content: a changed file reruns the rule (common.smk)
        data_sha256=vis_data_sha256,
        methods=VIS["methods"],
        reference="geometric",
        landmark=0,  # the most distinctive landmark (highest Fisher score)
        featurizer=vision_featurizer_params,
        seed=config["seed"],
    script:
        "../scripts/vision_candidates_figure.py"


rule vision_candidate_counts:
    input:
        expand(f"{VIS_DIR}/features/fold{{fold}}.npz", fold=range(VIS["n_splits"])),
    output:
        report(
            f"{VIS_DIR}/candidate_counts.tsv",
            caption="../report/candidate_counts.rst",
            category="Car detection",
        ),
    log:
        "logs/vision/candidate_counts.log",
    benchmark:
        "logs/vision/candidate_counts.benchmark.tsv"
    conda:
        "../envs/geomargin.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        max_candidates=VIS["max_candidates"],
        detector=VIS["detector"],
    script:
        "../scripts/vision_candidate_counts.py"
