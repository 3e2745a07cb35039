"""Sparser directions (``sparsify.sparser_models``) and the table's rule for keeping them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from interp_symbolic import SymbolicPursuitRegressor
from interp_symbolic.closed_forms import builtin_closed_forms
from interp_symbolic.estimator import _undominated
from interp_symbolic.families import PAPER_FAMILIES, Ridge
from interp_symbolic.model import Model, Rows, design, mse, solved
from interp_symbolic.sparsify import LADDER, sparser_models
from interp_symbolic.terms import Term, evaluate_term

FORMS = {f.name: f for f in builtin_closed_forms()}
NAMES = list("abcdef")


def _rows(n=400, d=6, seed=0):
    return np.random.default_rng(seed).uniform(size=(n, d))


def _model(terms, Xs, t) -> Model:
    return solved(terms, design(terms, Xs), t)


def test_the_two_features_that_matter_of_six_are_a_row_of_their_own():
    """exp(-(2a + c + 0.1(b + d + e + f))/2): the pursuit's term reads all six features (the
    small ones are worth more than simplification's 1%); the table also has the model of a and
    c alone, their ratio kept, shorter and still at held-out R^2 >= 0.99."""
    X = pd.DataFrame(_rows(), columns=NAMES)
    y = np.exp(-(2 * X.a + X.c + 0.1 * (X.b + X.d + X.e + X.f)) / 2)
    est = SymbolicPursuitRegressor(max_terms=1, n_restarts=1, maxiter=60, random_state=0).fit(X, y)
    table = est.equations_
    assert table["n_features"].iloc[0] == 6 and table["r2"].iloc[0] >= 0.9999
    two = table[table["n_features"] == 2]
    assert len(two) == 1 and two["r2"].iloc[0] >= 0.99
    assert two["complexity"].iloc[0] < table["complexity"].iloc[0]
    assert {str(s) for s in two["sympy"].iloc[0].free_symbols} == {"a", "c"}
    u = two["formula"].iloc[0].splitlines()[1]  # u1 = 2*a + c   for u1 in [...]
    linear = sympy.parse_expr(u.split("=")[1].split(" for ")[0])
    a, c = sympy.symbols("a c")
    np.testing.assert_allclose(float(linear.coeff(a) / linear.coeff(c)), 2.0, rtol=0.01)
    assert "exp(-u1)" in two["formula"].iloc[0]  # the snapped exponent stays pinned


def _two_term_model():
    """u^(1/2) of a dense direction and a Meijer G term (meijer_1002) of another, on six
    features, fitted by hand (no pursuit) to a target they explain in part."""
    Xs = _rows(seed=1)
    t = np.sqrt(Xs @ [3, 1, 0.5, 0.2, 0.1, 0.05]) + np.sin(Xs @ [0.1, 2, 0.3, 0, 1, 0.2])
    power = Term(Ridge(FORMS["power"]), [0.5], [3, 1, 0.5, 0.2, 0.1, 0.05], 1.0)
    meijer = Ridge(PAPER_FAMILIES[0])
    wave = Term(meijer, meijer.init, [0.1, 2, 0.3, 0.01, 1, 0.2], 1.0)
    return _model([power, wave], Xs, t), Rows(Xs, t)


@pytest.fixture(scope="module")
def path():
    model, fit = _two_term_model()
    return model, fit, sparser_models(model, fit, maxiter=40)


def test_rungs_follow_the_ladder_and_cut_nested_supports(path):
    model, fit, rungs = path
    assert [max(np.count_nonzero(tm.v) for tm in r.terms) for r in rungs] == [5, 3, 2, 1]
    assert [m for m in LADDER if m < 6][::-1] == [5, 3, 2, 1]
    previous = model
    for rung in rungs:
        for before, after in zip(previous.terms, rung.terms):
            assert set(np.flatnonzero(after.v)) <= set(np.flatnonzero(before.v))  # zeros stay zero
            kept = np.flatnonzero(after.v)
            largest = np.argsort(-np.abs(before.v), kind="stable")[:len(kept)]
            assert set(kept) == set(largest)  # the largest coefficients of the rung above are kept
        previous = rung


def test_rungs_pin_snapped_exponents_and_the_meijer_shape(path):
    model, _, rungs = path
    p_q = sum(PAPER_FAMILIES[0].orders[2:])
    for rung in rungs:
        power, wave = rung.terms
        assert power.theta[0] == 0.5
        np.testing.assert_array_equal(wave.theta[:p_q], model.terms[1].theta[:p_q])


def test_a_rung_refits_better_than_cutting_alone(path):
    """Each cut term is refitted: no worse than the same cut with nothing refitted, the weight
    and offset being optimal in both (brute force: ``evaluate_term`` at the cut direction)."""
    model, fit, rungs = path
    previous = model
    for rung in rungs:
        G = design(previous.terms, fit.Xs)
        w = np.array([tm.weight for tm in previous.terms])
        for k, (before, after) in enumerate(zip(previous.terms, rung.terms)):
            if np.count_nonzero(before.v) == np.count_nonzero(after.v):
                continue
            residual = fit.t - previous.intercept - (G @ w - G[:, k] * w[k])
            cut = np.where(after.v != 0, before.v, 0.0)
            only_cut = evaluate_term(before.ridge, before.theta, cut, fit.Xs, residual)
            refitted = evaluate_term(after.ridge, after.theta, after.v, fit.Xs, residual)
            assert refitted.loss <= only_cut.loss * (1 + 1e-12)
            break  # the later terms face a residual the refit of this one changed
        previous = rung


def test_the_weights_of_every_rung_are_least_squares(path):
    _, fit, rungs = path
    for rung in rungs:
        G = design(rung.terms, fit.Xs)
        A = np.column_stack([np.ones(len(fit.t)), G])
        best, *_ = np.linalg.lstsq(A, fit.t, rcond=None)
        assert mse(rung, G, fit.t) <= np.mean((fit.t - A @ best) ** 2) * (1 + 1e-9)


def test_a_model_of_one_feature_per_term_has_no_rungs():
    Xs = _rows(d=3)
    term = Term(Ridge(FORMS["power"]), [1.0], [0.0, 2.0, 0.0], 1.0)
    assert sparser_models(_model([term], Xs, Xs[:, 1]), Rows(Xs, Xs[:, 1]), maxiter=10) == []


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_undominated_matches_brute_force(data):
    n = data.draw(st.integers(1, 7))
    costs = np.array(data.draw(st.lists(st.lists(st.integers(0, 4), min_size=2, max_size=2), min_size=n, max_size=n)),
                     dtype=float)
    losses = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, np.inf]), min_size=n, max_size=n)))
    own = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    want = []
    for i in range(n):
        beaten = any(np.all(costs[j] <= costs[i]) and losses[j] <= losses[i]
                     and (np.any(costs[j] < costs[i]) or losses[j] < losses[i] or j < i) for j in range(n))
        want.append(bool(own[i]) or not beaten)
    assert _undominated(costs, losses, own).tolist() == want
