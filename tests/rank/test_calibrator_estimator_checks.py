"""scikit-learn's check_estimator on the two confidence calibrators.

Both fit calibration rows, a table of named columns, so every check that
feeds them a generated numeric array fails; the lists say so, one line
each, and :func:`estimator_checks.check_estimator_exactly` holds them exact
(an unlisted failure or a listed pass fails the test).
"""

import pytest
from estimator_checks import ARRAY_INPUT_CHECKS, check_estimator_exactly, expected_failures

from geomargin.rank.calibration import ConfidenceCalibrator
from geomargin.rank.history_calibrator import HistoryCalibrator

ROWS = ("fits calibration rows: a DataFrame whose named columns (rank, reaction_kind, the evidence "
        "flags) a generated array does not have")

#: The sample-weight checks, which fit a generated array with weights.
SAMPLE_WEIGHT_CHECKS = (
    "check_sample_weights_pandas_series", "check_sample_weights_not_an_array", "check_sample_weights_list",
    "check_all_zero_sample_weights_error", "check_sample_weights_shape", "check_sample_weights_not_overwritten",
    "check_sample_weight_equivalence_on_dense_data",
)


@pytest.mark.parametrize("estimator, expected", [
    (ConfidenceCalibrator(), expected_failures((*ARRAY_INPUT_CHECKS, *SAMPLE_WEIGHT_CHECKS), ROWS)),
    (HistoryCalibrator(), expected_failures(ARRAY_INPUT_CHECKS, ROWS)),
], ids=lambda v: type(v).__name__ if not isinstance(v, dict) else "")
def test_check_estimator(estimator, expected):
    # every listed failure comes from the rows' missing named columns
    results = check_estimator_exactly(estimator, expected, cause=r"has no attribute 'columns'|missing column")
    passed = {r["check_name"] for r in results if r["status"] == "passed"}
    # what does not depend on the input passes: the parameters and the unfitted error
    assert {"check_get_params_invariance", "check_set_params", "check_estimators_unfitted",
            "check_no_attributes_set_in_init", "check_parameters_default_constructible"} <= passed
