"""common.publish: a publish stopped at any step leaves the previous complete
set or the new complete set, and the next publish completes and cleans up.

A kill is modelled by raising an exception that nothing in the module may
catch (a ``BaseException``) at the k-th file-system call, for every k up to
the number of calls an uninterrupted publish makes. The workflow-level test
with a real SIGKILL is in tests/workflow/test_interrupted_and_corrupt_runs.py.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

import pytest

import common.publish as P

OLD = {"enzyme_ranking.tsv": b"old ranking\n", "metabolic/provenance.tsv": b"old provenance\n",
       "metabolic/accuracy.png": b"old png"}
NEW = {"enzyme_ranking.tsv": b"new ranking\n", "metabolic/provenance.tsv": b"new provenance\n",
       "metabolic/accuracy.png": b"new png"}


class Killed(BaseException):
    """Stands for SIGKILL: not an Exception, so no handler in the module catches it."""


# every file-system call the module makes, each a point where a kill can land
CALLS = [(os, "symlink"), (os, "replace"), (os, "link"), (shutil, "copyfile"), (shutil, "copy2"),
         (shutil, "rmtree"), (tempfile, "mkdtemp"), (Path, "write_bytes"), (Path, "mkdir"),
         (Path, "unlink")]


def _kill_at(monkeypatch, k: int) -> list[int]:
    """Make the k-th file-system call raise Killed; return the call counter."""
    count = [0]
    for owner, name in CALLS:
        real = getattr(owner, name)

        def wrapped(*args, _real=real, **kwargs):
            count[0] += 1
            if count[0] == k:
                raise Killed
            return _real(*args, **kwargs)

        monkeypatch.setattr(owner, name, wrapped)
    return count


def _publish(root: Path, contents: dict[str, bytes]) -> None:
    P.publish_set({root / rel: data for rel, data in contents.items()}, root)


def _write_plain(root: Path, contents: dict[str, bytes]) -> None:
    """The layout before common.publish: plain files."""
    for rel, data in contents.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)


def _view(root: Path) -> dict[str, tuple[bytes, int] | None]:
    """What a reader sees: bytes and mtime of each published path."""
    out = {}
    for rel in OLD:
        p = root / rel
        out[rel] = (p.read_bytes(), p.stat().st_mtime_ns) if p.is_file() else None
    return out


def _calls_of_one_publish(tmp_path: Path, monkeypatch, plain_before: bool) -> int:
    root = tmp_path / "count"
    (_write_plain if plain_before else _publish)(root, OLD)
    with monkeypatch.context() as m:
        count = _kill_at(m, 0)
        _publish(root, NEW)
    return count[0]


@pytest.mark.parametrize("plain_before", [False, True], ids=["published-before", "plain-files-before"])
def test_kill_at_every_step_leaves_old_or_new_complete_set(tmp_path, monkeypatch, plain_before):
    n_calls = _calls_of_one_publish(tmp_path, monkeypatch, plain_before)
    assert n_calls > 5
    outcomes = set()
    for k in range(1, n_calls + 1):
        root = tmp_path / f"k{k}"
        (_write_plain if plain_before else _publish)(root, OLD)
        before = _view(root)
        with monkeypatch.context() as m:
            _kill_at(m, k)
            with pytest.raises(Killed):
                _publish(root, NEW)
        after = _view(root)
        if after == before:  # the old set, bytes and mtimes untouched
            outcomes.add("old")
        else:
            assert {rel: v[0] for rel, v in after.items()} == NEW, f"mixed set after a kill at call {k}"
            outcomes.add("new")
        # the next publish completes and leaves one generation, no temporary file
        _publish(root, NEW)
        assert {rel: v[0] for rel, v in _view(root).items()} == NEW
        store = root / P.STORE
        assert sorted(p.name for p in store.iterdir() if not p.name.startswith("set-")) == [P.CURRENT]
        assert len([p for p in store.iterdir() if p.name.startswith("set-")]) == 1
        leftovers = [p for p in root.rglob(".*tmp*")]
        assert not leftovers, leftovers
    assert outcomes == {"old", "new"}  # kills landed before and after the swap


def test_published_paths_are_relative_links_and_honour_the_umask(tmp_path):
    old = os.umask(0o027)
    try:
        _publish(tmp_path, OLD)
    finally:
        os.umask(old)
    for rel in OLD:
        link = tmp_path / rel
        assert link.is_symlink() and not os.path.isabs(os.readlink(link))
        assert stat.S_IMODE(link.stat().st_mode) == 0o640
    generation = (tmp_path / P.STORE / P.CURRENT).resolve()
    assert stat.S_IMODE(generation.stat().st_mode) == 0o750
    # the tree can be moved or copied whole: the links are relative
    moved = tmp_path.parent / (tmp_path.name + "-moved")
    shutil.copytree(tmp_path, moved, symlinks=True)
    assert {rel: v[0] for rel, v in _view(moved).items()} == OLD


def test_adopting_plain_files_keeps_their_bytes_and_mtimes(tmp_path, monkeypatch):
    _write_plain(tmp_path, OLD)
    os.utime(tmp_path / "enzyme_ranking.tsv", ns=(10**18, 10**18))
    before = _view(tmp_path)
    monkeypatch.setattr(P, "_new_generation", _stop_after_first(P._new_generation))
    with pytest.raises(Killed):  # stop right after the adoption
        _publish(tmp_path, NEW)
    assert all((tmp_path / rel).is_symlink() for rel in OLD)
    assert _view(tmp_path) == before


def _stop_after_first(real):
    calls = [0]

    def wrapped(store):
        calls[0] += 1
        if calls[0] == 2:
            raise Killed
        return real(store)

    return wrapped


def test_path_outside_the_root_is_refused(tmp_path):
    with pytest.raises(ValueError, match="not under the set's root"):
        P.publish_set({tmp_path / "elsewhere.tsv": b"x"}, tmp_path / "results")
