"""The residue sums with every term in log space per point.

Slower than ``scaled`` (one exp per point and term, coefficients per call), but with no common
scale: used when the points span too many orders of magnitude for one.  Each series is read
from its Gamma factors (``series.residue_factors``) directly.
"""

from __future__ import annotations

import attrs
import numpy as np
from scipy.special import digamma, gammaln, gammasgn

from .bounds import EPS, ROUNDING_CONSTANTS, log_tail
from .series import NumeratorPole, Parameters, SeriesResult, is_pole, residue_factors

MAX_EXP = 700.0  # terms are formed as exp(E - M) with E - M clipped here (no overflow)
MAX_SCALE_EXP = 709.0  # exp(M) is clipped here; M above MAX_EXP is reported as overflow


@attrs.frozen(eq=False)
class LogBlock:
    """Term k = ``S[k] exp(L[k]) w^expo[k]`` where ``Z[k] == 0`` (its count of vanishing
    1/Gamma factors); ``D`` (K, P) d log|term| / d(a, b); for terms with one zero the
    derivative is ``S lim_sign exp(L + lim_log) lim_coef``."""

    S: np.ndarray
    L: np.ndarray
    expo: np.ndarray
    Z: np.ndarray
    D: np.ndarray
    lim_sign: np.ndarray
    lim_log: np.ndarray
    lim_coef: np.ndarray


def _log_block(par: Parameters, h: int, K: int, want_grad: bool) -> LogBlock:
    """The K terms of the series at the poles b_h + k (raises ``NumeratorPole``)."""
    P = par.p + par.q
    k = np.arange(K, dtype=float)
    L = -gammaln(k + 1.0)
    S = np.where(np.arange(K) % 2 == 0, 1.0, -1.0)
    Z = np.zeros(K, dtype=int)
    D = np.zeros((K, P))
    lim_log = np.zeros(K)
    lim_sign = np.ones(K)
    lim_coef = np.zeros((K, P))
    fac = residue_factors(par, h)
    for f in range(len(fac)):
        x = fac.offset[f] + fac.slope[f] * k
        e = fac.power[f]
        pole = is_pole(x)
        if e > 0 and pole.any():
            raise NumeratorPole
        lg = np.where(pole, 0.0, gammaln(np.where(pole, 1.0, x)))
        sg = np.where(pole, 1.0, gammasgn(np.where(pole, 1.0, x)))
        L = L + e * lg
        S = S * sg
        Z = Z + pole
        if want_grad:
            psi = np.where(pole, 0.0, digamma(np.where(pole, 1.0, x)))
            D += np.multiply.outer(psi, e * fac.coef[f])
            if pole.any():  # d/dx 1/Gamma(x) at x = -r is (-1)^r r!
                r = -x[pole]
                lim_log[pole] = gammaln(r + 1.0)
                lim_sign[pole] = np.where(r % 2 == 0, 1.0, -1.0)
                lim_coef[pole] = -e * fac.coef[f]  # e = -1 for denominators: +coef
    return LogBlock(S, L, par.b[h] + k, Z, D, lim_sign, lim_log, lim_coef)


@attrs.frozen(eq=False)
class Exponents:
    """log|term| (N, K) of each block and per point the largest of them, ``M`` (the scale)."""

    E: list
    M: np.ndarray


def _exponents(blocks: list[LogBlock], logw: np.ndarray, want_grad: bool) -> Exponents:
    E_all = []
    M = np.full(logw.shape[0], -np.inf)
    for blk in blocks:
        E = blk.L[None, :] + blk.expo[None, :] * logw[:, None]
        Ev = np.where((blk.Z == 0)[None, :], E, -np.inf)
        M = np.maximum(M, Ev.max(axis=1))
        if want_grad:
            one = blk.Z == 1
            if one.any():
                El = np.where(one[None, :], E + blk.lim_log[None, :], -np.inf)
                M = np.maximum(M, El.max(axis=1))
        E_all.append(E)
    return Exponents(E_all, np.where(np.isfinite(M), M, 0.0))


@attrs.define
class _Sums:
    """Running sums over the blocks, relative to exp(M) per point."""

    val: np.ndarray
    rnd: np.ndarray
    tail: np.ndarray
    certified: np.ndarray
    grad: np.ndarray | None
    dlogw: np.ndarray | None


def sum_log(par: Parameters, logw: np.ndarray, K: int, want_grad: bool) -> SeriesResult:
    """The residue sums of ``par`` with K terms per series, every term in log space per point;
    the same result as ``scaled.sum_scaled``.  Raises ``NumeratorPole``."""
    P = par.p + par.q
    N = logw.shape[0]
    blocks = [_log_block(par, h, K, want_grad) for h in range(par.m)]
    ex = _exponents(blocks, logw, want_grad)
    M = ex.M
    acc = _Sums(np.zeros(N), np.zeros(N), np.zeros(N), np.ones(N, dtype=bool),
                np.zeros((P, N)) if want_grad else None, np.zeros(N) if want_grad else None)
    for h, (blk, E) in enumerate(zip(blocks, ex.E)):
        _add_block(acc, blk, E, M, logw, par.p + h, want_grad)
    scale = np.exp(np.minimum(M, MAX_SCALE_EXP))
    overflow = M > MAX_EXP
    err = EPS * acc.rnd + acc.tail
    out_val = acc.val * scale
    grad = dlogw = None
    if want_grad:
        grad = acc.grad * scale[None, :]
        dlogw = acc.dlogw * scale
    return SeriesResult(out_val, grad, dlogw, err * scale, acc.tail * scale,
                        acc.certified & ~overflow & np.isfinite(out_val))


def _add_block(acc: _Sums, blk: LogBlock, E: np.ndarray, M: np.ndarray, logw: np.ndarray, ib: int,
               want_grad: bool) -> None:
    """Add one series to the running sums; ``ib`` is the index of its b_h in the gradient."""
    live = blk.Z == 0
    T = np.where(live[None, :], blk.S[None, :] * np.exp(np.minimum(E - M[:, None], MAX_EXP)), 0.0)
    absT = np.abs(T)
    acc.val += T.sum(axis=1)
    acc.rnd += (absT * (ROUNDING_CONSTANTS + np.abs(blk.L)[None, :]
                        + np.abs(blk.expo[None, :] * logw[:, None]))).sum(axis=1)
    if E.shape[1] >= 3:
        tb = log_tail(np.where(live[None, :], E, -np.inf), M)
        acc.tail += tb.tail
        acc.certified &= tb.ok
    if want_grad:
        acc.grad += (T @ blk.D).T
        acc.dlogw += (T * blk.expo[None, :]).sum(axis=1)
        one = blk.Z == 1
        if one.any():
            Tl = np.where(
                one[None, :],
                (blk.S * blk.lim_sign)[None, :] * np.exp(np.minimum(E + blk.lim_log[None, :] - M[:, None], MAX_EXP)),
                0.0,
            )
            acc.grad += (Tl @ blk.lim_coef).T
        acc.grad[ib] += logw * T.sum(axis=1)  # the log w factor of d/d b_h
