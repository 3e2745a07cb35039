"""The risk table: the logistic fit of the label on a card's total, against scikit-learn and a
numerical argmin; its totals, its text and JSON, and the risk curve."""

import json
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.figure import Figure
from scipy.optimize import minimize
from scipy.special import expit
from sklearn.linear_model import LogisticRegression

import interp
from interp_facets import FacetsClassifier, score_card
from interp_facets.plots import plot_risk
from interp_facets.risk import MAX_TABLE_ROWS, RISK_RIDGE, RiskTable, percent


def totals_and_labels(seed, n=400, slope=0.7):
    rng = np.random.default_rng(seed)
    t = rng.integers(-4, 9, n).astype(float)
    return t, (rng.random(n) < expit(-1.5 + slope * t)).astype(float)


def argmin(t, y):
    """The objective the table minimises, minimised by BFGS from another start."""
    s = 2 * y - 1

    def f(p):
        return np.mean(np.logaddexp(0, -s * (p[0] + p[1] * t))) + 0.5 * RISK_RIDGE * p[1] ** 2

    return minimize(f, [1.0, -0.5], method="BFGS", options={"gtol": 1e-10}).x


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fit_matches_sklearn_and_the_numerical_argmin(seed):
    t, y = totals_and_labels(seed)
    table = RiskTable.fit(t, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lr = LogisticRegression(C=1e12, tol=1e-12, max_iter=10_000).fit(t[:, None], y)
    np.testing.assert_allclose([table.intercept, table.slope], [lr.intercept_[0], lr.coef_[0, 0]], rtol=1e-4)
    np.testing.assert_allclose([table.intercept, table.slope], argmin(t, y), rtol=1e-5, atol=1e-6)
    assert not table.separable


def test_separable_totals_are_said_and_fitted_with_the_tiny_ridge():
    t = np.array([0, 1, 1, 2, 3, 4, 5, 6.0])
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1.0])
    table = RiskTable.fit(t, y)
    assert table.separable and "separate" in table.text()
    np.testing.assert_allclose(table.risk(t), expit(argmin(t, y) @ np.vstack([np.ones_like(t), t])),
                               atol=1e-6)
    assert table.risk(2) < 0.01 and table.risk(3) > 0.99
    assert not RiskTable.fit(np.zeros(4), [0, 1, 0, 1]).separable  # one total: nothing separates


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.floats(0.05, 2.0))
def test_risk_rises_with_the_total_when_the_slope_is_positive(seed, slope):
    t, y = totals_and_labels(seed, n=200, slope=slope)
    if y.min() == y.max():
        return
    table = RiskTable.fit(t, y)
    risks = [r for _, r in table.rows()]
    if table.slope > 0:  # rising, strictly until the risk rounds to 1 in floating point
        steps = np.diff(risks)
        assert np.all(steps >= 0)
        assert np.all(steps[np.asarray(risks[1:]) < 1.0] > 0)
    assert table.totals == tuple(range(int(t.min()), int(t.max()) + 1))


def test_totals_cover_the_span_or_a_sample_of_it():
    t, y = totals_and_labels(0)
    assert RiskTable.fit(t, y, span=(-7, 12)).totals == tuple(range(-7, 13))
    for low, high in ((-1000, 5000), (-3, 68), (7, 7 + MAX_TABLE_ROWS)):
        wide = RiskTable.fit(t * 100, y, span=(low, high)).totals
        steps = set(np.diff(wide))  # one round step, its multiples covering the span
        assert len(steps) == 1 and steps.pop() in (2, 5, 10, 20, 50, 100, 200, 500)
        assert len(wide) <= MAX_TABLE_ROWS and wide[0] <= low < wide[0] + wide[1] - wide[0]
        assert wide[-1] - (wide[1] - wide[0]) < high <= wide[-1] and wide[0] % (wide[1] - wide[0]) == 0


def test_json_round_trip_and_text():
    t, y = totals_and_labels(4)
    table = RiskTable.fit(t, y)
    back = RiskTable.from_dict(json.loads(json.dumps(table.to_dict())))
    assert back == table
    text = table.text("sick")
    assert text.startswith("risk of sick by total:")
    shown = {}  # total -> what the text shows for it
    for low, high, value in re.findall(r"totals? (-?\d+)(?: to (-?\d+))?: (\S+%)", text):
        shown.update({t: value for t in range(int(low), int(high or low) + 1)})
    assert shown == {t: percent(r) for t, r in table.rows()}
    assert table.markdown().endswith(", ".join(table.cells()) + ".")
    merged = RiskTable(0.0, 10.0, tuple(range(-3, 4)))
    assert merged.cells() == ["totals -3 to -1: <0.1%", "total 0: 50%", "totals 1 to 3: >99.9%"]


@pytest.mark.parametrize("p, shown", [(0.03, "3%"), (0.004, "0.4%"), (0.996, "99.6%"), (0.0001, "<0.1%"),
                                      (0.99999, ">99.9%"), (0.5, "50%")])
def test_percent(p, shown):
    assert percent(p) == shown


def test_bad_labels_are_one_line_input_errors():
    with pytest.raises(interp.InputError, match="both classes"):
        RiskTable.fit([1, 2, 3], [1, 1, 1])
    with pytest.raises(interp.InputError, match="one 0/1 label per total"):
        RiskTable.fit([1, 2, 3], [0, 1])


def test_a_card_lists_every_attainable_total_and_draws_its_curve():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(300, 4)).astype(float)
    y = ((X @ np.array([2, 1, 1, -1]) + rng.normal(scale=0.8, size=300)) >= 2).astype(int)
    model = FacetsClassifier(lam=0.01, gamma=0.5, max_rows=4).fit(X, y)
    card = score_card(model, ["fever", "cough", "rash", "vaccinated"], X, y=y)
    points = np.array(card.points)
    assert card.risk.totals == tuple(range(points[points < 0].sum(), points[points > 0].sum() + 1))
    totals = card.total(X)
    direct = RiskTable.fit(totals, y)
    np.testing.assert_allclose([card.risk.intercept, card.risk.slope], [direct.intercept, direct.slope])
    assert card.to_dict()["risk"] == card.risk.to_dict()
    # the scale refit is the same 1-D logistic fit: the table passes 50% at the card's threshold
    threshold = card.integer_threshold
    assert card.risk.risk(threshold - 1) < 0.5 < card.risk.risk(threshold)
    assert card.text().endswith(card.risk.text("1")) and card.risk.markdown("1") in card.markdown()
    figure = plot_risk(card)
    assert isinstance(figure, Figure) and figure.axes[0].get_ylabel() == "risk of 1"
    assert score_card(model, X=X).risk is None
