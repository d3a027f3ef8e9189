"""A model pickled before a class or helper moved to its own module still
loads: the old module resolves the moved name (its ``_MOVED``), and only
those names."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from models._masked_svc import _MaskedSVCBase
from models._pattern_norms import PatternNorms, feature_blocks
from models._rows import _distinct_byte_rows, _patterns, _unique_rows
from models.average_norm import AverageNormSVC

MOVED = [("models._kernels", "PatternNorms", PatternNorms), ("models._kernels", "feature_blocks", feature_blocks),
         ("models._kernels", "_unique_rows", _unique_rows),
         ("models._kernels", "_distinct_byte_rows", _distinct_byte_rows),
         ("models.geometric", "AverageNormSVC", AverageNormSVC), ("models.geometric", "_MaskedSVCBase", _MaskedSVCBase),
         ("models.gaussian_em", "_patterns", _patterns)]


@pytest.mark.parametrize(("module", "name", "obj"), MOVED, ids=lambda v: v if isinstance(v, str) else "")
def test_a_pickle_naming_the_old_module_loads(module, name, obj):
    # protocol 0's global opcode: what a pickle of an instance names its class by
    assert pickle.loads(f"c{module}\n{name}\n.".encode()) is obj


def test_a_fitted_model_pickled_under_the_old_name_loads():
    X = np.array([[0.0, 1.0], [1.0, np.nan], [2.0, 0.5], [3.0, np.nan]])
    est = AverageNormSVC().fit(X, [0, 0, 1, 1])
    blob = pickle.dumps(est, protocol=0).replace(b"cmodels.average_norm\nAverageNormSVC",
                                                 b"cmodels.geometric\nAverageNormSVC")
    assert b"models.geometric" in blob
    np.testing.assert_array_equal(pickle.loads(blob).decision_function(X), est.decision_function(X))


def test_other_names_are_still_missing():
    import models._kernels as kernels

    with pytest.raises(AttributeError, match="module 'models._kernels' has no attribute 'nothing'"):
        kernels.nothing  # noqa: B018
