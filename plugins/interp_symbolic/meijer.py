"""Vectorised Meijer G-function G^{m,n}_{p,q}(a; b | z) for real parameters and z > 0.

Argument convention of ``mpmath.meijerg``: ``a_s = [[a_1..a_n], [a_{n+1}..a_p]]``,
``b_s = [[b_1..b_m], [b_{m+1}..b_q]]``.

Method (Slater's theorem written as the residue sum).  For p < q, or p == q and z < 1,

    G = sum_{h<=m} sum_{k>=0} (-1)^k / k! * prod_{j<=m, j!=h} Gamma(b_j - b_h - k)
        * prod_{j<=n} Gamma(1 - a_j + b_h + k)
        / ( prod_{j>m} Gamma(1 - b_j + b_h + k) * prod_{j>n} Gamma(a_j - b_h - k) ) * z^(b_h + k)

and for p > q, or p == q and z > 1, the same sum for G^{n,m}_{q,p}(1 - b; 1 - a | 1/z), which is
the same function.  Every term is computed in log space (``gammaln``/``gammasgn``, reciprocal
Gamma zeros handled exactly, including their derivative limits), so terms never overflow; the
series for all points are summed with one max-shift per point.  The gradient with respect to
every a, b and z is the same sum with digamma factors (term by term).

Strategy, so that no silently wrong number is returned:

* every point carries an error estimate: rounding (eps times the sum of |terms|, scaled by the
  size of the logs) plus the tail bound of the truncated series.  Points whose estimate exceeds
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
K_SCHEDULE = (48, 120, 300, 800, 1600)
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


def _series(m, n, a, b, logw, K, want_grad):
    """The residue sum with K terms per first-group parameter.

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
    E_all, sgn_all = [], []
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


def _fast(m, n, a, b, logw, want_grad):
    """Adaptive number of terms; returns the dict of ``_series`` plus relative error.

    Every point starts with the shortest series; points whose tail is not yet certified are
    recomputed with the next, longer one (only those points).
    """
    N = logw.shape[0]
    P = len(a) + len(b)
    res = dict(val=np.full(N, np.nan), grad=np.full((P, N), np.nan) if want_grad else None,
               dlogw=np.full(N, np.nan) if want_grad else None, rel=np.full(N, np.inf))
    level = np.zeros(N, dtype=int)
    for li, K in enumerate(K_SCHEDULE):
        todo = np.nonzero(level == li)[0]
        if todo.size == 0:
            continue
        out = _series(m, n, a, b, logw[todo], K, want_grad)
        if out is None:
            return None
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.where(out["err"] == 0, 0.0, out["err"] / np.abs(out["val"]))
        good = out["certified"] & (rel < TOL)
        idx = todo[good]
        res["val"][idx] = out["val"][good]
        res["rel"][idx] = rel[good]
        if want_grad:
            res["grad"][:, idx] = out["grad"][:, good]
            res["dlogw"][idx] = out["dlogw"][good]
        # points whose truncation error is negligible but that cancel too much will not
        # improve with more terms: leave them to the fallback
        with np.errstate(divide="ignore", invalid="ignore"):
            tail_ok = out["certified"] & (out["tail"] <= 1e-3 * TOL * np.abs(out["val"]))
        stuck = tail_ok & ~good
        res["rel"][todo[stuck]] = rel[stuck]
        retry = todo[~good & ~stuck]
        level[retry] = li + 1  # beyond the last entry: left to the fallback
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
    m, n, a, b = _split(a_s, b_s)
    p, q = len(a), len(b)
    z = np.asarray(z, dtype=float)
    shape = z.shape
    z = z.ravel()
    if np.any(~(z > 0)):
        raise ValueError("meijerg: z must be > 0 (and finite)")
    if q == 0 and p == 0:
        raise ValueError("meijerg: p + q must be positive")
    N = z.size
    val = np.full(N, np.nan)
    ga = np.full((p, N), np.nan)
    gb = np.full((q, N), np.nan)
    gz = np.full(N, np.nan)
    rel = np.full(N, np.inf)
    perturbed = np.zeros(N, dtype=bool)
    logz = np.log(z)
    if p < q:
        direct = np.ones(N, dtype=bool)
    elif p > q:
        direct = np.zeros(N, dtype=bool)
    else:
        direct = z < 1.0
    for use_direct in (True, False):
        sel = np.nonzero(direct == use_direct)[0]
        if sel.size == 0:
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
    bad = ~(rel < np.where(perturbed, PERTURBED_TOL, TOL)) | ~np.isfinite(val)
    if want_grad:
        bad |= ~(np.isfinite(ga).all(axis=0) & np.isfinite(gb).all(axis=0) & np.isfinite(gz))
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
