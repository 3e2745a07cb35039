"""Proximal gradient steps accelerated by Newton steps on the coordinates off the penalty's kinks.

First-order steps crawl on badly conditioned data (spambase's raw features span five decades).
This loop alternates:

1. a backtracked proximal gradient step; it *identifies* which coordinates sit on a plateau of
   the prox (a kink of the penalty: an integer for Facets, zero for L1) and puts them there
   exactly, and its output is where convergence is tested, so the returned model is a prox
   output with exact integers, as with ISTA;
2. a Newton step on the other ("free") coordinates and the intercept, on the loss plus the
   penalty's local quadratic model, accepted only if it lowers the objective.

The penalty's local model needs nothing but its prox: for ``v = prox(zeta, lam * s)`` the prox
optimality condition gives ``lam * omega'(v) = (zeta - v) / s`` and its slope ``p = dv/dzeta``
(a central difference) gives ``lam * omega''(v) = (1 / p - 1) / s``; ``p == 0`` marks a plateau.
So any registered penalty works, as with the first-order solvers.  Once the plateaus are
identified the free coordinates converge quadratically (Lee, Sun & Saunders, "Proximal Newton-type
methods", 2014; Bareilles, Iutzeler & Malick, "Newton acceleration on manifolds identified by
proximal gradient methods", 2022).  The Hessian is formed explicitly, so with more than
``MAX_FREE`` free coordinates the Newton step is skipped (plain proximal gradient).
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve

__all__ = ["newton_loop", "prox_slopes"]

#: above this many free coordinates the explicit Hessian costs more than it saves
MAX_FREE = 2000


def prox_slopes(P, zeta: np.ndarray, step) -> np.ndarray:
    """d prox(zeta) / d zeta per coordinate, by central differences (the prox is separable)."""
    h = 1e-6 * np.maximum(1.0, np.abs(zeta))
    return (P.prox(zeta + h, step) - P.prox(zeta - h, step)) / (2.0 * h)


def newton_loop(P, u, b, L, tol, max_iter):
    """Newton steps on ``P`` (a :class:`.solver.Problem`), with proximal gradient steps between
    them whenever the plateaus may be wrong: at the start, after a rejected Newton step, and when
    a coordinate on a plateau violates its optimality condition (it should leave the plateau,
    which only a gradient step can tell).

    Returns (u, b, loss, n_iter, converged, criterion, L) like the first-order loop.
    """
    z = P.scores(u, b)
    f, gu, gb = P.value_and_grads(z)
    crit = P.criterion(u, gu, gb, L)
    state = _State()
    zeta = step = None  # the point and steps of the prox that produced u, when there is one
    it = 0
    for it in range(1, max_iter + 1):
        if crit <= tol:
            break
        slope = None if zeta is None else prox_slopes(P, zeta, step)
        if slope is None or P.plateau_violated(u, gu, slope <= 1e-9, tol):
            u, b, z, f, L, zeta, step = P.prox_step(u, b, f, gu, gb, L)
            gu, gb = P.grads(z)
            crit = P.criterion(u, gu, gb, L)
            if crit <= tol:
                break
            slope = prox_slopes(P, zeta, step)
        moved = _newton_step(P, u, b, z, f, gu, gb, zeta, step, slope, state)
        if moved is None:
            zeta = None
            continue
        u, b, z, f, zeta, step = moved
        gu, gb = P.grads(z)
        crit = P.criterion(u, gu, gb, L)
    return u, b, f, it, crit <= tol, crit, L


class _State:
    """The Levenberg damping carried from one Newton step to the next."""

    def __init__(self):
        self.damping = 1e-4

    def accepted(self, t):
        self.damping = max(self.damping / 4, 1e-8) if t == 1.0 else min(self.damping * 4 / t, 1e4)

    def rejected(self):
        self.damping = min(self.damping * 100, 1e4)


def _newton_step(P, v, b, z, f, gu, gb, zeta, step, slope, state):
    """A damped Newton step from ``v = prox(zeta, step)`` on its free coordinates (where the
    prox has a non-zero ``slope``), or None when no step lowers the objective.

    Returns (u, b, z, loss, zeta, step) of the new point, itself a prox output.
    """
    d = P.d
    step = np.broadcast_to(np.asarray(step, dtype=float), (d,))
    free = np.flatnonzero(slope > 1e-9) if P.lam > 0 else np.arange(d)
    k = free.size
    if k > MAX_FREE or (k == 0 and not P.fit_intercept):
        return None
    g = gu[free]
    H = P.hessian(z, free)
    if P.lam > 0:
        s = step[free]
        g = g + (zeta[free] - v[free]) / s  # + lam * omega'(v)
        H[np.arange(k), np.arange(k)] += (1.0 / slope[free] - 1.0) / s  # + lam * omega''(v)
    if P.fit_intercept:
        g = np.append(g, gb)
    diag = np.diag(H).copy()
    H[np.diag_indices_from(H)] += state.damping * diag + 1e-12 * max(float(np.max(diag, initial=0.0)), 1e-300)
    try:
        delta = -cho_solve(cho_factor(H, check_finite=False), g, check_finite=False)
    except (LinAlgError, ValueError):
        delta = -np.linalg.lstsq(H, g, rcond=None)[0]
    if not np.all(np.isfinite(delta)):
        return None
    du = delta[:k]
    db = float(delta[k]) if P.fit_intercept else 0.0
    # A coordinate whose step crosses a kink of the penalty stops on that kink, as in orthant-wise
    # methods, with no knowledge of where the kinks are.  On v's piece the penalty's gradient
    # is lam omega'(x) = g_pen + c (x - v); so prox_{lam s'}(x + s' lam omega'(x)) returns x while
    # x stays on that piece (for any s'), and returns the first kink crossed when the overshoot
    # is below lam s' times the jump of omega' there.  s' = s + 2 |step| / lam covers any
    # overshoot when the jump is >= 1/2 (Facets 1, SCF 1 - eps, L1 2).  The candidate is a prox
    # output, with exact integers; it is returned as prox(zeta', s) with the original steps.
    if P.lam > 0:
        g_pen = (zeta - v) / step
        curv = np.zeros(d)
        curv[free] = (1.0 / slope[free] - 1.0) / step[free]
    phi = f + P.penalty_value(v)
    for t in 0.5 ** np.arange(8):
        x = v.copy()
        x[free] += t * du
        if P.lam > 0:
            wide = step.copy()
            wide[free] += 2.0 * t * np.abs(du) / P.lam
            u_new = P.prox(x + wide * (g_pen + curv * (x - v)), wide)
            # the same point as a prox output with the original steps
            zeta_new = u_new + step * (g_pen + curv * (x - v) + (x - u_new) / wide)
        else:
            zeta_new = u_new = x
        b_new = b + t * db
        z_new = P.scores(u_new, b_new)
        f_new = P.value(z_new)
        if f_new + P.penalty_value(u_new) <= phi + 1e-15 * max(1.0, abs(phi)):  # not worse, to rounding
            state.accepted(t)
            return u_new, b_new, z_new, f_new, zeta_new, step
    state.rejected()
    return None
