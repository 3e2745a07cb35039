"""Monomial projections: a term whose argument is C * x1**a1 * ... of the positive columns."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from interp_symbolic import SymbolicPursuitRegressor
from interp_symbolic.closed_forms import builtin_closed_forms
from interp_symbolic.expression import direction
from interp_symbolic.families import Ridge
from interp_symbolic.projections import LINEAR, monomial_projection
from interp_symbolic.render import model_formula
from interp_symbolic.terms import Term, fit_term, projection
from interp_symbolic.tidy import Scaling, _with_printed_argument

FORMS = {f.name: f for f in builtin_closed_forms()}
FAST = dict(max_terms=1, n_restarts=1, maxiter=60, families=["meijer_0131"], random_state=0)


def _coulomb(n=200, seed=0):
    """0.08 * q1 * q2 / r**2 on positive columns, and a column z of both signs it does not read."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.uniform(1, 5, size=(n, 3)), columns=["q1", "q2", "r"])
    X["z"] = rng.uniform(-1, 1, n)
    return X, 0.08 * X.q1 * X.q2 / X.r**2


@pytest.fixture(scope="module")
def coulomb():
    X, y = _coulomb()
    return X, y, SymbolicPursuitRegressor(**FAST).fit(X, y)


def test_a_product_of_powers_is_one_term_printed_as_the_law(coulomb):
    X, y, est = coulomb
    assert model_formula(est).text == "f(x) = 0.08*q1*q2/r**2"
    assert est.terms_[0].projection.name == "monomial"
    assert list(est.monomial_features_) == [True, True, True, False]
    np.testing.assert_allclose(est.predict(X), y, rtol=1e-9)
    np.testing.assert_allclose(est.numpy_function()(X.to_numpy()), est.predict(X), rtol=1e-8)
    assert est.to_latex() == r"\frac{0.08 q_{1} q_{2}}{r^{2}}"


def test_a_pickled_monomial_model_stands_alone(coulomb):
    X, _, est = coulomb
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.predict(X), est.predict(X))
    assert again.terms_[0].projection == est.terms_[0].projection


def test_importances_of_a_monomial_term_are_its_derivatives(coulomb):
    """The first- and second-order Taylor coefficients at the mean, against central differences
    of predict."""
    X, _, est = coulomb
    x0 = X.to_numpy().mean(axis=0)
    h = 1e-4

    def f(x):
        return float(est.predict(pd.DataFrame([x], columns=X.columns))[0])

    grad = [(f(x0 + h * e) - f(x0 - h * e)) / (2 * h) for e in np.eye(4)]
    np.testing.assert_allclose(est.feature_importances_, grad, rtol=1e-6, atol=1e-9)
    e0, e2 = np.eye(4)[0], np.eye(4)[2]
    mixed = (f(x0 + h * (e0 + e2)) - f(x0 + h * (e0 - e2)) - f(x0 - h * (e0 - e2)) + f(x0 - h * (e0 + e2))) / (4 * h * h)
    np.testing.assert_allclose(est.interactions_[0, 2], mixed, rtol=1e-4)


def test_columns_that_are_not_positive_keep_linear_arguments_only():
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, size=(50, 3))
    X[:, 1] = rng.uniform(0.5, 2, 50)
    kind = monomial_projection(X, X.min(0), np.ptp(X, axis=0))
    assert list(kind.positive) == [False, True, False]
    assert monomial_projection(X[:, [0, 2]], X[:, [0, 2]].min(0), np.ptp(X[:, [0, 2]], axis=0)) is None
    F = kind.features((X - X.min(0)) / np.ptp(X, axis=0))
    assert np.all(F[:, [0, 2]] == 0) and F[:, 1].min() == 0 and F[:, 1].max() == pytest.approx(1.0)


def test_the_monomial_gradient_matches_finite_differences():
    rng = np.random.default_rng(2)
    X = rng.uniform(0.5, 3, size=(40, 3))
    kind = monomial_projection(X, X.min(0), np.ptp(X, axis=0))
    F = kind.features((X - X.min(0)) / np.ptp(X, axis=0))
    v = np.array([0.7, -0.4, 0.2])
    u, du_dv = projection(v, F, kind)
    for j in range(3):
        e = np.eye(3)[j] * 1e-6
        numeric = (projection(v + e, F, kind)[0] - projection(v - e, F, kind)[0]) / 2e-6
        np.testing.assert_allclose(du_dv[:, j], numeric, rtol=1e-6, atol=1e-10)
    assert np.all((u > 0) & (u <= 1.0))


def test_a_monomial_fit_never_reads_a_column_that_is_not_positive():
    rng = np.random.default_rng(3)
    X = np.column_stack([rng.uniform(1, 4, 80), rng.uniform(-1, 1, 80)])
    kind = monomial_projection(X, X.min(0), np.ptp(X, axis=0))
    Xs = (X - X.min(0)) / np.ptp(X, axis=0)
    y = X[:, 0] ** 1.5
    fit = fit_term(Ridge(FORMS["power"]), Xs, y, [(np.array([2.0]), np.array([1.0, 0.0]))], 60, kind=kind)
    assert fit.ok and fit.v[1] == 0.0 and fit.loss < 1e-12 * np.var(y)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-3, 3).filter(lambda v: abs(v) > 1e-3), min_size=3, max_size=3), st.floats(-2, 2))
def test_a_printed_monomial_is_set_exactly(a, c0):
    """``_with_printed_argument`` on a monomial term prints the exponents and constant asked for
    and evaluates exp(c0) * prod x**a."""
    rng = np.random.default_rng(0)
    X = rng.uniform(0.5, 7, size=(60, 3))
    scaling = Scaling(X.min(0), np.ptp(X, axis=0))
    kind = monomial_projection(X, scaling.data_min, scaling.data_range)
    base = Term(Ridge(FORMS["power"]), [1.0], [1, 1, 1], 1.0, projection=kind)
    term = _with_printed_argument(base, np.array(a), c0, scaling)
    got, got0 = direction(term, scaling.data_min, scaling.data_range)
    np.testing.assert_allclose(got, a, rtol=1e-12, atol=1e-14)
    assert abs(got0 - c0) <= 1e-12 * (1 + np.abs(a) @ np.abs(np.log(X.min(0))))
    Xs = (X - scaling.data_min) / scaling.data_range
    np.testing.assert_allclose(term.unclipped(Xs), np.exp(c0) * np.prod(X ** np.array(a), axis=1), rtol=1e-9)


def test_a_linear_term_is_the_default_kind_and_pickles_of_old_terms_read_linear():
    term = Term(Ridge(FORMS["power"]), [1.0], [0.3, 0.4], 2.0)
    del term.projection  # what unpickling a term of the previous version gives
    assert term.projection is LINEAR and term.as_dict()["projection"] == "linear"
    assert pickle.loads(pickle.dumps(LINEAR)) == LINEAR


def test_the_printed_monomial_keeps_rational_exponents():
    X = pd.DataFrame(np.random.default_rng(4).uniform(1, 4, size=(120, 2)), columns=["m", "v"])
    y = 0.5 * X.m * X.v**2
    est = SymbolicPursuitRegressor(**FAST).fit(X, y)
    expr = sympy.sympify(model_formula(est).right, locals={"m": sympy.Symbol("m"), "v": sympy.Symbol("v")})
    assert expr == sympy.Rational(1, 2) * sympy.Symbol("m") * sympy.Symbol("v") ** 2 or \
        model_formula(est).text == "f(x) = 0.5*m*v**2"
