"""The start of the command line of every script in ``benchmarks/`` and
``analysis/``: where the real-data mirror is, a finished run's folder, and
the UIUC car set options the vision scripts share."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from geomargin.data.fetch import MIRROR_ENV

#: The checkout (this file is ``common/cli.py`` in it).
REPO = Path(__file__).resolve().parents[1]


def mirror_dir() -> Path:
    """The real-data mirror: ``$GEOMARGIN_DATA_MIRROR``, else the checkout's
    sibling ``../shared/data``."""
    return Path(os.environ.get(MIRROR_ENV, REPO.parent / "shared" / "data"))


def parser(doc: str) -> argparse.ArgumentParser:
    """An argument parser whose help is the script's whole docstring."""
    return argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)


def uiuc_parser(doc: str, default_set: str | None = None) -> argparse.ArgumentParser:
    """:func:`parser` with ``--data`` (the UIUC car folder, from the mirror by
    default) and, when ``default_set`` is given, ``--set single|scale``."""
    ap = parser(doc)
    ap.add_argument("--data", type=Path, default=mirror_dir() / "vision" / "uiuc_cars")
    if default_set is not None:
        ap.add_argument("--set", choices=("single", "scale"), default=default_set)
    return ap


def workdir_parser(doc: str) -> argparse.ArgumentParser:
    """:func:`parser` with ``--workdir`` (required): the folder of a finished
    run of the workflow, whose ``results/`` the benchmark reads."""
    ap = parser(doc)
    ap.add_argument("--workdir", type=Path, required=True,
                    help="folder of a finished workflow run (its results/ is read)")
    return ap
