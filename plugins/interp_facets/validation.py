"""Input checks shared by the solver, the estimators, the CV and the method: each returns the
checked value (converted) or raises a one-line ``InputError`` naming the parameter."""

from __future__ import annotations

import functools
import numbers
from typing import Mapping, NamedTuple

import numpy as np

import interp
from interp import InputError, Penalty
from interp.resources import check_sizes

__all__ = ["SOLVERS", "MAX_CV_ROWS", "check_solver", "check_max_cv_rows", "check_positive", "check_eps",
           "check_snap_tol", "check_max_iter", "ResolvedPenalty", "resolve_penalty", "fit_memory",
           "check_fit_memory"]

#: the loops `.solver.solve` runs: proximal gradient + Newton steps, FISTA, ISTA
SOLVERS = ("newton", "fista", "ista")

#: the most rows the (beta, gamma) CV grid runs on by default; above it, the grid runs on a
#: stratified subsample of this many rows and the chosen model is refitted on all of them (the
#: grid is hundreds of paths, the refit one warm-started fit, so the cost stops growing with rows)
MAX_CV_ROWS = 10_000

#: the most cards a pool keeps: each is polished by its own search, so the pool's size is work
MAX_POOL = 1000

#: what a fit holds at once, in float64 arrays: d x d matrices (the Gram matrix X'X / n, the
#: curvature bound, its scaled copy and the eigensolver's or Newton step's workspace), per
#: parallel worker; n x d copies of the design besides X itself (the solver's column-major and
#: single-precision copies, X * X of the card search, a CV fold); and per row, the card search's
#: exact evaluation of its best-ranked moves (24 moves, about ten temporaries each)
DENSE_COPIES, ROW_COPIES, SEARCH_BYTES_PER_ROW = 4, 5, 2_000


def check_solver(solver) -> str:
    """``solver`` if it names one of `SOLVERS`."""
    if solver not in SOLVERS:
        raise InputError(f"solver must be one of {', '.join(map(repr, SOLVERS))}, got {solver!r}")
    return solver


def check_max_cv_rows(max_cv_rows, n_folds: int) -> int | None:
    """``max_cv_rows`` as an int (None: never subsample), if it leaves two rows per CV fold."""
    if max_cv_rows is None:
        return None
    if not isinstance(max_cv_rows, numbers.Integral) or isinstance(max_cv_rows, bool) \
            or max_cv_rows < 2 * n_folds:
        raise InputError(f"max_cv_rows must be None or an integer >= {2 * n_folds} (two rows per "
                         f"CV fold), got {max_cv_rows!r}")
    return int(max_cv_rows)


def check_card_ridge(card_ridge) -> float:
    """``card_ridge`` (the card search's ridge on the card's weights, `.search.scale_ridge`) as a
    float, if it is a finite number >= 0."""
    if not _is_real(card_ridge) or not 0 <= float(card_ridge) < np.inf:
        raise InputError(f"card_ridge must be a number >= 0, got {card_ridge!r}")
    return float(card_ridge)


def _is_real(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def check_positive(name: str, value) -> float:
    """``value`` as a float, if it is a finite number > 0."""
    if not _is_real(value):
        raise InputError(f"{name} must be a positive number, got {value!r}")
    value = float(value)
    if not (value > 0 and np.isfinite(value)):
        raise InputError(f"{name} must be > 0, got {value}")
    return value


def check_eps(eps) -> float:
    """The ``eps`` of Strongly Convex Facets, in the open interval (0, 1)."""
    if not _is_real(eps) or not 0 < float(eps) < 1:
        raise InputError(f"eps must be in (0, 1), got {eps!r}")
    return float(eps)


def check_snap_tol(snap_tol) -> float:
    """The snap's relative objective tolerance, in [0, 1)."""
    if not _is_real(snap_tol) or not 0 <= snap_tol < 1:
        raise InputError(f"snap_tol must be a number in [0, 1), got {snap_tol!r}")
    return float(snap_tol)


def check_max_iter(max_iter, name: str = "max_iter") -> int:
    """An iteration count: an integer >= 1."""
    if isinstance(max_iter, bool) or not isinstance(max_iter, numbers.Integral) or max_iter < 1:
        raise InputError(f"{name} must be a positive integer, got {max_iter!r}")
    return int(max_iter)


class ResolvedPenalty(NamedTuple):
    """A registered penalty and the hyperparameters it is called with (``**hyper``)."""

    penalty: Penalty
    hyper: dict


def resolve_penalty(name: str, eps: float | None = None,
                    penalty_params: dict | None = None) -> ResolvedPenalty:
    """Look a penalty up by name in the registry and build its hyperparameters.

    Called when an estimator is fitted: the fitted model keeps the penalty object it got here,
    so it never needs the registry again.  ``eps`` sets the hyperparameter of that name when the
    penalty has one; ``penalty_params`` override the others.  The hyperparameters are checked
    by binding them (``penalty.bind``): an unknown name or a bad value is an ``InputError``.
    """
    if not isinstance(name, str):
        raise InputError(f"penalty must be a registered penalty name, got {name!r}")
    penalties = interp.get_registry().penalties
    if name not in penalties:
        known = ", ".join(sorted(penalties)) or "none"
        raise InputError(f"unknown penalty {name!r}; registered: {known}")
    penalty = penalties[name]
    given = {"eps": eps} if "eps" in penalty.defaults and eps is not None else {}
    for key, value in (penalty_params or {}).items():
        try:
            given[key] = float(value)
        except (TypeError, ValueError):
            raise InputError(f"penalty {name!r}: parameter {key!r} must be a number, got {value!r}") from None
    return ResolvedPenalty(penalty, penalty.bind(**given).hyper)



def fit_memory(n_rows: int, n_features: int, grid_points: int = 0, *, workers: int = 1, folds: int = 0) -> float:
    """The bytes a fit on ``n_rows`` x ``n_features`` allocates at its peak, ``workers`` paths
    at once, with a CV grid of ``grid_points`` (gamma, beta) on ``folds`` folds (its
    coefficients and scores): an upper bound of its large arrays (see :data:`DENSE_COPIES`)."""
    dense = 8.0 * DENSE_COPIES * (n_features + 1) ** 2 * max(1, workers)
    rows = 8.0 * ROW_COPIES * n_rows * n_features + SEARCH_BYTES_PER_ROW * n_rows
    grid = 8.0 * grid_points * (n_features + 8 * (folds + 1) + 30)
    return dense + rows + grid


def check_fit_memory(n_rows: int, n_features: int, grid_points: int = 0, *, workers: int = 1, folds: int = 0,
                     what: str = "", advice: Mapping[str, str] | None = None) -> None:
    """A one-line ``ResourceError`` before any work when :func:`fit_memory` exceeds the memory
    budget (``interp.resources``), saying how many features, rows or grid points would fit;
    ``advice`` (by size: ``n_features``, ``n_rows``, ``grid_points``) says how to get there."""
    check_sizes(functools.partial(fit_memory, workers=workers, folds=folds),
                {"n_rows": n_rows, "n_features": n_features, "grid_points": grid_points},
                what or f"a Facets fit on {n_rows:,} rows x {n_features:,} features",
                {"n_rows": "rows", "n_features": "features", "grid_points": "grid points"}, advice)
