"""Round numbers in the printed formula (``tidy``): arguments, weights and the intercept."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from interp_symbolic import SymbolicPursuitRegressor
from interp_symbolic.closed_forms import builtin_closed_forms
from interp_symbolic.expression import direction, printed_fold
from interp_symbolic.families import PAPER_FAMILIES, Ridge
from interp_symbolic.model import Model, Rows, design, mse, solved
from interp_symbolic.render import model_formula
from interp_symbolic.simplify import loss_budget
from interp_symbolic.terms import Term
from interp_symbolic.tidy import Scaling, _with_printed_argument, quantum, round_weights, tidy_arguments

FORMS = {f.name: f for f in builtin_closed_forms()}


@pytest.mark.parametrize("f, formula, argument", [
    (lambda X: np.exp(-(2 * X.a + X.c) / 2), "f(x) = exp(-u1)", "u1 = a + 0.5*c"),
    (lambda X: 1 / (1 + X.a + X.b + X.c), "f(x) = 1/(u1 + 1)", "u1 = a + b + c"),
    (lambda X: np.log(1 + X.a + 2 * X.b), "f(x) = log(u1 + 1)", "u1 = 2*b + a"),
], ids=["exp", "inverse", "log"])
def test_exact_black_boxes_print_with_round_numbers_only(f, formula, argument):
    """The issue's example prints as the function it is, no digit least squares left behind."""
    X = pd.DataFrame(np.random.default_rng(0).uniform(size=(500, 4)), columns=list("abcd"))
    est = SymbolicPursuitRegressor(random_state=0).fit(X, f(X))
    main, line = model_formula(est).text.splitlines()
    assert main == formula
    assert line.startswith(argument + "   for u1 in [")
    np.testing.assert_allclose(est.predict(X), f(X), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(est.numpy_function()(X.to_numpy()), est.predict(X), rtol=1e-8)


def _scaled_rows(n=300, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 5, size=(n, d)) * rng.uniform(0.5, 20, size=d)
    lo, span = X.min(0), np.ptp(X, axis=0)
    return (X - lo) / span, Scaling(lo, span)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-3, 3).filter(lambda v: abs(v) > 1e-3), min_size=3, max_size=3),
       st.floats(-2, 2), st.integers(0, 5))
def test_a_printed_argument_is_set_exactly(c, c0, seed):
    """The term ``_with_printed_argument`` builds prints (``direction``) the c and c_0 asked for,
    and evaluates c . x + c_0 on the unscaled rows."""
    Xs, scaling = _scaled_rows(seed=seed)
    term = _with_printed_argument(Term(Ridge(FORMS["power"]), [1.0], [1, 1, 1], 1.0), np.array(c), c0, scaling)
    got, got0 = direction(term, scaling.data_min, scaling.data_range)
    np.testing.assert_allclose(got, c, rtol=1e-12)
    assert abs(got0 - c0) <= 1e-12 * (1 + float(np.abs(c) @ np.abs(scaling.data_min)))
    X = Xs * scaling.data_range + scaling.data_min
    np.testing.assert_allclose(term.linear(Xs), X @ np.array(c) + c0, rtol=1e-9, atol=1e-9 * np.abs(X @ c).max())


def _fitted_model(seed):
    """Two closed-form terms and a Meijer G term least-squares fitted to a noisy target."""
    Xs, scaling = _scaled_rows(seed=seed)
    rng = np.random.default_rng(seed)
    t = np.exp(-Xs @ [1.0, 0.5, 0.02]) + 0.3 * np.sqrt(Xs @ [0.01, 1, 1] + 0.01) + 0.01 * rng.standard_normal(len(Xs))
    meijer = Ridge(PAPER_FAMILIES[1])
    terms = [Term(Ridge(FORMS["exp"]), [-1.7], [1.0, 0.5, 0.02], 1.0),
             Term(Ridge(FORMS["power"]), [0.5], [0.01, 1.0, 1.0], 1.0),
             Term(meijer, meijer.init, [0.3, 0.2, 0.1], 1.0)]
    return solved(terms, design(terms, Xs), t), Rows(Xs, t), scaling


@pytest.mark.parametrize("seed", range(4))
def test_tidy_arguments_stays_within_the_budget_and_leaves_meijer_terms(seed):
    model, fit, scaling = _fitted_model(seed)
    tidy = tidy_arguments(model, fit, 0.01, scaling)
    before = mse(model, design(model.terms, fit.Xs), fit.t)
    after = mse(tidy, design(tidy.terms, fit.Xs), fit.t)
    assert after <= loss_budget(before, float(np.var(fit.t)), 0.01) * (1 + 1e-12)
    old, new = model.terms[2], tidy.terms[2]
    assert (new.gain, new.shift) == (1.0, 0.0) and np.array_equal(new.v, old.v)
    changed = [(tm.gain, tm.shift) != (1.0, 0.0) for tm in tidy.terms[:2]]
    assert any(changed)
    for tm, was in zip(tidy.terms[:2], model.terms):
        if (tm.gain, tm.shift) == (1.0, 0.0):
            continue
        c, c0 = direction(tm, scaling.data_min, scaling.data_range)
        printed = np.append(*printed_fold(tm).numbers(tm.projection, c, c0))
        kept = np.allclose(c, direction(was, scaling.data_min, scaling.data_range)[0], rtol=1e-12)
        # the numbers printed are round: on a grid of the largest coefficient's 4th digit (or the
        # coefficients kept as fitted, the constant 0)
        grid = 10.0 ** (np.floor(np.log10(np.max(np.abs(printed[:-1])))) - 3)
        steps = printed / grid
        assert (kept and c0 == 0) or np.allclose(steps, np.round(steps), atol=1e-6), printed


def test_round_weights_finds_a_target_without_intercept_and_whole_weights():
    """t = 2 g exactly: the intercept rounds to 0 and the weight to 2, the loss stays 0."""
    x = np.random.default_rng(1).uniform(0.1, 1, 200)
    term = Term(Ridge(FORMS["power"]), [0.5], [1.0], 1.0)
    G = np.sqrt(x)[:, None]
    t = 2 * np.sqrt(x)
    noisy = Model((term.with_weight(2.0000004),), 3e-7)
    out = round_weights(noisy, G, t, 0.01)
    assert out.intercept == 0.0 and out.terms[0].weight == 2.0


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.floats(-50, 50), st.floats(0.01, 1.0))
def test_round_weights_rounds_within_the_budget(seed, intercept, noise):
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.05, 1, 150)
    G = np.column_stack([x, np.exp(-x)])
    t = intercept + G @ rng.uniform(-5, 5, 2) + noise * rng.standard_normal(len(x))
    terms = [Term(Ridge(FORMS["power"]), [1.0], [1.0], 1.0), Term(Ridge(FORMS["exp"]), [-1.0], [1.0], 1.0)]
    model = solved(terms, G, t)
    out = round_weights(model, G, t, 0.01)
    assert mse(out, G, t) <= loss_budget(mse(model, G, t), float(np.var(t)), 0.01) * (1 + 1e-12)
    assert all(tm.v is old.v and tm.theta is old.theta for tm, old in zip(out.terms, model.terms))


def test_quantum_is_the_unit_of_the_last_kept_digit():
    assert quantum(0.9949, 1) == 0.1 and quantum(0.9949, 2) == 0.01
    assert quantum(15.37, 1) == 10 and quantum(15.37, 3) == pytest.approx(0.1)


def test_a_term_pickled_before_gain_and_shift_reads_as_fitted():
    term = Term(Ridge(FORMS["power"]), [1.0], [0.3, 0.4], 2.0)
    del term.gain, term.shift  # what unpickling a term of the previous version gives
    Xs = np.random.default_rng(0).uniform(size=(10, 2))
    np.testing.assert_allclose(term.linear(Xs), Xs @ [0.3, 0.4] / (0.5 * np.sqrt(2)))
    assert term.with_weight(1.0).gain == 1.0
