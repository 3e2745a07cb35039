"""Put a nearly integral minimiser on the grid when rounding costs next to nothing.

At the minimiser a coefficient is integral only when its loss gradient falls inside a plateau
of the penalty's subdifferential.  On real data an otherwise integral model often keeps one or
two coefficients just past a plateau's edge (1.003 points, say), and the strict test calls it
non-integral.  ``snap_to_grid`` rounds all coefficients of such a model at once, and keeps the
rounded model only if its penalised objective is at most ``tol`` (relative) above the
minimiser's.  The intercept is kept as it is, so the real increase can only be smaller.  With
``tol = 0`` nothing moves and integrity is the strict one.  Under the objective's box
(``max_points``, ``bounds``) a coefficient rounds to the nearest integer inside it.
"""

from __future__ import annotations

import numpy as np

from .problem import Objective

__all__ = ["GRID_ATOL", "on_grid", "grid_decision", "integrity_rows", "snap_to_grid"]

#: a coefficient is on the gamma-grid when |w / gamma - round(w / gamma)| <= this
GRID_ATOL = 1e-9


def on_grid(U: np.ndarray, atol: float = GRID_ATOL) -> np.ndarray:
    """Elementwise: is the coefficient (in grid units) an integer, to ``atol``?"""
    return np.abs(U - np.round(U)) <= atol


def grid_decision(X: np.ndarray, coef: np.ndarray, intercept: float, gamma: float) -> np.ndarray:
    """``X @ coef + intercept``; for a model whose coefficients are all on the grid, computed as
    its score card decides, ``gamma * (total - threshold)`` with the total ``X @ points`` and
    the threshold ``-intercept / gamma``: a refitted intercept may put the threshold exactly
    on a total the rows reach (probability 1/2 there), where ``X @ coef + intercept`` comes
    out a rounding error above or below 0 and the model would break the tie unlike its card."""
    units = coef / gamma if gamma > 0 else np.full_like(coef, np.nan)
    if not np.all(on_grid(units)):
        return X @ coef + intercept
    return gamma * (X @ np.round(units) - (-intercept / gamma))


def integrity_rows(U: np.ndarray, atol: float = GRID_ATOL) -> tuple[np.ndarray, np.ndarray]:
    """Per row of ``U`` (models in grid units): the fraction of coefficients on the grid, zeros
    included (1 for a model without features), and the same fraction among the non-zero ones, a
    coefficient off the grid counting as non-zero (nan for a row of zeros)."""
    U = np.array(U, dtype=float, ndmin=2)
    on = on_grid(U, atol)
    nz = (np.round(U) != 0) | ~on
    whole = on.mean(axis=1) if U.shape[1] else np.ones(U.shape[0])
    with np.errstate(invalid="ignore"):
        nonzero = np.where(nz.any(axis=1), (on & nz).sum(axis=1) / nz.sum(axis=1), np.nan)
    return whole, nonzero


def snap_to_grid(X, y, U, B, objective: Objective, lams, tol: float):
    """Round the rows of ``U`` (models of ``objective`` in grid units, intercepts ``B``,
    strengths ``lams``) whose penalised objective rises by at most ``tol`` times its value.

    Returns (U with those rows rounded, relative objective increase per row: 0 for a row
    already integral, nan for a row left as it was).  In every row, the coefficients within
    ``GRID_ATOL`` of an integer are put on it exactly.
    """
    U = np.array(U, dtype=float, ndmin=2)
    B = np.broadcast_to(np.asarray(B, dtype=float), U.shape[:1])
    lams = np.broadcast_to(np.asarray(lams, dtype=float), U.shape[:1])
    on = on_grid(U)
    U[on] = np.round(U[on])
    gap = np.zeros(U.shape[0])
    rows = np.flatnonzero(~on.all(axis=1))
    if rows.size == 0 or tol <= 0:
        gap[rows] = np.nan
        return U, gap
    R = np.round(U[rows])
    box = objective.box(U.shape[1])
    if box is not None:  # the nearest integers in the box
        R = np.clip(R, np.ceil(box[0]), np.floor(box[1]))
    F0 = _objectives(X, y, U[rows], B[rows], objective, lams[rows])
    F1 = _objectives(X, y, R, B[rows], objective, lams[rows])
    rel = (F1 - F0) / np.maximum(np.abs(F0), 1e-300)
    ok = rel <= tol
    U[rows[ok]] = R[ok]
    gap[rows] = np.where(ok, np.maximum(rel, 0.0), np.nan)
    return U, gap


def _objectives(X, y, U, B, objective: Objective, lams) -> np.ndarray:
    """The penalised objective of every row of ``U`` (intercepts ``B``, strengths ``lams``)."""
    penalty = np.array([objective.penalty_value(u) for u in U])
    return objective.datafit.column_values(objective.gamma * (X @ U.T) + B, y) + lams * penalty
