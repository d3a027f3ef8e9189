"""The phmmer searches of the homology block: every gene of the given models
with a sequence against the whole proteome (featurize.metabolic.homology)."""

import time

from geomargin.common.io import sha256_file
from geomargin.featurize.metabolic.homology import search_homologs, write_hits
from geomargin.featurize.metabolic.model_io import load_model
from geomargin.featurize.metabolic.proteome import load_proteome

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake

proteome = load_proteome(smk.input.proteome)
log.info("proteome %s: %d ORFs with a sequence (%d rows name no ORF)", smk.input.proteome,
         len(proteome.sequences), len(proteome.without_orf))
genes = set()
for path in smk.input.networks:
    model_genes = {g.id for g in load_model(path).genes}
    log.info("model %s: %d genes", path, len(model_genes))
    genes |= model_genes
genes = sorted(genes)
start = time.perf_counter()
table = search_homologs(proteome.sequences, genes, max_evalue=smk.params.max_evalue, cpus=smk.threads)
queries = table["query"].nunique()
log.info("phmmer: %d of the models' %d genes searched against %d proteins in %.1f s (%d threads): "
         "%d hits at E <= %g besides the self-scores", queries, len(genes), len(proteome.sequences),
         time.perf_counter() - start, smk.threads, int((table["query"] != table["target"]).sum()),
         smk.params.max_evalue)
write_hits(table, smk.output.hits)
log.info("wrote %s (sha256 %s)", smk.output.hits, sha256_file(smk.output.hits))
