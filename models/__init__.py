"""Estimators and model selection for data with structurally absent features.

The scikit-learn-compatible classifiers (the geometric-margin SVM and the
imputation baselines), their registry (:mod:`geomargin.models.registry`) and nested
cross-validation (:mod:`geomargin.models.selection`). ``X`` is float64 with NaN where a
feature is absent; see :mod:`geomargin.models._validation` for the conventions every
estimator follows. What comes after a fitted model lives in the stage
packages: :mod:`geomargin.rank` (enzyme ranking), :mod:`geomargin.detect` (scene detection) and
:mod:`geomargin.report` (tables, figures, the candidate browser).
"""

import importlib

#: The public estimators, by the module that defines them. They are loaded on
#: first use (PEP 562), so that importing one submodule does not import cvxpy.
_ESTIMATORS = {
    "GeometricMarginSVC": "geometric",
    "AverageNormSVC": "average_norm",
    "GeometricMarginSOCP": "socp",
    "BlockKernelGeometricSVC": "block_kernel",
    "BlockKernelMap": "block_kernel",
    "GeometricMarginRankSVC": "rank_svm",
    "ImputedSVC": "baselines",
    "LogRegIndicator": "baselines",
    "AbsentColumnsHGB": "baselines",
    "GaussianMixtureEM": "gaussian_em",
    "RobustSOCPClassifier": "robust_socp",
    "InfiniteImputationSVC": "infinite_imputation",
    "IntegratedLogisticRegression": "integrated_logreg",
    "BlockPCA": "reduce",
    "FlagsImputer": "impute",
    "MaskedKNNImputer": "impute",
    "EMImputer": "impute",
}
__all__ = sorted(_ESTIMATORS)


def __getattr__(name: str):
    if name in _ESTIMATORS:
        return getattr(importlib.import_module(f"{__name__}.{_ESTIMATORS[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
