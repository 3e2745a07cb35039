"""Vectorised Meijer G-function G^{m,n}_{p,q}(a; b | z) for real parameters and z > 0.

Argument convention of ``mpmath.meijerg``: ``a_s = [[a_1..a_n], [a_{n+1}..a_p]]``,
``b_s = [[b_1..b_m], [b_{m+1}..b_q]]``.

Method (Slater's theorem written as the residue sum).  For p < q, or p == q and z < 1,

    G = sum_{h<=m} sum_{k>=0} (-1)^k / k! * prod_{j<=m, j!=h} Gamma(b_j - b_h - k)
        * prod_{j<=n} Gamma(1 - a_j + b_h + k)
        / ( prod_{j>m} Gamma(1 - b_j + b_h + k) * prod_{j>n} Gamma(a_j - b_h - k) ) * z^(b_h + k)

and for p > q, or p == q and z > 1, the same sum for G^{n,m}_{q,p}(1 - b; 1 - a | 1/z), which is
the same function.  The gradient with respect to every a, b and z is the same sum with digamma
factors (term by term).

Evaluation (``_series_fast``): the coefficients c_k of each series do not depend on z.  They are
computed once per call as K scalars in log space (from log Gamma at k = 0 and the exact ratio of
successive terms, or gammaln per term for short series and for reciprocal-Gamma zeros, which are
handled exactly, including their derivative limits), scaled to the largest argument w_max with
one common shift, so nothing overflows.  All points are then summed at once: the powers
x^k = (w / w_max)^k <= 1 and one matrix product give the value, the sum of |terms|, the rounding
weights, the gradient and d/dlog w as columns.  K is chosen from the coefficients at w_max
(``_choose_K``: the tail bound below e^-36, about eps, of the largest term); for p == q, where
K grows like 1 / (1 - w), the points are grouped by w first (``_groups``) when a group saves
enough terms to pay for its own pass, otherwise one K serves all points.  The coefficients
depend on the parameters only and are memoised per parameter set (``_block_coeffs_cached``).
Points spanning too many orders of
magnitude for one scale use the per-point log-space sum (``_series_log``).

Strategy, so that no silently wrong number is returned:

* every point carries an error estimate: rounding (worst case for the powers, the sums and the
  scale; for the coefficients' relative errors, 4 standard deviations of independent roundings
  or the worst case if smaller) plus the tail bound of the truncated series.  Points whose estimate exceeds
  ``tol`` (cancellation, slow convergence near |z| = 1 for p == q, overflow) are recomputed with
  ``mpmath.meijerg`` at 30 digits, one by one, and only those points;
* (nearly) coincident poles, i.e. first-group parameters that differ by (nearly) an integer,
  where Slater's formula is singular: the parameters are split symmetrically by +-delta,
  +-2 delta, +-4 delta and the results extrapolated (Richardson, error O(delta^6)); the
  extrapolation's own error estimate decides whether the points are kept or sent to mpmath;
* a numerator Gamma at a pole (a_j - b_h a positive integer for j <= n, h <= m: the contour
  cannot separate the poles): all points go to mpmath, which may itself give NaN.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.special import digamma, gammaln, gammasgn

__all__ = ["meijerg", "meijerg_grad"]

EPS = np.finfo(float).eps
TOL = 1e-9  # accepted relative error estimate of the fast path (a conservative bound)
PERTURBED_TOL = 1e-9  # accepted (conservative: it bounds the lower-order extrapolant) estimate
K_SCHEDULE = (48, 120, 300, 600, 1000, 1600, 2500, 4000)  # caps; each level picks K <= cap from w_max
TAIL_LOG = 36.0  # truncate once the tail bound is below e^-TAIL_LOG (~ eps) of the largest term
COINCIDENT = 1e-3  # first-group parameters closer than this to an integer apart -> perturb
DELTA = 4e-3
MP_DPS = 30


def _split(a_s, b_s):
    an, ap = (list(map(float, v)) for v in a_s)
    bm, bq = (list(map(float, v)) for v in b_s)
    n, m = len(an), len(bm)
    a = np.array(an + ap, dtype=float)
    b = np.array(bm + bq, dtype=float)
    return m, n, a, b


def _is_pole(x):
    return (x <= 0) & (x == np.round(x))


def _series_log(m, n, a, b, logw, K, want_grad):
    """The residue sum with K terms per first-group parameter, every term in log space per point
    (slower than ``_series_fast``; used when the points span too many orders of magnitude).

    Returns value, grad (P = p + q, N) w.r.t. (a, b), d/dlog w, error estimate (absolute), and
    a mask of points whose truncation is certified.
    """
    p, q = len(a), len(b)
    P = p + q
    N = logw.shape[0]
    k = np.arange(K, dtype=float)
    blocks = []  # per h: (S_k, L_k, expo_k, Z_k, D_k (K,P), lim_sign, lim_log, lim_coef (K,P))
    for h in range(m):
        bh = b[h]
        L = -gammaln(k + 1.0)
        S = np.where(np.arange(K) % 2 == 0, 1.0, -1.0)
        Z = np.zeros(K, dtype=int)
        D = np.zeros((K, P))
        lim_log = np.zeros(K)
        lim_sign = np.ones(K)
        lim_coef = np.zeros((K, P))
        factors = []
        for j in range(m):
            if j != h:
                factors.append((b[j] - bh - k, 1, {p + j: 1.0, p + h: -1.0}))
        for j in range(n):
            factors.append((1.0 - a[j] + bh + k, 1, {j: -1.0, p + h: 1.0}))
        for j in range(m, q):
            factors.append((1.0 - b[j] + bh + k, -1, {p + j: -1.0, p + h: 1.0}))
        for j in range(n, p):
            factors.append((a[j] - bh - k, -1, {j: 1.0, p + h: -1.0}))
        for x, e, coef in factors:
            pole = _is_pole(x)
            if e > 0 and pole.any():
                return None  # numerator pole: coincident poles or an improper contour
            lg = np.where(pole, 0.0, gammaln(np.where(pole, 1.0, x)))
            sg = np.where(pole, 1.0, gammasgn(np.where(pole, 1.0, x)))
            L = L + e * lg
            S = S * sg
            Z = Z + pole
            if want_grad:
                psi = np.where(pole, 0.0, digamma(np.where(pole, 1.0, x)))
                for i, c in coef.items():
                    D[:, i] += e * c * psi
                if pole.any():  # d/dx 1/Gamma(x) at x = -r is (-1)^r r!
                    r = -x[pole]
                    lim_log[pole] = gammaln(r + 1.0)
                    lim_sign[pole] = np.where(r % 2 == 0, 1.0, -1.0)
                    for i, c in coef.items():
                        lim_coef[pole, i] = -e * c  # e = -1 for denominators: +c
        blocks.append((S, L, bh + k, Z, D, lim_sign, lim_log, lim_coef))

    # exponents E[n, h, k]
    E_all = []
    M = np.full(N, -np.inf)
    for S, L, expo, Z, D, lim_sign, lim_log, lim_coef in blocks:
        E = L[None, :] + expo[None, :] * logw[:, None]
        live = Z == 0
        Ev = np.where(live[None, :], E, -np.inf)
        M = np.maximum(M, Ev.max(axis=1))
        if want_grad:
            one = Z == 1
            if one.any():
                El = np.where(one[None, :], E + lim_log[None, :], -np.inf)
                M = np.maximum(M, El.max(axis=1))
        E_all.append(E)
    M = np.where(np.isfinite(M), M, 0.0)

    val = np.zeros(N)
    absum = np.zeros(N)
    rnd = np.zeros(N)
    tail = np.zeros(N)
    certified = np.ones(N, dtype=bool)
    grad = np.zeros((P, N)) if want_grad else None
    dlogw = np.zeros(N) if want_grad else None
    for h, ((S, L, expo, Z, D, lim_sign, lim_log, lim_coef), E) in enumerate(zip(blocks, E_all)):
        live = Z == 0
        T = np.where(live[None, :], S[None, :] * np.exp(np.minimum(E - M[:, None], 700.0)), 0.0)
        absT = np.abs(T)
        val += T.sum(axis=1)
        absum += absT.sum(axis=1)
        rnd += (absT * (8.0 + np.abs(L)[None, :] + np.abs(expo[None, :] * logw[:, None]))).sum(axis=1)
        # tail: the last terms must be decreasing geometrically
        if K >= 3:
            Elive = np.where(live[None, :], E, -np.inf)
            e1, e2, e3 = Elive[:, -1], Elive[:, -2], Elive[:, -3]
            dead = np.isneginf(e1) & np.isneginf(e2)  # terminated (1/Gamma zeros persist)
            with np.errstate(invalid="ignore"):
                lr = e1 - e2
                lr2 = e2 - e3
            ok = dead | ((lr < math.log(0.9)) & (lr2 < 0))
            r = np.exp(np.where(ok & ~dead, lr, -np.inf))
            t = np.where(dead, 0.0, np.exp(np.where(np.isneginf(e1), -np.inf, e1 - M)) * r / (1 - r))
            tail += np.where(ok, t, np.inf)
            certified &= ok
        if want_grad:
            G = T @ D  # (N, P)
            grad += G.T
            dlogw += (T * expo[None, :]).sum(axis=1)
            one = Z == 1
            if one.any():
                Tl = np.where(
                    one[None, :],
                    (S * lim_sign)[None, :] * np.exp(np.minimum(E + lim_log[None, :] - M[:, None], 700.0)),
                    0.0,
                )
                grad += (Tl @ lim_coef).T
            # the log w factor of d/d b_h
            grad[p + h] += logw * T.sum(axis=1)
    scale = np.exp(np.minimum(M, 709.0))
    overflow = M > 700.0
    err = EPS * rnd + tail
    out_val = val * scale
    if want_grad:
        grad = grad * scale[None, :]
        dlogw = dlogw * scale
    return dict(val=out_val, grad=grad, dlogw=dlogw, err=err * scale, tail=tail * scale,
                certified=certified & ~overflow & np.isfinite(out_val))


_KCACHE: dict = {}


def _k_tables(K):
    """k, -log k! and (-1)^k for k < K (parameter independent, cached)."""
    t = _KCACHE.get(K)
    if t is None:
        k = np.arange(K, dtype=float)
        t = (k, -gammaln(k + 1.0), np.where(np.arange(K) % 2 == 0, 1.0, -1.0))
        if len(_KCACHE) < 64:
            _KCACHE[K] = t
    return t


_LCACHE: dict = {}


def _log_tables(K):
    """log k and log(1 + 1/k) for k = 1..K-2 (parameter independent, cached)."""
    t = _LCACHE.get(K)
    if t is None:
        kk1 = _k_tables(K)[0][1:K - 1]
        t = (np.log(kk1), np.log1p(1.0 / kk1))
        if len(_LCACHE) < 64:
            _LCACHE[K] = t
    return t


_ZCACHE: dict = {}


def _zero_tables(K):
    """Read-only int zeros and bool zeros of length K (the Z and dead entries of a block
    without reciprocal-Gamma zeros; shared, cached)."""
    t = _ZCACHE.get(K)
    if t is None:
        t = (np.zeros(K, dtype=int), np.zeros(K, dtype=bool))
        for v in t:
            v.setflags(write=False)
        if len(_ZCACHE) < 64:
            _ZCACHE[K] = t
    return t


ANCHOR = 32  # gradient: exact digamma every ANCHOR terms, the recurrence in between


def _anchored(fn, X, step):
    """fn(X) for X (F, Kp), Kp a multiple of ANCHOR: fn exact in the columns 0, ANCHOR, ...
    and in between the exact recurrence fn(X[:, k+1]) = fn(X[:, k]) + step[:, k] summed."""
    F, Kp = X.shape
    nA = Kp // ANCHOR
    res = np.empty((F, nA, ANCHOR))
    anchor = fn(X[:, ::ANCHOR])
    res[:, :, 0] = anchor
    if ANCHOR > 1:
        cs = np.cumsum(step.reshape(F, nA, ANCHOR)[:, :, :-1], axis=2)
        res[:, :, 1:] = anchor[:, :, None] + cs
    return res.reshape(F, Kp)


def _block_coeffs_smooth(out, off, slope, e, rows, K, P, want_grad):
    """``_block_coeffs`` when no factor Gamma(off + slope k) can hit a pole.  Short series:
    gammaln per (factor, k).  Long ones: L from its value at k = 0 and the exact ratios of
    successive terms (the large log-Gamma values, which cancel for p == q, are never formed),
    digamma exact every ANCHOR terms and psi(x + 1) = psi(x) + 1 / x in between.  ``Lerr``
    bounds the absolute error of L in units of eps."""
    F = off.shape[0]
    if K <= 96:  # short: log-Gamma per (factor, k) is cheaper than the recurrences' overhead
        k = _k_tables(K)[0]
        X = off[:, None] + slope[:, None] * k[None, :]
        lg = gammaln(X)
        Lk = out["L"]
        # (the ufuncs' reductions directly: what .sum / np.prod call, without their wrappers)
        out["Lerr"] = np.add.reduce(np.abs(lg), axis=0) - Lk + 1.0  # worst case, units of eps
        out["L"] = Lk + e @ lg
        out["S"] = out["S"] * np.multiply.reduce(gammasgn(X), axis=0)
        if want_grad:
            coef = np.zeros((F, P))
            for f, row in enumerate(rows):
                for i, c in row:
                    coef[f, i] += c
            out["D"] = digamma(X).T @ (e[:, None] * coef)
        return out
    Kp = -(-K // ANCHOR) * ANCHOR
    kp = _k_tables(Kp)[0]
    if want_grad:
        X = off[:, None] + slope[:, None] * kp[None, :]
        # step k -> k + 1: slope +1: Gamma(x + 1) = x Gamma(x); slope -1: Gamma(x - 1) = Gamma(x) / (x - 1)
        Y = X - (slope < 0)[:, None]
    else:
        X = Y = None
    # L from its exact value at k = 0 and the ratios of successive terms.  For k >= 1 the
    # factor |Y| = k |1 + c/k|, so log(ratio) = net log k + sum_f s_f log|1 + c_f/k| - log(1 + 1/k):
    # no large Gamma values and no rounded off + k (whose rounding repeats within a binade
    # and would drift), and for p == q (net = 0) every step is small and accurate
    s_f = e * slope  # +1: |Y| in the numerator of the ratio, -1: in the denominator
    c_f = np.where(slope > 0, off, 1.0 - off)  # |Y| = |k + c_f|
    net = float(s_f.sum()) - 1.0
    L0 = float(e @ gammaln(off))
    stepabs = np.zeros(max(K - 1, 0))
    step = np.zeros(max(K - 1, 0))
    if K > 1:
        num = den = 1.0
        for cf, sf in zip(c_f.tolist(), s_f.tolist()):
            if sf > 0:
                num *= abs(cf)
            else:
                den *= abs(cf)
        step[0] = math.log(num / den)
        stepabs[0] = 2.0 * F + 4.0 + abs(step[0])
    if K > 2:
        kk1 = kp[1:K - 1]
        u = c_f[:, None] / kk1[None, :]
        lu = np.log1p(u)
        low = u <= -0.5
        if low.any():  # 1 + u near or below 0 (small k only): log|1 + u| directly
            lu[low] = np.log(np.abs(1.0 + u[low]))
        lk, l1 = _log_tables(K)
        step[1:] = net * lk + s_f @ lu - l1
        # worst-case rounding of each step, in units of eps
        stepabs[1:] = (F + 3.0) * (abs(net) * lk + np.abs(lu).sum(axis=0) + l1)
    if K <= 65:  # one block: a plain running sum
        L = np.empty(K)
        L[0] = L0
        np.cumsum(step, out=L[1:])
        L[1:] += L0
        Lerr = np.empty(K)
        Lerr[0] = 1.0 + abs(L0)
        Lerr[1:] = (1.0 + abs(L0) + np.cumsum(stepabs + np.abs(L[1:] - L0)) + np.abs(L[1:]))
        out["Lerr"] = Lerr
        out["L"] = L
        out["S"] = out["S"] * _smooth_signs(off, slope, K)
        return _smooth_grad(out, X, Y, slope, e, rows, F, K, P, want_grad)
    # running sum in blocks of 64 (the local sums stay small, so do their roundings)
    nb = -(-(K - 1) // 64) if K > 1 else 0
    loc = np.zeros(nb * 64)
    loc[:K - 1] = step
    loc = np.cumsum(loc.reshape(nb, 64), axis=1)
    offs_b = np.zeros(nb)
    if nb > 1:
        np.cumsum(loc[:-1, -1], out=offs_b[1:])
    L = np.empty(K)
    L[0] = L0
    L[1:] = (L0 + (offs_b[:, None] + loc)).reshape(-1)[:K - 1]
    # error bound of L (units of eps): the start, the steps, each local sum's rounding (at
    # most the largest local sum per step), each block offset's (at most the largest |L - L0|)
    kk = kp[:K]
    Lerr = 1.0 + abs(L0) + np.abs(L) + kk * float(np.abs(loc).max()) \
        + (kk // 64 + 1.0) * float(np.abs(offs_b).max())
    Lerr[1:] += np.cumsum(stepabs)
    out["Lerr"] = Lerr
    out["L"] = L
    out["S"] = out["S"] * _smooth_signs(off, slope, K)
    return _smooth_grad(out, X, Y, slope, e, rows, F, K, P, want_grad)


def _smooth_signs(off, slope, K):
    """prod_f sign Gamma(off_f + slope_f k), k < K, no argument an integer: Gamma(x) < 0
    exactly when x < 0 and ceil(-x) is odd, and ceil(-(off + s k)) = ceil(-off) - s k (the
    same parity as ceil(-off) + k).  Argument off + k negative while k < -off (slope +1),
    off - k once k > off (slope -1); all in exact small integers (as floats)."""
    k = _k_tables(K)[0][None, :]
    neg = np.where(slope[:, None] > 0, k < -off[:, None], k > off[:, None])
    par = (neg * (np.ceil(-off)[:, None] + k)).sum(axis=0)
    return np.where(par % 2 == 0, 1.0, -1.0)


def _smooth_grad(out, X, Y, slope, e, rows, F, K, P, want_grad):
    if want_grad:
        coef = np.zeros((F, P))
        for f, row in enumerate(rows):
            for i, c in row:
                coef[f, i] += c
        psi = _anchored(digamma, X, slope[:, None] / Y)
        out["D"] = psi[:, :K].T @ (e[:, None] * coef)
    return out


def _block_coeffs(m, n, a, b, h, K, want_grad):
    """z-independent data of the residue series at the pole family of b_h, k = 0..K-1.

    Term k is ``S[k] exp(L[k]) w^(b_h + k)`` when ``Z[k] == 0`` (no reciprocal-Gamma zero);
    ``D`` (K, P) holds d log|term| / d(a, b) (digamma factors, without the log w of b_h);
    ``lim`` (for Z == 1) the derivative of a term whose single 1/Gamma factor vanishes;
    ``dead[k]``: a zero that persists for every larger k (the series terminates).
    Returns None when a numerator Gamma sits at a pole.
    """
    p, q = len(a), len(b)
    P = p + q
    bh = b[h]
    offs, slopes, es, rows = [], [], [], []

    def add(off, slope, e, coef):
        offs.append(off)
        slopes.append(slope)
        es.append(e)
        rows.append(coef)

    for j in range(m):
        if j != h:
            add(b[j] - bh, -1.0, 1.0, ((p + j, 1.0), (p + h, -1.0)))
    for j in range(n):
        add(1.0 - a[j] + bh, 1.0, 1.0, ((j, -1.0), (p + h, 1.0)))
    for j in range(m, q):
        add(1.0 - b[j] + bh, 1.0, -1.0, ((p + j, -1.0), (p + h, 1.0)))
    for j in range(n, p):
        add(a[j] - bh, -1.0, -1.0, ((j, 1.0), (p + h, -1.0)))
    k, L, S = _k_tables(K)
    F = len(offs)
    Z0, dead0 = _zero_tables(K)
    out = dict(K=K, L=L, S=S, Z=Z0, dead=dead0,
               D=np.zeros((K, P)) if want_grad else None, lim=None, anypole=False)
    if F == 0:
        out["Lerr"] = np.abs(L)
        return out
    off = np.array(offs)
    slope = np.array(slopes)
    e = np.array(es)
    if not (off == off.round()).any():  # no Gamma argument can be a pole: recurrences
        return _block_coeffs_smooth(out, off, slope, e, rows, K, P, want_grad)
    X = off[:, None] + slope[:, None] * k[None, :]
    pole = (X <= 0) & (X == np.round(X))
    anypole = pole.any()
    if anypole and pole[e > 0].any():
        return None  # numerator pole: coincident poles or an improper contour
    Xs = np.where(pole, 1.0, X) if anypole else X
    lg = gammaln(Xs)
    out["Lerr"] = np.sqrt(np.einsum("fk,fk->k", lg, lg) + L ** 2)  # as in _smooth
    out["L"] = L + e @ lg
    out["S"] = S * np.prod(gammasgn(Xs), axis=0)
    if anypole:
        out["anypole"] = True
        out["Z"] = pole.sum(axis=0)
        out["dead"] = pole[slope < 0].any(axis=0)
    if want_grad:
        coef = np.zeros((F, P))
        for f, row in enumerate(rows):
            for i, c in row:
                coef[f, i] += c
        psi = digamma(Xs)
        if anypole:
            psi = np.where(pole, 0.0, psi)
        out["D"] = psi.T @ (e[:, None] * coef)
        if anypole:  # d/dx 1/Gamma(x) at x = -r is (-1)^r r!  (only denominators can be here)
            lim_log = np.zeros(K)
            lim_sign = np.ones(K)
            lim_coef = np.zeros((K, P))
            for f in np.nonzero(pole.any(axis=1))[0]:
                kk = np.nonzero(pole[f])[0]
                r = -X[f, kk]
                lim_log[kk] = gammaln(r + 1.0)
                lim_sign[kk] = np.where(r % 2 == 0, 1.0, -1.0)
                lim_coef[kk, :] = -e[f] * coef[f]
            out["lim"] = (lim_log, lim_sign, lim_coef)
    return out


_BCACHE: dict = {}
_BCACHE_MAX = 64
_MISSING = object()
_ARRAY_ENTRIES = ("L", "S", "Z", "dead", "D", "Lerr", "absLerr")  # plus the tuple "lim"


def _block_coeffs_cached(m, n, a, b, h, K, want_grad):
    """``_block_coeffs`` memoised on the parameters (they alone determine the coefficients;
    repeated calls with the same parameters, e.g. an optimiser's line search or a benchmark, then
    skip the per-call coefficient work).  Entries are read-only; the cache holds at most
    ``_BCACHE_MAX`` blocks (cleared when full)."""
    key = (m, n, a.tobytes(), b.tobytes(), h, K, bool(want_grad))
    co = _BCACHE.get(key, _MISSING)
    if co is not _MISSING:
        return co
    co = _block_coeffs(m, n, a, b, h, K, want_grad)
    if co is not None:
        co["absLerr"] = np.abs(co["L"]) + co["Lerr"]
        for name in _ARRAY_ENTRIES:  # every array entry (Z and dead may be shared, read-only)
            v = co[name]
            if v is not None and v.flags.writeable:
                v.setflags(write=False)
        if co["lim"] is not None:
            for w in co["lim"]:
                w.setflags(write=False)
    if len(_BCACHE) >= _BCACHE_MAX:
        _BCACHE.clear()
    _BCACHE[key] = co
    return co


def _choose_K(g, dead, Kcap, rlim):
    """Smallest K <= Kcap such that, at the largest argument (log magnitudes g of the terms),
    the last two terms decrease and the tail bound t_{K-1} r / (1 - r) is below e^-36 (about
    eps, i.e. below the rounding error of the sum) of the
    largest term so far, with r the larger of the last ratio and the ratio's limit ``rlim``
    (w_max for p == q, 0 for p < q).  Kcap if there is none."""
    Kc = g.shape[0]
    if Kc < 4:
        return Kc
    if Kc > 128:  # the conditions on a prefix only depend on that prefix: look there first
        K = _choose_K(g[:96], None if dead is None else dead[:96], 96, rlim)
        if K < 96:
            return K
    runmax = np.maximum.accumulate(g)
    d1 = g[1:] - g[:-1]
    r = np.exp(d1[1:])
    if rlim > 0.0:  # (max with 0 changes nothing: exp >= 0, nan stays nan)
        np.maximum(r, rlim, out=r)
    tail = g[2:] + np.log(r / (1.0 - r))
    cond = (r < 1.0) & (d1[:-1] < 0) & (tail < runmax[2:] - TAIL_LOG)
    if dead is not None and dead.any():  # None: no zeros (the series does not terminate)
        cond |= dead[2:] & dead[1:-1]
    c1 = cond[1:]  # K >= 4
    i = int(c1.argmax())
    return i + 4 if c1[i] else Kc


def _series_fast(m, n, a, b, logw, Kcap, want_grad, cache):
    """The residue sums with z-independent coefficients and one matrix product per block.

    For each block the coefficients are scaled to the largest argument w_max of the points
    (log space, one common shift), the points enter only through x^k = (w / w_max)^k <= 1, and
    value, |terms|, rounding weights, the gradient and d/dlog w are the columns of one product
    (N, K) @ (K, columns).  K <= Kcap is chosen from the coefficients at w_max (``_choose_K``).
    Same return value as ``_series_log``; "range" if the points span too many orders of
    magnitude for a common scale (the caller then uses the log-space path).  Call with numpy
    floating-point errors ignored.
    """
    p, q = len(a), len(b)
    P = p + q
    N = logw.shape[0]
    lx = float(logw.max())
    lxmin = float(logw.min())
    logx = logw - lx
    peq = p == q  # the ratio of successive terms tends to w (p == q) or to 0 (p < q)
    pw = np.abs(logw) + (abs(lx) - logx)  # relative error of x^k per k, units of eps
    parts = []
    blocks = []
    for h in range(m):
        co = cache.get(h)
        if co is None or co["K"] < Kcap:
            co = _block_coeffs_cached(m, n, a, b, h, Kcap, want_grad)
            if co is None:
                return None
            cache[h] = co
        k_all = _k_tables(co["K"])[0]
        Z = co["Z"]
        anyzero = co["anypole"]
        graw = co["L"] + k_all * lx
        G_all = np.where(Z == 0, graw, -np.inf) if anyzero else graw
        lim = co["lim"] if want_grad else None
        if lim is not None:
            one_all = Z == 1
            Gl_all = np.where(one_all, graw + lim[0], -np.inf)
            g_all = np.maximum(G_all, Gl_all)
            dead_all = co["dead"] & ~one_all
        else:
            g_all = G_all
            dead_all = co["dead"]
        K = _choose_K(g_all[:Kcap], dead_all[:Kcap] if anyzero else None, Kcap,
                      math.exp(lx) if peq else 0.0)
        G = G_all[:K]
        g = g_all[:K]
        Mh = float(g.max())
        if not math.isfinite(Mh):
            Mh = 0.0
        if anyzero:
            first = np.flatnonzero(Z[:K] == 0)
            k0 = int(first[0]) if first.size else 0
            g0 = G[k0] if first.size else Mh
        else:
            k0, g0 = 0, G[0]
        if g0 - Mh + k0 * (lxmin - lx) < -600.0:
            return "range"
        k = k_all[:K]
        S = co["S"][:K]
        d = S * np.exp(G - Mh)  # exactly 0 where a 1/Gamma factor vanishes (G = -inf)
        ad = np.abs(d)
        ncol = 4 + (1 + P if want_grad else 0)
        C = np.empty((K, ncol))
        C[:, 0] = d
        C[:, 1] = ad
        cw = ad * (co["absLerr"][:K] + k * abs(lx))
        C[:, 2] = cw
        C[:, 3] = k * ad
        if want_grad:
            C[:, 4] = d * (b[h] + k)
            Cg = d[:, None] * co["D"][:K]
            if lim is not None:
                dl = S * lim[1][:K] * np.exp(Gl_all[:K] - Mh)
                Cg += dl[:, None] * lim[2][:K]
            C[:, 5:] = Cg
        blocks.append((h, K, k, g, Mh, C, cw, dead_all))
    # one product for all blocks: x^k is shared, the columns are stacked
    K = max(bl[1] for bl in blocks)
    k = _k_tables(K)[0]
    ncol = blocks[0][5].shape[1]
    if len(blocks) == 1 and blocks[0][1] == K:
        C = blocks[0][5]
    else:
        C = np.zeros((K, ncol * len(blocks)))
        for i, bl in enumerate(blocks):
            C[:bl[1], i * ncol:(i + 1) * ncol] = bl[5]
    ncol_all = C.shape[1]
    V = None
    if K <= 96:
        # x^k = exp(k log x): relative error eps k |log x|.  The products k log x as a rank-one
        # matrix product (exact: one product per entry, no sums; faster than an outer product
        # with a short inner dimension)
        V = np.dot(logx.reshape(-1, 1), k.reshape(1, -1))
        np.exp(V, out=V)
        R_all = np.ascontiguousarray((V @ C).T)  # (contiguous rows: cheaper to use below)
        nsum = float(K)  # the K-term dot products
    else:  # x^(B i + j) = x^(B i) x^j: N (K / B + B) exp instead of N K, sums of B and K / B
        B = 16 if K <= 400 else 32
        nA = -(-K // B)
        if nA * B > K:
            C = np.concatenate([C, np.zeros((nA * B - K, ncol_all))])
        Xb = np.exp(np.multiply.outer(logx, _k_tables(B)[0]))
        XA = np.exp(np.multiply.outer(logx, B * _k_tables(nA)[0]))
        T = Xb @ C.reshape(nA, B, ncol_all).transpose(1, 0, 2).reshape(B, nA * ncol_all)
        R_all = np.matmul(XA[:, None, :], T.reshape(N, nA, ncol_all))[:, 0, :].T  # (faster than einsum)
        nsum = float(B + nA + 1)
    for i, (h, K, k, g, Mh, C, cw, dead_all) in enumerate(blocks):
        R = R_all[i * ncol:(i + 1) * ncol]
        val, absum = R[0], R[1]
        s = Mh + b[h] * logw
        # rounding, in units of eps: x^k = exp(k log x) (times exp(k' log x)) errs by
        # 3 + k (|log w| + |log w_max| + |log x|); the coefficients' relative errors sigma_k (|L|, Lerr,
        # k |log w_max|) are independent roundings, so their effect on the sum has a standard
        # deviation <= sqrt(max_k |t_k| sigma_k * sum_k |t_k| sigma_k) (4 of those, or the worst
        # case sum_k |t_k| sigma_k if smaller: an alternating series near |w| = 1 cancels far
        # more than its coefficients' rounding errors do); worst case for the
        # powers, the K-term sum (nsum) and the scale exp(s); 8 covers the constants
        R2 = R[2] if K <= 96 else np.minimum(R[2], 4.0 * np.sqrt(R[2] * float(cw.max())))
        rnd = R2 + pw * R[3] + absum * (8.0 + nsum + abs(Mh) + np.abs(s))
        # tail: the last terms must be decreasing geometrically (ratio bound r)
        c1 = g[-1] - g[-2] if K >= 3 else 0.0
        c2 = g[-2] - g[-3] if K >= 3 else 0.0
        rmax = max(math.exp(c1), math.exp(lx) if peq else 0.0) if K >= 3 else 1.0
        if K < 3 or (dead_all[K - 1] and dead_all[K - 2]):
            tail = 0.0
            ok = None
        elif c2 < 0 and rmax < 1.0:  # holds at w_max, so at every point (x <= 1, w <= w_max):
            ok = None  # one bound r <= rmax for all
            # x^(K-1): the column K - 1 of the powers when they were formed (the same numbers)
            xK = V[:, K - 1] if V is not None else np.exp((K - 1) * logx)
            tail = math.exp(g[-1] - Mh) * (rmax / (1.0 - rmax)) * xK
        else:
            lr = c1 + logx
            if peq:  # the ratio tends to w: bound the tail with the larger of the two
                lr = np.maximum(lr, logw)
            ok = (lr < 0) & (c2 + logx < 0)
            r = np.exp(lr)
            tail = np.exp(g[-1] - Mh + (K - 1) * logx) * r / (1.0 - r)
            tail[~ok] = np.inf
        parts.append((s, R, val, rnd, tail, ok))
    if m == 1:
        s, R, val, rnd, tail, ok = parts[0]
        Mp = s
        certified = ok  # None: every point
        if want_grad:
            dlogw = R[4]
            grad = R[5:].copy()
            grad[p] += logw * val
    else:
        Mp = parts[0][0]
        for pt in parts[1:]:
            Mp = np.maximum(Mp, pt[0])
        val = np.zeros(N)
        rnd = np.zeros(N)
        tail = np.zeros(N)
        certified = np.ones(N, dtype=bool)
        grad = np.zeros((P, N)) if want_grad else None
        dlogw = np.zeros(N) if want_grad else None
        for h, (s, R, v, rd, tl, ok) in enumerate(parts):
            f = np.exp(s - Mp)
            val += f * v
            rnd += f * rd
            tail += f * tl
            if ok is not None:
                certified &= ok
            if want_grad:
                dlogw += f * R[4]
                grad += f * R[5:]
                grad[p + h] += f * logw * v
    scale = np.exp(Mp)
    out_val = val * scale
    err = (EPS * rnd + tail) * scale
    if want_grad:
        grad = grad * scale
        dlogw = dlogw * scale
    else:
        grad = dlogw = None
    fin = np.isfinite(out_val + err)
    return dict(val=out_val, grad=grad, dlogw=dlogw, err=err, tail=tail * scale,
                certified=fin if certified is None else certified & fin)


GROUP_SAVE = 1e6  # point-terms a separate group of points must save (see ``_groups``)


def _groups(logw, peq):
    """Index groups of points that share one series length: for p == q the number of terms
    needed grows like 1 / (1 - w), so points are grouped by w in [1 - 2^-j, 1 - 2^-(j+1))
    (w < 0.75 together), largest w first; otherwise all points together (None)."""
    N = logw.shape[0]
    if not peq or N < 32:
        return [None]
    lw_max = float(logw.max())
    if lw_max < 0 and N * TAIL_LOG / -lw_max < GROUP_SAVE:  # no group could save enough
        return [None]
    j = np.floor(-np.log2(-np.expm1(np.minimum(logw, 0.0))))
    j = np.clip(j, 1.0, 12.0)  # w = 1 exactly lands in the last group (and falls back)
    lo, hi = int(j.min()), int(j.max())
    if lo == hi:
        return [None]
    order = np.argsort(-j, kind="stable")
    counts = np.bincount(j.astype(int), minlength=hi + 1)[::-1]
    groups = []
    need = []  # about how many terms each group needs: e^-TAIL_LOG ~ w_max^K
    for g in np.split(order, np.cumsum(counts[counts > 0])[:-1]):
        kg = TAIL_LOG / max(-float(logw[g].max()), 1e-12)
        # a group pays for its own pass (~0.3 ms of fixed cost, ~1 ns per point and term)
        # only if it saves more than GROUP_SAVE point-terms against joining the previous one
        if groups and (groups[-1].size < 64 or g.size * (need[-1] - kg) < GROUP_SAVE):
            groups[-1] = np.concatenate([groups[-1], g])
        else:
            groups.append(g)
            need.append(kg)
    return [None] if len(groups) == 1 else groups


def _start_level(lw_max, peq):
    """First entry of K_SCHEDULE to try: for p == q, about 60 / -log w terms are needed."""
    if not peq or lw_max >= 0:
        return 0
    need = 60.0 / -lw_max
    for li, K in enumerate(K_SCHEDULE):
        if K >= need:
            return li
    return len(K_SCHEDULE) - 1


def _fast(m, n, a, b, logw, want_grad):
    """Adaptive number of terms; returns the dict of ``_series_fast`` plus relative error.

    Points are grouped by how many terms they need (``_groups``); each group starts with the
    cap of K_SCHEDULE its largest argument needs, and points whose tail is not yet certified
    are recomputed with the next, longer cap (only those points).  The coefficients are
    computed once (for the largest cap) and shared.  Call with numpy floating-point errors
    ignored.
    """
    N = logw.shape[0]
    P = len(a) + len(b)
    peq = len(a) == len(b)
    res = None
    cache: dict = {}
    for grp in _groups(logw, peq):
        todo = grp  # None: all points
        lw0 = logw if grp is None else logw[grp]
        start = _start_level(float(lw0.max()), peq) if peq else 0
        for K in K_SCHEDULE[start:]:
            lw = logw if todo is None else logw[todo]
            out = _series_fast(m, n, a, b, lw, K, want_grad, cache)
            if isinstance(out, str):
                out = _series_log(m, n, a, b, lw, K, want_grad)
            if out is None:
                return None
            v = out["val"]
            rel = out["err"] / np.abs(v)
            good = out["certified"] & (rel < TOL)
            if not good.all():  # err == 0 with v == 0 (nan above) counts as exact
                rel[out["err"] == 0] = 0.0
                good = out["certified"] & (rel < TOL)
            elif todo is None:  # the common case: done in one pass
                return dict(val=v, grad=out["grad"], dlogw=out["dlogw"], rel=rel, allgood=True)
            if res is None:
                res = dict(val=np.full(N, np.nan), grad=np.full((P, N), np.nan) if want_grad else None,
                           dlogw=np.full(N, np.nan) if want_grad else None, rel=np.full(N, np.inf))
            if todo is None:
                todo = np.arange(N)
            idx = todo[good]
            res["val"][idx] = v[good]
            res["rel"][idx] = rel[good]
            if want_grad:
                res["grad"][:, idx] = out["grad"][:, good]
                res["dlogw"][idx] = out["dlogw"][good]
            # points whose truncation error is negligible but that cancel too much will not
            # improve with more terms: leave them to the fallback
            tail_ok = out["certified"] & (out["tail"] <= 1e-3 * TOL * np.abs(v))
            stuck = tail_ok & ~good
            res["rel"][todo[stuck]] = rel[stuck]
            todo = todo[~good & ~stuck]
            if todo.size == 0:
                break
    return res


def _coincident(m, b):
    fr = np.inf
    for i in range(m):
        for j in range(i + 1, m):
            d = b[j] - b[i]
            fr = min(fr, abs(d - round(d)))
    return fr


def _fast_or_perturbed(m, n, a, b, logw, want_grad):
    if _coincident(m, b) >= COINCIDENT:
        res = _fast(m, n, a, b, logw, want_grad)
        if res is not None:
            res["perturbed"] = False
            return res
    # perturb-and-extrapolate: b_h -> b_h +- t * u_h, t in (delta, 2 delta, 4 delta)
    u = np.zeros(len(b))
    u[:m] = np.arange(m) / max(m - 1, 1)
    levels = []
    for t in (DELTA, 2 * DELTA, 4 * DELTA):
        parts = [_fast(m, n, a, b + s * t * u, logw, want_grad) for s in (1.0, -1.0)]
        if any(r is None for r in parts):
            return None
        lv = dict(val=(parts[0]["val"] + parts[1]["val"]) / 2,
                  rel=np.maximum(parts[0]["rel"], parts[1]["rel"]))
        if want_grad:
            lv["grad"] = (parts[0]["grad"] + parts[1]["grad"]) / 2
            lv["dlogw"] = (parts[0]["dlogw"] + parts[1]["dlogw"]) / 2
        levels.append(lv)

    def rich(key):
        r1a = (4 * levels[0][key] - levels[1][key]) / 3
        r1b = (4 * levels[1][key] - levels[2][key]) / 3
        return r1a, (16 * r1a - r1b) / 15

    r1, r2 = rich("val")
    with np.errstate(divide="ignore", invalid="ignore"):
        extrap = np.abs(r2 - r1) / np.abs(r2)
    rel = np.maximum(extrap, 6 * np.max([lv["rel"] for lv in levels], axis=0))
    rel = np.where(np.isfinite(rel), rel, np.inf)
    res = dict(val=r2, rel=rel, perturbed=True)
    if want_grad:
        res["grad"] = rich("grad")[1]
        res["dlogw"] = rich("dlogw")[1]
        # gradients lose one more order: require their own extrapolation to settle too
        g1, g2 = rich("grad")
        with np.errstate(divide="ignore", invalid="ignore"):
            gscale = np.abs(g2).max(axis=0) + np.abs(r2)
            gerr = np.abs(g2 - g1).max(axis=0) / gscale
        res["rel"] = np.maximum(res["rel"], np.where(np.isfinite(gerr), gerr * 1e-2, np.inf))
    return res


def _mp_value(a_s, b_s, z):
    import mpmath

    with mpmath.workdps(MP_DPS):
        try:
            v = mpmath.meijerg(a_s, b_s, mpmath.mpf(float(z)))
        except (ValueError, ZeroDivisionError, mpmath.libmp.NoConvergence):
            return math.nan
        try:
            return float(mpmath.re(v))
        except OverflowError:
            return math.inf


def _mp_grad(a_s, b_s, z):
    """Value and gradient at one point with mpmath (numerical derivatives at 30 digits)."""
    import mpmath

    m, n, a, b = _split(a_s, b_s)
    p = len(a)
    theta = [*a, *b, float(z)]

    def f_of(i):
        def f(t):
            th = list(theta)
            th[i] = t
            aa, bb = th[:p], th[p:-1]
            return mpmath.meijerg([aa[:n], aa[n:]], [bb[:m], bb[m:]], th[-1])
        return f

    with mpmath.workdps(MP_DPS):
        try:
            val = float(mpmath.re(f_of(0)(theta[0]) if theta else mpmath.nan))
            g = [float(mpmath.re(mpmath.diff(f_of(i), theta[i]))) for i in range(len(theta))]
        except (ValueError, ZeroDivisionError, OverflowError, mpmath.libmp.NoConvergence):
            return math.nan, [math.nan] * len(theta)
    return val, g


def _evaluate(a_s, b_s, z, want_grad, return_info=False, max_fallback=None):
    with np.errstate(all="ignore"):  # every estimate below handles inf / nan explicitly
        return _evaluate_ignoring_fp(a_s, b_s, z, want_grad, return_info, max_fallback)


def _evaluate_ignoring_fp(a_s, b_s, z, want_grad, return_info, max_fallback):
    m, n, a, b = _split(a_s, b_s)
    p, q = len(a), len(b)
    z = np.asarray(z, dtype=float)
    shape = z.shape
    z = z.ravel()
    if z.size and not z.min() > 0:  # (nan fails too)
        raise ValueError("meijerg: z must be > 0 (and finite)")
    if q == 0 and p == 0:
        raise ValueError("meijerg: p + q must be positive")
    N = z.size
    logz = np.log(z)
    if p < q or (p == q and N and z.max() < 1.0):
        one_side = (True, m, n, a, b, logz)
    elif p > q or (p == q and N and z.min() > 1.0):
        one_side = (False, n, m, 1.0 - b, 1.0 - a, -logz)
    else:
        one_side = None
    pre = None  # (side, result) already computed for all points
    if one_side is not None and one_side[1] > 0 and not return_info:
        # the common case: every point on one side, all certified by the fast path
        use_direct, mm, nn, aa, bb, lw = one_side
        res = _fast_or_perturbed(mm, nn, aa, bb, lw, want_grad)
        pre = (use_direct, res)
        if res is not None and res.get("allgood"):
            if not want_grad:
                return res["val"].reshape(shape)
            pp = len(aa)
            g_aa, g_bb = res["grad"][:pp], res["grad"][pp:]
            if use_direct:
                ga, gb, gz = g_aa, g_bb, res["dlogw"] / z
            else:
                ga, gb, gz = -g_bb, -g_aa, -res["dlogw"] / z
            if (np.isfinite(ga).all() and np.isfinite(gb).all() and np.isfinite(gz).all()):
                return res["val"].reshape(shape), ga.reshape((p,) + shape), gb.reshape((q,) + shape), \
                    gz.reshape(shape)
    val = np.full(N, np.nan)
    ga = np.full((p, N), np.nan) if want_grad else None
    gb = np.full((q, N), np.nan) if want_grad else None
    gz = np.full(N, np.nan) if want_grad else None
    rel = np.full(N, np.inf)
    perturbed = np.zeros(N, dtype=bool)
    if p < q:
        sides = [(True, slice(None))]
    elif p > q:
        sides = [(False, slice(None))]
    else:
        direct = z < 1.0
        sides = [(u, np.flatnonzero(direct == u)) for u in (True, False)]
    for use_direct, sel in sides:
        if not isinstance(sel, slice) and sel.size == 0:
            continue
        if use_direct:
            mm, nn, aa, bb, lw = m, n, a, b, logz[sel]
        else:  # G^{n,m}_{q,p}(1 - b; 1 - a | 1/z)
            mm, nn, aa, bb, lw = n, m, 1.0 - b, 1.0 - a, -logz[sel]
        if mm == 0:  # empty residue sum: the function is identically zero on this side
            val[sel] = 0.0
            rel[sel] = 0.0
            if want_grad:
                ga[:, sel] = gb[:, sel] = 0.0
                gz[sel] = 0.0
            continue
        if pre is not None and pre[0] == use_direct:  # the same points, in the same order
            res = pre[1]
        else:
            res = _fast_or_perturbed(mm, nn, aa, bb, lw, want_grad)
        if res is None:
            continue  # all these points go to mpmath
        val[sel] = res["val"]
        rel[sel] = res["rel"]
        perturbed[sel] = res["perturbed"]
        if want_grad:
            pp = len(aa)
            g_aa, g_bb = res["grad"][:pp], res["grad"][pp:]
            if use_direct:
                ga[:, sel], gb[:, sel] = g_aa, g_bb
                gz[sel] = res["dlogw"] / z[sel]
            else:  # aa = 1 - b, bb = 1 - a, log w = -log z
                gb[:, sel], ga[:, sel] = -g_aa, -g_bb
                gz[sel] = -res["dlogw"] / z[sel]
    if PERTURBED_TOL == TOL:
        bad = ~(rel < TOL)
    else:
        bad = ~(rel < np.where(perturbed, PERTURBED_TOL, TOL))
    bad |= ~np.isfinite(val)
    if want_grad:
        bad |= ~(np.isfinite(ga).all(axis=0) & np.isfinite(gb).all(axis=0) & np.isfinite(gz))
    if not return_info and not bad.any():  # the common case
        if want_grad:
            return val.reshape(shape), ga.reshape((p,) + shape), gb.reshape((q,) + shape), gz.reshape(shape)
        return val.reshape(shape)
    a_l = [list(map(float, a_s[0])), list(map(float, a_s[1]))]
    b_l = [list(map(float, b_s[0])), list(map(float, b_s[1]))]
    bad_idx = np.nonzero(bad)[0]
    if max_fallback is not None and bad_idx.size > max_fallback:
        val[bad_idx] = np.nan  # too many slow points: say so rather than spend minutes
        if want_grad:
            ga[:, bad_idx] = gb[:, bad_idx] = np.nan
            gz[bad_idx] = np.nan
        bad_idx = bad_idx[:0]
    for i in bad_idx:
        if want_grad:
            v, g = _mp_grad(a_l, b_l, z[i])
            val[i] = v
            ga[:, i], gb[:, i], gz[i] = g[:p], g[p:p + q], g[-1]
        else:
            val[i] = _mp_value(a_l, b_l, z[i])
    info = dict(fallback=bad.reshape(shape), perturbed=perturbed.reshape(shape), rel_error=rel.reshape(shape))
    if want_grad:
        out = (val.reshape(shape), ga.reshape((p,) + shape), gb.reshape((q,) + shape), gz.reshape(shape))
        return (*out, info) if return_info else out
    return (val.reshape(shape), info) if return_info else val.reshape(shape)


def meijerg(a_s: Any, b_s: Any, z: Any, *, return_info: bool = False, max_fallback: int | None = None):
    """G^{m,n}_{p,q}(a_s; b_s | z) for an array of z > 0 (float64), mpmath's convention.

    Points the fast path cannot certify are recomputed with mpmath (30 digits); with
    ``max_fallback=k``, if more than k points need that, they are returned as NaN instead (the
    estimator uses this to keep an optimisation step cheap).

    With ``return_info=True`` also returns ``{"fallback": mask of points computed by mpmath,
    "perturbed": mask of points computed by perturb-and-extrapolate, "rel_error": the fast
    path's relative error estimate}``.
    """
    return _evaluate(a_s, b_s, z, False, return_info, max_fallback)


def meijerg_grad(a_s: Any, b_s: Any, z: Any, *, return_info: bool = False, max_fallback: int | None = None):
    """Value and analytic gradient: ``(G, dG/da (p, N), dG/db (q, N), dG/dz (N,))``.

    ``a`` and ``b`` are flattened in mpmath's order: a_1..a_p, b_1..b_q.
    """
    return _evaluate(a_s, b_s, z, True, return_info, max_fallback)
