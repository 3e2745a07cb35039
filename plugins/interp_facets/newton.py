"""Proximal gradient steps accelerated by Newton steps on the coordinates off the penalty's kinks.

First-order steps crawl on badly conditioned data (spambase's raw features span five decades).
This loop combines two steps:

1. a backtracked proximal gradient step; it *identifies* which coordinates sit on a plateau of
   the prox (a kink of the penalty: an integer for Facets, zero for L1) and puts them there
   exactly.  It runs first, after a Newton step that was rejected or did not lower the
   objective, and whenever a coordinate on a plateau is not optimal there and its violation is
   the largest residual;
2. a Newton step on the other ("free") coordinates and the intercept, on the loss plus the
   penalty's local quadratic model, accepted only if the objective does not go up.  Its
   candidate is itself a prox output (see ``_newton_step``), so every iterate, and the returned
   model, has exact integers, as with ISTA.

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

__all__ = ["newton_loop", "prox_slopes"]

#: above this many free coordinates the explicit Hessian costs more than it saves
MAX_FREE = 2000

#: a prox slope at or below this marks a coordinate on a plateau (a kink of the penalty)
PLATEAU_SLOPE = 1e-9


def prox_slopes(P, zeta: np.ndarray, step) -> np.ndarray:
    """d prox(zeta) / d zeta per coordinate, by central differences (the prox is separable)."""
    h = _probe(zeta)
    Z = np.empty((2, zeta.size))
    np.add(zeta, h, out=Z[0])
    np.subtract(zeta, h, out=Z[1])
    up, down = P.prox_rows(Z, step)
    return (up - down) / (2.0 * h)


def _probe(zeta: np.ndarray) -> np.ndarray:
    return 1e-6 * np.maximum(1.0, np.abs(zeta))


def newton_loop(P, u, b, L, tol, max_iter):
    """Newton steps on ``P`` (a :class:`.solver.Problem`), with proximal gradient steps between
    them whenever the plateaus may be wrong: at the start, after a rejected Newton step, and when
    a coordinate on a plateau violates its optimality condition (it should leave the plateau,
    which only a gradient step can tell) by more than any free coordinate's residual, or when a
    Newton step no longer lowers the objective (the free residuals are then rounding).  Released
    earlier, while the free coordinates are still far from optimal, coordinates leave and
    re-land on kinks over and over (on the CLI's 90 collinear 0/1 columns, 2.1x more
    iterations); released then, they leave once.

    Returns (u, b, loss, n_iter, converged, criterion, L) like the first-order loop.
    """
    z = P.scores(u, b)
    f = P.value(z)
    F = None  # the objective at u, set by each step that moves u (a gradient step comes first)
    gu, gb, w = P.grads_and_curvature(z)
    crit, dist = P.stationarity(u, gu, gb, L)
    state = _State()
    zeta = step = None  # the point and steps of the prox that produced u, when there is one
    it = 0
    for it in range(1, max_iter + 1):
        if crit <= tol:
            break
        slope = None if zeta is None else prox_slopes(P, zeta, step)
        # a coordinate on a plateau that is not optimal there must leave it: a gradient step
        if slope is None or _must_release(dist, slope <= PLATEAU_SLOPE, tol):
            u, b, z, f, L, zeta, step = P.prox_step(u, b, f, gu, gb, L)
            gu, gb, w = P.grads_and_curvature(z)
            crit, dist = P.stationarity(u, gu, gb, L)
            if crit <= tol:
                break
            F = f + P.penalty_value(u)
            slope = prox_slopes(P, zeta, step)
        moved = _newton_step(P, u, b, z, F, gu, gb, w, zeta, step, slope, state)
        if moved is None:
            zeta = None
            continue
        u, b, z, f, F, zeta, step, lowered = moved
        if not lowered:  # the free coordinates are done: let a gradient step test the plateaus
            zeta = None
        gu, gb, w = P.grads_and_curvature(z)
        crit, dist = P.stationarity(u, gu, gb, L)
    return u, b, f, it, crit <= tol, crit, L


def _must_release(dist, pinned, floor) -> bool:
    """Does a coordinate on a plateau violate its optimality by more than ``floor`` and more than
    every free coordinate's residual?"""
    worst = np.max(dist[pinned], initial=0.0)
    return worst > floor and worst > np.max(dist[~pinned], initial=0.0)


class _State:
    """The Levenberg damping carried from one Newton step to the next."""

    def __init__(self):
        self.damping = 1e-4

    def accepted(self, t):
        self.damping = max(self.damping / 4, 1e-8) if t == 1.0 else min(self.damping * 4 / t, 1e4)

    def rejected(self):
        self.damping = min(self.damping * 100, 1e4)


def _newton_step(P, v, b, z, phi, gu, gb, w, zeta, step, slope, state):
    """A damped Newton step from ``v = prox(zeta, step)``, whose objective is ``phi``, on its
    free coordinates (where the prox has a non-zero ``slope``), or None when no step lowers the
    objective.

    Returns (u, b, z, loss, objective, zeta, step, lowered) of the new point, itself a prox
    output; ``lowered`` is False when the objective only stayed equal (to rounding).
    """
    d = P.d
    step = np.full(d, step) if np.ndim(step) == 0 else np.asarray(step, dtype=float)
    free = np.flatnonzero(slope > PLATEAU_SLOPE) if P.lam > 0 else np.arange(d)
    k = free.size
    if k > MAX_FREE or (k == 0 and not P.fit_intercept):
        return None
    H = P.hessian(w, free)
    diag = H.reshape(-1)[:: H.shape[0] + 1]  # a view of H's diagonal
    g = np.empty(H.shape[0])
    g[:k] = gu[free]
    if P.lam > 0:
        # the penalty's local model at v, read off its prox (see the module docstring)
        g_pen = (zeta - v) / step  # lam * omega'(v)
        curv = np.zeros(d)
        curv[free] = (1.0 / slope[free] - 1.0) / step[free]  # lam * omega''(v)
        g[:k] += g_pen[free]
        diag[:k] += curv[free]
    if P.fit_intercept:
        g[k] = gb
    diag += state.damping * diag + 1e-12 * max(float(np.max(diag, initial=0.0)), 1e-300)
    try:
        delta = -np.linalg.solve(H, g)
    except np.linalg.LinAlgError:
        delta = -np.linalg.lstsq(H, g, rcond=None)[0]
    if not np.all(np.isfinite(delta)):
        return None
    du = delta[:k]
    db = float(delta[k]) if P.fit_intercept else 0.0
    # Where a step crosses a kink of the penalty, two candidates, the better one kept: the
    # coordinate stops on the first kink crossed (as in orthant-wise methods; what L1's zero
    # needs), or it goes through (what Facets' evenly spaced integers need).  Neither needs to
    # know where the kinks are.  On v's piece the penalty's gradient is lam omega'(x) =
    # g_pen + c (x - v), so prox_{lam s'}(x + s' lam omega'(x)) returns x while x stays on that
    # piece, for any s'; past a kink it moves x back by up to lam s' times the jump of omega'
    # there.  s' = s goes through (the pull-back is one prox step's); s' = s + 2 |step| / lam
    # stops on the kink when the jump is >= 1/2 (Facets 1, SCF 1 - eps, L1 2).  Both are prox
    # outputs, with exact integers, returned as prox(zeta', s) with the original steps.  The
    # prox is separable, so the second candidate is the first with only the coordinates that
    # the wide prox stopped on a kink replaced (elsewhere the two differ by rounding alone):
    # those where the wide prox is flat just to the right.  One prox call makes all three.
    Z, steps = np.empty((3, d)), np.empty((3, d))  # the prox's points and steps, row by row
    steps[0] = step
    for t in 0.5 ** np.arange(8):
        x = v.copy()
        x[free] += t * du
        b_new = b + t * db
        if P.lam > 0:
            wide = steps[1]
            wide[:] = step
            wide[free] += 2.0 * t * np.abs(du) / P.lam
            steps[2] = wide
            shift = g_pen + curv * (x - v)
            np.add(x, step * shift, out=Z[0])
            np.add(x, wide * shift, out=Z[1])
            np.add(Z[1], _probe(Z[1]), out=Z[2])
            U = P.prox_rows(Z, steps)
            u_first, u_wide = U[0], U[1]
            zeta_first, zeta_stop = U[:2] + step * (shift + (x - U[:2]) / steps[:2])
            cands = [(u_first, zeta_first)]
            stopped = np.flatnonzero((u_wide != u_first) & (U[2] == u_wide))
            if stopped.size:
                u_stop, zeta_new = u_first.copy(), zeta_first.copy()
                u_stop[stopped], zeta_new[stopped] = u_wide[stopped], zeta_stop[stopped]
                cands.append((u_stop, zeta_new))
        else:
            u_first = x
            cands = [(x, x)]
        z_first = P.scores(u_first, b_new)
        best = None
        for u_new, zeta_new in cands:
            z_new = z_first
            if u_new is not u_first:  # it differs from the first only on the kinks it stopped on
                z_new = z_first + P.gamma * (P.X[:, stopped] @ (u_new[stopped] - u_first[stopped]))
            f_new = P.value(z_new)
            F = f_new + P.penalty_value(u_new)
            if F <= phi + 1e-15 * max(1.0, abs(phi)) and (best is None or F < best[0]):  # to rounding
                best = (F, u_new, z_new, f_new, zeta_new)
        if best is not None:
            state.accepted(t)
            F, u_new, z_new, f_new, zeta_new = best
            return u_new, b_new, z_new, f_new, F, zeta_new, step, F < phi
    state.rejected()
    return None
