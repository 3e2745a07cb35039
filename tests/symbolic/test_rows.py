"""Why a formula gives a row its value: terms and features that sum to the formula's output."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from interp_symbolic import SymbolicPursuitClassifier, SymbolicPursuitRegressor


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.uniform(0.5, 2.0, size=(200, 4)), columns=["a", "b", "c", "ignored"])
    y = np.exp(-X.a) + 0.5 * X.b * X.c
    reg = SymbolicPursuitRegressor(max_terms=2, n_restarts=1, maxiter=60, random_state=0).fit(X, y)
    labels = np.where(X.a - X.b + 0.2 * rng.standard_normal(200) > 0, "yes", "no")
    clf = SymbolicPursuitClassifier(max_terms=1, n_restarts=1, maxiter=60, random_state=0).fit(X[["a", "b", "c"]],
                                                                                                 labels)
    return X, reg, clf


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6))
def test_terms_and_features_sum_to_the_formulas_output(fitted, seed):
    X, reg, clf = fitted
    rows = pd.DataFrame(np.random.default_rng(seed).uniform(0.3, 2.5, size=(5, 4)), columns=X.columns)
    for est, data, output in ((reg, rows, reg.predict(rows)), (clf, rows[["a", "b", "c"]],
                                                                clf.decision_function(rows[["a", "b", "c"]]))):
        for one, value in zip(est.for_rows(data), output):
            assert abs(one.output - value) <= 1e-9 * max(1, abs(value))
            assert abs(one.baseline + sum(one.contributions.values()) - value) <= 1e-9 * max(1, abs(value))
            assert abs(one.baseline + sum(p.value for p in one.pieces) - value) <= 1e-9 * max(1, abs(value))


def test_a_feature_the_formula_does_not_read_gets_zero(fitted):
    """The fitted formula is made to read no ``ignored`` (its coefficients set to 0 in every
    term's argument and prefactor): that feature's contribution is then exactly 0 on every row,
    and the others still sum to the output."""
    import copy

    X, reg, _ = fitted
    blind = copy.deepcopy(reg)
    for tm in blind.terms_:
        tm.v[3] = 0.0
        if tm.prefactor is not None:
            tm.prefactor.exponents[3] = 0.0
    blind.baseline_ = blind._baseline()  # the formula's value at the baseline row, as fit sets it
    for one, value in zip(blind.for_rows(X.iloc[:20]), blind.predict(X.iloc[:20])):
        assert one.contributions["ignored"] == 0
        assert abs(one.baseline + sum(one.contributions.values()) - value) <= 1e-9 * max(1, abs(value))
    assert one.baseline_name == "the formula at the training rows' mean"


def test_a_classifier_row_says_its_probability_and_class(fitted):
    X, _, clf = fitted
    (one,) = clf.for_rows(X[["a", "b", "c"]].iloc[:1])
    p = clf.predict_proba(X[["a", "b", "c"]].iloc[:1])[0, 1]
    assert one.outcome == f"P(y=yes) = {p:.1%}; predict {clf.predict(X[['a', 'b', 'c']].iloc[:1])[0]}"
