"""A record of what a run was made from: input files with their registry
entry and recomputed sha256, the package versions, the configuration."""

from __future__ import annotations

import platform
from importlib import metadata
from pathlib import Path
from typing import Mapping

import pandas as pd

from common.io import sha256_file
from data.fetch import DEFAULT_REGISTRY, load_registry

__all__ = ["input_table", "package_table"]

PACKAGES = ("numpy", "scipy", "scikit-learn", "cvxpy", "cobra", "networkx", "pandas",
            "matplotlib", "opencv-python-headless", "scikit-image", "snakemake")


def input_table(inputs: Mapping[str, str], registry: str | Path = DEFAULT_REGISTRY) -> pd.DataFrame:
    """One row per input file: role, path, size, sha256 recomputed now, and
    for registered files the registry name, licence and citation (and whether
    the sha256 matches the registry's).

    ``inputs`` maps a role (e.g. ``network``) to a file path.
    """
    reg = load_registry(registry)
    by_path = {e["path"]: (name, e) for name, e in reg.items()}
    rows = []
    for role, path in inputs.items():
        path = Path(path)
        digest = sha256_file(path)
        match = next(((n, e) for p, (n, e) in by_path.items()
                      if path.as_posix().endswith(p)), (None, None))
        name, entry = match
        rows.append({
            "role": role,
            "path": path.as_posix(),
            "bytes": path.stat().st_size,
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
