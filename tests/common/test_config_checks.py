"""The config checks that the schema cannot make (common/config_checks.py)."""

import pytest

from geomargin.common.config_checks import RENAMED_KEYS, check_renamed_keys
from geomargin.common.exceptions import ConfigValueError


def test_renamed_key_names_its_new_name_and_value():
    with pytest.raises(ConfigValueError) as err:
        check_renamed_keys({"metabolic": {"source_features": "summary", "representation": "pointwise"}})
    assert str(err.value) == ("config: metabolic.representation is renamed; write "
                              "metabolic.source_features: 'pointwise' (same values)")


@pytest.mark.parametrize("config", [{}, {"metabolic": {"source_features": "summary"}}, {"metabolic": None},
                                    {"metabolic": "x"}, {"representation": "summary"}])
def test_config_without_a_renamed_key_passes(config):
    check_renamed_keys(config)


def test_every_new_name_is_a_schema_key():
    """Each renamed key's new name is a key the schema knows, so the message
    never sends a user to another unknown key."""
    import yaml

    from workflow_helpers import REPO

    schema = yaml.safe_load((REPO / "workflow" / "schemas" / "config.schema.yaml").read_text())
    for old, new in RENAMED_KEYS.items():
        node = schema
        for part in new.split("."):
            node = node["properties"][part]
        assert "default" in node or "type" in node, new
        parent = schema
        for part in old.split(".")[:-1]:
            parent = parent["properties"][part]
        assert old.split(".")[-1] not in parent["properties"], old
