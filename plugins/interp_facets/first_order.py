"""The first-order solvers: ISTA (plain proximal gradient, the paper's) and FISTA with restart.

Every iterate of both is a prox output, so it sits on the penalty's plateaus and an integral
coordinate is an exact integer.  FISTA extrapolates with Nesterov momentum and drops the momentum
whenever the step goes uphill in the metric (gradient restart, O'Donoghue & Candes 2015); it
checks the stopping test every ``check_every`` iterations, at the last prox output.
"""

from __future__ import annotations

from typing import ClassVar

import attrs
import numpy as np

from .problem import Problem, SolveResult

__all__ = ["ISTA", "FISTA"]


@attrs.frozen
class ISTA:
    """Proximal gradient with backtracking: stops when the criterion is at most ``tol`` or after
    ``max_iter`` iterations (``n_iter`` counts the last, checking, pass too); the stopping
    test runs every ``check_every`` iterations (each costs a gradient at the last prox
    output when the gradient step was taken elsewhere, as FISTA's is)."""

    tol: float = 1e-4
    max_iter: int = 1000
    check_every: int = 1

    #: extrapolate with Nesterov momentum (FISTA)
    momentum: ClassVar[bool] = False

    def run(self, P: Problem, u: np.ndarray, b: float, L: float) -> SolveResult:
        """Minimise ``P`` from (u, b), backtracking from ``L``."""
        fista, tol, check_every = self.momentum, self.tol, self.check_every
        z = P.scores(u, b)
        f = P.value(z)
        uy, by, zy = u, b, z  # the extrapolated point (FISTA), where the gradient is taken
        t = 1.0  # FISTA's momentum
        Du, Db = P.Du, P.Db
        for it in range(1, self.max_iter + 1):
            fy, gu, gb = P.value_and_grads(zy)
            if it == 1 or (it - 1) % check_every == 0:
                crit = P.criterion(u, *P.grads(z), L) if uy is not u else P.criterion(uy, gu, gb, L)
                if crit <= tol:
                    return P.result(u, b, f, it, crit, L, tol)
            step = P.prox_step(uy, by, fy, gu, gb, L)
            L = step.lipschitz
            if not fista:
                uy, by, zy = step.u, step.b, step.z
            elif float(((uy - step.u) * Du) @ (step.u - u)) + Db * (by - step.b) * (step.b - b) > 0:
                t = 1.0  # the step went uphill in the metric: restart without momentum
                uy, by, zy = step.u, step.b, step.z
            else:
                t_next = (1.0 + np.sqrt(1.0 + 4.0 * t * t)) / 2.0
                beta = (t - 1.0) / t_next
                t = t_next
                uy = step.u + beta * (step.u - u)
                by = step.b + beta * (step.b - b)
                zy = step.z + beta * (step.z - z)
            u, b, z, f = step.u, step.b, step.z, step.f
        crit = P.criterion(u, *P.grads(z), L)  # the final check, at the last iterate
        return P.result(u, b, f, self.max_iter, crit, L, tol)


@attrs.frozen
class FISTA(ISTA):
    """ISTA with Nesterov momentum and gradient restart, checking every 10 iterations by default."""

    check_every: int = 10

    momentum: ClassVar[bool] = True
