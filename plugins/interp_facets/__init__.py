"""Facets: integer-weight linear models (Belahcene et al., ACML 2020).

Penalties that favour coefficients on a grid ``gamma * Z`` (Facets, Strongly Convex Facets),
their closed-form proximal operators, a proximal-gradient solver, scikit-learn estimators, a
grid-search CV, score cards and the honest rounded baseline.

The rooms: ``plugin`` (the hooks and the ``facets`` method's declaration), ``method`` (what
``interp run --method facets`` runs), ``render`` and ``plots`` (what a person reads and sees),
``export`` (a fitted card as tables, standalone Python and SQL);
the estimators (``estimators``, ``cv``) over the optimiser, laid out as skglm's: ``datafits``
(one class per loss), ``penalties`` (one ``interp.Penalty`` subclass per penalty), ``problem``
(the objective and the problem a solver loop works on), ``first_order`` and ``newton`` (the
loops), ``solver`` (``solve``), ``path`` (warm-started paths), ``snap`` and ``refit`` (the two
post-processing steps), ``validation`` (input checks) and ``blas`` (thread limits).
"""

from interp.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    ".cv": ["FacetsClassifierCV", "FacetsRegressorCV", "IntegrityWarning"],
    ".estimators": ["FacetsClassifier", "FacetsRegressor", "integrity"],
    ".export": ["predict_score", "card_display", "card_frame", "risk_frame", "to_python", "to_sql"],
    ".features": ["CardBinarizer", "CardFeatures", "card_features"],
    ".path": ["fit_path"],
    ".penalties": ["facets_value", "prox_facets", "prox_scaled", "prox_scf", "scf_value"],
    ".plots": ["plot_cv", "plot_heatmaps", "plot_path", "plot_risk"],
    ".problem": ["Objective"],
    ".risk": ["RiskTable"],
    ".scorecard": ["ScoreCard", "rounded_baseline", "score_card"],
    ".solver": ["SolverOptions", "WarmStart", "solve"],
    ".space": ["DataDirections"],
    ".first_order": ["ISTA", "FISTA"],
    ".newton": ["ProxNewton"],
    ".validation": ["resolve_penalty"],
})
