"""Components written as subclasses: the behaviour is methods, the name a class attribute.

Each is registered as an instance (``register(CappedL1())``), validated and frozen when it is
made, and pickles with a fitted model like any component.  ``interp.testing`` checks each of
them in this package's tests.
"""

from __future__ import annotations

import numpy as np

import interp


class CappedL1(interp.Penalty):
    """Capped L1: sum_i min(|w_i|, cap), a Lasso that stops growing at cap (non-convex)."""

    name = "capped_l1"
    defaults = {"cap": 1.0}
    # the prox below works elementwise on arrays of any shape, with one step per coordinate
    per_coordinate_steps = True
    any_shape = True

    def value(self, w, cap=1.0):
        return float(np.minimum(np.abs(w), cap).sum())

    def prox(self, w, step, cap=1.0):
        """The better of the minimisers on the two convex pieces: |u| <= cap (soft-thresholding,
        clipped at cap) and |u| >= cap (w itself, or pushed out to cap)."""
        a = np.abs(w)
        inner = np.minimum(np.maximum(a - step, 0.0), cap)
        outer = np.maximum(a, cap)
        inner_cost = (inner - a) ** 2 / 2 + step * inner
        outer_cost = (outer - a) ** 2 / 2 + step * cap
        return np.copysign(np.where(outer_cost < inner_cost, outer, inner), w)

    def subdiff_distance(self, w, grad, cap=1.0):
        """Distance of -grad to the (Clarke) subdifferential: [-1, 1] at 0, sign(w) inside the
        cap, 0 beyond it, and the segment between sign(w) and 0 at |w| = cap."""
        a, g = np.abs(w), np.asarray(grad, dtype=float)
        t = -g * np.sign(w)  # -grad along sign(w)
        lo, hi = (a < cap).astype(float), (a <= cap).astype(float)
        away = np.maximum(np.maximum(t - hi, lo - t), 0.0)
        return np.where(a == 0, np.maximum(np.abs(g) - 1.0, 0.0), away)


class AllOf(interp.KernelOperator):
    """Conjunction of any number of operands, with the closed form of its kernel.

    The default ``combine`` sums over all 4^k pairs of truth-table rows; for AND the four
    joint-state counts are products of the operands' own, k multiplications each.
    """

    def __init__(self, arity: int = 3):
        super().__init__(f"and{arity}", arity, (0,) * (2**arity - 1) + (1,),
                         description=f"conjunction of {arity} operands (closed-form kernel)")

    def combine(self, blocks):
        if len(blocks) != self.arity:
            raise interp.InputError(f"operator {self.name!r} takes {self.arity} operands, got {len(blocks)}")
        both = on_x = on_z = total = 1
        for b in blocks:
            both = both * b[1][1]
            on_x = on_x * (b[1][0] + b[1][1])
            on_z = on_z * (b[0][1] + b[1][1])
            total = total * (b[0][0] + b[0][1] + b[1][0] + b[1][1])
        return [[total - on_x - on_z + both, on_z - both], [on_x - both, both]]


class Sigmoid(interp.RidgeFamily):
    """Logistic ridge functions g(z) = 1 / (1 + exp(-t (z - m))), theta = (t, m)."""

    name = "sigmoid"
    init_theta = (4.0, 0.5)

    def value(self, theta, z):
        t, m = theta
        return 1.0 / (1.0 + np.exp(-t * (z - m)))

    def gradient(self, theta, z):
        t, m = theta
        g = self.value(theta, z)
        slope = g * (1.0 - g)
        return np.vstack([slope * (z - m), -slope * t]), slope * t
