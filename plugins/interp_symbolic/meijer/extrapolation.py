"""(Nearly) coincident poles: perturb the parameters and extrapolate.

When first-group parameters differ by (nearly) an integer, Slater's sum is singular.  As
mpmath's ``hypercomb`` does, the parameters are perturbed; here symmetrically, b_h -> b_h +- t u_h
with t in (delta, 2 delta, 4 delta), and the results extrapolated to t = 0 (Richardson on the
even error terms, error O(delta^6)).  The extrapolation's own error estimate decides whether
the points are kept or sent to mpmath.
"""

from __future__ import annotations

import attrs
import numpy as np

from .series import Parameters
from .strategy import Estimate, adaptive

COINCIDENT = 1e-3  # first-group parameters closer than this to an integer apart are perturbed
DELTA = 4e-3  # the smallest perturbation
STEPS = (1, 2, 4)  # perturbations t = DELTA * STEPS
ESTIMATE_GROWTH = 6.0  # the levels' error estimates times this bound the extrapolant's (weights' |sum| 85/45)
GRADIENT_WEIGHT = 1e-2  # the gradient's extrapolation change, times this, counts as value error


def coincident_gap(m: int, b: np.ndarray) -> float:
    """The smallest distance to an integer of a difference of two first-group parameters."""
    fr = np.inf
    for i in range(m):
        for j in range(i + 1, m):
            d = b[j] - b[i]
            fr = min(fr, abs(d - round(d)))
    return fr


@attrs.frozen(eq=False)
class Extrapolants:
    """Richardson extrapolants of the levels at t, 2t, 4t (error c2 t^2 + c4 t^4 + ...): ``low``
    from the first two levels (error O(t^4)), ``high`` from all three (O(t^6))."""

    low: np.ndarray
    high: np.ndarray


def _richardson(levels: list) -> Extrapolants:
    r1a = (4 * levels[0] - levels[1]) / 3
    r1b = (4 * levels[1] - levels[2]) / 3
    return Extrapolants(r1a, (16 * r1a - r1b) / 15)


def extrapolated(par: Parameters, logw: np.ndarray, want_grad: bool) -> Estimate:
    """The value (and gradient) as the limit of symmetric perturbations of the first-group b;
    ``rel`` is the extrapolation's error estimate.  Raises ``NumeratorPole``."""
    u = np.zeros(len(par.b))
    u[:par.m] = np.arange(par.m) / max(par.m - 1, 1)
    levels = []
    for t in (s * DELTA for s in STEPS):
        plus, minus = (adaptive(par.with_b(par.b + s * t * u), logw, want_grad) for s in (1.0, -1.0))
        levels.append(Estimate((plus.val + minus.val) / 2,
                               (plus.grad + minus.grad) / 2 if want_grad else None,
                               (plus.dlogw + minus.dlogw) / 2 if want_grad else None,
                               np.maximum(plus.rel, minus.rel)))
    v = _richardson([lv.val for lv in levels])
    r2 = v.high
    with np.errstate(divide="ignore", invalid="ignore"):
        extrap = np.abs(r2 - v.low) / np.abs(r2)
    rel = np.maximum(extrap, ESTIMATE_GROWTH * np.max([lv.rel for lv in levels], axis=0))
    rel = np.where(np.isfinite(rel), rel, np.inf)
    if not want_grad:
        return Estimate(r2, None, None, rel, perturbed=True)
    g = _richardson([lv.grad for lv in levels])
    # gradients lose one more order: require their own extrapolation to settle too
    with np.errstate(divide="ignore", invalid="ignore"):
        gscale = np.abs(g.high).max(axis=0) + np.abs(r2)
        gerr = np.abs(g.high - g.low).max(axis=0) / gscale
    rel = np.maximum(rel, np.where(np.isfinite(gerr), gerr * GRADIENT_WEIGHT, np.inf))
    return Estimate(r2, g.high, _richardson([lv.dlogw for lv in levels]).high, rel, perturbed=True)
