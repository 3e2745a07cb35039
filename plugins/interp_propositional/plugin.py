"""Hook implementations of the ``propositional`` plugin."""

from __future__ import annotations

from interp import Method, Option, hookimpl

from .operators import BUILTIN_OPERATORS


class PropositionalPlugin:
    """The built-in ``propositional`` plugin (hooks as methods, so a downstream plugin can subclass it)."""

    @hookimpl
    def register_kernel_operators(self, register):
        for op in BUILTIN_OPERATORS:
            register(op)

    @hookimpl
    def register_methods(self, register):
        register(PROPOSITIONAL_METHOD)


PROPOSITIONAL_METHOD = Method(
    name="propositional",
    summary="SVM with a propositional-logic kernel; AUC, chosen formula and top rules.",
    run="interp_propositional.method:run",
    task="classification",
    options=(
        Option("formula", str, "", "kernel formula, e.g. '(a & ~b) | c' (default: select one)"),
        Option("select", int, 30, "number of random candidate formulas ranked by radius-margin ratio"),
        Option("C", float, 1.0, "SVM regularisation"),
        Option("p", float, 0.4, "generator parameter p (leaf probability 1 - p^(eta*depth))"),
        Option("eta", float, 0.7, "generator parameter eta"),
        Option("max_leaves", int, 8, "skip drawn candidates with more leaves (0: no limit)"),
        Option("cv", int, 5, "cross-validation folds for the AUC"),
        Option("top", int, 5, "number of rules shown"),
        Option("positive", str, "", "positive class (default: last of two / most frequent)"),
        Option("normalize", bool, True, "normalise the kernel"),
    ),
)
