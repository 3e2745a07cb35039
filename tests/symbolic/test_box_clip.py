"""predict clips a term's argument only outside the training data's box: a row inside the box
gets the formula as printed, however far its argument lies from those of the training rows."""

import numpy as np
import pytest
from interp_symbolic import SymbolicPursuitRegressor
from interp_symbolic.model import box_range


def _law(X):
    return np.exp(-(X[:, 0] + 2 * X[:, 1]))


@pytest.fixture(scope="module")
def triangle():
    """Training rows on the triangle x1 + x2 <= 1 of the unit box: the corner (1, 1) is inside
    the box, and its argument x1 + 2 x2 = 3 beyond every training row's (at most 2)."""
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, size=(600, 2))
    X = X[X.sum(axis=1) <= 1][:150]
    X = np.vstack([X, [[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]])  # the box is the unit square
    est = SymbolicPursuitRegressor(max_terms=1, n_restarts=1, maxiter=60, random_state=0, monomials=False,
                                   families=["meijer_2123", "meijer_0131"]).fit(X, _law(X))
    return X, est


def test_a_row_inside_the_box_is_never_clipped(triangle):
    X, est = triangle
    rng = np.random.default_rng(1)
    inside = rng.uniform(0, 1, size=(400, 2))
    Xs = est._scale(inside)
    for tm in est.terms_:
        np.testing.assert_allclose(tm.argument(Xs)[0], tm.unclipped(Xs), rtol=1e-12)
    corner = np.array([[1.0, 1.0]])
    assert est.predict(corner)[0] == pytest.approx(_law(corner)[0], rel=1e-4)  # the law, 3 beyond the data's 2
    np.testing.assert_allclose(est.predict(inside), _law(inside), rtol=1e-4)


def test_outside_the_box_the_argument_stops_at_the_box(triangle):
    _, est = triangle
    far = np.array([[3.0, 2.0], [1.0, 5.0], [-1.0, -2.0]])
    near = np.clip(far, 0, 1)  # along the term's direction, the box's corners (1, 1) and (0, 0)
    np.testing.assert_allclose(est.predict(far), est.predict(near), rtol=1e-12)


def test_the_box_range_is_the_range_over_the_box_corners(triangle):
    X, est = triangle
    (tm,) = est.terms_
    lo, hi = est._scale(X).min(axis=0), est._scale(X).max(axis=0)
    grid = np.array([[a, b] for a in np.linspace(lo[0], hi[0], 21) for b in np.linspace(lo[1], hi[1], 21)])
    u = tm.unclipped(grid)
    assert box_range(tm, lo, hi) == pytest.approx((u.min(), u.max()), rel=1e-12)
    assert tm.u_range == pytest.approx((u.min(), u.max()), rel=1e-12)
    assert tm.unclipped(est._scale(X)).max() < 0.99 * u.max()  # the training rows do not reach it
