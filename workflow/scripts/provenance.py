"""Publish the enzyme-ranking results of a run, then record its inputs (with
sha256), package versions and configuration beside them.

Runs last: every result it publishes is finished (made in
``results/metabolic/staged/``), so ``provenance.tsv`` always describes the
results beside it; a run that fails earlier leaves both as they were."""

import json
import shutil

import pandas as pd

from data.provenance import input_table, package_table
from common.io import atomic_path, write_tsv_atomic

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake

published = dict(smk.params.published)  # staged input role -> output role
inputs = {}
for role, paths in smk.input.items():
    if role in published:  # results of this run, not inputs of the data
        continue
    paths = [paths] if isinstance(paths, str) else list(paths)
    for i, path in enumerate(paths):
        inputs[role if len(paths) == 1 else f"{role}[{i}]"] = path
table = input_table(inputs)
packages = package_table()
rows = [("input", r.role, f"{r.path} sha256={r.sha256} bytes={r.bytes} "
         f"registry={r.registry_name or '-'} matches={r.sha256_matches_registry} "
         f"licence={r.licence or '-'}") for r in table.itertuples()]
rows += [("package", r.package, r.version) for r in packages.itertuples()]
rows += [("config", "metabolic", json.dumps(smk.params.config, sort_keys=True))]
out = pd.DataFrame(rows, columns=["kind", "name", "value"])
log.info("\n%s", out.to_string(index=False))
for role, out_role in published.items():
    src, dst = getattr(smk.input, role), getattr(smk.output, out_role)
    with atomic_path(dst) as tmp:
        shutil.copyfile(src, tmp)
    log.info("published %s -> %s", src, dst)
write_tsv_atomic(out, smk.output.provenance)  # last: after everything it describes
