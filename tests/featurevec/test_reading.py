"""What a person reads from a Feature Vectors run: the map first, then how to read it, then the
table; unused features listed, not drawn; what a larger value does, where a model can say."""

import numpy as np
import pandas as pd
import pytest

import interp
from interp.runner import RunContext, run_method
from interp_featurevec import render


@pytest.fixture(scope="module")
def with_a_constant():
    """200 rows; the target follows a and b; 'flat' is constant, so no tree splits on it."""
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.normal(size=(200, 4)), columns=["a", "b", "c", "d"])
    df["flat"] = 1.0
    df["y"] = ((df["a"] - df["b"] + 0.3 * df["c"]) > 0).astype(int)
    return interp.load_dataset(df, "y")


@pytest.fixture(scope="module")
def explained(with_a_constant):
    return run_method("featurevec", with_a_constant, {"paths": 1000}, RunContext(seed=0, quiet=True))


def test_the_map_comes_first_then_how_to_read_it_then_the_table(explained):
    kinds = [section.kind for section in explained.sections]
    assert kinds == ["text", "figure", "text", "table"]
    reading = explained.sections[2].body
    assert "length" in reading and "importance" in reading and "angle" in reading and "together" in reading


def test_an_unused_feature_is_listed_as_unused_not_drawn_at_the_origin(explained):
    table = explained.sections[3]
    rows = {row[1]: row for row in table.rows}
    assert rows["flat"][3] == "unused" and rows["flat"][0] == ""
    assert [row[1] for row in table.rows][-1] == "flat"
    ax, colourbar = explained.figures["featurevec"].axes[:2]
    assert "unused by the model (not drawn): flat" in ax.get_title()
    assert len(ax.collections[0].get_offsets()) == 4  # the four used features only
    used_angles = [abs(row[3]) for row in table.rows if row[3] != "unused"]
    top = colourbar.get_ylim()[1]
    assert top == pytest.approx(max(5.0, max(used_angles)), abs=0.05) and top < 180


def test_without_a_fitted_model_the_direction_is_said_to_be_not_shown(explained):
    assert explained.sections[3].columns == ("rank", "feature", "importance", "angle")
    assert explained.sections[2].body.endswith("raises or lowers the model's output: not shown, as the forest grown "
                                               "here keeps only its paths (explain a fitted model, --model or "
                                               "--model-file, to see it).")


def test_what_a_larger_value_does_to_the_models_output():
    from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor

    rng = np.random.default_rng(1)
    X = rng.normal(size=(400, 3))
    regressor = GradientBoostingRegressor(random_state=0).fit(X, 3 * X[:, 0] - 2 * X[:, 1])
    found = render.effects(regressor, X)
    assert found.output == "the prediction" and found.words[:2] == ("raises", "lowers")
    labels = np.where(X[:, 0] - X[:, 2] > 0, "yes", "no")
    classifier = GradientBoostingClassifier(random_state=0).fit(X, labels)
    found = render.effects(classifier, X)
    assert found.output == "P(yes)" and (found.words[0], found.words[2]) == ("raises", "lowers")
    three = GradientBoostingClassifier(n_estimators=5, random_state=0).fit(X, np.digitize(X[:, 0], [-0.5, 0.5]))
    assert render.effects(three, X) is None and render.effects(None, X) is None
    assert render.effects(list(classifier.estimators_[:, 0]), X) is None  # trees without a predict of their own


def test_a_run_with_a_model_trained_here_names_the_class_it_follows(with_a_constant):
    explained = run_method("featurevec", with_a_constant, {"paths": 1000, "model": "hgb"}, RunContext(seed=0, quiet=True))
    table = explained.sections[3]
    assert table.columns[-1] == "larger value: P(1)" and "the table's last column does, for P(1)" in \
        explained.sections[2].body
    rows = {row[1]: row[-1] for row in table.rows}
    assert (rows["a"], rows["b"], rows["flat"]) == ("raises", "lowers", "unused")
