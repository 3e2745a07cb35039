"""The embedding step goes through the embeddings catalogue, and a fitted model keeps its embedding."""

from interp.testing import check_stands_alone
import json

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

import interp
from interp.testing import registered
from interp_featurevec import CooccurrenceSVD, FeatureVectors


class FirstTwoCounts(interp.Embedding):
    """Each feature's co-occurrence counts with features 0 and 1 (no explained variance)."""

    name = "firsttwo"

    def embed(self, matrix):
        return np.asarray(matrix.toarray())[:, :2]


class ThreeD(interp.Embedding):
    name = "threed"

    def embed(self, matrix):
        return np.ones((matrix.shape[0], 3))


class InlinePlugin:
    @interp.hookimpl
    def register_embeddings(self, register):
        register(FirstTwoCounts())


def _expected(fv):
    Z = fv.cooccurrence_.toarray()[:, :2]
    return Z / np.linalg.norm(Z, axis=1).max()


@pytest.fixture(scope="module")
def bc():
    return load_breast_cancer(return_X_y=True)


def test_a_registered_embedding_is_used_by_feature_vectors(bc):
    X, y = bc
    with registered(InlinePlugin(), "inline"):
        fv = FeatureVectors(n_paths=1000, random_state=0, embedding="firsttwo").fit(X, y)
    assert fv.embedder_.name == "firsttwo" and fv.embedder_.plugin == "inline"
    np.testing.assert_array_equal(fv.embedding_, _expected(fv))
    np.testing.assert_allclose(fv.importances_, np.linalg.norm(fv.embedding_, axis=1))
    assert fv.importances_.max() == 1.0
    # not a factorisation: nothing to say about explained variance, and the picture says nothing
    assert fv.explained_variance_ratio_ is None and fv.singular_values_ is None
    assert "explained variance" not in fv.plot(top_k=3).axes[0].get_title()
    assert fv.bootstrap(2, random_state=0).shape == (2, 30, 2)  # re-embeds with the stored embedder


def test_the_builtin_embedding_passes_the_contract_checker():
    from interp.testing import check_embedding

    check_embedding(interp.get_registry().embeddings["svd"])


def test_the_default_is_the_registered_svd(bc):
    X, y = bc
    by_name = FeatureVectors(n_paths=1000, random_state=0).fit(X, y)
    assert by_name.embedder_ == interp.get_registry().embeddings["svd"]
    given = FeatureVectors(n_paths=1000, random_state=0, embedding=CooccurrenceSVD()).fit(X, y)
    np.testing.assert_array_equal(given.embedding_, by_name.embedding_)
    np.testing.assert_array_equal(given.explained_variance_ratio_, by_name.explained_variance_ratio_)


@pytest.mark.parametrize("embedding, message", [
    ("nope", "unknown embedding 'nope'; registered: .*svd"),
    (3, "embedding must be a registered embedding's name or an interp.Embedding, got 3"),
    (ThreeD(), "embedding 'threed' gives 3-D vectors; Feature Vectors needs 2-D ones"),
])
def test_bad_embedding_is_one_line(bc, embedding, message):
    X, y = bc
    with pytest.raises(interp.InputError, match=message) as info:
        FeatureVectors(n_paths=200, random_state=0, embedding=embedding).fit(X, y)
    assert "\n" not in str(info.value)


def test_cli_embedding_option(run):
    data = interp.load_dataset("breast-cancer")
    with registered(InlinePlugin(), "inline"):
        result = run("run", "--plugin", "featurevec", "--dataset", "breast-cancer", "--paths", 500,
                     "--embedding", "firsttwo", "--format", "json", "--quiet")
        fv = FeatureVectors(n_paths=500, random_state=0, embedding="firsttwo").fit(data.frame(), data.y)
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["params"]["embedding"] == out["explanation"]["embedding"] == "firsttwo"
    assert out["explanation"]["explained_variance_ratio"] is None
    assert "explained_variance_2d" not in out["metrics"]
    assert "sign_convention" not in out["explanation"]
    expected = _expected(fv)
    for row in out["explanation"]["features"]:
        i = data.feature_names.index(row["feature"])
        assert row["vector"] == expected[i].tolist()
    assert "explained variance: not given by embedding 'firsttwo'" in out["text"]


class PoweredCounts(interp.Embedding):
    """The counts with features 0 and 1, raised to a power: an embedding with a parameter."""

    name = "powered"
    defaults = {"power": 1.0}

    def check_hyper(self, hyper):
        if not hyper["power"] > 0:
            raise interp.InputError(f"power must be > 0, got {hyper['power']}")
        return hyper

    def embed(self, matrix, power=1.0):
        return np.asarray(matrix.toarray())[:, :2] ** power


class PoweredPlugin:
    @interp.hookimpl
    def register_embeddings(self, register):
        register(PoweredCounts())


def test_an_embedding_gets_its_parameters_at_fit_and_keeps_them(bc):
    X, y = bc
    fv = FeatureVectors(n_paths=1000, random_state=0, embedding=PoweredCounts(),
                        embedding_params={"power": 0.5}).fit(X, y)
    Z = np.sqrt(fv.cooccurrence_.toarray()[:, :2])
    np.testing.assert_allclose(fv.embedding_, Z / np.linalg.norm(Z, axis=1).max())
    assert fv.embedding_params_ == {"power": 0.5}
    plain = FeatureVectors(n_paths=1000, random_state=0, embedding=PoweredCounts()).fit(X, y)
    assert plain.embedding_params_ == {"power": 1.0}
    with pytest.raises(interp.InputError, match="embedding 'powered' has no parameter 'pow' \\(it takes: power\\)"):
        FeatureVectors(n_paths=200, embedding=PoweredCounts(), embedding_params={"pow": 2}).fit(X, y)


def test_cli_embedding_parameters(run):
    args = ("run", "--method", "featurevec", "--dataset", "breast-cancer", "--paths", 500, "--quiet")
    with registered(PoweredPlugin(), "powered"):
        result = run(*args, "--embedding", "powered", "--embedding-param", "power=0.5", "--format", "json")
        refused = run(*args, "--embedding", "powered", "--embedding-param", "power=-1")
    out = json.loads(result.output)
    assert out["params"]["embedding"] == "powered" and out["params"]["embedding_params"] == {"power": 0.5}
    assert refused.exit_code == 2 and "--embedding powered: power must be > 0, got -1.0" in refused.output
    not_svd = run(*args, "--embedding-param", "power=2")
    assert not_svd.exit_code == 2 and "embedding 'svd' has no parameter 'power' (it takes no parameters)" in not_svd.output


def _describe(fv):
    """What a fitted model shows: vectors, ranking, the picture's labels and points, a bootstrap."""
    ax = fv.plot(top_k=8).axes[0]
    return {
        "embedding": fv.embedding_.tolist(),
        "ranking": fv.ranking().tolist(),
        "evr": fv.explained_variance_ratio_.tolist(),
        "labels": [[t.get_text(), list(map(float, t.get_position())), list(map(float, t.xy))] for t in ax.texts],
        "points": ax.collections[0].get_offsets().tolist(),
        "title": ax.get_title(),
        "bootstrap": fv.bootstrap(3, random_state=0).tolist(),
    }


def test_pickled_model_shows_the_same_without_its_plugin(bc):
    X, y = bc
    fv = FeatureVectors(n_paths=2000, random_state=0).fit(X, y)
    check_stands_alone(_describe, fv, disabled=["featurevec"])


def test_an_empty_cooccurrence_is_embedded_without_a_dense_copy():
    """No co-occurrence at all: the eigenpairs eigh gives the zero matrix, from the sparse
    matrix itself (a dense 10^6 x 10^6 copy would be 7.3 TiB)."""
    import scipy.sparse as sp

    from interp_featurevec.embedding import top2

    vals, vecs = top2(sp.csr_matrix((10**6, 10**6)))
    assert vals.tolist() == [0.0, 0.0] and vecs.shape == (10**6, 2)
    small_vals, small_vecs = top2(sp.csr_matrix((5, 5)))
    dense_vals, dense_vecs = np.linalg.eigh(np.zeros((5, 5)))
    np.testing.assert_array_equal(small_vals, dense_vals[:2])
    np.testing.assert_array_equal(small_vecs, dense_vecs[:, :2])
    assert CooccurrenceSVD().embed(sp.csr_matrix((10**6, 10**6))).vectors.shape == (10**6, 2)
