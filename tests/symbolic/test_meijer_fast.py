"""The z-independent coefficient path of interp_symbolic.meijer: K selection, coefficients,
and a wide random sweep against mpmath (30 digits) including the error estimate."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from scipy.special import digamma, gammaln, gammasgn

from interp_symbolic import meijerg, meijerg_grad
from interp_symbolic.meijer import bounds, coefficients, continuation, scaled, series, strategy
from interp_symbolic.meijer.scaled import ScaleTooWide
from interp_symbolic.meijer.series import Parameters

from .test_meijer import CONFIGS, mp_grad, mp_value, separated_params, split, well_separated


def test_choose_K_exp_series():
    # e^{-w}: terms (-w)^k / k!; at w = 3 the tail beyond K must be below e^-36 of the largest
    K_cap = 200
    k = np.arange(K_cap, dtype=float)
    for w in (0.1, 1.0, 3.0, 20.0):
        g = -gammaln(k + 1) + k * math.log(w)
        with np.errstate(all="ignore"):
            K = bounds.choose_K(g, np.zeros(K_cap, dtype=bool), K_cap, 0.0)
        assert K < K_cap
        # the whole neglected tail is below e^-TAIL_LOG of the largest term, and K is not much
        # longer than needed
        tail = np.logaddexp.reduce(g[K:])
        assert tail < g.max() - bounds.TAIL_LOG + 0.5
        assert np.logaddexp.reduce(g[K - 4:]) > g.max() - 50.0 or K <= 6


def test_choose_K_p_equal_q_uses_the_limit_ratio():
    # p == q: terms ~ k^3 w^k; the ratio tends to w, K must grow like 1 / (1 - w)
    Ks = []
    for w in (0.5, 0.9, 0.97):
        k = np.arange(4000, dtype=float)
        g = 3 * np.log1p(k) + k * math.log(w)
        with np.errstate(all="ignore"):
            K = bounds.choose_K(g, np.zeros(4000, dtype=bool), 4000, w)
        r = w
        assert g[K - 1] + math.log(r / (1 - r)) < g.max() - bounds.TAIL_LOG
        Ks.append(K)
    assert Ks[0] < Ks[1] < Ks[2] < 4000


def test_choose_K_terminating_series():
    g = np.array([0.0, -1.0, -2.0] + [-np.inf] * 45)
    dead = np.array([False] * 3 + [True] * 45)
    with np.errstate(all="ignore"):
        assert bounds.choose_K(g, dead, 48, 0.0) <= 6


@pytest.mark.parametrize("seed", range(6))
def test_smooth_coefficients_match_direct_log_gamma(seed):
    # the recurrence path against gammaln / gammasgn / digamma per (factor, k)
    rng = np.random.default_rng(seed)
    m, n, p, q = CONFIGS[seed]
    a, b = separated_params(rng, m, n, p, q)
    K = 1500
    for h in range(m):
        with np.errstate(all="ignore"):
            co = coefficients.block_coeffs(Parameters(m, n, a, b), h, K, True)
        assert co is not None and not co.has_zeros
        k = np.arange(K, dtype=float)
        bh = b[h]
        L = -gammaln(k + 1)
        S = np.where(np.arange(K) % 2 == 0, 1.0, -1.0)
        D = np.zeros((K, p + q))
        facs = [(b[j] - bh - k, 1, {p + j: 1, p + h: -1}) for j in range(m) if j != h]
        facs += [(1 - a[j] + bh + k, 1, {j: -1, p + h: 1}) for j in range(n)]
        facs += [(1 - b[j] + bh + k, -1, {p + j: -1, p + h: 1}) for j in range(m, q)]
        facs += [(a[j] - bh - k, -1, {j: 1, p + h: -1}) for j in range(n, p)]
        for x, e, cf in facs:
            L += e * gammaln(x)
            S *= gammasgn(x)
            for i, c in cf.items():
                D[:, i] += e * c * digamma(x)
        scale = 1e-13 * (1 + np.abs(L) + np.abs(k * np.log1p(k)))
        assert np.all(np.abs(co.log_mag - L) <= scale)
        assert np.array_equal(co.sign, S)
        np.testing.assert_allclose(co.dlog, D, rtol=1e-9, atol=1e-9)


def generic(params):
    """Every parameter and every difference of two at least 0.01 from an integer (differences
    that are integers up to rounding, e.g. 1e-300, make the float parameters a different
    function than their rounded differences; that is not what this sweep is about)."""
    x = np.asarray(params, dtype=float)
    d = np.concatenate([x, (x[:, None] - x[None, :])[np.triu_indices(len(x), 1)]])
    return bool(np.all(np.abs(d - np.round(d)) >= 0.01))


def _accuracy_case(orders, params, zs):
    m, n, p, q = orders
    a, b = params[:p], params[p:]
    a_s, b_s = split(m, n, a, b)
    z = np.array(zs)
    got, info = meijerg(a_s, b_s, z, return_info=True)
    for zi, gi, fb, est in zip(z, got, info["fallback"], info["rel_error"]):
        ref = mp_value(a_s, b_s, zi)
        err = abs(gi - ref) / max(abs(ref), 1e-300)
        assert err <= 1e-8, (a_s, b_s, zi, gi, ref)
        if not fb:  # the fast path's estimate must not be optimistic
            assert err <= 10 * est + 1e-13, (a_s, b_s, zi, err, est)



@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(-300.0, 300.0), st.sampled_from([-1.0, 1.0])), min_size=1, max_size=5),
       st.sampled_from([97, 128, 1000, 1601]))
def test_smooth_signs_match_gammasgn(factors, K):
    # the strided sign flips against sign Gamma per (factor, k), far-off offsets included
    off = np.array([o for o, _ in factors])
    slope = np.array([s for _, s in factors])
    k = np.arange(K, dtype=float)
    X = off[:, None] + slope[:, None] * k
    assume(not (X == np.round(X)).any())  # (no argument rounded onto a pole)
    ref = np.where(np.arange(K) % 2 == 0, 1.0, -1.0) * np.prod(gammasgn(X), axis=0)
    np.testing.assert_array_equal(coefficients._smooth_signs(off, slope, K), ref)
    fa = series.residue_factors(Parameters(1, 1, off[:1], np.array([0.5, 0.25, 0.125])), 0)  # integral flag
    assert fa.integral == bool((fa.offset == np.round(fa.offset)).any())


@pytest.mark.parametrize("orders", CONFIGS + [(3, 2, 4, 5)])
def test_factor_layout_is_the_derivative_of_the_offsets(orders):
    # the cached d offset / d theta against the offsets moved by one parameter at a time
    # (offsets are linear in theta; dyadic values keep the differences exact)
    m, n, p, q = orders
    theta = np.arange(1, p + q + 1) / 8.0 + 1 / 64
    for h in range(m):
        fa = series.residue_factors(Parameters(m, n, theta[:p], theta[p:]), h)
        assert len(fa) == p + q - 1 and set(fa.slope * fa.power) <= {-1.0, 1.0}
        for i in range(p + q):
            moved = theta + (np.arange(p + q) == i) / 4.0
            diff = series.residue_factors(Parameters(m, n, moved[:p], moved[p:]), h).offset - fa.offset
            np.testing.assert_array_equal(diff, fa.coef[:, i] / 4.0)


@pytest.mark.parametrize("seed", range(4))
def test_first_length_block_same_as_full_cap(seed):
    # p == q: the block from the first ``first_length`` coefficients equals the one from Kcap
    rng = np.random.default_rng(seed)
    a, b = separated_params(rng, 2, 2, 3, 3)
    par = Parameters(2, 2, a, b)
    logw = np.log(rng.uniform(0.05, 0.95 - 0.1 * seed, 50))
    pts = scaled.ScaledPoints.of(logw, True)
    Kcap = strategy.K_SCHEDULE[strategy.start_level(float(logw.max()), True)]
    assert scaled.first_length(pts, Kcap) < Kcap or Kcap <= coefficients.SHORT_SERIES
    with np.errstate(all="ignore"):
        for h in range(2):
            lean = scaled._block(par, h, pts, Kcap, False, {})
            full = scaled._scaled_block(coefficients.block_coeffs(par, h, Kcap, False), b[h], h, pts, Kcap, False)
            assert lean.K == full.K and lean.Mh == full.Mh
            np.testing.assert_array_equal(lean.C, full.C)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(st.sampled_from(CONFIGS), st.lists(st.floats(-1.5, 1.5), min_size=6, max_size=6),
       st.lists(st.floats(0.02, 0.97), min_size=3, max_size=3), st.booleans())
def test_hypothesis_random_parameters_all_configs(orders, raw, zs, invert):
    m, n, p, q = orders
    params = raw[:p + q]
    assume(well_separated(m, n, params[:p], params[p:]) and generic(params))
    if invert:  # arguments above 1 (the 1/z expansion for p >= q)
        zs = [1.0 / z for z in zs] if p == q else [3.0 * z for z in zs]
    _accuracy_case(orders, params, zs)


def test_p_equal_q_close_to_one_stays_fast():
    # z in (0.9, 0.97): long series (hundreds to thousands of terms), no mpmath
    a_s, b_s = [[0.2, 0.7], [1.1]], [[0.4, 1.3], [0.9]]
    z = np.linspace(0.9, 0.97, 15)
    val, info = meijerg(a_s, b_s, z, return_info=True)
    assert not info["fallback"].any()
    ref = np.array([mp_value(a_s, b_s, zi) for zi in z])
    np.testing.assert_allclose(val, ref, rtol=1e-9)


def test_grouped_points_same_as_one_by_one():
    # the grouping by argument (p == q) and the common scale must not change any value
    a_s, b_s = [[0.3], [-0.4]], [[0.8], [0.1]]
    rng = np.random.default_rng(3)
    z = np.concatenate([rng.uniform(0.01, 0.95, 200), rng.uniform(1.05, 30, 50)])
    together = meijerg(a_s, b_s, z)
    alone = np.array([meijerg(a_s, b_s, np.array([zi]))[0] for zi in z[::10]])
    np.testing.assert_allclose(together[::10], alone, rtol=1e-11)


def test_wide_range_of_arguments_uses_a_safe_scale():
    # 1e-6 .. 30 for a p < q function: one common scale would underflow the small points
    a_s, b_s = [[], []], [[0.3], [0.8]]
    z = np.array([1e-6, 1e-3, 0.5, 30.0])
    val = meijerg(a_s, b_s, z)
    ref = [mp_value(a_s, b_s, zi) for zi in z]
    np.testing.assert_allclose(val, ref, rtol=1e-9)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(st.sampled_from(CONFIGS), st.lists(st.floats(-1.5, 1.5), min_size=6, max_size=6),
       st.floats(0.1, 0.85))
def test_hypothesis_gradients(orders, raw, z):
    m, n, p, q = orders
    params = raw[:p + q]
    a, b = params[:p], params[p:]
    assume(well_separated(m, n, a, b) and generic(params))
    a_s, b_s = split(m, n, a, b)
    val, ga, gb, gz = meijerg_grad(a_s, b_s, np.array([z]))
    ref = mp_grad(a_s, b_s, z)
    ours = np.concatenate([ga[:, 0], gb[:, 0], gz])
    assert np.max(np.abs(ours - ref)) <= 1e-6 * max(np.max(np.abs(ref)), 1e-12)


@pytest.mark.parametrize("orders", CONFIGS)
def test_seeded_sweep_against_mpmath(orders):
    # 15 random generic parameter sets per configuration, arguments over both expansions
    m, n, p, q = orders
    rng = np.random.default_rng(1000 + sum(orders))
    done = 0
    while done < 15:
        params = rng.uniform(-1.5, 1.5, p + q)
        if not (well_separated(m, n, params[:p], params[p:]) and generic(params)):
            continue
        zs = [0.03, 0.4, 0.8, 0.93] + ([1.1, 2.5] if p == q else [1.7, 3.0])
        _accuracy_case(orders, params, zs)
        done += 1


def test_log_space_path_gives_the_same(monkeypatch):
    # points spanning too many orders of magnitude for one scale take the per-point log-space
    # sum; force it everywhere and compare
    a_s, b_s = [[0.3], [-0.4]], [[0.8], [0.1]]
    z = np.array([0.05, 0.5, 0.9, 1.3, 4.0])
    fast = meijerg_grad(a_s, b_s, z)

    def too_wide(*args):
        raise ScaleTooWide

    monkeypatch.setattr(strategy, "sum_scaled", too_wide)
    slow = meijerg_grad(a_s, b_s, z)
    for f, s in zip(fast, slow):
        np.testing.assert_allclose(f, s, rtol=1e-9, atol=1e-12)


def test_grouping_choice_does_not_change_values(monkeypatch):
    # p == q: one pass for all points (the default at this size) or one pass per group of
    # arguments (forced) must agree
    a_s, b_s = [[0.3], [-0.4]], [[0.8], [0.1]]
    z = np.random.default_rng(4).uniform(0.01, 0.97, 300)
    one, info1 = meijerg(a_s, b_s, z, return_info=True)
    assert strategy.groups(np.log(z), True) == [None]
    monkeypatch.setattr(strategy, "GROUP_SAVE", 0.0)
    assert len(strategy.groups(np.log(z), True)) > 1
    grouped, info2 = meijerg(a_s, b_s, z, return_info=True)
    ok = ~info1["fallback"] & ~info2["fallback"]
    assert ok.sum() > 250
    np.testing.assert_allclose(one[ok], grouped[ok], rtol=1e-11)


def test_coefficient_cache_is_transparent():
    # the coefficients are memoised per parameter set: same results with a cold or warm cache,
    # different parameters never share an entry, and cached arrays cannot be modified
    a_s, b_s = [[0.25, -0.3], [0.6]], [[0.1, -1.2], [0.7]]
    z = np.random.default_rng(5).uniform(0.02, 0.9, 100)
    cache = coefficients.cached_block_coeffs
    cache.cache_clear()
    cold = meijerg_grad(a_s, b_s, z)
    computed = cache.cache_info().misses
    assert computed > 0
    warm = meijerg_grad(a_s, b_s, z)
    assert cache.cache_info().misses == computed  # the warm call computed no coefficients
    for c, w in zip(cold, warm):
        np.testing.assert_array_equal(c, w)
    other = meijerg(a_s, [[0.1, -1.1], [0.7]], z)
    assert np.max(np.abs(other - cold[0])) > 1e-6
    # (values alone continue the points the residue sums do not certify along the differential
    # equation; with the gradient those go to mpmath: the same to rounding)
    np.testing.assert_allclose(meijerg(a_s, b_s, z), cold[0], rtol=1e-12)
    cache.cache_clear()
    value_cold = meijerg(a_s, b_s, z)
    np.testing.assert_array_equal(meijerg(a_s, b_s, z), value_cold)
    par = Parameters.from_mpmath(a_s, b_s)
    co = cache(par, 0, 48, True)
    assert cache(Parameters.from_mpmath(a_s, b_s), 0, 48, True) is co  # equal parameters, one entry
    with pytest.raises(ValueError):
        co.log_mag[0] = 0.0


@pytest.mark.parametrize("orders,a_s,b_s,z", [
    ((1, 0, 0, 2), [[], []], [[0.3], [-0.7]], (0.05, 3.0)),
    ((0, 1, 3, 1), [[0.2], [0.9, -0.4]], [[], [1.1]], (0.05, 3.0)),
    ((1, 1, 2, 2), [[0.35], [-0.45]], [[0.15], [0.8]], (0.05, 0.9)),
    ((1, 1, 2, 2), [[0.35], [-0.45]], [[0.15], [0.8]], (1.2, 20.0)),
    ((1, 1, 2, 2), [[0.35], [-0.45]], [[0.15], [0.8]], (0.05, 20.0)),
])
def test_shortcut_without_info_gives_the_same(orders, a_s, b_s, z):
    # without return_info, points all on one side take a shortcut: same values and gradients
    zz = np.random.default_rng(6).uniform(*z, 64).reshape(8, 8)
    v_info, _ = meijerg(a_s, b_s, zz, return_info=True)
    np.testing.assert_array_equal(meijerg(a_s, b_s, zz), v_info)
    g_info = meijerg_grad(a_s, b_s, zz, return_info=True)[:-1]
    for x, y in zip(meijerg_grad(a_s, b_s, zz), g_info):
        assert x.shape == y.shape
        np.testing.assert_array_equal(x, y)


def test_parameter_sets_are_keyed_bit_for_bit():
    # the coefficient cache is keyed by the parameters' bits: equal arrays share an entry,
    # 0.0 and -0.0 (or values one ulp apart) do not; the arrays are copies and read-only
    b = np.array([0.0, 0.5])
    par = Parameters(1, 0, [], b)
    b[1] = 9.0
    assert par.b[1] == 0.5 and not par.b.flags.writeable
    same = Parameters(1, 0, [], [0.0, 0.5])
    assert par == same and hash(par) == hash(same)
    assert par != Parameters(1, 0, [], [-0.0, 0.5])
    assert par != Parameters(1, 0, [], [0.0, np.nextafter(0.5, 1.0)])
    assert par != Parameters(0, 1, [], [0.0, 0.5]) and par.mirrored() == Parameters(0, 1, [1.0, 0.5], [])


@pytest.mark.parametrize("orders", [(1, 0, 0, 2), (0, 1, 3, 1), (2, 1, 2, 3), (2, 2, 3, 3), (2, 0, 1, 3)])
def test_continuation_agrees_with_the_residue_series(orders):
    # the Taylor series in log w along the differential equation, from its anchor, against the
    # residue sums where both certify their values
    m, n, p, q = orders
    a, b = separated_params(np.random.default_rng(40 + sum(orders)), m, n, p, q)
    side = Parameters(m, n, a, b)
    side = side if p <= q else side.mirrored()
    logw = np.log(np.linspace(0.3, 0.8, 11))
    lw0 = math.log(continuation.ANCHOR_W if p == q else continuation.RESCUE_ANCHOR_W)
    with np.errstate(all="ignore"):
        cont = continuation.continued(side, logw, lw0)
        series = strategy.adaptive(side, logw, False)
    ok = (cont.rel < 1e-10) & (series.rel < 1e-10)
    assert ok.sum() >= 8
    np.testing.assert_allclose(cont.val[ok], series.val[ok], rtol=1e-10)


def test_continuation_only_where_the_equation_allows():
    # p == q with sigma = +1 is singular at w = 1: never continued; sigma = -1 and p != q are
    assert not continuation.continuable(Parameters(1, 1, [0.35, -0.45], [0.15, 0.8]))
    assert continuation.continuable(Parameters(2, 2, [0.1, 0.2, 0.3], [0.4, 0.5, 0.6]))
    assert continuation.continuable(Parameters(2, 0, [0.1], [0.4, 0.5, 0.6]))


def test_large_products_run_on_one_blas_thread():
    # from the size at which OpenBLAS would split a product over threads, the scaled sum's
    # products run on one (threads stall on a busy machine); below it the setting is untouched
    from threadpoolctl import threadpool_info

    def blas_threads():
        return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]

    before = blas_threads()
    with scaled._one_blas_thread(scaled.BLAS_THREADS_FROM - 1):
        assert blas_threads() == before
    with scaled._one_blas_thread(scaled.BLAS_THREADS_FROM):
        assert all(t == 1 for t in blas_threads())
    assert blas_threads() == before
