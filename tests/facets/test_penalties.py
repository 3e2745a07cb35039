"""Penalties: closed forms against definitions, proxes against brute-force 1-D minimisation."""

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize_scalar

import interp
import interp_facets
from interp_facets import penalties as P

finite = st.floats(-8, 8, allow_nan=False)
steps = st.floats(0.0, 3.0, allow_nan=False)
epss = st.floats(0.001, 0.999, allow_nan=False)
gammas = st.floats(0.05, 5.0, allow_nan=False)


def facets_by_definition(w):
    """sum_{i >= 0} max(0, |w| - i), straight from Definition 1."""
    a = abs(float(w))
    return sum(max(0.0, a - i) for i in range(int(np.ceil(a)) + 2))


@pytest.fixture(autouse=True)
def forty_digits():
    """mpmath at 40 digits in this module's tests only (a module-level setting would leak into
    every test collected after it)."""
    with mpmath.workdps(40):
        yield


def mp_facets(v):
    a = abs(mpmath.mpf(v))
    return mpmath.fsum(max(mpmath.mpf(0), a - i) for i in range(int(mpmath.ceil(a)) + 2))


MP_OMEGA = {
    "facets": lambda v: mp_facets(v),
    "scf": lambda v, eps=0.01: (1 - mpmath.mpf(eps)) * mp_facets(v)
    + mpmath.mpf(eps) * (abs(mpmath.mpf(v)) + mpmath.mpf(v) ** 2 / 2),
    "l1": lambda v: abs(mpmath.mpf(v)),
    "l2": lambda v: mpmath.mpf(v) ** 2 / 2,
    "elasticnet": lambda v, l1_ratio=0.5: mpmath.mpf(l1_ratio) * abs(mpmath.mpf(v))
    + (1 - mpmath.mpf(l1_ratio)) * mpmath.mpf(v) ** 2 / 2,
}


def brute_prox(omega, w, mu):
    """argmin_v (v - w)^2 / 2 + mu * omega(v): a dense grid, then bounded Brent refinement.

    omega is evaluated in 40-digit arithmetic (mpmath, from the definitions) and the objective is
    returned relative to its value at the best grid point, so the refinement resolves v to
    ~1e-12 even where the objective is flat to second order (the ends of the plateaus).
    """
    w, mu = mpmath.mpf(w), mpmath.mpf(mu)
    h_mp = lambda v: (mpmath.mpf(v) - w) ** 2 / 2 + mu * omega(v)  # noqa: E731
    lo, hi = -abs(float(w)) - 1.0, abs(float(w)) + 1.0
    grid = np.linspace(lo, hi, 801)
    vals = [h_mp(v) for v in grid]
    i = int(np.argmin([float(x) for x in vals]))
    base = vals[i]
    c = mpmath.mpf(grid[i])
    # refine the offset t = v - c: Brent's tolerance has a sqrt(machine eps) * |x| term
    f = lambda t: float(h_mp(c + mpmath.mpf(t)) - base)  # noqa: E731
    step = grid[1] - grid[0]
    res = minimize_scalar(f, bounds=(-step, step), method="bounded",
                          options={"xatol": 1e-14, "maxiter": 5000})
    return float(c + mpmath.mpf(res.x))


def scalar(fn, **hyper):
    return lambda v: float(fn(np.array([v]), **hyper))


@settings(max_examples=60, deadline=None)
@given(w=finite, mu=steps)
def test_prox_facets_is_the_argmin(w, mu):
    v = float(interp_facets.prox_facets(w, mu))
    ref = brute_prox(MP_OMEGA["facets"], w, mu)
    assert abs(v - ref) <= 1e-8


@settings(max_examples=60, deadline=None)
@given(w=finite, mu=steps, eps=epss)
def test_prox_scf_is_the_argmin(w, mu, eps):
    v = float(interp_facets.prox_scf(w, mu, eps))
    ref = brute_prox(lambda v: MP_OMEGA["scf"](v, eps), w, mu)
    assert abs(v - ref) <= 1e-8


@pytest.mark.parametrize("name", ["l1", "l2", "elasticnet", "facets", "scf"])
@settings(max_examples=15, deadline=None)
@given(w=finite, mu=steps)
def test_registered_prox_is_the_argmin(name, w, mu):
    pen = {p.name: p for p in P.PENALTIES}[name]
    v = float(pen.prox(np.array([w]), mu, **pen.defaults)[0])
    ref = brute_prox(lambda v: MP_OMEGA[name](v, **pen.defaults), w, mu)
    assert abs(v - ref) <= 1e-8


@settings(max_examples=30, deadline=None)
@given(w=finite, mu=steps, gamma=gammas, eps=epss)
def test_scaled_prox_is_the_argmin(w, mu, gamma, eps):
    """eq. (16): prox of mu * Omega(. / gamma) = gamma * prox_{mu / gamma^2 Omega}(. / gamma)."""
    v = float(P.prox_scaled(P.prox_scf, w, mu, gamma, eps=eps))
    omega = lambda x: MP_OMEGA["scf"](mpmath.mpf(x) / mpmath.mpf(gamma), eps)  # noqa: E731
    ref = brute_prox(omega, w, mu)
    assert abs(v - ref) <= 1e-8


@settings(max_examples=200, deadline=None)
@given(w=st.floats(-50, 50, allow_nan=False))
def test_facets_value_closed_form_matches_definition(w):
    assert P.facets_value(np.array([w])) == pytest.approx(facets_by_definition(w), rel=1e-12, abs=1e-12)
    # Proposition 4.1: the integral of ceil(x) from 0 to |w|
    a = abs(w)
    k = int(np.floor(a))
    integral = sum(range(1, k + 1)) + (k + 1) * (a - k)
    assert P.facets_value(np.array([w])) == pytest.approx(integral, rel=1e-12, abs=1e-12)


def test_facets_value_known_points_and_vector():
    # eq. (3) by hand: 0 -> 0, 0.5 -> 0.5, 1 -> 1, 2 -> 3, 2.5 -> 4.5, 3 -> 6
    w = np.array([0.0, 0.5, -1.0, 2.0, -2.5, 3.0])
    assert P.facets_elementwise(w).tolist() == [0.0, 0.5, 1.0, 3.0, 4.5, 6.0]
    assert P.facets_value(w) == 15.0
    # Section 4.1 bounds: (|w|_1 + |w|_2^2) / 2 <= Facets <= that + m / 8
    rng = np.random.default_rng(1)
    v = rng.normal(scale=3, size=50)
    low = (np.abs(v).sum() + (v * v).sum()) / 2
    assert low <= P.facets_value(v) <= low + v.size / 8 + 1e-12


@pytest.mark.parametrize("value", [P.facets_value, P.scf_value, P.l1_value])
def test_penalty_values_take_scalars_and_any_shape(value):
    # the values sum over every coefficient, whatever the array's shape
    w = np.array([[0.0, 0.5, -1.0], [2.0, -2.5, 3.7]])
    per_coef = [value(x) for x in w.ravel()]
    assert value(w) == pytest.approx(sum(per_coef), rel=1e-12)
    assert value(w.T) == pytest.approx(value(w), rel=1e-12)
    assert value(2.5) == pytest.approx(value(np.array([2.5])), rel=1e-12)
    assert value(np.zeros(0)) == 0.0


@settings(max_examples=60, deadline=None)
@given(w=finite, eps=epss)
def test_scf_is_facets_plus_eps_correction(w, eps):
    """eq. (14): SCF = Facets + eps (L1 + L2 - Facets)."""
    x = np.array([w])
    corr = abs(w) + w * w / 2 - P.facets_value(x)
    assert P.scf_value(x, eps) == pytest.approx(P.facets_value(x) + eps * corr, rel=1e-12, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(k=st.integers(0, 20), t=st.floats(0.01, 0.99), mu=st.floats(0.01, 3.0), sign=st.sampled_from([-1, 1]))
def test_prox_facets_returns_exact_integers_on_plateaus(k, t, mu, sign):
    # the plateau at k: |w| in [k (1 + mu), k (1 + mu) + mu]
    w = sign * (k * (1 + mu) + t * mu)
    v = interp_facets.prox_facets(np.array([w]), mu)[0]
    assert v == sign * k and float(v).is_integer()


@settings(max_examples=100, deadline=None)
@given(k=st.integers(1, 20), t=st.floats(0.01, 0.99), mu=st.floats(0.01, 3.0), eps=epss)
def test_prox_scf_returns_exact_integers_on_its_shorter_plateaus(k, t, mu, eps):
    # SCF plateau at k >= 1: |w| in [k + mu (k + eps), k + mu (k + 1)], width mu (1 - eps)
    w = k + mu * (k + eps) + t * mu * (1 - eps)
    assert interp_facets.prox_scf(np.array([w]), mu, eps)[0] == k


def test_prox_is_vectorised_and_odd():
    rng = np.random.default_rng(0)
    w = rng.normal(scale=4, size=(7, 5))
    for fn in (lambda x: interp_facets.prox_facets(x, 0.7), lambda x: interp_facets.prox_scf(x, 0.7, 0.2)):
        out = fn(w)
        assert out.shape == w.shape
        np.testing.assert_array_equal(fn(-w), -out)
        np.testing.assert_array_equal(out.ravel(), np.array([fn(np.array([x]))[0] for x in w.ravel()]))


@pytest.mark.parametrize("name, public", [("facets", P.prox_facets), ("scf", P.prox_scf)])
def test_registered_prox_equals_the_public_one_with_per_coordinate_steps(name, public):
    """The solvers' prox (the public one without its input checks) gives the public prox's
    values exactly, with a step per coordinate, zero steps, zeros and points on the plateaus
    included."""
    pen = {p.name: p for p in P.PENALTIES}[name]
    rng = np.random.default_rng(3)
    for _ in range(200):
        d = int(rng.integers(1, 40))
        w = rng.normal(scale=10 ** rng.uniform(-2, 1.5), size=d)
        w[rng.random(d) < 0.2] = 0.0
        on = rng.random(d) < 0.3
        w[on] = np.round(w[on])
        mu = rng.uniform(0, 2, d) * (rng.random(d) > 0.1)
        np.testing.assert_array_equal(pen.prox(w, mu, **pen.defaults), public(w, mu, **pen.defaults))


def one_sided_derivatives(omega, w, h=1e-7):
    return (omega(w) - omega(w - h)) / h, (omega(w + h) - omega(w)) / h


@pytest.mark.parametrize("name", ["l1", "l2", "elasticnet", "facets", "scf"])
@settings(max_examples=40, deadline=None)
@given(
    w=st.one_of(
        st.integers(-5, 5).map(float),
        st.floats(-5, 5).filter(lambda x: abs(x - round(x)) > 1e-5),  # away from the kinks
    ),
    g=st.floats(-8, 8),
)
def test_subdiff_distance_matches_one_sided_derivatives(name, w, g):
    pen = {p.name: p for p in P.PENALTIES}[name]
    omega = scalar(pen.value, **pen.defaults)
    lo, hi = one_sided_derivatives(omega, w)
    expected = max(lo - (-g), (-g) - hi, 0.0)
    got = float(pen.subdiff_distance(np.array([w]), np.array([g]), **pen.defaults)[0])
    assert got == pytest.approx(expected, abs=1e-4)


def test_scaled_subdiff_distance_is_zero_at_the_prox_fixed_point():
    # v = prox_{mu Omega(./gamma)}(x)  <=>  (x - v) / mu in d[Omega(./gamma)](v)
    rng = np.random.default_rng(3)
    x = rng.normal(scale=3, size=200)
    mu, gamma = 0.4, 0.3
    v = P.prox_scaled(P.prox_facets, x, mu, gamma)
    d = P.subdiff_distance_scaled(P.facets_subdiff_distance, v, -(x - v) / mu, gamma)
    assert np.max(d) <= 1e-7


def test_penalties_are_registered():
    reg = interp.get_registry().penalties
    assert {"facets", "scf", "l1", "l2", "elasticnet"} <= set(reg)
    assert reg["scf"].defaults == {"eps": 0.01}
    assert reg["facets"].plugin == "facets"


def test_builtin_penalties_are_penalty_subclasses_registered_as_instances():
    """skglm's shape: one class per penalty with value, prox and subdiff_distance as methods."""
    reg = interp.get_registry().penalties
    for cls in (P.FacetsPenalty, P.SCFPenalty, P.L1Penalty, P.L2Penalty, P.ElasticNetPenalty):
        assert issubclass(cls, interp.Penalty)
        assert {"value", "prox", "subdiff_distance"} <= set(vars(cls))
        registered = reg[cls.name]
        assert type(registered) is cls and registered.description == cls.__doc__.splitlines()[0]


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.1, 1.5])
def test_bad_eps_is_an_input_error(bad):
    with pytest.raises(interp.InputError, match="eps"):
        interp_facets.prox_scf(np.ones(2), 0.1, bad)


# -- bound penalties --------------------------------------------------------------------------------
@given(w=st.lists(finite, min_size=1, max_size=6), mu=steps.filter(lambda m: m > 0), eps=epss,
       ratio=st.floats(0, 1))
@settings(max_examples=30, deadline=None)
def test_a_bound_penalty_is_the_penalty_called_with_its_hyperparameters(w, mu, eps, ratio):
    """bind fixes the hyperparameters once: value, prox and subdiff_distance take none, and
    agree bit for bit with the unbound methods called with them."""
    w = np.array(w)
    grad = np.linspace(-2, 2, w.size)
    for pen, hyper in ((P.SCF, {"eps": eps}), (P.ELASTICNET, {"l1_ratio": ratio}), (P.FACETS, {})):
        bound = pen.bind(**hyper)
        assert bound.hyper == {**pen.defaults, **hyper}
        assert bound.value(w) == pen.value(w, **hyper)
        np.testing.assert_array_equal(bound.prox(w, mu), pen.prox(w, mu, **hyper))
        np.testing.assert_array_equal(bound.subdiff_distance(w, grad), pen.subdiff_distance(w, grad, **hyper))


def test_bind_checks_the_hyperparameters_once():
    assert P.SCF.bind().hyper == {"eps": 0.01}
    with pytest.raises(interp.InputError, match=r"penalty 'scf' has no parameter 'cap' \(it takes: eps\)"):
        P.SCF.bind(cap=1.0)
    with pytest.raises(interp.InputError, match="eps must be in"):
        P.SCF.bind(eps=1.5)
    with pytest.raises(interp.InputError, match="l1_ratio must be in"):
        P.ELASTICNET.bind(l1_ratio=-0.1)


def test_an_objective_takes_a_bound_penalty_or_a_penalty_and_its_hyperparameters():
    from interp_facets.problem import Objective

    a = Objective("logistic", P.SCF.bind(eps=0.05))
    b = Objective("logistic", P.SCF, {"eps": 0.05})
    assert a.penalty is b.penalty is P.SCF and a.hyper == b.hyper == {"eps": 0.05}
    assert a.bound.hyper == {"eps": 0.05}
    with pytest.raises(interp.InputError, match="bound already"):
        Objective("logistic", P.SCF.bind(eps=0.05), {"eps": 0.1})
    with pytest.raises(interp.InputError, match="penalty must be an interp.Penalty"):
        Objective("logistic", P.prox_facets)


def test_builtin_penalties_declare_what_their_prox_takes_and_keep_it():
    from interp.testing import check_penalty

    for pen in P.PENALTIES:
        assert pen.per_coordinate_steps and pen.any_shape
        check_penalty(pen)  # checks the declarations too
