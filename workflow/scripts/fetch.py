"""Fetch one registered input file (mirror first, then public sources)."""

from geomargin.data.fetch import fetch

from _bootstrap import setup

log = setup(snakemake)

# Not a param on purpose (see workflow/rules/fetch.smk); empty -> the
# library falls back to $GEOMARGIN_DATA_MIRROR, then the public sources.
mirror = snakemake.config.get("data_mirror") or None
path = fetch(snakemake.params.name, snakemake.params.dest, mirror=mirror)
log.info("fetched %s -> %s", snakemake.params.name, path)
