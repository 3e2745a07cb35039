"""The rule model: a decision list over the kernel's logical features that is a classifier."""

from __future__ import annotations

import json
import re
import pickle
import time

import numpy as np
import pandas as pd
import pytest

import interp
from interp.preprocessing import ColumnLogic
from interp.runner import run_method
from interp_propositional import PropositionalSVC
from interp_propositional.formula import parse
from interp_propositional.plain import plain_rule
from interp_propositional.rulelist import RuleList


def _concept(rng, n: int) -> list[list[tuple[int, bool]]]:
    """A random DNF over ``n`` variables: 2 or 3 terms of 2 or 3 literals, each literal
    negated with probability 0.4."""
    terms = []
    for _ in range(int(rng.integers(2, 4))):
        variables = rng.choice(n, int(rng.integers(2, 4)), replace=False)
        terms.append([(int(v), bool(rng.random() < 0.6)) for v in variables])
    return terms


def _label(terms, X: np.ndarray) -> np.ndarray:
    out = np.zeros(len(X), dtype=bool)
    for term in terms:
        out |= np.all([X[:, v] == int(sign) for v, sign in term], axis=0)
    return out.astype(int)


def _one_hot(X: np.ndarray) -> np.ndarray:
    """Each binary variable as the data encode a two-level column: x=1 and x=0."""
    return np.hstack([X, 1 - X])


@pytest.mark.parametrize("seed", range(6))
def test_random_dnf_concepts_are_recovered_in_few_rules(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(8, 13))
    terms = _concept(rng, n)
    X = (rng.random((1000, n)) < 0.5).astype(float)
    y = _label(terms, X)
    flip = rng.random(len(y)) < 0.02
    y[flip] = 1 - y[flip]
    est = PropositionalSVC(formula="a & b", C=1.0, random_state=0).fit(_one_hot(X), y)
    fresh = (rng.random((5000, n)) < 0.5).astype(float)
    agreement = float(np.mean(est.predict_rules(_one_hot(fresh)) == _label(terms, fresh)))
    assert agreement >= 0.98, (terms, str(est.rule_model_))
    assert est.rule_model_.n_rules_ <= len(terms) + 1, (terms, str(est.rule_model_))


def test_the_rule_model_predicts_pickles_and_saves_as_json():
    data = interp.load_dataset("house-votes-84")
    est = PropositionalSVC(formula="a & ~b", C=1.0, random_state=0).fit(data.X, data.y,
                                                                          column_logic=data.column_logic())
    model = est.rule_model_
    assert model.n_rules_ >= 1 and set(est.predict_rules(data.X)) <= set(est.classes_)
    np.testing.assert_array_equal(est.predict_rules(data.X), model.predict(data.X))
    assert np.mean(est.predict_rules(data.X) == data.y) > 0.9
    # each rule decides the rows it covers first, the default the rest
    which = model.decide(data.X)
    labels = np.array([r.label for r in model.rules_] + [model.default_])
    np.testing.assert_array_equal(model.classes_[labels[which]], model.predict(data.X))
    saved = json.loads(json.dumps(model.to_dict()))
    assert saved["default"] in ("democrat", "republican") and len(saved["rules"]) == model.n_rules_
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.predict_rules(data.X), est.predict_rules(data.X))
    assert str(again.rule_model_) == str(model)


def test_rule_stats_count_the_rows_each_rule_decides():
    rng = np.random.default_rng(1)
    X = (rng.random((300, 6)) < 0.5).astype(float)
    y = ((X[:, 0] > 0) & (X[:, 1] > 0)).astype(int)
    model = RuleList(random_state=0).fit(X, y)
    stats = model.stats(X, y, reference=y)
    assert sum(s.decided for s in stats) == len(y)
    assert stats[0].rule in ("x0 & x1", "x1 & x0") and stats[0].label == "1" and stats[0].accuracy == 1.0
    assert stats[-1].rule is None and stats[-1].label == "0"


def test_exactly_one_level_of_a_one_hot_column():
    names = ["a5=1", "a5=2", "a5=3", "a5=4", "b"]
    node = parse("~a & ~b & ~c")
    complete = ColumnLogic(exclusive=((0, 1, 2, 3),), complete=((0, 1, 2, 3),))
    assert plain_rule(node, (0, 1, 2), complete).text(names) == "a5=4"
    at_most_one = ColumnLogic(exclusive=((0, 1, 2, 3),))  # an unseen level: all four may be false
    assert plain_rule(node, (0, 1, 2), at_most_one).text(names) == "~a5=1 & ~a5=2 & ~a5=3"


def test_explanations_are_computed_once_per_fitted_model():
    data = interp.load_dataset("house-votes-84")
    est = PropositionalSVC(formula="a & ~b", C=1.0).fit(data.X, data.y)
    first = est.explain(top=3)
    start = time.perf_counter()
    again = est.explain(top=3)
    assert again is first and time.perf_counter() - start < 0.01
    frame = est.rules_frame(top=3)
    assert list(frame["rule"]) == [r.rule for r in first.rules]


def test_a_model_that_says_one_class_is_flagged_in_words():
    data = interp.load_dataset("breast-cancer")
    result = run_method("propositional", data, {"formula": "(a & b) | (c & d)", "C": 1e-4, "cv": 2, "top": 2,
                                                "max_leaves": 4},
                        interp.RunContext(seed=0, quiet=True))
    assert "accuracy" in result.metrics and "rule_accuracy" in result.metrics
    assert result.payload["one_class_warning"].startswith("warning: the SVM puts")
    assert "no better than always saying the larger class" in result.text
    assert result.metrics["rule_accuracy"] > result.metrics["accuracy"]


@pytest.mark.parametrize("normalize", [True, False])
def test_contributions_add_up_to_the_decision_function(normalize):
    rng = np.random.default_rng(4)
    X = (rng.random((120, 5)) < 0.5).astype(float)
    X[X.sum(axis=1) == 0, 0] = 1.0  # no all-zero row: every row has features
    y = ((X[:, 0] > 0) & (X[:, 1] < 1) | (X[:, 2] > 0) & (X[:, 3] > 0)).astype(int)
    est = PropositionalSVC(formula="a | ~b", C=1.0, normalize=normalize, random_state=0).fit(X, y)
    decision = est.decision_function(X)
    few = est.rule_contributions(X, top=5)
    np.testing.assert_allclose(few.total(), decision, rtol=0, atol=1e-9)
    assert few.parts.shape == (120, 5) and np.abs(few.other).max() > 1e-6  # 5 of 25 features leave a rest
    every = est.rule_contributions(X, top=25)  # all 5^2 features: nothing is left for "other"
    np.testing.assert_allclose(every.parts.sum(axis=1) + every.intercept, decision, rtol=0, atol=1e-9)
    np.testing.assert_allclose(every.other, 0.0, atol=1e-9)
    # the rules that fire: the deciding one fires, none before it does
    for row in range(len(X)):
        fired = np.flatnonzero(few.fired[row])
        assert (fired[0] if fired.size else len(few.rules)) == few.decided_by[row]


def test_xor_and_xnor_are_chosen_only_when_they_earn_it():
    from interp_propositional.shortlist import _choice

    formulas = ["a", "a & b", "a ^ b", "a <-> b"]
    # (accuracy, mean rules, C): and/or/not within 0.005 of the best -> the fewest rules wins
    near = _choice(formulas, [(0.900, 3.0, 1.0), (0.903, 2.0, 1.0), (0.905, 1.0, 1.0), (0.890, 1.0, 1.0)])
    assert formulas[near[0]] == "a & b"
    earned = _choice(formulas, [(0.900, 3.0, 1.0), (0.903, 2.0, 1.0), (0.920, 4.0, 1.0), (0.890, 1.0, 1.0)])
    assert formulas[earned[0]] == "a ^ b" and sorted(earned) == [0, 1, 2, 3]


def test_C_chosen_by_cross_validation_avoids_the_one_class_model():
    rng = np.random.default_rng(0)
    X = (rng.random((600, 30)) < 0.5).astype(float)
    y = ((X[:, 0] > 0) & (X[:, 1] > 0) | (X[:, 2] > 0) & (X[:, 3] > 0)).astype(int)
    train, test = slice(0, 400), slice(400, None)
    majority = max(y[test].mean(), 1 - y[test].mean())
    small = PropositionalSVC(formula="a & b & c & d", C=0.1).fit(X[train], y[train])
    assert len(set(small.predict(X[test]))) == 1  # the silent failure: one class whatever the row
    chosen = PropositionalSVC(formula="a & b & c & d", random_state=0).fit(X[train], y[train])
    assert chosen.C_ > 0.1 and np.mean(chosen.predict(X[test]) == y[test]) > majority + 0.3


def test_a_rule_list_of_constant_columns_is_its_default_alone():
    X = np.ones((20, 3))
    y = np.array([0] * 12 + [1] * 8)
    model = RuleList(random_state=0).fit(X, y)
    assert model.n_rules_ == 0 and str(model) == "always 0" and set(model.predict(X)) == {0}
    with pytest.raises(interp.InputError, match="at least one binary column"):
        RuleList().fit(np.zeros((5, 0)), np.arange(5) % 2)


def test_numeric_columns_read_as_round_thresholds_in_the_rules():
    """A numeric column is cut where a person would cut it (``age>=50``, as the Facets cards
    do), not at a raw quantile (``worst_texture>30.365``), and each rule reads so."""
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"age": rng.uniform(18, 90, 400), "income": rng.lognormal(10, 1, 400)})
    y = ((frame["age"] >= 50) & (frame["income"] >= 20000)).astype(int)
    est = PropositionalSVC(formula="a & b", C=1.0, binarize="auto", random_state=0).fit(frame, y)
    names = list(est.binarizer_.get_feature_names_out())
    assert all(re.fullmatch(r"(age|income)>=\d+", name) for name in names), names
    text = str(est.rule_model_)
    thresholds = re.findall(r"(?:age|income)>=([\d.e+]+)", text)
    assert thresholds and all(len(t.rstrip("0")) <= 2 for t in thresholds), text


def test_prefix_accuracies_are_each_prefix_read_row_by_row():
    """The accuracy of every prefix of a list, computed at once from the deciding rule and the
    class counts left, is each prefix applied to each row in turn."""
    from interp_propositional.rulelist import _prefix_accuracy

    rng = np.random.default_rng(5)
    for _ in range(300):
        n, p, k = int(rng.integers(1, 25)), int(rng.integers(1, 6)), int(rng.integers(2, 4))
        B = rng.random((n, p)) < 0.5
        codes = rng.integers(0, k, n)
        rules = [(list(rng.choice(p, int(rng.integers(1, 3)))), int(rng.integers(0, k)))
                 for _ in range(int(rng.integers(0, 5)))]
        defaults = list(rng.integers(0, k, len(rules) + 1))
        max_rules = int(rng.integers(0, 7))
        expected = []
        for j in range(max_rules + 1):
            prefix = rules[:j]
            default = defaults[min(j, len(rules))]
            pred = [next((label for chosen, label in prefix if B[row, chosen].all()), default) for row in range(n)]
            expected.append(np.mean(np.array(pred) == codes))
        np.testing.assert_allclose(_prefix_accuracy(B, codes, rules, defaults, max_rules), expected)
