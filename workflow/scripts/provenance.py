"""Publish the enzyme-ranking results of a run together with their provenance
(inputs with the sha256 of the content the features step read, package
versions, configuration, machine) as one set.

Runs last: every result it publishes is finished (made in
``results/metabolic/staged/``). The set is swapped in at once
(:func:`geomargin.common.publish.publish_set`), so ``provenance.tsv`` always describes
the results beside it: a run that fails earlier, or a publish that is killed,
leaves the previous set as it was."""

import json
import os

import pandas as pd

from geomargin.data.provenance import check_unchanged_since_read, package_table
from geomargin.common.io import one_line_cells
from geomargin.common.publish import publish_set
from geomargin.report.results_pages import machine

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake

published = dict(smk.params.published)  # staged input role -> output role
# the inputs with the checksums of the content the features step read
# (metabolic_inputs_read); a file changed since then stops the publish
table = pd.read_csv(smk.input.inputs_table, sep="\t", dtype=str, keep_default_na=False)
check_unchanged_since_read(table, "the features step")
packages = package_table()
rows = [("input", r.role, f"{r.path} sha256={r.sha256} bytes={r.bytes} "
         f"registry={r.registry_name or '-'} matches={r.sha256_matches_registry} "
         f"licence={r.licence or '-'}") for r in table.itertuples()]
rows += [("package", r.package, r.version) for r in packages.itertuples()]
rows += [("config", "metabolic", json.dumps(smk.params.config, sort_keys=True))]
# the processor: timings depend on it, and the last bits of the models' float arithmetic
rows += [("machine", "platform", machine())]
out = pd.DataFrame(rows, columns=["kind", "name", "value"])
log.info("\n%s", out.to_string(index=False))
# the staged results; the other inputs (the data, read through the inputs table) order the job
files = {getattr(smk.output, published[role]): path for role, path in smk.input.items() if role in published}
files[smk.output.provenance] = one_line_cells(out).to_csv(
    sep="\t", index=False, lineterminator="\n").encode()
root = os.path.commonpath([os.path.abspath(p) for p in files])
publish_set(files, root)
for dst, src in files.items():
    log.info("published %s", dst if isinstance(src, bytes) else f"{src} -> {dst}")
