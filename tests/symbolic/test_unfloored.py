"""A linear term whose floor falls inside the data is refitted with an argument never floored there."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from interp_symbolic import SymbolicPursuitRegressor
from interp_symbolic.closed_forms import builtin_closed_forms
from interp_symbolic.estimator import _held_out_loss, _NewTerm
from interp_symbolic.expression import direction
from interp_symbolic.families import U_FLOOR, Ridge
from interp_symbolic.projections import LINEAR, UNFLOORED
from interp_symbolic.model import Rows
from interp_symbolic.terms import Term, evaluate_term
from interp_symbolic.tidy import Scaling, _with_printed_argument

POWER = Ridge({f.name: f for f in builtin_closed_forms()}["power"])


def test_a_difference_is_one_unfloored_term_where_the_floor_would_cut_it():
    """x1 - x2 is negative on half of [0, 1]^2: the floored linear term is flat there, the
    unfloored one is the difference itself, exactly."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.uniform(size=(150, 2)), columns=["x1", "x2"])
    y = X.x1 - X.x2
    est = SymbolicPursuitRegressor(max_terms=1, n_restarts=1, maxiter=40, families=["meijer_0131"],
                                   monomials=False, random_state=0).fit(X, y)
    term = est.terms_[0]
    assert term.projection is UNFLOORED and est.score(X, y) > 1 - 1e-9
    Xs = est._scale(X.to_numpy())
    assert term.unclipped(Xs).min() > U_FLOOR  # never floored on the rows it was fitted on
    np.testing.assert_allclose(est.numpy_function()(X.to_numpy()), est.predict(X), rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("relu", [True, False])
def test_a_floor_is_kept_only_where_it_earns_its_place(relu):
    """A floored power term of u = max(0.001, (x1 - x2)/2) (the paper's ReLU): for max(0, x1 - x2)
    the floor is the law and the term stays; for x1 - x2 the floor cuts it in two and the
    unfloored refit, exact, replaces it."""
    rng = np.random.default_rng(1)
    X = rng.uniform(size=(200, 2))
    y = np.maximum(0.0, X[:, 0] - X[:, 1]) if relu else X[:, 0] - X[:, 1]
    fit, held = Rows(X[:150], y[:150]), Rows(X[150:], y[150:])
    term = Term(POWER, [1.0], [1.0, -1.0], 1.0)
    out = evaluate_term(POWER, term.theta, term.v, fit.Xs, fit.t)
    floored = Term(POWER, out.theta, out.v, out.weight)
    new = _NewTerm(floored, out.loss, _held_out_loss(floored, fit, held))
    kept = SymbolicPursuitRegressor(maxiter=60)._unfloored(new, fit, held)
    assert kept.term.projection is (LINEAR if relu else UNFLOORED)
    assert kept.loss < (1e-4 if relu else 1e-9) * np.var(fit.t)  # a floor at 0.001, not at 0, costs ~1e-5


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-3, 3), min_size=3, max_size=3).filter(lambda c: max(map(abs, c)) > 1e-3),
       st.floats(-2, 2))
def test_an_unfloored_argument_prints_what_it_computes(c, c0):
    """``_with_printed_argument`` on an unfloored term prints the coefficients and constant
    asked for, and the term's argument is c . x + c0 where that is above the floor."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 4, size=(60, 3))
    scaling = Scaling(X.min(0), np.ptp(X, axis=0))
    base = Term(POWER, [1.0], [1, 1, 1], 1.0, projection=UNFLOORED)
    term = _with_printed_argument(base, np.array(c), c0, scaling)
    got, got0 = direction(term, scaling.data_min, scaling.data_range)
    np.testing.assert_allclose(got, c, rtol=1e-9, atol=1e-9)
    assert abs(got0 - c0) <= 1e-9 * (1 + np.abs(c) @ np.abs(X.min(0)))
    Xs = (X - scaling.data_min) / scaling.data_range
    np.testing.assert_allclose(term.unclipped(Xs), np.maximum(U_FLOOR, X @ np.array(c) + c0), rtol=1e-9, atol=1e-9)
