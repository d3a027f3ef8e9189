"""Distribution of the number of landmark candidates per (crop, landmark) for
cars and non-cars, pooled over the out-of-fold crops of every outer fold."""

import numpy as np

from geomargin.common.io import write_tsv_atomic
from geomargin.featurize.vision.counts import candidate_count_distribution

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake

counts, y = [], []
for path in smk.input:
    with np.load(path) as d:
        counts.append(d["counts_test"])
        y.append(d["y_test"])
counts, y = np.concatenate(counts), np.concatenate(y)
table = candidate_count_distribution(counts, y, smk.params.max_candidates)
table.insert(0, "detector", smk.params.detector)
write_tsv_atomic(table, smk.output[0])
for name, label in (("cars", 1), ("non-cars", 0)):
    c = counts[y == label]
    log.info("%s: %.2f candidates per landmark, %.1f%% of landmarks with none", name, c.mean(),
             100 * (c == 0).mean())
log.info("\n%s", table.to_string(index=False))
