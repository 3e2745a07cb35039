"""The `facets` method: registration, `interp run`, JSON, figures and one-line input errors."""

import json

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

import interp
import interp_facets
from interp.runner import RunContext, run_method


def card_csv(tmp_path, n=300, seed=0, **extra):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, 4))
    y = ((X @ np.array([2, 1, 1, -1]) + rng.normal(scale=0.3, size=n)) >= 2).astype(int)
    frame = pd.DataFrame(X, columns=["fever", "cough", "rash", "vaccinated"])
    frame["sick"] = y
    for name, values in extra.items():
        frame[name] = values
    path = tmp_path / "card.csv"
    frame.to_csv(path, index=False)
    return path


def run_json(run, path, *args) -> dict:
    """``interp run --plugin facets`` on ``path`` (target ``sick``) with ``args``: its JSON."""
    result = run("run", "--plugin", "facets", "--data", path, "--target", "sick", *args, "--format", "json",
                 "--quiet")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_method_is_registered():
    method = interp.get_registry().methods["facets"]
    assert method.plugin == "facets" and method.task == "any"  # a binary or a numeric target
    assert {o.name for o in method.options} >= {"lam", "gamma", "cv", "penalty", "eps", "solver"}


def test_run_with_fixed_lam_gamma_prints_the_card(run, tmp_path):
    result = run("run", "--plugin", "facets", "--data", card_csv(tmp_path), "--target", "sick",
                 "--lam", 0.01, "--gamma", 0.2, "--quiet")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "feature" in out and "points" in out and "predict 1 if total" in out
    assert "baseline" in out and "integrity" in out


def test_run_with_cv_gives_json_with_the_card_and_the_baseline(run, tmp_path):
    data = run_json(run, card_csv(tmp_path), "--cv", 3, "--n-gammas", 5, "--n-betas", 12)
    card = data["explanation"]["score_card"]
    assert {r["feature"] for r in card["rows"]} <= {"fever", "cough", "rash", "vaccinated"}
    assert all(isinstance(r["points"], int) for r in card["rows"])
    assert card["integer_threshold"] is not None and "total >=" in card["rule"]
    assert "baseline" in data["explanation"] and "train_accuracy" in data["explanation"]["baseline"]
    m = data["metrics"]
    for key in ("cv_accuracy", "integrity", "snapped_coefficients", "baseline_train_accuracy",
                "baseline_cv_accuracy"):
        assert key in m
    assert data["explanation"]["cv"]["folds"] == 3


GRID_CV = {"cv": 2, "n_gammas": 3, "n_betas": 6, "max_rows": 0}


def test_run_method_returns_figures_and_the_estimator(tmp_path):
    data = interp.load_dataset(card_csv(tmp_path), "sick")
    exp = run_method("facets", data, GRID_CV, RunContext(seed=0, quiet=True))
    assert set(exp.figures) == {"path", "heatmaps", "risk"}
    assert all(isinstance(f, Figure) for f in exp.figures.values())
    assert exp.estimator is not None and hasattr(exp.estimator[-1], "cv_results_")
    assert list(exp.estimator.feature_names_in_) == list(data.raw.columns)
    assert interp.Explanation.from_dict(json.loads(exp.to_json())) == exp
    # the card in the payload predicts like the estimator (which takes the raw rows) when integral
    if exp.payload["fully_integral"]:
        X = data.X
        pts = {r["feature"]: r["points"] for r in exp.payload["score_card"]["rows"]}
        total = sum(pts.get(f, 0) * X[:, j] for j, f in enumerate(data.feature_names))
        card_pred = (total >= exp.payload["score_card"]["integer_threshold"]).astype(int)
        np.testing.assert_array_equal(card_pred, exp.estimator.predict(data.raw).astype(int))


@pytest.mark.parametrize(
    "args, message",
    [
        (("--lam", 0, "--gamma", 1), "lam must be > 0"),
        (("--lam", 0.1, "--gamma", -1), "gamma must be > 0"),
        (("--lam", 0.1), "give both --lam and --gamma"),
        (("--lam", 0.1, "--gamma", 1, "--eps", 1.5), "eps must be in (0, 1)"),
        (("--lam", 0.1, "--gamma", 1, "--penalty", "nope"), "unknown penalty 'nope'"),
        (("--lam", 0.1, "--gamma", 1, "--penalty", "l1", "--eps", 0.1), "--eps does not apply to --penalty l1"),
        (("--lam", 0.1, "--gamma", 1, "--penalty", "l2", "--penalty-param", "eps=0.1"),
         "penalty 'l2' has no parameter 'eps'"),
        (("--lam", 0.1, "--gamma", 1, "--penalty", "elasticnet", "--penalty-param", "l1_ratio=2"),
         "--penalty elasticnet: l1_ratio must be in [0, 1], got 2.0"),
        (("--lam", 0.1, "--gamma", 1, "--snap-tol", -1), "snap_tol must be a number in [0, 1)"),
        (("--n-gammas", 0), "--n-gammas must be >= 1, got 0"),
        (("--n-betas", -3), "--n-betas must be >= 1, got -3"),
        (("--lam", 0.1, "--gamma", 1, "--max-iter", 0), "--max-iter must be >= 1, got 0"),
        (("--lam", 0.1, "--gamma", 1, "--n-thresholds", 0), "--n-thresholds must be >= 1, got 0"),
        (("--cv", 1), "--cv needs at least 2 folds"),
        (("--max-rows", -1), "--max-rows must be >= 0, got -1"),
        (("--max-points", 0), "--max-points must be >= 1, got 0"),
        (("--card-ridge", -1), "--card-ridge must be >= 0, got -1"),
    ],
)
def test_bad_options_are_one_line_errors(run, tmp_path, args, message):
    result = run("run", "--plugin", "facets", "--data", card_csv(tmp_path), "--target", "sick", *args)
    assert result.exit_code == 2
    assert message in result.output
    assert len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize("args, penalty, params, named", [
    ((), "scf", {"eps": 0.01}, "the penalty scf (eps=0.01)"),
    (("--eps", 0.2), "scf", {"eps": 0.2}, "the penalty scf (eps=0.2)"),
    (("--penalty", "elasticnet", "--penalty-param", "l1_ratio=0.25"), "elasticnet", {"l1_ratio": 0.25},
     "the penalty elasticnet (l1_ratio=0.25)"),
    (("--penalty", "l1"), "l1", {}, "the penalty l1 at lambda = 0.01, gamma = 0.2"),
])
def test_the_penalty_and_its_parameters_reach_the_model_and_the_text(run, tmp_path, args, penalty, params, named):
    data = run_json(run, card_csv(tmp_path), "--lam", 0.01, "--gamma", 0.2, *args)
    assert data["params"]["penalty"] == data["explanation"]["penalty"] == penalty
    assert data["params"]["penalty_params"] == data["explanation"]["penalty_params"] == params
    assert "eps" not in data["params"] and data["params"]["lam"] == 0.01
    assert f"fitted with {named}" in data["text"]


def test_card_ridge_reaches_the_card_search_and_the_saved_model(tmp_path):
    data = interp.load_dataset(card_csv(tmp_path, n=200, seed=3), "sick")
    exp = run_method("facets", data, {"max_rows": 3, "cv": 2, "card_ridge": 2.5}, RunContext(seed=0, quiet=True))
    model = exp.estimator[-1]
    assert exp.params["card_ridge"] == 2.5 and model.card_ridge == 2.5
    chosen = np.flatnonzero(model.search_results_["chosen"])[0]
    assert model.search_results_["objective"][chosen] > model.search_results_["loss"][chosen]


def test_the_result_is_typed_sections_a_card_tables_and_figures(tmp_path):
    data = interp.load_dataset(card_csv(tmp_path), "sick")
    exp = run_method("facets", data, GRID_CV, RunContext(seed=0, quiet=True))
    card, *rest = exp.sections
    assert isinstance(card, interp.Text) and card.body == interp_facets.score_card(
        exp.estimator[-1].best_estimator_, data.feature_names, data.X, y=data.y).text()
    assert "risk of 1 by total" in card.body
    tables = [s for s in rest if isinstance(s, interp.Table)]
    comparison, points = tables
    assert comparison.columns == ("model", "train accuracy", "CV accuracy")
    assert comparison.rows[0] == ("facets", exp.metrics["train_accuracy"], exp.metrics["cv_accuracy"])
    m = exp.metrics
    assert comparison.rows[1] == ("rounded baseline", m["baseline_train_accuracy"], m["baseline_cv_accuracy"])
    baseline_rows = exp.payload["baseline"]["score_card"]["rows"]
    assert points.columns == ("feature", "points") and len(points.rows) == min(len(baseline_rows), 12)
    assert [r[0] for r in points.rows] == [r["feature"] for r in baseline_rows[:12]]
    assert [s.name for s in rest if isinstance(s, interp.Figure)] == ["risk", "path", "heatmaps"]
    assert "predict 1 if total" in exp.text and "baseline" in exp.text
    fixed = run_method("facets", data, {"lam": 0.01, "gamma": 0.2}, RunContext(seed=0, quiet=True))
    assert [s.name for s in fixed.sections if isinstance(s, interp.Figure)] == ["risk", "path"]
    comparison = [s for s in fixed.sections if isinstance(s, interp.Table)][0]
    assert comparison.columns == ("model", "train accuracy")


def test_non_binary_target_and_constant_feature_are_one_line_errors_and_nan_a_level(run, tmp_path):
    path = card_csv(tmp_path, n=30, const=np.ones(30), three=np.arange(30) % 3)
    bad = run("run", "--plugin", "facets", "--data", path, "--target", "three", "--lam", 0.1, "--gamma", 1)
    assert bad.exit_code == 2 and "binary target" in bad.output and "3 classes" in bad.output
    assert len(bad.output.strip().splitlines()) == 1
    const = run("run", "--plugin", "facets", "--data", path, "--target", "sick", "--lam", 0.1, "--gamma", 1)
    assert const.exit_code == 2 and "constant feature 'const'" in const.output
    frame = pd.read_csv(path).drop(columns=["const", "three"])
    frame.loc[3, "cough"] = np.nan
    frame.to_csv(tmp_path / "nan.csv", index=False)
    nan = run("run", "--plugin", "facets", "--data", tmp_path / "nan.csv", "--target", "sick",
              "--lam", 0.1, "--gamma", 1, "--format", "json")
    assert nan.exit_code == 0  # a missing value is a row of its own, "cough is missing"
    assert "cough is missing" in json.loads(nan.output)["explanation"]["feature_names"]


def test_numeric_features_are_thresholded_into_readable_card_rows(tmp_path):
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"age": rng.uniform(20, 80, 400), "income": rng.lognormal(10, 1, 400)})
    frame["risk"] = (frame["age"] > 50).astype(int)
    path = tmp_path / "numeric.csv"
    frame.to_csv(path, index=False)
    data = interp.load_dataset(path, "risk")
    exp = run_method("facets", data, {"lam": 0.01, "gamma": 1.0}, RunContext(seed=0, quiet=True))
    names = exp.payload["feature_names"]
    assert all(">" in n for n in names) and len(names) == 6  # 3 quantile thresholds per column
    rows = {r["feature"]: r["points"] for r in exp.payload["score_card"]["rows"]}
    assert rows and max(rows, key=lambda f: abs(rows[f])).startswith("age >= ")
    raw = run_method("facets", data, {"lam": 0.01, "gamma": 1.0, "binarize": "never"},
                     RunContext(seed=0, quiet=True))
    assert raw.payload["feature_names"] == ["age", "income"]
    # binarised, the saved model takes the columns as given; never, the classifier alone does
    assert list(exp.estimator.feature_names_in_) == ["age", "income"]
    assert isinstance(raw.estimator, interp_facets.FacetsClassifier)


def test_default_run_prints_a_bounded_card_with_its_risk_table(run, tmp_path):
    data = run_json(run, card_csv(tmp_path), "--max-rows", 2, "--max-points", 1, "--cv", 2)
    card = data["explanation"]["score_card"]
    points = [r["points"] for r in card["rows"]]
    assert 0 < len(points) <= 2 and all(abs(p) == 1 for p in points)
    low, high = sum(p for p in points if p < 0), sum(p for p in points if p > 0)
    assert [r["total"] for r in card["risk"]["rows"]] == list(range(low, high + 1))
    assert data["params"]["max_rows"] == 2 and data["params"]["max_points"] == 1
    assert "cv_accuracy" in data["metrics"] and "search" in data["explanation"]["cv"]
    assert "risk of 1 by total:" in data["text"] and "total 0: " in data["text"]


def test_the_card_never_holds_a_feature_and_its_complement(tmp_path):
    rng = np.random.default_rng(3)
    n = 300
    male = rng.integers(0, 2, n)
    frame = pd.DataFrame({"Male": male, "Female": 1 - male, "age": rng.uniform(20, 80, n).round(),
                          "smoker": rng.choice(["yes", "no"], n)})
    frame["sick"] = ((2 * male + (frame["age"] > 50) + (frame["smoker"] == "yes")
                      + rng.normal(scale=0.5, size=n)) >= 2).astype(int)
    frame.to_csv(tmp_path / "people.csv", index=False)
    data = interp.load_dataset(tmp_path / "people.csv", "sick")
    exp = run_method("facets", data, {"cv": 2}, RunContext(seed=0, quiet=True))
    names = exp.payload["feature_names"]
    assert "Female" not in names and "Male" in names
    assert [n for n in names if n.startswith("smoker")] == ["smoker = yes"] or \
        [n for n in names if n.startswith("smoker")] == ["smoker = no"]
    rows = {r["feature"] for r in exp.payload["score_card"]["rows"]}
    assert "Male" in rows and any(r.startswith("age >= ") for r in rows)


def test_the_html_report_shows_the_card_its_risk_table_and_curve(tmp_path):
    from interp.report import render_html

    data = interp.load_dataset(card_csv(tmp_path), "sick")
    exp = run_method("facets", data, {"cv": 2}, RunContext(seed=0, quiet=True))
    html = render_html([exp], "facets")
    assert "risk of 1 by total:" in html and "predict 1 if total &gt;=" in html
    assert html.count("<img") == len(exp.figures) and 'alt="risk by total' in html
