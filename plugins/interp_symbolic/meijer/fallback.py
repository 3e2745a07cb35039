"""The fallback for points the fast path cannot certify: ``mpmath.meijerg`` at MP_DPS digits,
one point at a time (value; value and gradient by numerical differentiation)."""

from __future__ import annotations

import math

import attrs

from .series import Parameters

MP_DPS = 30


def mp_value(a_s, b_s, z: float) -> float:
    """G at one point; NaN if mpmath fails, inf if the value overflows float64."""
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


@attrs.frozen
class PointGradient:
    """G at one point and its gradient w.r.t. (a_1..a_p, b_1..b_q, z) (NaN if mpmath fails)."""

    val: float
    grad: list


def mp_grad(a_s, b_s, z: float) -> PointGradient:
    """Value and gradient at one point with mpmath (numerical derivatives at MP_DPS digits)."""
    import mpmath

    par = Parameters.from_mpmath(a_s, b_s)
    m, n, p = par.m, par.n, par.p
    theta = [*par.a, *par.b, float(z)]

    def f_of(i):
        def f(t):
            th = list(theta)
            th[i] = t
            aa, bb = th[:p], th[p:-1]
            return mpmath.meijerg([aa[:n], aa[n:]], [bb[:m], bb[m:]], th[-1])
        return f

    with mpmath.workdps(MP_DPS):
        try:
            val = float(mpmath.re(f_of(0)(theta[0])))
            g = [float(mpmath.re(mpmath.diff(f_of(i), theta[i]))) for i in range(len(theta))]
        except (ValueError, ZeroDivisionError, OverflowError, mpmath.libmp.NoConvergence):
            return PointGradient(math.nan, [math.nan] * len(theta))
    return PointGradient(val, g)
