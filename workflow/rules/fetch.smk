# Stage 1: fetch every registered input (mirror first, else public source;
# sha256 verified either way).


rule fetch_file:
    output:
        f"{DOWNLOAD_DIR}/{{target}}",
    wildcard_constraints:
        target="|".join(
            re.escape(e["path"]) for e in REGISTRY.values() if e.get("kind", "file") == "file"
        ),
    params:
        name=lambda wc: next(n for n, e in REGISTRY.items() if e["path"] == wc.target),
        mirror=DATA_MIRROR,
        dest=DOWNLOAD_DIR,
    log:
        "logs/fetch/{target}.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    script:
        "../scripts/fetch.py"


rule fetch_uiuc_cars:
    output:
        directory(f"{DOWNLOAD_DIR}/{REGISTRY['uiuc_cars']['path']}"),
    params:
        name="uiuc_cars",
        mirror=DATA_MIRROR,
        dest=DOWNLOAD_DIR,
    log:
        "logs/fetch/uiuc_cars.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    script:
        "../scripts/fetch.py"
