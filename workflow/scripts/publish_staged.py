"""Publish a rule's staged files as one set under the outputs' common folder
(:func:`geomargin.common.publish.publish_set`): each input is published as the output
of the same name, but ``space_checked``, the marker of the job that checked
the space first (``publish_space.py``). A publish killed at any moment leaves
the previous complete set or the new one."""

import os

from geomargin.common.publish import publish_set

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake

files = {getattr(smk.output, role): path for role, path in smk.input.items() if role != "space_checked"}
publish_set(files, os.path.commonpath([os.path.dirname(os.path.abspath(f)) for f in files]))
for dst, src in files.items():
    log.info("published %s -> %s", src, dst)
