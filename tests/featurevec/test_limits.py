"""Feature Vectors refuses forests and bootstraps beyond the memory or work bounds before any
work, and reads a given model's columns by name."""

import json

import joblib
import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier

import interp
from interp.resources import MEMORY_ENV, ResourceError


def test_a_forest_beyond_the_budget_is_refused_naming_the_paths_that_fit(run, monkeypatch):
    from interp_featurevec.estimator import fit_memory

    monkeypatch.setenv(MEMORY_ENV, "100M")
    result = run("run", "--method", "featurevec", "--dataset", "breast-cancer", "--quiet", "--paths", "1000000")
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    most = int(100 * 2**20 // fit_memory(1, depth=3))
    assert "Feature Vectors with 1,000,000 paths of depth 3 needs about" in result.output
    assert f"at most {most:,} paths fit (lower --paths or --depth)" in result.output


def test_the_bootstrap_is_bounded_by_the_paths_it_recounts(run, monkeypatch):
    monkeypatch.setenv(MEMORY_ENV, "0")  # the work bound alone
    result = run("run", "--method", "featurevec", "--dataset", "breast-cancer", "--quiet", "--paths", "10000000",
                 "--bootstrap", "11")
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert "at most 10 replicates fit at this --paths" in result.output


def test_the_estimator_checks_paths_and_replicates(monkeypatch):
    from interp_featurevec import FeatureVectors

    monkeypatch.delenv(MEMORY_ENV, raising=False)
    data = interp.load_dataset("breast-cancer")
    with pytest.raises(ResourceError, match=r"paths fit \(lower n_paths or max_depth\)"):
        FeatureVectors(n_paths=10**12).fit(data.X, data.y)
    est = FeatureVectors(n_paths=200, random_state=0).fit(data.X, data.y)
    with pytest.raises(ResourceError, match=r"bootstrap replicates fit \(fewer replicates\)"):
        est.bootstrap(10**12)


@pytest.fixture(scope="module")
def shuffled_model():
    """A forest fitted on breast-cancer's columns in another order, and the data in its own."""
    data = interp.load_dataset("breast-cancer")
    frame = data.frame()
    order = list(np.random.default_rng(0).permutation(frame.columns))
    model = RandomForestClassifier(n_estimators=20, max_depth=3, random_state=0).fit(frame[order], data.y)
    return model, frame, order, data


def test_a_model_fitted_on_named_columns_in_another_order_reads_them_by_name(shuffled_model):
    from interp_featurevec import FeatureVectors

    model, frame, order, data = shuffled_model
    as_given = FeatureVectors(estimator=model).fit(frame, data.y)
    in_its_order = FeatureVectors(estimator=model).fit(frame[order], data.y)
    by_name = dict(zip(as_given.feature_names(), as_given.importances_))
    assert by_name == pytest.approx(dict(zip(in_its_order.feature_names(), in_its_order.importances_)))
    top = in_its_order.feature_names()[int(np.argmax(in_its_order.importances_))]
    assert as_given.feature_names()[int(np.argmax(as_given.importances_))] == top
    with pytest.raises(interp.InputError, match="the data has column 'extra' that the estimator was not fitted on"):
        FeatureVectors(estimator=model).fit(frame.assign(extra=1.0), data.y)


def test_the_command_line_ranks_a_reordered_model_file_by_name(run, shuffled_model, tmp_path):
    from interp_featurevec import FeatureVectors

    model, frame, order, data = shuffled_model
    joblib.dump(model, tmp_path / "m.joblib")
    result = run("run", "--method", "featurevec", "--dataset", "breast-cancer", "--quiet", "--format", "json",
                 "--model-file", tmp_path / "m.joblib", "--trust-model-file")
    assert result.exit_code == 0, result.output
    features = json.loads(result.stdout)["explanation"]["features"]
    reference = FeatureVectors(estimator=model).fit(frame[order], data.y)
    assert {f["feature"]: f["importance"] for f in features} == \
        pytest.approx(dict(zip(reference.feature_names(), reference.importances_)))
