"""Fetch one registered input file (mirror first, then public sources)."""

from _bootstrap import setup

log = setup(snakemake)  # noqa: F821 - injected by Snakemake

from data.fetch import fetch  # noqa: E402

# Not a param on purpose (see workflow/rules/fetch.smk); empty -> the
# library falls back to $GEOMARGIN_DATA_MIRROR, then the public sources.
mirror = snakemake.config.get("data_mirror") or None  # noqa: F821
path = fetch(snakemake.params.name, snakemake.params.dest, mirror=mirror)  # noqa: F821
log.info("fetched %s -> %s", snakemake.params.name, path)  # noqa: F821
