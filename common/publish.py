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
from typing import Mapping, Union

from common.io import honour_umask, remove_stale_temps, temp_prefix

__all__ = ["CURRENT", "STORE", "publish_set"]

#: Folder (under the set's root) that holds the generations of the set.
STORE = ".published"
#: Link in :data:`STORE` naming the generation that is published.
CURRENT = "current"

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
    """
    root = Path(root)
    store = root / STORE
    rel = {Path(dst): _relative(Path(dst), root) for dst in files}
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
