"""interp hooks: the five Meijer ridge families and the ``symbolic`` method."""

from __future__ import annotations

from interp import Method, Option, hookimpl

from .blackbox import BLACK_BOXES
from .families import PAPER_FAMILIES


class SymbolicPlugin:
    """The built-in ``symbolic`` plugin (hooks as methods, so a downstream plugin can subclass it)."""

    @hookimpl
    def register_ridge_families(self, register):
        for fam in PAPER_FAMILIES:
            register(fam)

    @hookimpl
    def register_methods(self, register):
        register(SYMBOLIC_METHOD)


SYMBOLIC_METHOD = Method(
    name="symbolic",
    summary="Symbolic Pursuit: a closed-form sum of Meijer G ridge functions mimicking a black box",
    run="interp_symbolic.method:run",
    task="any",
    options=(
        Option("model", str, "mlp", "black box to train and explain", choices=BLACK_BOXES),
        Option("max_terms", int, 3, "maximum number of terms K", min=1),
        Option("test_size", float, 0.25, "fraction of rows held out for fidelity (strictly between 0 and 1)",
               min=0.0, max=1.0),
        Option("n_restarts", int, 3, "starting points per family and term", min=1),
        Option("maxiter", int, 100, "L-BFGS-B iterations per start", min=1),
        Option("loss_tol", float, 1e-3, "stop once MSE / Var(black box) is below this", min=0.0),
        Option("ratio_tol", float, 0.9, "keep a term only if new_loss / old_loss is below this",
               min=0.0, max=1.0),
    ),
)
