"""tests/estimator_checks.py holds an expected-failure list exact."""

import numpy as np
import pytest
from estimator_checks import check_estimator_exactly
from sklearn.linear_model import LogisticRegression


class _NoNotFittedError(LogisticRegression):
    """Scores before fit instead of raising NotFittedError: fails
    check_estimators_unfitted."""

    def decision_function(self, X):
        if not hasattr(self, "coef_"):
            return np.zeros(len(X))
        return super().decision_function(X)


def test_an_unlisted_failure_fails():
    with pytest.raises(AssertionError, match="checks failed that the list does not name: .*check_estimators_unfitted"):
        check_estimator_exactly(_NoNotFittedError(), {})


def test_a_listed_check_that_passes_fails():
    with pytest.raises(AssertionError, match=r"listed as failing but did not fail: \['check_fit2d_1sample'\]"):
        check_estimator_exactly(LogisticRegression(), {"check_fit2d_1sample": "a reason"})


def test_a_listed_check_that_never_runs_fails():
    with pytest.raises(AssertionError, match=r"did not fail: \['check_no_such_check'\]"):
        check_estimator_exactly(LogisticRegression(), {"check_no_such_check": "a reason"})


def test_the_listed_failure_passes():
    check_estimator_exactly(_NoNotFittedError(), {"check_estimators_unfitted": "scores before fit"})


def test_a_listed_failure_of_another_cause_fails():
    with pytest.raises(AssertionError, match="failed for another cause than 'no such message'"):
        check_estimator_exactly(_NoNotFittedError(), {"check_estimators_unfitted": "scores before fit"},
                                cause="no such message")
