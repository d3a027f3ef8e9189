"""Imputers for the paper's baselines: NaN marks a structurally absent feature.

Chechik et al. (2008) compare the geometric-margin SVM with an SVM trained
on imputed data. This module holds the imputers; :mod:`geomargin.models.baselines`
chains them with the SVM.

* ``zero`` and ``mean`` are :class:`sklearn.impute.SimpleImputer`
  (``keep_empty_features=True``), built by :func:`make_imputer`.
* :class:`FlagsImputer` -- zero-fill plus one 0/1 indicator per *group* of
  features that are valid or absent together ("aggregated flags").
* :class:`MaskedKNNImputer` -- each absent value is the mean of that feature
  over the K nearest training instances that have the feature; distances
  are over the features valid in both instances. Identical to
  :class:`sklearn.impute.KNNImputer` (``weights="uniform"``,
  ``metric="nan_euclidean"``) up to ties at the K-th distance (broken here
  by training index, so defined whatever NumPy's partition does), but
  computed once per distinct missingness
  pattern of the columns instead of once per column, with float matrix
  products instead of integer ones (which makes it usable at
  n = 6000, d = 2000; see the class docstring).
* :class:`EMImputer` -- a spherical Gaussian mixture
  (:class:`sklearn.mixture.GaussianMixture`) fitted to the filled data;
  absent entries are refilled with posterior-weighted component means, the
  posterior using only the instance's observed features; iterate.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.impute import SimpleImputer
from sklearn.mixture import GaussianMixture
from sklearn.utils.validation import check_is_fitted, check_random_state

from geomargin.common.checks import boolean, check_param, int_at_least, positive_float, validate_params
from geomargin.models._rows import _distinct_byte_rows
from geomargin.models._validation import (
    check_choice,
    validate_feature_groups,
    validate_X_fit,
    validate_X_predict,
    valid_mask,
)

__all__ = [
    "IMPUTERS",
    "make_imputer",
    "FlagsImputer",
    "MaskedKNNImputer",
    "EMImputer",
    "masked_sq_distances",
]

#: Names accepted by :func:`make_imputer` (and ``ImputedSVC(imputer=...)``).
IMPUTERS = ("zero", "mean", "flags", "knn", "em")


def make_imputer(name: str, *, n_neighbors: int = 5, n_components: int = 5,
                 groups=None, random_state=None):
    """Return an unfitted imputer by name.

    Parameters
    ----------
    name : {"zero", "mean", "flags", "knn", "em"}
        ``zero`` and ``mean`` are :class:`~sklearn.impute.SimpleImputer`
        (constant 0 / column mean of the observed values; a feature absent
        in every training instance is filled with 0).
    n_neighbors : int, default=5
        K of the kNN imputer.
    n_components : int, default=5
        Number of mixture components of the EM imputer.
    groups : array-like of int, default=None
        Feature groups for the flags imputer.
    random_state : int, RandomState or None
        Seed of the EM imputer.

    Examples
    --------
    >>> import numpy as np
    >>> make_imputer("mean").fit_transform(np.array([[1.0, np.nan], [3.0, 4.0]]))
    array([[1., 4.],
           [3., 4.]])
    """
    check_choice("make_imputer", "name", name, IMPUTERS)
    if name == "zero":
        return SimpleImputer(strategy="constant", fill_value=0.0, keep_empty_features=True)
    if name == "mean":
        return SimpleImputer(strategy="mean", keep_empty_features=True)
    if name == "flags":
        return FlagsImputer(groups=groups)
    if name == "knn":
        return MaskedKNNImputer(n_neighbors=n_neighbors)
    return EMImputer(n_components=n_components, random_state=random_state)


class _AbsentTransformer(TransformerMixin, BaseEstimator):
    """Common tags: NaN input allowed, output has no NaN."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags


# --------------------------------------------------------------------------- flags
class FlagsImputer(_AbsentTransformer):
    """Zero-fill plus one indicator per group of features ("aggregated flags").

    The indicator of group ``g`` is 1 when the group is valid for the
    instance (at least one of its features is present) and 0 when it is
    absent. Indicators that are constant on the training data carry no
    information and are dropped at ``fit``.

    Parameters
    ----------
    groups : array-like of int of shape (n_features,), default=None
        Block label per feature; features of a block are valid or absent
        together. ``None`` gives one indicator per feature.

    Attributes
    ----------
    groups_ : ndarray of shape (n_features,)
        Validated group codes ``0..n_groups-1``.
    flag_groups_ : ndarray
        Group codes that received an indicator column, in output order.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 2.0, np.nan], [np.nan, np.nan, 3.0], [4.0, 5.0, 6.0]])
    >>> FlagsImputer(groups=[0, 0, 1]).fit_transform(X)
    array([[1., 2., 0., 1., 0.],
           [0., 0., 3., 0., 1.],
           [4., 5., 6., 1., 1.]])
    """

    _parameter_constraints: dict = {}  # groups: validate_feature_groups in fit

    def __init__(self, groups=None):
        self.groups = groups

    def _group_valid(self, X: np.ndarray) -> np.ndarray:
        mask = valid_mask(X).astype(np.float64)
        n_groups = int(self.groups_.max()) + 1 if self.groups_.size else 0
        onehot = np.zeros((X.shape[1], n_groups))
        onehot[np.arange(X.shape[1]), self.groups_] = 1.0
        return (mask @ onehot) > 0

    def fit(self, X, y=None):
        """Learn which group indicators vary on ``X``."""
        validate_params(self)
        X = validate_X_fit(self, X)
        self.groups_ = validate_feature_groups(self, self.groups, X.shape[1])
        gv = self._group_valid(X)
        self.flag_groups_ = np.flatnonzero(gv.any(axis=0) & ~gv.all(axis=0))
        return self

    def transform(self, X):
        """Return ``[zero-filled X, group indicators]``."""
        check_is_fitted(self, "flag_groups_")
        X = validate_X_predict(self, X)
        flags = self._group_valid(X)[:, self.flag_groups_].astype(np.float64)
        return np.hstack([np.nan_to_num(X, nan=0.0), flags])


# --------------------------------------------------------------------------- kNN
def _column_patterns(*masks: np.ndarray) -> np.ndarray:
    """Label columns by their missingness over the stacked row masks.

    Columns with equal labels have identical masks in every given matrix
    (for block-missing data: one label per block).
    """
    key = np.packbits(np.vstack(masks), axis=0)
    # the labels of np.unique(key, axis=1, return_inverse=True), from one byte
    # key per column instead of a sort of the columns as records
    return _distinct_byte_rows(key.T)[1]


def masked_sq_distances(A: np.ndarray, B: np.ndarray,
                        col_pattern: np.ndarray | None = None
                        ) -> tuple[np.ndarray, np.ndarray]:
    """Squared distances over features valid in both rows, and their counts.

    Returns ``(D, n_common)`` where ``D[i, j] = sum over common features of
    (A[i, f] - B[j, f])**2`` and ``n_common[i, j]`` is the number of common
    features. ``D = (A^2) M_B^T + M_A (B^2)^T - 2 A B^T`` with absent
    entries set to 0 and ``M`` the presence masks; columns that share a
    missingness pattern (``col_pattern``, computed if not given) are summed
    first, so for block-missing data only ``A B^T`` costs O(n m d).

    Examples
    --------
    >>> import numpy as np
    >>> D, n = masked_sq_distances(np.array([[0.0, np.nan, 1.0]]),
    ...                            np.array([[2.0, 5.0, np.nan]]))
    >>> D, n
    (array([[4.]]), array([[1.]]))
    """
    ma, mb = valid_mask(A), valid_mask(B)
    if col_pattern is None:
        col_pattern = _column_patterns(ma, mb)
    n_pat = int(col_pattern.max()) + 1 if col_pattern.size else 0
    rep = np.zeros(n_pat, dtype=np.intp)
    rep[col_pattern[::-1]] = np.arange(col_pattern.size)[::-1]  # first column per pattern
    size = np.bincount(col_pattern, minlength=n_pat).astype(np.float64)
    a, b = np.where(ma, A, 0.0), np.where(mb, B, 0.0)
    if n_pat < 0.5 * A.shape[1]:
        S = np.zeros((A.shape[1], n_pat))
        S[np.arange(A.shape[1]), col_pattern] = 1.0
        pa, pb = ma[:, rep].astype(np.float64), mb[:, rep].astype(np.float64)
        D = ((a * a) @ S) @ pb.T
        D += pa @ ((b * b) @ S).T
        counts = (pa * size) @ pb.T
    else:
        fa, fb = ma.astype(np.float64), mb.astype(np.float64)
        D = (a * a) @ fb.T
        D += fa @ (b * b).T
        counts = fa @ fb.T
    D -= 2.0 * (a @ b.T)
    np.maximum(D, 0.0, out=D)
    return D, counts


_PRESELECT = 256  # sorted columns first searched for a pattern's donors (at least 8 K)
#: A pattern with at most this many donors gets each receiver's K nearest by a
#: selection among its donors alone, not by a search of the receiver's sorted
#: donors (where a rare pattern's first donor can sit thousands of columns deep).
_DIRECT_DONORS = 64
#: Distances held at once by :class:`MaskedKNNImputer` (receivers x donors: 32 MB of float64
#: distances, as much again for their sorted order, and up to twice that for a rare pattern's
#: whole-row search; the chunk bounds memory, ``benchmarks/bench_main_job.py`` measures its time).
_KNN_CHUNK_ELEMENTS = 1 << 22


def _k_smallest(D: np.ndarray, k: int) -> np.ndarray:
    """Each row's ``k`` smallest columns, nearest first, ties by column index:
    exactly ``np.argsort(D, axis=1, kind="stable")[:, :k]``, from a partition
    (linear in the row's length) and a sort of the ``k`` chosen columns.
    ``D`` must hold no NaN.

    >>> _k_smallest(np.array([[3.0, 1.0, 2.0, 1.0, 0.0]]), 3).tolist()
    [[4, 1, 3]]
    """
    m, n = D.shape
    if k >= n:
        return np.argsort(D, axis=1, kind="stable")
    kth = np.partition(D, k - 1, axis=1)[:, k - 1:k]
    less = D < kth
    tied = D == kth
    # every column below the k-th value, then the tied ones by index until k
    need = k - less.sum(axis=1, keepdims=True)
    take = less | (tied & (np.cumsum(tied, axis=1, dtype=np.int32) <= need))
    cols = np.nonzero(take)[1].reshape(m, k)      # ascending index within each row
    order = np.argsort(np.take_along_axis(D, cols, axis=1), axis=1, kind="stable")
    return np.take_along_axis(cols, order, axis=1)


def _sorted_donors(D: np.ndarray, width: int | None = None) -> np.ndarray:
    """Each row's columns sorted nearest first, ties by column index (a
    stable sort: the order, and so the K nearest, is defined whatever the
    ties); with ``width``, only the first ``width`` of them (the same
    columns, found without sorting the whole row)."""
    if width is None or width >= D.shape[1]:
        return np.argsort(D, axis=1, kind="stable")
    return _k_smallest(D, width)


def _pattern_neighbours(D: np.ndarray, head: np.ndarray | None, recv: np.ndarray, has: np.ndarray,
                        k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` nearest donors (rows ``recv`` of ``D``, columns where
    ``has``) of each receiver, nearest first with ties by donor index, and
    whether each is at a finite distance.

    ``head`` is :func:`_sorted_donors` of ``D`` (each row's first sorted
    columns, or all of them): a receiver's donors are the first ``k`` of its
    sorted columns that are in ``has``. A receiver with fewer than ``k`` of
    them in ``head``, and every receiver when ``head`` is None, gets its
    ``k`` nearest by :func:`_k_smallest` among the ``has`` columns alone.
    The result is the same either way. Needs ``k <= has.sum()``.
    """
    donors = np.flatnonzero(has)
    if head is None:
        nbr = donors[_k_smallest(D[np.ix_(recv, donors)], k)]
    else:
        nbr = np.empty((recv.size, k), dtype=np.intp)
        cand = head[recv]
        pres = has[cand]
        csum = np.cumsum(pres, axis=1, dtype=np.int32)
        ok = csum[:, -1] >= k
        nbr[ok] = cand[ok][pres[ok] & (csum[ok] <= k)].reshape(-1, k)
        if not ok.all():
            rest = recv[~ok]
            nbr[~ok] = donors[_k_smallest(D[np.ix_(rest, donors)], k)]
    finite = np.isfinite(D[recv[:, None], nbr])
    return nbr, finite


class MaskedKNNImputer(_AbsentTransformer):
    """kNN imputation with distances over the features valid in both instances.

    An absent value ``X[i, f]`` becomes the mean of feature ``f`` over the
    ``n_neighbors`` training instances *that have feature f* and are nearest
    to instance ``i``. The distance is scikit-learn's ``nan_euclidean``:
    ``sqrt(d / n_common * sum over common features of squared differences)``
    -- the squared distance over the features valid in both, normalised by
    the number of common features (and multiplied by the constant ``d`` =
    n_features, which does not change the ranking). Donors that share no
    feature with the instance are never used; if no donor shares a feature,
    the training mean of ``f`` is used; a feature absent in every training
    instance is filled with 0.

    The result equals :class:`sklearn.impute.KNNImputer` with
    ``weights="uniform"`` and ``keep_empty_features=True`` (checked in the
    tests) wherever the K nearest donors are unambiguous. Where several
    donors are at the distance of the K-th, scikit-learn's choice among
    them depends on the order of NumPy's partition; here the donor with the
    lower training index is nearer, so the result is defined whatever the
    ties (on data with many equal rows, such as the metabolic features,
    most receivers have hundreds of donors at distance 0). Its cost is kept
    down: the distances use float BLAS products, each receiver's nearest
    donors are sorted once, and the neighbour search is done once per
    distinct column missingness pattern (one per block for block-missing
    data) rather than once per column, reading a pattern's K nearest donors
    off that sorted order (see ``preselect``).

    When transforming the training matrix itself, an instance is never its
    own donor for a feature it lacks, since donors must have the feature.

    Parameters
    ----------
    n_neighbors : int, default=5
        K; the paper's grid is {3, 5, 10, 20}.
    preselect : bool, default=True
        Sort only each receiver's nearest donors (the first ``_PRESELECT``,
        at least 8 K, found by a partition) and look for a pattern's donors
        there; a receiver with fewer than K of them there, and every
        receiver of a pattern that at most ``_DIRECT_DONORS`` training
        instances have, gets its K nearest by a selection among that
        pattern's donors alone. ``False`` sorts every receiver's whole row
        and reads every pattern off it. The result is exactly the same
        either way: this only changes the speed.

    Attributes
    ----------
    fit_X_ : ndarray of shape (n_samples, n_features)
        Training data (the donors).
    col_means_ : ndarray of shape (n_features,)
        Observed training mean per feature (0 for empty features).
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 1.0], [0.1, 3.0], [10.0, 50.0], [0.2, np.nan]])
    >>> MaskedKNNImputer(n_neighbors=2).fit_transform(X)[3]
    array([0.2, 2. ])
    """

    _parameter_constraints: dict = {"n_neighbors": int_at_least(1), "preselect": boolean()}

    def __init__(self, n_neighbors: int = 5, *, preselect: bool = True):
        self.n_neighbors = n_neighbors
        self.preselect = preselect

    def fit(self, X, y=None):
        """Store the training instances (the donors)."""
        validate_params(self)
        X = validate_X_fit(self, X)
        self.fit_X_ = X
        obs = valid_mask(X)
        cnt = obs.sum(axis=0)
        sums = np.nan_to_num(X, nan=0.0).sum(axis=0)
        self.col_means_ = np.divide(sums, cnt, out=np.zeros_like(sums), where=cnt > 0)
        return self

    def transform(self, X):
        """Fill absent values from the K nearest donors."""
        check_is_fitted(self, "fit_X_")
        X = validate_X_predict(self, X)
        return self._impute(X, [int(self.n_neighbors)])[0]

    def _impute(self, X: np.ndarray, ks: list[int]) -> list[np.ndarray]:
        """Impute ``X`` for several K at once (distances computed once), in
        chunks of receivers of at most :data:`_KNN_CHUNK_ELEMENTS` distances
        (a receiver's neighbours depend only on its own distances, so the
        result does not depend on the chunks)."""
        F = self.fit_X_
        miss = np.isnan(X)
        outs = [X.copy() for _ in ks]
        rows = np.flatnonzero(miss.any(axis=1))
        if rows.size == 0:
            return outs
        # columns with identical (receiver, donor) missingness share neighbours
        fmiss = np.isnan(F)
        col_pattern = _column_patterns(~miss[rows], ~fmiss)
        step = max(1, _KNN_CHUNK_ELEMENTS // max(F.shape[0], 1))
        for start in range(0, rows.size, step):
            self._impute_rows(X, rows[start:start + step], miss, fmiss, col_pattern, ks, outs)
        return outs

    def _impute_rows(self, X, rows, miss, fmiss, col_pattern, ks, outs) -> None:
        """Impute the receivers ``rows`` of ``X`` into ``outs`` (see :meth:`_impute`)."""
        F = self.fit_X_
        D, n_common = masked_sq_distances(X[rows], F, col_pattern)
        with np.errstate(divide="ignore", invalid="ignore"):
            D /= n_common
        D[n_common == 0] = np.inf
        del n_common
        kmax = max(ks)
        # each receiver's donors sorted once, nearest first, ties by index
        # (with preselect only the first columns, and only if a pattern reads
        # them; a pattern with few donors selects among them instead)
        width, direct = (max(_PRESELECT, 8 * kmax), _DIRECT_DONORS) if self.preselect else (None, 0)
        head = None
        for p in np.unique(col_pattern):
            cols = np.flatnonzero(col_pattern == p)
            recv = np.flatnonzero(miss[rows, cols[0]])
            if recv.size == 0:
                continue
            has = ~fmiss[:, cols[0]]
            n_donors = int(has.sum())
            if n_donors == 0:  # feature empty in training: 0
                for o in outs:
                    o[np.ix_(rows[recv], cols)] = 0.0
                continue
            k_all = min(kmax, n_donors)
            if n_donors > direct and head is None:
                head = _sorted_donors(D, width)
            nbr, finite = _pattern_neighbours(D, head if n_donors > direct else None, recv, has, k_all)
            vals = F[:, cols]
            for o, k in zip(outs, ks):
                kk = min(k, k_all)
                w = finite[:, :kk].astype(np.float64)
                cnt = w.sum(axis=1)
                acc = np.einsum("rk,rkc->rc", w, vals[nbr[:, :kk]])
                filled = np.where(cnt[:, None] > 0,
                                  acc / np.maximum(cnt, 1.0)[:, None],
                                  self.col_means_[cols][None, :])
                o[np.ix_(rows[recv], cols)] = filled


# --------------------------------------------------------------------------- EM
class EMImputer(_AbsentTransformer):
    """Impute with a spherical Gaussian mixture, refitted on the filled data.

    Algorithm (fit):

    1. fill absent entries with the observed feature means;
    2. fit :class:`~sklearn.mixture.GaussianMixture`
       (``covariance_type="spherical"``, at most ``max_iter`` steps) on the
       filled data, warm-started from the previous round's mixture;
    3. for every instance compute the component posteriors from its
       *observed* features only: the log density of component ``k`` is
       ``log pi_k - 1/2 * (sum_obs (x_f - mu_kf)^2 / s2_k + n_obs * log(2 pi s2_k))``;
    4. refill each absent entry with ``sum_k r_ik mu_kf``;
    5. repeat 2-4 until the relative change of the filled values is below
       ``tol`` or ``n_em_iter`` iterations were done.

    ``transform`` applies step 3-4 with the final mixture. An instance
    with no observed feature gets the mixture mean ``sum_k pi_k mu_k``.

    Parameters
    ----------
    n_components : int, default=5
        K; the paper's grid is {3, 5, 10, 15, 20}.
    n_em_iter : int, default=10
        Maximum number of refit/refill rounds. The refill is a fixed-point
        iteration: a component's mean converges to the mean of its
        observed values geometrically, with rate = its fraction of absent
        entries, so more rounds are needed when much is absent.
    tol : float, default=1e-3
        Stop when ``||X_new - X_old|| / ||X_old||`` over the absent entries
        falls below ``tol``.
    max_iter : int, default=3
        GaussianMixture EM steps per round (warm-started, so the rounds
        together form one interleaved EM: a few mixture steps, a refill,
        a few more steps...). The first round also runs k-means
        initialisation.
    reg_covar : float, default=1e-6
        Passed to GaussianMixture.
    random_state : int, RandomState or None
        Seed of the mixture initialisation.

    Attributes
    ----------
    gmm_ : GaussianMixture
        The final mixture.
    n_iter_ : int
        Rounds done.
    col_means_ : ndarray of shape (n_features,)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [0.2, 0.4], [10.0, 20.0], [10.2, 20.4], [0.1, np.nan]])
    >>> em = EMImputer(n_components=2, n_em_iter=50, tol=1e-9, random_state=0)
    >>> em.fit_transform(X)[4].round(6)    # mean of feature 2 in its cluster
    array([0.1, 0.2])
    """

    _parameter_constraints: dict = {
        "n_components": int_at_least(1), "n_em_iter": int_at_least(1), "tol": positive_float(),
        "max_iter": int_at_least(1), "reg_covar": positive_float(),
    }

    def __init__(self, n_components: int = 5, *, n_em_iter: int = 10, tol: float = 1e-3,
                 max_iter: int = 3, reg_covar: float = 1e-6, random_state=None):
        self.n_components = n_components
        self.n_em_iter = n_em_iter
        self.tol = tol
        self.max_iter = max_iter
        self.reg_covar = reg_covar
        self.random_state = random_state

    def _fill(self, X: np.ndarray, miss: np.ndarray) -> np.ndarray:
        """X with absent entries replaced by posterior-weighted component means."""
        g = self.gmm_
        mu, var, logw = g.means_, g.covariances_, np.log(g.weights_)
        obs = (~miss).astype(np.float64)
        xz = np.where(miss, 0.0, X)
        sq = np.einsum("ij,ij->i", xz, xz)[:, None] - 2.0 * (xz @ mu.T) + obs @ (mu * mu).T
        np.maximum(sq, 0.0, out=sq)
        n_obs = obs.sum(axis=1)[:, None]
        logp = logw[None, :] - 0.5 * (sq / var[None, :] + n_obs * np.log(2 * np.pi * var)[None, :])
        logp -= logp.max(axis=1, keepdims=True)
        r = np.exp(logp)
        r /= r.sum(axis=1, keepdims=True)
        return np.where(miss, r @ mu, X)

    def fit(self, X, y=None):
        """Alternate mixture fits and posterior refills."""
        self._fit_transform(X)
        return self

    def fit_transform(self, X, y=None):
        """Fit and return the training data filled by the final refill."""
        return self._fit_transform(X)

    def _fit_transform(self, X) -> np.ndarray:
        validate_params(self)
        n_components, n_em_iter = int(self.n_components), int(self.n_em_iter)
        X = validate_X_fit(self, X)
        check_param(self, "n_components", n_components, lambda v: v <= X.shape[0],
                    f"an int <= n_samples={X.shape[0]}")
        rng = check_random_state(self.random_state)
        seed = int(rng.randint(np.iinfo(np.int32).max))
        miss = np.isnan(X)
        cnt = (~miss).sum(axis=0)
        sums = np.where(miss, 0.0, X).sum(axis=0)
        self.col_means_ = np.divide(sums, cnt, out=np.zeros_like(sums), where=cnt > 0)
        Xf = np.where(miss, self.col_means_[None, :], X)
        # warm_start: each round continues from the previous round's mixture
        self.gmm_ = GaussianMixture(n_components=n_components, covariance_type="spherical",
                                    max_iter=self.max_iter, reg_covar=self.reg_covar,
                                    random_state=seed, warm_start=True)
        self.n_iter_ = 0
        for it in range(n_em_iter):
            with warnings.catch_warnings():
                # a round may stop before the mixture converges (max_iter
                # steps per round); the rounds continue where it stopped
                warnings.simplefilter("ignore", ConvergenceWarning)
                self.gmm_.fit(Xf)
            new = self._fill(X, miss)
            self.n_iter_ = it + 1
            old_v, new_v = Xf[miss], new[miss]
            change = np.linalg.norm(new_v - old_v) / max(np.linalg.norm(old_v), 1e-12)
            Xf = new
            if not miss.any() or change < self.tol:
                break
        return Xf

    def transform(self, X):
        """Fill absent entries with posterior-weighted component means."""
        check_is_fitted(self, "gmm_")
        X = validate_X_predict(self, X)
        return self._fill(X, np.isnan(X))
