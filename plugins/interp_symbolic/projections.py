"""Projection kinds: what a term's direction is applied to, and how the result becomes its argument u.

A term is ``w * g(u)``.  Its direction v acts on one matrix of features, and the projection
t = v . F / (||v|| sqrt(d)) (then ``gain * t + shift``, the printed argument's scale and
constant) becomes u:

* ``LINEAR`` (the paper's): F = x', the rows min-max scaled to [0, 1]; u = max(U_FLOOR, l),
  so that u reads ``c . x + c0``;
* ``MonomialProjection``: F = the logarithms of the strictly positive columns, min-max scaled
  to [0, 1] on the training rows (0 for the other columns, which such a term never reads);
  u = exp(l - 1), so u reads ``C * x1**a1 * ... * xd**ad``, a monomial, and stays in (0, 1] as
  the linear kind's u does when l <= 1.  A product of powers (q1*q2/r**2) is one term of
  this kind, where a sum of ridge functions of linear combinations needs several.

The kind is a property of each term (``Term.projection``), chosen at fit and pickled with the
model; everything that evaluates, differentiates, rounds or prints an argument asks the term's
kind: ``features``, ``transform``, ``printed`` / ``fitted`` (between the fitted slope and shift
and the printed numbers), ``sympy_argument`` and ``derivatives``.  A monomial kind carries the
column statistics it was built on, so a fitted model needs nothing else to predict.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from .families import U_FLOOR

__all__ = ["LINEAR", "LinearProjection", "MonomialProjection", "monomial_projection"]


class LinearProjection:
    """u = max(U_FLOOR, c . x + c0): the paper's ridge argument (see the module docstring)."""

    name = "linear"

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

    def derivatives(self, c, c0, x0) -> tuple[float, np.ndarray, np.ndarray]:
        """(u, du/dx, d2u/dx2) at the unscaled point ``x0``, before the floor and clip."""
        return float(c @ x0 + c0), c, np.zeros((len(c), len(c)))

    def __eq__(self, other) -> bool:
        return isinstance(other, LinearProjection)

    def __hash__(self) -> int:
        return hash(self.name)

    def __reduce__(self):
        return (LinearProjection, ())


LINEAR = LinearProjection()


class MonomialProjection:
    """u = C * prod_j x_j**a_j over the strictly positive columns (see the module docstring).

    ``positive``: which columns were strictly positive on the training rows (the others are
    never read); ``log_min`` and ``log_range``: the min-max scaling of their logarithms there;
    ``data_min`` and ``data_range``: the estimator's min-max scaling of the rows, to undo it.
    """

    name = "monomial"

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

    def transform(self, lin) -> tuple[np.ndarray, np.ndarray]:
        """(u, du/dl): u = exp(l - 1)."""
        u = np.exp(np.minimum(lin, 700.0) - 1.0)
        return u, u

    def floor(self) -> float:
        return 0.0

    def printed(self, slope, shift, data_min=None, data_range=None) -> tuple[np.ndarray, float]:
        """(a, c0): the exponents and the logarithm of the constant, u = exp(c0) * prod x**a."""
        a = np.where(self.positive, slope / self.log_range, 0.0)
        moved = float(a @ self.log_min) + 1.0
        return a, _cancelled(shift, moved, np.abs(a) @ np.abs(self.log_min) + 1.0)

    def fitted(self, a, c0, data_min=None, data_range=None) -> tuple[np.ndarray, float]:
        return np.where(self.positive, a * self.log_range, 0.0), c0 + 1.0 + float(a @ self.log_min)

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

    def derivatives(self, a, c0, x0) -> tuple[float, np.ndarray, np.ndarray]:
        """(u, du/dx, d2u/dx2) at ``x0`` (a point with positive values where a != 0)."""
        x = np.where(a != 0, x0, 1.0)
        u = float(math.exp(c0) * np.prod(x ** a))
        grad = u * a / x
        hess = u * (np.outer(a, a) - np.diag(a)) / np.outer(x, x)
        return u, grad, hess

    def __eq__(self, other) -> bool:
        return isinstance(other, MonomialProjection) and all(
            np.array_equal(getattr(self, k), getattr(other, k))
            for k in ("positive", "log_min", "log_range", "data_min", "data_range"))

    def __hash__(self) -> int:
        return hash((self.name, self.positive.tobytes(), self.log_min.tobytes()))


def monomial_projection(X, data_min, data_range) -> MonomialProjection | None:
    """The monomial kind for the training rows ``X`` (unscaled): its columns are those with
    every value strictly positive and not constant; None when there is none."""
    positive = np.all(X > 0, axis=0) & (np.ptp(X, axis=0) > 0)
    if not positive.any():
        return None
    safe = np.where(positive, X, 1.0)
    logs = np.log(safe)
    log_min = logs.min(axis=0)
    span = logs.max(axis=0) - log_min
    return MonomialProjection(positive, log_min, np.where(span > 0, span, 1.0), data_min, data_range)


def _cancelled(shift: float, moved: float, size: float) -> float:
    """shift - moved, or 0 when that is only the rounding of the two cancelling: within 64
    units of rounding of the terms that made them (``size``, the sum of their magnitudes)."""
    c0 = shift - moved
    return 0.0 if abs(c0) <= 64 * np.finfo(float).eps * (abs(shift) + float(size)) else c0
