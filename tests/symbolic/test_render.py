"""The printed formula: Slater's hypergeometric names for a Meijer G, the u definitions with
their domains, 4 significant digits, the classifier's link, and the explanation's new parts."""

import json
import re

import mpmath
import numpy as np
import pandas as pd
import pytest
import sympy
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import interp
from interp import RidgeFamily
from interp_symbolic import SymbolicPursuitClassifier, SymbolicPursuitRegressor, explain_blackbox
from interp_symbolic.hypergeometric import Z, TextPrinter, hypergeometric_form
from interp_symbolic.render import formula_complexity, headline, model_formula, one_line

CONFIGS = [(1, 0, 0, 2), (0, 1, 3, 1), (2, 1, 2, 3), (2, 2, 3, 3), (2, 0, 1, 3)]
FORBIDDEN = re.compile(r"meijerg|exp_polar|hyper\(|Min\(|Max\(|\bI\b")
NUMBER = re.compile(r"(?<![\w.])(\d+\.?\d*(?:e[+-]?\d+)?)", re.IGNORECASE)
FAST = dict(n_restarts=1, maxiter=60, random_state=0, simplify=False)


class ExpDecay(RidgeFamily):
    """g(u) = exp(-k u): a custom family that prints through its ``expression``."""

    name = "test_exp_decay"
    init_theta = (1.0,)

    def value(self, theta, u):
        return np.exp(-theta[0] * u)

    def gradient(self, theta, u):
        g = np.exp(-theta[0] * u)
        return (-u * g)[None, :], -theta[0] * g

    def expression(self, theta, u):
        return sympy.exp(-sympy.Float(theta[0]) * u)


class _ExpDecayPlugin:
    @interp.hookimpl
    def register_ridge_families(self, register):
        register(ExpDecay())


def _slater_vs_mpmath(orders, params, fractions):
    m, n, p, q = orders
    a_s = [list(params[:n]), list(params[n:p])]
    b_s = [list(params[p:p + m]), list(params[p + m:p + q])]
    hi = 0.9 if p == q else 4.0 * fractions[0]
    lo = hi * fractions[1]
    form = hypergeometric_form(a_s, b_s, lo, hi)
    return a_s, b_s, lo, hi, form


# Parameters on a 1e-6 grid: one like 1e-235 vanishes from 1 - a in double precision (in our
# meijerg and the Slater sum alike), while mpmath keeps the G-function's 1e-235.
PARAMETER = st.floats(-1.5, 1.5).map(lambda v: round(v, 6))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(st.sampled_from(CONFIGS), st.lists(PARAMETER, min_size=6, max_size=6),
       st.lists(st.floats(0.05, 0.95), min_size=3, max_size=3))
def test_slater_form_equals_mpmath_meijerg(orders, params, fractions):
    """Wherever a G prints as pFq's, they equal mpmath's meijerg to 1e-8 at a point the check
    did not use; with first-group poles at least 0.05 from coincident and no two parameters an
    integer apart (a pFq's lower parameter 1 + b_h - b_j could then be a non-positive integer,
    which ``slater_sum`` refuses), the pFq form is used.  (Parameters where G is undefined,
    a_j - b_h a positive integer, are left out.)"""
    m, n = orders[:2]
    assume(not any(float(a - b).is_integer() and a - b > 0 for a in params[:n] for b in params[orders[2]:][:m]))
    a_s, b_s, lo, hi, form = _slater_vs_mpmath(orders, params, fractions)
    text = TextPrinter().doprint(form)
    assert not FORBIDDEN.search(text), text
    b1 = b_s[0]
    gaps = [abs(x - y - round(x - y)) for i, x in enumerate(b1) for y in b1[i + 1:]]
    used = params[:orders[2] + orders[3]]
    generic = all(abs(x - y - round(x - y)) > 1e-3 for i, x in enumerate(used) for y in used[i + 1:])
    if min(gaps, default=1.0) >= 0.05 and min(abs(v - round(v)) for v in used) > 1e-3 and generic:
        assert not form.has(sympy.meijerg), text
    if form.has(sympy.meijerg):
        assert text.startswith(f"G^{{{orders[0]},{orders[1]}}}_{{{orders[2]},{orders[3]}}}(")
        return
    z = lo + fractions[2] * (hi - lo)
    with mpmath.workdps(30):
        got = sympy.lambdify([Z], form, modules="mpmath")(mpmath.mpf(z))
        want = mpmath.meijerg(a_s, b_s, z)
    assert abs(complex(got).imag) == 0
    assert abs(float(mpmath.re(got)) - float(mpmath.re(want))) <= 1e-8 * abs(float(mpmath.re(want))) + 1e-300


def test_named_functions_and_g_notation():
    """exp and 2F1 appear by name; two coincident first-group poles print as G with real parameters."""
    assert TextPrinter().doprint(hypergeometric_form([[], []], [[0.0], []], 0.1, 2.0)) == "exp(-z)"
    assert TextPrinter().doprint(hypergeometric_form([[1.0, 1.0], []], [[1.0], [0.0]], 0.1, 0.5)) == \
        "z*2F1(1, 1; 2; -z)"
    g = TextPrinter().doprint(hypergeometric_form([[], [0.5]], [[1.0, 1.0], [0.2]], 0.1, 2.0))
    assert g == "G^{2,0}_{1,3}(; 0.5 | 1, 1; 0.2 | z)"


# ----------------------------------------------------------------------------- fitted models
def _numbers(text):
    return [m for m in NUMBER.findall(text)]


def _significant(token: str) -> int:
    mantissa = token.lower().split("e")[0].replace(".", "").lstrip("0")
    return len(mantissa)


def _times(c: float, name: str) -> str:
    """c*name as the formula prints it at 4 significant digits (1*a as a)."""
    shown = f"{c:.4g}"
    return {"1": name, "-1": f"-{name}"}.get(shown, f"{shown}*{name}")


@pytest.fixture(scope="module")
def exp_model():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.uniform(size=(300, 4)), columns=["a", "b", "c", "d"])
    y = np.exp(-(2 * X.a + X.c) / 2)
    interp.registry.register_plugin(_ExpDecayPlugin(), "test-render-families")
    try:  # (the registry is fresh for every test: a fitted model no longer needs it)
        est = SymbolicPursuitRegressor(max_terms=1, families=["test_exp_decay"], **FAST).fit(X, y)
    finally:
        interp.registry.unregister_plugin("test-render-families")
    return est, X


def test_a_custom_expression_prints_with_its_scale_folded_into_u(exp_model):
    est, X = exp_model
    tm = est.terms_[0]
    shown = model_formula(est)
    main, line = shown.text.splitlines()
    assert re.fullmatch(r"f\(x\) = -?[\d.e-]+ [+-] [\d.e-]+\*exp\(-u1\)", main), main
    k = tm.theta[0]
    c = k * tm.v / (np.linalg.norm(tm.v) * 2 * est.data_range_)  # sqrt(d) = 2
    order = np.argsort(-np.abs(c))
    m = re.fullmatch(r"u1 = (.*)   for u1 in \[(\S+), (\S+)\]", line)
    assert m, line
    expected = " + ".join(_times(c[j], "abcd"[j]) for j in order) + f" + {float(-c @ est.data_min_):.4g}"
    assert m.group(1) == re.sub(r"e-0(\d)", r"e-\1", expected).replace("+ -", "- ")
    lo, hi = tm.u_range
    assert float(m.group(2)) == pytest.approx(k * lo, rel=1e-3) and float(m.group(3)) == pytest.approx(k * hi, rel=1e-3)
    assert all(_significant(t) <= 4 for t in _numbers(shown.text)), shown.text
    # the 2:1 direction on a and c, found as the estimator's
    assert c[0] / c[2] == pytest.approx(2.0, rel=1e-2)
    assert est.closed_forms_ == [True]


def _parse_hyper(text: str) -> str:
    """``pFq(a; b; z)`` of the printed text as sympy's ``hyper([a], [b], z)``."""
    out, i = [], 0
    for m in re.finditer(r"\d+F\d+\(", text):
        if m.start() < i:
            continue
        depth, j = 1, m.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
        inner = _parse_hyper(text[m.end():j - 1])
        parts, depth, start = [], 0, 0
        for k, ch in enumerate(inner):
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if ch == ";" and depth == 0:
                parts.append(inner[start:k])
                start = k + 1
        parts.append(inner[start:])
        out.append(text[i:m.start()] + f"hyper([{parts[0]}], [{parts[1]}], {parts[2]})")
        i = j
    return "".join(out) + text[i:]


def _evaluate_printed(text: str, X: pd.DataFrame) -> np.ndarray:
    """The printed full-precision formula, read back from its text and evaluated with mpmath:
    each u clipped to its stated domain."""
    lines = text.splitlines()
    names = {n: sympy.Symbol(n) for n in X.columns}
    body = sympy.sympify(_parse_hyper(lines[0].split(" = ", 1)[1]), locals=names)
    defs = []
    for line in lines[1:]:
        m = re.fullmatch(r"(u\d+) = (.*)   for u\d+ in \[(\S+), (\S+)\]", line)
        defs.append((sympy.Symbol(m.group(1), positive=True), sympy.sympify(m.group(2), locals=names),
                     float(m.group(3)), float(m.group(4))))
    body = body.subs({sympy.Symbol(u.name): u for u, *_ in defs})
    f = sympy.lambdify([u for u, *_ in defs], body, modules="mpmath")
    out = []
    with mpmath.workdps(30):
        for _, row in X.iterrows():
            us = [min(hi, max(lo, float(lin.subs({names[n]: row[n] for n in X.columns})))) for _, lin, lo, hi in defs]
            out.append(float(mpmath.re(f(*us))))
    return np.array(out)


@pytest.mark.parametrize("family", ["meijer_2013", "meijer_2233", "meijer_1002"])
def test_printed_hypergeometric_form_equals_predict(family):
    """The printed text (full precision), read back and evaluated with mpmath, is ``predict``."""
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.uniform(size=(150, 3)), columns=["a", "b", "c"])
    y = np.log1p(X.a + 2 * X.b) + 0.3 * X.c
    est = SymbolicPursuitRegressor(max_terms=1, families=[family], **FAST).fit(X, y)
    full = model_formula(est, digits=None)
    assert not FORBIDDEN.search(full.text), full.text
    held_out = pd.DataFrame(rng.uniform(size=(12, 3)), columns=["a", "b", "c"])
    np.testing.assert_allclose(_evaluate_printed(full.text, held_out), est.predict(held_out), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(est.numpy_function()(held_out.to_numpy()), est.predict(held_out), rtol=1e-8)


@pytest.mark.parametrize("family, theta, printed, closed", [
    # hyperexpand's exp(-2u): the scale folds into u1, whose coefficients and domain double
    ("meijer_2123", [0.3, 0.1, 0.1, 0.0, 0.3, 2.0, 1.0], r"[\d.]+\*exp\(-u1\)", True),
    # two coincident first-group poles: no pFq sum, the G-function with its real parameters
    ("meijer_2013", [0.5, 1.0, 1.0, 0.2, 1.0, 1.0], re.escape("*G^{2,0}_{1,3}(; 0.5 | 1, 1; 0.2 | u1)"), False),
    # Slater's sum of G(2 u) with r = 1: z^b (2u)^b rebuilt in u1 = 2u, the pFq's argument -u1
    ("meijer_2013", [2.0, 1.0, 1.5, 0.5, 2.0, 1.0], re.escape("*u1**1.5*1F2(0.5; 1.5, 2; -u1)"), False),
])
def test_meijer_terms_print_as_closed_forms_or_in_g_notation(family, theta, printed, closed):
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.uniform(size=(80, 2)), columns=["a", "b"])
    est = SymbolicPursuitRegressor(max_terms=1, families=[family], **{**FAST, "maxiter": 5}).fit(
        X, np.exp(-(X.a + X.b)))
    tm = est.terms_[0]
    tm.theta = np.array(theta)
    est._set_expression()
    main, line = model_formula(est).text.splitlines()
    assert re.search(printed + "$", main), main
    assert not FORBIDDEN.search(main)
    lo, hi = (float(v) for v in re.search(r"in \[(\S+), (\S+)\]", line).groups())
    scale = theta[-2]
    assert (lo, hi) == pytest.approx((scale * tm.u_range[0], scale * tm.u_range[1]), rel=1e-3)
    assert est.closed_forms_ == [closed]
    np.testing.assert_allclose(est.numpy_function()(X.to_numpy()), est.predict(X), rtol=1e-8, atol=1e-12)


def test_complexity_counts_the_printed_formula(exp_model):
    """The operations of the printed text (read back by sympy): b + w*exp(-u1) and u1's definition."""
    est, X = exp_model
    main, line = model_formula(est, digits=None).text.splitlines()
    names = {n: sympy.Symbol(n) for n in X.columns}
    definition = re.fullmatch(r"u1 = (.*)   for u1 in \[.*\]", line).group(1)
    printed = sympy.count_ops(sympy.sympify(main.split(" = ")[1])) + sympy.count_ops(sympy.sympify(definition, names))
    assert formula_complexity(est) == printed and printed < sympy.count_ops(est.decision_expression_)


@pytest.mark.parametrize("text, count", [("sqrt(u + 1)", 2), ("1/sqrt(u)", 2), ("2*sqrt(u)*exp(u)", 4),
                                          ("u**(2/3)", 2), ("exp(-u)", 2), ("a + 0.5*c", 2)])
def test_a_square_root_is_one_operation_as_printed(text, count):
    """As gplearn counts sqrt; sympy's count_ops adds a division for the exponent's 1/2."""
    from interp_symbolic.render import operations

    assert operations(sympy.sympify(text)) == count


def test_a_table_row_reads_its_own_arguments():
    """The table of models by size prints each row on one line with its own u definitions (a
    sparser row reads other features than the selected model), without domains or notes."""
    from interp_symbolic.render import one_line

    text = "f(x) = 2*exp(-u1) + sin(u2)\nu1 = a + 0.5*c   for u1 in [0.02, 1.4]\nu2 = b   for u2 in [0, 1]\n" \
           "(1 constant below 1e-300 printed as 0)"
    assert one_line(text) == "f(x) = 2*exp(-u1) + sin(u2); u1 = a + 0.5*c; u2 = b"
    assert one_line("f(x) = 3") == "f(x) = 3"


def test_latex_and_mathml_say_the_same(exp_model):
    est, _ = exp_model
    shown = model_formula(est)
    assert shown.latex.startswith(r"f(x) = \begin{aligned}&") and r"e^{- u_{1}}" in shown.latex
    assert r"u_{1} = " in shown.latex and r"\in \left[" in shown.latex
    assert shown.mathml.count("<mtr>") == 2 and "<mtext>for</mtext>" in shown.mathml
    for printed in (shown.latex, shown.mathml, est.to_latex(), est.to_mathml()):
        assert not FORBIDDEN.search(printed) and "hyper" not in printed
    assert est.to_latex() == model_formula(est, digits=None).latex_right


def test_classifier_prints_its_link_and_definitions():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.uniform(size=(150, 2)), columns=["x1", "x2"])
    p = 1 / (1 + np.exp(-(4 * X.x1 - 2)))
    est = SymbolicPursuitClassifier(max_terms=1, families=["meijer_0131"], **FAST).fit(X, (p > 0.5).astype(int),
                                                                                       proba=p)
    shown = model_formula(est)
    main, link, line = shown.text.splitlines()
    assert main.startswith("f(x) = ") and "exp(-(" not in main  # the logit, as fitted
    assert link == "P(y=1) = 1/(1 + exp(-f(x)))"
    assert line.startswith("u1 = ") and " for u1 in [" in line
    assert shown.latex.startswith(r"f(x) = \begin{aligned}&") and r"\\ &P(y=1) = \frac{1}{1 + e^{-f(x)}} \\ &u_{1}" in shown.latex
    assert "<mfrac>" in shown.mathml and "<mtable" in shown.mathml and "<mi>P(y=1)</mi>" in shown.mathml
    assert headline(shown, 120) == f"{main}; {link}" and one_line(shown.text).startswith(f"{main}; {link}; u1 = ")


def test_explanation_shows_models_by_size_and_shapes_and_round_trips_json():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(160, 3))
    y = np.exp(-(X[:, 0] + 2 * X[:, 1])) + 0.1 * X[:, 2]
    res = explain_blackbox("gbm", X, y, feature_names=["a", "b", "c"], max_terms=2, n_restarts=1, maxiter=30,
                           random_state=0, simplify=False, families=["meijer_2123", "meijer_0131"])
    est = res.estimator
    table = next(s for s in res.sections if isinstance(s, interp.Table) and s.title.startswith("Models by size"))
    assert len(table.rows) == len(est.equations_)
    assert [row[0] for row in table.rows].count("*") == 1
    assert [row[0] for row in table.rows].index("*") == est.selected_
    assert table.rows[est.selected_][1] == est.n_terms_
    assert "shapes" in res.figures and any(isinstance(s, interp.Figure) and s.name == "shapes" for s in res.sections)
    records = res.payload["equations"]
    assert [r["n_terms"] for r in records] == list(est.equations_["n_terms"])
    assert [r["n_features"] for r in records] == list(est.equations_["n_features"])
    assert sum(r["selected"] for r in records) == 1 and all(isinstance(r["formula"], str) for r in records)
    data = json.loads(res.to_json())
    assert data["explanation"]["equations"] == records
    assert interp.Explanation.from_dict(data) == res
    assert "Models by size" in res.summary() and "u1 = " in res.summary()


LATEX_SPECIALS = ["a%b", "c&d", "e#f", "g_h_i", "j{k}", "l$m", "n\\o", "p^q", "r~s"]


def test_feature_names_with_latex_specials_are_escaped_text():
    """Each character LaTeX treats specially (% ends a line, & breaks an alignment, ...) is
    escaped inside \\text{...}; a plain name is left to sympy (x_1 as a subscript)."""
    from interp_symbolic.hypergeometric import LATEX_TEXT_ESCAPES, LatexPrinter

    printer = LatexPrinter()
    for name in LATEX_SPECIALS:
        out = printer.doprint(sympy.Symbol(name))
        assert out.startswith(r"\text{") and out.endswith("}")
        body = out[len(r"\text{"):-1]
        for escape in sorted(set(LATEX_TEXT_ESCAPES.values()), key=len, reverse=True):
            body = body.replace(escape, "")
        assert not set(body) & set("\\{}$&#%_^~"), (name, out)
    assert printer.doprint(sympy.Symbol("x_1")) == "x_{1}"


def test_a_fitted_formula_escapes_its_feature_names_in_latex():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.uniform(0.5, 1.5, size=(60, 3)), columns=["rate%", "a&b", "#n"])
    y = np.exp(-(X["rate%"] + 2 * X["a&b"]))
    est = SymbolicPursuitRegressor(max_terms=1, n_restarts=1, maxiter=20, families=["meijer_2123"],
                                   monomials=False, random_state=0).fit(X, y)
    latex = est.to_latex()
    assert r"\text{rate\%}" in latex and r"\text{a\&b}" in latex
    stripped = latex.replace(r"\%", "").replace(r"\&", "").replace(r"\#", "")
    assert "%" not in stripped and "#" not in stripped and "a&b" not in stripped


HOSTILE_LABEL = r"\newwrite\x\immediate\openout\x=pwned.tex\immediate\write\x{pwned}\immediate\closeout\x"


def test_a_class_label_reaches_latex_and_mathml_escaped():
    """A positive class named with TeX commands is text in every LaTeX and MathML output: no
    backslash or brace of the label survives unescaped (pdflatex would run it)."""
    from interp_symbolic.hypergeometric import LATEX_TEXT_ESCAPES

    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(80, 2))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=80) > 0, HOSTILE_LABEL, "A")
    est = SymbolicPursuitClassifier(max_terms=1, n_restarts=1, maxiter=20, families=["meijer_2123"],
                                    random_state=0).fit(X, y)
    assert est.classes_[1] == HOSTILE_LABEL
    escaped = r"P(y=\text{" + "".join(LATEX_TEXT_ESCAPES.get(c, c) for c in HOSTILE_LABEL) + "})"
    outputs = [est.latex(), est.latex_table(), model_formula(est).latex, *est.equations_["latex"].dropna()]
    for latex in outputs:
        assert escaped in latex and r"\newwrite" not in latex.replace(r"\textbackslash{}newwrite", "")
    assert "&lt;" not in model_formula(est).mathml and HOSTILE_LABEL not in model_formula(est).latex
    assert model_formula(est).text.splitlines()[1] == f"P(y={HOSTILE_LABEL}) = 1/(1 + exp(-f(x)))"


@pytest.mark.parametrize("name", ["beta", "xnorm", "pricebar", "alpha_1", "xdot", "mean_texture", "a_b_c", "x_2b"])
def test_a_feature_name_prints_as_written_not_as_sympy_reads_it(name):
    from interp_symbolic.hypergeometric import LatexPrinter, MathMLPrinter

    assert LatexPrinter().doprint(sympy.Symbol(name, real=True)) == r"\text{" + name.replace("_", r"\_") + "}"
    assert MathMLPrinter().doprint(sympy.Symbol(name, real=True)) == f"<mi>{name}</mi>"
    assert LatexPrinter().doprint(sympy.Symbol("q1", real=True)) == "q_{1}"  # a subscript reads as written


def test_a_feature_named_like_a_term_argument_renames_the_argument():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.uniform(0.5, 1.5, size=(60, 2)), columns=["u1", "v1"])
    y = np.exp(-(X["u1"] + 2 * X["v1"]))
    est = SymbolicPursuitRegressor(max_terms=1, n_restarts=1, maxiter=20, families=["meijer_2123"],
                                   monomials=False, random_state=0).fit(X, y)
    text = model_formula(est).text
    assert "\nw1 = " in text and "for w1 in [" in text and "\nu1 = " not in text, text


def test_a_column_with_an_underscore_prints_as_written_in_latex_mathml_and_plots():
    """``mean_texture`` is one name: never "mean" with the subscript "texture"."""
    from matplotlib.text import Text

    from interp_symbolic.plots import plot_shapes

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.uniform(1, 2, size=(120, 2)), columns=["mean_texture", "worst_area"])
    y = np.exp(-X.mean_texture) + 0.5 * X.worst_area
    est = SymbolicPursuitRegressor(max_terms=1, monomials=False, **FAST).fit(X, y)
    shown = model_formula(est)
    for latex in (shown.latex, est.to_latex(), est.latex()):
        assert r"\text{mean\_texture}" in latex and "mean_{" not in latex and "texture}" not in latex.replace(
            r"\text{mean\_texture}", "")
    for mathml in (shown.mathml, est.to_mathml()):
        assert "<mi>mean_texture</mi>" in mathml and "<msub><mi>mean</mi>" not in mathml
    fig = plot_shapes(est, X)
    texts = [t for t in fig.findobj(Text) if "texture" in t.get_text()]
    assert texts and all("mean_texture" in t.get_text() and not t.get_parse_math() for t in texts)
