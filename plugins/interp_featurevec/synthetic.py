"""Synthetic data of the paper's Figure 2 kind: exchangeable feature pairs, independent features."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

PAIRS = ((0, 1), (2, 3), (4, 5))


def exchangeable_pairs(n_samples: int = 2000, n_features: int = 20, random_state=None):
    """X: independent standard normals; y: a noisy label from threshold rules on x0..x5.

    The six informative features come in pairs (x0, x1), (x2, x3), (x4, x5).  Every rule
    that uses one feature of a pair has a twin that uses the other, so the two features of a
    pair are exchangeable for the label (the same "meaning"), while the three pairs interact
    differently: pair A with B, B with C, and A alone.  Each true rule raises the odds of y = 1.
    Returns (X, y, pairs).
    """
    if n_features < 6:
        raise ValueError("n_features must be at least 6")
    rng = check_random_state(random_state)
    X = rng.standard_normal((n_samples, n_features))
    score = np.zeros(n_samples)
    A, B, C = PAIRS
    for a in A:
        score += 1.5 * (X[:, a] > 0.8)
        for b in B:
            score += (X[:, a] > -0.3) & (X[:, b] < 0.3)
    for b in B:
        for c in C:
            score += (X[:, b] > 0.0) & (X[:, c] > 0.0)
    p = 1.0 / (1.0 + np.exp(-2.0 * (score - np.median(score))))
    y = (rng.random_sample(n_samples) < p).astype(int)
    return X, y, PAIRS


def sparse_wide(n_samples: int = 1000, n_features: int = 50_000, density: float = 0.002,
                n_informative: int = 20, random_state=None):
    """A sparse (CSR) 0/1-valued data set with many features; y depends on the first
    ``n_informative`` columns.  Used by the scale benchmark and a test."""
    rng = check_random_state(random_state)
    X = sp.random(n_samples, n_features, density=density, format="csr", random_state=rng,
                  data_rvs=lambda k: np.ones(k))
    dense_part = (rng.random_sample((n_samples, n_informative)) < 0.3).astype(float)
    X = sp.hstack([sp.csr_matrix(dense_part), X[:, n_informative:]], format="csr")
    w = rng.standard_normal(n_informative)
    y = (dense_part @ w + 0.3 * rng.standard_normal(n_samples) > 0).astype(int)
    return X, y
