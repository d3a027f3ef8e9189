# The phmmer searches of the homology block (metabolic.homology_features),
# once for every release the workflow runs: the genes of the input set's
# model and of every older release's (time split, release history) against
# the proteome. A query's hits do not depend on the other queries, so each
# release's features read exactly what a search of its own genes would give.


rule metabolic_homology:
    input:
        networks=[input_ref(ref) for ref in homology_networks()],
        proteome=input_ref(MET["proteome"]),
    output:
        hits=HOMOLOGY_HITS,
    log:
        "logs/metabolic/homology.log",
    benchmark:
        "logs/metabolic/homology.benchmark.tsv"
    conda:
        "../envs/geomargin.yaml"
    threads: 2
    resources:
        mem_mb=3000,
        runtime=30,
    params:
        max_evalue=MET["homology_max_evalue"],
        # the inputs' content: a replaced file reruns the searches (common.smk)
        inputs_sha256={
            ref: content_sha256(ref) for ref in [*homology_networks(), MET["proteome"]]
        },
    script:
        "../scripts/metabolic_homology.py"
