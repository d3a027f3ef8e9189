"""Errors raised by :mod:`geomargin.featurize` and :mod:`geomargin.data` for bad input files, and
by :mod:`geomargin.common.publish` for a disk that cannot hold a publish.

Every message names the file or folder (and field, row or value where known),
says what was expected and how to fix the problem.
"""

from __future__ import annotations


class GeomarginInputError(ValueError):
    """An input file or value is malformed."""


class InputFileError(GeomarginInputError):
    """A file cannot be read or does not have the expected content."""

    def __init__(self, path, problem: str, hint: str = "") -> None:
        self.path = str(path)
        msg = f"{self.path}: {problem}"
        if hint:
            msg += f" ({hint})"
        super().__init__(msg)


class UnknownGeneError(GeomarginInputError):
    """A gene rule or table names a gene the model does not know."""


class FetchError(RuntimeError):
    """A registered data file could be taken neither from the mirror nor from
    its public sources, or its checksum does not match."""


class GeneIdError(GeomarginInputError):
    """A gene id is not valid after normalisation (see :mod:`geomargin.featurize.metabolic.genes`)."""


class DuplicateGeneError(GeomarginInputError):
    """A table has several rows for one gene (after normalisation) whose values
    conflict, and the duplicates policy is ``error``."""


class SourceCoverageError(GeomarginInputError):
    """A configured data source matches too few of the network's genes."""


class ConfigValueError(GeomarginInputError):
    """A configuration value cannot work with the data (e.g. more folds than
    groups); the message names the config key, the value and what is expected."""


class DiskSpaceError(RuntimeError):
    """A folder's file system has too little free space for what a step is
    about to write; the message names the folder, the space needed and the
    space free."""
