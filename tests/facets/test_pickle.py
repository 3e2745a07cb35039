"""Fitted Facets models keep the penalty they resolved at fit: pickled, they predict, print their
score card and plot the same in a process where the facets plugin (and the third-party plugin
that gave one of the penalties) is disabled."""

from __future__ import annotations

import numpy as np
import pytest

import interp
from interp import hookimpl
from interp.testing import check_stands_alone, registered
from interp_facets import FacetsClassifier, FacetsClassifierCV, FacetsRegressor


class HalfL1(interp.Penalty):
    """0.5 |w|: a third-party penalty defined by methods (pickled by reference to this module)."""

    name = "test_half_l1"

    def value(self, w):
        return 0.5 * float(np.abs(w).sum())

    def prox(self, w, step):
        return np.sign(w) * np.maximum(np.abs(w) - 0.5 * step, 0.0)


class _ThirdPartyPenalty:
    @hookimpl
    def register_penalties(self, register):
        register(HalfL1())


def _describe(models, X):
    """What a person sees of the fitted models: predictions, score cards, the penalty value and
    the plotted data."""
    import numpy as np

    from interp_facets import plot_cv, plot_path, score_card

    out = {}
    for name, model in models.items():
        fitted = getattr(model, "best_estimator_", model)
        out[name] = {
            "predict": model.predict(X).tolist(),
            "card": score_card(model, X=X).text() if hasattr(model, "classes_") else None,
            "penalty": [fitted.penalty_.name,
                        float(fitted.penalty_.value(fitted.coef_grid_, **fitted.penalty_params_))],
        }
    cv = models["cv"]
    figures = {**plot_cv(cv, [f"f{j}" for j in range(X.shape[1])]),
               "fixed": plot_path(cv.betas_, cv.coefs_path_[0], cv.gammas_[0])}
    out["plots"] = {}
    for name, fig in figures.items():
        lines = [line.get_ydata() for ax in fig.axes for line in ax.get_lines()]
        images = [im.get_array() for ax in fig.axes for im in ax.get_images()]
        lines, images = ([np.asarray(a, dtype=float).tolist() for a in group] for group in (lines, images))
        out["plots"][name] = lines + images + [ax.get_title() for ax in fig.axes]
    return out


@pytest.mark.filterwarnings("ignore:no grid point gave")  # a small grid: the most integral point
def test_pickled_models_work_without_the_plugin():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(200, 4)).astype(float)
    y = (X @ np.array([2, 1, 1, -1]) + rng.normal(scale=0.4, size=200) >= 2).astype(int)
    with registered(_ThirdPartyPenalty(), "test-pickle-penalty"):
        third_party = FacetsClassifier(lam=0.01, gamma=0.5, penalty="test_half_l1").fit(X, y)
    models = {
        "classifier": FacetsClassifier(lam=0.01, gamma=0.5).fit(X, y),
        "third_party": third_party,
        "regressor": FacetsRegressor(lam=0.01, gamma=0.5, penalty="elasticnet").fit(X, X @ [2, 1, 0, -1]),
        "cv": FacetsClassifierCV(gammas=2, betas=6, cv=2).fit(X, y),
    }
    assert models["third_party"].penalty_ == HalfL1().labelled("test-pickle-penalty")
    check_stands_alone(_describe, models, X, disabled=["facets", "test-pickle-penalty"])
