"""common.io and data.fetch: files get the mode the umask gives, and the
temporary files of a writer killed between write and rename do not stay."""

from __future__ import annotations

import hashlib
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

import geomargin.data.fetch as F
from geomargin.common.io import (atomic_path, remove_stale_temps, save_npz_atomic, save_pickle_atomic,
                       write_tsv_atomic)

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def umask():
    """Set the process umask for one test, then restore it."""
    old = os.umask(0o022)
    os.umask(old)
    yield lambda m: os.umask(m)
    os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("mask, expected", [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
def test_atomic_writers_honour_the_umask(tmp_path, umask, mask, expected):
    umask(mask)
    write_tsv_atomic(pd.DataFrame({"a": [1]}), tmp_path / "t.tsv")
    save_npz_atomic(tmp_path / "a.npz", x=np.zeros(2))
    save_pickle_atomic({"a": 1}, tmp_path / "p.pkl")
    for name in ["t.tsv", "a.npz", "p.pkl"]:
        assert _mode(tmp_path / name) == expected, name  # was 0600 whatever the umask


def test_fetched_files_and_folders_honour_the_umask(tmp_path, umask, monkeypatch):
    monkeypatch.delenv(F.MIRROR_ENV, raising=False)
    umask(0o022)
    content = b"gene\tcond0\nYAL001C\t0.5\n"
    mirror = tmp_path / "mirror"
    (mirror / "cars" / "Train").mkdir(parents=True)
    (mirror / "x.tsv").write_bytes(content)
    (mirror / "cars" / "Train" / "a.pgm").write_bytes(b"P5")
    manifest = tmp_path / "cars.sha256"
    manifest.write_text(f"{hashlib.sha256(b'P5').hexdigest()}  Train/a.pgm\n")
    reg = tmp_path / "reg.yaml"
    reg.write_text(yaml.safe_dump({"version": 1, "files": {
        "toy": {"path": "out/x.tsv", "sha256": hashlib.sha256(content).hexdigest(), "size": len(content),
                "licence": "-", "citation": "-", "sources": [], "mirror_path": "x.tsv"},
        "cars": {"kind": "directory", "path": "vision/cars", "manifest": "cars.sha256", "n_files": 1,
                 "sources": [], "mirror_path": "cars"}}}))
    f = F.fetch("toy", tmp_path / "dest", mirror=mirror, registry=reg)
    assert _mode(f) == 0o644
    d = F.fetch("cars", tmp_path / "dest", mirror=mirror, registry=reg)
    assert _mode(d) == 0o755 and _mode(d / "Train") == 0o755 and _mode(d / "Train" / "a.pgm") == 0o644


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_temporary_file_of_a_killed_writer_is_removed_by_the_next_write(tmp_path):
    """A writer killed between the temporary write and the rename leaves its
    temporary file; the next write of the same file removes it."""
    target = tmp_path / "features.npz"
    code = ("import os, sys, numpy as np; sys.path.insert(0, sys.argv[1]);"
            "from common.io import atomic_path\n"
            "with atomic_path(sys.argv[2], suffix='.npz') as tmp:\n"
            "    np.savez_compressed(tmp, x=np.zeros(3)); print(tmp, flush=True)\n"
            "    os.kill(os.getpid(), 9)\n")
    proc = subprocess.run([sys.executable, "-c", code, str(REPO), str(target)], capture_output=True,
                          text=True)
    assert proc.returncode == -signal.SIGKILL
    left = Path(proc.stdout.strip())
    assert left.is_file() and left.parent == tmp_path and left.name.startswith(".features.npz.tmp")
    assert not target.exists()
    save_npz_atomic(target, x=np.ones(3))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["features.npz"]


def test_temporary_files_of_live_writers_and_other_files_are_kept(tmp_path):
    target = tmp_path / "a.tsv"
    live = tmp_path / f".a.tsv.tmp{os.getppid()}.abc.tmp"   # pytest's parent is alive
    other = tmp_path / f".b.tsv.tmp{_dead_pid()}.abc.tmp"   # another target's
    stale = tmp_path / f".a.tsv.tmp{_dead_pid()}.abc.tmp"
    for p in (live, other, stale):
        p.write_text("x")
    assert remove_stale_temps(target) == [stale]
    assert live.exists() and other.exists() and not stale.exists()


def test_atomic_path_removes_its_file_on_error(tmp_path):
    with pytest.raises(RuntimeError):
        with atomic_path(tmp_path / "x.txt") as tmp:
            tmp.write_text("half")
            raise RuntimeError
    assert list(tmp_path.iterdir()) == []


def test_stale_fetch_part_file_is_removed_by_the_next_fetch(tmp_path, monkeypatch):
    monkeypatch.delenv(F.MIRROR_ENV, raising=False)
    content = b"abc\n"
    (tmp_path / "mirror").mkdir()
    (tmp_path / "mirror" / "x.tsv").write_bytes(content)
    reg = tmp_path / "reg.yaml"
    reg.write_text(yaml.safe_dump({"version": 1, "files": {"toy": {
        "path": "out/x.tsv", "sha256": hashlib.sha256(content).hexdigest(), "size": 4, "licence": "-",
        "citation": "-", "sources": [], "mirror_path": "x.tsv"}}}))
    stale = tmp_path / "dest" / "out" / f".x.tsv.tmp{_dead_pid()}.q1w2.part"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"ab")
    time.sleep(0.01)
    F.fetch("toy", tmp_path / "dest", mirror=tmp_path / "mirror", registry=reg)
    assert sorted(p.name for p in stale.parent.iterdir()) == ["x.tsv"]


def test_tsv_holds_one_record_per_line(tmp_path):
    """A tab or newline inside a reaction name must not break a row."""
    df = pd.DataFrame({"reaction": ["R1", "R2"], "name": ["two\nlines", "a\ttab\r"], "score": [1.5, 2.0]})
    path = tmp_path / "t.tsv"
    write_tsv_atomic(df, path)
    lines = path.read_text().split("\n")
    assert lines == ["reaction\tname\tscore", "R1\ttwo lines\t1.5", "R2\ta tab \t2.0", ""]
    back = pd.read_csv(path, sep="\t")
    assert back["name"].tolist() == ["two lines", "a tab "]


def test_sha256_tree_follows_the_files_not_their_time_stamps(tmp_path):
    from geomargin.common.io import sha256_tree

    root = tmp_path / "cars"
    (root / "TrainImages").mkdir(parents=True)
    (root / "trueLocations.txt").write_text("0: (1,2)\n")
    (root / "TrainImages" / "pos-0.pgm").write_bytes(b"P5 car")
    first = sha256_tree(root)
    os.utime(root / "trueLocations.txt", (946684800, 946684800))
    assert sha256_tree(root) == first
    (root / "trueLocations.txt").write_text("0: (1,3)\n")          # rewritten
    rewritten = sha256_tree(root)
    assert rewritten != first
    (root / "TrainImages" / "pos-0.pgm").unlink()                  # deleted
    assert sha256_tree(root) not in (first, rewritten)
    (root / "TrainImages" / "pos-1.pgm").write_bytes(b"P5 car")    # the same bytes under another name
    assert sha256_tree(root) not in (first, rewritten)


@pytest.mark.parametrize("kind", ["npz", "pkl"])
def test_truncated_intermediate_file_is_named_with_how_to_rebuild_it(tmp_path, kind):
    """A features.npz or cv/*.pkl cut short (a crash, a full disk)."""
    from geomargin.common.exceptions import InputFileError
    from geomargin.common.io import load_npz, load_pickle

    path = tmp_path / f"features.{kind}"
    if kind == "npz":
        save_npz_atomic(path, X=np.arange(1000.0))
        load, error = load_npz, "BadZipFile: File is not a zip file"
    else:
        save_pickle_atomic({"X": np.arange(1000.0)}, path)
        load, error = load_pickle, "UnpicklingError: pickle data was truncated"
    assert len(load(path)["X"]) == 1000
    path.write_bytes(path.read_bytes()[:200])
    with pytest.raises(InputFileError) as err:
        load(path)
    assert str(err.value) == (
        f"{path}: is truncated or corrupt ({error}) (an interrupted run or a full disk leaves such a file; "
        "delete it, or run snakemake with --rerun-incomplete, to rebuild it)")
