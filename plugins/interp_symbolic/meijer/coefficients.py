"""The z-independent coefficients c_k of one residue series, in log space, with error bounds.

Term k of the series at the poles b_h + k is ``sign[k] * exp(log_mag[k]) * w^(b_h + k)`` (see
``series``).  For short series log Gamma is evaluated per (factor, k).  For long ones log|c_k|
comes from its value at k = 0 and the exact ratios of successive terms, so the large log Gamma
values, which cancel for p == q, are never formed; digamma is exact every ``ANCHOR`` terms and
psi(x + 1) = psi(x) + 1 / x in between.  A reciprocal Gamma at a pole (a zero of the term) is
handled exactly, together with the derivative of such a term.  The coefficients depend on the
parameters only and are memoised per parameter set (``cached_block_coeffs``).
"""

from __future__ import annotations

import math
from functools import lru_cache

import attrs
import numpy as np
from scipy.special import digamma, gammaln, gammasgn

from .series import GammaFactors, Parameters, is_pole, residue_factors

SHORT_SERIES = 96  # up to this many terms log Gamma per (factor, k) beats the recurrences' overhead
ANCHOR = 32  # gradient: exact digamma every ANCHOR terms, the recurrence in between
RUNNING_SUM_BLOCK = 64  # log|c_k| is summed from its ratios in blocks this long (small local sums)
SMALL_LOG_ARGUMENT = -0.5  # below this u, log|1 + u| directly instead of log1p(u)
TABLE_CACHE = 64  # parameter-independent tables kept (one per series length)
COEFF_CACHE = 64  # parameter sets whose coefficients are kept


def _read_only(*arrays):
    for v in arrays:
        v.setflags(write=False)


@attrs.frozen(eq=False)
class KTables:
    """k, -log k! and (-1)^k for k < K (read-only)."""

    k: np.ndarray
    log_weight: np.ndarray
    sign: np.ndarray


@lru_cache(maxsize=TABLE_CACHE)
def k_tables(K: int) -> KTables:
    k = np.arange(K, dtype=float)
    t = KTables(k, -gammaln(k + 1.0), np.where(np.arange(K) % 2 == 0, 1.0, -1.0))
    _read_only(t.k, t.log_weight, t.sign)
    return t


@lru_cache(maxsize=TABLE_CACHE)
def _log_k(K: int) -> np.ndarray:
    """log k for k = 1..K-2 (read-only)."""
    v = np.log(k_tables(K).k[1:K - 1])
    _read_only(v)
    return v


@lru_cache(maxsize=TABLE_CACHE)
def _log1p_inv_k(K: int) -> np.ndarray:
    """log(1 + 1/k) for k = 1..K-2 (read-only)."""
    v = np.log1p(1.0 / k_tables(K).k[1:K - 1])
    _read_only(v)
    return v


@lru_cache(maxsize=TABLE_CACHE)
def _no_zeros(K: int) -> np.ndarray:
    """Zero counts of a series without reciprocal-Gamma zeros (read-only, shared)."""
    v = np.zeros(K, dtype=int)
    _read_only(v)
    return v


@lru_cache(maxsize=TABLE_CACHE)
def _never_dead(K: int) -> np.ndarray:
    v = np.zeros(K, dtype=bool)
    _read_only(v)
    return v


@attrs.frozen(eq=False)
class ZeroLimits:
    """For terms with exactly one vanishing 1/Gamma factor: the derivative of the term is
    ``sign * exp(log_mag + log) * coef`` (d/dx 1/Gamma(x) at x = -r is (-1)^r r!)."""

    log: np.ndarray
    sign: np.ndarray
    coef: np.ndarray


@attrs.frozen(eq=False)
class BlockCoeffs:
    """The coefficients of one residue series for k < K (every array read-only).

    Term k is ``sign[k] exp(log_mag[k]) w^(b_h + k)`` where ``n_zeros[k] == 0``; ``n_zeros``
    counts its vanishing 1/Gamma factors, ``dead[k]`` marks a zero that persists for every
    larger k (the series terminates).  ``log_err`` bounds the absolute error of log_mag in units
    of eps and ``log_bound`` is |log_mag| + log_err.  ``dlog`` (K, P) holds d log|term| / d(a, b)
    (digamma factors, without the log w of b_h; None without gradient) and ``limits`` the
    derivative of the terms with one zero (None if there are none or without gradient).
    """

    K: int
    log_mag: np.ndarray
    sign: np.ndarray
    log_err: np.ndarray
    n_zeros: np.ndarray
    dead: np.ndarray
    dlog: np.ndarray | None
    limits: ZeroLimits | None = None
    has_zeros: bool = False
    log_bound: np.ndarray = attrs.field(init=False)

    def __attrs_post_init__(self):
        object.__setattr__(self, "log_bound", np.abs(self.log_mag) + self.log_err)
        for v in (self.log_mag, self.sign, self.log_err, self.n_zeros, self.dead, self.dlog, self.log_bound):
            if v is not None:
                v.setflags(write=False)  # (a no-op on the shared read-only tables)
        if self.limits is not None:
            _read_only(self.limits.log, self.limits.sign, self.limits.coef)


def block_coeffs(par: Parameters, h: int, K: int, want_grad: bool) -> BlockCoeffs | None:
    """Coefficients of the series at the poles b_h + k, k < K; None when a numerator Gamma
    sits at a pole (coincident poles or an improper contour)."""
    P = par.p + par.q
    fa = residue_factors(par, h)
    t = k_tables(K)
    if not len(fa):
        return BlockCoeffs(K, t.log_weight, t.sign, np.abs(t.log_weight), _no_zeros(K), _never_dead(K),
                           np.zeros((K, P)) if want_grad else None)
    if not fa.integral:  # no Gamma argument can be a pole: recurrences
        if K <= SHORT_SERIES:
            return _smooth_short(fa, K, want_grad)
        return _smooth_long(fa, K, want_grad)
    return _with_zeros(fa, K, want_grad)


@lru_cache(maxsize=COEFF_CACHE)
def cached_block_coeffs(par: Parameters, h: int, K: int, want_grad: bool) -> BlockCoeffs | None:
    """``block_coeffs`` memoised on the parameters (they alone determine the coefficients):
    repeated calls with the same parameters, e.g. an optimiser's line search, skip this work."""
    return block_coeffs(par, h, K, want_grad)


def _smooth_short(fa: GammaFactors, K: int, want_grad: bool) -> BlockCoeffs:
    """No argument at a pole, short series: log Gamma, its sign and digamma per (factor, k);
    ``log_err`` is the worst case of the sum."""
    t = k_tables(K)
    X = fa.offset[:, None] + fa.slope[:, None] * t.k[None, :]
    lg = gammaln(X)
    # (the ufuncs' reductions directly: what .sum / np.prod call, without their wrappers)
    log_err = np.add.reduce(np.abs(lg), axis=0) - t.log_weight + 1.0
    sign = t.sign * np.multiply.reduce(gammasgn(X), axis=0)
    dlog = digamma(X).T @ (fa.power[:, None] * fa.coef) if want_grad else None
    return BlockCoeffs(K, t.log_weight + fa.power @ lg, sign, log_err, _no_zeros(K), _never_dead(K), dlog)


def _smooth_long(fa: GammaFactors, K: int, want_grad: bool) -> BlockCoeffs:
    """No argument at a pole, K > SHORT_SERIES: log|c_k| from the ratios of successive terms
    (``_ratio_steps``, ``_running_sum``), signs by parity, digamma anchored."""
    Kp = -(-K // ANCHOR) * ANCHOR
    mags = _running_sum(_ratio_steps(fa, K), K)
    sign = _smooth_signs(fa.offset, fa.slope, K)
    dlog = None
    if want_grad:
        X = fa.offset[:, None] + fa.slope[:, None] * k_tables(Kp).k[None, :]
        # step k -> k + 1: slope +1: Gamma(x + 1) = x Gamma(x); slope -1: Gamma(x - 1) = Gamma(x) / (x - 1)
        Y = X - (fa.slope < 0)[:, None]
        psi = _anchored(digamma, X, fa.slope[:, None] / Y)
        dlog = psi[:, :K].T @ (fa.power[:, None] * fa.coef)
    return BlockCoeffs(K, mags.log_mag, sign, mags.log_err, _no_zeros(K), _never_dead(K), dlog)


@attrs.frozen(eq=False)
class RatioSteps:
    """log|c_0| (``start``), log|c_{k+1} / c_k| (``step``) and each step's worst-case rounding
    in units of eps (``err``)."""

    start: float
    step: np.ndarray
    err: np.ndarray


def _ratio_steps(fa: GammaFactors, K: int) -> RatioSteps:
    """For k >= 1 the factor |Y| = k |1 + c/k|, so log(ratio) = net log k + sum_f s_f log|1 + c_f/k|
    - log(1 + 1/k): no large Gamma values and no rounded off + k (whose rounding repeats within
    a binade and would drift); for p == q (net = 0) every step is small and accurate."""
    off, slope, e = fa.offset, fa.slope, fa.power
    F = off.shape[0]
    s_f = e * slope  # +1: |Y| in the numerator of the ratio, -1: in the denominator
    c_f = np.where(slope > 0, off, 1.0 - off)  # |Y| = |k + c_f|
    net = float(s_f.sum()) - 1.0
    num = den = 1.0
    for cf, sf in zip(c_f.tolist(), s_f.tolist()):
        if sf > 0:
            num *= abs(cf)
        else:
            den *= abs(cf)
    step = np.empty(K - 1)
    stepabs = np.empty(K - 1)
    step[0] = math.log(num / den)
    stepabs[0] = 2.0 * F + 4.0 + abs(step[0])
    u = c_f[:, None] / k_tables(K).k[1:K - 1][None, :]
    lu = np.log1p(u)
    low = u <= SMALL_LOG_ARGUMENT
    if low.any():  # 1 + u near or below 0 (small k only): log|1 + u| directly
        lu[low] = np.log(np.abs(1.0 + u[low]))
    lk, l1 = _log_k(K), _log1p_inv_k(K)
    step[1:] = net * lk + s_f @ lu - l1
    stepabs[1:] = (F + 3.0) * (abs(net) * lk + np.abs(lu).sum(axis=0) + l1)
    return RatioSteps(float(e @ gammaln(off)), step, stepabs)


@attrs.frozen(eq=False)
class LogMagnitudes:
    """log|c_k| and its absolute error bound in units of eps."""

    log_mag: np.ndarray
    log_err: np.ndarray


def _running_sum(steps: RatioSteps, K: int) -> LogMagnitudes:
    """log|c_k| = L0 + the running sum of the steps, in blocks of RUNNING_SUM_BLOCK (the local
    sums stay small, so do their roundings), with its error bound in units of eps: the start,
    the steps, each local sum's rounding (at most the largest local sum so far per step) and
    each block offset's (at most the largest offset so far)."""
    B = RUNNING_SUM_BLOCK
    L0 = steps.start
    nb = -(-(K - 1) // B)
    loc = np.zeros(nb * B)
    loc[:K - 1] = steps.step
    loc = np.cumsum(loc.reshape(nb, B), axis=1)
    offs_b = np.zeros(nb)
    if nb > 1:
        np.cumsum(loc[:-1, -1], out=offs_b[1:])
    L = np.empty(K)
    L[0] = L0
    L[1:] = (L0 + (offs_b[:, None] + loc)).reshape(-1)[:K - 1]
    kk = k_tables(K).k
    loc_max = np.empty(K)  # the largest local sum and block offset up to each k (L_k uses no later one)
    loc_max[0] = 0.0
    loc_max[1:] = np.maximum.accumulate(np.abs(loc).reshape(-1)[:K - 1])
    offs_max = np.maximum.accumulate(np.abs(offs_b))
    in_block = np.repeat(offs_max, B)[:K]  # offs_max[min(k // B, nb - 1)]
    if in_block.shape[0] < K:
        in_block = np.append(in_block, offs_max[-1])
    Lerr = 1.0 + abs(L0) + np.abs(L) + kk * loc_max + _blocks_so_far(K) * in_block
    Lerr[1:] += np.cumsum(steps.err)
    return LogMagnitudes(L, Lerr)


@lru_cache(maxsize=TABLE_CACHE)
def _blocks_so_far(K: int) -> np.ndarray:
    """k // RUNNING_SUM_BLOCK + 1 for k < K (read-only)."""
    v = k_tables(K).k // RUNNING_SUM_BLOCK + 1.0
    _read_only(v)
    return v


def _smooth_signs(off: np.ndarray, slope: np.ndarray, K: int) -> np.ndarray:
    """(-1)^k prod_f sign Gamma(off_f + slope_f k), k < K, no argument an integer: Gamma(x) < 0
    exactly when x < 0 and ceil(-x) is odd, and ceil(-(off + s k)) = ceil(-off) - s k (the
    same parity as ceil(-off) + k).  The argument is negative for k < -off (slope +1) or
    k > off (slope -1), a range of k in which every other sign flips: one strided slice per
    factor."""
    sign = k_tables(K).sign.copy()
    for o, sl in zip(off.tolist(), slope.tolist()):
        lo, hi = (0, min(K, max(0, math.ceil(-o)))) if sl > 0 else (max(0, math.ceil(o)), K)
        odd = (math.ceil(-o) + lo) % 2  # ceil(-o) + k odd at k = lo?
        sign[lo + 1 - odd:hi:2] *= -1.0
    return sign


def _anchored(fn, X: np.ndarray, step: np.ndarray) -> np.ndarray:
    """fn(X) for X (F, Kp), Kp a multiple of ANCHOR: fn exact in the columns 0, ANCHOR, ...
    and in between the exact recurrence fn(X[:, k+1]) = fn(X[:, k]) + step[:, k] summed."""
    F, Kp = X.shape
    nA = Kp // ANCHOR
    res = np.empty((F, nA, ANCHOR))
    anchor = fn(X[:, ::ANCHOR])
    res[:, :, 0] = anchor
    cs = np.cumsum(step.reshape(F, nA, ANCHOR)[:, :, :-1], axis=2)
    res[:, :, 1:] = anchor[:, :, None] + cs
    return res.reshape(F, Kp)


def _with_zeros(fa: GammaFactors, K: int, want_grad: bool) -> BlockCoeffs | None:
    """Some argument is an integer: log Gamma per (factor, k) with the reciprocal-Gamma zeros
    exact (counted in ``n_zeros``); None if a numerator Gamma hits a pole."""
    t = k_tables(K)
    X = fa.offset[:, None] + fa.slope[:, None] * t.k[None, :]
    pole = is_pole(X)
    anypole = pole.any()
    if anypole and pole[fa.power > 0].any():
        return None  # numerator pole: coincident poles or an improper contour
    Xs = np.where(pole, 1.0, X) if anypole else X
    lg = gammaln(Xs)
    log_err = np.sqrt(np.einsum("fk,fk->k", lg, lg) + t.log_weight ** 2)  # as in _smooth_short
    log_mag = t.log_weight + fa.power @ lg
    sign = t.sign * np.prod(gammasgn(Xs), axis=0)
    n_zeros, dead = (pole.sum(axis=0), pole[fa.slope < 0].any(axis=0)) if anypole else (_no_zeros(K), _never_dead(K))
    dlog = limits = None
    if want_grad:
        coef = fa.coef
        psi = digamma(Xs)
        if anypole:
            psi = np.where(pole, 0.0, psi)
        dlog = psi.T @ (fa.power[:, None] * coef)
        if anypole:
            limits = _zero_limits(pole, X, fa.power, coef, K)
    return BlockCoeffs(K, log_mag, sign, log_err, n_zeros, dead, dlog, limits, bool(anypole))


def _zero_limits(pole: np.ndarray, X: np.ndarray, e: np.ndarray, coef: np.ndarray, K: int) -> ZeroLimits:
    """d/dx 1/Gamma(x) at x = -r is (-1)^r r! (only denominators can be at a pole here)."""
    lim_log = np.zeros(K)
    lim_sign = np.ones(K)
    lim_coef = np.zeros((K, coef.shape[1]))
    for f in np.nonzero(pole.any(axis=1))[0]:
        kk = np.nonzero(pole[f])[0]
        r = -X[f, kk]
        lim_log[kk] = gammaln(r + 1.0)
        lim_sign[kk] = np.where(r % 2 == 0, 1.0, -1.0)
        lim_coef[kk, :] = -e[f] * coef[f]
    return ZeroLimits(lim_log, lim_sign, lim_coef)
