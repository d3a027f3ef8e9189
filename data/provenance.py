"""A record of what a run was made from: input files with their registry
entry and the sha256 of the content a job read, the package versions, the
configuration."""

from __future__ import annotations

import platform
from importlib import metadata
from pathlib import Path
from typing import Mapping, Sequence

import pandas as pd

from geomargin.common.exceptions import InputFileError
from geomargin.common.io import sha256_file
from geomargin.data.fetch import DEFAULT_REGISTRY, load_registry

__all__ = ["input_roles", "read_record", "check_unchanged_since_read", "input_table", "package_table"]

PACKAGES = ("numpy", "scipy", "scikit-learn", "cvxpy", "cobra", "networkx", "pandas",
            "matplotlib", "opencv-python-headless", "scikit-image", "snakemake")


def input_roles(named: Mapping[str, str | Sequence[str]], skip: Sequence[str] = ()) -> dict[str, str]:
    """Role -> path of a job's named inputs (roles in ``skip`` left out): a
    role with several paths gives ``role[0]``, ``role[1]``, ...

    Examples
    --------
    >>> input_roles({"network": "m.xml", "expression": ["a.tsv", "b.tsv"], "x": "x.npz"}, skip=["x"])
    {'network': 'm.xml', 'expression[0]': 'a.tsv', 'expression[1]': 'b.tsv'}
    """
    out = {}
    for role, paths in named.items():
        if role in skip:
            continue
        paths = [paths] if isinstance(paths, (str, Path)) else list(paths)
        for i, path in enumerate(paths):
            out[role if len(paths) == 1 else f"{role}[{i}]"] = str(path)
    return out


def read_record(inputs: Mapping[str, str]) -> pd.DataFrame:
    """What a job reads, taken when it reads it: role, path, bytes and sha256
    of each input file (``inputs``: role -> path)."""
    return pd.DataFrame([{"role": role, "path": Path(path).as_posix(), "bytes": Path(path).stat().st_size,
                          "sha256": sha256_file(path)} for role, path in inputs.items()],
                        columns=["role", "path", "bytes", "sha256"])


def check_unchanged_since_read(record: pd.DataFrame, reader: str) -> None:
    """Stop if an input file of ``record`` (:func:`read_record`) no longer
    holds the content that ``reader`` read: results computed from one
    content must not be described by the checksum of another.

    Raises
    ------
    InputFileError
        Naming the file, its sha256 when read and now.
    """
    for row in record.itertuples():
        now = sha256_file(row.path) if Path(row.path).is_file() else "missing"
        if now != row.sha256:
            raise InputFileError(row.path, f"changed after {reader} read it (sha256 {row.sha256} when read, "
                                 f"{now} now)", "the results describe the content read; run the workflow "
                                 "again to compute them from the file as it is now")


def input_table(inputs: Mapping[str, str], registry: str | Path = DEFAULT_REGISTRY,
                read: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per input file: role, path, size, sha256, and for registered
    files the registry name, licence and citation (and whether the sha256
    matches the registry's).

    ``inputs`` maps a role (e.g. ``network``) to a file path. Size and
    sha256 are those of ``read`` (a :func:`read_record` of the job that read
    the inputs, by path) where it lists the file, else recomputed now.
    """
    reg = load_registry(registry)
    by_path = {e["path"]: (name, e) for name, e in reg.items()}
    taken = {} if read is None else {r.path: (int(r.bytes), r.sha256) for r in read.itertuples()}
    rows = []
    for role, path in inputs.items():
        path = Path(path)
        size, digest = taken.get(path.as_posix(), (None, None))
        if digest is None:
            size, digest = path.stat().st_size, sha256_file(path)
        match = next(((n, e) for p, (n, e) in by_path.items()
                      if path.as_posix().endswith(p)), (None, None))
        name, entry = match
        rows.append({
            "role": role,
            "path": path.as_posix(),
            "bytes": size,
            "sha256": digest,
            "registry_name": name or "",
            "sha256_matches_registry": (entry["sha256"] == digest) if entry else "",
            "licence": (entry or {}).get("licence", ""),
            "citation": " ".join(str((entry or {}).get("citation", "")).split()),
        })
    return pd.DataFrame(rows)


def package_table() -> pd.DataFrame:
    """Python and the versions of the packages a result depends on."""
    rows = [("python", platform.python_version())]
    for pkg in PACKAGES:
        try:
            rows.append((pkg, metadata.version(pkg)))
        except metadata.PackageNotFoundError:
            rows.append((pkg, "not installed"))
    return pd.DataFrame(rows, columns=["package", "version"])
