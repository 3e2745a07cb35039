"""The picture and the validation tools (knockoffs, permutation test, SSS/SDS)."""

import numpy as np
import pytest
from matplotlib.figure import Figure
from sklearn.datasets import load_breast_cancer

from interp_featurevec import FeatureVectors
from interp_featurevec.validation import (
    angle_difference,
    compare_importances,
    gaussian_knockoffs,
    importance_curves,
    knockoff_angle_test,
    plot_curves,
)


@pytest.fixture(scope="module")
def bc():
    X, y = load_breast_cancer(return_X_y=True)
    return X, y


def test_plot_returns_figure_without_showing(bc, monkeypatch):
    import matplotlib.pyplot as plt

    monkeypatch.setattr(plt, "show", lambda *a, **k: pytest.fail("show() called"))
    X, y = bc
    fv = FeatureVectors(n_paths=2000, random_state=0).fit(X, y)
    fig = fv.plot(top_k=5, bootstrap=4)
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.texts]
    assert len(labels) == 5
    assert len(ax.patches) == 5  # one bootstrap ellipse per labelled feature
    # points: x = axis 2, y = axis 1
    offsets = ax.collections[0].get_offsets()
    np.testing.assert_allclose(offsets[:, 0], fv.embedding_[:, 1])
    np.testing.assert_allclose(offsets[:, 1], fv.embedding_[:, 0])
    # drawing on a given axis returns that axis' figure
    fig2 = Figure()
    ax2 = fig2.add_subplot(111)
    assert fv.plot(ax=ax2, top_k=0) is fig2


def test_gaussian_knockoffs_are_exchangeable():
    rng = np.random.default_rng(0)
    A = np.array([[1.0, 0.6, 0.0], [0.0, 0.8, 0.5], [0.0, 0.0, 1.0]])
    X = rng.normal(size=(40_000, 3)) @ A + np.array([1.0, -2.0, 0.5])
    Xk = gaussian_knockoffs(X, random_state=0)
    S = np.cov(X, rowvar=False)
    C = np.cov(np.hstack([X, Xk]), rowvar=False)
    np.testing.assert_allclose(C[3:, 3:], S, atol=0.04)  # same covariance
    off = C[:3, 3:]
    np.testing.assert_allclose(off - np.diag(np.diag(off)), S - np.diag(np.diag(S)), atol=0.04)
    np.testing.assert_allclose(Xk.mean(axis=0), X.mean(axis=0), atol=0.03)
    assert np.all(np.diag(off) < np.diag(S))  # knockoffs are not copies


def test_angle_difference_wraps():
    np.testing.assert_allclose(angle_difference([170, -170, 10], [-170, 170, 30]), [20, 20, 20])


def test_knockoff_permutation_test(bc):
    X, y = bc
    res = knockoff_angle_test(X[:, :10], y, n_permutations=999, random_state=0, n_paths=6000)
    assert 0 < res.p_value <= 1
    assert res.p_value < 0.05  # features sit closer to their knockoffs than to random partners
    assert res.statistic < np.median(res.null)
    assert res.estimator.embedding_.shape == (20, 2)


def test_importance_curves_small(bc):
    X, y = bc
    X = X[:, :8]
    imps = compare_importances(X, y, fv=FeatureVectors(n_paths=2000, random_state=0).fit(X, y), n_repeats=2)
    assert set(imps) >= {"featurevec", "gini", "permutation"}
    curves = importance_curves(X, y, {"featurevec": imps["featurevec"], "gini": imps["gini"]}, steps=[1, 4])
    assert list(curves["steps"]) == [1, 4]
    for name in ("featurevec", "gini"):
        assert curves["sss"][name].shape == (2,)
        assert curves["sss"][name][1] >= curves["sss"][name][0] - 0.05  # more features help
    fig = plot_curves(curves)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
