"""Path extraction and co-occurrence counting against pure-Python references."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.ensemble import ExtraTreesRegressor, GradientBoostingClassifier, RandomForestClassifier

from interp_featurevec.histforest import HistForest, heap_to_children
from interp_featurevec.paths import brute_force_cooccurrence, cooccurrence, extract_paths, sentences, tree_arrays
from interp_featurevec.readers import read_trees


def recursive_paths(tree):
    """Reference: depth-first walk of one sklearn tree, sentences in leaf-id order."""
    left, right, feat = tree.children_left, tree.children_right, tree.feature
    out = {}

    def walk(node, prefix):
        if left[node] < 0:
            out[node] = prefix
            return
        walk(left[node], prefix + [int(feat[node])])
        walk(right[node], prefix + [int(feat[node])])

    walk(0, [])
    return [out[k] for k in sorted(out)]


def small_forest(seed, n_features=3, depth=4, n_trees=7):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(80, n_features))
    y = (X[:, 0] + X[:, -1] * X[:, 0] + 0.3 * rng.normal(size=80) > 0).astype(int)
    return RandomForestClassifier(n_estimators=n_trees, max_depth=depth, max_features=2, random_state=seed).fit(X, y)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_paths_match_recursive_walk(seed):
    forest = small_forest(seed)
    trees = read_trees(forest)
    P, lengths, leaves = extract_paths(*tree_arrays(trees)[:3])
    expected = [s for t in trees for s in recursive_paths(t)]
    assert sentences(P, lengths) == expected
    assert P.shape[0] == sum(t.n_leaves for t in trees)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("window", [1, 2, 3, 5])
def test_cooccurrence_equals_brute_force_on_forests(seed, window):
    # 3 features and depth 4: repeated features on a path are common
    forest = small_forest(seed)
    trees = read_trees(forest)
    P, lengths, _ = extract_paths(*tree_arrays(trees)[:3])
    M = cooccurrence(P, 3, window).toarray()
    ref = brute_force_cooccurrence(sentences(P, lengths), 3, window)
    np.testing.assert_array_equal(M, ref)
    assert any(len(set(s)) < len(s) for s in sentences(P, lengths))  # repeats were exercised


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 4), min_size=0, max_size=7), min_size=1, max_size=12),
       st.integers(1, 7))
def test_cooccurrence_equals_brute_force_on_random_sentences(paths, window):
    width = max(len(p) for p in paths)
    P = np.full((len(paths), max(width, 1)), -1)
    for i, p in enumerate(paths):
        P[i, : len(p)] = p
    M = cooccurrence(P, 5, window).toarray()
    np.testing.assert_array_equal(M, brute_force_cooccurrence(paths, 5, window))
    np.testing.assert_array_equal(M, M.T)


def test_counting_rule_by_hand():
    # sentence [a, b, a] with window 3: pairs (0,1) a-b, (1,2) b-a, (0,2) a-a
    P = np.array([[0, 1, 0]])
    M = cooccurrence(P, 2, 3).toarray()
    assert M[0, 1] == M[1, 0] == 2  # two a-b position pairs, each +1 both ways
    assert M[0, 0] == 2  # the a-a position pair adds 1 to M[a,a] twice
    assert M[1, 1] == 0
    # window 1: only adjacent positions
    M1 = cooccurrence(P, 2, 1).toarray()
    assert M1[0, 0] == 0 and M1[0, 1] == 2
    # a path shorter than the window counts all its pairs (never silently nothing)
    M2 = cooccurrence(np.array([[1, 0]]), 2, 3).toarray()
    assert M2[0, 1] == M2[1, 0] == 1


def test_weights_scale_each_path():
    P = np.array([[0, 1, -1], [1, 2, 2]])
    M = cooccurrence(P, 3, 2, weights=np.array([3.0, 0.5])).toarray()
    np.testing.assert_allclose(M, 3.0 * cooccurrence(P[:1], 3, 2).toarray() + 0.5 * cooccurrence(P[1:], 3, 2).toarray())


def test_other_ensembles():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    y = X[:, 0] + X[:, 1] * X[:, 2]
    et = ExtraTreesRegressor(n_estimators=3, max_depth=3, random_state=0).fit(X, y)
    gb = GradientBoostingClassifier(n_estimators=3, max_depth=2, random_state=0).fit(X, y > 0)
    for model in (et, gb):
        trees = read_trees(model)
        P, lengths, _ = extract_paths(*tree_arrays(trees)[:3])
        assert sentences(P, lengths) == [s for t in trees for s in recursive_paths(t)]


def heap_reference(feature, exists):
    """Reference: recursive walk of heap-ordered trees."""
    out = []
    for t in range(feature.shape[0]):
        def walk(h, prefix):
            if feature[t, h] < 0:
                out.append(prefix)
                return
            walk(2 * h + 1, prefix + [int(feature[t, h])])
            walk(2 * h + 2, prefix + [int(feature[t, h])])
        walk(0, [])
    return out


@pytest.mark.parametrize("classification", [True, False])
def test_hist_forest_paths(classification):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(120, 6))
    y = (X[:, 0] > 0).astype(int) if classification else X[:, 0] + X[:, 1] ** 2
    forest = HistForest(X, y, classification=classification, max_depth=3, max_features=3, max_samples=120)
    feature, thr, exists = forest.grow(200, np.random.default_rng(0))
    left, right, feat, owner = heap_to_children(feature, exists)
    P, lengths, leaves = extract_paths(left, right, feat)
    # leaves appear in heap pre-order within each tree? compare as multisets per tree
    ref = heap_reference(feature, exists)
    assert sorted(map(tuple, sentences(P, lengths))) == sorted(map(tuple, ref))
    assert P.shape[0] >= 200
    assert np.all(np.diff(owner[leaves]) >= 0)


def _gini_gain(x, y, thr):
    def gini(v):
        if v.size == 0:
            return 0.0
        p = np.bincount(v, minlength=2) / v.size
        return 1 - (p**2).sum()
    left = x <= thr
    n = y.size
    return gini(y) - left.sum() / n * gini(y[left]) - (~left).sum() / n * gini(y[~left])


def test_hist_forest_root_split_is_optimal():
    # with all features as candidates and few distinct values (exact bins), the root split
    # must reach the best Gini gain over every feature and threshold of the bootstrap sample
    rng = np.random.default_rng(3)
    X = rng.integers(0, 12, size=(150, 5)).astype(float)
    y = ((X[:, 1] > 6) ^ (rng.random(150) < 0.2)).astype(int)
    forest = HistForest(X, y, classification=True, max_depth=1, max_features=5, max_samples=150)
    for seed in range(5):
        feature, thr, exists = forest.grow_batch(seed, 1)
        rows = np.random.default_rng(seed).integers(0, 150, 150)  # the batch's bootstrap
        xs, ys = X[rows], y[rows]
        best = max(_gini_gain(xs[:, f], ys, t) for f in range(5) for t in np.unique(xs[:, f])[:-1] + 0.5)
        got = _gini_gain(xs[:, feature[0, 0]], ys, thr[0, 0])
        assert got == pytest.approx(best, abs=1e-12)


def test_sparse_forest_grows_the_same_trees_as_the_dense_one():
    import scipy.sparse as sp

    from interp_featurevec.sparseforest import SparseHistForest

    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, (200, 12)).astype(float) * (rng.random((200, 12)) < 0.3)
    X[:, 3] = -X[:, 3]  # negative values: 0 is not the lowest bin
    y = (X[:, 0] + X[:, 3] + rng.normal(size=200) > 0).astype(int)
    dense = HistForest(X, y, classification=True, max_depth=3, max_features=4, max_samples=150)
    sparse = SparseHistForest(sp.csr_matrix(X), y, classification=True, max_depth=3, max_features=4, max_samples=150)
    a, b = dense.grow_batch(7, 60), sparse.grow_batch(7, 60)
    np.testing.assert_array_equal(a[0], b[0])  # features
    np.testing.assert_array_equal(a[2], b[2])  # node existence
    np.testing.assert_allclose(a[1], b[1])  # thresholds
    # regression: same up to floating-point ties
    yr = X[:, 0] * 2 + X[:, 3] + rng.normal(size=200)
    dense = HistForest(X, yr, classification=False, max_depth=3, max_features=4, max_samples=150)
    sparse = SparseHistForest(sp.csr_matrix(X), yr, classification=False, max_depth=3, max_features=4, max_samples=150)
    fa, fb = dense.grow_batch(7, 60)[0], sparse.grow_batch(7, 60)[0]
    assert np.mean(fa == fb) > 0.9


@pytest.mark.parametrize("depth, n_trees", [(4, 40), (12, 4)])
def test_sparse_forest_matches_the_dense_one_on_wide_sparse_data(depth, n_trees):
    # most (node, candidate) slots hold no non-zero cell of their candidate (they are not
    # scored) and deep trees have many nodes per level: the trees must not change
    import scipy.sparse as sp

    from interp_featurevec.sparseforest import SparseHistForest

    rng = np.random.default_rng(1)
    X = sp.random(150, 700, density=0.01, random_state=2, data_rvs=lambda k: rng.integers(1, 4, k)).toarray()
    X[:, :5] = rng.integers(0, 3, (150, 5)) * (rng.random((150, 5)) < 0.4)
    y = (X[:, :5].sum(axis=1) + rng.normal(size=150) > 1.5).astype(int)
    params = dict(classification=True, max_depth=depth, max_features=27, max_samples=150)
    dense = HistForest(X, y, **params).grow_batch(5, n_trees)
    sparse = SparseHistForest(sp.csr_matrix(X), y, **params).grow_batch(5, n_trees)
    np.testing.assert_array_equal(dense[0], sparse[0])  # features
    np.testing.assert_array_equal(dense[2], sparse[2])  # node existence
    np.testing.assert_allclose(dense[1], sparse[1])  # thresholds
    assert dense[2].sum(axis=1).max() > 2 * depth  # the trees really grew


@pytest.mark.parametrize("d, k", [(30, 6), (3000, 55)])
def test_candidates_are_distinct_and_cover_all_features(d, k):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, d))
    forest = HistForest(X, (X[:, 0] > 0).astype(int), classification=True, max_depth=2, max_features=k, max_samples=20)
    cand = forest._candidates(np.random.default_rng(1), 4000)
    assert cand.shape == (4000, k)
    assert all(len(set(row)) == k for row in cand.tolist())
    counts = np.bincount(cand.ravel(), minlength=d)
    assert counts.min() > 0.5 * counts.mean()  # roughly uniform over the features
