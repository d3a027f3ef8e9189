"""Atomic writers: a file appears complete under its final name or not at all."""

from __future__ import annotations

import os
import pickle
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pandas as pd

__all__ = ["atomic_path", "write_tsv_atomic", "save_npz_atomic", "save_pickle_atomic"]


@contextmanager
def atomic_path(path: str | os.PathLike, suffix: str = "") -> Iterator[Path]:
    """Yield a temporary path beside ``path``; move it into place on success.

    On any exception the temporary file is removed and ``path`` is untouched.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> with atomic_path(d / "x.txt") as tmp:
    ...     _ = tmp.write_text("done")
    >>> (d / "x.txt").read_text()
    'done'
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix or ".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp)
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def write_tsv_atomic(df: pd.DataFrame, path: str | os.PathLike, index: bool = False) -> None:
    """Write ``df`` as a tab-separated file with one header line."""
    with atomic_path(path) as tmp:
        df.to_csv(tmp, sep="\t", index=index, lineterminator="\n")


def save_npz_atomic(path: str | os.PathLike, **arrays: np.ndarray) -> None:
    """``numpy.savez_compressed`` to ``path`` atomically."""
    with atomic_path(path, suffix=".npz") as tmp:
        np.savez_compressed(tmp, **arrays)


def save_pickle_atomic(obj: Any, path: str | os.PathLike) -> None:
    """Pickle ``obj`` to ``path`` atomically."""
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as fh:
            pickle.dump(obj, fh, protocol=pickle.HIGHEST_PROTOCOL)
