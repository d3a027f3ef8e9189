"""Imputers: hand-computed results, equivalence with scikit-learn, estimator checks."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.impute import KNNImputer
from sklearn.metrics.pairwise import nan_euclidean_distances
from sklearn.utils.estimator_checks import check_estimator

from geomargin.models.impute import (
    EMImputer,
    FlagsImputer,
    MaskedKNNImputer,
    make_imputer,
    masked_sq_distances,
)

nan = np.nan


# ------------------------------------------------------------------ zero / mean
def test_zero_and_mean_by_hand():
    X = np.array([[1.0, nan, nan], [3.0, 4.0, nan], [nan, 8.0, nan]])
    Z = make_imputer("zero").fit_transform(X)
    np.testing.assert_array_equal(Z, [[1, 0, 0], [3, 4, 0], [0, 8, 0]])
    M = make_imputer("mean").fit_transform(X)
    # column 2 is absent everywhere: kept and filled with 0
    np.testing.assert_array_equal(M, [[1, 6, 0], [3, 4, 0], [2, 8, 0]])


def test_make_imputer_bad_name():
    with pytest.raises(ValueError, match="The 'name' parameter of make_imputer must be one of"):
        make_imputer("median")


# ------------------------------------------------------------------ flags
def test_flags_one_indicator_per_group_by_hand():
    X = np.array([[1.0, 2.0, nan, 5.0],
                  [nan, nan, 3.0, 6.0],
                  [4.0, 5.0, 6.0, 7.0]])
    f = FlagsImputer(groups=[7, 7, 3, 9]).fit(X)
    # groups are recoded in sorted order: 3 -> 0, 7 -> 1, 9 -> 2; group 9
    # (last column) is valid everywhere, so its constant flag is dropped
    np.testing.assert_array_equal(f.flag_groups_, [0, 1])
    out = f.transform(X)
    np.testing.assert_array_equal(out, [[1, 2, 0, 5, 0, 1],
                                        [0, 0, 3, 6, 1, 0],
                                        [4, 5, 6, 7, 1, 1]])
    # at transform time the learned columns are kept even if constant there
    np.testing.assert_array_equal(f.transform(np.array([[nan, nan, nan, nan]])),
                                  [[0, 0, 0, 0, 0, 0]])


def test_flags_without_groups_is_per_feature():
    X = np.array([[1.0, nan], [nan, 2.0], [3.0, 4.0]])
    out = FlagsImputer().fit_transform(X)
    np.testing.assert_array_equal(out, [[1, 0, 1, 0], [0, 2, 0, 1], [3, 4, 1, 1]])


def test_flags_groups_wrong_length():
    with pytest.raises(ValueError, match="'groups' parameter of FlagsImputer must be an integer "
                                         "array of length n_features=3"):
        FlagsImputer(groups=[0, 1]).fit(np.ones((3, 3)))


# ------------------------------------------------------------------ kNN
def test_masked_distances_match_sklearn_nan_euclidean():
    rng = np.random.RandomState(0)
    A = rng.randn(30, 12)
    B = rng.randn(20, 12)
    A[rng.rand(*A.shape) < 0.3] = nan
    B[rng.rand(*B.shape) < 0.3] = nan
    D, n = masked_sq_distances(A, B)
    with np.errstate(divide="ignore", invalid="ignore"):
        mine = D / n * A.shape[1]
    ref = nan_euclidean_distances(A, B, squared=True)
    np.testing.assert_array_equal(np.isnan(ref), n == 0)
    np.testing.assert_allclose(mine[n > 0], ref[n > 0], rtol=1e-10, atol=1e-10)


def test_masked_distances_block_path_equals_dense_path():
    # many columns per pattern -> compressed path; compare with a loop
    rng = np.random.RandomState(1)
    groups = np.repeat(np.arange(4), 5)
    A, B = rng.randn(9, 20), rng.randn(7, 20)
    A[(rng.rand(9, 4) < 0.5)[:, groups]] = nan
    B[(rng.rand(7, 4) < 0.5)[:, groups]] = nan
    D, n = masked_sq_distances(A, B)
    for i in range(9):
        for j in range(7):
            both = ~np.isnan(A[i]) & ~np.isnan(B[j])
            assert n[i, j] == both.sum()
            assert D[i, j] == pytest.approx(((A[i, both] - B[j, both]) ** 2).sum(), abs=1e-10)


KNN_X = np.array([[0.0, 0.0, nan],
                  [1.0, nan, 10.0],
                  [1.0, 0.5, 20.0],
                  [3.0, 3.0, 30.0]])


def test_knn_by_hand_distance_normalised_by_common_features():
    # Row 0 lacks f2. Donors having f2: rows 1, 2, 3.
    #   row 1: common {f0}: 1^2 / 1 = 1
    #   row 2: common {f0, f1}: (1 + 0.25) / 2 = 0.625   <- nearest
    #   row 3: common {f0, f1}: (9 + 9) / 2 = 9
    # (without the normalisation row 1 (1) would beat row 2 (1.25)).
    # Row 1 lacks f1. Donors having f1: rows 0, 2, 3.
    #   row 0: common {f0}: 1 / 1 = 1                      <- nearest
    #   row 2: common {f0, f2}: (0 + 100) / 2 = 50
    #   row 3: common {f0, f2}: (4 + 400) / 2 = 202
    out1 = MaskedKNNImputer(n_neighbors=1).fit_transform(KNN_X)
    assert out1[0, 2] == 20.0
    assert out1[1, 1] == 0.0
    out2 = MaskedKNNImputer(n_neighbors=2).fit_transform(KNN_X)
    assert out2[0, 2] == pytest.approx((20.0 + 10.0) / 2)
    assert out2[1, 1] == pytest.approx((0.0 + 0.5) / 2)
    # observed values untouched
    obs = ~np.isnan(KNN_X)
    np.testing.assert_array_equal(out2[obs], KNN_X[obs])
    # K larger than the number of donors: mean over all donors
    out9 = MaskedKNNImputer(n_neighbors=9).fit_transform(KNN_X)
    assert out9[0, 2] == pytest.approx(20.0)
    assert out9[1, 1] == pytest.approx((0.0 + 0.5 + 3.0) / 3)


def test_knn_new_instance_and_no_common_feature():
    imp = MaskedKNNImputer(n_neighbors=1).fit(KNN_X)
    # a new instance with only f2 = 29: nearest donor with f0 is row 3 (|29-30|)
    out = imp.transform(np.array([[nan, nan, 29.0]]))
    np.testing.assert_allclose(out, [[3.0, 3.0, 29.0]])
    # no feature at all: no donor shares a feature -> training means
    out = imp.transform(np.array([[nan, nan, nan]]))
    np.testing.assert_allclose(out, [[5.0 / 4, 3.5 / 3, 20.0]])


def test_knn_matches_sklearn_knnimputer():
    rng = np.random.RandomState(3)
    groups = np.repeat(np.arange(6), 3)
    X = rng.randn(60, 18)
    X[(rng.rand(60, 6) < 0.4)[:, groups]] = nan
    X[rng.rand(60, 18) < 0.05] = nan           # plus some scattered absences
    Xnew = rng.randn(15, 18)
    Xnew[(rng.rand(15, 6) < 0.4)[:, groups]] = nan
    for k in (1, 3, 5, 10):
        ref = KNNImputer(n_neighbors=k, keep_empty_features=True).fit(X)
        mine = MaskedKNNImputer(n_neighbors=k).fit(X)
        np.testing.assert_allclose(mine.transform(X), ref.transform(X), rtol=1e-10)
        np.testing.assert_allclose(mine.transform(Xnew), ref.transform(Xnew), rtol=1e-10)
    # several K from one distance computation = one K at a time
    many = MaskedKNNImputer(n_neighbors=3).fit(X)._impute(Xnew, [3, 5, 10])
    for k, out in zip((3, 5, 10), many):
        np.testing.assert_allclose(out, MaskedKNNImputer(n_neighbors=k).fit(X).transform(Xnew))


def test_knn_preselection_and_rare_donors_match_sklearn():
    # More donors than the preselected nearest rows (_PRESELECT), so a
    # receiver's donors for a common block come from the preselection, while
    # a block that only 6 donors have is searched among them alone.
    from geomargin.models import impute
    rng = np.random.RandomState(5)
    groups = np.repeat(np.arange(8), 3)
    X = rng.randn(400, 24)
    present = rng.rand(400, 8) < np.array([0.9, 0.8, 0.6, 0.5, 0.4, 0.3, 0.2, 0.0])
    present[:6, 7] = True                                # block 7: six donors
    X[(~present)[:, groups]] = nan
    Xnew = rng.randn(50, 24)
    Xnew[(rng.rand(50, 8) < 0.5)[:, groups]] = nan
    assert impute._PRESELECT < 400
    for k in (1, 5, 20):
        ref = KNNImputer(n_neighbors=k, keep_empty_features=True).fit(X)
        mine = MaskedKNNImputer(n_neighbors=k).fit(X)
        np.testing.assert_allclose(mine.transform(Xnew), ref.transform(Xnew), rtol=1e-10)
        np.testing.assert_allclose(mine.transform(X), ref.transform(X), rtol=1e-10)


@pytest.mark.parametrize("discrete", [False, True])
def test_knn_neighbours_are_the_k_nearest_with_ties_by_index(discrete):
    # Against a brute force: for each receiver, the donors that have the
    # feature sorted by (distance, index) with np.lexsort, the first K. The
    # search in each row's first sorted columns (with the fallback for
    # donors rare among them), in the whole sorted row, and the selection
    # among the pattern's donors alone, with ties (discrete values) and
    # infinite distances (no common feature).
    from geomargin.models import impute
    rng = np.random.RandomState(11)
    D = rng.randint(0, 6, size=(80, 300)).astype(float) if discrete else rng.rand(80, 300)
    D[rng.rand(80, 300) < 0.1] = np.inf
    order = np.argsort(D, axis=1, kind="stable")
    np.testing.assert_array_equal(impute._sorted_donors(D), order)
    np.testing.assert_array_equal(impute._sorted_donors(D, 20), order[:, :20])
    for share in (0.9, 0.3, 0.05):
        has = rng.rand(300) < share
        recv = np.flatnonzero(rng.rand(80) < 0.7)
        donors = np.flatnonzero(has)
        for k in (1, 5, 12):
            k = min(k, donors.size)
            ref = np.array([donors[np.lexsort((donors, D[r, donors]))[:k]] for r in recv])
            for head in (order[:, :20], order, None):
                nbr, finite = impute._pattern_neighbours(D, head, recv, has, k)
                np.testing.assert_array_equal(nbr, ref)
                np.testing.assert_array_equal(finite, np.isfinite(D[recv[:, None], ref]))


@pytest.mark.parametrize("discrete", [False, True])
def test_k_smallest_is_the_head_of_a_stable_argsort(discrete):
    # the partition-based selection equals np.argsort(kind="stable")[:, :k]
    # bit for bit, with ties at the k-th value, infinities and k >= n
    from geomargin.models import impute
    rng = np.random.RandomState(4)
    D = rng.randint(0, 4, size=(60, 50)).astype(float) if discrete else rng.rand(60, 50)
    D[rng.rand(60, 50) < 0.2] = np.inf
    D[0] = np.inf
    D[1] = 0.0
    ref = np.argsort(D, axis=1, kind="stable")
    for k in (1, 2, 7, 49, 50, 80):
        np.testing.assert_array_equal(impute._k_smallest(D, k), ref[:, :k])


def test_knn_ties_broken_by_training_index():
    # Row 40 lacks f1; rows 0-39 all have f1 (= their index) and are at
    # distance 0 from it over f0: with K = 5 the five with the lowest index
    # give their mean, whatever order the rows come in.
    X = np.column_stack([np.ones(41), np.r_[np.arange(40.0), nan]])
    assert MaskedKNNImputer(n_neighbors=5).fit_transform(X)[40, 1] == 2.0   # 0..4
    perm = np.r_[np.arange(39, -1, -1), 40]   # the same rows, the 39 now first
    assert MaskedKNNImputer(n_neighbors=5).fit_transform(X[perm])[40, 1] == 37.0   # 39..35


def _knn_brute_force(F, X, k):
    """kNN imputation by its definition, one receiver and column at a time:
    nan_euclidean distances over common features, the donors having the
    column sorted by (distance, index), the mean over the first k at a
    finite distance (the training mean without one)."""
    out = X.copy()
    means = np.nanmean(F, axis=0)
    for i, j in zip(*np.nonzero(np.isnan(X))):
        common = ~np.isnan(X[i]) & ~np.isnan(F)
        n = common.sum(axis=1)
        d = np.where(common, (X[i] - F) ** 2, 0.0).sum(axis=1)
        d = np.where(n > 0, d / np.maximum(n, 1), np.inf)
        donors = np.flatnonzero(~np.isnan(F[:, j]))
        near = donors[np.lexsort((donors, d[donors]))[:k]]
        near = near[np.isfinite(d[near])]
        out[i, j] = F[near, j].mean() if near.size else means[j]
    return out


def test_knn_matches_brute_force_with_many_ties():
    # discrete values: most receivers have many donors at the same distance
    rng = np.random.RandomState(2)
    groups = np.repeat(np.arange(4), 2)
    X = rng.randint(0, 2, size=(300, 8)).astype(float)
    X[(rng.rand(300, 4) < np.array([0.2, 0.4, 0.6, 0.95]))[:, groups]] = nan
    Xnew = rng.randint(0, 2, size=(30, 8)).astype(float)
    Xnew[(rng.rand(30, 4) < 0.5)[:, groups]] = nan
    for k in (1, 5, 20):
        imp = MaskedKNNImputer(n_neighbors=k).fit(X)
        for A in (X, Xnew):
            np.testing.assert_allclose(imp.transform(A), _knn_brute_force(X, A, k), rtol=1e-12)


@pytest.mark.parametrize("discrete", [False, True])
@pytest.mark.parametrize("preselect, direct", [(None, None), (8, 0), (8, 10 ** 6)])
def test_knn_preselect_only_changes_speed(discrete, preselect, direct, monkeypatch):
    # the public switch: preselect=False reads every pattern's donors off
    # the whole sorted row; the output is bit-identical, with ties (discrete
    # values), a rare block, receivers sharing no feature with some donors
    # (infinite distances), and (monkeypatched) a short preselection with
    # its fallback, no selection among a pattern's donors, or only that
    from geomargin.models import impute
    if preselect is not None:
        monkeypatch.setattr(impute, "_PRESELECT", preselect)
        monkeypatch.setattr(impute, "_DIRECT_DONORS", direct)
    rng = np.random.RandomState(7)
    groups = np.repeat(np.arange(6), 2)
    X = rng.randint(0, 4, size=(300, 12)).astype(float) if discrete else rng.randn(300, 12)
    present = rng.rand(300, 6) < np.array([0.9, 0.7, 0.5, 0.3, 0.1, 0.0])
    present[:5, 5] = True
    X[(~present)[:, groups]] = nan
    Xnew = rng.randn(40, 12)
    Xnew[(rng.rand(40, 6) < 0.6)[:, groups]] = nan
    for k in (1, 5):
        fast = MaskedKNNImputer(n_neighbors=k).fit(X)
        full = MaskedKNNImputer(n_neighbors=k, preselect=False).fit(X)
        assert fast.preselect and not full.preselect
        for A in (X, Xnew):
            np.testing.assert_array_equal(fast.transform(A), full.transform(A))


def test_knn_bad_n_neighbors():
    with pytest.raises(ValueError, match=r"The 'n_neighbors' parameter of MaskedKNNImputer must "
                                         r"be an int >= 1\. Got 0 instead\."):
        MaskedKNNImputer(n_neighbors=0).fit(KNN_X)


# ------------------------------------------------------------------ EM
def test_em_one_component_is_observed_mean():
    X = np.array([[1.0, 2.0, nan],
                  [3.0, nan, 5.0],
                  [nan, 6.0, 9.0],
                  [7.0, 10.0, nan]])
    em = EMImputer(n_components=1, random_state=0).fit(X)
    out = em.transform(X)
    means = np.array([11.0 / 3, 18.0 / 3, 7.0])
    miss = np.isnan(X)
    np.testing.assert_allclose(out[miss], np.broadcast_to(means, X.shape)[miss], rtol=1e-9)
    np.testing.assert_allclose(em.gmm_.means_[0], means, rtol=1e-9)
    # the fill is a fixed point already after the first round
    assert em.n_iter_ == 1


def test_em_two_well_separated_clusters():
    # cluster A around (0, 0, 0), cluster B around (100, 100, 100)
    X = np.array([[0.0, 0.0, 1.0],
                  [1.0, 2.0, 0.0],
                  [0.5, nan, 0.5],
                  [100.0, 100.0, 101.0],
                  [101.0, 104.0, 100.0],
                  [100.5, 101.0, nan]])
    em = EMImputer(n_components=2, n_em_iter=200, tol=1e-12, random_state=0)
    out = em.fit_transform(X)
    # fixed point: a cluster's mean over its rows, with its absent value
    # refilled by that mean, equals the mean of its observed values;
    # the posterior uses only the observed coordinates, so row 2 (mean-filled
    # with ~52 initially) is still assigned to cluster A.
    assert out[2, 1] == pytest.approx((0.0 + 2.0) / 2, abs=1e-6)
    assert out[5, 2] == pytest.approx((101.0 + 100.0) / 2, abs=1e-6)
    # new instances: refill with the mean of the right cluster
    new = em.transform(np.array([[nan, 99.0, nan], [0.2, nan, nan]]))
    np.testing.assert_allclose(new, [[(100 + 101 + 100.5) / 3, 99.0, 100.5],
                                     [0.2, 1.0, 0.5]], atol=1e-6)
    # fit_transform == fit().transform() on the training data
    np.testing.assert_allclose(out, em.transform(X), atol=1e-12)


def test_em_no_observed_feature_gets_mixture_mean():
    X = np.array([[0.0, 0.0], [1.0, 1.0], [10.0, 10.0], [11.0, 11.0], [nan, nan]])
    em = EMImputer(n_components=2, random_state=0).fit(X)
    out = em.transform(np.array([[nan, nan]]))
    np.testing.assert_allclose(out[0], em.gmm_.weights_ @ em.gmm_.means_)


def test_em_deterministic_given_seed():
    rng = np.random.RandomState(0)
    X = rng.randn(80, 6)
    X[rng.rand(80, 6) < 0.3] = nan
    a = EMImputer(n_components=3, random_state=5).fit_transform(X)
    b = EMImputer(n_components=3, random_state=5).fit_transform(X)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("kwargs, msg", [
    ({"n_components": 0}, "The 'n_components' parameter of EMImputer must be an int >= 1. Got 0"),
    ({"n_em_iter": 1.5}, "The 'n_em_iter' parameter of EMImputer must be an int >= 1. Got 1.5"),
    ({"tol": -1}, "The 'tol' parameter of EMImputer must be a float > 0. Got -1"),
    ({"n_components": 9}, "The 'n_components' parameter of EMImputer must be an int <= "
                          "n_samples=4. Got 9"),
])
def test_em_bad_params(kwargs, msg):
    with pytest.raises(ValueError, match=msg.replace(".", r"\.")):
        EMImputer(**kwargs).fit(np.arange(8.0).reshape(4, 2))


def test_inf_and_all_nan_rejected():
    with pytest.raises(ValueError, match="infinity"):
        MaskedKNNImputer().fit(np.array([[1.0, np.inf], [2.0, 3.0]]))
    with pytest.raises(ValueError, match="every value is absent"):
        EMImputer().fit(np.full((3, 2), nan))


# ------------------------------------------------------------------ sklearn checks
@pytest.mark.parametrize("est", [FlagsImputer(), MaskedKNNImputer(n_neighbors=2),
                                 EMImputer(n_components=1, random_state=0)],
                         ids=lambda e: type(e).__name__)
def test_check_estimator(est):
    check_estimator(est)


@pytest.mark.parametrize("discrete", [False, True])
def test_knn_chunks_of_receivers_only_change_memory(discrete, monkeypatch):
    # the receivers are imputed in chunks of at most _KNN_CHUNK_ELEMENTS
    # distances: chunks of 7 receivers give the bit-identical output of one
    # chunk, for every K of a shared grid
    from geomargin.models import impute

    rng = np.random.RandomState(3)
    groups = np.repeat(np.arange(5), 2)
    X = rng.randint(0, 4, size=(200, 10)).astype(float) if discrete else rng.randn(200, 10)
    X[(rng.rand(200, 5) < np.array([0.1, 0.4, 0.6, 0.8, 0.95]))[:, groups]] = nan
    imp = MaskedKNNImputer(n_neighbors=3).fit(X)
    whole = imp._impute(X, [3, 5, 10])
    monkeypatch.setattr(impute, "_KNN_CHUNK_ELEMENTS", 7 * 200)
    chunked = imp._impute(X, [3, 5, 10])
    for a, b in zip(whole, chunked):
        np.testing.assert_array_equal(a, b)
    assert not np.isnan(chunked[0]).any()


def test_column_patterns_label_columns_as_np_unique_does():
    """Columns are labelled by their missingness from one byte key per
    column; the labels must be exactly np.unique's over the packed columns
    (block-missing receivers and donors, a few stray columns)."""
    from geomargin.models.impute import _column_patterns

    rng = np.random.default_rng(7)
    blocks = rng.integers(0, 40, 300)
    ma = (rng.random((90, 40)) < 0.2)[:, blocks]
    mb = (rng.random((60, 40)) < 0.5)[:, blocks]
    ma[:, rng.integers(0, 300, 5)] ^= True
    ref = np.unique(np.packbits(np.vstack([ma, mb]), axis=0), axis=1, return_inverse=True)[1].ravel()
    got = _column_patterns(ma, mb)
    assert np.array_equal(got, ref)
    assert 40 < len(np.unique(got)) < 300
