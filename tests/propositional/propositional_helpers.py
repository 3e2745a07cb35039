"""Brute-force helpers shared by the propositional tests (imported by name; tests/ has no
packages)."""

from __future__ import annotations

import itertools

import numpy as np


def random_binary(rng, m, n, density=0.5):
    return (rng.random((m, n)) < density).astype(float)


def brute_features(formula, X):
    """All n^L features of a propositional formula, evaluated on the rows of X (int matrix)."""
    from interp_propositional import evaluate, n_leaves, parse

    node = parse(formula)
    L, n = n_leaves(node), X.shape[1]
    Xb = X.astype(bool)
    cols = [evaluate(node, [Xb[:, a] for a in assign]) for assign in itertools.product(range(n), repeat=L)]
    return np.array(cols, dtype=np.int64).T


def brute_kernel(formula, X, Z):
    return brute_features(formula, X) @ brute_features(formula, Z).T
