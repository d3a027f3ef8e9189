"""Estimators and model selection for data with structurally absent features.

The scikit-learn-compatible classifiers (the geometric-margin SVM and the
imputation baselines), their registry (:mod:`models.registry`) and nested
cross-validation (:mod:`models.selection`). ``X`` is float64 with NaN where a
feature is absent; see :mod:`models._validation` for the conventions every
estimator follows. What comes after a fitted model lives in the stage
packages: :mod:`rank` (enzyme ranking), :mod:`detect` (scene detection) and
:mod:`report` (tables, figures, the candidate browser).
"""
