"""Ridge families: the paper's five Meijer G configurations and the evaluation of any family.

A Meijer family is g(u) = G^{m,n}_{p,q}(a; b | s u^r) with theta = (a_1..a_p, b_1..b_q, s, r);
a custom family (``value``/``gradient`` callables) uses its own theta, and its ``bounds`` when it
has them (a ``closed_forms.ClosedForm`` does).  ``Ridge`` wraps either with value, gradient
w.r.t. theta and derivative w.r.t. u, and optimisation bounds.
"""

from __future__ import annotations

import numpy as np
from interp import RidgeFamily
from interp.attribution import attributed

# (name, orders, a, b, scale): the first three initial points are those of the reference
# implementation; the p == q family starts at s = 0.5 and keeps s <= 0.9 so that the argument
# stays away from |z| = 1, where the series converge slowly.
PAPER_FAMILIES = (
    RidgeFamily(name="meijer_1002", orders=(1, 0, 0, 2), init_b=(0.5, 0.0),
                description="parent of sin, cos, sinh, cosh, exp, Bessel functions"),
    RidgeFamily(name="meijer_0131", orders=(0, 1, 3, 1), init_a=(2.0, 2.0, 2.0), init_b=(1.0,),
                description="parent of monomials z^t (starts at G = z)"),
    RidgeFamily(name="meijer_2123", orders=(2, 1, 2, 3), init_a=(0.3, 0.1), init_b=(0.1, 0.0, 0.3),
                description="parent of exp, Gamma, incomplete gamma functions"),
    RidgeFamily(name="meijer_2233", orders=(2, 2, 3, 3), init_a=(1.0, 1.2, 3.0),
                init_b=(3.3, 0.4, 1.5), init_scale=0.5,
                description="parent of rational functions, log(1 + z), arctan, hypergeometric 2F1"),
    RidgeFamily(name="meijer_2013", orders=(2, 0, 1, 3), init_a=(2.0,), init_b=(1.0, 1.5, 0.5),
                description="parent of Bessel J, Y, I and trigonometric products"),
)

U_FLOOR = 1e-3  # the ReLU's output is floored here: G may be singular at 0
PARAM_BOUND = 6.0
MAX_FALLBACK = 3  # per evaluation (chunk) during fitting: more slow points -> NaN -> the step is rejected
# Meijer G is evaluated on at most this many points at a time: its series hold an (N, K) matrix of
# powers with K up to 4,000 terms, so chunking keeps the memory of an evaluation independent of
# the number of rows.
EVAL_CHUNK = 4096


class Ridge:
    """Evaluation of a registered ridge family, with bounds for the optimiser."""

    def __init__(self, family: RidgeFamily):
        self.family = family
        self.name = family.name
        if family.is_meijer:
            m, n, p, q = family.orders
            self.orders = (m, n, p, q)
            self.init = np.array([*family.init_a, *family.init_b, family.init_scale, family.init_power])
            s_hi = 0.9 if p == q else 8.0
            # the optimiser keeps s inside the bounds; for p == q that keeps z = s u^r <= 0.9
            self.init[-2] = float(np.clip(self.init[-2], 1e-2, s_hi))
            self.init[-1] = float(np.clip(self.init[-1], 0.25, 3.0))
            self.init[: p + q] = np.clip(self.init[: p + q], -PARAM_BOUND, PARAM_BOUND)
            self.bounds = [(-PARAM_BOUND, PARAM_BOUND)] * (p + q) + [(1e-2, s_hi), (0.25, 3.0)]
        else:
            self.orders = None
            self.init = np.array(family.init_theta, dtype=float)
            # a custom family may bound its parameters (a ClosedForm does); None = no bound
            bounds = family.bounds
            self.bounds = [(None, None)] * len(self.init) if bounds is None else [tuple(b) for b in bounds]
            self.init = np.clip(self.init, *bound_arrays(self.bounds))

    def split(self, theta):
        m, n, p, q = self.orders
        a, b = theta[:p], theta[p:p + q]
        return [list(a[:n]), list(a[n:])], [list(b[:m]), list(b[m:])], theta[p + q], theta[p + q + 1]

    def value_and_grad(self, theta, u, max_fallback=MAX_FALLBACK):
        """g(u), dg/dtheta (P, N), dg/du (N,); a Meijer family is evaluated ``EVAL_CHUNK`` points
        at a time (``max_fallback`` then applies per chunk)."""
        theta = np.asarray(theta, dtype=float)
        if self.orders is None:
            with attributed(self.family, "value and gradient"):  # a third party's code: its bug
                val = np.asarray(self.family.value(theta, u), dtype=float)
                dth, du = self.family.gradient(theta, u)
            return val, np.asarray(dth, dtype=float).reshape(len(theta), -1), np.asarray(du, dtype=float)
        from .meijer import meijerg_grad  # on first use: registering the families needs no evaluator

        a_s, b_s, s, r = self.split(theta)
        ur = u ** r
        z = s * ur
        val, ga, gb, gz = _in_chunks(meijerg_grad, a_s, b_s, z, max_fallback)
        ds = gz * ur
        dr = gz * z * np.log(u)
        dth = np.vstack([ga, gb, ds[None, :], dr[None, :]])
        du = gz * s * r * u ** (r - 1)
        return val, dth, du

    def value(self, theta, u, max_fallback=None):
        """g(u); a Meijer family ``EVAL_CHUNK`` points at a time, as ``value_and_grad``."""
        theta = np.asarray(theta, dtype=float)
        if self.orders is None:
            with attributed(self.family, "value"):
                return np.asarray(self.family.value(theta, u), dtype=float)
        from .meijer import meijerg

        a_s, b_s, s, r = self.split(theta)
        return _in_chunks(meijerg, a_s, b_s, np.asarray(s * u ** r, dtype=float), max_fallback)


def bound_arrays(bounds) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi) arrays of (lo, hi) pairs, None as -inf / inf: the bounds as ``np.clip`` and
    ``scipy.optimize.least_squares`` take them."""
    lo = np.array([-np.inf if b is None else b for b, _ in bounds], dtype=float)
    hi = np.array([np.inf if b is None else b for _, b in bounds], dtype=float)
    return lo, hi


def _in_chunks(evaluate, a_s, b_s, z, max_fallback):
    """``evaluate`` (``meijerg`` or ``meijerg_grad``) on 1-d ``z``, ``EVAL_CHUNK`` points at a
    time, its outputs joined along their last (points) axis."""
    if z.size <= EVAL_CHUNK:
        return evaluate(a_s, b_s, z, max_fallback=max_fallback)
    parts = [evaluate(a_s, b_s, z[i:i + EVAL_CHUNK], max_fallback=max_fallback)
             for i in range(0, z.size, EVAL_CHUNK)]
    if isinstance(parts[0], tuple):
        return tuple(np.concatenate(outputs, axis=-1) for outputs in zip(*parts))
    return np.concatenate(parts)
