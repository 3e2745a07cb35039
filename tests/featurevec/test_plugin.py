"""The featurevec method and embedding through interp's registry and runner."""

import json

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from sklearn.ensemble import RandomForestRegressor

import interp
from interp.runner import RunContext, run_method
from interp_featurevec import FeatureVectors


def test_registered_components():
    reg = interp.get_registry()
    assert reg.methods["featurevec"].plugin == "featurevec"
    assert reg.embeddings["svd"].plugin == "featurevec"
    assert isinstance(reg.embeddings["svd"], interp.Embedding)
    flags = {o.flag for o in reg.methods["featurevec"].options}
    assert {"--paths", "--window", "--depth", "--plot", "--embedding"} <= flags


def test_embedding_hook_on_a_fitted_forest():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 4))
    y = X[:, 0] + X[:, 1] * X[:, 2]
    rf = RandomForestRegressor(n_estimators=30, max_depth=3, random_state=0).fit(X, y)
    fv = FeatureVectors(estimator=rf, embedding="svd").fit(X)
    Z = interp.get_registry().embeddings["svd"].features(fv.cooccurrence_).vectors
    assert Z.shape == (4, 2)
    assert np.argmax(np.linalg.norm(Z, axis=1)) in (0, 1, 2)
    np.testing.assert_array_equal(fv.embedding_, Z / np.linalg.norm(Z, axis=1).max())
    assert fv.embedder_.name == "svd" and fv.embedder_.plugin == "featurevec"


def test_run_on_breast_cancer(tmp_path):
    data = interp.load_dataset("breast-cancer")
    out = tmp_path / "fv.png"
    res = run_method("featurevec", data, {"paths": 4000, "window": 3, "depth": "3", "plot": str(out)},
                     RunContext(seed=0))
    assert out.exists() and out.stat().st_size > 10_000
    assert isinstance(res.figures["featurevec"], Figure)
    assert res.estimator.n_paths_ >= 4000
    feats = res.payload["features"]
    assert len(feats) == 30
    imps = [f["importance"] for f in feats]
    assert imps == sorted(imps, reverse=True)
    assert feats[0]["importance"] == pytest.approx(1.0)
    assert "explained variance" in res.text
    assert feats[0]["feature"] in res.text.split("rank  feature")[1].splitlines()[1]  # the table's first row
    json.loads(res.to_json())  # JSON-able
    again = run_method("featurevec", data, {"paths": 4000}, RunContext(seed=0))
    assert again.payload == res.payload


def test_run_regression_from_frame():
    rng = np.random.default_rng(1)
    df = pd.DataFrame(rng.normal(size=(150, 3)), columns=["u", "v", "w"])
    df["target"] = df["u"] * 3 + rng.normal(size=150) * 0.1
    data = interp.load_dataset(df, "target")
    res = run_method("featurevec", data, {"paths": 1000}, RunContext(seed=0))
    assert res.estimator.task_ == "regression"
    assert res.payload["features"][0]["feature"] == "u"


@pytest.mark.parametrize(
    "options, message",
    [({"window": 0}, "--window"), ({"paths": 0}, "--paths"), ({"depth": "deep"}, "--depth"),
     ({"top_k": 0}, "--top-k"), ({"bootstrap": -1}, "--bootstrap"),
     ({"embedding": "nope"}, "unknown embedding 'nope'; registered: .*svd")],
)
def test_bad_options(options, message):
    data = interp.load_dataset("breast-cancer")
    with pytest.raises(interp.InputError, match=message) as info:
        run_method("featurevec", data, options, RunContext(seed=0))
    assert "\n" not in str(info.value)


def test_one_feature_is_an_input_error():
    df = pd.DataFrame({"a": np.arange(20.0), "y": np.arange(20) % 2})
    data = interp.load_dataset(df, "y")
    with pytest.raises(interp.InputError, match="at least 2 features"):
        run_method("featurevec", data, {"paths": 100}, RunContext(seed=0))


def test_nan_is_an_input_error():
    df = pd.DataFrame({"a": [1.0, np.nan, 3.0, 4.0], "b": [1.0, 2.0, 3.0, 4.0], "y": [0, 1, 0, 1]})
    with pytest.raises(interp.InputError, match="NaN|nan"):
        data = interp.load_dataset(df, "y")
        run_method("featurevec", data, {"paths": 100}, RunContext(seed=0))


def test_empty_cooccurrence_is_an_input_error():
    df = pd.DataFrame({"a": [0.0, 1.0] * 10, "b": [1.0, 0.0] * 10, "y": [0, 1] * 10})
    data = interp.load_dataset(df, "y")
    with pytest.raises(interp.InputError, match="no features co-occur"):
        run_method("featurevec", data, {"paths": 50}, RunContext(seed=0))


@pytest.mark.parametrize("name, message", [
    ("fv.txt", ".txt is not a picture format matplotlib writes (use one of"),
    ("fv", "no extension is not a picture format"),
    ("missing/fv.png", "--plot folder"),
])
def test_a_plot_file_matplotlib_cannot_write_is_refused_before_the_fit(tmp_path, monkeypatch, name, message):
    from click.testing import CliRunner

    from interp.cli import cli

    fits = []
    monkeypatch.setattr(FeatureVectors, "fit", lambda self, *a, **k: fits.append(1))
    result = CliRunner().invoke(cli, ["run", "--method", "featurevec", "--dataset", "breast-cancer", "--quiet",
                                      "--plot", str(tmp_path / name)])
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1 and message in result.stderr
    assert fits == [] and list(tmp_path.iterdir()) == []
