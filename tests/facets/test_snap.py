"""Snapping a nearly integral minimiser onto the grid, against objectives computed here."""

import numpy as np
import pytest

from interp_facets import FacetsClassifier
from interp_facets.penalties import scf_value
from interp_facets.problem import Objective
from interp_facets.snap import snap_to_grid
from interp_facets.validation import resolve_penalty


def data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, 4)).astype(float)
    z = X @ np.array([2.0, 1.0, 1.0, -1.0]) - 1.5 + rng.logistic(size=n) * 0.5
    return X, np.where(z > 0, 1.0, -1.0)


def objective(X, y, u, b, lam, gamma):
    return np.mean(np.logaddexp(0, -y * (gamma * X @ u + b))) + lam * scf_value(u, eps=0.01)


def test_snap_rounds_only_when_the_objective_barely_moves():
    X, y = data()
    pen, hyper = resolve_penalty("scf")
    lam, gamma, b = 0.01, 0.4, -0.6
    U = np.array([[2.0, 1.0, 1.0, -1.0],      # already integral
                  [2.0, 1.0, 1.0005, -1.0],   # a hair off: rounding costs ~nothing
                  [2.0, 1.0, 1.0, 1.6]])      # far off: rounding changes the model
    F0 = np.array([objective(X, y, u, b, lam, gamma) for u in U])
    F1 = np.array([objective(X, y, np.round(u), b, lam, gamma) for u in U])
    rel = (F1 - F0) / F0
    tol = 1e-4
    assert abs(rel[1]) < tol < rel[2]  # the premise of the cases
    S, gap = snap_to_grid(X, y, U, b, Objective("logistic", pen, hyper, gamma=gamma), lam, tol)
    np.testing.assert_array_equal(S[0], U[0])
    np.testing.assert_array_equal(S[1], np.round(U[1]))
    np.testing.assert_array_equal(S[2], U[2])
    assert gap[0] == 0 and np.isnan(gap[2])
    assert gap[1] == pytest.approx(max(rel[1], 0.0), abs=1e-12)


def test_snap_tol_zero_moves_nothing():
    X, y = data()
    pen, hyper = resolve_penalty("scf")
    U = np.array([[2.0, 1.0, 1.0000001, -1.0]])
    S, gap = snap_to_grid(X, y, U, 0.0, Objective("logistic", pen, hyper, gamma=0.4), 0.01, 0.0)
    np.testing.assert_array_equal(S, U)
    assert np.isnan(gap[0])


def test_the_estimator_snaps_by_default_and_reports_it():
    """Find a (lam, gamma) whose strict minimiser is not integral but close; the default snaps it."""
    X, y = data(seed=1)
    found = None
    for gamma in np.geomspace(0.2, 1.5, 12):
        for beta in np.geomspace(0.02, 1.0, 12):
            strict = FacetsClassifier(lam=beta * gamma**2, gamma=gamma, snap_tol=0, tol=1e-8).fit(X, y)
            snapped = FacetsClassifier(lam=beta * gamma**2, gamma=gamma, tol=1e-8).fit(X, y)
            if strict.integrity_ < 1 and snapped.integrity_ == 1:
                found = strict, snapped
                break
        if found:
            break
    assert found is not None
    strict, snapped = found
    assert snapped.n_snapped_ == int(np.sum(strict.coef_grid_ != np.round(strict.coef_grid_)))
    assert 0 <= snapped.snap_gap_ <= 1e-4
    np.testing.assert_array_equal(snapped.points_, np.round(strict.coef_grid_))
    assert strict.n_snapped_ == 0 and np.isnan(strict.snap_gap_)


def test_snap_rounds_into_the_box_of_max_points():
    """With max_points = 2.7 a coefficient at 2.6 rounds to 2 (3 is outside the box)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    y = np.where(X @ np.array([0.5, -0.2]) + rng.logistic(size=200) > 0, 1.0, -1.0)
    objective = Objective("logistic", *resolve_penalty("scf"), gamma=0.01, max_points=2.7)
    U, gap = snap_to_grid(X, y, np.array([[2.6, -2.7], [2.4, 1.0]]), [0.0, 0.0], objective, [1e-3, 1e-3], 0.5)
    np.testing.assert_array_equal(U, [[2.0, -2.0], [2.0, 1.0]])
    assert np.all(gap >= 0)
