"""Regularisation paths: warm-started fits along decreasing ``lam`` at one ``gamma``."""

from __future__ import annotations

import attrs
import numpy as np

from interp.blas import single_threaded_blas
from .problem import Objective, gram_matrix, step_metric
from .solver import SolverOptions, WarmStart, solve

__all__ = ["Path", "fit_path"]


@attrs.frozen(eq=False)
class Path:
    """The fits of a path, one row per ``lam`` in the order given: ``coefs`` (n_lams, d) in grid
    units (w / gamma), ``intercepts``, ``n_iter`` and ``converged``."""

    coefs: np.ndarray
    intercepts: np.ndarray
    n_iter: np.ndarray
    converged: np.ndarray


def fit_path(X, y, objective: Objective, lams, options: SolverOptions = SolverOptions(), *,
             gram=None) -> Path:
    """Fit ``objective`` at every strength in ``lams``, strongest first, each fit starting where
    the previous one stopped (its coefficients, intercept and backtracking constant).

    The step metric is computed once for the path and ``gram`` (see `.problem.gram_matrix`)
    may be given to share it between paths on the same ``X``.
    """
    lams = np.asarray(lams, dtype=float)
    X = np.asfortranarray(X, dtype=float)
    U = np.zeros((lams.size, X.shape[1]))
    B = np.zeros(lams.size)
    iters = np.zeros(lams.size, dtype=int)
    conv = np.zeros(lams.size, dtype=bool)
    if gram is None:
        gram = gram_matrix(X)
    start = WarmStart()
    with single_threaded_blas():
        metric = step_metric(X, objective, options.precondition, gram)
        for i in np.argsort(-lams, kind="stable"):
            res = solve(X, y, objective, float(lams[i]), options, start, metric=metric, gram=gram)
            start = WarmStart.from_result(res)
            U[i], B[i], iters[i], conv[i] = res.u, res.intercept, res.n_iter, res.converged
    return Path(coefs=U, intercepts=B, n_iter=iters, converged=conv)
