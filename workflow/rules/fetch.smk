# Stage 1: fetch every registered input (mirror first, else public source;
# sha256 verified either way). Where a file came from does not change it, so
# the mirror is not a param (a param change would rerun everything
# downstream): the script reads it from config["data_mirror"], then
# $GEOMARGIN_DATA_MIRROR.


rule fetch_file:
    output:
        f"{DOWNLOAD_DIR}/{{target}}",
    log:
        "logs/fetch/{target}.log",
    benchmark:
        "logs/fetch/{target}.benchmark.tsv"
    wildcard_constraints:
        target="|".join(
            re.escape(e["path"])
            for e in REGISTRY.values()
            if e.get("kind", "file") == "file"
        ),
    conda:
        "../envs/geomargin.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        name=lambda wc: next(n for n, e in REGISTRY.items() if e["path"] == wc.target),
        sha256=lambda wc: next(
            e["sha256"] for e in REGISTRY.values() if e["path"] == wc.target
        ),
        dest=lambda wc, output: output[0][: -len(wc.target) - 1],
    script:
        "../scripts/fetch.py"


rule fetch_uiuc_cars:
    output:
        directory(f"{DOWNLOAD_DIR}/{REGISTRY['uiuc_cars']['path']}"),
    log:
        "logs/fetch/uiuc_cars.log",
    benchmark:
        "logs/fetch/uiuc_cars.benchmark.tsv"
    conda:
        "../envs/geomargin.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        name="uiuc_cars",
        dest=lambda wc, output: output[0][: -len(REGISTRY["uiuc_cars"]["path"]) - 1],
    script:
        "../scripts/fetch.py"
