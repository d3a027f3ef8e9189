"""Stop before a publish job when the disk cannot hold what it writes
(:func:`geomargin.common.publish.check_space`), with one line naming the folder, the
space needed and the space free.

A job of its own, run right before the publish job: Snakemake copies the
publish job's existing ``update`` outputs to ``.snakemake/backups/`` before
that job starts, and when it fails copies them back through their links
(same bytes, new mtimes). Stopping here leaves the published set untouched.
Its output is ``temp()``: gone after the publish, so the check runs again
before every publish."""

import os
from pathlib import Path

from geomargin.common.publish import check_space

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake

staged = dict(smk.input.items())
# published path -> the staged input published there, or "" for a file the
# publish job makes itself (the provenance)
files = {dst: staged[role] if role else None for dst, role in smk.params.published.items()}
line = check_space(files, os.path.commonpath([os.path.dirname(os.path.abspath(f)) for f in files]))
log.info("%s", line)
Path(smk.output[0]).write_text(line + "\n")
