"""Rules from a trained SVC: exact weights reproduce the decision function."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sklearn.svm import SVC

from interp_propositional import (
    PropositionalKernel,
    PropositionalSVC,
    explain_svc,
    feature_weights,
    propositional_kernel,
)

from .propositional_helpers import brute_features, random_binary


@pytest.mark.parametrize("normalize", [False, True])
def test_feature_weights_reproduce_the_decision_function(normalize):
    rng = np.random.default_rng(0)
    X = random_binary(rng, 40, 4)
    y = ((X[:, 0] > 0) & (X[:, 1] < 1)) | (X[:, 3] > 0)
    formula = "(a & ~b) | c"
    svm = SVC(kernel=PropositionalKernel(formula, normalize=normalize), C=5).fit(X, y)
    sv = X[svm.support_]
    coef = svm.dual_coef_[0]
    phi_sv = brute_features(formula, sv)
    if normalize:  # a zero vector x has no logical features (k(x, x) = 0): weight 0
        d = np.diag(propositional_kernel(formula, sv))
        coef = np.where(d > 0, coef / np.sqrt(np.where(d > 0, d, 1)), 0.0)
    W = feature_weights(formula, sv, coef)
    assert np.allclose(W, coef @ phi_sv)  # ordering: leaf 0 most significant
    Xt = random_binary(rng, 15, 4)
    Xt = Xt[Xt.sum(axis=1) > 0]
    phi = brute_features(formula, Xt).astype(float)
    if normalize:
        phi /= np.sqrt(np.diag(propositional_kernel(formula, Xt)))[:, None]
    np.testing.assert_allclose(phi @ W + svm.intercept_[0], svm.decision_function(Xt), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("formula", ["a", "~a", "a & b", "a | b", "a ^ b", "a <-> b", "(a & ~b) | c", "a ^ b ^ c",
                                     "nimp(a, b) | (c & d)", "~(a | b | c)"])
def test_feature_weights_equal_every_feature_summed_row_by_row(formula, monkeypatch):
    """The weights read off the truth table (mostly-true formulas as all minus the false
    rows, zero coefficients skipped, rows in several chunks) are each feature evaluated on
    each row and summed: repeated variables, xor and negations included."""
    import interp_propositional.explain as explain

    rng = np.random.default_rng(3)
    X = random_binary(rng, 30, 5)
    coef = rng.normal(size=30) * (rng.random(30) < 0.7)
    expected = coef @ brute_features(formula, X)
    np.testing.assert_allclose(feature_weights(formula, X, coef), expected, atol=1e-12)
    monkeypatch.setattr(explain, "_CHUNK", 125)  # a handful of rows per chunk
    np.testing.assert_allclose(feature_weights(formula, X, coef), expected, atol=1e-12)


def test_top_rules_recover_the_labelling_rule():
    n = 6
    X = np.array(list(itertools.product([0, 1], repeat=n)), dtype=float)
    y = ((X[:, 1] > 0) & (X[:, 4] < 1)) | (X[:, 2] > 0)
    names = [f"v{i}" for i in range(n)]
    est = PropositionalSVC(formula="(a & ~b) | c", C=1e4).fit(X, y)
    rules, exact = est.explain(top=3, feature_names=names)
    assert exact
    assert rules[0].rule in ("(v1 & ~v4) | v2", "v1 & ~v4 | v2")
    assert rules[0].supports == "True" and rules[0].weight > 0
    # the local search (forced) finds the same best rule on this small space
    svc = est.svc_
    search, exact = explain_svc(svc, X, formula=est.formula_, normalize=True, feature_names=names,
                                top=3, max_enumerate=0, restarts=10, random_state=0)
    assert not exact and search[0].rule == rules[0].rule
    assert search[0].weight == pytest.approx(rules[0].weight, rel=1e-12)


def test_rules_are_distinct_and_sorted():
    rng = np.random.default_rng(1)
    X = random_binary(rng, 50, 5)
    y = X[:, 0] * X[:, 1] > 0
    svm = SVC(kernel=PropositionalKernel("a & b"), C=10).fit(X, y)
    rules, exact = explain_svc(svm, X, feature_names=list("pqrst"), top=6)
    weights = [abs(r.weight) for r in rules]
    assert weights == sorted(weights, reverse=True)
    texts = [r.rule for r in rules]
    assert len(set(texts)) == len(texts)
    assert "p & q" in texts[:2] or "q & p" in texts[:2]
    # "p & q" and "q & p" are the same feature on the data: only one is shown
    assert not ("p & q" in texts and "q & p" in texts)


def test_near_duplicate_rules_are_shown_once():
    from interp_propositional import top_rules

    rng = np.random.default_rng(0)
    X = (rng.random((100, 4)) < 0.5).astype(float)
    X[:, 3] = X[:, 2]
    X[0, 3] = 1 - X[0, 2]  # x3 differs from x2 on 1 row of 100
    coef = np.where(X[:, 2] > 0, 1.0, -1.0)
    both = [r.rule for r in top_rules("a", X, coef, top=4, near=0.0).rules]
    once = [r.rule for r in top_rules("a", X, coef, top=4, near=0.02).rules]
    assert {"x2", "x3"} <= set(both)
    assert len({"x2", "x3"} & set(once)) == 1 and len(once) == len(both) - 1


def test_rules_always_true_or_false_on_the_rows_are_left_out():
    from interp_propositional import evaluate, top_rules

    rng = np.random.default_rng(1)
    X = (rng.random((80, 4)) < 0.5).astype(float)
    coef = rng.normal(size=80)
    found = top_rules("a | ~b", X, coef, top=12, near=0.0)
    assert len(found.rules) == 12
    for rule in found.rules:
        columns = [int(v[1:]) for v in rule.variables]
        values = evaluate("a | ~b", [X[:, c].astype(bool) for c in columns])
        assert values.any() and not values.all(), rule.feature  # x | ~x is true on every row
