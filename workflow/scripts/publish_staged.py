"""Publish a rule's staged files as one set under ``params.root``
(:func:`common.publish.publish_set`): each input is published as the output
of the same name. A publish killed at any moment leaves the previous
complete set or the new one."""

from common.publish import publish_set

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake

files = {getattr(smk.output, role): path for role, path in smk.input.items()}
publish_set(files, smk.params.root)
for dst, src in files.items():
    log.info("published %s -> %s", src, dst)
