"""The residue sums at many points with one scaled matrix product per call.

For each series the coefficients are scaled to the largest argument w_max of the points (log
space, one common shift, so nothing overflows) and the points enter only through the powers
x^k = (w / w_max)^k <= 1.  Value, sum of |terms|, rounding weights, the gradient and d/dlog w are
the columns of one product (N, K) @ (K, columns), shared by all series of the expansion.  The
number of terms K <= Kcap is chosen from the coefficients at w_max (``bounds.choose_K``); long
p == q series first compute only about as many coefficients as K can reach (``first_length``).
Points spanning too many orders of magnitude for one scale raise ``ScaleTooWide`` (the caller
then uses ``logspace``).  Call with numpy floating-point errors ignored.
"""

from __future__ import annotations

import contextlib
import math

import attrs
import numpy as np
from interp.blas import single_threaded_blas

from .bounds import EPS, TERMS_LOG, ScaledPoints, choose_K, scaled_rounding, scaled_tail
from .coefficients import SHORT_SERIES, BlockCoeffs, cached_block_coeffs, k_tables
from .series import NumeratorPole, Parameters, SeriesResult

SCALE_RANGE_LOG = 600.0  # the first term may lie at most e^-600 below the common scale
DIRECT_POWERS_UP_TO = 96  # up to this K every power is exp(k log x); above, x^(B i) x^j
POWER_BLOCK_SMALL = 16  # B for K <= POWER_BLOCK_SWITCH
POWER_BLOCK_LARGE = 32
POWER_BLOCK_SWITCH = 400
BLAS_THREADS_FROM = 2 ** 18  # multiply-adds from which OpenBLAS runs a product on several threads
LENGTH_GRID = 128  # first_length is a multiple of this (> SHORT_SERIES: the same recurrences as Kcap)


class ScaleTooWide(Exception):
    """The points span too many orders of magnitude for one common scale."""


@attrs.define(eq=False)
class ScaledBlock:
    """One series ready for the product: its K terms' log magnitudes at w_max (``g``, including
    the derivative terms at 1/Gamma zeros), the common shift ``Mh``, the columns ``C`` (K, ncol)
    and the coefficients' rounding weights ``cw``; ``dead`` as in ``BlockCoeffs``."""

    h: int
    K: int
    g: np.ndarray
    Mh: float
    C: np.ndarray
    cw: np.ndarray
    dead: np.ndarray


@attrs.define(eq=False)
class BlockSum:
    """One series summed at every point, relative to exp(s): value, rounding (units of eps),
    tail bound, and where the tail bound holds (None: everywhere); ``R`` its product rows."""

    s: np.ndarray
    R: np.ndarray
    val: np.ndarray
    rnd: np.ndarray
    tail: np.ndarray | float
    ok: np.ndarray | None


def sum_scaled(par: Parameters, logw: np.ndarray, Kcap: int, want_grad: bool, cache: dict) -> SeriesResult:
    """The residue sums of ``par`` at the points w = exp(logw) with at most Kcap terms each.

    ``cache`` maps h to the coefficients of earlier calls of the same evaluation (reused while
    they are long enough).  Raises ``NumeratorPole`` or ``ScaleTooWide``.
    """
    pts = ScaledPoints.of(logw, par.p == par.q)
    blocks = [_block(par, h, pts, Kcap, want_grad, cache) for h in range(par.m)]
    product = _product(pts.logx, blocks)
    parts = []
    for i, bl in enumerate(blocks):
        R = product.R[i * product.ncol:(i + 1) * product.ncol]
        s = bl.Mh + par.b[bl.h] * logw
        rnd = scaled_rounding(R, bl.cw, bl.K, bl.Mh, s, pts, product.nsum)
        tb = scaled_tail(bl.g, bl.dead, bl.Mh, pts, product.powers)
        parts.append(BlockSum(s, R, R[0], rnd, tb.tail, tb.ok))
    out = _combine(parts, logw, par.p, par.q, want_grad)
    out.capped = any(bl.K >= Kcap for bl in blocks)
    return out


def first_length(pts: ScaledPoints, Kcap: int) -> int:
    """How many coefficients to compute first: for long p == q series ``bounds.TERMS_LOG`` /
    -log w_max terms (rounded up to LENGTH_GRID, so that calls at nearby points share cached
    coefficients), often well below the cap of the schedule's level; Kcap otherwise."""
    if not pts.peq or Kcap <= SHORT_SERIES or pts.lx >= 0.0:
        return Kcap
    need = TERMS_LOG / -pts.lx
    return Kcap if need >= Kcap else min(Kcap, LENGTH_GRID * math.ceil(need / LENGTH_GRID))


def _coeffs(par: Parameters, h: int, K: int, want_grad: bool, cache: dict) -> BlockCoeffs:
    """At least K coefficients of series h: the longest of this evaluation if long enough
    (``cache``), else computed (and kept there).  Raises ``NumeratorPole``."""
    co = cache.get(h)
    if co is None or co.K < K:
        co = cached_block_coeffs(par, h, K, want_grad)
        if co is None:
            raise NumeratorPole
        cache[h] = co
    return co


def _block(par: Parameters, h: int, pts: ScaledPoints, Kcap: int, want_grad: bool, cache: dict) -> ScaledBlock:
    """Series h ready for the product, from the first ``first_length`` coefficients, or all
    Kcap when K is not settled within them: K depends only on the terms up to K, and each
    coefficient only on the parameters and its index (``coefficients``), so the block is the
    same as from Kcap coefficients."""
    co = _coeffs(par, h, first_length(pts, Kcap), want_grad, cache)
    bl = _scaled_block(co, par.b[h], h, pts, Kcap, want_grad)
    if bl.K < co.K or co.K >= Kcap:
        return bl
    return _scaled_block(_coeffs(par, h, Kcap, want_grad, cache), par.b[h], h, pts, Kcap, want_grad)


def _scaled_block(co: BlockCoeffs, b_h: float, h: int, pts: ScaledPoints, Kcap: int,
                  want_grad: bool) -> ScaledBlock:
    """Choose K at w_max and form the block's columns: terms d, |d|, rounding weights, k |d|
    and, with gradient, d (b_h + k) (for d/dlog w) and the gradient rows."""
    k_all = k_tables(co.K).k
    lx = pts.lx
    graw = co.log_mag + k_all * lx
    G_all = np.where(co.n_zeros == 0, graw, -np.inf) if co.has_zeros else graw
    lim = co.limits if want_grad else None
    if lim is not None:
        one_all = co.n_zeros == 1
        Gl_all = np.where(one_all, graw + lim.log, -np.inf)
        g_all = np.maximum(G_all, Gl_all)
        dead_all = co.dead & ~one_all
    else:
        g_all = G_all
        dead_all = co.dead
    K = choose_K(g_all[:Kcap], dead_all[:Kcap] if co.has_zeros else None, Kcap,
                 math.exp(lx) if pts.peq else 0.0)
    G = G_all[:K]
    g = g_all[:K]
    Mh = float(g.max())
    if not math.isfinite(Mh):
        Mh = 0.0
    if co.has_zeros:
        first = np.flatnonzero(co.n_zeros[:K] == 0)
        k0 = int(first[0]) if first.size else 0
        g0 = G[k0] if first.size else Mh
    else:
        k0, g0 = 0, G[0]
    if g0 - Mh + k0 * (pts.lxmin - lx) < -SCALE_RANGE_LOG:
        raise ScaleTooWide
    k = k_all[:K]
    S = co.sign[:K]
    d = S * np.exp(G - Mh)  # exactly 0 where a 1/Gamma factor vanishes (G = -inf)
    ad = np.abs(d)
    C = np.empty((K, 4 + (1 + co.dlog.shape[1] if want_grad else 0)))
    C[:, 0] = d
    C[:, 1] = ad
    cw = ad * (co.log_bound[:K] + k * abs(lx))
    C[:, 2] = cw
    C[:, 3] = k * ad
    if want_grad:
        C[:, 4] = d * (b_h + k)
        Cg = d[:, None] * co.dlog[:K]
        if lim is not None:
            dl = S * lim.sign[:K] * np.exp(Gl_all[:K] - Mh)
            Cg += dl[:, None] * lim.coef[:K]
        C[:, 5:] = Cg
    return ScaledBlock(h, K, g, Mh, C, cw, dead_all)


@attrs.define(eq=False)
class PowerProduct:
    """The powers times the stacked columns: ``R`` (ncol * blocks, N); ``powers`` the matrix
    x^k (N, K) when it was formed (None for the blocked powers); ``nsum`` the number of terms
    of the longest sum behind each entry (its rounding)."""

    R: np.ndarray
    ncol: int
    powers: np.ndarray | None
    nsum: float


def _product(logx: np.ndarray, blocks: list[ScaledBlock]) -> PowerProduct:
    """One product for all blocks: x^k is shared, the columns are stacked."""
    K = max(bl.K for bl in blocks)
    ncol = blocks[0].C.shape[1]
    if len(blocks) == 1 and blocks[0].K == K:
        C = blocks[0].C
    else:
        C = np.zeros((K, ncol * len(blocks)))
        for i, bl in enumerate(blocks):
            C[:bl.K, i * ncol:(i + 1) * ncol] = bl.C
    with _one_blas_thread(logx.shape[0] * K * C.shape[1]):
        if K <= DIRECT_POWERS_UP_TO:
            return _direct_powers(logx, C, ncol)
        return _blocked_powers(logx, C, ncol)


def _direct_powers(logx: np.ndarray, C: np.ndarray, ncol: int) -> PowerProduct:
    """x^k = exp(k log x): relative error eps k |log x|.  The products k log x as a rank-one
    matrix product (exact: one product per entry, no sums; faster than an outer product with a
    short inner dimension; k from one shared table: K varies from call to call)."""
    K = C.shape[0]
    k = k_tables(DIRECT_POWERS_UP_TO).k[:K]
    V = np.dot(logx.reshape(-1, 1), k.reshape(1, -1))
    np.exp(V, out=V)
    R_all = np.ascontiguousarray((V @ C).T)  # (contiguous rows: cheaper to use below)
    return PowerProduct(R_all, ncol, V, float(K))  # the K-term dot products


def _blocked_powers(logx: np.ndarray, C: np.ndarray, ncol: int) -> PowerProduct:
    """x^(B i + j) = x^(B i) x^j: N (K / B + B) exp instead of N K, sums of B and K / B."""
    N, (K, ncol_all) = logx.shape[0], C.shape
    B = POWER_BLOCK_SMALL if K <= POWER_BLOCK_SWITCH else POWER_BLOCK_LARGE
    nA = -(-K // B)
    if nA * B > K:
        C = np.concatenate([C, np.zeros((nA * B - K, ncol_all))])
    Xb = np.exp(np.multiply.outer(logx, k_tables(B).k))
    XA = np.exp(np.multiply.outer(logx, B * k_tables(nA).k))
    T = Xb @ C.reshape(nA, B, ncol_all).transpose(1, 0, 2).reshape(B, nA * ncol_all)
    R_all = np.matmul(XA[:, None, :], T.reshape(N, nA, ncol_all))[:, 0, :].T  # (faster than einsum)
    return PowerProduct(R_all, ncol, None, float(B + nA + 1))


def _one_blas_thread(size: int):
    """BLAS on one thread for a product of ``size`` multiply-adds, from the size at which
    OpenBLAS would split it over threads: these products are thin (few columns, or a short
    inner dimension), and on a busy machine the threads wait for each other far longer than
    the product takes (``benchmarks/symbolic_meijerg.py`` prints both)."""
    if size < BLAS_THREADS_FROM:
        return contextlib.nullcontext()
    return single_threaded_blas()


def _combine(parts: list[BlockSum], logw: np.ndarray, p: int, q: int, want_grad: bool) -> SeriesResult:
    """Add the series at their common scale exp(max s), with the log w factor of d/d b_h."""
    N = logw.shape[0]
    if len(parts) == 1:
        pt = parts[0]
        Mp, val, rnd, tail, certified = pt.s, pt.val, pt.rnd, pt.tail, pt.ok  # ok None: every point
        if want_grad:
            dlogw = pt.R[4]
            grad = pt.R[5:].copy()
            grad[p] += logw * val
    else:
        Mp = parts[0].s
        for pt in parts[1:]:
            Mp = np.maximum(Mp, pt.s)
        val = np.zeros(N)
        rnd = np.zeros(N)
        tail = np.zeros(N)
        certified = np.ones(N, dtype=bool)
        grad = np.zeros((p + q, N)) if want_grad else None
        dlogw = np.zeros(N) if want_grad else None
        for h, pt in enumerate(parts):
            f = np.exp(pt.s - Mp)
            val += f * pt.val
            rnd += f * pt.rnd
            tail += f * pt.tail
            if pt.ok is not None:
                certified &= pt.ok
            if want_grad:
                dlogw += f * pt.R[4]
                grad += f * pt.R[5:]
                grad[p + h] += f * logw * pt.val
    scale = np.exp(Mp)
    out_val = val * scale
    err = (EPS * rnd + tail) * scale
    if want_grad:
        grad = grad * scale
        dlogw = dlogw * scale
    else:
        grad = dlogw = None
    fin = np.isfinite(out_val + err)
    return SeriesResult(out_val, grad, dlogw, err, tail * scale, fin if certified is None else certified & fin)
