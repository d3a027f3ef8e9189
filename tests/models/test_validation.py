"""Shared validation helpers of models/_validation.py."""

import importlib

import numpy as np
import pytest
from sklearn.base import BaseEstimator

from geomargin.models._validation import (check_positive_float, validate_binary_y,
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


#: Modules of models/ that define estimators.
ESTIMATOR_MODULES = ["average_norm", "baselines", "block_kernel", "gaussian_em", "geometric", "impute",
                     "infinite_imputation", "integrated_logreg", "rank_svm", "reduce",
                     "robust_socp", "socp"]


def _estimator_classes():
    """Every public scikit-learn estimator class defined in ESTIMATOR_MODULES."""
    for name in ESTIMATOR_MODULES:
        mod = importlib.import_module(f"geomargin.models.{name}")
        for obj in vars(mod).values():
            if (isinstance(obj, type) and issubclass(obj, BaseEstimator)
                    and obj.__module__ == mod.__name__ and not obj.__name__.startswith("_")):
                yield obj


ESTIMATORS = sorted(_estimator_classes(), key=lambda E: E.__name__)


def test_discovery_finds_the_estimators():
    assert {E.__name__ for E in ESTIMATORS} >= {
        "ImputedSVC", "LogRegIndicator", "GaussianMixtureEM", "AverageNormSVC",
        "GeometricMarginSVC", "EMImputer", "MaskedKNNImputer", "InfiniteImputationSVC",
        "IntegratedLogisticRegression", "BlockPCA", "RobustSOCPClassifier",
        "GeometricMarginSOCP", "GeometricMarginRankSVC", "BlockKernelMap",
        "BlockKernelGeometricSVC", "FlagsImputer"}


def test_the_package_exports_every_estimator():
    """``from geomargin.models import <Estimator>`` works for every public
    estimator the modules define, and names no other."""
    import geomargin.models as m

    assert set(m.__all__) == {E.__name__ for E in ESTIMATORS}
    assert all(getattr(m, E.__name__) is E for E in ESTIMATORS)


@pytest.mark.parametrize("Est", ESTIMATORS, ids=lambda E: E.__name__)
def test_constraints_cover_every_constructor_parameter(Est):
    """Every constructor parameter is in the class's _parameter_constraints
    (except groups, validated by validate_feature_groups, and random_state,
    by check_random_state unless declared), and the constraints name no
    parameter that does not exist."""
    params = set(Est().get_params())
    declared = set(Est._parameter_constraints)
    assert declared <= params
    assert params - {"groups", "random_state"} == declared - {"random_state"}


_X = np.array([[0.0, 1.0], [1.0, np.nan], [2.0, 0.5], [np.nan, 3.0], [0.5, 0.2], [1.5, 2.5]])
_Y = np.array([0, 1, 0, 1, 0, 1])


@pytest.mark.parametrize("Est, param", [(E, p) for E in ESTIMATORS
                                        for p in E._parameter_constraints],
                         ids=lambda v: v if isinstance(v, str) else v.__name__)
def test_fit_checks_every_declared_parameter(Est, param):
    """fit rejects a value no constraint accepts, in scikit-learn's words."""
    bad = object()
    with pytest.raises(ValueError, match=rf"^The '{param}' parameter of {Est.__name__} must be "):
        Est(**{param: bad}).fit(_X, _Y)


@pytest.mark.parametrize("Est", ["ImputedSVC", "InfiniteImputationSVC"])
def test_gamma_true_is_rejected_alike(Est):
    from geomargin.models.baselines import ImputedSVC
    from geomargin.models.infinite_imputation import InfiniteImputationSVC

    E = {"ImputedSVC": ImputedSVC, "InfiniteImputationSVC": InfiniteImputationSVC}[Est]
    X = np.array([[0.0, 1.0], [1.0, np.nan], [2.0, 0.5], [np.nan, 3.0]])
    with pytest.raises(ValueError, match=rf"^The 'gamma' parameter of {Est} must be .* "
                                         r"or a float > 0\. Got True instead\.$"):
        E(gamma=True).fit(X, [0, 1, 0, 1])


# ------------------------------------------------- per-feature attributes, full width
#: Estimators whose learned attributes have one entry per feature, with the
#: settings that give them (a linear model).
PER_FEATURE = {
    "GeometricMarginSVC": {}, "AverageNormSVC": {}, "GeometricMarginSOCP": {},
    "GeometricMarginRankSVC": {"random_state": 0}, "RobustSOCPClassifier": {},
    "IntegratedLogisticRegression": {},
}


@pytest.mark.parametrize("name", sorted(PER_FEATURE))
def test_per_feature_attributes_have_an_entry_per_input_column(name):
    """A column absent in every training row gets its own entry (0 in
    ``coef_`` and ``feature_scale_``, NaN in ``support_vectors_``), so a
    user's ``X @ coef_.T`` works; the fit and the scores are those without
    the column."""
    import geomargin.models as m

    Est = getattr(m, name)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = (X[:, 0] + 0.3 * X[:, 1] > 0).astype(int)
    X[::4, 1] = np.nan
    wide = np.column_stack([X[:, :1], np.full(30, np.nan), X[:, 1:]])
    with_col = Est(**PER_FEATURE[name]).fit(wide, y)
    without = Est(**PER_FEATURE[name]).fit(X, y)
    assert with_col.n_features_in_ == 4 and with_col.coef_.shape == (1, 4)
    assert with_col.coef_[0, 1] == 0.0
    np.testing.assert_allclose(np.delete(with_col.coef_, 1, axis=1), without.coef_, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(with_col.decision_function(wide), without.decision_function(X),
                               rtol=1e-6, atol=1e-9)
    assert (np.nan_to_num(wide) @ with_col.coef_.T).shape == (30, 1)
    if hasattr(with_col, "feature_scale_"):
        assert with_col.feature_scale_.shape == (4,) and with_col.feature_scale_[1] == 0.0
    if hasattr(with_col, "support_vectors_"):
        assert with_col.support_vectors_.shape[1] == 4 and np.isnan(with_col.support_vectors_[:, 1]).all()


# ------------------------------------------------------------- scikit-learn's checks
#: Estimators whose check_estimator runs here; the others' run in their own
#: test module (test_validation_covers_check_estimator_for_every_estimator).
CHECKED_HERE = ["AbsentColumnsHGB", "BlockKernelGeometricSVC", "BlockKernelMap", "BlockPCA", "GaussianMixtureEM"]


@pytest.mark.parametrize("name", CHECKED_HERE)
def test_check_estimator(name):
    from sklearn.utils.estimator_checks import check_estimator

    import geomargin.models as m

    est = getattr(m, name)()
    if "random_state" in est.get_params():
        est.set_params(random_state=0)
    check_estimator(est)


def test_every_estimator_passes_check_estimator_somewhere():
    """Every public estimator of geomargin.models is given to
    ``check_estimator`` by a test: here, or in a module of tests/models that
    names it and calls check_estimator."""
    from pathlib import Path

    here = Path(__file__).parent
    covered = set(CHECKED_HERE)
    for path in here.glob("test_*.py"):
        text = path.read_text()
        if path.name != Path(__file__).name and "check_estimator(" in text:
            covered |= {E.__name__ for E in ESTIMATORS if f"{E.__name__}(" in text}
    assert {E.__name__ for E in ESTIMATORS} <= covered, sorted({E.__name__ for E in ESTIMATORS} - covered)
