"""Large data: above ``max_cv_rows`` rows the CV grid runs on a stratified subsample and only the
chosen card is fitted on every row."""

import json

import numpy as np
import pandas as pd
import pytest

from interp import InputError
from interp_facets import FacetsClassifierCV, FacetsRegressorCV
from interp_facets.validation import MAX_CV_ROWS

pytestmark = pytest.mark.filterwarnings("ignore:no grid point gave")  # small grids

SMALL_GRID = dict(gammas=3, betas=6, cv=3, n_jobs=1)


def card_data(n, seed=0, noise=0.4):
    """Binary features, the label from the card 2a + b + c - e >= 2 plus noise; one class rarer."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, 6)).astype(float)
    y = (X @ np.array([2, 1, 1, 0, -1, 0]) + rng.normal(scale=noise, size=n) >= 2).astype(int)
    return X, y


def test_the_grid_runs_on_a_stratified_subsample_and_the_card_on_every_row():
    X, y = card_data(600)
    model = FacetsClassifierCV(**SMALL_GRID, max_cv_rows=200, random_state=3).fit(X, y)
    assert model.subsampled_ and model.cv_rows_ == 200 and model.cv_sample_.size == 200
    rows = model.cv_sample_
    assert np.all(np.diff(rows) > 0) and rows.max() < 600
    assert abs(y[rows].mean() - y.mean()) <= 1 / 200  # stratified by class
    # the grid is exactly the grid on those rows ...
    on_rows = FacetsClassifierCV(**SMALL_GRID, max_cv_rows=None, random_state=3).fit(X[rows], y[rows])
    for key in ("mean_test_score", "integrity", "param_lam", "param_gamma"):
        np.testing.assert_array_equal(model.cv_results_[key], on_rows.cv_results_[key])
    assert (model.best_lam_, model.best_gamma_) == (on_rows.best_lam_, on_rows.best_gamma_)
    # ... and the delivered card is fitted on all 600 rows, warm-started from the grid's solution
    g, b = np.unravel_index(model.best_index_, (3, 6))
    refit = model.best_estimator_.__class__(**model.best_estimator_.get_params()).fit(
        X, y, coef_init=model.coefs_path_[g, b], intercept_init=model.intercepts_path_[g, b])
    np.testing.assert_array_equal(model.coef_, refit.coef_)
    np.testing.assert_array_equal(model.intercept_, refit.intercept_)


def test_the_subsample_is_reproducible_with_the_seed():
    X, y = card_data(600, seed=1)
    a, b, c = (FacetsClassifierCV(**SMALL_GRID, max_cv_rows=150, random_state=seed).fit(X, y)
               for seed in (7, 7, 8))
    np.testing.assert_array_equal(a.cv_sample_, b.cv_sample_)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.cv_results_["mean_test_score"], b.cv_results_["mean_test_score"])
    assert not np.array_equal(a.cv_sample_, c.cv_sample_)


@pytest.mark.parametrize("limit", [400, 10_000, None])
def test_at_or_below_the_threshold_every_row_is_used_as_before(limit):
    X, y = card_data(400, seed=2)
    model = FacetsClassifierCV(**SMALL_GRID, max_cv_rows=limit).fit(X, y)
    assert not model.subsampled_ and model.cv_sample_ is None and model.cv_rows_ == 400
    reference = FacetsClassifierCV(**SMALL_GRID, max_cv_rows=None).fit(X, y)
    np.testing.assert_array_equal(model.coef_, reference.coef_)
    np.testing.assert_array_equal(model.cv_results_["mean_test_score"],
                                  reference.cv_results_["mean_test_score"])
    assert FacetsClassifierCV().max_cv_rows == MAX_CV_ROWS


def test_the_regressor_subsamples_too():
    rng = np.random.default_rng(4)
    X = rng.integers(0, 2, size=(500, 4)).astype(float)
    y = X @ np.array([2.0, -1.0, 1.0, 0.0]) + rng.normal(scale=0.3, size=500)
    model = FacetsRegressorCV(**SMALL_GRID, max_cv_rows=120).fit(X, y)
    assert model.subsampled_ and model.cv_rows_ == 120
    assert model.score(X, y) > 0.8


@pytest.mark.parametrize("limit", [5, 2.5, True])
def test_a_threshold_below_two_rows_per_fold_is_a_one_line_input_error(limit):
    X, y = card_data(100)
    with pytest.raises(InputError, match="max_cv_rows must be None or an integer >= 6"):
        FacetsClassifierCV(**SMALL_GRID, max_cv_rows=limit).fit(X, y)


def test_a_class_of_one_row_cannot_be_sampled_by_class_and_says_so():
    X, y = card_data(600)
    y = np.zeros_like(y)
    y[17] = 1
    with pytest.raises(InputError, match="class 1 has a single row.*--max-cv-rows 0"):
        FacetsClassifierCV(**SMALL_GRID, max_cv_rows=200).fit(X, y)


def test_on_30000_rows_the_subsample_chooses_the_card_of_the_full_grid():
    """The shortcut must not cost accuracy: the full grid and a grid on 3,000 of 30,000 rows
    give cards whose held-out accuracies agree within 0.01 (here: the same card, 3a + b + c - e;
    a grid on 300 rows keeps only a and loses 0.05 of accuracy)."""
    X, y = card_data(40_000, seed=5, noise=0.7)
    X_test, y_test, X, y = X[30_000:], y[30_000:], X[:30_000], y[:30_000]
    grid = dict(gammas=5, betas=10, cv=3, n_jobs=1, random_state=0, max_points=None)
    full = FacetsClassifierCV(**grid, max_cv_rows=None).fit(X, y)
    sub = FacetsClassifierCV(**grid, max_cv_rows=3_000).fit(X, y)
    assert sub.subsampled_ and not full.subsampled_
    assert abs(sub.score(X_test, y_test) - full.score(X_test, y_test)) <= 0.01
    np.testing.assert_array_equal(sub.points_, full.points_)
    assert sub.integrity_ == 1.0


def test_the_command_line_says_when_the_grid_ran_on_a_subsample(run, tmp_path):
    X, y = card_data(300, seed=6)
    frame = pd.DataFrame(X.astype(int), columns=["fever", "cough", "rash", "vaccinated", "a", "b"])
    frame["sick"] = y
    frame.to_csv(tmp_path / "card.csv", index=False)
    args = ("run", "--plugin", "facets", "--data", tmp_path / "card.csv", "--target", "sick", "--cv", 3,
            "--n-gammas", 3, "--n-betas", 6, "--quiet")
    result = run(*args, "--max-cv-rows", 120, "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["params"]["max_cv_rows"] == 120 and data["metrics"]["cv_rows"] == 120
    assert data["explanation"]["cv"]["rows"] == 120 and data["explanation"]["cv"]["total_rows"] == 300
    assert "subsample of 120 of the 300 rows" in run(*args, "--max-cv-rows", 120).output
    whole = json.loads(run(*args, "--format", "json").stdout)
    assert "cv_rows" not in whole["metrics"] and "rows" not in whole["explanation"]["cv"]
    bad = run(*args, "--max-cv-rows", 4)
    assert bad.exit_code == 2 and "max_cv_rows must be None or an integer >= 6" in bad.output
