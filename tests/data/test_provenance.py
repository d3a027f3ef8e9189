"""data.provenance: input checksums recomputed and compared with the registry."""

import hashlib
import platform
from importlib import metadata

from geomargin.data.fetch import load_registry
from geomargin.data.provenance import input_table, package_table


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


def test_provenance_gives_the_checksum_of_the_content_read(tmp_path):
    """An input rewritten after a job read it: the record keeps what was read,
    the table publishes it, and the check names the file with both sha256."""
    import pytest

    from geomargin.common.exceptions import InputFileError
    from geomargin.data.provenance import check_unchanged_since_read, input_roles, read_record

    expr = tmp_path / "expression.tsv"
    expr.write_bytes(b"gene\tc0\nYAL001C\t1\n")
    read = read_record(input_roles({"expression": [str(expr)]}))
    check_unchanged_since_read(read, "the features step")
    old = hashlib.sha256(expr.read_bytes()).hexdigest()
    expr.write_bytes(b"gene\tc0\nYAL001C\t2\n")
    new = hashlib.sha256(expr.read_bytes()).hexdigest()
    table = input_table({"expression[0]": expr}, read=read)
    assert table["sha256"].tolist() == [old] and table["role"].tolist() == ["expression[0]"]
    with pytest.raises(InputFileError) as err:
        check_unchanged_since_read(read, "the features step")
    assert str(err.value) == (
        f"{expr}: changed after the features step read it (sha256 {old} when read, {new} now) (the results "
        "describe the content read; run the workflow again to compute them from the file as it is now)")
