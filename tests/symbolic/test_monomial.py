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
from interp_symbolic.estimator import log_structure
from interp_symbolic.projections import LINEAR, Prefactor, monomial_projection
from interp_symbolic.render import model_formula
from interp_symbolic.terms import Term, _term_objective, fit_term, projection
from interp_symbolic.tidy import Scaling, _merged_power, _with_printed_argument

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


def _relativistic(n=160, seed=0):
    """m * v / sqrt(1 - v**2/c**2): a monomial prefactor times a function of another monomial."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"m": rng.uniform(1, 5, n), "v": rng.uniform(1, 2, n), "c": rng.uniform(3, 10, n)})
    return X, X.m * X.v / np.sqrt(1 - (X.v / X.c) ** 2)


@pytest.fixture(scope="module")
def relativistic():
    X, y = _relativistic()
    est = SymbolicPursuitRegressor(max_terms=1, n_restarts=2, maxiter=40, families=["meijer_2233"],
                                   random_state=0).fit(X, y)
    return X, y, est


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


@pytest.mark.parametrize("fitted", ["coulomb", "relativistic"])
def test_interactions_of_a_monomial_term_are_its_second_derivatives(fitted, request):
    """The second-order Taylor coefficients at the baseline row, against central differences of
    predict (a prefactor's product rule included)."""
    X, _, est = request.getfixturevalue(fitted)
    x0 = est.baseline_row_
    h = 1e-4
    d = X.shape[1]

    def f(x):
        return float(est.predict(pd.DataFrame([x], columns=X.columns))[0])

    e0, e2 = np.eye(d)[0], np.eye(d)[2]
    mixed = (f(x0 + h * (e0 + e2)) - f(x0 + h * (e0 - e2)) - f(x0 - h * (e0 - e2)) + f(x0 - h * (e0 + e2))) / (4 * h * h)
    np.testing.assert_allclose(est.interactions_[0, 2], mixed, rtol=1e-4)
    e1 = np.eye(d)[1]
    square = (f(x0 + h * e1) - 2 * f(x0) + f(x0 - h * e1)) / (h * h)
    np.testing.assert_allclose(2 * est.interactions_[1, 1], square, rtol=1e-3, atol=1e-6)


def test_columns_that_are_not_positive_keep_linear_arguments_only():
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, size=(50, 3))
    X[:, 1] = rng.uniform(0.5, 2, 50)
    kind = monomial_projection(X, X.min(0), np.ptp(X, axis=0))
    assert list(kind.positive) == [False, True, False]
    assert monomial_projection(X[:, [0, 2]], X[:, [0, 2]].min(0), np.ptp(X[:, [0, 2]], axis=0)) is None
    F = kind.features((X - X.min(0)) / np.ptp(X, axis=0))
    assert np.all(F[:, [0, 2]] == 0) and F[:, 1].min() == 0 and F[:, 1].max() == pytest.approx(1.0)


@pytest.mark.parametrize("normalised", [True, False])
def test_the_monomial_gradient_matches_finite_differences(normalised):
    """du/dv of a monomial argument, its direction normalised (a Meijer G's) or not (a closed
    form's, whose direction's norm is the exponents' scale)."""
    rng = np.random.default_rng(2)
    X = rng.uniform(0.5, 3, size=(40, 3))
    kind = monomial_projection(X, X.min(0), np.ptp(X, axis=0))
    F = kind.features((X - X.min(0)) / np.ptp(X, axis=0))
    v = np.array([0.7, -0.4, 0.2])
    u, du_dv = projection(v, F, kind, normalised)
    for j in range(3):
        e = np.eye(3)[j] * 1e-6
        numeric = (projection(v + e, F, kind, normalised)[0] - projection(v - e, F, kind, normalised)[0]) / 2e-6
        np.testing.assert_allclose(du_dv[:, j], numeric, rtol=1e-6, atol=1e-10)
    assert np.all((u >= 1e-3) & (u <= 1.0))
    assert np.allclose(projection(3 * v, F, kind, normalised)[0], u) == normalised  # the norm matters unnormalised


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


def test_a_prefactor_times_a_function_of_a_monomial_is_one_term(relativistic):
    """m * v / sqrt(1 - v**2/c**2) in one term w * P(x) * g(u), u and P monomials; the printed,
    numpy and pickled forms all equal predict."""
    X, y, est = relativistic
    term = est.terms_[0]
    assert est.n_terms_ == 1 and term.projection.name == "monomial" and term.prefactor is not None
    assert est.score(X, y) > 0.9999
    assert term.as_dict()["prefactor"] == term.prefactor.exponents.tolist()
    np.testing.assert_allclose(est.numpy_function()(X.to_numpy()), est.predict(X), rtol=1e-8)
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.predict(X), est.predict(X))
    assert term.reads.all() and term.prefactor.reads[0]  # m only multiplies: the prefactor reads it
    printed = model_formula(est).text.splitlines()
    assert len(printed) == 2 and "m" in printed[0].replace("max", "")


def test_the_prefactor_gradient_matches_finite_differences():
    rng = np.random.default_rng(5)
    X = rng.uniform(0.5, 3, size=(50, 3))
    kind = monomial_projection(X, X.min(0), np.ptp(X, axis=0))
    Xs = (X - X.min(0)) / np.ptp(X, axis=0)
    F = kind.features(Xs)
    ridge = Ridge(FORMS["binomial"])
    r = X[:, 0] * X[:, 1] / (1 + X[:, 2])
    f = _term_objective(ridge, F, r, 2, kind, F)
    params = np.array([0.6, 1.5, 0.4, -0.3, 0.8, 0.5, 0.2, -0.4])
    _, grad = f(params)
    numeric = [(f(params + e)[0] - f(params - e)[0]) / 2e-6 for e in np.eye(len(params)) * 1e-6]
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-9)


def test_a_fitted_prefactor_is_in_the_features_units():
    """Fitting P(x) / (1 + w*u) with P free from exponents 0 reaches x1 * x2**2, and the
    candidate's exponents are P's own (not the scaled logarithms')."""
    rng = np.random.default_rng(6)
    X = rng.uniform(1, 4, size=(80, 3))
    kind = monomial_projection(X, X.min(0), np.ptp(X, axis=0))
    Xs = (X - X.min(0)) / np.ptp(X, axis=0)
    y = X[:, 0] * X[:, 1] ** 2 / (1 + X[:, 2])
    fit = fit_term(Ridge(FORMS["inverse"]), Xs, y, [(np.array([1.0]), np.array([0.0, 0.0, 1.0]))], 200,
                   kind=kind, prefactor=Prefactor(kind, np.zeros(3)))
    assert fit.ok and fit.loss < 1e-6 * np.var(y)
    np.testing.assert_allclose(fit.prefactor, [1.0, 2.0, 0.0], atol=2e-2)


def test_a_power_times_a_prefactor_merges_into_one_monomial():
    rng = np.random.default_rng(7)
    X = rng.uniform(0.5, 6, size=(40, 3))
    scaling = Scaling(X.min(0), np.ptp(X, axis=0))
    kind = monomial_projection(X, scaling.data_min, scaling.data_range)
    Xs = (X - scaling.data_min) / scaling.data_range
    term = Term(Ridge(FORMS["power"]), [1.7], [0.4, -0.9, 0.3], 2.5, projection=kind,
                prefactor=Prefactor(kind, [1.0, 0.0, -0.5]))
    (merged,) = _merged_power(term, scaling)
    assert merged.prefactor is None and merged.theta.tolist() == [1.0]
    np.testing.assert_allclose(merged.values(Xs, clip=False), term.values(Xs, clip=False), rtol=1e-10)


def test_the_log_structure_finds_a_prefactor_and_the_bend_of_g():
    """log of x1**1.5 / (1 + x2**2/x3**2): the trend's x1 part is 1.5 (on the scaled
    logarithms: times the log range) and the bend lies along log x2 - log x3."""
    rng = np.random.default_rng(8)
    X = rng.uniform(1, 5, size=(400, 3))
    kind = monomial_projection(X, X.min(0), np.ptp(X, axis=0))
    F = kind.features((X - X.min(0)) / np.ptp(X, axis=0))
    shape = log_structure(F, X[:, 0] ** 1.5 / (1 + X[:, 1] ** 2 / X[:, 2] ** 2))
    assert shape.trend[0] == pytest.approx(1.5 * kind.log_range[0], rel=1e-2)
    along = np.array([0.0, kind.log_range[1], -kind.log_range[2]])
    assert abs(shape.bend @ along) / np.linalg.norm(along) > 0.99
    assert log_structure(F, X[:, 0] - 3) is None  # a residual of both signs has no logarithm


def test_a_target_of_both_signs_has_the_log_structure_of_its_magnitude():
    """x1 * x2**2 * cos(x3): with ``both_signs`` the trend's x1 and x2 parts are the prefactor's
    exponents (the cosine does not depend on them) and the bend lies along log x3, where
    log|cos| bends; it is marked as a magnitude's, never exact."""
    rng = np.random.default_rng(9)
    X = rng.uniform(1, 5, size=(600, 3))
    kind = monomial_projection(X, X.min(0), np.ptp(X, axis=0))
    F = kind.features((X - X.min(0)) / np.ptp(X, axis=0))
    y = X[:, 0] * X[:, 1] ** 2 * np.cos(X[:, 2])
    assert log_structure(F, y) is None
    shape = log_structure(F, y, both_signs=True)
    assert not shape.one_signed and not shape.exact
    np.testing.assert_allclose(shape.trend[:2] / kind.log_range[:2], [1.0, 2.0], atol=0.1)
    assert abs(shape.bend[2]) > 0.99
    assert log_structure(F, np.where(np.arange(600) == 5, 0.0, y), both_signs=True) is None  # log 0


def test_a_prefactor_times_a_cosine_of_both_signs_is_one_term_with_the_default_settings():
    """-m * B * cos(theta), theta in [1, 5]: the target changes sign, so its logarithm is that of
    its magnitude; the prefactor kind starts from it and writes the law as the one term it is
    (the greedy step without it wrote three additive terms at a held-out R^2 of 0.91)."""
    rng = np.random.default_rng(10)
    X = pd.DataFrame({"m": rng.uniform(1, 5, 400), "B": rng.uniform(1, 5, 400), "theta": rng.uniform(1, 5, 400)})
    y = -X.m * X.B * np.cos(X.theta)
    est = SymbolicPursuitRegressor(random_state=0).fit(X, y)
    Xt = pd.DataFrame({"m": rng.uniform(1, 5, 300), "B": rng.uniform(1, 5, 300), "theta": rng.uniform(1, 5, 300)})
    assert est.score(Xt, -Xt.m * Xt.B * np.cos(Xt.theta)) > 0.9999
    assert est.n_terms_ == 1 and est.terms_[0].prefactor is not None
    np.testing.assert_allclose(est.terms_[0].prefactor.exponents[:2], [1.0, 1.0], atol=0.02)
