# Missing-completely-at-random sanity benchmark (Chechik et al. 2008, first
# scenario): small real tables with features removed at random per instance
# (mcar<percent>) and the 8x8 digits 5 vs 6 with a random square patch of
# pixels removed (patch<percent>). One data job per (dataset, scenario), one
# nested-CV job per (dataset, scenario, method), one summary.
#   snakemake --cores 2 results/mcar/accuracy.tsv

MCAR = config["mcar"]
MCAR_DIR = "results/mcar"
# Datasets of featurize/tabular/ and the registry file each is read from
# (config mcar.inputs can name another file).
MCAR_SOURCES = {
    "wdbc": "wdbc",
    "digits56": "digits",
    "ionosphere": "ionosphere",
    "wisconsin": "wisconsin",
}
MCAR_JOBS = [(ds, sc) for ds, scens in MCAR["datasets"].items() for sc in scens]
MCAR_DS = "|".join(MCAR_SOURCES)
MCAR_SC = r"(mcar|patch)\d{1,2}"


rule mcar_data:
    input:
        lambda wc: input_ref(MCAR["inputs"].get(wc.mcar_ds, MCAR_SOURCES[wc.mcar_ds])),
    output:
        f"{MCAR_DIR}/data/{{mcar_ds}}_{{mcar_sc}}.npz",
    log:
        "logs/mcar/data_{mcar_ds}_{mcar_sc}.log",
    benchmark:
        "logs/mcar/data_{mcar_ds}_{mcar_sc}.benchmark.tsv"
    wildcard_constraints:
        mcar_ds=MCAR_DS,
        mcar_sc=MCAR_SC,
    conda:
        "../envs/geomargin.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        n_partitions=MCAR["n_partitions"],
        seed=config["seed"],
    script:
        "../scripts/mcar_data.py"


rule mcar_cv:
    input:
        rules.mcar_data.output[0],
    output:
        f"{MCAR_DIR}/cv/{{mcar_ds}}_{{mcar_sc}}/{{method}}.tsv",
    log:
        "logs/mcar/cv_{mcar_ds}_{mcar_sc}_{method}.log",
    benchmark:
        "logs/mcar/cv_{mcar_ds}_{mcar_sc}_{method}.benchmark.tsv"
    wildcard_constraints:
        mcar_ds=MCAR_DS,
        mcar_sc=MCAR_SC,
        method="|".join(MCAR["methods"]),
    conda:
        "../envs/geomargin.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=120,
    params:
        grid=lambda wc: MCAR["param_grids"].get(wc.method),
        n_splits=MCAR["n_splits"],
        val_fraction=MCAR["val_fraction"],
        seed=config["seed"],
    script:
        "../scripts/mcar_cv.py"


rule mcar_accuracy:
    input:
        data=[f"{MCAR_DIR}/data/{ds}_{sc}.npz" for ds, sc in MCAR_JOBS],
        folds=[
            f"{MCAR_DIR}/cv/{ds}_{sc}/{m}.tsv"
            for ds, sc in MCAR_JOBS
            for m in MCAR["methods"]
        ],
    output:
        table=f"{MCAR_DIR}/accuracy.tsv",
        plot=report(
            f"{MCAR_DIR}/accuracy.png",
            caption="../report/mcar_accuracy.rst",
            category="MCAR sanity benchmark",
        ),
    log:
        "logs/mcar/accuracy.log",
    benchmark:
        "logs/mcar/accuracy.benchmark.tsv"
    conda:
        "../envs/geomargin.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        jobs=MCAR_JOBS,
        methods=MCAR["methods"],
    script:
        "../scripts/mcar_accuracy.py"
