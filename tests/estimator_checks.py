"""scikit-learn's ``check_estimator`` with an exact expected-failure list.

An estimator whose input is not an ``(n_samples, n_features)`` array (a
table of named columns, a stack of images) fails every check that feeds it
such an array; its list names each of those checks with the reason.
:func:`check_estimator_exactly` fails when a check outside the list fails,
when a listed check does not fail, and (given the cause) when a listed
check fails for another reason, so the list says exactly what fails and why.
"""

from __future__ import annotations

import re

from sklearn.utils.estimator_checks import check_estimator

#: The checks that fit or transform a generated 2-D numeric array (or a
#: sparse or complex one) and so cannot run on an estimator that reads
#: named columns or images.
ARRAY_INPUT_CHECKS = (
    "check_fit_score_takes_y", "check_estimators_overwrite_params", "check_dont_overwrite_parameters",
    "check_estimators_fit_returns_self", "check_readonly_memmap_input", "check_n_features_in_after_fitting",
    "check_positive_only_tag_during_fit", "check_estimators_dtypes", "check_complex_data",
    "check_dtype_object", "check_estimators_empty_data_messages", "check_pipeline_consistency",
    "check_estimators_nan_inf", "check_estimator_sparse_tag", "check_estimator_sparse_array",
    "check_estimator_sparse_matrix", "check_estimators_pickle", "check_f_contiguous_array_estimator",
    "check_methods_sample_order_invariance", "check_methods_subset_invariance", "check_fit2d_1sample",
    "check_fit2d_1feature", "check_dict_unchanged", "check_fit_idempotent", "check_fit_check_is_fitted",
    "check_n_features_in", "check_fit1d", "check_fit2d_predict1d",
)


def expected_failures(checks, reason: str) -> dict[str, str]:
    """``{check: reason}`` for each of ``checks``: one line each."""
    return {c: reason for c in checks}


def _messages(exc: BaseException):
    """The messages of ``exc`` and of the exceptions it was raised from."""
    while exc is not None:
        yield str(exc)
        exc = exc.__cause__ or exc.__context__


def check_estimator_exactly(estimator, expected_failed_checks: dict[str, str], cause: str | None = None) -> list[dict]:
    """Run every check of ``estimator``; raise AssertionError naming the
    checks that failed without being listed, and the listed checks that
    did not fail (passed, skipped or never ran). With ``cause`` (a regular
    expression), every listed failure must come from an exception whose
    message, or that of an exception it was raised from, matches it: the
    stated reason, not another fault. Returns the checks' results."""
    results = check_estimator(estimator, expected_failed_checks=expected_failed_checks,
                              on_fail=None, on_skip=None)
    name = type(estimator).__name__
    failed = sorted({r["check_name"] for r in results if r["status"] == "failed"})
    xfails = [r for r in results if r["status"] == "xfail"]
    not_failing = sorted(set(expected_failed_checks) - {r["check_name"] for r in xfails})
    assert not failed, f"{name}: checks failed that the list does not name: {failed}"
    assert not not_failing, f"{name}: listed as failing but did not fail: {not_failing}"
    if cause is not None:
        other = sorted({r["check_name"] for r in xfails
                        if not any(re.search(cause, m) for m in _messages(r["exception"]))})
        assert not other, f"{name}: listed checks failed for another cause than {cause!r}: {other}"
    return results
