"""The ``propositional`` plugin: the built-in kernel operators and the ``propositional`` method.

``PropositionalPlugin`` inherits its hooks from ``interp.Plugin``, so a downstream plugin can
subclass it and extend what it registers.
"""

from __future__ import annotations

from interp import Method, Option, Plugin

from .operators import BUILTIN_OPERATORS


PROPOSITIONAL_METHOD = Method(
    name="propositional",
    summary="SVM with a propositional-logic kernel explained by a rule list drawn from its features.",
    run="interp_propositional.method:run",
    task="classification",
    options=(
        Option("formula", str, "", "kernel formula, e.g. '(a & ~b) | c' (default: select one)"),
        Option("select", int, 30, "number of random candidate formulas ranked by radius-margin ratio "
               "(--selection radius-margin without --formula)", min=0, max=1000),
        Option("selection", str, "rules", "without --formula: 'rules' tries short and/or/not formulas (xor, <-> "
               "when they earn it) by the rule model's CV accuracy; 'radius-margin' ranks --select random ones",
               choices=("rules", "radius-margin")),
        Option("C", float, 0.0, "SVM regularisation (positive; 0: chosen by 3-fold CV among 0.1, 1, 10, 100)",
               max=1e6),
        Option("p", float, 0.4, "generator parameter p in (0, 1) (leaf probability 1 - p^(eta*depth))",
               min=0.0, max=1.0),
        Option("eta", float, 0.7, "generator parameter eta (positive)", min=0.0, max=10.0),
        Option("max_leaves", int, 8, "skip drawn candidates with more leaves (0: as many as the search for "
               "the rules allows on this data)", min=0, max=100),
        Option("max_rules", int, 10, "most rules of the rule model", min=1, max=100),
        Option("cv", int, 5, "cross-validation folds for the AUC", min=2, max=50),
        Option("top", int, 5, "number of rules shown", min=1, max=100),
        Option("positive", str, "", "positive class (default: the larger of two / most frequent)"),
        Option("normalize", bool, True, "normalise the kernel"),
        Option("third_party_operators", bool, False,
               "let the candidate draw use other plugins' registered operators too"),
        Option("approximate", str, "auto", "kernel: 'never' the exact Gram matrix, 'always' a Nystroem "
               "approximation, 'auto' the approximation above --max-exact-rows rows", choices=("auto", "never", "always")),
        Option("max_exact_rows", int, 10_000, "largest number of rows fitted with the exact Gram matrix "
               "(8 n^2 bytes: 0.8 GB at 10,000)", min=1, max=100_000),
        Option("n_landmarks", int, 1000, "landmark rows of the Nystroem approximation", min=1, max=10_000),
        Option("selection_rows", int, 1000, "the formula is selected on at most this many rows (drawn at "
               "random beyond)", min=2, max=10_000),
    ),
)


class PropositionalPlugin(Plugin):
    """The built-in ``propositional`` plugin: the literal, NOT, the 16 binary operators and the method."""

    kernel_operators = BUILTIN_OPERATORS
    methods = (PROPOSITIONAL_METHOD,)
