# Sliding-window car detection on the 170 single-scale UIUC test scenes and
# (image pyramid) the 108 multi-scale scenes: one featurizer fitted on all
# training crops, one crop model per method, hard negatives, one scene model
# per method for both test sets, and the detection reports. Crop
# cross-validation is in vision_crops.smk.

# a method name, exactly: "{method}_model.joblib" must not match "zero_crop_model.joblib"
VIS_METHOD = "|".join(
    re.escape(m) for m in dict.fromkeys(VIS["methods"] + VIS["scene_methods"])
)


rule vision_scene_featurizer:
    input:
        data=VIS_DATA,
    output:
        f"{VIS_DIR}/scenes/featurizer.joblib",
    log:
        "logs/vision/scene_featurizer.log",
    benchmark:
        "logs/vision/scene_featurizer.benchmark.tsv"
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
    benchmark:
        "logs/vision/scene_crop_model_{method}.benchmark.tsv"
    wildcard_constraints:
        method=VIS_METHOD,
    priority: longest_first(CROP_MODEL_FIRST)
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
    benchmark:
        "logs/vision/hard_negatives.benchmark.tsv"
    conda:
        "../envs/geomargin.yaml"
    threads: 2  # negatives spread over processes
    resources:
        mem_mb=6000,
        runtime=120,
    params:
        # the folder's content: a changed file reruns the rule (common.smk)
        data_sha256=vis_data_sha256,
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
    benchmark:
        "logs/vision/scene_model_{method}.benchmark.tsv"
    wildcard_constraints:
        method=VIS_METHOD,
    priority: longest_first(SCENE_MODEL_FIRST)
    conda:
        "../envs/geomargin.yaml"
    threads: 1
    resources:
        mem_mb=scene_model_mem_mb,
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
    benchmark:
        "logs/vision/scenes.benchmark.tsv"
    conda:
        "../envs/geomargin.yaml"
    threads: 2  # scenes spread over processes
    resources:
        mem_mb=6000,
        runtime=120,
    params:
        # the folder's content: a changed file reruns the rule (common.smk)
        data_sha256=vis_data_sha256,
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
    benchmark:
        "logs/vision/scenes_scale.benchmark.tsv"
    params:
        # the folder's content: a changed file reruns the rule (common.smk)
        data_sha256=vis_data_sha256,
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
    benchmark:
        "logs/vision/scene_detection.benchmark.tsv"
    conda:
        "../envs/geomargin.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        # the folder's content: a changed file reruns the rule (common.smk)
        data_sha256=vis_data_sha256,
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
    benchmark:
        "logs/vision/scene_detection_scale.benchmark.tsv"
    params:
        # the folder's content: a changed file reruns the rule (common.smk)
        data_sha256=vis_data_sha256,
        methods=VIS["scene_methods"],
        tolerance=VIS["tolerance"],
        multiscale=True,
