"""``interp run --plugin featurevec --model rf|hgb|xgboost|lightgbm`` and ``--model-file``."""

import json
import sys

import joblib
import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from sklearn.ensemble import RandomForestClassifier

import interp
from interp.cli import cli
from interp.runner import RunContext, run_method
from interp_featurevec.method import BOOSTED, BOOSTED_DEPTH, BOOSTED_ROUNDS, boosted_model, train


def _library(kind):
    if kind != "hgb":
        pytest.importorskip(BOOSTED[kind][0])
    return kind


@pytest.fixture(scope="module")
def small():
    """200 rows, 5 features, a binary target driven by x0 and x1 x2."""
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.normal(size=(200, 5)), columns=list("abcde"))
    df["y"] = ((df["a"] + df["b"] * df["c"]) > 0).astype(int)
    return interp.load_dataset(df, "y")


def test_model_choices_are_rf_and_the_boosted_libraries():
    option = next(o for o in interp.get_registry().methods["featurevec"].options if o.name == "model")
    assert option.choices == ("rf", *BOOSTED) and option.default is None


def test_unknown_model_is_a_one_line_error(small):
    with pytest.raises(interp.InputError, match="--model must be one of rf, hgb, xgboost, lightgbm") as info:
        run_method("featurevec", small, {"model": "catboost"}, RunContext(seed=0))
    assert "\n" not in str(info.value)


def test_rf_is_the_default_forest(small):
    default = run_method("featurevec", small, {"paths": 2000}, RunContext(seed=0))
    rf = run_method("featurevec", small, {"paths": 2000, "model": "rf"}, RunContext(seed=0))
    assert rf.payload == default.payload and rf.text == default.text
    assert rf.params["model"] == default.params["model"] == "rf" and rf.params["depth"] == 3
    assert rf.estimator.estimator is None and rf.estimator.max_depth_ == 3
    deeper = run_method("featurevec", small, {"paths": 2000, "model": "rf", "depth": "5"}, RunContext(seed=0))
    assert deeper.estimator.max_depth_ == 5


def test_cli_trains_the_model_from_a_csv(small, tmp_path):
    small.frame().assign(y=small.y).to_csv(tmp_path / "f.csv", index=False)
    result = CliRunner().invoke(cli, ["run", "--plugin", "featurevec", "--data", str(tmp_path / "f.csv"),
                                      "--target", "y", "--model", "rf", "--paths", "1000", "--quiet",
                                      "--format", "json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["params"]["model"] == "rf" and len(out["explanation"]["features"]) == 5
    bad = CliRunner().invoke(cli, ["run", "--plugin", "featurevec", "--data", str(tmp_path / "f.csv"),
                                   "--target", "y", "--model", "gbm", "--quiet"])
    assert bad.exit_code == 2 and "'gbm' is not one of 'rf', 'hgb', 'xgboost', 'lightgbm'" in bad.output


def test_model_file_explains_the_users_forest(small, tmp_path):
    forest = RandomForestClassifier(n_estimators=15, max_depth=4, random_state=0).fit(small.X, small.y)
    res = run_method("featurevec", small, {}, RunContext(seed=0, model=forest))
    assert res.estimator.n_trees_ == 15 and res.params["model"] == "file"
    assert "Feature Vectors of RandomForestClassifier's own trees:" in res.text
    joblib.dump(forest, tmp_path / "rf.joblib")
    small.frame().assign(y=small.y).to_csv(tmp_path / "f.csv", index=False)
    result = CliRunner().invoke(cli, ["run", "--plugin", "featurevec", "--data", str(tmp_path / "f.csv"),
                                      "--target", "y", "--model-file", str(tmp_path / "rf.joblib"),
                                      "--trust-model-file", "--quiet"])
    assert result.exit_code == 0, result.output
    assert "from 15 trees" in result.output


def test_model_file_without_trees_is_a_one_line_error(small):
    from sklearn.linear_model import LogisticRegression

    linear = LogisticRegression().fit(small.X, small.y)
    with pytest.raises(interp.InputError, match="^--model-file: cannot read the trees of a sklearn.LogisticRegression") as info:
        run_method("featurevec", small, {}, RunContext(seed=0, model=linear))
    assert "\n" not in str(info.value)


def test_model_and_model_file_together_are_an_error(small):
    forest = RandomForestClassifier(n_estimators=3, max_depth=3, random_state=0).fit(small.X, small.y)
    with pytest.raises(interp.InputError, match="--model trains a model and --model-file gives one"):
        run_method("featurevec", small, {"model": "hgb"}, RunContext(seed=0, model=forest))


@pytest.mark.parametrize("depth", ["cv", "1", "13"])
def test_boosted_depth_must_be_an_integer_in_range(small, depth):
    with pytest.raises(interp.InputError, match="--depth must be an integer in 2..12 for --model hgb"):
        run_method("featurevec", small, {"model": "hgb", "depth": depth}, RunContext(seed=0))


@pytest.mark.parametrize("kind", ["xgboost", "lightgbm"])
def test_missing_library_says_how_to_install_it(small, kind, monkeypatch):
    monkeypatch.setitem(sys.modules, kind, None)  # import fails as when not installed
    with pytest.raises(interp.InputError) as info:
        run_method("featurevec", small, {"model": kind}, RunContext(seed=0))
    assert str(info.value) == f'--model {kind} needs the {kind} package: pip install "interp[{kind}]"'


@pytest.mark.parametrize("kind", list(BOOSTED))
def test_boosted_model_settings(kind):
    _library(kind)
    model = boosted_model(kind, True, 4, 7, 1)
    params = model.get_params()
    rounds = params["max_iter"] if kind == "hgb" else params["n_estimators"]
    assert rounds == BOOSTED_ROUNDS and params["max_depth"] == 4 and params["random_state"] == 7
    assert type(model).__name__ == BOOSTED[kind][1]
    assert type(boosted_model(kind, False, 4, 7, 1)).__name__ == BOOSTED[kind][2]
    if kind != "hgb":
        assert params["n_jobs"] == 1


@pytest.mark.parametrize("kind", list(BOOSTED))
def test_train_codes_text_labels_and_is_reproducible(kind):
    _library(kind)
    rng = np.random.default_rng(1)
    df = pd.DataFrame(rng.normal(size=(150, 3)), columns=["u", "v", "w"])
    df["y"] = np.where(df["u"] > 0.3, "high", np.where(df["u"] < -0.3, "low", "mid"))
    data = interp.load_dataset(df, "y")
    ctx = RunContext(seed=3, n_jobs=1)
    a, b = train(kind, data, 3, ctx), train(kind, data, 3, ctx)
    np.testing.assert_array_equal(a.predict(data.X), b.predict(data.X))
    assert set(np.unique(a.predict(data.X))) <= {0, 1, 2}  # the labels coded 0..K-1


@pytest.mark.parametrize("kind", list(BOOSTED))
def test_boosted_model_is_trained_and_explained(small, kind):
    _library(kind)
    res = run_method("featurevec", small, {"model": kind}, RunContext(seed=0, n_jobs=1))
    assert res.params["model"] == kind and res.params["depth"] == BOOSTED_DEPTH
    assert res.estimator.n_trees_ == BOOSTED_ROUNDS  # binary: one tree per round
    assert f"{BOOSTED_ROUNDS} rounds of depth <= {BOOSTED_DEPTH}, trained here" in res.text
    assert res.estimator.path_lengths_.max() <= BOOSTED_DEPTH
    top = [f["feature"] for f in res.payload["features"][:3]]
    assert set(top) == {"a", "b", "c"}  # the features y depends on
    again = run_method("featurevec", small, {"model": kind}, RunContext(seed=0, n_jobs=1))
    assert again.payload == res.payload


@pytest.mark.parametrize("kind", list(BOOSTED))
def test_multiclass_boosters_have_a_tree_per_class_per_round(kind):
    _library(kind)
    rng = np.random.default_rng(2)
    df = pd.DataFrame(rng.normal(size=(240, 4)), columns=["p", "q", "r", "s"])
    df["y"] = np.digitize(df["p"] + df["q"], [-0.5, 0.5])
    data = interp.load_dataset(df, "y")
    res = run_method("featurevec", data, {"model": kind, "depth": "3"}, RunContext(seed=0, n_jobs=1))
    assert res.estimator.n_trees_ == 3 * BOOSTED_ROUNDS
    assert res.estimator.path_lengths_.max() <= 3
