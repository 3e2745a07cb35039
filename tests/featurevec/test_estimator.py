"""FeatureVectors: synthetic semantics, reproducibility, sign convention, inputs."""

import pickle

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier

from interp import InputError
from interp_featurevec import FeatureVectors, feature_map
from interp_featurevec.embedding import CooccurrenceSVD, fix_signs
from interp_featurevec.synthetic import exchangeable_pairs, sparse_wide


@pytest.fixture(scope="module")
def pairs_fit():
    X, y, pairs = exchangeable_pairs(4000, 20, random_state=0)
    fv = FeatureVectors(n_paths=40_000, random_state=0).fit(X, y)
    return fv, pairs


def test_informative_features_outweigh_noise(pairs_fit):
    fv, pairs = pairs_fit
    informative = [i for p in pairs for i in p]
    noise = [i for i in range(20) if i not in informative]
    assert fv.importances_[informative].min() > 1.5 * fv.importances_[noise].max()


def test_exchangeable_pairs_share_direction(pairs_fit):
    fv, pairs = pairs_fit
    a, imp = fv.angles_, fv.importances_
    for i, j in pairs:
        # exchangeable features get the same vector or its mirror image about axis 1 (when
        # axis 2 is the pair's own contrast, see docs): equal |angle|, similar norm
        assert min(abs(a[i] - a[j]), abs(a[i] + a[j])) < 5.0
        assert abs(imp[i] - imp[j]) < 0.3 * max(imp[i], imp[j])
    # the pairs that act through interactions with other pairs point the same way
    for i, j in pairs[1:]:
        assert abs(a[i] - a[j]) < 5.0


def test_identical_cooccurrence_patterns_give_identical_vectors():
    # rows 0 and 1 are exchangeable and interchangeable at every slot (M00 = M01 = M11)
    M = np.array([[4, 4, 9, 1, 0], [4, 4, 9, 1, 0], [9, 9, 2, 5, 1], [1, 1, 5, 6, 3], [0, 0, 1, 3, 2]], float)
    out = feature_map(sp.csr_matrix(M))
    np.testing.assert_allclose(out.embedding[0], out.embedding[1], atol=1e-12)
    assert out.importances.max() == pytest.approx(1.0)


def test_embedding_matches_dense_svd():
    rng = np.random.default_rng(0)
    A = rng.poisson(3.0, size=(7, 7)).astype(float)
    M = A + A.T
    out = feature_map(sp.csr_matrix(M))
    U, s, Vt = np.linalg.svd(M)
    np.testing.assert_allclose(out.singular_values, s[:2], rtol=1e-10)
    Z = fix_signs(U[:, :2]) * s[:2]
    np.testing.assert_allclose(out.embedding, Z / np.linalg.norm(Z, axis=1).max(), atol=1e-10)
    np.testing.assert_allclose(out.explained_variance_ratio, s[:2] ** 2 / (s**2).sum(), rtol=1e-10)
    # sign convention: axis 1 sums positive, axis 2's largest-magnitude entry positive
    E = out.embedding
    assert E[:, 0].sum() > 0
    assert E[np.argmax(np.abs(E[:, 1])), 1] > 0
    np.testing.assert_allclose(out.angles, np.degrees(np.arctan2(E[:, 1], E[:, 0])))
    # the registered embedding gives the unscaled U * S and the same dense result
    raw = CooccurrenceSVD().features(M)
    np.testing.assert_allclose(raw.vectors, Z, atol=1e-10)


def test_same_seed_same_result_whatever_n_jobs():
    X, y = load_breast_cancer(return_X_y=True)
    a = FeatureVectors(n_paths=5000, random_state=3, n_jobs=1).fit(X, y)
    b = FeatureVectors(n_paths=5000, random_state=3, n_jobs=2).fit(X, y)
    assert (a.cooccurrence_ != b.cooccurrence_).nnz == 0
    np.testing.assert_array_equal(a.embedding_, b.embedding_)
    c = FeatureVectors(n_paths=5000, random_state=4).fit(X, y)
    assert (a.cooccurrence_ != c.cooccurrence_).nnz > 0


def test_at_least_n_paths_and_learned_attributes():
    X, y = load_breast_cancer(return_X_y=True)
    fv = FeatureVectors(n_paths=3000, random_state=0).fit(X, y)
    assert fv.n_paths_ >= 3000
    assert fv.n_paths_ < 3000 * 1.2
    assert fv.n_trees_ * 2**3 >= fv.n_paths_
    assert sp.issparse(fv.cooccurrence_)
    assert fv.embedding_.shape == (30, 2)
    np.testing.assert_allclose(fv.importances_, np.linalg.norm(fv.embedding_, axis=1))
    assert fv.importances_.max() == pytest.approx(1.0)
    assert fv.explained_variance_ratio_.shape == (2,) and 0 < fv.explained_variance_ratio_.sum() <= 1
    assert fv.singular_values_[0] >= fv.singular_values_[1] > 0
    assert fv.task_ == "classification" and fv.max_depth_ == 3
    # every path of a depth-3 tree is at most 3 splits long
    assert fv.path_lengths_.max() <= 3


def test_given_estimator_skips_training_and_uses_all_its_paths():
    X, y = load_breast_cancer(return_X_y=True)
    rf = RandomForestClassifier(n_estimators=20, max_depth=4, random_state=0).fit(X, y)
    fv = FeatureVectors(estimator=rf).fit(X)
    assert fv.n_trees_ == 20
    assert fv.n_paths_ == sum(e.tree_.n_leaves for e in rf.estimators_)
    with pytest.raises(InputError, match="fitted on 30 features"):
        FeatureVectors(estimator=rf).fit(X[:, :5])


def test_regression_and_pandas_names():
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.normal(size=(300, 5)), columns=list("abcde"))
    y = df["a"] * 2 + df["b"] ** 2 + 0.1 * rng.normal(size=300)
    fv = FeatureVectors(n_paths=2000, random_state=0).fit(df, y)
    assert fv.task_ == "regression"
    assert fv.feature_names() == list("abcde")
    assert set(np.array(list("abcde"))[fv.ranking()[:2]]) == {"a", "b"}


def test_max_depth_cv_picks_a_depth():
    X, y = load_breast_cancer(return_X_y=True)
    fv = FeatureVectors(n_paths=500, max_depth="cv", random_state=0).fit(X[:200], y[:200])
    assert fv.max_depth_ in (2, 3, 4, 5, 6)


def test_sparse_input():
    X, y = sparse_wide(300, 400, density=0.02, n_informative=5, random_state=0)
    fv = FeatureVectors(n_paths=2000, random_state=0).fit(X, y)
    assert fv.embedding_.shape == (400, 2)
    assert fv.importances_[:5].mean() > 3 * fv.importances_[5:].mean()  # informative columns stand out


def test_bootstrap_and_pickle():
    X, y = load_breast_cancer(return_X_y=True)
    fv = FeatureVectors(n_paths=2000, random_state=0).fit(X, y)
    reps = fv.bootstrap(5, random_state=0)
    assert reps.shape == (5, 30, 2)
    # replicates are aligned with the fit (same sign of each axis on the whole)
    assert all(float(r[:, 0] @ fv.embedding_[:, 0]) > 0 for r in reps)
    clone = pickle.loads(pickle.dumps(fv))
    np.testing.assert_array_equal(clone.embedding_, fv.embedding_)


@pytest.mark.parametrize(
    "params, message",
    [
        ({"window": 0}, "window must be"),
        ({"n_paths": 0}, "n_paths must be"),
        ({"max_depth": 0}, "max_depth must be"),
        ({"task": "nope"}, "task must be"),
        ({"max_samples": 0}, "max_samples must be"),
    ],
)
def test_bad_parameters(params, message):
    X, y = load_breast_cancer(return_X_y=True)
    with pytest.raises(InputError, match=message):
        FeatureVectors(**params).fit(X, y)


def test_bad_data():
    X, y = load_breast_cancer(return_X_y=True)
    with pytest.raises(InputError, match="at least 2 features"):
        FeatureVectors(n_paths=10).fit(X[:, :1], y)
    Xn = X.copy()
    Xn[3, 4] = np.nan
    with pytest.raises(InputError, match="NaN"):
        FeatureVectors(n_paths=10).fit(Xn, y)
    with pytest.raises(InputError, match="1 class"):
        FeatureVectors(n_paths=10, task="classification").fit(X, np.zeros(len(y)))
    for err in (InputError,):
        with pytest.raises(err) as info:
            FeatureVectors(window=-1).fit(X, y)
        assert "\n" not in str(info.value)


def test_no_cooccurrence_is_not_silent():
    X = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 1.5], [1.0, 0.2]] * 5)
    y = np.array([0, 1, 0, 1] * 5)  # one split separates the classes: every path has 1 split
    with pytest.warns(UserWarning, match="no features co-occur"):
        fv = FeatureVectors(n_paths=50, random_state=0).fit(X, y)
    assert np.all(fv.embedding_ == 0)
