"""Error bounds of a truncated, rounded residue sum, and which points the fast path accepts.

Every point carries an error estimate: rounding (worst case for the powers, the sums and the
scale; for the coefficients' relative errors 4 standard deviations of independent roundings, or
the worst case if smaller) plus the tail bound of the truncated series.  A point is accepted
when the estimate is below ``TOL`` relative; the others go to the next, longer series or to
mpmath, so that no silently wrong number is returned.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import attrs
import numpy as np

if TYPE_CHECKING:
    from .series import SeriesResult

EPS = np.finfo(float).eps
TOL = 1e-9  # accepted relative error estimate of the fast path (a conservative bound)
TAIL_LOG = 36.0  # truncate once the tail bound is below e^-TAIL_LOG (~ eps) of the largest term
TERMS_LOG = 60.0  # p == q: K * -log w_max stays below this (the terms a series needs, w_max < 1)
PREFIX_SEARCH_FROM = 128  # choose_K looks at the first PREFIX_SEARCH terms first above this length
PREFIX_SEARCH = 96
ROUNDING_CONSTANTS = 8.0  # eps units covering the constant part of every term's rounding
STD_DEVS = 4.0  # coefficient rounding: this many standard deviations of independent roundings
WORST_CASE_UP_TO = 96  # up to this many terms the coefficients' rounding is taken in the worst case
STUCK_TAIL = 1e-3  # tail below STUCK_TAIL * TOL of the value: more terms cannot help


def choose_K(g: np.ndarray, dead: np.ndarray | None, Kcap: int, rlim: float) -> int:
    """Smallest K <= Kcap such that, at the largest argument (log magnitudes g of the terms),
    the last two terms decrease and the tail bound t_{K-1} r / (1 - r) is below e^-TAIL_LOG
    (about eps, i.e. below the rounding error of the sum) of the largest term so far, with r the
    larger of the last ratio and the ratio's limit ``rlim`` (w_max for p == q, 0 for p < q);
    ``dead`` marks terms of a terminated series (None: it does not terminate).  Kcap if there
    is none."""
    Kc = g.shape[0]
    if Kc < 4:
        return Kc
    if Kc > PREFIX_SEARCH_FROM:  # the conditions on a prefix only depend on that prefix: look there first
        K = choose_K(g[:PREFIX_SEARCH], None if dead is None else dead[:PREFIX_SEARCH], PREFIX_SEARCH, rlim)
        if K < PREFIX_SEARCH:
            return K
    runmax = np.maximum.accumulate(g)
    d1 = g[1:] - g[:-1]
    r = np.exp(d1[1:])
    if rlim > 0.0:  # (max with 0 changes nothing: exp >= 0, nan stays nan)
        np.maximum(r, rlim, out=r)
    tail = g[2:] + np.log(r / (1.0 - r))
    # (r < 1 is implied: r >= 1 or NaN makes the tail NaN or inf, which fails the comparison)
    cond = (d1[:-1] < 0) & (tail < runmax[2:] - TAIL_LOG)
    if dead is not None and dead.any():
        cond |= dead[2:] & dead[1:-1]
    c1 = cond[1:]  # K >= 4
    i = int(c1.argmax())
    return i + 4 if c1[i] else Kc


@attrs.define(eq=False)
class Acceptance:
    """``rel``: relative error estimate per point; ``good``: accepted (certified tail and
    rel < TOL; an exact zero, err == 0, counts as exact); ``all_good``: every point accepted
    with no exact zero to account for (the common case)."""

    rel: np.ndarray
    good: np.ndarray
    all_good: bool


def accept(out: SeriesResult) -> Acceptance:
    rel = out.err / np.abs(out.val)
    good = out.certified & (rel < TOL)
    if good.all():
        return Acceptance(rel, good, True)
    rel[out.err == 0] = 0.0  # (0 / 0 above)
    return Acceptance(rel, out.certified & (rel < TOL), False)


def stuck(out: SeriesResult, acc: Acceptance) -> np.ndarray:
    """Rejected points whose truncation error is already negligible: they cancel too much and
    will not improve with more terms (left to the fallback)."""
    tail_ok = out.certified & (out.tail <= STUCK_TAIL * TOL * np.abs(out.val))
    return tail_ok & ~acc.good


@attrs.define(eq=False)
class ScaledPoints:
    """The points relative to the largest argument: log w, lx = log w_max, lxmin = log w_min,
    logx = log(w / w_max) <= 0 and ``pw``, the relative error of x^k per k in units of eps;
    ``peq``: p == q (the ratio of successive terms tends to w, not to 0)."""

    logw: np.ndarray
    lx: float
    lxmin: float
    logx: np.ndarray
    pw: np.ndarray
    peq: bool

    @classmethod
    def of(cls, logw: np.ndarray, peq: bool) -> ScaledPoints:
        lx = float(logw.max())
        logx = logw - lx
        return cls(logw, lx, float(logw.min()), logx, np.abs(logw) + (abs(lx) - logx), peq)


def scaled_rounding(R: np.ndarray, cw: np.ndarray, K: int, Mh: float, s: np.ndarray, pts: ScaledPoints,
                    nsum: float) -> np.ndarray:
    """Rounding of one block's scaled sum, in units of eps of its scale exp(s).

    ``R`` holds the block's columns times the powers (value, sum of |terms|, coefficient
    rounding weights, k |terms|), ``cw`` the rounding weights of the coefficients.
    x^k = exp(k log x) (times exp(k' log x)) errs by 3 + k (|log w| + |log w_max| + |log x|);
    the coefficients' relative errors sigma_k (|log_mag|, log_err, k |log w_max|) are
    independent roundings, so their effect on the sum has a standard deviation
    <= sqrt(max_k |t_k| sigma_k * sum_k |t_k| sigma_k) (STD_DEVS of those, or the worst case
    sum_k |t_k| sigma_k if smaller: an alternating series near |w| = 1 cancels far more than its
    coefficients' rounding errors do); worst case for the powers, the K-term sum (``nsum``) and
    the scale exp(s); ROUNDING_CONSTANTS covers the constants.
    """
    R2 = R[2] if K <= WORST_CASE_UP_TO else np.minimum(R[2], STD_DEVS * np.sqrt(R[2] * float(cw.max())))
    return R2 + pts.pw * R[3] + R[1] * (ROUNDING_CONSTANTS + nsum + abs(Mh) + np.abs(s))


@attrs.define(eq=False)
class TailBound:
    """Truncation bound per point (relative to the block's scale) and where it holds (None:
    at every point)."""

    tail: np.ndarray | float
    ok: np.ndarray | None


def scaled_tail(g: np.ndarray, dead: np.ndarray, Mh: float, pts: ScaledPoints,
                powers: np.ndarray | None) -> TailBound:
    """The last terms (log magnitudes ``g`` at w_max) must decrease geometrically with ratio
    bound r; then the tail is t_{K-1} x^(K-1) r / (1 - r).  If that holds at w_max it holds at
    every point (x <= 1, w <= w_max).  ``powers`` (N, >= K), when given, holds x^k as formed
    for the sum (the same numbers)."""
    K = g.shape[0]
    if K < 3 or (dead[K - 1] and dead[K - 2]):
        return TailBound(0.0, None)
    c1 = g[-1] - g[-2]
    c2 = g[-2] - g[-3]
    rmax = max(math.exp(c1), math.exp(pts.lx) if pts.peq else 0.0)
    if c2 < 0 and rmax < 1.0:  # one bound r <= rmax for all points
        xK = powers[:, K - 1] if powers is not None else np.exp((K - 1) * pts.logx)
        return TailBound(math.exp(g[-1] - Mh) * (rmax / (1.0 - rmax)) * xK, None)
    lr = c1 + pts.logx
    if pts.peq:  # the ratio tends to w: bound the tail with the larger of the two
        lr = np.maximum(lr, pts.logw)
    ok = (lr < 0) & (c2 + pts.logx < 0)
    r = np.exp(lr)
    tail = np.exp(g[-1] - Mh + (K - 1) * pts.logx) * r / (1.0 - r)
    tail[~ok] = np.inf
    return TailBound(tail, ok)


LOG_TAIL_RATIO = math.log(0.9)  # log-space sum: the last ratio must be below 0.9


def log_tail(Elive: np.ndarray, M: np.ndarray) -> TailBound:
    """Tail bound of the log-space sum relative to exp(M): ``Elive`` (N, K) are the terms' log
    magnitudes (-inf at zeros); the last terms must decrease geometrically, or the series must
    have terminated (1/Gamma zeros persist)."""
    e1, e2, e3 = Elive[:, -1], Elive[:, -2], Elive[:, -3]
    dead = np.isneginf(e1) & np.isneginf(e2)
    with np.errstate(invalid="ignore"):
        lr = e1 - e2
        lr2 = e2 - e3
    ok = dead | ((lr < LOG_TAIL_RATIO) & (lr2 < 0))
    r = np.exp(np.where(ok & ~dead, lr, -np.inf))
    t = np.where(dead, 0.0, np.exp(np.where(np.isneginf(e1), -np.inf, e1 - M)) * r / (1 - r))
    return TailBound(np.where(ok, t, np.inf), ok)
