"""Analytic continuation along the differential equation: G from its value at an anchor.

In t = log w, G(e^t) solves the linear equation of DLMF 16.21.1 (theta = d/dt),

    B(theta) G = sigma e^t A(theta) G,   A = prod_j (theta - a_j + 1),  B = prod_j (theta - b_j),

sigma = (-1)^(p - m - n), of order N = max(p, q).  Its only singular points are w = 0 and
infinity and, for p == q, w = sigma.  So for p != q every solution is entire in t, and for
p == q with sigma = -1 (the (2,2,3,3) family) G is analytic at w = 1, where both residue series
converge slowly and cancel (alternating terms that grow like k^c before w^k wins): a Taylor
series in t around an anchor t0 converges in the disc of radius |t0 -+ i pi| (everywhere for
p != q).  The Taylor coefficients of the N fundamental solutions at t0 solve one triangular
system (``fundamental``); G and its first N - 1 derivatives at the anchor come from the residue
series there, where they converge fast and cancel little (``anchor``).

``rescue`` continues the points the residue series do not certify: near w = 1 for p == q, and
where the series of two close poles (Gamma coefficients of size 1 / (b_1 - b_2) and opposite
signs) cancel, at the larger arguments of p != q.  The error estimate carries the anchor's
errors through the fundamental solutions, the rounding of the Taylor sum and its truncation
bound, so that ``evaluate`` accepts or rejects these points as it does the series' own.  Values
only (the gradient keeps the residue series and mpmath).
"""

from __future__ import annotations

import math
from functools import lru_cache

import attrs
import numpy as np

from .bounds import EPS, ROUNDING_CONSTANTS, STD_DEVS, TOL, choose_K
from .coefficients import cached_block_coeffs, k_tables
from .series import Parameters, residue_factors
from .strategy import Estimate

ANCHOR_W = 0.15  # p == q, sigma = -1: points are continued from here (few terms, little cancellation)
RESCUE_ANCHOR_W = 0.5  # p != q: points the series reject are continued from here
ANCHOR_TERMS = 96  # residue terms summed at the anchor (at most; log Gamma per factor and term)
TAYLOR_TAIL_LOG = 39.0  # Taylor terms until (|tau| / radius)^I is below e^-39 (p == q)
TAYLOR_TERMS_ENTIRE = 72  # Taylor terms when the solutions are entire in t (p != q)
MAX_TAYLOR_TERMS = 160
MAX_RATIO = 0.9  # the last Taylor terms must shrink at least this fast


def alternating_unit_circle(par: Parameters) -> bool:
    """p == q and sigma = -1: G is analytic at w = 1 and the series there alternate."""
    return par.p == par.q and (par.p - par.m - par.n) % 2 == 1


@attrs.frozen(eq=False)
class Fundamental:
    """Taylor coefficients F (M, N) at t0 of the N solutions whose first N coefficients are the
    unit vectors, and the radius of convergence (inf: entire in t)."""

    F: np.ndarray
    radius: float


def _rising(k: np.ndarray, r: int) -> np.ndarray:
    """(k + 1)(k + 2)...(k + r): the factor of D^r on Taylor coefficient k + r."""
    out = np.ones_like(k)
    for j in range(1, r + 1):
        out = out * (k + j)
    return out


def _operator_rows(coef: np.ndarray, I: int, M: int, weights: np.ndarray | None = None) -> np.ndarray:
    """(I, M): row i holds sum_k weights[i, k] (P(D) y)_k (the identity without ``weights``,
    (I, I)) in terms of y's Taylor coefficients, for P(D) = sum_r coef[r] D^r:
    (P(D) y)_k = sum_r coef[r] (k + 1)_r y_{k+r}."""
    k = np.arange(I, dtype=float)
    rows = np.zeros((I, M))
    idx = np.arange(I)
    for r, c in enumerate(coef):
        if c == 0.0:
            continue
        if weights is None:
            rows[idx, idx + r] += c * _rising(k, r)
        else:
            rows[:, r:r + I] += weights * (c * _rising(k, r))[None, :]
    return rows


def _monic(roots: np.ndarray) -> np.ndarray:
    """Coefficients c_0 .. c_n (ascending) of prod_j (x - roots_j)."""
    c = [1.0]
    for r in roots.tolist():
        c = [(c[i - 1] if i else 0.0) - r * (c[i] if i < len(c) else 0.0) for i in range(len(c) + 1)]
    return np.array(c)


@lru_cache(maxsize=8)
def _exp_taylor(I: int) -> np.ndarray:
    """(I, I): entry (i, k) = 1 / (i - k)! for k <= i (the product with e^tau), read-only."""
    i = np.arange(I)
    v = np.exp(k_tables(I).log_weight[np.maximum(i[:, None] - i[None, :], 0)]) * (i[:, None] >= i[None, :])
    v.setflags(write=False)
    return v


def fundamental(par: Parameters, t0: float, I: int) -> Fundamental:
    """The Taylor coefficients c_0 .. c_{I+N-1} of the fundamental solutions at t0: equation i
    (coefficient of tau^i of B(D) y - sigma e^t A(D) y, e^t = e^t0 sum tau^j / j!) fixes
    c_{i+N}; the I equations form a lower-triangular system in c_N .. c_{I+N-1}."""
    N = max(par.p, par.q)
    M = I + N
    alpha = _monic(par.a - 1.0)  # prod (theta - (a_j - 1))
    beta = _monic(par.b)
    sigma = -1.0 if (par.p - par.m - par.n) % 2 else 1.0
    E = _operator_rows(beta, I, M) - _operator_rows(alpha, I, M, (sigma * math.exp(t0)) * _exp_taylor(I))
    radius = math.hypot(t0, math.pi) if par.p == par.q else math.inf
    return Fundamental(_forward_substitution(E, N), radius)


def _forward_substitution(E: np.ndarray, N: int) -> np.ndarray:
    """F (I + N, N) with F[:N] = identity and E @ F = 0, row by row (a loop of small dot
    products: LAPACK's triangular solve spawns threads that stall on a loaded machine)."""
    I = E.shape[0]
    F = np.zeros((I + N, N))
    F[:N] = np.eye(N)
    for i in range(I):
        F[N + i] = -(E[i, :N + i] @ F[:N + i]) / E[i, N + i]
    return F


@attrs.frozen(eq=False)
class AnchorData:
    """G's Taylor coefficients D^j G / j! (j < N) at the anchor and their absolute errors."""

    c: np.ndarray
    err: np.ndarray


@attrs.define(eq=False)
class AnchorTerms:
    """The terms (K, N) of one series' sums at the anchor, each term's relative rounding
    error bound (K,) and the bound of the neglected terms (N,)."""

    X: np.ndarray
    rho: np.ndarray
    tail: np.ndarray


def _anchor_terms(par: Parameters, h: int, lw0: float, N: int) -> AnchorTerms | None:
    """Term k of the series at the poles b_h + k, at w0, times (b_h + k)^j / j! (its j-th
    Taylor coefficient in t); None when the coefficients do not exist or K terms do not
    suffice."""
    co = cached_block_coeffs(par, h, ANCHOR_TERMS, False)
    if co is None:
        return None
    k = k_tables(ANCHOR_TERMS).k
    g = co.log_mag + (par.b[h] + k) * lw0
    g = np.where(co.n_zeros == 0, g, -np.inf) if co.has_zeros else g
    rlim = math.exp(lw0) if par.p == par.q else 0.0
    K = choose_K(g, co.dead if co.has_zeros else None, ANCHOR_TERMS, rlim)
    if K >= ANCHOR_TERMS:
        return None
    T = co.sign[:K] * np.exp(g[:K])
    j = np.arange(N)
    W = (par.b[h] + k[:K])[:, None] ** j[None, :] * np.exp(k_tables(N).log_weight)[None, :]
    rho = co.log_bound[:K] + np.abs(par.b[h] + k[:K]) * abs(lw0) + ROUNDING_CONSTANTS \
        + _reflection_loss(par, h, K)
    return AnchorTerms(T[:, None] * W, rho, _anchor_tail(T, W, rlim))


def _reflection_loss(par: Parameters, h: int, K: int) -> np.ndarray:
    """log Gamma at x < 0 goes through x + n (or sin(pi x)): its rounding, eps |x| / 2, becomes
    an error of |x| / (2 |x - n|) eps in log|Gamma(x)| near the pole n (large next to close
    poles); per term, the sum over its factors, in units of eps (``coefficients`` leaves it
    out)."""
    fa = residue_factors(par, h)
    if not len(fa):
        return np.zeros(K)
    X = fa.offset[:, None] + fa.slope[:, None] * k_tables(ANCHOR_TERMS).k[None, :K]  # (K <= ANCHOR_TERMS)
    dist = np.abs(X - np.round(X))
    loss = np.where((X < 0) & (dist > 0), 0.5 * np.abs(X) / np.where(dist > 0, dist, 1.0), 0.0)
    return loss.sum(axis=0)  # (at a pole itself the term is an exact zero)


def anchor(par: Parameters, lw0: float) -> AnchorData | None:
    """The residue series and their t-derivatives at w0 = exp(lw0); None when they are not
    certified there.  Error: every term's rounding (independent roundings: the smaller of the
    worst case and STD_DEVS standard deviations), the sum's (STD_DEVS standard deviations of
    one rounding of the largest partial sum per addition) and the neglected terms."""
    N = max(par.p, par.q)
    parts = [_anchor_terms(par, h, lw0, N) for h in range(par.m)]
    if any(pt is None for pt in parts):
        return None
    X = np.concatenate([pt.X for pt in parts])
    ax = np.abs(X) * np.concatenate([pt.rho for pt in parts])[:, None]
    terms = np.minimum(ax.sum(axis=0), STD_DEVS * np.sqrt((ax * ax).sum(axis=0)))
    summing = STD_DEVS * math.sqrt(X.shape[0]) * np.abs(np.cumsum(X, axis=0)).max(axis=0)
    c = X.sum(axis=0)
    err = EPS * (terms + summing) + sum(pt.tail for pt in parts)
    if not (np.isfinite(c).all() and np.isfinite(err).all()):
        return None
    return AnchorData(c, err)


def _anchor_tail(T: np.ndarray, W: np.ndarray, rlim: float) -> np.ndarray:
    """The neglected terms of the anchor's sums: geometric from the last term, with ratio the
    larger of the last ratio and its limit, times the growth of the weights (b_h + k)^j."""
    K = T.shape[0]
    if K < 2 or T[-1] == 0.0:
        return np.zeros(W.shape[1])
    with np.errstate(divide="ignore", invalid="ignore"):
        grow = np.where(np.abs(W[-2]) > 0, np.abs(W[-1]) / np.abs(W[-2]), 1.0)
        r = max(rlim, abs(T[-1] / T[-2])) * grow
        return np.where(r < 1.0, np.abs(T[-1] * W[-1]) * r / (1.0 - r), np.inf)


@attrs.define(eq=False)
class Continued:
    """Value and relative error estimate (inf where not certified) at the continued points."""

    val: np.ndarray
    rel: np.ndarray


def continued(par: Parameters, logw: np.ndarray, lw0: float) -> Continued | None:
    """G at the points w = exp(logw) by the Taylor series in t = log w around log w0 (see the
    module docstring); None when the anchor is not certified."""
    data = anchor(par, lw0)
    if data is None:
        return None
    tau = logw - lw0
    tmax = float(np.abs(tau).max())
    if par.p == par.q:
        ratio = tmax / math.hypot(lw0, math.pi)
        I = MAX_TAYLOR_TERMS if ratio >= 1.0 else int(TAYLOR_TAIL_LOG / -math.log(max(ratio, 1e-3))) + 4
    else:
        I = TAYLOR_TERMS_ENTIRE
    fu = fundamental(par, lw0, min(I, MAX_TAYLOR_TERMS))
    M = fu.F.shape[0]
    P = tau[:, None] ** np.arange(M)[None, :]  # (npts, M)
    val = P @ (fu.F @ data.c)  # (G's Taylor coefficients)
    env = np.abs(P) * (np.abs(fu.F) @ np.abs(data.c))[None, :]
    propagated = np.abs(P @ fu.F) @ data.err
    rounding = EPS * (ROUNDING_CONSTANTS + M) * env.sum(axis=1)
    return Continued(val, (propagated + rounding + _tail(env, tau, fu.radius)) / np.abs(val))


def _tail(env: np.ndarray, tau: np.ndarray, radius: float) -> np.ndarray:
    """Truncation bound per point: geometric from the larger of the last two envelope terms,
    with ratio the larger of |tau| / radius and the square root of the ratio of the last pair
    to the pair before (pairs, as the coefficients of some solutions alternate in size); the
    ratio must stay below MAX_RATIO."""
    last = np.maximum(env[:, -1], env[:, -2])
    before = np.maximum(env[:, -3], env[:, -4])
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.sqrt(last / before)
        r = np.maximum(np.where(np.isfinite(r), r, 0.0), np.abs(tau) / radius)
        tail = last * r / (1.0 - r)
    return np.where(last == 0.0, 0.0, np.where(r < MAX_RATIO, tail, np.inf))


def continuable(par: Parameters) -> bool:
    """Whether G on this side can be continued: the solutions are entire in t (p != q) or
    analytic across w = 1 (``alternating_unit_circle``)."""
    return par.p != par.q or alternating_unit_circle(par)


def rescue(par: Parameters, logw: np.ndarray, est: Estimate | None) -> Estimate | None:
    """The series' estimate with the points it did not certify (NaN value, inf or too large an
    error estimate; every point when ``est`` is None) continued from the anchor, where that is
    better.  Value only."""
    if (est is not None and est.all_good) or not continuable(par):
        return est
    if est is None:
        est = Estimate(np.full(logw.shape[0], np.nan), None, None, np.full(logw.shape[0], np.inf))
    bad = np.flatnonzero(~(est.rel < TOL) | ~np.isfinite(est.val))
    if bad.size == 0:
        return est
    lw0 = math.log(ANCHOR_W if par.p == par.q else RESCUE_ANCHOR_W)
    cont = continued(par, logw[bad], lw0)
    if cont is None:
        return est
    better = cont.rel < est.rel[bad]
    idx = bad[better]
    val, rel = est.val.copy(), est.rel.copy()
    val[idx], rel[idx] = cont.val[better], cont.rel[better]
    return Estimate(val, None, None, rel, all_good=bool((rel < TOL).all()), perturbed=est.perturbed)
