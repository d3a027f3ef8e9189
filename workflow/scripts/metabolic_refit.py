"""Refit one learned ranking method on every instance (rank/refit.py)."""

from threadpoolctl import threadpool_limits

from geomargin.common.io import load_npz, save_pickle_atomic
from geomargin.rank.refit import refit_model

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake
# one BLAS/OpenMP thread: a multithreaded reduction can change a refit's last bits
threadpool_limits(1)

data = load_npz(smk.input.features, allow_pickle=False)
model, _ = refit_model(smk.wildcards.method, smk.input.cv, data, seed=smk.params.seed, log=log)
save_pickle_atomic(model, smk.output.model)
