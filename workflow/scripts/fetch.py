"""Fetch one registered input file (mirror first, then public sources)."""

from _bootstrap import setup

log = setup(snakemake)  # noqa: F821 - injected by Snakemake

from data.fetch import fetch  # noqa: E402

path = fetch(
    snakemake.params.name,  # noqa: F821
    snakemake.params.dest,  # noqa: F821
    mirror=snakemake.params.mirror or None,  # noqa: F821
)
log.info("fetched %s -> %s", snakemake.params.name, path)  # noqa: F821
