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


def test_one_constraints_table_covers_every_estimator_parameter():
    """Every constructor parameter of every estimator is in the table (except
    groups, validated by validate_feature_groups, and random_state, by
    check_random_state), and the table names no parameter that does not exist."""
    from models._validation import PARAMETER_CONSTRAINTS
    from models.baselines import ImputedSVC, LogRegIndicator
    from models.gaussian_em import GaussianMixtureEM
    from models.geometric import AverageNormSVC, GeometricMarginSVC
    from models.impute import EMImputer, MaskedKNNImputer
    from models.infinite_imputation import InfiniteImputationSVC
    from models.integrated_logreg import IntegratedLogisticRegression
    from models.rank_svm import GeometricMarginRankSVC
    from models.reduce import BlockPCA
    from models.robust_socp import RobustSOCPClassifier
    from models.socp import GeometricMarginSOCP

    ests = [ImputedSVC, LogRegIndicator, GaussianMixtureEM, AverageNormSVC, GeometricMarginSVC,
            EMImputer, MaskedKNNImputer, InfiniteImputationSVC, IntegratedLogisticRegression,
            BlockPCA, RobustSOCPClassifier, GeometricMarginSOCP, GeometricMarginRankSVC]
    assert {E.__name__ for E in ests} == set(PARAMETER_CONSTRAINTS)
    for E in ests:
        params = set(E().get_params()) - {"groups", "random_state"}
        assert params == set(PARAMETER_CONSTRAINTS[E.__name__]), E.__name__


@pytest.mark.parametrize("Est", ["ImputedSVC", "InfiniteImputationSVC"])
def test_gamma_true_is_rejected_alike(Est):
    from models.baselines import ImputedSVC
    from models.infinite_imputation import InfiniteImputationSVC

    E = {"ImputedSVC": ImputedSVC, "InfiniteImputationSVC": InfiniteImputationSVC}[Est]
    X = np.array([[0.0, 1.0], [1.0, np.nan], [2.0, 0.5], [np.nan, 3.0]])
    with pytest.raises(ValueError, match=rf"^The 'gamma' parameter of {Est} must be .* "
                                         r"or a float > 0\. Got True instead\.$"):
        E(gamma=True).fit(X, [0, 1, 0, 1])
