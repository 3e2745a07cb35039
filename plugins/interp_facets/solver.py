"""``solve``: minimise ``loss(gamma X u + b) + lam * penalty(u)`` with one of the solver loops.

The pieces, as in skglm: the datafit (`.datafits`), the penalty (any ``interp.Penalty``,
bound to its hyperparameters), the problem they make with the data (`.problem`), and the
solver classes, each with a ``run(problem, u, b, L)`` returning a `.problem.SolveResult`:
`.first_order.ISTA`, `.first_order.FISTA` and `.newton.ProxNewton`.
What a fit is asked to do is `SolverOptions` (which makes the solver object); where it
starts is `WarmStart`.
"""

from __future__ import annotations

import attrs
import numpy as np

from .first_order import FISTA, ISTA
from .newton import ProxNewton
from .problem import Objective, Problem, SolveResult
from .validation import SOLVERS, check_max_iter, check_positive, check_solver

__all__ = ["SOLVERS", "SolverOptions", "WarmStart", "solve", "ISTA", "FISTA", "ProxNewton"]


@attrs.frozen
class SolverOptions:
    """How `solve` minimises.

    ``solver`` is ``"ista"`` (plain proximal gradient: every iterate is a prox output, so it
    sits on the penalty's plateaus), ``"fista"`` (Nesterov momentum with gradient-based
    restart; its iterates are prox outputs too) or ``"newton"`` (proximal gradient steps that
    identify the plateaus, each followed by a Newton step on the coordinates off them; see
    `.newton`).  ``tol`` and ``max_iter``: the stopping test (see `.problem`) and the
    iteration cap.  ``precondition``: per-coordinate steps ``1 / (L D_j)`` with the Jacobi
    metric ``D = diag`` of the Hessian bound (features on very different scales then cost
    nothing), else ``D = 1``.  ``check_every``: how often FISTA runs the stopping test.
    """

    solver: str = attrs.field(default="newton", validator=lambda _, __, value: check_solver(value))
    tol: float = attrs.field(default=1e-4, validator=lambda _, __, value: check_positive("tol", value))
    max_iter: int = attrs.field(default=1000, validator=lambda _, __, value: check_max_iter(value))
    precondition: bool = True
    check_every: int = attrs.field(default=10,
                                   validator=lambda _, __, value: check_max_iter(value, "check_every"))

    def make_solver(self) -> ISTA | FISTA | ProxNewton:
        """The solver object these options describe."""
        if self.solver == "newton":
            return ProxNewton(self.tol, self.max_iter)
        if self.solver == "fista":
            return FISTA(self.tol, self.max_iter, self.check_every)
        return ISTA(self.tol, self.max_iter)


@attrs.frozen(eq=False)
class WarmStart:
    """Where a fit starts: coefficients ``u`` in grid units (None: zeros), the ``intercept``, and
    the backtracking constant ``lipschitz`` (None: the bound)."""

    u: np.ndarray | None = None
    intercept: float = 0.0
    lipschitz: float | None = None

    @classmethod
    def from_result(cls, result: SolveResult) -> "WarmStart":
        """Start where ``result`` stopped: the next fit along a path."""
        return cls(result.u, result.intercept, result.lipschitz)


def solve(X: np.ndarray, y: np.ndarray, objective: Objective, lam: float,
          options: SolverOptions = SolverOptions(), start: WarmStart | None = None, *,
          gram=None, metric=None) -> SolveResult:
    """Minimise ``objective`` at strength ``lam`` on ``X, y`` (y in {-1, +1} for the logistic loss).

    ``L`` is found by backtracking from ``start.lipschitz`` (or the bound).  Without a start
    point, above the null threshold (a strong penalty; the head of every path) the
    intercept-only model is the solution: the fit starts there when it passes the stopping test,
    otherwise at ``b = 0``, which needed fewer Newton iterations than the null model at weak
    penalties.  ``gram`` and ``metric`` (see `.problem.step_metric`) may be given to reuse
    them along a path.
    """
    X = np.asarray(X, dtype=float)
    if not X.flags.f_contiguous:
        # column-major makes both X @ u and X.T @ g fast (one BLAS-friendly layout)
        X = np.asfortranarray(X)
    y = np.asarray(y, dtype=float)
    start = start or WarmStart()
    P = Problem(X, y, objective, lam, precondition=options.precondition, gram=gram, metric=metric)
    u = np.zeros(P.d) if start.u is None else P.clip(np.array(start.u, dtype=float))
    b = float(start.intercept) if objective.fit_intercept else 0.0
    L = max(min(start.lipschitz if start.lipschitz else P.lipschitz_max, P.lipschitz_max), 1e-12)
    if start.u is None and objective.fit_intercept and P.criterion(u, *P.null_grads, L) <= options.tol:
        b = P.b_null
    return options.make_solver().run(P, u, b, L)
