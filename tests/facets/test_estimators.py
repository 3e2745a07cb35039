"""Estimators: scikit-learn contract, integrity, CV selection, score cards, plots."""

import warnings

import joblib
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from sklearn.linear_model import LinearRegression
from sklearn.metrics import r2_score
from sklearn.utils.estimator_checks import parametrize_with_checks

import interp
import interp_facets
from interp_facets import (
    FacetsClassifier,
    FacetsClassifierCV,
    FacetsRegressor,
    FacetsRegressorCV,
    IntegrityWarning,
    integrity,
    plot_heatmaps,
    plot_path,
    rounded_baseline,
    score_card,
)


@parametrize_with_checks(
    [
        FacetsRegressor(lam=0.01, gamma=0.5),
        FacetsClassifier(lam=0.01, gamma=0.5),
        FacetsClassifierCV(gammas=[0.5], betas=[0.1, 0.01], cv=2),
        FacetsRegressorCV(gammas=[0.5], betas=[0.1, 0.01], cv=2),
        FacetsClassifier(lam=0.01, gamma=0.5, max_rows=2, max_points=3),
        FacetsRegressor(lam=0.01, gamma=0.5, max_rows=2, max_points=3),
        FacetsClassifierCV(gammas=[0.5, 1.0], betas=[0.1, 0.01], max_rows=2),
        FacetsRegressorCV(gammas=[0.5, 1.0], betas=[0.1, 0.01], max_rows=2),
    ]
)
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(estimator)


def integer_scored_data(n=400, seed=0):
    """Binary features, label from an integer score card plus a little noise."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, 6)).astype(float)
    total = X @ np.array([2, 1, 1, 0, -1, 0])
    y = (total + rng.normal(scale=0.4, size=n) >= 2).astype(int)
    return X, y


def test_integrity_counts_zeros_and_reports_nonzero_part():
    assert integrity(np.array([0.0, 1.0, 2.5, -3.0])) == (0.75, 2 / 3)
    assert integrity(np.zeros(3))[0] == 1.0 and np.isnan(integrity(np.zeros(3))[1])


def test_classifier_attributes_and_integrity_on_integer_data():
    X, y = integer_scored_data()
    m = FacetsClassifier(lam=0.02, gamma=1.0).fit(X, y)
    assert m.coef_.shape == (1, 6) and m.intercept_.shape == (1,)
    u = m.coef_[0] / m.gamma_
    assert m.integrity_ == pytest.approx(np.mean(np.abs(u - np.round(u)) <= 1e-9))
    np.testing.assert_allclose(m.coef_grid_ * m.gamma, m.coef_[0] / m.scale_, atol=1e-9)
    assert m.n_iter_ >= 1 and m.converged_
    np.testing.assert_array_equal(m.points_, np.round(m.coef_[0] / m.gamma_))
    assert m.score(X, y) > 0.8
    assert set(m.predict(X)) <= {0, 1}
    np.testing.assert_allclose(m.predict_proba(X).sum(axis=1), 1.0)


def test_regressor_with_orthonormal_design_is_the_prox_of_least_squares():
    """With centred X and X^T X / n = I the problem separates: w = prox_{lam Facets}(w_ols)."""
    rng = np.random.default_rng(0)
    n, lam = 200, 0.1
    Q, _ = np.linalg.qr(rng.normal(size=(n, 4)) - 0.0)
    X = Q - Q.mean(axis=0)
    Q, _ = np.linalg.qr(X)
    X = Q * np.sqrt(n)  # centred (QR of centred columns keeps them centred), X^T X / n = I
    # OLS coefficients in the middle of the plateaus at 3, -2, 0 and one on a slope
    ols = np.array([3 + lam * 3.5, -(2 + lam * 2.5), 0.05, 1.55])
    y = X @ ols + 0.5
    m = FacetsRegressor(lam=lam, gamma=1.0, penalty="facets", tol=1e-9, max_iter=20000,
                        refit_scale=False).fit(X, y)
    expected = interp_facets.prox_facets(ols, lam)
    np.testing.assert_allclose(m.coef_, expected, atol=1e-7)
    np.testing.assert_array_equal(m.coef_[:3], [3.0, -2.0, 0.0])
    assert m.integrity_ == 0.75 and m.integrity_nonzero_ == pytest.approx(2 / 3)
    assert m.intercept_ == pytest.approx(0.5, abs=1e-7)
    # the scale refit keeps the points and the integrity
    r = FacetsRegressor(lam=lam, gamma=1.0, penalty="facets", tol=1e-9, max_iter=20000).fit(X, y)
    np.testing.assert_array_equal(r.points_, m.points_)
    assert r.integrity_ == m.integrity_ and r.scale_ > 1


@pytest.mark.parametrize(
    "params, match",
    [
        ({"lam": 0.0}, "lam must be > 0"),
        ({"lam": -1.0}, "lam must be > 0"),
        ({"gamma": 0.0}, "gamma must be > 0"),
        ({"eps": 1.0}, "eps must be in"),
        ({"eps": 0.0}, "eps must be in"),
        ({"penalty": "nope"}, "unknown penalty 'nope'"),
        ({"solver": "sgd"}, "solver must be"),
        ({"penalty_params": {"l1_ratio": 0.5}}, "has no parameter 'l1_ratio'"),
        ({"snap_tol": -0.1}, "snap_tol must be"),
        ({"snap_tol": "a"}, "snap_tol must be"),
    ],
)
def test_bad_parameters_are_one_line_input_errors(params, match):
    X, y = integer_scored_data()
    with pytest.raises(interp.InputError, match=match) as err:
        FacetsClassifier(**params).fit(X, y)
    assert "\n" not in str(err.value)


def test_non_binary_target_is_an_input_error():
    X, _ = integer_scored_data()
    y = np.arange(len(X)) % 3
    with pytest.raises(interp.InputError, match="binary target; got 3 classes"):
        FacetsClassifier().fit(X, y)


def test_pandas_names_flow_into_the_score_card_and_the_card_predicts_like_the_model():
    X, y = integer_scored_data()
    frame = pd.DataFrame(X, columns=[f"sign_{c}" for c in "abcdef"])
    m = FacetsClassifier(lam=0.0083, gamma=0.2).fit(frame, y)
    card = score_card(m, X=frame)
    assert card.integral and card.integer_features
    names = [f for f, _ in card.rows()]
    assert set(names) <= set(frame.columns) and "sign_a" in names
    np.testing.assert_array_equal(card.predict(X), m.predict(frame))
    text, md = card.text(), card.markdown()
    assert "feature | points" in text.replace("  ", " ") or "| points" in text
    assert f"total >= {card.integer_threshold}" in text and "| feature | points |" in md
    d = card.to_dict()
    assert d["rows"][0]["feature"] == names[0] and isinstance(d["rows"][0]["points"], int)


def test_estimators_pickle_with_joblib(tmp_path):
    X, y = integer_scored_data()
    m = FacetsClassifier(lam=0.01, gamma=1.0).fit(X, y)
    joblib.dump(m, tmp_path / "m.joblib")
    again = joblib.load(tmp_path / "m.joblib")
    np.testing.assert_array_equal(again.predict(X), m.predict(X))


def test_coef_init_starts_the_solver_at_a_given_point():
    """A fit started at another fit's penalised minimiser (as the CV's refit starts at its path's)
    stops at once, at the same model; warm_start starts at the previous fit's."""
    X, y = integer_scored_data()
    cold = FacetsClassifier(lam=0.02, gamma=0.5, tol=1e-8).fit(X, y)
    warm = FacetsClassifier(lam=0.02, gamma=0.5, tol=1e-8).fit(
        X, y, coef_init=cold.coef_grid_ * 0.5, intercept_init=cold.intercept_raw_)
    assert warm.n_iter_ == 1 and cold.n_iter_ > 1
    np.testing.assert_array_equal(warm.points_, cold.points_)
    np.testing.assert_allclose(warm.coef_, cold.coef_, rtol=1e-9)
    again = FacetsClassifier(lam=0.02, gamma=0.5, tol=1e-8, warm_start=True).fit(X, y)
    assert again.fit(X, y).n_iter_ == 1
    with pytest.raises(interp.InputError, match="coef_init has 2 values for 6 features"):
        FacetsClassifier().fit(X, y, coef_init=[1.0, 2.0])


@pytest.mark.filterwarnings("ignore:no grid point gave")  # a two-point grid
def test_fitted_models_keep_the_penalty_they_resolved():
    X, y = integer_scored_data()
    m = FacetsClassifier(lam=0.02, gamma=0.5, penalty="elasticnet", penalty_params={"l1_ratio": 0.3})
    m.fit(X, y)
    assert m.penalty_ is interp.get_registry().penalties["elasticnet"]
    assert m.penalty_params_ == {"l1_ratio": 0.3}
    cv = FacetsClassifierCV(gammas=[0.5], betas=[0.1, 0.05], cv=2, penalty="facets").fit(X, y)
    assert cv.penalty_.name == "facets" and cv.best_estimator_.penalty_ is cv.penalty_


def test_cv_selects_a_fully_integral_model_and_reports_the_grid():
    X, y = integer_scored_data(seed=0)
    cv = FacetsClassifierCV(gammas=6, betas=20, cv=3, n_jobs=1).fit(X, y)
    r = cv.cv_results_
    assert len(r["mean_test_score"]) == 120
    for key in ("mean_integrity", "integrity", "max_abs", "l1", "nonzeros", "fully_integral",
                "split2_test_score", "param_gamma", "param_beta", "param_lam"):
        assert len(r[key]) == 120
    np.testing.assert_allclose(r["param_lam"], r["param_beta"] * r["param_gamma"] ** 2)
    assert cv.selected_integral_ and cv.integrity_ == 1.0
    best = cv.best_index_
    assert r["fully_integral"][best]
    integral = r["fully_integral"].astype(bool)
    assert r["mean_test_score"][best] == pytest.approx(r["mean_test_score"][integral].max())
    assert cv.score(X, y) > 0.8
    # the data were made from the card 2a + b + c - e >= 2: the selected card is that card
    np.testing.assert_array_equal(cv.points_, [2, 1, 1, 0, -1, 0])
    assert cv.heatmap("integrity").shape == (6, 20)
    # the delivered model is the full-data path's model at the chosen point
    g, b = np.unravel_index(best, (6, 20))
    np.testing.assert_array_equal(cv.points_, np.round(cv.coefs_path_[g, b] / cv.best_gamma_))
    np.testing.assert_allclose(cv.coef_[0], cv.gamma_ * cv.points_)


def test_cv_falls_back_to_the_most_integral_with_a_warning():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 5))
    y = (X @ np.array([0.37, -0.61, 0.29, 0.83, -0.45]) > 0).astype(int)
    with pytest.warns(IntegrityWarning, match="most integral"):
        cv = FacetsClassifierCV(gammas=[0.013], betas=[1e-4, 2e-4], cv=2, snap_tol=0,
                                max_points=None).fit(X, y)
    assert not cv.selected_integral_


def test_cv_runs_in_parallel_like_serial():
    X, y = integer_scored_data(seed=2)
    a = FacetsClassifierCV(gammas=2, betas=4, cv=2, n_jobs=1).fit(X, y)
    b = FacetsClassifierCV(gammas=2, betas=4, cv=2, n_jobs=2).fit(X, y)
    np.testing.assert_allclose(a.cv_results_["mean_test_score"], b.cv_results_["mean_test_score"])
    np.testing.assert_allclose(a.coef_, b.coef_)


def test_cv_reports_progress():
    seen = []
    X, y = integer_scored_data(seed=3)
    with interp.progress.on_progress(lambda desc, done, total: seen.append((desc, done, total))):
        FacetsClassifierCV(gammas=2, betas=3, cv=2).fit(X, y)
    assert seen[-1] == ("facets grid", 6, 6)


def test_regressor_cv_runs():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 3))
    y = X @ np.array([2.0, -1.0, 0.0]) + rng.normal(scale=0.1, size=150)
    m = FacetsRegressorCV(gammas=3, betas=6, cv=3).fit(X, y)
    assert m.score(X, y) > 0.5 and isinstance(m.intercept_, float)
    assert m.cv_results_["mean_test_score"].max() > 0.95


def test_rounded_baseline_is_on_the_grid():
    X, y = integer_scored_data()
    base = rounded_baseline(X, y, 0.5, refit_threshold=False)
    u = base.coef_[0] / 0.5
    np.testing.assert_array_equal(u, np.round(u))
    refit = rounded_baseline(X, y, 0.5)
    np.testing.assert_allclose(refit.coef_[0] / refit.gamma_, u)  # same points, new scale
    assert refit.score(X, y) >= base.score(X, y) - 0.02
    assert 0.5 < base.score(X, y) <= 1.0
    l1 = rounded_baseline(X, y, 0.5, kind="l1", C=0.1)
    assert l1.coef_.shape == (1, 6)


def test_the_rounded_regression_baseline_is_least_squares_on_its_totals():
    """A numeric target: least squares (or the Lasso) rounded to the grid, then the scale and
    intercept refitted by least squares on the totals: the same line numpy's polyfit draws."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 4))
    y = X @ np.array([3.1, -1.2, 0.4, 0.0]) + 5 + rng.normal(scale=0.3, size=200)
    base = rounded_baseline(X, y, 0.5, regression=True)
    points = np.round(LinearRegression().fit(X, y).coef_ / 0.5)
    np.testing.assert_array_equal(base.coef_ / base.gamma_, points)
    slope, intercept = np.polyfit(X @ points, y, 1)
    assert base.gamma_ == pytest.approx(slope, rel=1e-6) and base.intercept_ == pytest.approx(intercept, rel=1e-6)
    assert base.score(X, y) == pytest.approx(r2_score(y, base.predict(X)))
    lasso = rounded_baseline(X, y, 0.5, kind="l1", C=0.01, regression=True)
    assert np.count_nonzero(lasso.coef_) < np.count_nonzero(base.coef_)  # C = 0.01: a strong L1


def test_the_l1_baseline_is_reproducible():
    """liblinear visits the coordinates in a random order: seeded, two runs give one model."""
    X, y = integer_scored_data(seed=5)
    runs = [rounded_baseline(X, y, 0.3, kind="l1", C=0.05, random_state=7) for _ in range(2)]
    np.testing.assert_array_equal(runs[0].coef_, runs[1].coef_)
    assert runs[0].intercept_ == runs[1].intercept_


def test_plots_return_figures():
    X, y = integer_scored_data()
    cv = FacetsClassifierCV(gammas=3, betas=4, cv=2).fit(X, y)
    fig = plot_path(cv.betas_, cv.coefs_path_[0], cv.gammas_[0], [f"f{j}" for j in range(6)], cv.best_beta_)
    heat = plot_heatmaps(cv.gammas_, cv.betas_, cv.heatmap("mean_test_score"), cv.heatmap("integrity"),
                         (cv.best_gamma_, cv.best_beta_))
    assert isinstance(fig, Figure) and isinstance(heat, Figure)
    assert len(heat.axes) == 4  # two maps and their colour bars


def test_cv_snapping_only_adds_integral_points_and_strict_cv_keeps_the_strict_ones():
    X, y = integer_scored_data(seed=4)
    snapped = FacetsClassifierCV(gammas=5, betas=15, cv=3).fit(X, y).cv_results_
    strict = FacetsClassifierCV(gammas=5, betas=15, cv=3, snap_tol=0).fit(X, y).cv_results_
    s_int = strict["fully_integral"].astype(bool)
    # with snap_tol=0 the CV's integral points are exactly the strict ones it reports
    np.testing.assert_array_equal(s_int, strict["fully_integral_strict"])
    # snapping never removes an integral point and keeps the strict set as it is
    np.testing.assert_array_equal(snapped["fully_integral_strict"], s_int)
    assert np.all(snapped["fully_integral"].astype(bool) >= s_int)
    # strict-integral points were not moved, so they score the same
    np.testing.assert_allclose(snapped["mean_test_score"][s_int], strict["mean_test_score"][s_int])


def test_a_baseline_whose_threshold_falls_on_a_total_agrees_with_its_card(tmp_path):
    """Rows whose labels split evenly at one total put the refitted threshold exactly on it
    (probability 1/2): the baseline breaks the tie as its card does (no self-check failure)."""
    from click.testing import CliRunner

    from interp.cli import cli

    path = tmp_path / "p.csv"
    path.write_text("a,b,y\n" + "".join(f"{i},{i % 3},{i % 2}\n" for i in range(30)))
    result = CliRunner().invoke(cli, ["run", "--method", "facets", "--data", str(path), "--target", "y", "--quiet"])
    assert result.exit_code == 0, result.stderr
    X = np.array([[i, i % 3] for i in range(30)], dtype=float)
    X = np.column_stack([X[:, 0] >= 5, X[:, 0] >= 15, X[:, 0] >= 20]).astype(float)
    y = np.arange(30) % 2
    base = rounded_baseline(X, y, 0.1347450948400515)
    card = score_card(base, ["a >= 5", "a >= 15", "a >= 20"], X)  # raises if the card disagreed
    assert card.threshold == 3.0 and card.integer_threshold == 4
    np.testing.assert_array_equal(base.predict(X), card.predict(X))
