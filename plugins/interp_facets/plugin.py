"""The ``facets`` plugin: the Facets penalties and the ``facets`` method.

``FacetsPlugin`` inherits its hooks from ``interp.Plugin``, so a downstream plugin can subclass
it and extend a catalogue or a hook (call ``super()``, register more) or override it.  Only what
registration needs is imported here; the method's module is imported when it runs.
"""

from __future__ import annotations

from interp import Method, Option, Plugin

from .penalties import PENALTIES
from .validation import MAX_CV_ROWS, MAX_POOL, SOLVERS


FACETS_METHOD = Method(
    name="facets",
    summary="Integer-weight linear model (Facets penalty) shown as a score card: the risk of a binary "
            "target, or the prediction of a numeric one, at every total",
    run="interp_facets.method:run",
    task="any",
    options=(
        Option("lam", float, None, "penalty strength lambda (with --gamma)"),
        Option("gamma", float, None, "grid step: one point = gamma in the linear model"),
        Option("cv", int, 0, "choose (lam, gamma) by K-fold CV over a grid (default 5 "
                             "folds when --lam/--gamma are not given)", min=0, max=50),
        Option("penalty", str, "scf", "registered penalty name (scf, facets, l1, l2, "
                                      "elasticnet, ...)", catalogue="penalties"),
        Option("eps", float, None, "eps of Strongly Convex Facets, in (0, 1) (default 0.01): the "
                                   "same as --penalty-param eps=VALUE, for a penalty that has an eps",
               param_of="penalty"),
        Option("solver", str, "newton", "newton (proximal gradient + Newton steps), fista or ista",
               choices=SOLVERS),
        Option("n_gammas", int, None, "number of gamma values in the CV grid (default: the "
                                      "estimator's, 3 with --max-rows)", min=1, max=100),
        Option("n_betas", int, None, "number of beta = lam/gamma^2 values in the CV grid "
                                     "(default: the estimator's, 12 with --max-rows)", min=1, max=1000),
        Option("tol", float, 1e-4, "stopping tolerance (subgradient distance / lam), > 0", min=0, max=1),
        Option("max_iter", int, 2000, "maximum solver iterations per fit", min=1, max=100_000),
        Option("snap_tol", float, 1e-4, "round a nearly integral minimiser to the grid when "
                                        "its objective rises by at most this fraction (0: "
                                        "strict)"),
        Option("baseline", str, "none", "rounded baseline: unpenalised or L1 logistic "
                                        "regression", choices=("none", "l1")),
        Option("binarize", str, "auto", "write the card in readable 0/1 features (round "
                                        "thresholds such as age >= 50, codes with few levels "
                                        "as x >= t, text levels one-hot, 0/1 columns kept "
                                        "once); auto and always: so, never: the columns as "
                                        "given", choices=("auto", "always", "never")),
        Option("n_thresholds", int, 3, "round thresholds per numeric feature when binarizing",
               min=1, max=50),
        Option("max_cv_rows", int, MAX_CV_ROWS, "run the CV grid on a stratified subsample of at "
                                                "most this many rows, then fit the chosen card on "
                                                "all rows (0: all rows)", min=0),
        Option("max_rows", int, 10, "at most this many rows on the card, chosen by the card "
                                    "search (0: no limit; (lam, gamma) chosen by CV over the "
                                    "grid, as in the paper)", min=0),
        Option("max_points", int, 5, "every point within [-max_points, max_points]", min=1, max=100),
        Option("pool", int, 0, "keep up to this many near-optimal cards (objective within 5% of "
                               "the best) and show them, with the share of them using each feature "
                               "(0: none)", min=0, max=MAX_POOL),
        Option("monotone", str, "auto",
               "auto: each ordered column moves the score one way along its values, the way its "
               "association with the target on the training rows goes (no row's points go "
               "against what its column shows alone); none: free", choices=("auto", "none")),
        Option("card_ridge", float, 0.0,
               "the card search minimises the training log-loss plus card_ridge / 2n times the "
               "squared norm of the card's weights (a normal prior of variance 1 / card_ridge "
               "on each row's weight; 0: the training loss alone)", min=0, max=1e6),
    ),
    missing=True,
)


class FacetsPlugin(Plugin):
    """The built-in ``facets`` plugin: five penalties and the method."""

    penalties = PENALTIES
    methods = (FACETS_METHOD,)
