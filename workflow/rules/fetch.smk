# Stage 1: fetch every registered input (mirror first, else public source;
# sha256 verified either way).


rule fetch_file:
    output:
        f"{DOWNLOAD_DIR}/{{target}}",
    wildcard_constraints:
        target="|".join(
            re.escape(e["target"]) for e in REGISTRY.values() if e.get("kind", "file") == "file"
        ),
    params:
        name=lambda wc: next(n for n, e in REGISTRY.items() if e["target"] == wc.target),
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
