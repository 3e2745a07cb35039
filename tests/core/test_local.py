"""Why this prediction: one row's contributions from each method, summing exactly to its output."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.figure import Figure
from sklearn.ensemble import HistGradientBoostingClassifier

import interp
from interp.local import Piece, RowExplanation, waterfall


@pytest.fixture(scope="module")
def explained():
    data = interp.load_dataset("breast-cancer")
    X, y = data.frame(), data.y
    model = HistGradientBoostingClassifier(max_iter=20, random_state=0).fit(X, y)
    return X, model, interp.explain(model, X, y, methods=["facets", "featurevec"], options={"facets": {"cv": 2}},
                                    quiet=True)


def test_a_card_row_explanation_sums_to_the_card_total(explained):
    from interp_facets.export import predict_score

    X, _, result = explained
    card = result["facets"].estimator
    rng = np.random.default_rng(0)
    rows = X.iloc[rng.choice(len(X), 40, replace=False)]
    for one, total in zip(card.for_rows(rows), predict_score(card, rows)):
        assert one.output == total and one.baseline == 0
        assert abs(sum(one.contributions.values()) - total) <= 1e-9
        assert abs(sum(p.value for p in one.pieces) - total) <= 1e-9
        assert all(p.value != 0 for p in one.pieces)


def test_columns_the_card_does_not_read_contribute_nothing(explained):
    X, _, result = explained
    card = result["facets"].estimator
    read = {c.source for c, p in zip(_columns(card), card[-1].points_) if p != 0}
    for one in card.for_rows(X.iloc[:25]):
        assert all(v == 0 for name, v in one.contributions.items() if name not in read)


def _columns(card):
    from interp_facets.export import card_model

    return card_model(card).columns()


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(-5, 5), min_size=4, max_size=4), st.integers(0, 10**6))
def test_a_card_of_any_points_explains_every_row_exactly(points, seed):
    """Any card (points drawn at random, zeros included): each row's pieces are the rows that
    hold, they and the columns' amounts sum to the total, and a column of zero points gives 0."""
    from interp_facets.estimators import FacetsClassifier
    from interp_facets.export import predict_score

    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 2, size=(30, 4)).astype(float), columns=["a", "b", "c", "d"])
    card = FacetsClassifier(lam=0.01, gamma=1.0).fit(X, np.arange(30) % 2)
    card.points_ = np.asarray(points, dtype=np.int64)
    card.gamma_ = 1.0
    card.coef_ = np.asarray(points, dtype=float).reshape(1, -1)
    for one, total in zip(card.for_rows(X), predict_score(card, X)):
        assert sum(one.contributions.values()) == pytest.approx(total, abs=1e-9)
        held = [c for c, p in zip(X.columns, points) if p != 0 and one.values[c] == 1]
        assert [p.label.split(":")[0] for p in one.pieces] == held
        assert all(one.contributions[c] == 0 for c, p in zip(X.columns, points) if p == 0)


def test_for_rows_takes_positions_or_new_rows(explained):
    X, model, result = explained
    by_position = result.for_rows([3, 7])
    by_frame = result.for_rows(X.iloc[[3, 7]])
    for a, b in zip(by_position.by_method["facets"], by_frame.by_method["facets"]):
        assert a.contributions == b.contributions
    assert [r.model_output for r in by_position.by_method["facets"]] == pytest.approx(
        model.predict_proba(X.iloc[[3, 7]])[:, 1])
    assert "global" in by_position.notes["featurevec"]
    with pytest.raises(interp.InputError, match="row 10000 is not in the table"):
        result.for_rows([10000])


def test_the_least_certain_row_is_held_out_and_nearest_one_half(explained):
    X, model, result = explained
    row = result.least_certain_row()
    assert row in set(result.held_rows)
    p = model.predict_proba(X.iloc[result.held_rows])[:, 1]
    assert abs(result.model_output(row) - 0.5) == pytest.approx(np.min(np.abs(p - 0.5)))


def test_a_row_whose_parts_do_not_sum_is_a_bug():
    one = RowExplanation("m", 3.0, "out", 1.0, "base", {"a": 1.0, "b": 0.5})
    with pytest.raises(RuntimeError, match="contributions of a row sum to 1.5, not output - baseline = 2.0"):
        one.check()
    ok = RowExplanation("m", 3.0, "out", 1.0, "base", {"a": 1.5, "b": 0.5}, [Piece("t", 2.0, ("a", "b"))])
    assert ok.check() is ok


def test_the_waterfall_draws_the_largest_and_gathers_the_rest():
    contributions = {f"x{i}": (-1) ** i * (i + 1) for i in range(14)}
    one = RowExplanation("m", float(sum(contributions.values())), "out", 0.0, "base", contributions,
                         values={f"x{i}": i for i in range(14)})
    fig = waterfall(one, top=5)
    assert isinstance(fig, Figure)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels[:2] == ["x13 = 13", "x12 = 12"] and labels[-1] == "9 other features"
    assert [name for name, _ in one.ranked(5)][-1] == "9 other features"


def test_the_report_explains_the_least_certain_row(explained):
    from interp.report import model_page_html

    _, _, result = explained
    page = model_page_html(result, "t")
    assert "Why this prediction: one row" in page
    assert f"Row {result.least_certain_row()} of the data (the held-out row where the model is least sure)" in page
    assert page.count("why this row") >= 1 and "data:image/png;base64," in page


def test_the_notebook_display_shows_the_summary_and_one_row(explained):
    _, _, result = explained
    page = result._repr_html_()
    assert page.count("<table>") >= 2 and "fidelity on 143 held-out rows" in page
    assert "Why this prediction: one row" in page and "<script" not in page


def test_effect_curves_follow_the_model_and_name_their_direction(explained):
    """The model's partial dependence, against the model's own predictions on the same rows
    with the feature set to each grid value (computed here with pandas); the directions in
    words on curves of known shape."""
    from interp.effects import EffectCurve, _sample

    X, model, result = explained
    (curve,) = result.effects(["worst_perimeter"])
    rows = pd.DataFrame(_sample(result), columns=X.columns)
    expected = [model.predict_proba(rows.assign(worst_perimeter=g))[:, 1].mean() for g in curve.grid]
    np.testing.assert_allclose(curve.model, expected, rtol=1e-12)
    assert set(curve.methods) == {"facets"} and curve.ice.shape == (40, len(curve.grid))
    assert EffectCurve("f", np.arange(3.0), np.zeros(3), np.zeros((1, 3)), {}).direction() == "is flat"
    bump = EffectCurve("f", np.arange(5.0), np.array([0, 1, 2, 1, 0.0]), np.zeros((1, 5)), {})
    assert bump.direction() == "rises, then falls"
    assert curve.text().startswith("as worst_perimeter grows, the model's output ")
    assert isinstance(result.plot_effects(["worst_perimeter"]), Figure)
