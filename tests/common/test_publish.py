"""common.publish: a publish stopped at any step leaves the previous complete
set or the new complete set, and the next publish completes and cleans up; a
publish the disk cannot hold stops first, with one line naming the folder, the
space needed and the space free (``check_space``).

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

import geomargin.common.publish as P
from geomargin.common.exceptions import DiskSpaceError

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


# ------------------------------------------------------------- disk space
def _usage(free: int):
    """What shutil.disk_usage returns, with ``free`` bytes free."""
    return shutil._ntuple_diskusage(10**12, 10**12 - free, free)


def _staged_and_published(tmp_path: Path, monkeypatch) -> dict[Path, Path | None]:
    """A published set of 7 kB in results/ (the working directory is
    tmp_path), and a new one of 30 kB staged: published path -> source, with
    the provenance made by the publish job itself (None)."""
    monkeypatch.chdir(tmp_path)
    root = Path("results")
    _publish(root, {"enzyme_ranking.tsv": b"r" * 4000, "metabolic/provenance.tsv": b"p" * 3000})
    staged = root / "metabolic" / "staged"
    staged.mkdir(parents=True)
    (staged / "enzyme_ranking.tsv").write_bytes(b"n" * 27000)
    return {root / "enzyme_ranking.tsv": staged / "enzyme_ranking.tsv", root / "metabolic/provenance.tsv": None}


def test_space_check_names_the_folder_the_space_needed_and_free(tmp_path, monkeypatch):
    """The new set (the staged 27 kB and the provenance at its published
    size) and Snakemake's copy of the published set (7 kB) on one file
    system, with the margin: one line, sizes in decimal units."""
    files = _staged_and_published(tmp_path, monkeypatch)
    monkeypatch.setattr(shutil, "disk_usage", lambda path: _usage(500_000))
    with pytest.raises(DiskSpaceError) as err:
        P.check_space(files, "results")
    assert str(err.value) == (
        "results/: publishing needs 1.1 MB (the new set 30.0 kB, Snakemake's copy of the published set in "
        ".snakemake/backups/ 7.0 kB, 1.0 MB to spare), 500.0 kB free; free space there and rerun")
    assert "\n" not in str(err.value) and P.SPACE_MARGIN == 1 << 20
    # enough space: the line for the log, nothing raised
    monkeypatch.setattr(shutil, "disk_usage", lambda path: _usage(30_000 + 7_000 + P.SPACE_MARGIN))
    assert P.check_space(files, "results") == (
        "results/: publishing needs 1.1 MB (the new set 30.0 kB, Snakemake's copy of the published set in "
        ".snakemake/backups/ 7.0 kB, 1.0 MB to spare), 1.1 MB free")


def test_space_check_of_backups_on_another_file_system(tmp_path, monkeypatch):
    """Snakemake's copy needs room where .snakemake/ is: on a file system of
    its own, it is checked there and its folder named."""
    files = _staged_and_published(tmp_path, monkeypatch)
    Path(".snakemake").mkdir()
    monkeypatch.setattr(P, "_device", lambda path: 1 if Path(path).parts[0] == ".snakemake" else 2)
    free = {".snakemake": 5_000}
    monkeypatch.setattr(shutil, "disk_usage", lambda path: _usage(free.get(Path(path).name, 10**9)))
    with pytest.raises(DiskSpaceError) as err:
        P.check_space(files, "results", margin=0)
    assert str(err.value) == (".snakemake/backups/: publishing needs 7.0 kB (Snakemake's copy of the published "
                              "set in .snakemake/backups/ 7.0 kB, 0 B to spare), 5.0 kB free; free space there "
                              "and rerun")
    free[".snakemake"] = 7_000
    assert P.check_space(files, "results", margin=0) == (
        "results/: publishing needs 30.0 kB (the new set 30.0 kB, 0 B to spare), 1.0 GB free; "
        ".snakemake/backups/: publishing needs 7.0 kB (Snakemake's copy of the published set in "
        ".snakemake/backups/ 7.0 kB, 0 B to spare), 7.0 kB free")


def test_first_publish_needs_no_backup(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("staged.tsv").write_bytes(b"x" * 2500)
    monkeypatch.setattr(shutil, "disk_usage", lambda path: _usage(1000))
    with pytest.raises(DiskSpaceError, match=r"^results/: publishing needs 2\.5 kB \(the new set 2\.5 kB, "
                                               r"0 B to spare\), 1\.0 kB free; free space there and rerun$"):
        P.check_space({Path("results/a.tsv"): "staged.tsv"}, "results", margin=0)


def test_publish_short_of_space_writes_nothing(tmp_path, monkeypatch):
    """publish_set checks the space too: short of it, the published set
    keeps its bytes and mtimes and no generation is started."""
    _publish(tmp_path, OLD)
    before = _view(tmp_path)
    generations = sorted((tmp_path / P.STORE).iterdir())
    monkeypatch.setattr(shutil, "disk_usage", lambda path: _usage(P.SPACE_MARGIN))
    with pytest.raises(DiskSpaceError, match=r": publishing needs 1\.0 MB \(the new set 34 B, 1\.0 MB to spare\), "
                                               r"1\.0 MB free; free space there and rerun$"):
        _publish(tmp_path, NEW)
    assert _view(tmp_path) == before
    assert sorted((tmp_path / P.STORE).iterdir()) == generations


@pytest.mark.parametrize("n, shown", [(0, "0 B"), (999, "999 B"), (1000, "1.0 kB"), (12_345, "12.3 kB"),
                                      (999_949, "999.9 kB"), (999_950, "1.0 MB"), (4_100_000_000, "4.1 GB"),
                                      (2 * 10**15, "2000.0 TB")])
def test_sizes_are_shown_in_decimal_units(n, shown):
    assert P._human(n) == shown
