"""How a card prints: rows by |points| (ties in the features' order), the total's wording, the
rule, and its risk table under it in text, Markdown and JSON."""

import json

import numpy as np
import pytest

import interp
from interp_facets import FacetsClassifier, score_card
from interp_facets.scorecard import no_card_reason


def fitted(binary=True, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(400, 5)).astype(float)
    if not binary:
        X[:, 4] = rng.integers(0, 4, 400)
    y = ((X @ np.array([3, 1, 1, -1, 1]) + rng.normal(scale=0.8, size=400)) >= 2).astype(int)
    return FacetsClassifier(lam=0.01, gamma=0.3, max_rows=5).fit(X, y), X, y


def test_rows_are_sorted_by_size_then_in_feature_order():
    model, X, y = fitted()
    names = ["z >= 5", "a >= 1", "a >= 10", "b", "c"]
    card = score_card(model, names, X, y=y)
    rows = card.rows()
    sizes = [abs(p) for _, p in rows]
    assert sizes == sorted(sizes, reverse=True) and len(rows) == np.count_nonzero(card.points)
    for (f, p), (g, q) in zip(rows, rows[1:]):
        if abs(p) == abs(q):
            assert names.index(f) < names.index(g)


def test_text_markdown_and_json_carry_the_rule_and_the_risk_table():
    model, X, y = fitted()
    card = score_card(model, None, X, y=y)
    text = card.text()
    assert "total = sum of the points of the features that hold" in text
    rule_at, risk_at = text.index(card.rule()), text.index("risk of 1 by total:")
    assert rule_at < risk_at
    shown = dict(tuple(cell.strip() for cell in line.split("|")) for line in text.splitlines()
                 if line.count("|") == 1)
    assert all(shown[f] == f"{p:+d}" for f, p in card.rows())
    assert card.risk.markdown("1") in card.markdown()
    data = json.loads(json.dumps(card.to_dict()))
    assert data["risk"]["rows"][0]["total"] == min(0, sum(p for p in card.points if p < 0))
    assert [r["feature"] for r in data["rows"]] == [f for f, _ in card.rows()]


def test_integer_codes_print_per_unit_and_the_table_spans_their_range():
    model, X, y = fitted(binary=False)
    card = score_card(model, ["a", "b", "c", "d", "code (0-3)"], X, y=y)
    assert card.units == ("code (0-3)",) and card.integer_threshold is not None
    text = card.text()
    shown = dict(tuple(cell.strip() for cell in line.split("|")) for line in text.splitlines()
                 if line.count("|") == 1)
    for f, p in card.rows():
        assert shown[f] == (f"{p:+d} per unit" if f == "code (0-3)" else f"{p:+d}")
        assert f"| {f} | {shown[f]} |" in card.markdown().splitlines()
    if "code (0-3)" in dict(card.rows()):
        assert "plus points x value on the per-unit rows" in text
    assert [r["per_unit"] for r in card.to_dict()["rows"]] == [f == "code (0-3)" for f, _ in card.rows()]
    # the table spans every total the columns' ranges allow: brute force over the corners
    corners = np.array(np.meshgrid(*[[X[:, j].min(), X[:, j].max()] for j in range(5)])).reshape(5, -1).T
    attainable = corners @ np.array(card.points)
    assert card.risk.totals == tuple(range(int(attainable.min()), int(attainable.max()) + 1))


def test_a_card_on_values_only_says_times_their_values():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 5, size=(300, 3)).astype(float)
    y = (X @ np.array([1.0, -1.0, 0.5]) + rng.normal(size=300) > 0).astype(int)
    card = score_card(FacetsClassifier(lam=0.01, gamma=0.3, max_rows=3).fit(X, y), None, X, y=y)
    assert set(card.units) == {"x0", "x1", "x2"}
    assert "total = sum of the points of the features (times their values)" in card.text()


def test_a_model_that_is_not_integral_has_no_card_and_says_why():
    """The getting-started model of old: rounded, its points were all 0 and its card predicted
    0 for every row while the model scored 0.95."""
    data = interp.load_dataset("breast-cancer")
    model = FacetsClassifier(lam=0.05, gamma=1.0).fit(data.X, data.y)
    assert model.integrity_ < 1 and model.score(data.X, data.y) > 0.9
    reason = no_card_reason(model)
    assert reason.startswith("no score card:") and "\n" not in reason
    with pytest.raises(interp.InputError, match="no score card") as err:
        score_card(model, X=data.X)
    assert str(err.value) == reason


def _card_predictions(card: dict, design: np.ndarray, names) -> np.ndarray:
    """What a person computes from the printed card (the JSON payload's rows and rule) alone:
    the class, or a regressor's card's prediction."""
    points = dict((r["feature"], r["points"]) for r in card["rows"])
    total = design @ np.array([points.get(n, 0) for n in names], dtype=float)
    if "target" in card:
        return card["intercept"] + card["gamma"] * total
    if card["integer_threshold"] is not None:
        return np.round(total) >= card["integer_threshold"]
    return total > card["threshold"]


@pytest.mark.parametrize("dataset", ["breast-cancer", "house-votes-84", "diabetes"])
@pytest.mark.parametrize("options", [{"cv": 2}, {"lam": 0.05, "gamma": 1.0}, {"lam": 0.002, "gamma": 0.5},
                                     {"max_rows": 0, "cv": 2, "n_gammas": 2, "n_betas": 5}])
def test_every_bundled_data_set_gets_a_card_that_computes_its_model_or_no_card(dataset, options):
    """On every bundled data set (diabetes: a numeric target, a regressor's card) and for each
    way of fitting: the printed card predicts what the saved model predicts on every row, or
    the output says why there is no card."""
    from interp.runner import RunContext, run_method

    data = interp.load_dataset(dataset)
    with __import__("warnings").catch_warnings():
        __import__("warnings").simplefilter("ignore")
        exp = run_method("facets", data, options, RunContext(seed=0, quiet=True))
    card, model = exp.payload["score_card"], exp.estimator
    text = exp.sections[0].body
    if card is None:
        assert text == exp.payload["no_card"] and text.startswith("no score card:")
        assert exp.metrics["integrity"] < 1
        return
    design = model[0].transform(data.raw)
    by_card = _card_predictions(card, design, exp.payload["feature_names"])
    if data.task == "regression":
        assert card["rule"].startswith(f"predicted {data.target_name} = ")
        np.testing.assert_allclose(by_card, model.predict(data.raw), rtol=1e-12, atol=1e-9)
    else:
        np.testing.assert_array_equal(by_card, model.predict(data.raw) == model[-1].classes_[1])
    assert card["rule"] in text


def test_names_and_labels_in_the_markdown_card_are_text_not_markup():
    """A feature ``<img src=x onerror=alert(1)>`` and a positive class ``**[click](http://x)**``
    print as written in Markdown (escaped), never as an image, bold text or a link."""
    from interp_facets.render import markdown_text

    model, X, y = fitted()
    names = ["<img src=x onerror=alert(1)>", "b|c", "c", "d", "e"][:X.shape[1]]
    hostile = "**[click](http://x)**"
    card = score_card(model, names, X, labels=("neg", hostile))
    md = card.markdown()
    assert "<img" not in md and "**[click]" not in md and r"\*\*\[click\](http://x)\*\*" in md
    assert "&lt;img src=x onerror=alert(1)&gt;" in md and r"b\|c" in md
    assert markdown_text("code (0-3)") == "code (0-3)"
