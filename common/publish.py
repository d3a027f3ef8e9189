"""Publish a set of result files at once: a publish killed at any moment leaves
either the previous complete set or the new complete set, never a mix.

Each published path (``results/enzyme_ranking.tsv``, ...) is a relative
symbolic link into ``<root>/.published/current/<the same relative path>``,
and ``current`` is itself a link to one complete generation of the set,
``<root>/.published/set-<random>/``. Publishing writes the new generation
beside the old one, then points ``current`` at it with one ``rename(2)``,
which POSIX makes atomic: a reader resolves every path through the old
generation or every path through the new one. Older generations are removed
afterwards. Readers need not know: ``cat``, ``cp``, pandas and browsers follow
the links.

A tree written before this layout (plain files) is adopted first: its files
are hard-linked (bytes and modification times kept) into a generation of
their own, and each plain file is then replaced by its link, which resolves to
the same bytes. Nothing a killed publish leaves behind needs cleaning up by
hand; the next publish removes it.

Writing a file in place, or renaming the files one by one, would not do: a
kill between two renames leaves a set whose ranking and provenance come from
different runs, and Snakemake deletes a job's outputs before it runs the job
unless they are flagged ``update`` (workflow/rules/metabolic.smk).

A publish needs room for the new generation beside the old one, and in a
Snakemake job for Snakemake's copy of the job's existing ``update`` outputs
(:data:`SNAKEMAKE_BACKUPS`), which it makes before the job starts and copies
back through the links (same bytes, new mtimes) when the job fails.
:func:`check_space` stops with one line before either is written; the
workflow runs it in a job of its own before each publish job
(``workflow/scripts/publish_space.py``), and :func:`publish_set` runs it
again before writing.

Examples
--------
>>> import tempfile, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> publish_set({root / "a.tsv": b"x\\n", root / "sub" / "b.tsv": b"y\\n"}, root)
>>> (root / "sub" / "b.tsv").read_bytes(), (root / "a.tsv").is_symlink()
(b'y\\n', True)
>>> publish_set({root / "a.tsv": b"x2\\n", root / "sub" / "b.tsv": b"y2\\n"}, root)
>>> (root / "a.tsv").read_bytes(), len(list((root / STORE).glob("set-*")))
(b'x2\\n', 1)
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Mapping, Optional, Union

from geomargin.common.exceptions import DiskSpaceError
from geomargin.common.io import honour_umask, remove_stale_temps, temp_prefix

__all__ = ["CURRENT", "SNAKEMAKE_BACKUPS", "SPACE_MARGIN", "STORE", "check_space", "publish_set"]

#: Folder (under the set's root) that holds the generations of the set.
STORE = ".published"
#: Link in :data:`STORE` naming the generation that is published.
CURRENT = "current"

#: Where Snakemake copies a job's existing ``update`` outputs before it runs
#: the job (its persistence folder, relative to the working directory).
SNAKEMAKE_BACKUPS = Path(".snakemake") / "backups"
#: Free space a publish leaves beyond the bytes of its files: their last
#: blocks, the generation's folders and links, the job's log, and what other
#: jobs write meanwhile.
SPACE_MARGIN = 1 << 20

Source = Union[str, os.PathLike, bytes]


def publish_set(files: Mapping[Union[str, os.PathLike], Source], root: Union[str, os.PathLike]) -> None:
    """Publish ``files`` (published path -> source file, or the bytes to
    write) as one set under ``root``.

    Every published path must lie under ``root``. Sources are copied, so they
    may be removed afterwards. New files and folders get the modes the umask
    gives.

    Raises
    ------
    ValueError
        If a published path is not under ``root``.
    DiskSpaceError
        If ``root``'s file system cannot hold the new generation
        (:func:`check_space`); nothing is written then.
    """
    root = Path(root)
    store = root / STORE
    rel = {Path(dst): _relative(Path(dst), root) for dst in files}
    check_space(files, root, backups=None)
    store.mkdir(parents=True, exist_ok=True)
    if not all(_is_published_link(dst, r, store) for dst, r in rel.items()):
        _adopt(rel, store)
    generation = _new_generation(store)
    for dst, source in files.items():
        target = generation / rel[Path(dst)]
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(source, bytes):
            target.write_bytes(source)
        else:
            shutil.copyfile(source, target)
    _point_current(store, generation.name)  # the set changes here, atomically
    _remove_old_generations(store, keep=generation.name)


def _relative(dst: Path, root: Path) -> Path:
    rel = Path(os.path.relpath(os.path.abspath(dst), os.path.abspath(root)))
    if not rel.parts or rel.parts[0] == "..":
        raise ValueError(f"published path {dst} is not under the set's root {root}")
    return rel


def _link_target(dst: Path, rel: Path, store: Path) -> str:
    return os.path.relpath(store / CURRENT / rel, dst.parent)


def _is_published_link(dst: Path, rel: Path, store: Path) -> bool:
    return dst.is_symlink() and os.readlink(dst) == _link_target(dst, rel, store) \
        and (store / CURRENT).is_symlink()


def _new_generation(store: Path) -> Path:
    generation = Path(tempfile.mkdtemp(prefix="set-", dir=store))
    honour_umask(generation, directory=True)
    return generation


def _replace_with_link(path: Path, target: str) -> None:
    """Make ``path`` a symbolic link to ``target`` with one rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temps(path)
    tmp = path.parent / f"{temp_prefix(path)}link"
    tmp.unlink(missing_ok=True)
    os.symlink(target, tmp)
    os.replace(tmp, path)


def _point_current(store: Path, generation: str) -> None:
    _replace_with_link(store / CURRENT, generation)


def _adopt(rel: Mapping[Path, Path], store: Path) -> None:
    """Give the set as a reader sees it now (plain files, links, missing
    files) a generation of its own, then make every published path a link."""
    adopted = _new_generation(store)
    for dst, r in rel.items():
        if dst.is_file():  # follows a link: what a reader gets today
            target = adopted / r
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(dst.resolve(), target)  # same bytes and mtime, no copy
            except OSError:
                shutil.copy2(dst, target)
    _point_current(store, adopted.name)
    for dst, r in rel.items():
        if not _is_published_link(dst, r, store):
            _replace_with_link(dst, _link_target(dst, r, store))


def _remove_old_generations(store: Path, keep: str) -> None:
    """Remove every generation but ``keep`` (complete old ones, and partial
    ones of killed publishes). A failure here loses nothing: the published
    set is already complete."""
    for entry in store.iterdir():
        if entry.name.startswith("set-") and entry.name != keep and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
    remove_stale_temps(store / CURRENT)


def check_space(files: Mapping[Union[str, os.PathLike], Optional[Source]], root: Union[str, os.PathLike],
                backups: Optional[Union[str, os.PathLike]] = SNAKEMAKE_BACKUPS,
                margin: int = SPACE_MARGIN) -> str:
    """Stop before publishing ``files`` under ``root`` (as
    :func:`publish_set` would) if the disk cannot hold it; else return a
    line saying what the publish needs and what is free, for the log.

    ``files`` maps each published path to its source file or bytes, or to
    ``None`` for a file the publishing job makes itself (the size of its
    published copy stands for it). The publish needs the sources' bytes on
    ``root``'s file system for the new generation and, unless ``backups`` is
    None, the published files' bytes on the file system of ``backups`` for
    Snakemake's copy of them. Each file system must have that plus
    ``margin`` free (:func:`shutil.disk_usage`).

    Raises
    ------
    DiskSpaceError
        One line naming the folder (``root``, or ``backups`` when it is on
        another file system), the space needed and the space free.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> check_space({root / "a.tsv": b"x" * 1500}, root, backups=None, margin=10**15)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    geomargin.common.exceptions.DiskSpaceError: /...: publishing needs 1000.0 TB (...), ... free; free space there and rerun
    """
    # what each published path holds now (Snakemake copies it through the link)
    old = {Path(dst): Path(dst).stat().st_size if Path(dst).is_file() else 0 for dst in files}
    new = sum(len(src) if isinstance(src, bytes) else old[Path(dst)] if src is None else os.path.getsize(src)
              for dst, src in files.items())
    needs = {Path(root): [("the new set", new)]}  # folder -> what it must hold
    if backups is not None and sum(old.values()):
        copy = (f"Snakemake's copy of the published set in {_display(backups)}", sum(old.values()))
        if _device(backups) == _device(root):
            needs[Path(root)].append(copy)
        else:
            needs[Path(backups)] = [copy]
    lines = []
    for folder, parts in needs.items():
        need = sum(n for _, n in parts) + margin
        free = shutil.disk_usage(_existing(folder)).free
        detail = ", ".join([f"{what} {_human(n)}" for what, n in parts if n] + [f"{_human(margin)} to spare"])
        line = f"{_display(folder)}: publishing needs {_human(need)} ({detail}), {_human(free)} free"
        if need > free:
            raise DiskSpaceError(f"{line}; free space there and rerun")
        lines.append(line)
    return "; ".join(lines)


def _existing(path: Union[str, os.PathLike]) -> Path:
    """``path``, or its nearest ancestor that exists (a folder not made yet)."""
    path = Path(os.path.abspath(path))
    while not path.exists():
        path = path.parent
    return path


def _device(path: Union[str, os.PathLike]) -> int:
    return _existing(Path(path)).stat().st_dev


def _display(folder: Union[str, os.PathLike]) -> str:
    """``folder`` as a message names it: relative to the working directory
    when under it, with a trailing slash."""
    rel = os.path.relpath(os.path.abspath(folder))
    shown = os.path.abspath(folder) if rel == ".." or rel.startswith(".." + os.sep) else rel
    return shown.rstrip(os.sep) + os.sep


def _human(n: float) -> str:
    """A byte count in decimal units: ``512 B``, ``12.3 kB``, ``4.1 MB``.

    >>> _human(512), _human(12_345), _human(999_990), _human(4.1e9)
    ('512 B', '12.3 kB', '1.0 MB', '4.1 GB')
    """
    if n < 1000:
        return f"{n:.0f} B"
    for unit in ("kB", "MB", "GB", "TB"):
        n /= 1000
        if round(n, 1) < 1000 or unit == "TB":
            return f"{n:.1f} {unit}"
    raise AssertionError  # pragma: no cover
