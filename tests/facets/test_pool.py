"""A pool of near-optimal cards: cards_, feature_share_, select_card and --pool."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import interp
from interp_facets import FacetsClassifierCV, score_card
from interp_facets.search import card_losses


def pooled_data(n=400, seed=0):
    """Twelve 0/1 columns; the label leans on four, the two weakest of which have a near twin,
    so several cards fit nearly as well."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, 12)).astype(float)
    X[:, 8] = np.where(rng.random(n) < 0.95, X[:, 2], 1 - X[:, 2])  # near copies of f2 and f3
    X[:, 9] = np.where(rng.random(n) < 0.95, X[:, 3], 1 - X[:, 3])
    y = (X[:, :4] @ np.array([2.0, 1.5, 1.0, -1.0]) + rng.normal(scale=1.0, size=n) > 1.5).astype(int)
    return pd.DataFrame(X, columns=[f"f{j}" for j in range(12)]), y


@pytest.fixture(scope="module")
def pooled():
    X, y = pooled_data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = FacetsClassifierCV(max_rows=4, pool=30, card_ridge=2.0).fit(X, y)
    return model, X, y


def test_the_pool_holds_distinct_near_optimal_cards_best_first(pooled):
    model, X, y = pooled
    y_pm = 2.0 * y - 1
    pool = model.pool_
    assert 3 <= len(pool) <= 30 and len(model.cards_) == len(pool)
    supports = {tuple(c.points != 0) for c in pool}
    assert len(supports) == len(pool)  # distinct rows, not only distinct points
    fits = card_losses(X.to_numpy(), y_pm, np.array([c.points for c in pool]), "logistic", 2.0)
    F = fits.objective  # what the pool ranks by: the loss plus the card ridge's penalty
    np.testing.assert_allclose(F, model.cards_["objective"], rtol=1e-9)
    np.testing.assert_allclose(fits.loss, model.cards_["loss"], rtol=1e-9)
    # each card's scale is the one it delivers when selected: the fit of its totals without the
    # card ridge (the same as the card ridge 0's up to the least ridge, on a or on |a u|)
    plain = card_losses(X.to_numpy(), y_pm, np.array([c.points for c in pool]), "logistic")
    np.testing.assert_allclose([c.scale for c in pool], plain.scale, rtol=1e-3)
    assert np.all(np.diff(F) >= -1e-12) and F[-1] <= F[0] * (1 + model.pool_tol) + 1e-12
    assert all(np.count_nonzero(c.points) <= 4 and np.abs(c.points).max() <= 5 for c in pool)
    # card 0 is the model, and the table's accuracy is each card's own
    np.testing.assert_array_equal(model.points_, pool[0].points)
    for card, accuracy in zip(pool, model.cards_["accuracy"]):
        predicted = np.where(card.scale * (X.to_numpy() @ card.points) + card.intercept > 0, 1, 0)
        assert accuracy == pytest.approx(np.mean(predicted == y))
    assert model.cards_["card"][0].startswith("f0 ")


def test_the_pooled_model_is_never_worse_than_the_search_alone(pooled):
    """Card 0 is the best after the polish, among candidates that include the search's own card:
    its objective is at most that card's."""
    model, X, y = pooled
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        alone = FacetsClassifierCV(max_rows=4, card_ridge=2.0).fit(X, y)
    both = np.array([alone.points_, model.points_])
    F = card_losses(X.to_numpy(), 2.0 * y - 1, both, "logistic", 2.0).objective
    assert F[1] <= F[0] * (1 + 1e-12)


def test_feature_shares_count_the_cards_using_each_feature(pooled):
    model, X, _ = pooled
    used = np.array([c.points != 0 for c in model.pool_])
    expected = pd.Series(used.mean(axis=0), index=X.columns)
    shares = model.feature_share_
    assert list(shares.index) == list(expected[expected > 0].sort_values(ascending=False, kind="stable").index)
    np.testing.assert_allclose(shares.to_numpy(), expected[shares.index].to_numpy())
    assert shares["f0"] > shares.min()  # some feature is robust, some a choice


def test_select_card_makes_that_card_the_model(pooled):
    model, X, y = pooled
    i = len(model.pool_) - 1
    card = model.pool_[i]
    model.select_card(i)
    try:
        assert model.selected_card_ == i
        np.testing.assert_array_equal(model.points_, card.points)
        np.testing.assert_array_equal(model.best_estimator_.points_, card.points)
        scores = card.scale * (X.to_numpy() @ card.points) + card.intercept
        np.testing.assert_allclose(model.decision_function(X), scores)
        np.testing.assert_array_equal(model.predict(X), (scores > 0).astype(int))
        np.testing.assert_allclose(model.predict_proba(X)[:, 1], 1 / (1 + np.exp(-scores)))
        shown = score_card(model, X=X, y=y)
        assert dict(shown.rows()) == {f: int(p) for f, p in zip(X.columns, card.points) if p}
        np.testing.assert_array_equal(shown.predict(X), model.predict(X))
    finally:
        model.select_card(0)
    np.testing.assert_array_equal(model.points_, model.pool_[0].points)
    for bad in (len(model.pool_), 1.5, True):
        with pytest.raises(interp.InputError, match="select_card takes a card number"):
            model.select_card(bad)


@pytest.mark.parametrize("params, match", [
    ({"pool": 5}, "pool needs the card search"),
    ({"pool": 0, "max_rows": 3}, "pool must be an integer from 1 to 1,000 or None"),
    ({"pool": 5, "max_rows": 3, "pool_tol": -0.1}, "pool_tol must be a number >= 0"),
])
def test_bad_pool_settings_are_one_line_input_errors(params, match):
    X, y = pooled_data(n=80)
    with pytest.raises(interp.InputError, match=match):
        FacetsClassifierCV(**params).fit(X, y)


def test_the_command_line_shows_the_pool_and_its_feature_shares():
    from click.testing import CliRunner

    from interp.cli import cli

    done = CliRunner().invoke(cli, ["run", "--plugin", "facets", "--dataset", "breast-cancer", "--max-rows", "4",
                                    "--cv", "2", "--pool", "10", "--quiet", "--format", "json"])
    assert done.exit_code == 0, done.output
    result = json.loads(done.output)
    pool = result["explanation"]["pool"]
    assert 1 <= len(pool["cards"]) <= 10 and pool["selected"] == 0
    assert np.count_nonzero(pool["cards"][0]["points"]) == result["metrics"]["nonzeros"]
    titles = [s.get("title") or "" for s in result["sections"]]
    assert any("near-optimal cards" in t for t in titles)
    assert any("choice among equals" in t for t in titles)
    # shares per original column (the card's rows of one column are one feature)
    assert set(pool["feature_share"]) <= set(interp.load_dataset("breast-cancer").feature_names)


def test_the_html_report_shows_the_pool_tables():
    from html.parser import HTMLParser

    from interp.report import render_html
    from interp.runner import RunContext, run_method

    exp = run_method("facets", interp.load_dataset("breast-cancer"), {"max_rows": 4, "cv": 2, "pool": 8},
                     RunContext(seed=0, quiet=True))
    page = render_html([exp], "facets")

    class Tables(HTMLParser):
        def __init__(self):
            super().__init__()
            self.cells, self.captions, self._in = [], [], None

        def handle_starttag(self, tag, attrs):
            self._in = tag

        def handle_data(self, data):
            if self._in in ("td", "th"):
                self.cells.append(data.strip())

    parsed = Tables()
    parsed.feed(page)
    pool = exp.payload["pool"]
    assert "near-optimal cards" in page and "choice among equals" in page
    assert pool["cards"][0]["card"] in parsed.cells  # the first card's rows, in a table cell
    assert all(feature in parsed.cells for feature in pool["feature_share"])
