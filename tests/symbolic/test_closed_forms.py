"""The closed-form library: each form's contract, its registration through the plugin hook, and
the checker itself (it must reject broken forms)."""

import pickle
import warnings

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import interp
from interp.registry import PluginWarning
from interp.testing import ContractError, registered
from interp_symbolic.closed_forms import (ClosedForm, Power, builtin_closed_forms, exact_number, fit_curve,
                                          registered_closed_forms, snap_options)
from interp_symbolic.families import PAPER_FAMILIES, Ridge
from interp_symbolic.testing import CHECK_POINTS, check_closed_form

# the issue's list: Phi(w u^q) u^t for Phi in identity, exp, log(1 + .), sin, cos, sinh, cosh,
# arctan, arcsin, 1/(1 + .), Bessel J, Y, I and Gamma
ISSUE_FUNCTIONS = {sp.exp, sp.log, sp.sin, sp.cos, sp.sinh, sp.cosh, sp.atan, sp.asin, sp.besselj,
                   sp.bessely, sp.besseli, sp.gamma}


class Tanh(ClosedForm):
    """tanh(w u): a third party's candidate form."""

    name = "tanh"
    complexity = 2
    init_theta = (1.0,)
    bounds = ((0.01, 30.0),)
    grid = (np.geomspace(0.05, 30.0, 24),)

    def value(self, theta, u):
        return np.tanh(theta[0] * np.asarray(u, dtype=float))

    def gradient(self, theta, u):
        u = np.asarray(u, dtype=float)
        d = 1.0 - np.tanh(theta[0] * u) ** 2
        return (d * u)[None, :], d * theta[0]

    def expression(self, theta, u):
        return sp.tanh(exact_number(theta[0]) * u)


class ThirdParty:
    def __init__(self, *forms):
        self.forms = forms

    @interp.hookimpl
    def register_closed_forms(self, register):
        for form in self.forms:
            register(form)


@pytest.fixture(scope="module")
def with_tanh():
    """The forms resolved from the registry while a third-party plugin adds ``tanh``."""
    with registered(ThirdParty(Tanh()), "tanh-plugin"):
        yield registered_closed_forms()


def _by_name(forms):
    return {form.name: form for form in forms}


FORM_NAMES = [form.name for form in builtin_closed_forms()] + ["tanh"]


@pytest.mark.parametrize("name", FORM_NAMES)
def test_every_form_keeps_its_contract(name, with_tanh):
    """Value vs gradient (central differences) vs the sympy expression, starts and snaps inside
    the bounds, and a least-squares fit from starts recovering the form's own curves to 1e-6 on
    200 points of [0.05, 1]: the built-in forms and a third party's, resolved from the registry."""
    check_closed_form(_by_name(with_tanh)[name], seed=FORM_NAMES.index(name))


def test_forms_resolve_simplest_first_with_third_party_ones(with_tanh):
    forms = _by_name(with_tanh)
    assert forms["tanh"].plugin == "tanh-plugin"
    assert {form.plugin for name, form in forms.items() if name != "tanh"} == {"symbolic"}
    assert [f.complexity for f in with_tanh] == sorted(f.complexity for f in with_tanh)
    assert with_tanh[0].name == "power"
    assert "tanh" not in _by_name(registered_closed_forms())  # gone with its plugin


def test_the_library_covers_the_issues_functions():
    u = sp.Symbol("u", positive=True)
    used = set()
    for form in builtin_closed_forms():
        expr = form.expression(np.asarray(form.init_theta) * 1.1, u)
        used |= {type(f) for f in expr.atoms(sp.Function)}
        assert not expr.has(sp.meijerg) and expr.free_symbols == {u}
    assert ISSUE_FUNCTIONS <= used
    shapes = {str(f.expression(np.array([0.7, -1.3])[:len(f.init_theta)], u)) for f in builtin_closed_forms()}
    assert {"u**(7/10)", "1/(7*u/10 + 1)", "u**(7/10)*exp(-13*u/10)"} <= shapes


@pytest.mark.parametrize("form", builtin_closed_forms(), ids=lambda f: f.name)
def test_values_match_mpmath(form):
    """The numpy value against the sympy expression evaluated by mpmath at 30 digits."""
    u = sp.Symbol("u", positive=True)
    theta = np.asarray(form.init_theta) * 0.9
    expr = form.expression(theta, u)
    points = np.array(CHECK_POINTS)
    want = np.array([float(sp.re(expr.evalf(30, subs={u: sp.Float(p, 30)}))) for p in points])
    np.testing.assert_allclose(form.value(theta, points), want, rtol=1e-10)


def test_a_fit_stays_finite_over_the_whole_box():
    """Every corner of every form's bounds gives finite values on (0, 1]."""
    u = np.array([1e-3, 0.5, 1.0])
    for form in builtin_closed_forms():
        for corner in np.array(np.meshgrid(*form.bounds)).reshape(len(form.bounds), -1).T:
            assert np.all(np.isfinite(form.value(corner, u))), (form.name, corner)


# -- snaps ---------------------------------------------------------------------------------------

def test_snaps_are_most_aggressive_first_and_print_exactly():
    forms = _by_name(builtin_closed_forms())
    u = sp.Symbol("u", positive=True)
    assert [s.tolist() for s in forms["power"].snaps([1.97])] == [[2.0]]
    assert forms["power"].snaps([1.41]) == []  # nothing small near it
    first, *rest = forms["exp_power"].snaps([-1.02, 1.96])
    assert first.tolist() == [-1.0, 2.0] and all(np.sum(s != [-1.02, 1.96]) == 1 for s in rest)
    assert forms["exp_power"].expression(first, u) == sp.exp(-u ** 2)
    snapped = forms["sin_phase"].snaps([3.0, 1.55])
    assert snapped[0].tolist() == [3.0, np.pi / 2]
    assert forms["sin_phase"].expression(snapped[0], u) == sp.cos(3 * u)
    assert all(0.0 not in s for s in forms["exp"].snaps([0.03]))  # w = 0 would make exp(w u) constant


@settings(max_examples=60, deadline=None)
@given(st.floats(-50, 50), st.booleans(), st.booleans())
def test_snap_options_are_close_small_rationals(x, angle, zero):
    unit = np.pi if angle else 1.0
    options = snap_options(x, angle=angle, zero=zero)
    assert [q for _, q in options] == sorted(q for _, q in options)
    for value, q in options:
        assert abs(value - x) <= 0.05 * max(unit, abs(x)) + 1e-12
        assert abs(value / unit * q - round(value / unit * q)) < 1e-9
        assert zero or value != 0


# -- the checker rejects broken forms -------------------------------------------------------------

class WrongGradient(Tanh):
    name = "wrong_gradient"

    def gradient(self, theta, u):
        dth, du = super().gradient(theta, u)
        return 1.01 * dth, du


class WrongExpression(Tanh):
    name = "wrong_expression"

    def expression(self, theta, u):
        return sp.tanh(exact_number(theta[0]) * u + sp.Rational(1, 1000))


class ComplexExpression(Tanh):
    name = "complex_expression"

    def expression(self, theta, u):
        return sp.tanh(exact_number(theta[0]) * u) + sp.I / 10**9


class StartsOutside(Tanh):
    name = "starts_outside"

    def starts(self, u, g):
        return [np.array([100.0])]


class NoGoodStart(Tanh):
    """sin(w u) started at the top of its range only: a least-squares fit stops in a local minimum."""

    name = "no_good_start"

    def value(self, theta, u):
        return np.sin(theta[0] * np.asarray(u, dtype=float))

    def gradient(self, theta, u):
        u = np.asarray(u, dtype=float)
        c = np.cos(theta[0] * u)
        return (c * u)[None, :], c * theta[0]

    def expression(self, theta, u):
        return sp.sin(exact_number(theta[0]) * u)

    def starts(self, u, g):
        return [np.array([30.0])]


@pytest.mark.parametrize("form, message", [
    (WrongGradient(), r"closed form 'wrong_gradient': d value / d theta\[0\] at theta=\(1\), z=0.05 is "),
    (WrongExpression(), r"closed form 'wrong_expression': expression\(theta=\(1\), u\) = tanh\(u \+ 1/1000\) is "),
    (ComplexExpression(), r"closed form 'complex_expression': expression.* is not a real closed form"),
    (StartsOutside(), r"closed form 'starts_outside': starts\(u, g\) for g at theta=.* gave \[100.\], not 1 "
                      r"finite parameters within the bounds"),
    (NoGoodStart(), r"closed form 'no_good_start': a least-squares fit from starts\(\) to its own curve"),
])
def test_broken_forms_fail_with_one_line_naming_them(form, message):
    with pytest.raises(ContractError, match=message) as err:
        check_closed_form(form)
    assert "\n" not in str(err.value)


def test_a_registered_broken_form_is_named_with_its_plugin():
    with registered(ThirdParty(WrongGradient()), "sloppy"):
        (form,) = [f for f in registered_closed_forms() if f.name == "wrong_gradient"]
        with pytest.raises(ContractError, match="closed form 'wrong_gradient' from plugin 'sloppy': "):
            check_closed_form(form, recover=False)


def test_check_takes_only_closed_forms():
    with pytest.raises(TypeError, match="takes an interp_symbolic.closed_forms.ClosedForm, got RidgeFamily"):
        check_closed_form(PAPER_FAMILIES[0])


# -- malformed registrations and definitions -------------------------------------------------------

@pytest.mark.parametrize("plugin, message", [
    (ThirdParty(PAPER_FAMILIES[0]), "register\\(\\) for closed forms takes an interp_symbolic.ClosedForm, "
                                    "got RidgeFamily"),
    (ThirdParty(Power()), "plugins 'bad' and 'symbolic' both register the closed form 'power': the built-in "
                          "'symbolic' keeps it, 'bad' goes without"),
    (ThirdParty(Tanh(), Tanh()), "closed form 'tanh' registered twice by plugin 'bad'"),
])
def test_a_malformed_registration_is_one_line_naming_the_plugin(plugin, message, monkeypatch):
    with registered(plugin, "bad"):
        with pytest.warns(PluginWarning, match=message):
            names = [f.name for f in registered_closed_forms()]
        assert "exp" in names and "tanh" not in names  # the others keep working
        monkeypatch.setenv("INTERP_STRICT_PLUGINS", "1")
        with pytest.raises(interp.PluginError, match=message) as err:
            registered_closed_forms()
        assert "\n" not in str(err.value)


@pytest.mark.parametrize("field, value, message", [
    ("complexity", 0, "complexity must be a positive int, got 0"),
    ("complexity", 2.5, "complexity must be a positive int, got 2.5"),
    ("bounds", ((0.0, 1.0), (0.0, 1.0)), "bounds has 2 pairs for 1 parameters"),
    ("bounds", ((2.0, 1.0),), r"bounds\[0\] = \(2.0, 1.0\) is empty"),
    ("init_theta", (50.0,), r"init_theta \(50.0,\) is outside the bounds"),
    ("grid", ((1.0,), (2.0,)), "grid has 2 axes for 1 parameters"),
    ("bounds", (0.0, 1.0), "bounds must be \\(lo, hi\\) pairs"),
    ("grid", (("a",),), "bounds must be \\(lo, hi\\) pairs and grid one sequence of numbers per parameter"),
])
def test_an_inconsistent_form_fails_on_creation(field, value, message):
    broken = type("Broken", (Tanh,), {"name": "broken", field: value})
    with pytest.raises(interp.PluginError, match=f"invalid closed form 'broken': {message}"):
        broken()


def test_a_form_needs_an_expression():
    class Silent(ClosedForm):
        name = "silent"
        complexity = 1
        init_theta = (1.0,)

        def value(self, theta, u):
            return u ** theta[0]

        def gradient(self, theta, u):
            return (u ** theta[0] * np.log(u))[None, :], theta[0] * u ** (theta[0] - 1)

    with pytest.raises(interp.PluginError, match="invalid closed form 'silent': a closed form needs expression"):
        Silent()


# -- use by the pursuit ----------------------------------------------------------------------------

def test_ridge_reads_the_bounds_of_a_custom_family():
    form = _by_name(builtin_closed_forms())["arcsin"]
    ridge = Ridge(form)
    assert ridge.bounds == [(0.01, 0.999)] and 0.01 <= ridge.init[0] <= 0.999
    assert Ridge(Tanh()).bounds == [(0.01, 30.0)]
    unbounded = interp.RidgeFamily("lin", init_theta=(1.0,), value=lambda th, z: th[0] * z,
                                   gradient=lambda th, z: (z[None, :], th[0] * np.ones_like(z)))
    assert Ridge(unbounded).bounds == [(None, None)]


def test_fit_curve_returns_weight_and_offset():
    u = np.linspace(0.02, 0.9, 150)
    g = 3.0 * np.exp(-2.2 * u) + 1.5
    fit = fit_curve(_by_name(builtin_closed_forms())["exp"], u, g)
    np.testing.assert_allclose([fit.theta[0], fit.weight, fit.offset], [-2.2, 3.0, 1.5], rtol=1e-8)
    assert fit.loss < 1e-20


def test_forms_pickle_and_predict_alone():
    for form in builtin_closed_forms():
        clone = pickle.loads(pickle.dumps(form))
        theta = np.asarray(form.init_theta)
        np.testing.assert_array_equal(clone.value(theta, np.array(CHECK_POINTS)),
                                      form.value(theta, np.array(CHECK_POINTS)))
        assert clone == form


def test_exact_number_prints_small_rationals_and_angles():
    assert exact_number(0.75) == sp.Rational(3, 4)
    assert exact_number(-np.pi / 2, angle=True) == -sp.pi / 2
    assert exact_number(0.7071) == sp.Float(0.7071)
    assert abs(float(exact_number(np.pi / 3, angle=True)) - np.pi / 3) <= 1e-15


def test_no_warning_resolving_the_built_in_forms():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert {f.name for f in registered_closed_forms()} >= {f.name for f in builtin_closed_forms()}
