"""scikit-learn's check_estimator on the vision featurizers and detectors.

They fit stacks of grey images, ``(n, h, w)``, so every check that feeds
them a generated ``(n_samples, n_features)`` array fails; the lists say
so, one line each, and :func:`estimator_checks.check_estimator_exactly`
holds them exact (an unlisted failure or a listed pass fails the test).
"""

import pytest
from estimator_checks import ARRAY_INPUT_CHECKS, check_estimator_exactly, expected_failures

from geomargin.featurize.vision.featurizer import CarPartFeaturizer
from geomargin.featurize.vision.hog_detector import HogLandmarkDetector
from geomargin.featurize.vision.landmarks import LandmarkModel

IMAGES = "fits a stack of grey images (n, h, w), not a generated (n_samples, n_features) array"
CROPS = "fits a stack of training crops (n, 40, 100), not a generated (n_samples, n_features) array"
POSITIONS = "fit needs each image's landmark positions, fit(images, y, positions), which the check does not pass"

#: The transformer checks, which fit and transform a generated array.
TRANSFORMER_CHECKS = ("check_transformer_data_not_an_array", "check_transformer_general",
                      "check_transformer_preserve_dtypes")

#: The checks an image stack fails: not check_fit1d and check_complex_data,
#: which pass where fit rejects a 1-D and a complex array with the ValueError they ask for.
ARRAY_2D_CHECKS = tuple(c for c in ARRAY_INPUT_CHECKS if c not in ("check_fit1d", "check_complex_data"))


#: What every listed failure comes from (a sparse matrix fails its conversion to an image stack).
NOT_A_STACK = r"setting an array element with a sequence"


@pytest.mark.parametrize("estimator, expected, cause", [
    (CarPartFeaturizer(), expected_failures((*ARRAY_2D_CHECKS, *TRANSFORMER_CHECKS), CROPS),
     rf"expects crops of shape \(n, 40, 100\)|{NOT_A_STACK}"),
    (LandmarkModel(), expected_failures(ARRAY_2D_CHECKS, IMAGES), rf"needs images \(n, h, w\)|{NOT_A_STACK}"),
    (HogLandmarkDetector(), expected_failures(ARRAY_INPUT_CHECKS, POSITIONS),
     r"missing 1 required positional argument: 'positions'"),
], ids=lambda v: type(v).__name__ if not isinstance(v, (dict, str)) else "")
def test_check_estimator(estimator, expected, cause):
    results = check_estimator_exactly(estimator, expected, cause=cause)
    passed = {r["check_name"] for r in results if r["status"] == "passed"}
    assert {"check_get_params_invariance", "check_set_params", "check_no_attributes_set_in_init",
            "check_parameters_default_constructible"} <= passed
    if not isinstance(estimator, HogLandmarkDetector):
        assert {"check_complex_data", "check_fit1d"} <= passed
