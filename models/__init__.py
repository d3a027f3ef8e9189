"""Scikit-learn-compatible classifiers for data with structurally absent features.

``X`` is float64 with NaN where a feature is absent; see
:mod:`models._validation` for the conventions every estimator follows.
"""
