"""Facets: integer-weight linear models (Belahcene et al., ACML 2020).

Penalties that favour coefficients on a grid ``gamma * Z`` (Facets, Strongly Convex Facets),
their closed-form proximal operators, a proximal-gradient solver, scikit-learn estimators, a
grid-search CV, score cards and the honest rounded baseline.
"""

from .cv import FacetsClassifierCV, FacetsRegressorCV, IntegrityWarning
from .estimators import FacetsClassifier, FacetsRegressor, integrity
from .penalties import (
    facets_value,
    prox_facets,
    prox_scaled,
    prox_scf,
    scf_value,
)
from .plots import plot_heatmaps, plot_path
from .scorecard import ScoreCard, round_to_grid, rounded_baseline, score_card
from .solver import solve

__all__ = [
    "FacetsClassifier",
    "FacetsClassifierCV",
    "FacetsRegressorCV",
    "IntegrityWarning",
    "ScoreCard",
    "plot_heatmaps",
    "plot_path",
    "round_to_grid",
    "rounded_baseline",
    "score_card",
    "FacetsRegressor",
    "facets_value",
    "integrity",
    "prox_facets",
    "prox_scaled",
    "prox_scf",
    "scf_value",
    "solve",
]
