"""Projection kinds: what a term's direction is applied to, and how the result becomes its argument u.

A term is ``w * g(u)``.  Its direction v acts on one matrix of features, and the projection
t = v . F / (||v|| sqrt(d)) (then ``gain * t + shift``, the printed argument's scale and
constant) becomes u:

* ``LINEAR`` (the paper's): F = x', the rows min-max scaled to [0, 1]; u = max(U_FLOOR, l),
  so that u reads ``c . x + c0``;
* ``UNFLOORED``: the linear kind with l mapped onto [U_FLOOR, 1] instead of floored, for a term
  whose floor would fall inside the data (the estimator refits such a term with it);
* ``MonomialProjection``: F = the logarithms of the strictly positive columns, min-max scaled
  to [0, 1] on the training rows (0 for the other columns, which such a term never reads);
  u = exp(K (l - 1)) with K = -log(U_FLOOR) / 2, so u reads ``C * x1**a1 * ... * xd**ad``, a
  monomial, and stays in [U_FLOOR, 1] on the training rows (where l = v . F / (||v|| sqrt(d))
  lies in [-1, 1]), as the linear kind's u does: the Meijer G-functions' derivatives are not
  finite much below U_FLOOR.  K makes a ridge function's power reach the exponents of a law
  as its scale reaches a linear one's coefficients (with K = 1, u would span a factor of e at
  most, and a Meijer G's power, at most 3, could not reach ``q1*q2/r**2`` or
  ``exp(-m*g*x/(kb*T))``).  A product of powers (q1*q2/r**2) is one term of
  this kind, where a sum of ridge functions of linear combinations needs several.

A term may also carry a ``Prefactor``: a monomial ``x1**b1 * ... * xd**bd`` of the positive
columns that multiplies its g, so that ``n0*exp(-m*g*x/(kb*T))`` or ``m0*v/sqrt(1 - v**2/c**2)``
(a product of powers times a function of another product of powers) is one term,
``w * P(x) * g(u)``.

A linear term's direction is normalised (its g's scale holds the argument's), and so is a Meijer
G term's; a monomial term of another family's is not (``normalised``, ``Term.normalised``): its
norm is the scale of the exponents, so that a closed form with no power of its own, such as
``(1 - u)**(-1/2)``, still reaches ``v**2/c**2``.  A fitted Meijer G monomial term keeps a
direction of norm 1, which reads the same either way, so a closed form refitted from it starts
from the same u.

The kind is a property of each term (``Term.projection``), chosen at fit and pickled with the
model; everything that evaluates, differentiates, rounds or prints an argument asks the term's
kind: ``features``, ``transform``, ``printed`` / ``fitted`` (between the fitted slope and shift
and the printed numbers), ``sympy_argument`` and ``derivatives``.  A monomial kind carries the
column statistics it was built on, so a fitted model needs nothing else to predict.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import sympy as sp

from .families import U_FLOOR

MONOMIAL_GAIN = -math.log(U_FLOOR) / 2  # K: a monomial argument exp(K (l - 1)) spans [U_FLOOR, 1]

__all__ = ["LINEAR", "UNFLOORED", "Curvature", "LinearProjection", "UnflooredProjection", "MonomialProjection",
           "Prefactor", "monomial_projection"]


@dataclass(frozen=True)
class Curvature:
    """A d x d second derivative held as ``outer(left, right) + diag(diagonal)`` (no d x d
    array: the importances of a model on many features add it into one Hessian in place).
    ``left`` and ``right`` are None for no rank-one part, ``diagonal`` for no diagonal."""

    left: np.ndarray | None = None
    right: np.ndarray | None = None
    diagonal: np.ndarray | None = None

    def add_to(self, hess: np.ndarray, scale: float) -> None:
        """``hess += scale * (this matrix)``, with one d x d temporary at most."""
        if self.left is not None:
            hess += np.outer(scale * self.left, self.right)
        if self.diagonal is not None:
            hess[np.diag_indices(len(hess))] += scale * self.diagonal

    def dense(self, d: int) -> np.ndarray:
        """The matrix itself (for tests and small d)."""
        out = np.zeros((d, d))
        self.add_to(out, 1.0)
        return out


class LinearProjection:
    """u = max(U_FLOOR, c . x + c0): the paper's ridge argument (see the module docstring)."""

    name = "linear"
    # the direction is normalised (l = v . F / (||v|| sqrt(d))): the ridge function's own scale
    # holds the argument's
    normalised = True

    def features(self, Xs) -> np.ndarray:
        """The matrix the direction acts on: the min-max scaled rows themselves."""
        return Xs

    def transform(self, lin) -> tuple[np.ndarray, np.ndarray]:
        """(u, du/dl) of the argument before its floor, ``lin``: u floored at ``U_FLOOR``."""
        live = lin > U_FLOOR
        return np.where(live, lin, U_FLOOR), live.astype(float)

    def floor(self) -> float:
        """The smallest value u takes."""
        return U_FLOOR

    def printed(self, slope, shift, data_min, data_range) -> tuple[np.ndarray, float]:
        """(c, c0) with slope . x' + shift = c . x + c0 on the unscaled rows x."""
        c = slope / data_range
        moved = float(c @ data_min)
        return c, _cancelled(shift, moved, np.abs(c) @ np.abs(data_min))

    def fitted(self, c, c0, data_min, data_range) -> tuple[np.ndarray, float]:
        """(slope, shift) that print as (c, c0): the inverse of ``printed``."""
        return c * data_range, c0 + float(c @ data_min)

    def sympy_argument(self, c, c0, xs, exact=False):
        """u (before its floor and clip) in the feature symbols ``xs``."""
        return sp.Add(sp.Float(c0), *[sp.Float(float(cj)) * x for cj, x in zip(c, xs)])

    def derivatives(self, c, c0, x0) -> tuple[float, np.ndarray, Curvature]:
        """(u, du/dx, d2u/dx2) at the unscaled point ``x0``, before the floor and clip."""
        return float(c @ x0 + c0), c, Curvature()

    def __eq__(self, other) -> bool:
        return type(other) is LinearProjection

    def __hash__(self) -> int:
        return hash(self.name)

    def __reduce__(self):
        return (LinearProjection, ())


LINEAR = LinearProjection()


class UnflooredProjection(LinearProjection):
    """u = c . x + c0 that stays above U_FLOOR on the training rows without a floor: the
    projection l (in [-1, 1] there) mapped onto [U_FLOOR, 1], u = U_FLOOR + (1 - U_FLOOR) (l + 1) / 2
    (floored only beyond the training rows).  A linear term whose floor falls inside the data
    range is refitted with it (``estimator``): a g that the floor cuts in two is one function
    of the whole range instead.  It prints as a linear argument."""

    name = "unfloored"

    def transform(self, lin) -> tuple[np.ndarray, np.ndarray]:
        u = U_FLOOR + UNFLOORED_SLOPE * (np.asarray(lin, dtype=float) + 1.0)
        live = u > U_FLOOR
        return np.where(live, u, U_FLOOR), UNFLOORED_SLOPE * live

    def printed(self, slope, shift, data_min, data_range) -> tuple[np.ndarray, float]:
        return super().printed(UNFLOORED_SLOPE * np.asarray(slope), UNFLOORED_SLOPE * (shift + 1.0) + U_FLOOR,
                               data_min, data_range)

    def fitted(self, c, c0, data_min, data_range) -> tuple[np.ndarray, float]:
        slope, shift = super().fitted(c, c0, data_min, data_range)
        return slope / UNFLOORED_SLOPE, (shift - U_FLOOR) / UNFLOORED_SLOPE - 1.0

    def __eq__(self, other) -> bool:
        return isinstance(other, UnflooredProjection)

    def __hash__(self) -> int:
        return hash(self.name)

    def __reduce__(self):
        return (UnflooredProjection, ())


UNFLOORED_SLOPE = (1.0 - U_FLOOR) / 2
UNFLOORED = UnflooredProjection()


class MonomialProjection:
    """u = C * prod_j x_j**a_j over the strictly positive columns (see the module docstring).

    ``positive``: which columns were strictly positive on the training rows (the others are
    never read); ``log_min`` and ``log_range``: the min-max scaling of their logarithms there;
    ``data_min`` and ``data_range``: the estimator's min-max scaling of the rows, to undo it.
    """

    name = "monomial"
    # a closed form's direction is not normalised (l = v . F / sqrt(d)): its norm is the scale of the
    # exponents, which a function without a power of its own (1/(1 + w*u), (1 + w*u)**t) could not
    # change; a Meijer G's is (its power r holds that scale, and u stays in [U_FLOOR, 1], where its
    # series converge fast)
    normalised = False

    def __init__(self, positive, log_min, log_range, data_min, data_range):
        self.positive = np.asarray(positive, dtype=bool)
        self.log_min = np.asarray(log_min, dtype=float)
        self.log_range = np.asarray(log_range, dtype=float)
        self.data_min = np.asarray(data_min, dtype=float)
        self.data_range = np.asarray(data_range, dtype=float)

    def features(self, Xs) -> np.ndarray:
        """The scaled logarithms of the positive columns of the rows (0 in the other columns);
        a value at or below 0 (outside what the term was fitted on) reads as the training
        minimum's."""
        X = self.data_min + self.data_range * np.asarray(Xs, dtype=float)
        floor = np.exp(self.log_min)
        with np.errstate(all="ignore"):
            logs = np.log(np.maximum(X, floor))
        return np.where(self.positive, (logs - self.log_min) / self.log_range, 0.0)

    def logs(self, Xs) -> np.ndarray:
        """The logarithms of the positive columns of the scaled rows ``Xs`` in the features'
        units, floored as ``features`` floors them (0 in the other columns)."""
        return np.where(self.positive, self.features(Xs) * self.log_range + self.log_min, 0.0)

    def transform(self, lin) -> tuple[np.ndarray, np.ndarray]:
        """(u, du/dl): u = exp(K (l - 1))."""
        u = np.exp(MONOMIAL_GAIN * (np.minimum(lin, 700.0 / MONOMIAL_GAIN) - 1.0))
        return u, MONOMIAL_GAIN * u

    def floor(self) -> float:
        return 0.0

    def printed(self, slope, shift, data_min=None, data_range=None) -> tuple[np.ndarray, float]:
        """(a, c0): the exponents and the logarithm of the constant, u = exp(c0) * prod x**a."""
        a = np.where(self.positive, MONOMIAL_GAIN * slope / self.log_range, 0.0)
        moved = float(a @ self.log_min) + MONOMIAL_GAIN
        return a, _cancelled(MONOMIAL_GAIN * shift, moved, np.abs(a) @ np.abs(self.log_min) + MONOMIAL_GAIN)

    def fitted(self, a, c0, data_min=None, data_range=None) -> tuple[np.ndarray, float]:
        slope = np.where(self.positive, a * self.log_range / MONOMIAL_GAIN, 0.0)
        return slope, (c0 + MONOMIAL_GAIN + float(a @ self.log_min)) / MONOMIAL_GAIN

    def sympy_argument(self, a, c0, xs, exact=False):
        """exp(c0) * prod x_j**a_j (``exact``: exponents that are small rationals to 1e-12
        printed as such); the columns' floors are those of ``features`` for the numeric form."""
        from .closed_forms import exact_number

        powers = []
        for aj, x in zip(a, xs):
            if aj != 0:
                powers.append(x ** (exact_number(aj) if exact else sp.Float(float(aj))))
        constant = sp.Float(math.exp(c0)) if c0 != 0 else sp.Integer(1)
        return sp.Mul(constant, *powers)

    def derivatives(self, a, c0, x0) -> tuple[float, np.ndarray, Curvature]:
        """(u, du/dx, d2u/dx2) at ``x0`` (a point with positive values where a != 0):
        d2u/dxi dxj = u (ai aj - [i = j] ai) / (xi xj)."""
        x = np.where(a != 0, x0, 1.0)
        u = float(math.exp(c0) * np.prod(x ** a))
        grad = u * a / x
        return u, grad, Curvature(grad, a / x, -grad / x)

    def __eq__(self, other) -> bool:
        return isinstance(other, MonomialProjection) and all(
            np.array_equal(getattr(self, k), getattr(other, k))
            for k in ("positive", "log_min", "log_range", "data_min", "data_range"))

    def __hash__(self) -> int:
        return hash((self.name, self.positive.tobytes(), self.log_min.tobytes()))


class Prefactor:
    """A monomial prod_j x_j**b_j of the positive columns of ``kind`` (a ``MonomialProjection``)
    that multiplies a term's g: the term is ``w * P(x) * g(u)``.  ``exponents`` (b, 0 in the
    columns ``kind`` does not read) are in the features' own units, so P has no constant of its
    own (the term's weight holds it) and prints as the product of powers it is."""

    def __init__(self, kind: MonomialProjection, exponents):
        self.kind = kind
        self.exponents = np.where(kind.positive, np.asarray(exponents, dtype=float), 0.0)

    def with_exponents(self, exponents) -> Prefactor:
        return Prefactor(self.kind, exponents)

    def values(self, Xs) -> np.ndarray:
        """P on the scaled rows (each column floored at its training minimum, as ``features``)."""
        return np.exp(self.kind.logs(Xs) @ self.exponents)

    def scaled(self) -> np.ndarray:
        """The exponents on the scaled logarithms (``features``): what a fit iterates, so that
        every column's exponent moves P over its range alike."""
        return self.exponents * self.kind.log_range

    def from_scaled(self, scaled) -> Prefactor:
        """The prefactor of the exponents ``scaled`` on the scaled logarithms (``scaled``)."""
        return self.with_exponents(np.asarray(scaled, dtype=float) / self.kind.log_range)

    def sympy(self, xs, exact=False):
        """P in the feature symbols ``xs`` (``exact``: small rational exponents as such)."""
        return self.kind.sympy_argument(self.exponents, 0.0, xs, exact=exact)

    def derivatives(self, x0) -> tuple[float, np.ndarray, Curvature]:
        """(P, dP/dx, d2P/dx2) at the unscaled point ``x0``."""
        return self.kind.derivatives(self.exponents, 0.0, x0)

    @property
    def reads(self) -> np.ndarray:
        """Which columns P reads (a non-zero exponent)."""
        return self.exponents != 0

    def __eq__(self, other) -> bool:
        return isinstance(other, Prefactor) and self.kind == other.kind and np.array_equal(self.exponents,
                                                                                          other.exponents)

    def __hash__(self) -> int:
        return hash((self.kind, self.exponents.tobytes()))


def monomial_projection(X, data_min, data_range) -> MonomialProjection | None:
    """The monomial kind for the training rows ``X`` (unscaled): its columns are those with
    every value strictly positive and at least three distinct values; None when there is none.
    A column of two values (a binary code, 1 and 2) is left to the linear kind: a power of it
    is an affine function of its indicator, which a linear argument already reads."""
    ordered = np.sort(X, axis=0)
    distinct = 1 + np.count_nonzero(np.diff(ordered, axis=0) != 0, axis=0)
    positive = np.all(X > 0, axis=0) & (distinct >= 3)
    if not positive.any():
        return None
    safe = np.where(positive, X, 1.0)
    logs = np.log(safe)
    log_min = logs.min(axis=0)
    span = logs.max(axis=0) - log_min
    return MonomialProjection(positive, log_min, np.where(span > 0, span, 1.0), data_min, data_range)


def direction_scale(v, normalised: bool) -> float:
    """c with l = c * v . F (before a term's gain and shift): 1 / (||v|| sqrt(d)) for a
    ``normalised`` direction (inf for a zero or non-finite one), 1 / sqrt(d) otherwise."""
    if not normalised:
        return 1.0 / math.sqrt(len(v))
    nv = float(np.linalg.norm(v))
    return 1.0 / (nv * math.sqrt(len(v))) if np.isfinite(nv) and nv > 0 else math.inf


def _cancelled(shift: float, moved: float, size: float) -> float:
    """shift - moved, or 0 when that is only the rounding of the two cancelling: within 64
    units of rounding of the terms that made them (``size``, the sum of their magnitudes)."""
    c0 = shift - moved
    return 0.0 if abs(c0) <= 64 * np.finfo(float).eps * (abs(shift) + float(size)) else c0
