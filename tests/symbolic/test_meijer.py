"""Meijer G values and gradients against mpmath (30 digits)."""

import math

import mpmath
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interp_symbolic import meijerg, meijerg_grad

CONFIGS = [(1, 0, 0, 2), (0, 1, 3, 1), (2, 1, 2, 3), (2, 2, 3, 3), (2, 0, 1, 3), (1, 1, 2, 2)]


def split(m, n, a, b):
    return [list(a[:n]), list(a[n:])], [list(b[:m]), list(b[m:])]


def mp_value(a_s, b_s, z):
    with mpmath.workdps(30):
        return float(mpmath.meijerg(a_s, b_s, z))


def mp_grad(a_s, b_s, z):
    n, m = len(a_s[0]), len(b_s[0])
    th = [*a_s[0], *a_s[1], *b_s[0], *b_s[1], z]
    p = len(a_s[0]) + len(a_s[1])

    def f(i):
        def g(t):
            x = list(th)
            x[i] = t
            aa, bb = x[:p], x[p:-1]
            return mpmath.meijerg([aa[:n], aa[n:]], [bb[:m], bb[m:]], x[-1])
        return g

    with mpmath.workdps(30):
        return np.array([float(mpmath.diff(f(i), th[i])) for i in range(len(th))])


def well_separated(m, n, a, b):
    first = list(b[:m])
    for i in range(m):
        for j in range(i + 1, m):
            d = first[j] - first[i]
            if abs(d - round(d)) < 0.05:
                return False
    for j in range(n):  # a_j - b_h must stay away from positive integers
        for h in range(m):
            d = a[j] - b[h]
            if d > 0.5 and abs(d - round(d)) < 0.05:
                return False
    firsta = list(a[:n])
    for i in range(n):
        for j in range(i + 1, n):
            d = firsta[j] - firsta[i]
            if abs(d - round(d)) < 0.05:
                return False
    return True


def separated_params(rng, m, n, p, q):
    """Random a (p,) and b (q,) in [-1.5, 1.5], drawn until well separated."""
    while True:
        a, b = rng.uniform(-1.5, 1.5, p), rng.uniform(-1.5, 1.5, q)
        if well_separated(m, n, a, b):
            return a, b


@pytest.mark.parametrize("orders", CONFIGS)
def test_values_match_mpmath(orders):
    m, n, p, q = orders
    rng = np.random.default_rng(sum(orders))
    checked = 0
    while checked < 6:
        a_s, b_s = split(m, n, *separated_params(rng, m, n, p, q))
        z = np.array([0.05, 0.3, 0.7, 1.6, 3.0])
        got = meijerg(a_s, b_s, z)
        for zi, gi in zip(z, got):
            ref = mp_value(a_s, b_s, zi)
            assert abs(gi - ref) <= 1e-8 * abs(ref) + 1e-300, (a_s, b_s, zi, gi, ref)
        checked += 1


@pytest.mark.parametrize("orders", CONFIGS)
def test_fast_path_is_used_away_from_special_points(orders):
    m, n, p, q = orders
    rng = np.random.default_rng(7 + sum(orders))
    a_s, b_s = split(m, n, *separated_params(rng, m, n, p, q))
    z = np.linspace(0.05, 0.6, 40)
    _, info = meijerg(a_s, b_s, z, return_info=True)
    assert info["fallback"].mean() < 0.1


@pytest.mark.parametrize("orders", CONFIGS)
def test_gradients_match_mpmath_diff(orders):
    m, n, p, q = orders
    rng = np.random.default_rng(100 + sum(orders))
    a_s, b_s = split(m, n, *separated_params(rng, m, n, p, q))
    z = np.array([0.35, 2.2])
    val, ga, gb, gz = meijerg_grad(a_s, b_s, z)
    for i, zi in enumerate(z):
        ref = mp_grad(a_s, b_s, zi)
        ours = np.concatenate([ga[:, i], gb[:, i], [gz[i]]])
        assert np.max(np.abs(ours - ref)) <= 1e-6 * max(np.max(np.abs(ref)), 1e-12)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(st.lists(st.floats(-1.5, 1.5), min_size=4, max_size=4), st.floats(0.02, 4.0))
def test_hypothesis_2013(params, z):
    a, b = params[:1], params[1:]
    if not well_separated(2, 0, a, b):
        return
    a_s, b_s = split(2, 0, a, b)
    got = float(meijerg(a_s, b_s, np.array([z]))[0])
    ref = mp_value(a_s, b_s, z)
    assert abs(got - ref) <= 1e-8 * abs(ref) + 1e-300


def test_paper_initial_point_coincident_parameters():
    # a = (2, 2, 2), b = (1): G^{0,1}_{3,1} is exactly z; the series terminates (1/Gamma zeros)
    z = np.array([0.1, 0.5, 0.9, 1.7])
    val, info = meijerg([[2.0], [2.0, 2.0]], [[], [1.0]], z, return_info=True)
    np.testing.assert_allclose(val, z, rtol=1e-14)
    assert not info["fallback"].any()
    # its gradient uses the limit d/dx 1/Gamma(x) at a pole; compare with a nearby mpmath point
    v, ga, gb, gz = meijerg_grad([[2.0], [2.0, 2.0]], [[], [1.0]], np.array([0.4]))
    np.testing.assert_allclose(gz, [1.0], rtol=1e-12)
    ref = mp_grad([[2.0 + 1e-7], [2.0, 2.0]], [[], [1.0]], 0.4)
    np.testing.assert_allclose(np.concatenate([ga[:, 0], gb[:, 0]]), ref[:4], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("b2", [1.0, 1.0 + 1e-6, 1.0 + 3e-4, 2.0])
def test_integer_spaced_poles_are_perturbed_or_fall_back(b2):
    # b_1 - b_2 an integer (or nearly): Slater's sum is singular; the answer must still be right
    a_s, b_s = [[], [1.5]], [[0.0, b2], [0.5]]
    z = np.array([0.2, 0.7, 1.6])
    val, info = meijerg(a_s, b_s, z, return_info=True)
    ref = [mp_value(a_s, b_s, zi) for zi in z]
    np.testing.assert_allclose(val, ref, rtol=1e-8)
    if b2 in (1.0, 2.0):
        assert info["perturbed"].all()


def test_perturbed_gradient():
    a_s, b_s = [[], [1.5]], [[0.0, 1.0], [0.5]]
    v, ga, gb, gz = meijerg_grad(a_s, b_s, np.array([0.6]))
    ref = mp_grad(a_s, b_s, 0.6)
    ours = np.concatenate([ga[:, 0], gb[:, 0], gz])
    assert np.max(np.abs(ours - ref)) <= 1e-6 * np.max(np.abs(ref))


def test_near_unit_circle_is_continued_and_right():
    # (2,2,3,3): G is analytic at z = 1, where both residue series crawl and cancel; the values
    # are continued along the differential equation, with no mpmath
    a_s, b_s = [[1.0, 1.2], [3.0]], [[3.3, 0.4], [1.5]]
    z = np.array([0.999, 1.0, 1.001])
    val, info = meijerg(a_s, b_s, z, return_info=True)
    ref = [mp_value(a_s, b_s, zi) for zi in z]
    np.testing.assert_allclose(val, ref, rtol=1e-10)
    assert not info["fallback"].any()


def test_singular_unit_circle_falls_back_and_is_right():
    # (1,1,2,2): z = 1 is a singular point; close to it the points go to mpmath
    a_s, b_s = [[0.35], [-0.45]], [[0.15], [0.8]]
    z = np.array([0.9999, 1.0001])
    val, info = meijerg(a_s, b_s, z, return_info=True)
    np.testing.assert_allclose(val, [mp_value(a_s, b_s, zi) for zi in z], rtol=1e-8)
    assert info["fallback"].all()


def test_cancellation_and_overflow_are_never_silent():
    # K_0-like G^{2,0}_{0,2}(0.25, -0.25 | z) for large z: the series cancels catastrophically
    a_s, b_s = [[], []], [[0.25, -0.25], []]
    z = np.array([2.0, 400.0])
    val, info = meijerg(a_s, b_s, z, return_info=True)
    ref = [mp_value(a_s, b_s, zi) for zi in z]
    np.testing.assert_allclose(val, ref, rtol=1e-8)
    assert info["fallback"][1]
    # growing function: exp-like G^{1,0}_{0,2}(0; 0.5 | -) is oscillatory; 1/Gamma-type growth
    big = meijerg([[], []], [[0.0], [0.5]], np.array([1e6]))
    ref_big = mp_value([[], []], [[0.0], [0.5]], 1e6)
    assert math.isclose(big[0], ref_big, rel_tol=1e-8, abs_tol=1e-12)


def test_max_fallback_returns_nan_not_a_wrong_number():
    a_s, b_s = [[0.35], [-0.45]], [[0.15], [0.8]]
    z = np.array([0.3, 0.9999, 1.0001, 0.9998])
    val = meijerg(a_s, b_s, z, max_fallback=1)
    assert np.isfinite(val[0]) and np.isnan(val[1:]).all()


def test_rejects_nonpositive_z():
    with pytest.raises(ValueError):
        meijerg([[], []], [[0.0], []], np.array([0.0, 1.0]))


PAPER_CONFIGS = [(1, 0, 0, 2), (0, 1, 3, 1), (2, 1, 2, 3), (2, 2, 3, 3), (2, 0, 1, 3)]
# arguments over (0, 4] without |z - 1| < 0.05, dense where close poles used to fall back
CLOSE_Z = np.array([0.02, 0.3, 0.64, 0.75, 0.84, 0.92, 0.95, 1.05, 1.15, 1.3, 1.8, 2.5, 3.2, 4.0])


def close_pole_params(rng, m, n, p, q):
    """a, b uniform in [-1.5, 1.5] with the first two first-group b's (the poles of the z
    expansion) and the first two first-group a's (those of the 1/z expansion) 0.02 to 0.2 apart."""
    a, b = rng.uniform(-1.5, 1.5, p), rng.uniform(-1.5, 1.5, q)
    for v, k in ((b, m), (a, n)):
        if k >= 2:
            gap = rng.uniform(0.02, 0.2) * rng.choice([-1.0, 1.0])
            v[1] = v[0] + gap if abs(v[0] + gap) <= 1.5 else v[0] - gap
    return a, b


@pytest.mark.parametrize("orders", [c for c in PAPER_CONFIGS if max(c[0], c[1]) >= 2])
def test_close_poles_need_no_mpmath(orders):
    m, n, p, q = orders
    # (a point where G is close to a zero may still need mpmath: there a relative error of
    # 1e-8 asks for more than double precision; at most one such point of the 42)
    rng = np.random.default_rng(20 + sum(orders))
    fallbacks = 0
    for _ in range(3):
        a_s, b_s = split(m, n, *close_pole_params(rng, m, n, p, q))
        val, info = meijerg(a_s, b_s, CLOSE_Z, return_info=True)
        fallbacks += int(info["fallback"].sum())
        assert fallbacks <= 1, (a_s, b_s, CLOSE_Z[info["fallback"]])
        for zi, gi, est, fb in zip(CLOSE_Z, val, info["rel_error"], info["fallback"]):
            ref = mp_value(a_s, b_s, zi)
            err = abs(gi - ref) / abs(ref)
            assert err <= 1e-8, (a_s, b_s, zi, gi, ref)
            if not fb:  # the estimate is not optimistic
                assert err <= 10 * est + 1e-13, (a_s, b_s, zi, err, est)


def test_issue_close_b_poles_2233():
    # the issue's case: (2,2,3,3) with two b-poles 0.08 apart sent the points with z in
    # (0.64, 0.92) to mpmath
    a_s, b_s = [[-0.6, 0.55], [1.1]], [[0.3, 0.38], [-0.9]]
    z = np.linspace(0.64, 0.92, 100)
    val, info = meijerg(a_s, b_s, z, return_info=True)
    assert not info["fallback"].any()
    ref = np.array([mp_value(a_s, b_s, zi) for zi in z[::11]])
    np.testing.assert_allclose(val[::11], ref, rtol=1e-9)


@settings(max_examples=12, deadline=None)
@given(st.sampled_from([c for c in PAPER_CONFIGS if max(c[0], c[1]) >= 2]), st.integers(0, 2**32 - 1),
       st.floats(0.02, 0.2), st.floats(0.01, 4.0).filter(lambda x: abs(x - 1.0) >= 0.05))
def test_hypothesis_close_poles(orders, seed, gap, z):
    m, n, p, q = orders
    a, b = close_pole_params(np.random.default_rng(seed), m, n, p, q)
    for v, k in ((b, m), (a, n)):  # the gap hypothesis chose, either side
        if k >= 2:
            v[1] = v[0] + gap if abs(v[0] + gap) <= 1.5 else v[0] - gap
    a_s, b_s = split(m, n, a, b)
    got, info = meijerg(a_s, b_s, np.array([z]), return_info=True)
    ref = mp_value(a_s, b_s, z)
    assert abs(got[0] - ref) <= 1e-8 * abs(ref), (a_s, b_s, z, got[0], ref, info)
