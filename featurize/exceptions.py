"""Errors raised by :mod:`featurize` and :mod:`data` for bad input files.

Every message names the file (and field, row or value where known), says
what was expected and how to fix the problem.
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
