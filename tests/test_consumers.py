"""Every catalogue of the registry has a consumer: a component registered inline is really used.

The test is parametrised over ``interp.registry.CATALOGUES``, so a new catalogue without a
consumer here fails until something uses what plugins register in it.
"""

import numpy as np
import pytest

import interp
from interp.registry import CATALOGUES
from interp.testing import registered

CALLS: list[str] = []


class ProbePenalty(interp.Penalty):
    """The lasso, recording that a solver asked for it."""

    name = "probe_penalty"

    def value(self, w):
        CALLS.append("penalty")
        return float(np.abs(w).sum())

    def prox(self, w, step):
        CALLS.append("penalty")
        return np.sign(w) * np.maximum(np.abs(w) - step, 0.0)


class ProbeFamily(interp.RidgeFamily):
    """A straight line a * z, recording that the pursuit evaluated it."""

    name = "probe_family"
    init_theta = (1.0,)

    def value(self, theta, z):
        CALLS.append("ridge family")
        return theta[0] * z

    def gradient(self, theta, z):
        return z[None, :], np.full_like(z, theta[0])


class ProbeEmbedding(interp.Embedding):
    """The first two columns of the matrix."""

    name = "probe_embedding"

    def embed(self, matrix):
        CALLS.append("embedding")
        dense = matrix.toarray() if hasattr(matrix, "toarray") else np.asarray(matrix)
        return dense[:, :2]


class ProbeOperator(interp.KernelOperator):
    """Conjunction, recording that the kernel composed it."""

    name = "probe_and"
    arity = 2
    truth_table = (0, 0, 0, 1)

    def combine(self, blocks):
        CALLS.append("kernel operator")
        return super().combine(blocks)


def _probe_run(data, ctx):
    CALLS.append("method")
    return interp.Explanation(metrics={"n": data.n_samples})


class ProbePlugin(interp.Plugin):
    ridge_families = (ProbeFamily(),)
    penalties = (ProbePenalty(),)
    embeddings = (ProbeEmbedding(),)
    kernel_operators = (ProbeOperator(),)
    methods = (interp.Method("probe_method", "Records that it ran.", _probe_run),)


def _binary_data(rng, n=60, d=4):
    X = (rng.random((n, d)) < 0.5).astype(float)
    y = (X[:, 0] + X[:, 1] + 0.3 * rng.standard_normal(n) > 1).astype(int)
    return X, y


def use_penalty(rng):
    from interp_facets import FacetsClassifier

    X, y = _binary_data(rng)
    FacetsClassifier(penalty="probe_penalty", lam=0.01, gamma=0.5).fit(X, y)


def use_ridge_family(rng):
    from interp_symbolic import SymbolicPursuitRegressor

    X = rng.random((40, 2))
    SymbolicPursuitRegressor(families=["probe_family"], max_terms=1, n_restarts=1, maxiter=5,
                             random_state=0).fit(X, X @ [1.0, 2.0])


def use_embedding(rng):
    from interp_featurevec import FeatureVectors

    X = rng.random((80, 4))
    FeatureVectors(n_paths=200, embedding="probe_embedding", random_state=0).fit(X, (X[:, 0] > 0.5).astype(int))


def use_kernel_operator(rng):
    from interp_propositional import propositional_kernel

    X, _ = _binary_data(rng, n=5)
    propositional_kernel("probe_and(a, b)", X)


def use_method(rng):
    from interp.runner import run_method

    run_method("probe_method", interp.load_dataset("diabetes"))


CONSUMERS = {
    "penalties": ("penalty", use_penalty),
    "ridge_families": ("ridge family", use_ridge_family),
    "embeddings": ("embedding", use_embedding),
    "kernel_operators": ("kernel operator", use_kernel_operator),
    "methods": ("method", use_method),
}


@pytest.mark.parametrize("catalogue", sorted(CATALOGUES))
def test_a_registered_component_is_used_by_its_consumer(catalogue):
    assert catalogue in CONSUMERS, f"catalogue {catalogue!r} has no consumer: nothing uses what plugins register"
    label, use = CONSUMERS[catalogue]
    CALLS.clear()
    with registered(ProbePlugin(), "probe"):
        use(np.random.default_rng(0))
    assert label in CALLS, f"the {catalogue} consumer never called the registered {label}"
