"""The ``symbolic`` plugin: the five Meijer ridge families of the paper, the ``symbolic`` method
and the ``register_closed_forms`` hook with the built-in closed forms.

``SymbolicPlugin`` inherits its catalogue hooks from ``interp.Plugin``, so a downstream plugin can
subclass it and extend what it registers.
"""

from __future__ import annotations

from interp import Method, Option, Plugin, hookimpl
from interp.plugin import adds_hookspecs

from .blackbox import BLACK_BOXES, MAX_BLACKBOX_ROWS, MAX_FIT_ROWS
from .families import PAPER_FAMILIES


SYMBOLIC_METHOD = Method(
    name="symbolic",
    summary="Symbolic Pursuit: a closed-form sum of Meijer G ridge functions mimicking a black box",
    run="interp_symbolic.method:run",
    task="any",
    explains_model=True,
    options=(
        Option("model", str, "mlp", "black box to train and explain", choices=BLACK_BOXES),
        Option("max_terms", int, 3, "maximum number of terms K", min=1, max=20),
        Option("test_size", float, 0.25, "fraction of rows held out for fidelity (strictly between 0 and 1)",
               min=0.0, max=1.0),
        Option("max_blackbox_rows", int, MAX_BLACKBOX_ROWS,
               "train the named black box on at most this many training rows (a random subsample)", min=2,
               max=1_000_000),
        Option("max_fit_rows", int, MAX_FIT_ROWS,
               "fit the symbolic model to the black box's outputs on at most this many training rows "
               "(a random subsample; fidelity is still measured on every held-out row)", min=2, max=100_000),
        Option("n_restarts", int, 3, "starting points per family and term", min=1, max=100),
        Option("maxiter", int, 100, "L-BFGS-B iterations per start", min=1, max=10_000),
        Option("loss_tol", float, 1e-4, "stop once MSE / Var(black box) is below this", min=0.0, max=1.0),
        Option("ratio_tol", float, 0.9, "keep a term only if new_loss / old_loss is below this",
               min=0.0, max=1.0),
        Option("model_selection", str, "score",
               "which row of the models by size predict uses: score (the highest drop of log held-out loss "
               "per unit of complexity among rows within 1.5x the lowest loss and 0.01 of the best R^2, elementary "
               "rows first), best "
               "(lowest held-out loss), simplest (fewest terms within 0.01 of the best held-out R^2) or a "
               "number of terms (at most --max-terms)"),
        Option("families", str, None,
               "ridge families tried at each term: comma-separated names or glob patterns, a leading '-' "
               "excludes (meijer_1002,meijer_2233 or --families=-meijer_2233); default: every registered one",
               catalogue="ridge_families", many=True),
        Option("simplify_tol", float, 0.01,
               "relative loss increase allowed when a term is rewritten as a closed form, a parameter "
               "snapped or a direction coefficient dropped", min=0.0),
    ),
)


class SymbolicPlugin(Plugin):
    """The built-in ``symbolic`` plugin: the five ridge families of the paper, the method, and
    the ``register_closed_forms`` hook with the built-in closed forms."""

    ridge_families = PAPER_FAMILIES
    methods = (SYMBOLIC_METHOD,)

    add_hookspecs = adds_hookspecs("interp_symbolic.hookspecs", "register_closed_forms")

    @hookimpl
    def register_closed_forms(self, register):
        from .closed_forms import builtin_closed_forms

        for form in builtin_closed_forms():
            register(form)
