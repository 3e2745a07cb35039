"""Propositional and Boolean kernels with readable logic explanations (interp plugin)."""

from interp.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    ".formula": ["FormulaError", "Leaf", "Op", "dimension", "evaluate", "leaves", "n_leaves", "parse",
                 "to_string"],
    ".kernels": ["BOOLEAN_KINDS", "BooleanKernel", "PropositionalKernel", "boolean_kernel", "check_binary",
                 "normalize_kernel", "propositional_kernel"],
    ".operators": ["BUILTIN_OPERATORS"],
    "interp.binarize": ["TabularBinarizer"],  # re-exported: the binarizer lives in the core
    ".estimator": ["PropositionalSVC"],
    ".explain": ["Rule", "explain_svc", "feature_weights", "top_rules"],
    ".generator": ["random_formula"],
    ".selection": ["KernelSelection", "hull_distance", "radius", "radius_margin_ratio", "select_kernel"],
})
