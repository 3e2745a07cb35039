"""Propositional and Boolean kernels with readable logic explanations (interp plugin)."""

from .formula import FormulaError, Leaf, Op, dimension, evaluate, leaves, n_leaves, parse, to_string
from .kernels import (
    BOOLEAN_KINDS,
    BooleanKernel,
    PropositionalKernel,
    boolean_kernel,
    check_binary,
    normalize_kernel,
    propositional_kernel,
)
from .operators import BUILTIN_OPERATORS

__all__ = [
    "BOOLEAN_KINDS",
    "BUILTIN_OPERATORS",
    "BooleanKernel",
    "FormulaError",
    "Leaf",
    "Op",
    "PropositionalKernel",
    "boolean_kernel",
    "check_binary",
    "dimension",
    "evaluate",
    "leaves",
    "n_leaves",
    "normalize_kernel",
    "parse",
    "propositional_kernel",
    "to_string",
]

from interp.binarize import TabularBinarizer  # noqa: E402  (re-exported: the binarizer lives in the core)
from .estimator import PropositionalSVC  # noqa: E402
from .explain import Rule, explain_svc, feature_weights, top_rules  # noqa: E402
from .generator import random_formula  # noqa: E402
from .selection import (  # noqa: E402
    KernelSelection,
    hull_distance,
    radius,
    radius_margin_ratio,
    select_kernel,
)

__all__ += [
    "KernelSelection",
    "PropositionalSVC",
    "Rule",
    "TabularBinarizer",
    "explain_svc",
    "feature_weights",
    "hull_distance",
    "radius",
    "radius_margin_ratio",
    "random_formula",
    "select_kernel",
    "top_rules",
]
