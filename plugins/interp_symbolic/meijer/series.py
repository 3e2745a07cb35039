"""Slater's theorem: which residue series represent G^{m,n}_{p,q}(a; b | z), and their terms.

For p < q, or p == q and z < 1, G is the sum over h <= m of the residues at the poles b_h + k of
Gamma(b_h - s) (the *direct* expansion, argument w = z):

    sum_k (-1)^k / k! * prod_{j<=m, j!=h} Gamma(b_j - b_h - k) * prod_{j<=n} Gamma(1 - a_j + b_h + k)
        / ( prod_{j>m} Gamma(1 - b_j + b_h + k) * prod_{j>n} Gamma(a_j - b_h - k) ) * w^(b_h + k)

For p > q, or p == q and z > 1, it is the same sum for G^{n,m}_{q,p}(1 - b; 1 - a | 1/z) (the
*mirrored* expansion, w = 1/z), which is the same function.  As mpmath's ``meijerg`` hands its
``hypercomb`` a list of terms described by their Gamma factors, this module describes each
series by its factors (``residue_factors``) and the engine (``coefficients``, ``scaled``,
``logspace``) sums any such list.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Union

import attrs
import numpy as np


LAYOUT_CACHE = 256  # factor layouts kept (one per orders and h)


class NumeratorPole(Exception):
    """A numerator Gamma of a residue series sits at a pole (a_j - b_h a positive integer, or
    first-group parameters an integer apart): Slater's sum does not apply as written."""


class Parameters:
    """Orders and real parameters of G^{m,n}_{p,q}: ``a`` = a_1..a_p, ``b`` = b_1..b_q (copied
    as read-only float64 arrays).

    Equal and hashable by value (bit for bit), so a parameter set keys the coefficient cache;
    the key and its hash are formed once, as the cache looks them up several times per call (a
    plain slotted class for that reason).
    """

    __slots__ = ("m", "n", "a", "b", "p", "q", "key", "_hash")

    def __init__(self, m: int, n: int, a, b, *, copy: bool = True):
        if copy:  # (False: a and b are new float64 arrays nobody else holds)
            a, b = np.array(a, dtype=float), np.array(b, dtype=float)
        a.setflags(write=False)
        b.setflags(write=False)
        self.m, self.n, self.a, self.b = m, n, a, b
        self.p, self.q = len(a), len(b)
        self.key = (m, n, a.tobytes(), b.tobytes())
        self._hash = hash(self.key)

    @classmethod
    def from_mpmath(cls, a_s, b_s) -> Parameters:
        """From mpmath's convention ``[[a_1..a_n], [a_{n+1}..a_p]], [[b_1..b_m], [b_{m+1}..b_q]]``."""
        an, ap = (list(map(float, v)) for v in a_s)
        bm, bq = (list(map(float, v)) for v in b_s)
        return cls(len(bm), len(an), np.array(an + ap, dtype=float), np.array(bm + bq, dtype=float), copy=False)

    def mirrored(self) -> Parameters:
        """G^{n,m}_{q,p}(1 - b; 1 - a | 1/z), the same function expanded in 1/z."""
        return Parameters(self.n, self.m, 1.0 - self.b, 1.0 - self.a, copy=False)

    def with_b(self, b: np.ndarray) -> Parameters:
        """The same a with other b (a new array, taken over)."""
        return Parameters(self.m, self.n, self.a, b, copy=False)

    def __eq__(self, other):
        return isinstance(other, Parameters) and self.key == other.key

    def __hash__(self):
        return self._hash

    def __repr__(self):
        return f"Parameters(m={self.m}, n={self.n}, a={self.a.tolist()}, b={self.b.tolist()})"


@attrs.frozen(eq=False)
class FactorLayout:
    """What the Gamma factors of the series at the poles b_h + k share with every parameter set
    of the same orders and h: slope and power per factor (F,) and ``coef`` (F, P), d offset_f /
    d theta_i with theta = (a_1..a_p, b_1..b_q) (read-only; memoised, as it depends on the
    orders alone)."""

    slope: np.ndarray
    power: np.ndarray
    coef: np.ndarray


@lru_cache(maxsize=LAYOUT_CACHE)
def factor_layout(m: int, n: int, p: int, q: int, h: int) -> FactorLayout:
    """The layout of ``residue_factors`` in Slater's order: Gamma(b_j - b_h - k) for j < m,
    j != h; Gamma(1 - a_j + b_h + k) for j < n; 1/Gamma(1 - b_j + b_h + k) for j >= m;
    1/Gamma(a_j - b_h - k) for j >= n."""
    rows = [(-1.0, 1.0, p + j, 1.0) for j in range(m) if j != h] + [(1.0, 1.0, j, -1.0) for j in range(n)] \
        + [(1.0, -1.0, p + j, -1.0) for j in range(m, q)] + [(-1.0, -1.0, j, 1.0) for j in range(n, p)]
    coef = np.zeros((len(rows), p + q))
    for f, (_, _, i, c) in enumerate(rows):
        coef[f, i] = c
        coef[f, p + h] -= c  # (the offset moves with b_h against b_j or a_j)
    layout = FactorLayout(np.array([r[0] for r in rows]), np.array([r[1] for r in rows]), coef)
    for v in (layout.slope, layout.power, layout.coef):
        v.setflags(write=False)
    return layout


@attrs.frozen(eq=False)
class GammaFactors:
    """The factors Gamma(offset_f + slope_f k) ** power_f of term k of a residue series
    (slope, power = +-1), as arrays (F,); ``coef`` (F, P): d offset_f / d theta_i,
    theta = (a_1..a_p, b_1..b_q); ``integral``: some offset is an integer or not finite, so an
    argument may sit at a pole of Gamma (the general path of ``coefficients``)."""

    offset: np.ndarray
    slope: np.ndarray
    power: np.ndarray
    coef: np.ndarray
    integral: bool

    def __len__(self) -> int:
        return self.offset.shape[0]


def residue_factors(par: Parameters, h: int) -> GammaFactors:
    """The Gamma factors of the series at the poles b_h + k, in Slater's order (see the module
    docstring and ``factor_layout``); term k is (-1)^k / k! * prod(factors) * w^(b_h + k)."""
    a, b, m, n = par.a.tolist(), par.b.tolist(), par.m, par.n  # (Python floats: faster)
    bh = b[h]
    offset = [b[j] - bh for j in range(m) if j != h] + [1.0 - a[j] + bh for j in range(n)] \
        + [1.0 - b[j] + bh for j in range(m, par.q)] + [a[j] - bh for j in range(n, par.p)]
    integral = any(v.is_integer() or not math.isfinite(v) for v in offset)  # (cheaper here than on the array)
    lay = factor_layout(m, n, par.p, par.q, h)
    return GammaFactors(np.array(offset), lay.slope, lay.power, lay.coef, integral)


def is_pole(x: np.ndarray) -> np.ndarray:
    """Where Gamma(x) has a pole (x a non-positive integer)."""
    return (x <= 0) & (x == np.round(x))


@attrs.define(eq=False)
class Side:
    """Points summed with one expansion: ``points`` indexes them (a slice: all points)."""

    direct: bool
    points: Union[slice, np.ndarray]


def sides(p: int, q: int, z: np.ndarray) -> list[Side]:
    """Which points each expansion serves: direct for p < q, mirrored for p > q; for p == q
    direct below z = 1 and mirrored from z = 1 on."""
    if p < q:
        return [Side(True, slice(None))]
    if p > q:
        return [Side(False, slice(None))]
    direct = z < 1.0
    return [Side(u, np.flatnonzero(direct == u)) for u in (True, False)]


def common_side(p: int, q: int, z: np.ndarray) -> bool | None:
    """True (direct) or False (mirrored) when one expansion serves every point, else None."""
    N = z.size
    if p < q or (p == q and N and z.max() < 1.0):
        return True
    if p > q or (p == q and N and z.min() > 1.0):
        return False
    return None


@attrs.define(eq=False)
class SideGradient:
    """d G / d a (p, N), d G / d b (q, N), d G / d z (N,) of the original function."""

    a: np.ndarray
    b: np.ndarray
    z: np.ndarray


def side_gradient(direct: bool, p_side: int, grad: np.ndarray, dlogw: np.ndarray,
                  z: np.ndarray) -> SideGradient:
    """Map the gradient of a side's series (w.r.t. its own a, b and log w) back to the original
    a, b and z; the mirrored series has a' = 1 - b, b' = 1 - a and log w = -log z."""
    g_aa, g_bb = grad[:p_side], grad[p_side:]
    if direct:
        return SideGradient(g_aa, g_bb, dlogw / z)
    return SideGradient(-g_bb, -g_aa, -dlogw / z)


@attrs.define(eq=False)
class SeriesResult:
    """Sum of the residue series of one expansion at N points, with its error estimate.

    ``grad`` (P, N) is w.r.t. the expansion's (a, b), ``dlogw`` the derivative w.r.t. log w
    (both None without gradient); ``err`` the absolute error estimate (rounding plus tail),
    ``tail`` the truncation part alone; ``certified`` where the truncation bound holds;
    ``capped``: some series used every term it was allowed (a longer cap may change the sum).
    """

    val: np.ndarray
    grad: np.ndarray | None
    dlogw: np.ndarray | None
    err: np.ndarray
    tail: np.ndarray
    certified: np.ndarray
    capped: bool = True
