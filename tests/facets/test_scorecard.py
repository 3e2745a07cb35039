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


def test_integer_codes_say_times_their_values():
    model, X, y = fitted(binary=False)
    card = score_card(model, None, X, y=y)
    assert "times their values" in card.text() and card.integer_threshold is not None
    totals = card.total(X)
    assert card.risk.totals == tuple(range(int(totals.min()), int(totals.max()) + 1))
