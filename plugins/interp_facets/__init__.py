"""Facets: integer-weight linear models (Belahcene et al., ACML 2020).

Penalties that favour coefficients on a grid ``gamma * Z`` (Facets, Strongly Convex Facets),
their closed-form proximal operators, a proximal-gradient solver, scikit-learn estimators, a
grid-search CV, score cards and the honest rounded baseline.
"""

from interp.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    ".cv": ["FacetsClassifierCV", "FacetsRegressorCV", "IntegrityWarning"],
    ".estimators": ["FacetsClassifier", "FacetsRegressor", "integrity"],
    ".penalties": ["facets_value", "prox_facets", "prox_scaled", "prox_scf", "scf_value"],
    ".plots": ["plot_heatmaps", "plot_path"],
    ".scorecard": ["ScoreCard", "round_to_grid", "rounded_baseline", "score_card"],
    ".solver": ["solve"],
})
