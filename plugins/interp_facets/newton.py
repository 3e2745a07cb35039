"""Proximal gradient steps accelerated by Newton steps on the coordinates off the penalty's kinks.

First-order steps crawl on badly conditioned data (raw features on very different scales).
This loop combines two steps:

1. a backtracked proximal gradient step; it *identifies* which coordinates sit on a plateau of
   the prox (a kink of the penalty: an integer for Facets, zero for L1) and puts them there
   exactly.  It runs first, after a Newton step that was rejected or did not lower the
   objective, and whenever a coordinate on a plateau is not optimal there and its violation is
   the largest residual;
2. a Newton step on the other ("free") coordinates and the intercept, on the loss plus the
   penalty's local quadratic model, accepted only if the objective does not go up.  Its
   candidate is itself a prox output (see `newton_step`), so every iterate, and the
   returned model, has exact integers, as with ISTA.

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

from typing import Any

import attrs
import numpy as np

from .problem import Problem, SolveResult

__all__ = ["MAX_FREE", "PLATEAU_SLOPE", "ProxNewton", "Anchor", "NewtonStep", "Damping", "newton_step",
           "prox_slopes"]

#: above this many free coordinates the explicit Hessian costs more than it saves
MAX_FREE = 2000

#: a prox slope at or below this marks a coordinate on a plateau (a kink of the penalty)
PLATEAU_SLOPE = 1e-9

#: the step lengths a Newton step tries, longest first
STEP_LENGTHS = 0.5 ** np.arange(8)


def prox_slopes(P: Problem, zeta: np.ndarray, step) -> np.ndarray:
    """d prox(zeta) / d zeta per coordinate, by central differences (the prox is separable)."""
    h = _probe(zeta)
    Z = np.empty((2, zeta.size))
    np.add(zeta, h, out=Z[0])
    np.subtract(zeta, h, out=Z[1])
    up, down = P.prox_rows(Z, step)
    return (up - down) / (2.0 * h)


def _probe(zeta: np.ndarray) -> np.ndarray:
    return 1e-6 * np.maximum(1.0, np.abs(zeta))


@attrs.frozen(eq=False)
class Anchor:
    """Where a Newton step starts: ``u = prox(zeta, step)`` with intercept ``b``, scores ``z``
    and penalised ``objective``; ``gu``, ``gb`` are the loss's gradient in (u, b) there and
    ``w`` its second derivative per sample."""

    u: np.ndarray
    b: float
    z: np.ndarray
    objective: float
    zeta: np.ndarray
    step: Any  # per-coordinate steps (array) or one scalar step
    gu: np.ndarray
    gb: float
    w: np.ndarray


@attrs.frozen(eq=False)
class NewtonStep:
    """An accepted Newton step: the new point ``u = prox(zeta, step)`` (per-coordinate ``step``),
    its intercept, scores, loss ``f`` and penalised ``objective``; ``lowered`` is False when the
    objective only stayed equal (to rounding)."""

    u: np.ndarray
    b: float
    z: np.ndarray
    f: float
    objective: float
    zeta: np.ndarray
    step: np.ndarray
    lowered: bool


class Damping:
    """The Levenberg damping carried from one Newton step to the next."""

    def __init__(self):
        self.value = 1e-4

    def accepted(self, t):
        self.value = max(self.value / 4, 1e-8) if t == 1.0 else min(self.value * 4 / t, 1e4)

    def rejected(self):
        self.value = min(self.value * 100, 1e4)


@attrs.frozen
class ProxNewton:
    """Newton steps with proximal gradient steps between them whenever the plateaus may
    be wrong: at the start, after a rejected Newton step, and when a coordinate on a plateau
    violates its optimality condition (it should leave the plateau, which only a gradient step
    can tell) by more than any free coordinate's residual, or when a Newton step no longer lowers
    the objective (the free residuals are then rounding).  Released earlier, while the free
    coordinates are still far from optimal, coordinates leave and re-land on kinks over and
    over; released then, they leave once.

    Stops when the criterion is at most ``tol`` or after ``max_iter`` iterations.
    """

    tol: float = 1e-4
    max_iter: int = 1000

    def run(self, P: Problem, u: np.ndarray, b: float, L: float) -> SolveResult:
        """Minimise ``P`` from (u, b), backtracking the gradient steps from ``L``."""
        tol = self.tol
        z = P.scores(u, b)
        f = P.value(z)
        F = None  # the objective at u, set by each step that moves u (a gradient step comes first)
        gu, gb, w = P.grads_and_curvature(z)
        crit, dist = P.stationarity(u, gu, gb, L)
        damping = Damping()
        zeta = step = None  # the point and steps of the prox that produced u, when there is one
        it = 0
        for it in range(1, self.max_iter + 1):
            if crit <= tol:
                break
            slope = None if zeta is None else prox_slopes(P, zeta, step)
            # a coordinate on a plateau that is not optimal there must leave it: a gradient step
            if slope is None or _must_release(dist, slope <= PLATEAU_SLOPE, tol):
                moved = P.prox_step(u, b, f, gu, gb, L)
                u, b, z, f, L = moved.u, moved.b, moved.z, moved.f, moved.lipschitz
                zeta, step = moved.zeta, moved.step
                gu, gb, w = P.grads_and_curvature(z)
                crit, dist = P.stationarity(u, gu, gb, L)
                if crit <= tol:
                    break
                F = f + P.penalty_value(u)
                slope = prox_slopes(P, zeta, step)
            moved = newton_step(P, Anchor(u, b, z, F, zeta, step, gu, gb, w), slope, damping)
            if moved is None:
                zeta = None
                continue
            u, b, z, f, F = moved.u, moved.b, moved.z, moved.f, moved.objective
            zeta, step = moved.zeta, moved.step
            if not moved.lowered:  # the free coordinates are done: let a gradient step test the plateaus
                zeta = None
            gu, gb, w = P.grads_and_curvature(z)
            crit, dist = P.stationarity(u, gu, gb, L)
        return P.result(u, b, f, it, crit, L, tol)


def _must_release(dist, pinned, floor) -> bool:
    """Does a coordinate on a plateau violate its optimality by more than ``floor`` and more than
    every free coordinate's residual?"""
    worst = np.max(dist[pinned], initial=0.0)
    return worst > floor and worst > np.max(dist[~pinned], initial=0.0)


def newton_step(P: Problem, at: Anchor, slope: np.ndarray, damping: Damping) -> NewtonStep | None:
    """A damped Newton step from ``at`` on its free coordinates (where the prox has a non-zero
    ``slope``) and the intercept, halved until the objective does not go up; None when no step
    length lowers it (or there is nothing to step on)."""
    local = _LocalModel.at(P, at, slope)
    if local is None:
        return None
    direction = _direction(P, at, local, damping.value)
    if direction is None:
        return None
    du, db = direction
    trial = _Trial(P, at, local)
    for t in STEP_LENGTHS:
        b_new = at.b + t * db
        best = _best(P, trial.candidates(t, du, b_new), at.objective)
        if best is not None:
            damping.accepted(t)
            F, f, cand = best
            return NewtonStep(u=cand.u, b=b_new, z=cand.z, f=f, objective=F, zeta=cand.zeta,
                              step=local.step, lowered=F < at.objective)
    damping.rejected()
    return None


@attrs.frozen(eq=False)
class _LocalModel:
    """The penalty's local quadratic model at ``at.u``, read off its prox (see the module
    docstring): the ``free`` coordinates (off the plateaus), the per-coordinate prox ``step``,
    ``grad = lam omega'(u)`` and ``curv = lam omega''(u)`` (zero on the plateaus); the last two
    are None without a penalty (lam <= 0)."""

    free: np.ndarray
    step: np.ndarray
    grad: np.ndarray | None
    curv: np.ndarray | None

    @classmethod
    def at(cls, P: Problem, at: Anchor, slope: np.ndarray) -> "_LocalModel | None":
        """None when there are too many free coordinates for an explicit Hessian, or nothing
        to step on."""
        d = P.d
        step = np.full(d, at.step) if np.ndim(at.step) == 0 else np.asarray(at.step, dtype=float)
        free = np.flatnonzero(slope > PLATEAU_SLOPE) if P.lam > 0 else np.arange(d)
        if free.size > MAX_FREE or (free.size == 0 and not P.fit_intercept):
            return None
        if P.lam <= 0:
            return cls(free, step, None, None)
        curv = np.zeros(d)
        curv[free] = (1.0 / slope[free] - 1.0) / step[free]
        return cls(free, step, (at.zeta - at.u) / step, curv)


def _direction(P: Problem, at: Anchor, local: _LocalModel, damping: float):
    """The damped Newton direction (du on the free coordinates, db) of the loss plus the
    penalty's local model, or None when it is not finite."""
    free = local.free
    k = free.size
    H = P.hessian(at.w, free)
    diag = H.reshape(-1)[:: H.shape[0] + 1]  # a view of H's diagonal
    g = np.empty(H.shape[0])
    g[:k] = at.gu[free]
    if local.grad is not None:
        g[:k] += local.grad[free]
        diag[:k] += local.curv[free]
    if P.fit_intercept:
        g[k] = at.gb
    diag += damping * diag + 1e-12 * max(float(np.max(diag, initial=0.0)), 1e-300)
    try:
        delta = -np.linalg.solve(H, g)
    except np.linalg.LinAlgError:
        delta = -np.linalg.lstsq(H, g, rcond=None)[0]
    if not np.all(np.isfinite(delta)):
        return None
    return delta[:k], (float(delta[k]) if P.fit_intercept else 0.0)


@attrs.frozen(eq=False)
class _Candidate:
    """A trial point ``u = prox(zeta, step)`` and its scores ``z``."""

    u: np.ndarray
    zeta: np.ndarray
    z: np.ndarray


class _Trial:
    """The candidate points of a Newton step at each step length, in buffers made once per step.

    Where a step crosses a kink of the penalty, two candidates, the better one kept: the
    coordinate stops on the first kink crossed (as in orthant-wise methods; what L1's zero
    needs), or it goes through (what Facets' evenly spaced integers need).  Neither needs to
    know where the kinks are.  On u's piece the penalty's gradient is lam omega'(x) = grad +
    curv (x - u), so prox_{lam s'}(x + s' lam omega'(x)) returns x while x stays on that piece,
    for any s'; past a kink it moves x back by up to lam s' times the jump of omega' there.
    s' = s goes through (the pull-back is one prox step's); s' = s + 2 |step| / lam stops on the
    kink when the jump is >= 1/2 (Facets 1, SCF 1 - eps, L1 2).  Both are prox outputs, with
    exact integers, returned as prox(zeta', s) with the original steps.  The prox is separable,
    so the second candidate is the first with only the coordinates that the wide prox stopped on
    a kink replaced (elsewhere the two differ by rounding alone): those where the wide prox is
    flat just to the right.  One prox call makes all three.
    """

    def __init__(self, P: Problem, at: Anchor, local: _LocalModel):
        self.P, self.at, self.local = P, at, local
        self.Z, self.steps = np.empty((3, P.d)), np.empty((3, P.d))  # the prox's points and steps
        self.steps[0] = local.step

    def candidates(self, t: float, du: np.ndarray, b_new: float) -> list[_Candidate]:
        """The candidates for the step ``t * du`` on the free coordinates (first: through every
        kink; second, if any coordinate stopped on one: stopping there)."""
        P, v, local = self.P, self.at.u, self.local
        x = v.copy()
        x[local.free] += t * du
        if local.grad is None:
            return [_Candidate(x, x, P.scores(x, b_new))]
        step, Z, steps = local.step, self.Z, self.steps
        wide = steps[1]
        wide[:] = step
        wide[local.free] += 2.0 * t * np.abs(du) / P.lam
        steps[2] = wide
        shift = local.grad + local.curv * (x - v)
        np.add(x, step * shift, out=Z[0])
        np.add(x, wide * shift, out=Z[1])
        np.add(Z[1], _probe(Z[1]), out=Z[2])
        U = P.prox_rows(Z, steps)
        u_first, u_wide = U[0], U[1]
        zeta_first, zeta_stop = U[:2] + step * (shift + (x - U[:2]) / steps[:2])
        first = _Candidate(u_first, zeta_first, P.scores(u_first, b_new))
        stopped = np.flatnonzero((u_wide != u_first) & (U[2] == u_wide))
        if not stopped.size:
            return [first]
        u_stop, zeta_new = u_first.copy(), zeta_first.copy()
        u_stop[stopped], zeta_new[stopped] = u_wide[stopped], zeta_stop[stopped]
        # it differs from the first only on the kinks it stopped on
        z_stop = first.z + P.gamma * (P.X[:, stopped] @ (u_stop[stopped] - u_first[stopped]))
        return [first, _Candidate(u_stop, zeta_new, z_stop)]


def _best(P: Problem, candidates: list[_Candidate], phi: float):
    """(objective, loss, candidate) of the candidate with the lowest objective not above
    ``phi`` (to rounding), or None."""
    best = None
    for cand in candidates:
        f = P.value(cand.z)
        F = f + P.penalty_value(cand.u)
        if F <= phi + 1e-15 * max(1.0, abs(phi)) and (best is None or F < best[0]):
            best = (F, f, cand)
    return best
