"""simplify_term: a Meijer term rewritten as the simplest closed form the loss allows, its
parameters snapped and its negligible direction coefficients dropped only where the loss allows.

The closed forms here are small test forms (``ClosedForm`` subclasses with their own starts), so
that these tests pin down the simplification itself; the built-in library is exercised through
the estimator in test_equations.py.  The Meijer term is
G^{1,0}_{0,1}(-; 0 | s u) = exp(-s u), so every expected result is known exactly.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from interp import RidgeFamily
from interp_symbolic.closed_forms import ClosedForm, Power
from interp_symbolic.families import Ridge
from interp_symbolic.simplify import DROP, RESOLUTION, simplify_term
from interp_symbolic.terms import Term, evaluate_term, projection


class ExpForm(ClosedForm):
    """g = exp(k u)."""

    name = "test_exp"
    complexity = 2
    init_theta = (-1.0,)

    def value(self, th, u):
        return np.exp(th[0] * u)

    def gradient(self, th, u):
        e = np.exp(th[0] * u)
        return (u * e)[None], th[0] * e

    def expression(self, th, u):
        return sympy.exp(sympy.Float(th[0]) * u)

    def starts(self, u, g):
        return [np.array([-1.0]), np.array([1.0])]


class ShiftedExp(ClosedForm):
    """g = exp(k u + c u^2): fits everything ExpForm fits, with one more operation."""

    name = "test_exp_quadratic"
    complexity = 4
    init_theta = (-1.0, 0.0)

    def value(self, th, u):
        return np.exp(th[0] * u + th[1] * u**2)

    def gradient(self, th, u):
        e = self.value(th, u)
        return np.vstack([u * e, u**2 * e]), (th[0] + 2 * th[1] * u) * e

    def expression(self, th, u):
        return sympy.exp(sympy.Float(th[0]) * u + sympy.Float(th[1]) * u**2)

    def starts(self, u, g):
        return [np.array([-1.0, 0.0])]


class BrokenStarts(ExpForm):
    name = "test_broken_starts"
    complexity = 1

    def starts(self, u, g):
        raise ValueError("no start")


MEIJER_EXP = Ridge(RidgeFamily(name="test_meijer_1001", orders=(1, 0, 0, 1), init_b=(0.0,)))
FORMS = [ShiftedExp(), Power(), ExpForm()]  # in no particular order: simplest is tried first
V = np.array([2.0, 1.0, 0.0])


@pytest.fixture(scope="module")
def Xs():
    return np.random.default_rng(0).uniform(size=(200, 3))


def _meijer_term(s, v=V, weight=3.0):
    return Term(MEIJER_EXP, np.array([0.0, s, 1.0]), v, weight)


def _exp_target(Xs, s, v=V):
    u, _ = projection(v, Xs)
    return 3.0 * np.exp(-s * u) + 1.0


def _lstsq_loss(term, Xs, r):
    """The residual MSE of the best a*g + b, by numpy's least squares (the reference)."""
    g = term.ridge.value(term.theta, projection(term.v, Xs)[0])
    A = np.column_stack([np.ones(len(r)), g])
    coef, *_ = np.linalg.lstsq(A, r, rcond=None)
    return float(np.mean((r - A @ coef) ** 2)), coef[1]


def test_exact_exponential_becomes_the_simplest_form_with_its_exponent_snapped(Xs):
    r = _exp_target(Xs, 2.0)
    out = simplify_term(_meijer_term(2.0), Xs, r, FORMS, tol=0.01)
    assert out.term.ridge_family.name == "test_exp"  # not the more complex ShiftedExp; power cannot fit
    assert out.term.theta.tolist() == [-2.0]  # snapped exactly
    loss, weight = _lstsq_loss(out.term, Xs, r)
    assert out.loss == pytest.approx(loss, abs=1e-14)
    assert out.term.weight == pytest.approx(weight, rel=1e-9) and weight == pytest.approx(3.0, rel=1e-6)
    assert out.loss <= 1.01 * out.meijer_loss + 1e-10 * np.var(r)
    np.testing.assert_allclose(out.term.v / np.linalg.norm(out.term.v), V / np.linalg.norm(V), atol=1e-6)


def test_a_snap_the_loss_does_not_allow_is_not_taken(Xs):
    r = _exp_target(Xs, 2.3)  # the nearby snaps -9/4 and -7/3 change the shape
    assert len(ExpForm().snaps([-2.3])) >= 2
    out = simplify_term(_meijer_term(2.3), Xs, r, FORMS, tol=0.01)
    assert out.term.ridge_family.name == "test_exp"
    assert out.term.theta[0] == pytest.approx(-2.3, abs=1e-5)


def test_without_a_form_within_tolerance_the_meijer_term_is_kept(Xs):
    r = _exp_target(Xs, 2.0)
    term = _meijer_term(2.0)
    out = simplify_term(term, Xs, r, [Power(), BrokenStarts()], tol=0.01)
    assert out.term.family == term.family
    np.testing.assert_array_equal(out.term.theta, term.theta)
    np.testing.assert_array_equal(out.term.v, term.v)
    assert out.loss == out.meijer_loss == pytest.approx(_lstsq_loss(term, Xs, r)[0], abs=1e-14)


def test_a_larger_tolerance_accepts_a_rougher_form(Xs):
    r = _exp_target(Xs, 2.0) + 0.01 * np.random.default_rng(2).standard_normal(len(Xs))
    strict = simplify_term(_meijer_term(2.0), Xs, r, [Power()], tol=0.01)
    loose = simplify_term(_meijer_term(2.0), Xs, r, [Power()], tol=1e9)
    assert strict.term.family == "test_meijer_1001"
    assert loose.term.family == "power" and loose.loss > strict.loss


@pytest.mark.parametrize("forms", [FORMS, []])
def test_a_negligible_direction_coefficient_is_dropped(Xs, forms):
    rng = np.random.default_rng(1)
    r = _exp_target(Xs, 2.0) + 1e-3 * rng.standard_normal(len(Xs))  # the target ignores feature 3
    tiny = np.array([2.0, 1.0, 0.5 * DROP * 2.0])
    out = simplify_term(_meijer_term(2.0, v=tiny), Xs, r, forms, tol=0.01)
    assert out.term.v[2] == 0.0 and out.term.v[0] != 0.0
    assert out.loss <= 1.01 * out.meijer_loss
    assert out.loss == pytest.approx(_lstsq_loss(out.term, Xs, r)[0], rel=1e-9)


def test_a_small_coefficient_that_matters_is_kept(Xs):
    v = np.array([2.0, 1.0, 0.9 * DROP * 2.0])
    r = _exp_target(Xs, 8.0, v=v)  # exact: dropping the coefficient costs more than the budget
    dropped = evaluate_term(MEIJER_EXP, np.array([0.0, 8.0, 1.0]), np.array([2.0, 1.0, 0.0]), Xs, r)
    assert dropped.loss > 0.01 * RESOLUTION * np.var(r)
    out = simplify_term(_meijer_term(8.0, v=v), Xs, r, [], tol=0.01)
    assert out.term.v[2] != 0.0


def test_custom_family_terms_are_left_alone(Xs):
    term = Term(Ridge(Power()), np.array([1.3]), V, 2.0)
    r = _exp_target(Xs, 2.0)
    out = simplify_term(term, Xs, r, FORMS, tol=0.01)
    assert out.term is term


@settings(max_examples=8, deadline=None)
@given(s=st.floats(0.5, 4.0))
def test_any_exponential_scale_is_recovered(Xs, s):
    r = _exp_target(Xs, s)
    out = simplify_term(_meijer_term(s), Xs, r, FORMS, tol=0.01)
    assert out.term.ridge_family.name == "test_exp"
    k = out.term.theta[0]
    # the exponent itself, or a small rational next to it that fits as well (a loose snap)
    assert k == pytest.approx(-s, abs=1e-4) or (k * 12 == np.round(k * 12) and abs(k + s) <= 0.05 * max(1, s))


def test_an_essentially_exact_meijer_term_does_not_forbid_an_essentially_exact_form(Xs):
    """exp(-2 u^1.005): the Meijer term is exact, exp(k u) leaves 2e-7 of the variance, far more
    than 1.01 times nothing but less than what 4 printed digits resolve (``RESOLUTION``)."""
    u, _ = projection(V, Xs)
    r = 3.0 * np.exp(-2.0 * u**1.005) + 1.0
    term = Term(MEIJER_EXP, np.array([0.0, 2.0, 1.005]), V, 3.0)
    out = simplify_term(term, Xs, r, FORMS, tol=0.01)
    assert out.term.ridge_family.name == "test_exp"
    assert out.loss > 1e3 * out.meijer_loss + 1e-10 * np.var(r)  # a relative budget alone forbids it
    assert out.loss <= out.meijer_loss + 0.01 * RESOLUTION * np.var(r)
    assert out.loss == pytest.approx(_lstsq_loss(out.term, Xs, r)[0], rel=1e-9)
    assert simplify_term(term, Xs, r, FORMS, tol=0.0).term.family == "test_meijer_1001"
