"""data.provenance: input checksums recomputed and compared with the registry."""

import hashlib
import platform
from importlib import metadata

from data.fetch import load_registry
from data.provenance import input_table, package_table


def test_input_table_recomputes_sha256_and_flags_registry_mismatch(tmp_path):
    reg = load_registry()
    entry = reg["yeast_imm904"]
    path = tmp_path / entry["path"]
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not the model")
    other = tmp_path / "mine.tsv"
    other.write_bytes(b"a\tb\n")
    table = input_table({"network": path, "expression": other}).set_index("role")
    assert table.at["network", "sha256"] == hashlib.sha256(b"not the model").hexdigest()
    assert table.at["network", "registry_name"] == "yeast_imm904"
    assert str(table.at["network", "sha256_matches_registry"]) == "False"
    assert table.at["expression", "registry_name"] == ""
    assert table.at["expression", "bytes"] == 4


def test_input_table_matches_registry_on_the_real_file(mirror):
    reg = load_registry()
    path = mirror / reg["yeast_imm904"]["mirror_path"]
    row = input_table({"network": path}).iloc[0]
    assert row["sha256"] == reg["yeast_imm904"]["sha256"]
    assert bool(row["sha256_matches_registry"])


def test_package_table_names_python_and_scikit_learn():
    table = package_table().set_index("package")
    assert "python" in table.index
    assert table.at["python", "version"] == platform.python_version()
    # the installed distribution's version, as pip reports it
    assert table.at["scikit-learn", "version"] == metadata.version("scikit-learn")
    for pkg, version in table.drop(index="python")["version"].items():
        try:
            assert version == metadata.version(pkg)
        except metadata.PackageNotFoundError:
            assert version == "not installed"
