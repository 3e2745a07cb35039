"""Knockoff constructions: the Gaussian one and the paper's Gaussian-mixture one.

A knockoff X~ of X must be exchangeable with it: [X, X~] keeps its law when any feature is
swapped with its knockoff.  The checks below look at what that implies (same means and
covariance, cross-covariance equal to the covariance off the diagonal, and for a mixture the
same density as X) and show on broken "knockoffs" that each check can fail.
"""

import numpy as np
import pytest
from scipy.special import logsumexp
from scipy.stats import multivariate_normal
from sklearn.datasets import load_breast_cancer

from interp import InputError
from interp_featurevec.validation import (
    gaussian_knockoffs,
    knockoff_angle_test,
    make_knockoffs,
    mixture_knockoffs,
)

D = 4
WEIGHTS = np.array([0.5, 0.3, 0.2])
MEANS = np.array([[4.0, 0, 0, 0], [-4.0, 3, 0, 1], [0, -4, 3, -2]])


def _covariances():
    rng = np.random.default_rng(0)
    out = []
    for _ in WEIGHTS:
        A = rng.normal(size=(D, D)) * 0.6
        out.append(A @ A.T + 0.3 * np.eye(D))
    return out


COVS = _covariances()


def _mixture(n, seed=1):
    """n rows of a 3-component Gaussian mixture in 4-D with separated means and unlike covariances."""
    rng = np.random.default_rng(seed)
    z = rng.choice(len(WEIGHTS), n, p=WEIGHTS)
    X = np.empty((n, D))
    for k in range(len(WEIGHTS)):
        X[z == k] = rng.multivariate_normal(MEANS[k], COVS[k], int((z == k).sum()))
    return X


def _mean_log_density(Y) -> float:
    """Mean log density of the rows of Y under the true mixture."""
    parts = [np.log(w) + multivariate_normal(m, c).logpdf(Y) for w, m, c in zip(WEIGHTS, MEANS, COVS)]
    return float(logsumexp(np.column_stack(parts), axis=1).mean())


def _second_order_gaps(X, Xk):
    """Largest gaps, relative to the largest covariance entry, between the knockoffs' mean and
    covariance and the data's, between the cross-covariance and the covariance off the diagonal;
    and the diagonal of the cross-covariance over the variances (< 1: not copies)."""
    d = X.shape[1]
    S = np.cov(X, rowvar=False)
    C = np.cov(np.hstack([X, Xk]), rowvar=False)
    cross = C[:d, d:]
    scale = np.abs(S).max()
    off = ~np.eye(d, dtype=bool)
    return (np.abs(Xk.mean(0) - X.mean(0)).max() / np.sqrt(scale), np.abs(C[d:, d:] - S).max() / scale,
            np.abs((cross - S)[off]).max() / scale, np.diag(cross) / np.diag(S))


@pytest.fixture(scope="module")
def mixture_data():
    X = _mixture(30_000)
    return X, mixture_knockoffs(X, n_components=3, random_state=0)


def test_mixture_knockoffs_shape_and_reproducible():
    X = _mixture(600, seed=2)
    a = mixture_knockoffs(X, n_components=3, random_state=5)
    assert a.shape == X.shape and np.isfinite(a).all()
    np.testing.assert_array_equal(a, mixture_knockoffs(X, n_components=3, random_state=5))
    assert not np.allclose(a, mixture_knockoffs(X, n_components=3, random_state=6))
    np.testing.assert_array_equal(a, make_knockoffs(X, "mixture", random_state=5, n_components=3))


def test_mixture_knockoffs_match_the_first_two_moments(mixture_data):
    X, Xk = mixture_data
    mean_gap, cov_gap, cross_gap, diag = _second_order_gaps(X, Xk)
    assert mean_gap < 0.01 and cov_gap < 0.01 and cross_gap < 0.01
    assert np.all(diag < 0.99)  # knockoffs are not copies


def test_second_order_checks_fail_on_broken_knockoffs(mixture_data):
    X, _ = mixture_data
    rng = np.random.default_rng(3)
    independent = X[rng.permutation(X.shape[0])]  # same law, but unrelated to X: no cross-covariance
    assert _second_order_gaps(X, independent)[2] > 0.1
    assert np.all(_second_order_gaps(X, X.copy())[3] > 0.999)  # a copy is not a knockoff
    shifted = X + np.array([0.0, 0.5, 0.0, 0.0])
    assert _second_order_gaps(X, shifted)[0] > 0.1


def test_mixture_knockoffs_keep_the_mixtures_law_and_gaussian_ones_do_not(mixture_data):
    X, Xk = mixture_data
    swapped = X.copy()
    swapped[:, :2] = Xk[:, :2]  # [X, X~] with features 0 and 1 swapped for their knockoffs
    reference = _mean_log_density(X)
    assert abs(_mean_log_density(Xk) - reference) < 0.05
    assert abs(_mean_log_density(swapped) - reference) < 0.05
    # Gaussian knockoffs have the right two moments but fill the space between the clusters
    gaussian = gaussian_knockoffs(X, random_state=0)
    assert _second_order_gaps(X, gaussian)[2] < 0.01
    assert _mean_log_density(gaussian) < reference - 1.0


def test_make_knockoffs_checks_its_inputs():
    X = _mixture(100)
    with pytest.raises(InputError, match="knockoff must be one of gaussian, mixture"):
        make_knockoffs(X, "copula")
    with pytest.raises(InputError, match="n_components must be"):
        mixture_knockoffs(X, n_components=0)
    with pytest.raises(InputError, match="2-D"):
        mixture_knockoffs(X[:, 0])


def test_knockoff_angle_test_with_mixture_knockoffs():
    X, y = load_breast_cancer(return_X_y=True)
    res = knockoff_angle_test(X[:, :10], y, n_permutations=999, random_state=0, knockoff="mixture",
                              n_components=2, n_paths=6000)
    assert res.knockoffs.shape == (X.shape[0], 10)
    assert res.p_value < 0.05 and res.statistic < np.median(res.null)
