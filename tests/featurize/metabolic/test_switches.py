"""featurize.metabolic.pairs.switches: which optional blocks a run builds."""

import pytest

from geomargin.featurize.metabolic.pairs.switches import block_switches

ALL_ON = dict(adjacency=True, kind_features=True, subsystem_features=True, compound_features=True,
              domain_kind_features=True, site_features=True, membrane_features=True)


def test_all_on():
    assert all(block_switches(**ALL_ON).values())


@pytest.mark.parametrize("off", ["adjacency", "kind_features"])
def test_the_blocks_that_read_related_reactions_need_adjacency_and_kinds(off):
    on = block_switches(**{**ALL_ON, off: False})
    assert on == {"reaction_kinds": False, "subsystems": True, "compounds": False, "domain_kinds": False,
                  "sites": True, "membrane": False}


@pytest.mark.parametrize("key", ["compound_features", "domain_kind_features", "membrane_features"])
def test_each_dependent_block_has_its_own_switch(key):
    on = block_switches(**{**ALL_ON, key: False})
    assert [name for name, value in on.items() if not value] == [{"compound_features": "compounds",
                                                                  "domain_kind_features": "domain_kinds",
                                                                  "membrane_features": "membrane"}[key]]
