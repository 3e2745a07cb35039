"""How a card prints: rows by |points| (ties in the features' order), the total's wording, the
rule, and its risk table under it in text, Markdown and JSON."""

import json

import numpy as np

from interp_facets import FacetsClassifier, score_card


def fitted(binary=True, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(400, 5)).astype(float)
    if not binary:
        X[:, 4] = rng.integers(0, 4, 400)
    y = ((X @ np.array([3, 1, 1, -1, 1]) + rng.normal(scale=0.8, size=400)) >= 2).astype(int)
    return FacetsClassifier(lam=0.01, gamma=0.3).fit(X, y), X, y


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
    card = score_card(FacetsClassifier(lam=0.01, gamma=0.3).fit(X, y), None, X, y=y)
    assert set(card.units) == {"x0", "x1", "x2"}
    assert "total = sum of the points of the features (times their values)" in card.text()
