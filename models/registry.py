"""One registry from method names to estimators and default parameter grids.

Pipelines name methods in their config (``geometric``, ``zero``, ...); this
module turns a name into an unfitted estimator and the grid that
:mod:`geomargin.models.selection` searches on an inner validation split.

Grids are lists of dicts in :class:`sklearn.model_selection.ParameterGrid`
style (each value a list; scalars are accepted too). The default grids
follow the paper (kernel linear / polynomial degree 2 and 3 / RBF; C on a
log grid; each method's own parameter) but are kept small for a 2-core
machine: C in {0.1, 1, 10}. Callers can pass their own grid.

The geometric-margin estimators are imported inside their factories so
this module works without them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from geomargin.models.baselines import ImputedSVC, LogRegIndicator, make_hgb

__all__ = ["MethodSpec", "METHODS", "get_method", "register_method", "svm_grid", "C_GRID"]

#: Default C values of every SVM grid.
C_GRID = [0.1, 1.0, 10.0]


def svm_grid(extra: dict[str, list] | None = None, C: list[float] | None = None) -> list[dict]:
    """The paper's kernel x C grid, optionally crossed with ``extra``.

    Kernels: linear, polynomial of degree 2 and 3, RBF (``gamma="scale"``).

    Examples
    --------
    >>> from sklearn.model_selection import ParameterGrid
    >>> len(ParameterGrid(svm_grid())), len(ParameterGrid(svm_grid({"n_neighbors": [3, 5]})))
    (12, 24)
    """
    C = list(C_GRID if C is None else C)
    extra = dict(extra or {})
    return [
        {"kernel": ["linear"], "C": C, **extra},
        {"kernel": ["poly"], "degree": [2, 3], "C": C, **extra},
        {"kernel": ["rbf"], "C": C, **extra},
    ]


@dataclass(frozen=True)
class MethodSpec:
    """A named method.

    Attributes
    ----------
    name : str
        Registry key used in configs.
    label : str
        Human name for tables and plots.
    make : callable
        ``make(groups=None, random_state=None) -> unfitted estimator``;
        ``groups`` are the feature blocks, ``random_state`` the seed.
    param_grid : list of dict
        Default inner-validation grid (ParameterGrid style).
    """

    name: str
    label: str
    make: Callable[..., Any]
    param_grid: list[dict] = field(default_factory=list)


def _imputed(imputer: str) -> Callable[..., Any]:
    def make(groups=None, random_state=None):
        return ImputedSVC(imputer=imputer, groups=groups, random_state=random_state)
    make.__name__ = f"make_{imputer}"
    return make


def _make_geometric(groups=None, random_state=None):
    from geomargin.models.geometric import GeometricMarginSVC  # lazy: other module
    return GeometricMarginSVC(groups=groups)


def _make_geometric_block(groups=None, random_state=None):
    from geomargin.models.block_kernel import BlockKernelGeometricSVC  # lazy: other module
    return BlockKernelGeometricSVC(groups=groups, random_state=random_state or 0)


def _make_geometric_rank(groups=None, random_state=None):
    from geomargin.models.rank_svm import GeometricMarginRankSVC  # lazy: other module
    return GeometricMarginRankSVC(random_state=random_state)


def _make_avg_w(groups=None, random_state=None):
    from geomargin.models.average_norm import AverageNormSVC  # lazy: other module
    return AverageNormSVC(groups=groups)


def _make_hgb(groups=None, random_state=None):
    return make_hgb(random_state=random_state)


def _make_logreg(groups=None, random_state=None):
    return LogRegIndicator()


METHODS: dict[str, MethodSpec] = {}


def register_method(spec: MethodSpec, *, replace: bool = False) -> MethodSpec:
    """Add ``spec`` to :data:`METHODS` (error if the name exists, unless ``replace``).

    Examples
    --------
    >>> from geomargin.models.baselines import ImputedSVC
    >>> spec = register_method(MethodSpec("zero_rbf", "Zero + RBF SVM",
    ...     lambda groups=None, random_state=None: ImputedSVC(kernel="rbf"),
    ...     [{"C": [1.0, 10.0]}]))
    >>> get_method("zero_rbf").label
    'Zero + RBF SVM'
    >>> _ = METHODS.pop("zero_rbf")
    """
    if not isinstance(spec, MethodSpec):
        raise TypeError(f"register_method expects a MethodSpec. Got {type(spec).__name__} instead.")
    if spec.name in METHODS and not replace:
        raise ValueError(f"A method named {spec.name!r} is already registered; "
                         "pass replace=True to override it.")
    METHODS[spec.name] = spec
    return spec


def get_method(name: str) -> MethodSpec:
    """Look a method up by name.

    Examples
    --------
    >>> get_method("knn").label
    'kNN imputation + SVM'
    >>> get_method("nope")
    Traceback (most recent call last):
    ...
    KeyError: "Unknown method 'nope'. Valid names: geometric, geometric_block, geometric_rank, avg_w, zero, mean, flags, knn, em, hgb, logreg_indicator, robust_socp, infinite_imputation, integrated_logreg, robust_socp_pca, infinite_imputation_pca, integrated_logreg_pca."
    """
    try:
        return METHODS[name]
    except (KeyError, TypeError):
        raise KeyError(f"Unknown method {name!r}. Valid names: {', '.join(METHODS)}.") from None


for _spec in (
    # No RBF for the geometric-margin methods: the RBF of distances over
    # features valid in both instances is not positive semi-definite, and on
    # real data ||w||^2 < 0 (the fit warns and stops iterating).
    MethodSpec("geometric", "Geometric margin SVM", _make_geometric,
               svm_grid({"n_iter": [1, 2, 3, 4, 5]})[:2]),
    # The block-additive RBF kernel (sum over blocks valid in both instances)
    # is PSD; an explicit per-block Nystroem map keeps fit and scoring linear.
    MethodSpec("geometric_block", "Geometric margin SVM, block-additive RBF kernel",
               _make_geometric_block, [{"C": C_GRID, "n_iter": [1, 3], "gamma_scale": [0.5, 1.0, 2.0]}]),
    # A pairwise (RankSVM) objective with the geometric margin: positives
    # against the negatives of their own query (the caller's instance
    # groups: in the enzyme task, the model reaction); linear scores.
    MethodSpec("geometric_rank", "Geometric margin, pairwise ranking objective",
               _make_geometric_rank, [{"C": [0.01, 0.1, 1.0], "n_iter": [1, 3]}]),
    MethodSpec("avg_w", "Average-norm (avg|w|) SVM", _make_avg_w, svm_grid()[:2]),
    MethodSpec("zero", "Zero imputation + SVM", _imputed("zero"), svm_grid()),
    MethodSpec("mean", "Mean imputation + SVM", _imputed("mean"), svm_grid()),
    MethodSpec("flags", "Zero imputation + group flags + SVM", _imputed("flags"), svm_grid()),
    MethodSpec("knn", "kNN imputation + SVM", _imputed("knn"),
               svm_grid({"n_neighbors": [3, 5, 10, 20]})),
    MethodSpec("em", "EM (spherical GMM) imputation + SVM", _imputed("em"),
               svm_grid({"n_components": [3, 5, 10, 15, 20]})),
    MethodSpec("hgb", "Gradient boosting on raw NaN", _make_hgb,
               [{"learning_rate": [0.05, 0.1], "max_leaf_nodes": [15, 31]}]),
    MethodSpec("logreg_indicator", "Logistic regression + mean + indicators", _make_logreg,
               [{"C": [0.01, 0.1, 1.0]}]),
):
    register_method(_spec)


# --- the other methods of our literature (Shivaswamy et al.; Dick et al.;
# Williams et al.). None takes feature groups. Their size limits (full
# covariances: d <= 100 for the SOCP, d <= 300 for the integrated logistic
# regression) are enforced by the estimators with a clear error; pass a grid
# with covariance "diag"/"lowrank" for larger d.
def _make_robust_socp(groups=None, random_state=None):
    from geomargin.models.robust_socp import RobustSOCPClassifier  # lazy: cvxpy import

    return RobustSOCPClassifier()


def _make_infinite_imputation(groups=None, random_state=None):
    from geomargin.models.infinite_imputation import InfiniteImputationSVC

    return InfiniteImputationSVC(max_iter=20)


def _make_integrated_logreg(groups=None, random_state=None):
    from geomargin.models.integrated_logreg import IntegratedLogisticRegression

    return IntegratedLogisticRegression(random_state=random_state)


for _spec in (
    MethodSpec("robust_socp", "Chance-constrained SOCP (Shivaswamy et al.)", _make_robust_socp,
               [{"C": C_GRID, "eta": [0.6, 0.8, 0.95]}]),
    MethodSpec("infinite_imputation", "Infinite imputation SVM (Dick et al.)",
               _make_infinite_imputation, [{"C": C_GRID, "imputation_reg": [0.1, 1.0]}]),
    MethodSpec("integrated_logreg", "Integrated logistic regression (Williams et al.)",
               _make_integrated_logreg, [{"C": [0.01, 0.1, 1.0], "n_components": [1, 3]}]),
):
    register_method(_spec)


# --- the same three on block-PCA features (models/reduce.py): each feature
# block (motif x source in the enzyme task, landmark slot in the car task) is
# reduced to a few principal components and stays absent where the block was
# absent, so their full-covariance Gaussians fit in the size limits above.
# Parameters of the classifier are "clf__<name>", of the reduction
# "blockpca__n_components".
def _reduced(make_inner: Callable[..., Any], n_components: int) -> Callable[..., Any]:
    def make(groups=None, random_state=None):
        from geomargin.models.reduce import reduced_pipeline

        return reduced_pipeline(make_inner(random_state=random_state), groups=groups,
                                n_components=n_components)
    make.__name__ = f"{make_inner.__name__}_pca"
    return make


for _spec in (
    MethodSpec("robust_socp_pca", "Chance-constrained SOCP on block-PCA features",
               _reduced(_make_robust_socp, 3), [{"clf__C": [0.1, 1.0], "clf__eta": [0.8]}]),
    MethodSpec("infinite_imputation_pca", "Infinite imputation SVM on block-PCA features",
               _reduced(_make_infinite_imputation, 3), [{"clf__C": [0.1, 1.0],
                                                         "clf__imputation_reg": [1.0]}]),
    MethodSpec("integrated_logreg_pca", "Integrated logistic regression on block-PCA features",
               _reduced(_make_integrated_logreg, 3), [{"clf__C": [0.1, 1.0],
                                                       "clf__n_components": [1]}]),
):
    register_method(_spec)
