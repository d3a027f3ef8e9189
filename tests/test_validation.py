"""Shared validation helpers of models/_validation.py."""

import numpy as np
import pytest

from models._validation import (check_positive_float, validate_binary_y,
                                validate_feature_groups)


def test_binary_y_maps_to_signed_labels():
    classes, ys = validate_binary_y("Est", np.array(["b", "a", "b"]))
    assert classes.tolist() == ["a", "b"]
    assert ys.tolist() == [1.0, -1.0, 1.0]


@pytest.mark.parametrize("y, needle", [
    (np.array([1, 1, 1]), "Got one class [1]"),
    (np.array([0, 1, 2]), "multiclass"),
    (np.array([0.5, 1.2, 3.3]), "continuous"),
])
def test_non_binary_y_is_a_clear_error(y, needle):
    with pytest.raises(ValueError, match="Est") as err:
        validate_binary_y("Est", y)
    assert needle in str(err.value)


def test_parameter_message_style():
    with pytest.raises(ValueError, match=r"^The 'C' parameter of Est must be a float > 0\. "
                                         r"Got -1 instead\.$"):
        check_positive_float("Est", "C", -1)


def test_groups_wrong_length():
    with pytest.raises(ValueError, match="length n_features=3. Got shape"):
        validate_feature_groups("Est", [0, 1], 3)
    assert validate_feature_groups("Est", [5, 5, 2], 3).tolist() == [1, 1, 0]
