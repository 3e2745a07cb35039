"""Propositional and Boolean kernels with readable logic explanations (interp plugin)."""

from interp.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    ".formula": ["FormulaError", "Leaf", "Op", "dimension", "evaluate", "fold", "leaves", "n_leaves",
                 "operators_of", "parse", "to_string"],
    ".kernels": ["BOOLEAN_KINDS", "BooleanKernel", "PropositionalKernel", "boolean_kernel", "check_binary",
                 "normalize_kernel", "propositional_kernel", "propositional_kernel_diagonal"],
    ".operators": ["BUILTIN_OPERATORS", "GENERATOR_OPERATORS", "generator_operators"],
    "interp.binarize": ["TabularBinarizer"],  # re-exported: the binarizer lives in the core
    ".estimator": ["Approximation", "PropositionalSVC"],
    ".explain": ["Rule", "TopRules", "explain_expansion", "explain_svc", "feature_weights", "top_features",
                 "top_rules"],
    ".rulelist": ["ListedRule", "RuleList", "RuleStats"],
    ".shortlist": ["RuleSelection"],
    ".contributions": ["RuleContributions"],
    ".nystroem": ["PropositionalNystroem", "draw_landmarks"],
    ".generator": ["random_formula"],
    ".selection": ["KernelSelection", "hull_distance", "radius", "radius_margin_ratio", "select_kernel"],
})
