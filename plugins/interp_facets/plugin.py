"""Hook implementations: the Facets penalties and the ``facets`` method.

Only what registration needs is imported here; the method's run imports the rest when it runs.
"""

from __future__ import annotations

from interp import Method, Option, hookimpl

from .penalties import PENALTIES
from .solver import SOLVERS


@hookimpl
def register_penalties(register):
    for penalty in PENALTIES:
        register(penalty)


def _run(data, ctx, **options):
    from .method import run

    return run(data, ctx, **options)


@hookimpl
def register_methods(register):
    register(
        Method(
            name="facets",
            summary="Integer-weight linear classifier (Facets penalty) shown as a score card",
            run=_run,
            task="classification",
            options=(
                Option("lam", float, None, "penalty strength lambda (with --gamma)"),
                Option("gamma", float, None, "grid step: one point = gamma in the linear model"),
                Option("cv", int, 0, "choose (lam, gamma) by K-fold CV over a grid (default 5 "
                                     "folds when --lam/--gamma are not given)"),
                Option("penalty", str, "scf", "registered penalty name (scf, facets, l1, l2, "
                                              "elasticnet, ...)"),
                Option("eps", float, 0.01, "eps of Strongly Convex Facets, in (0, 1)"),
                Option("solver", str, "newton", "newton (proximal gradient + Newton steps), fista or ista",
                       choices=SOLVERS),
                Option("n_gammas", int, 12, "number of gamma values in the CV grid"),
                Option("n_betas", int, 40, "number of beta = lam/gamma^2 values in the CV grid"),
                Option("tol", float, 1e-4, "stopping tolerance (subgradient distance / lam)"),
                Option("max_iter", int, 2000, "maximum solver iterations per fit"),
                Option("snap_tol", float, 1e-4, "round a nearly integral minimiser to the grid when "
                                                "its objective rises by at most this fraction (0: "
                                                "strict)"),
                Option("baseline", str, "none", "rounded baseline: unpenalised or L1 logistic "
                                                "regression", choices=("none", "l1")),
                Option("binarize", str, "auto", "write the card in 0/1 features (thresholds such as "
                                                "age>52, one-hot levels); auto: when any feature is "
                                                "not already 0/1", choices=("auto", "always", "never")),
                Option("n_thresholds", int, 3, "quantile thresholds per numeric feature when binarizing"),
            ),
        )
    )
