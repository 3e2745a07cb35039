"""Large inputs: subsampled fits, chunked Meijer evaluation, and printable formulas."""

import re

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from interp_symbolic import SymbolicPursuitClassifier, explain_blackbox
from interp_symbolic import families as families_module
from interp_symbolic.families import PAPER_FAMILIES, Ridge
from interp_symbolic.printable import HUGE, TINY, printable
from interp_symbolic.render import model_formula

NUMBER = re.compile(r"(?<![\w.])(\d+\.?\d*(?:e[+-]?\d+)?)", re.IGNORECASE)


def _numbers(text):
    return [float(m) for m in NUMBER.findall(text)]


def _printable_numbers(text):
    return all(v == 0 or TINY <= v <= HUGE for v in _numbers(text))


def _data(n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 3))
    return X, np.exp(-(X[:, 0] + 2 * X[:, 1])) + 0.1 * X[:, 2]


def test_subsamples_above_the_row_limits_and_says_so():
    X, y = _data(200)
    res = explain_blackbox("gbm", X, y, max_terms=1, n_restarts=1, maxiter=20, random_state=0,
                           families=["meijer_0131"], max_fit_rows=40, max_blackbox_rows=60)
    assert res.metrics["n_train"] == 150 and res.metrics["n_fit"] == 40 and res.metrics["n_test"] == 50
    note = res.sections[1].body
    assert "random 60 of the 150 training rows (--max-blackbox-rows)" in note
    assert "random 40 of the 150 training rows (--max-fit-rows)" in note
    assert "all 50 held-out rows" in note
    assert res.params["max_fit_rows"] == 40 and res.metrics["fidelity_r2"] > 0.5


def test_no_subsample_below_the_limits_is_the_full_fit():
    X, y = _data(80)
    options = dict(max_terms=1, n_restarts=1, maxiter=20, random_state=0, families=["meijer_0131"])
    full = explain_blackbox("gbm", X, y, **options)
    limited = explain_blackbox("gbm", X, y, max_fit_rows=60, max_blackbox_rows=60, **options)
    assert full.metrics["n_fit"] == full.metrics["n_train"] == 60
    assert "--max-fit-rows" not in full.sections[1].body
    assert full.payload["terms"] == limited.payload["terms"]


def test_a_fitted_black_box_is_not_said_to_be_subsampled():
    from sklearn.linear_model import LinearRegression

    X, y = _data(120)
    res = explain_blackbox(LinearRegression().fit(X, y), X, y, max_terms=1, n_restarts=1, maxiter=20,
                           random_state=0, families=["meijer_0131"], max_fit_rows=30, max_blackbox_rows=2)
    assert "--max-blackbox-rows" not in res.sections[1].body and "--max-fit-rows" in res.sections[1].body


@pytest.mark.parametrize("family", PAPER_FAMILIES, ids=lambda f: f.name)
def test_chunked_evaluation_matches_one_pass(family, monkeypatch):
    ridge = Ridge(family)
    u = np.random.default_rng(0).uniform(1e-3, 1.0, 250)
    whole = ridge.value(ridge.init, u), ridge.value_and_grad(ridge.init, u)
    monkeypatch.setattr(families_module, "EVAL_CHUNK", 64)
    chunked = ridge.value(ridge.init, u), ridge.value_and_grad(ridge.init, u)
    np.testing.assert_allclose(chunked[0], whole[0], rtol=1e-10, atol=1e-300)
    for got, want in zip(chunked[1], whole[1]):
        np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-12)


def test_extreme_constants_are_folded_or_dropped():
    x, z = sympy.symbols("x z", real=True)
    expr = (sympy.Float(1e-310) * x + sympy.Float(1.5e305) * sympy.meijerg([[], [1.0]], [[2.0], []], z)
            + sympy.Float(-1.2e302) * x * z + sympy.Float(2.5))
    shown = printable(expr)
    text = str(shown.expression)
    assert shown.dropped == 1 and _printable_numbers(text)
    assert "meijerg(((), (1.0,)), ((2.0,), ()), z)*exp(702.7)" in text and "-x*z*exp(695.6)" in text
    assert _printable_numbers(sympy.latex(shown.expression))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=3, max_size=3))
def test_any_double_constant_prints_in_range(constants):
    x, z = sympy.symbols("x z", real=True)
    c0, c1, c2 = (sympy.Float(c) for c in constants)
    expr = c0 + c1 * sympy.meijerg([[], [1.0]], [[2.0], []], sympy.Max(sympy.Float(1e-3), c2 * x + z))
    shown = printable(expr).expression
    assert _printable_numbers(str(shown)) and _printable_numbers(sympy.latex(shown))
    assert _printable_numbers(sympy.mathml(shown, printer="presentation"))


@pytest.fixture(scope="module")
def classifier():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(120, 2))
    p = 1 / (1 + np.exp(-(4 * X[:, 0] - 2)))
    return SymbolicPursuitClassifier(max_terms=1, n_restarts=1, maxiter=30, random_state=0, monomials=False,
                                     families=["meijer_0131"]).fit(X, (p > 0.5).astype(int), proba=p)


def test_classification_formula_is_written_with_its_link(classifier):
    shown = model_formula(classifier)
    main, link, definition = shown.text.splitlines()
    assert main.startswith("f(x) = ") and link == "P(y=1) = 1/(1 + exp(-f(x)))"
    assert definition.startswith("u1 = ") and "   for u1 in [" in definition
    assert shown.latex.startswith(r"f(x) = \begin{aligned}&") and r"P(y=1) = \frac{1}{1 + e^{-f(x)}}" in shown.latex
    assert "<mfrac>" in shown.mathml


def test_huge_intercept_never_prints_an_overflowed_constant(classifier):
    """The old output folded exp(-intercept) into one constant: 2.485e-1784 for an intercept near 4,100."""
    est = pickle_copy(classifier)
    est.intercept_ = 4100.0
    est.terms_[0].weight = -6219.0
    est._set_expression()
    text = model_formula(est).text
    assert "4100" in text and "6219" in text and _printable_numbers(text)
    assert _printable_numbers(model_formula(est, digits=None).text)
    assert _printable_numbers(est.to_latex()) and _printable_numbers(est.to_mathml())
    assert est.to_latex().startswith(r"\begin{aligned}&4100") and r"\frac{1}{1 + e^{-f(x)}}" in est.to_latex()


def pickle_copy(obj):
    import pickle

    return pickle.loads(pickle.dumps(obj))
