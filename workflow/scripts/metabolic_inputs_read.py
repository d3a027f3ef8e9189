"""The input table of the provenance: each input file with the size and
sha256 of the content the features step read (and its registry entry).

Stops, naming the file and both checksums, if an input no longer holds the
content that was read: the results were computed from that content. Runs
before the publishing job, so a stop leaves the published results as they
were (bytes and mtimes)."""

import pandas as pd

from geomargin.common.io import write_tsv_atomic
from geomargin.data.provenance import check_unchanged_since_read, input_roles, input_table

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake

read = pd.read_csv(smk.input.inputs_read, sep="\t", dtype=str, keep_default_na=False)
check_unchanged_since_read(read, "the features step")
table = input_table(input_roles(dict(smk.input.items()), skip=["inputs_read", "staged"]), read=read)
log.info("\n%s", table.to_string(index=False))
write_tsv_atomic(table, smk.output[0])
