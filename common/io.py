"""Atomic writers: a file appears complete under its final name or not at all."""

from __future__ import annotations

import hashlib
import os
import pickle
import re
import shutil
import tempfile
import zipfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pandas as pd

__all__ = ["atomic_path", "current_umask", "honour_umask", "remove_stale_temps", "temp_prefix", "write_tsv_atomic", "sha256_file", "sha256_tree", "load_npz", "load_pickle", "save_npz_atomic", "save_pickle_atomic"]


def current_umask() -> int:
    """The process umask, read without changing it where Linux allows."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):  # pragma: no cover - not Linux
        pass
    mask = os.umask(0o022)  # pragma: no cover
    os.umask(mask)  # pragma: no cover
    return mask  # pragma: no cover


def honour_umask(path: str | os.PathLike, directory: bool = False) -> None:
    """Give ``path`` the mode a plain ``open()`` (``mkdir``) would have given it
    (``mkstemp``/``mkdtemp`` create 0600/0700 whatever the umask)."""
    os.chmod(path, (0o777 if directory else 0o666) & ~current_umask())


def temp_prefix(path: Path) -> str:
    """Prefix of the temporary files written for ``path`` by this process:
    ``.<name>.tmp<pid>.`` (the pid tells a live writer from a killed one)."""
    return f".{path.name}.tmp{os.getpid()}."


def remove_stale_temps(path: str | os.PathLike) -> list[Path]:
    """Remove temporary files (or folders) left beside ``path`` by writers that
    were killed between writing and renaming (their process is gone). Returns
    what was removed."""
    path = Path(path)
    removed = []
    if not path.parent.is_dir():
        return removed
    pattern = re.compile(rf"^\.{re.escape(path.name)}\.tmp(\d+)\.")
    for entry in path.parent.iterdir():
        m = pattern.match(entry.name)
        if not m or _alive(int(m.group(1))):
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
        removed.append(entry)
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - someone else's live process
        return True
    return True


@contextmanager
def atomic_path(path: str | os.PathLike, suffix: str = "") -> Iterator[Path]:
    """Yield a temporary path beside ``path``; move it into place on success.

    On any exception the temporary file is removed and ``path`` is untouched.
    The file gets the mode the umask gives a new file (not ``mkstemp``'s
    0600). Temporary files of an earlier writer of ``path`` that was killed
    before its rename are removed first.

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
    remove_stale_temps(path)
    fd, tmp = tempfile.mkstemp(prefix=temp_prefix(path), suffix=suffix or ".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp)
    try:
        honour_umask(tmp)
        yield tmp
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


_CONTROL_RE = re.compile(r"[\t\r\n]")


def one_line_cells(df: pd.DataFrame) -> pd.DataFrame:
    r"""``df`` with every tab, carriage return and newline inside a text cell
    (or a column name) replaced by a space, so that a TSV holds one record per
    line (a reaction name with a newline would otherwise break ``cut`` and
    ``awk``; pandas would quote it, which those tools do not read).

    >>> one_line_cells(pd.DataFrame({"name": ["a\tb", "c\nd", 1]}))["name"].tolist()
    ['a b', 'c d', 1]
    """
    out = df.copy()
    text = out.select_dtypes(include=["object", "string"]).columns
    for col in text:
        out[col] = out[col].map(lambda v: _CONTROL_RE.sub(" ", v) if isinstance(v, str) else v)
    out.columns = [_CONTROL_RE.sub(" ", c) if isinstance(c, str) else c for c in out.columns]
    if out.index.dtype == object and not isinstance(out.index, pd.MultiIndex):
        out.index = pd.Index([_CONTROL_RE.sub(" ", v) if isinstance(v, str) else v for v in out.index],
                             name=out.index.name)
    return out


def write_tsv_atomic(df: pd.DataFrame, path: str | os.PathLike, index: bool = False) -> None:
    """Write ``df`` as a tab-separated file with one header line and one
    record per line (:func:`one_line_cells`)."""
    with atomic_path(path) as tmp:
        one_line_cells(df).to_csv(tmp, sep="\t", index=index, lineterminator="\n")


def sha256_file(path: str | os.PathLike) -> str:
    """Hex sha256 of the file's bytes, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def sha256_tree(path: str | os.PathLike) -> str:
    """Hex sha256 of a folder's content: every regular file under ``path``
    (symbolic links followed), by its path relative to ``path`` (``/``-
    separated, in sorted order) and the sha256 of its bytes. Equal for two
    folders exactly when they hold the same files with the same bytes; a
    file's time stamps and modes do not count."""
    root = Path(path)
    digest = hashlib.sha256()
    files = sorted((Path(d) / f).relative_to(root).as_posix()
                   for d, _, names in os.walk(root, followlinks=True) for f in names
                   if (Path(d) / f).is_file())
    for rel in files:
        digest.update(f"{rel}\0{sha256_file(root / rel)}\n".encode())
    return digest.hexdigest()


#: What reading a file cut short (a crash, a full disk) raises.
_TRUNCATED = (zipfile.BadZipFile, EOFError, pickle.UnpicklingError)


def _truncated(path, exc: Exception):
    from geomargin.common.exceptions import InputFileError

    return InputFileError(path, f"is truncated or corrupt ({type(exc).__name__}: {exc})",
                          "an interrupted run or a full disk leaves such a file; delete it, or run "
                          "snakemake with --rerun-incomplete, to rebuild it")


def load_npz(path: str | os.PathLike, **kwargs: Any):
    """``numpy.load`` of an ``.npz`` file written by this workflow
    (``kwargs`` passed on).

    Raises
    ------
    InputFileError
        Naming the file, if it is truncated or corrupt, and how to rebuild it.
    """
    try:
        return np.load(path, **kwargs)
    except _TRUNCATED as exc:
        raise _truncated(path, exc) from exc


def load_pickle(path: str | os.PathLike) -> Any:
    """The object pickled in ``path`` by this workflow.

    Raises
    ------
    InputFileError
        Naming the file, if it is truncated or corrupt, and how to rebuild it.
    """
    with open(path, "rb") as fh:
        try:
            return pickle.load(fh)
        except _TRUNCATED as exc:
            raise _truncated(path, exc) from exc


def save_npz_atomic(path: str | os.PathLike, **arrays: np.ndarray) -> None:
    """``numpy.savez_compressed`` to ``path`` atomically."""
    with atomic_path(path, suffix=".npz") as tmp:
        np.savez_compressed(tmp, **arrays)


def save_pickle_atomic(obj: Any, path: str | os.PathLike) -> None:
    """Pickle ``obj`` to ``path`` atomically."""
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as fh:
            pickle.dump(obj, fh, protocol=pickle.HIGHEST_PROTOCOL)
