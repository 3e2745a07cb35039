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
    from interp_facets.scorecard import no_card_reason

    out = {}
    for name, model in models.items():
        fitted = getattr(model, "best_estimator_", model)
        card = None
        if hasattr(model, "classes_"):  # the card, or why there is none
            card = no_card_reason(model) or score_card(model, X=X).text()
        out[name] = {
            "predict": model.predict(X).tolist(),
            "card": card,
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


def _apply_saved(run_dir, raw):
    """What a user gets from a saved run: its estimator loaded from the folder, applied to raw
    rows (the CSV's own columns, text included)."""
    from interp.runs import load_estimator

    model = load_estimator(run_dir)
    return {"predict": model.predict(raw).tolist(), "proba": model.predict_proba(raw)[:, 1].round(12).tolist()}


def test_the_saved_run_applies_to_raw_rows_without_the_plugin(tmp_path):
    import pandas as pd

    from interp.data import from_frame
    from interp.runner import RunContext, run_method
    from interp.runs import load_estimator, save_run
    from interp_facets import score_card

    def people(rng, n):
        return pd.DataFrame({"age": rng.uniform(20, 80, n).round(1), "smoker": rng.choice(["yes", "no"], n),
                             "city": rng.choice(["Ayr", "Bude", "Cork"], n), "visits": rng.integers(0, 4, n)})

    rng = np.random.default_rng(5)
    frame = people(rng, 240)
    frame["sick"] = ((frame["age"] > 50).astype(int) + 2 * (frame["smoker"] == "yes") + (frame["city"] == "Cork")
                     + rng.normal(scale=0.6, size=240) >= 2).astype(int)
    exp = run_method("facets", from_frame(frame, "sick"), {"cv": 2, "max_rows": 4},
                     RunContext(seed=0, quiet=True))
    save_run(exp, tmp_path / "run")  # what ``interp run --out`` writes
    new_rows = people(rng, 60)
    design = exp.estimator[0].transform(new_rows)  # the card's own 0/1 rows
    card = score_card(exp.estimator[-1].best_estimator_, exp.payload["feature_names"], design)
    assert card.integral and 0 < len(card.rows()) <= 4
    loaded = load_estimator(tmp_path / "run")
    np.testing.assert_array_equal(loaded.predict(new_rows), card.predict(design))
    np.testing.assert_array_equal(loaded.predict_proba(new_rows), exp.estimator.predict_proba(new_rows))
    assert set(card.predict(design)) == {0, 1}  # the rows are not all one class: the check could fail
    check_stands_alone(_apply_saved, str(tmp_path / "run"), new_rows, disabled=["facets"])
