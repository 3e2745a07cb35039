"""``interp.explain`` and ``interp report --model``: every method on the user's own model, in the
user's raw columns, each with its fidelity on held-out rows."""

from __future__ import annotations

import re

import joblib
import numpy as np
import pandas as pd
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor, RandomForestClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

import interp
from interp.studied import StudiedModel

METHODS = ("facets", "featurevec", "propositional", "symbolic")
FAST = {"symbolic": {"max_terms": 1, "n_restarts": 1, "maxiter": 30}, "facets": {"cv": 2}, "propositional": {"cv": 2}}


def _shop(n=160, seed=0) -> pd.DataFrame:
    """A table with text columns: who bought, and how much they spend."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"age": rng.integers(20, 80, n), "income": rng.normal(50, 15, n).round(1),
                       "colour": rng.choice(["red", "green", "blue"], n), "city": rng.choice(["Paris", "Rome"], n)})
    logit = 0.08 * (df.age - 50) + 1.5 * (df.colour == "red") - 0.03 * (df.income - 50)
    df["bought"] = np.where(rng.uniform(size=n) < 1 / (1 + np.exp(-logit)), "yes", "no")
    df["spend"] = 2 * df.age + 30 * (df.colour == "red") + rng.normal(0, 5, n)
    return df


def _pipeline(estimator):
    pre = ColumnTransformer([("onehot", OneHotEncoder(handle_unknown="ignore"), ["colour", "city"])],
                            remainder="passthrough")
    return make_pipeline(pre, estimator)


@pytest.fixture(scope="module")
def shop():
    df = _shop()
    X = df.drop(columns=["bought", "spend"])
    return df, X


def test_the_studied_model_answers_in_the_users_columns(shop):
    """Rows of interp's encoding (one 0/1 column per level) are turned back into the user's text
    columns: the wrapper's answers equal the model's own on the raw rows."""
    df, X = shop
    model = _pipeline(HistGradientBoostingClassifier(max_iter=20, random_state=0)).fit(X, df.bought)
    data = interp.load_dataset(df.drop(columns="spend"), "bought")
    studied = StudiedModel(model, data)
    np.testing.assert_array_equal(studied.predict_proba(data.X)[:, 1], model.predict_proba(X)[:, 1])
    assert list(studied.classes_) == ["no", "yes"]
    np.testing.assert_array_equal(studied.predict(data.X), model.predict(X))
    assert not studied.same_columns


def test_more_than_two_classes_are_one_against_the_rest(shop):
    df, X = shop
    y = df.colour
    model = RandomForestClassifier(n_estimators=20, random_state=0).fit(X[["age", "income"]], y)
    data = interp.load_dataset(X[["age", "income"]].assign(colour=y), "colour")
    studied = StudiedModel(model, data, positive="red")
    assert list(studied.classes_) == ["not red", "red"]
    red = list(model.classes_).index("red")
    np.testing.assert_allclose(studied.predict_proba(data.X)[:, 1], model.predict_proba(X[["age", "income"]])[:, red])
    with pytest.raises(interp.InputError, match="positive class 'purple' is not one of the model's classes"):
        StudiedModel(model, data, positive="purple")


def test_explain_runs_every_method_on_the_model_with_its_fidelity(shop):
    df, X = shop
    model = _pipeline(HistGradientBoostingClassifier(max_iter=30, random_state=0)).fit(X, df.bought)
    result = interp.explain(model, X, df.bought, options=FAST, quiet=True)
    assert [r.method for r in result.results] == list(METHODS)
    assert all(r.explanation is not None for r in result.results), [r.error for r in result.results]
    assert result.model == "Pipeline(HistGradientBoostingClassifier)"
    assert result.held_out == 40 and result.task == "classification"
    by = {r.method: r for r in result.results}
    for name in ("facets", "symbolic"):
        fid = by[name].fidelity
        assert fid.rows == 40 and 0.5 <= fid.agreement <= 1 and 0.5 <= fid.auc <= 1
    assert "predicted classes" in by["facets"].fitted_to
    assert by["symbolic"].fitted_to == "Pipeline(HistGradientBoostingClassifier) itself (the method asks the model)"
    assert "random forest of 100 trees" in by["featurevec"].explanation.text  # its own trees cannot be read
    assert 0.5 <= by["featurevec"].fidelity.agreement <= 1
    text = result.summary()
    assert "fidelity on 40 held-out rows" in text and "Pipeline(HistGradientBoostingClassifier)" in text
    assert "onehot__" not in text and "remainder__" not in text
    assert result["facets"].method == "facets"


def test_a_surrogate_that_matches_the_model_has_fidelity_one(shop):
    """A check that could fail: the agreement is computed, not assumed.  The symbolic
    classifier's labels are compared with the model's; a constant model is refused."""
    df, X = shop
    model = _pipeline(HistGradientBoostingClassifier(max_iter=30, random_state=0)).fit(X, df.bought)
    result = interp.explain(model, X, df.bought, methods=["facets"], options=FAST, quiet=True)
    card = result["facets"].estimator
    held = result.held_rows
    agree = np.mean(card.predict(X.iloc[held].reset_index(drop=True)) == model.predict(X.iloc[held]))
    assert result.results[0].fidelity.agreement == pytest.approx(agree)


def test_a_regressor_gets_all_four_methods(shop):
    df, X = shop
    model = _pipeline(HistGradientBoostingRegressor(max_iter=30, random_state=0)).fit(X, df.spend)
    result = interp.explain(model, X, df.spend, options=FAST, quiet=True)
    by = {r.method: r for r in result.results}
    assert all(r.explanation is not None for r in result.results), [r.error for r in result.results]
    assert by["symbolic"].fidelity.r2 is not None and by["symbolic"].fidelity.r2 > 0.5
    assert re.search(r"prediction > \d", by["propositional"].fitted_to)
    assert "median" in by["propositional"].fitted_to
    assert "explained: its prediction (and the decision prediction > " in result.headline()
    assert result.model_score["R^2"] > 0.5


def test_a_regressor_gets_a_card_that_predicts_its_output(shop):
    """Facets explains a regressor with its own regressor's card: points, and the prediction
    at every total; its fidelity is the R^2 of the card's predictions against the model's on
    the held-out rows, computed here again."""
    df, X = shop
    model = _pipeline(HistGradientBoostingRegressor(max_iter=30, random_state=0)).fit(X, df.spend)
    result = interp.explain(model, X, df.spend, methods=["facets"], options=FAST, quiet=True)
    facets = result.results[0]
    assert facets.fitted_to == "Pipeline(HistGradientBoostingRegressor)'s prediction"
    card = facets.explanation.payload["score_card"]
    assert card["rule"].startswith("predicted spend = ") and card["predictions"]["rows"]
    held = X.iloc[result.held_rows].reset_index(drop=True)
    by_card, by_model = facets.explanation.estimator.predict(held), model.predict(held)
    r2 = 1 - np.mean((by_card - by_model) ** 2) / np.var(by_model)
    assert facets.fidelity.r2 == pytest.approx(r2)
    assert "predicted spend by total:" in facets.explanation.text
    assert "explained: its prediction);" in result.headline()  # no method was fitted to a decision
    on_data = interp.explain(model, X, df.spend, methods=["facets"], fit_to="data", options=FAST, quiet=True)
    assert on_data.results[0].fidelity.r2 is not None  # a card of the data's numbers, against the model's


def test_bad_input_is_one_line(shop):
    df, X = shop
    model = HistGradientBoostingClassifier(max_iter=10).fit(X[["age", "income"]], df.bought)
    with pytest.raises(interp.InputError, match="lacks column 'income'"):
        interp.explain(model, X[["age"]], df.bought)
    with pytest.raises(interp.InputError, match="has no predict method"):
        interp.explain(object(), X, df.bought)
    with pytest.raises(interp.InputError, match="unknown method 'nope'"):
        interp.explain(model, X, df.bought, methods=["nope"])
    with pytest.raises(interp.InputError, match="fit_to must be one of"):
        interp.explain(model, X, df.bought, fit_to="labels")


@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_report_on_a_saved_pipeline(kind, shop, tmp_path, run):
    """The command a user runs: four sections, each naming the model and its fidelity on
    held-out rows, in the raw column names; exit 0."""
    df, X = shop
    target = "bought" if kind == "classifier" else "spend"
    estimator = (HistGradientBoostingClassifier if kind == "classifier" else HistGradientBoostingRegressor)
    model = _pipeline(estimator(max_iter=30, random_state=0)).fit(X, df[target])
    joblib.dump(model, tmp_path / "model.joblib")
    df.to_csv(tmp_path / "shop.csv", index=False)
    out = tmp_path / "report"
    result = run("report", "--model", tmp_path / "model.joblib", "--trust-model-file", "--data", tmp_path / "shop.csv",
                 "--target", target, "--out", out, "--quiet", "--methods", ",".join(METHODS))
    assert result.exit_code == 0, result.output
    page = (out / "report.html").read_text()
    name = f"Pipeline(HistGradientBoosting{kind.capitalize()})"
    assert page.count(f"Fitted to {name}") == 4
    assert page.count("Fidelity on the held-out rows") == 4
    assert "columns the model does not read, left out: " + ("spend" if kind == "classifier" else "bought") in page
    assert "onehot__" not in page and "remainder__" not in page
    assert "colour" in page
    assert all((out / m / "explanation.json").is_file() for m in METHODS)


@pytest.mark.parametrize("library, cls", [("xgboost", "XGBClassifier"), ("lightgbm", "LGBMClassifier")])
def test_a_boosted_library_model_is_read_through_its_own_trees(library, cls):
    """XGBoost and LightGBM on the bundled breast-cancer data: Feature Vectors reads the
    model's own trees, the card is fitted to its classes and measured against them."""
    lib = pytest.importorskip(library, reason=f"{library} is in the test extra")
    data = interp.load_dataset("breast-cancer")
    X, y = data.frame(), data.y.astype(int)
    extra = {"verbose": -1} if library == "lightgbm" else {}
    model = getattr(lib, cls)(n_estimators=30, max_depth=3, random_state=0, **extra).fit(X, y)
    result = interp.explain(model, X, y, methods=["featurevec", "facets"], options=FAST, quiet=True)
    by = {r.method: r for r in result.results}
    assert by["featurevec"].fidelity.note == "exact: it reads the model's own trees"
    assert f"{cls}'s own trees" in by["featurevec"].explanation.text
    assert by["facets"].fidelity.agreement > 0.85
    assert result.model == cls and "explained: P(y=1)" in result.headline()


def test_report_model_needs_trust(shop, tmp_path, run):
    df, X = shop
    joblib.dump(HistGradientBoostingClassifier(max_iter=5).fit(X[["age"]], df.bought), tmp_path / "m.joblib")
    df.to_csv(tmp_path / "shop.csv", index=False)
    result = run("report", "--model", tmp_path / "m.joblib", "--data", tmp_path / "shop.csv", "--target", "bought")
    assert result.exit_code == 2 and "--trust-model-file" in result.output


def test_a_column_constant_on_the_fitting_rows_is_left_to_the_methods_that_ask_the_model(shop):
    """Facets refuses a constant column; interp.explain gives the methods that fit the data a
    table without it (the card's model still takes the rest by name), and the methods that ask
    the model every column the model takes."""
    df, X = shop
    X = X.assign(country=1)  # one value on every row
    model = _pipeline(HistGradientBoostingClassifier(max_iter=20, random_state=0)).fit(X, df.bought)
    result = interp.explain(model, X, df.bought, methods=["facets", "symbolic"], options=FAST, quiet=True)
    assert all(r.explanation is not None for r in result.results), [r.error for r in result.results]
    assert "country" not in result["facets"].estimator.feature_names_in_
    assert 0.5 <= result.results[0].fidelity.agreement <= 1
    assert result.for_rows([0]).by_method["facets"][0].check()
