# Part-based car detection (Chechik et al. 2008, Sec. 4.1) on the UIUC cars:
# fetch -> per-fold landmark-candidate features (featurizer fitted on the
# fold's training crops only) -> per-method CV -> accuracy table + chart;
# and sliding-window detection on the 170 single-scale test scenes and (image
# pyramid) the 108 multi-scale scenes, one trained model per method for both.

VIS = config["vision"]
VIS_DIR = "results/vision"
# The UIUC layout: the fetched dataset, or file:DIR (config vision.data).
VIS_DATA = input_ref(VIS["data"])
# a method name, exactly: "{method}_model.joblib" must not match "zero_crop_model.joblib"
VIS_METHOD = "|".join(
    re.escape(m) for m in dict.fromkeys(VIS["methods"] + VIS["scene_methods"])
)
VIS_FEAT = {
    k: VIS[k]
    for k in (
        "n_landmarks",
        "patch_size",
        "max_candidates",
        "threshold",
        "search_radius",
        "n_pca",
        "min_distance",
        "detector",
        "hog_threshold",
        "hog_cell_size",
        "hog_orientations",
        "hog_C",
        "slot_place",
    )
}


rule vision_fold_features:
    input:
        data=VIS_DATA,
    output:
        f"{VIS_DIR}/features/fold{{fold}}.npz",
    log:
        "logs/vision/features_fold{fold}.log",
    wildcard_constraints:
        fold=r"\d+",
    conda:
        "../envs/geomargin.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=20,
    params:
        featurizer=VIS_FEAT,
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


rule vision_scene_featurizer:
    input:
        data=VIS_DATA,
    output:
        f"{VIS_DIR}/scenes/featurizer.joblib",
    log:
        "logs/vision/scene_featurizer.log",
    conda:
        "../envs/geomargin.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=20,
    params:
        featurizer=VIS_FEAT,
        min_present_fraction=VIS["min_present_fraction"],
        seed=config["seed"],
    script:
        "../scripts/vision_scene_featurizer.py"


rule vision_scene_crop_model:
    input:
        featurizer=f"{VIS_DIR}/scenes/featurizer.joblib",
    output:
        f"{VIS_DIR}/scenes/{{method}}_crop_model.joblib",
    log:
        "logs/vision/scene_crop_model_{method}.log",
    wildcard_constraints:
        method=VIS_METHOD,
    conda:
        "../envs/geomargin.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    params:
        val_fraction=VIS["val_fraction"],
        grid=lambda wc: VIS["param_grids"].get(wc.method),
        seed=config["seed"],
    script:
        "../scripts/vision_scene_crop_model.py"


# Hard negatives of every scene method from the enlarged training negatives,
# window features computed once for all methods (no test scene is read).
rule vision_hard_negatives:
    input:
        data=VIS_DATA,
        featurizer=f"{VIS_DIR}/scenes/featurizer.joblib",
        models=expand(
            f"{VIS_DIR}/scenes/{{method}}_crop_model.joblib",
            method=VIS["scene_methods"],
        ),
    output:
        expand(
            f"{VIS_DIR}/scenes/{{method}}_hard_negatives.npz",
            method=VIS["scene_methods"],
        ),
    log:
        "logs/vision/hard_negatives.log",
    conda:
        "../envs/geomargin.yaml"
    threads: 2  # negatives spread over processes
    resources:
        mem_mb=6000,
        runtime=120,
    params:
        methods=VIS["scene_methods"],
        hard_negatives=VIS["hard_negatives"],
    script:
        "../scripts/vision_hard_negatives.py"


rule vision_scene_model:
    input:
        featurizer=f"{VIS_DIR}/scenes/featurizer.joblib",
        crop_model=f"{VIS_DIR}/scenes/{{method}}_crop_model.joblib",
        hard_negatives=f"{VIS_DIR}/scenes/{{method}}_hard_negatives.npz",
    output:
        f"{VIS_DIR}/scenes/{{method}}_model.joblib",
    log:
        "logs/vision/scene_model_{method}.log",
    wildcard_constraints:
        method=VIS_METHOD,
    conda:
        "../envs/geomargin.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    params:
        seed=config["seed"],
    script:
        "../scripts/vision_scene_model.py"


# One job per test set scores every method: a scene's window features (the
# costly part) are computed once and scored by each method's model.
rule vision_scenes:
    input:
        data=VIS_DATA,
        featurizer=f"{VIS_DIR}/scenes/featurizer.joblib",
        models=expand(
            f"{VIS_DIR}/scenes/{{method}}_model.joblib", method=VIS["scene_methods"]
        ),
    output:
        expand(
            f"{VIS_DIR}/scenes/{{method}}_detections.tsv", method=VIS["scene_methods"]
        ),
    log:
        "logs/vision/scenes.log",
    conda:
        "../envs/geomargin.yaml"
    threads: 2  # scenes spread over processes
    resources:
        mem_mb=6000,
        runtime=120,
    params:
        methods=VIS["scene_methods"],
        multiscale=False,
        pyramid=None,
        stride=VIS["stride"],
        nms_radius=VIS["nms_radius"],
    script:
        "../scripts/vision_scenes.py"


use rule vision_scenes as vision_scenes_scale with:
    output:
        expand(
            f"{VIS_DIR}/scenes_scale/{{method}}_detections.tsv",
            method=VIS["scene_methods"],
        ),
    log:
        "logs/vision/scenes_scale.log",
    params:
        methods=VIS["scene_methods"],
        multiscale=True,
        pyramid=VIS["pyramid"],
        stride=VIS["stride"],
        nms_radius=VIS["nms_radius"],


rule vision_scene_detection:
    input:
        data=VIS_DATA,
        detections=expand(
            f"{VIS_DIR}/scenes/{{method}}_detections.tsv", method=VIS["scene_methods"]
        ),
    output:
        table=report(
            f"{VIS_DIR}/scene_detection.tsv",
            caption="../report/scene_detection.rst",
            category="Car detection",
        ),
        plot=report(
            f"{VIS_DIR}/scene_detection.png",
            caption="../report/scene_detection.rst",
            category="Car detection",
        ),
    log:
        "logs/vision/scene_detection.log",
    conda:
        "../envs/geomargin.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        methods=VIS["scene_methods"],
        tolerance=VIS["tolerance"],
        multiscale=False,
    script:
        "../scripts/vision_scene_report.py"


use rule vision_scene_detection as vision_scene_detection_scale with:
    input:
        data=VIS_DATA,
        detections=expand(
            f"{VIS_DIR}/scenes_scale/{{method}}_detections.tsv",
            method=VIS["scene_methods"],
        ),
    output:
        table=report(
            f"{VIS_DIR}/scene_detection_scale.tsv",
            caption="../report/scene_detection_scale.rst",
            category="Car detection",
        ),
        plot=report(
            f"{VIS_DIR}/scene_detection_scale.png",
            caption="../report/scene_detection_scale.rst",
            category="Car detection",
        ),
    log:
        "logs/vision/scene_detection_scale.log",
    params:
        methods=VIS["scene_methods"],
        tolerance=VIS["tolerance"],
        multiscale=True,


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
    conda:
        "../envs/geomargin.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        methods=VIS["methods"],
        reference="geometric",
        landmark=0,  # the most distinctive landmark (highest Fisher score)
        featurizer=VIS_FEAT,
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
