"""Symbolic exports: any row of the models by size as sympy, LaTeX, a LaTeX table, and Python
source that runs where interp cannot be imported and gives the model's own numbers."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest
import sympy as sp

from interp import InputError, load_dataset
from interp_symbolic import SymbolicPursuitRegressor
from interp_symbolic.export import has_standalone_form

from ..exports_helpers import old_estimator, run_exported
from .test_pickle import third_party_families  # noqa: F401 - a fixture: a custom family registered


def _rows(dataset: str) -> pd.DataFrame:
    data = load_dataset(dataset)
    return pd.DataFrame(data.X, columns=list(data.feature_names))


def _close(got, want, rtol=1e-10):
    """Equal to ``rtol`` of the largest value (a prediction near 0 is compared at that scale)."""
    scale = max(np.max(np.abs(want)), 1e-300)
    return np.max(np.abs(np.asarray(got) - np.asarray(want))) <= rtol * scale


def test_the_exported_regressor_runs_without_interp_and_equals_predict(tmp_path):
    est = old_estimator("symbolic_diabetes")
    X = _rows("diabetes")
    out = run_exported(est.to_python(), X.to_numpy(), ["predict"], tmp_path)
    assert _close(out["predict"], est.predict(X))


def test_the_exported_classifier_gives_the_probability_of_the_positive_class(tmp_path):
    est = old_estimator("symbolic_breast_cancer")
    X = _rows("breast-cancer")
    source = est.to_python()
    assert "POSITIVE_CLASS = 1.0" in source and "scipy.special" in source
    out = run_exported(source, X.to_numpy(), ["predict"], tmp_path)
    assert _close(out["predict"], est.predict_proba(X)[:, 1])


def test_every_row_exports_what_its_expression_computes():
    """Each row's source, run here, against its sympy expression evaluated by mpmath at a few rows
    (an evaluation independent of the code printer)."""
    est = old_estimator("symbolic_diabetes")
    X = _rows("diabetes")
    sample = X.iloc[::110]
    symbols = {s.name: s for s in est.sympy().free_symbols}
    for i in range(len(est.equations_)):
        namespace: dict = {}
        exec(compile(est.to_python(i), f"row{i}", "exec"), namespace)  # noqa: S102 - our own export
        got = namespace["predict"](sample)
        expr = est.sympy(i)
        want = [float(expr.xreplace({symbols[c]: sp.Float(float(v)) for c, v in row.items() if c in symbols})
                      .evalf(30)) for _, row in sample.iterrows()]
        assert _close(got, want), i
    assert est.sympy() == est.expression_ and est.sympy(est.selected_) == est.expression_


def test_latex_of_any_row_and_the_latex_table():
    est = old_estimator("symbolic_diabetes")
    assert est.latex() == est.equations_["latex"].iloc[est.selected_] and est.latex(0).startswith("f(x) = ")
    assert est.latex(-1) == est.equations_["latex"].iloc[-1]
    table = est.latex_table()
    body = [line for line in table.splitlines() if line.endswith(r"\\")][1:]  # the header row first
    assert table.startswith(r"\begin{tabular}") and table.endswith(r"\end{tabular}")
    assert len(body) == len(est.equations_)
    assert [line.startswith(r"$\ast$") for line in body] == [i == est.selected_ for i in range(len(body))]


@pytest.mark.parametrize("index", [99, -99, 1.0, True, "best"])
def test_a_row_that_does_not_exist_is_one_line_of_input_error(index):
    est = old_estimator("symbolic_diabetes")
    with pytest.raises(InputError, match="index must be None"):
        est.to_python(index)


def test_a_meijer_g_term_is_refused_with_a_message_naming_it():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.uniform(0, 1, (80, 3)), columns=["a", "b", "c"])
    est = SymbolicPursuitRegressor(max_terms=1, n_restarts=1, maxiter=10, simplify=False, families=["meijer_0131"],
                                   random_state=0).fit(X, np.exp(X.a) + X.b**2)
    assert est.expression_.has(sp.meijerg)
    with pytest.raises(InputError, match=r"Meijer G-function G\^\{0,1\}_\{3,1\}\(.*scipy has no Meijer G"):
        est.to_python()


def test_a_custom_family_term_is_refused_with_its_family_named(third_party_families):
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.uniform(0, 1, (60, 2)), columns=["a", "b"])
    est = SymbolicPursuitRegressor(max_terms=1, n_restarts=1, maxiter=10, simplify=False,
                                   families=["test_quadratic_methods"], random_state=0).fit(X, X.a**2)
    with pytest.raises(InputError, match="custom ridge family 'test_quadratic_methods'"):
        est.to_python()


def test_a_constant_sympy_folded_beyond_the_doubles_is_written_back_as_an_exponent():
    """sympy folds exp(-(x + 800)) into 3.7e-348 * exp(-x), which is 0 as a double; the export
    writes exp(-x - 800) instead, and the logistic function of it stays what it is."""
    est = copy.deepcopy(old_estimator("symbolic_breast_cancer"))
    x = next(s for s in est.decision_expression_.free_symbols if s.name == "mean_radius")
    est.decision_expression_ = 1 - sp.exp(-(x + sp.Float(800.0)))
    assert any(float(c) == 0.0 for c in est.decision_expression_.atoms(sp.Float))  # sympy did fold it
    X = _rows("breast-cancer")
    X["mean_radius"] = np.linspace(-805, -795, len(X))
    namespace: dict = {}
    exec(compile(est.to_python(), "folded", "exec"), namespace)  # noqa: S102 - our own export
    want = 1 / (1 + np.exp(-(1 - np.exp(-(X["mean_radius"].to_numpy() + 800)))))
    assert _close(namespace["predict"](X), want)


def test_a_classifier_exports_its_logit_and_the_link_and_no_folded_constant(tmp_path):
    """A classifier whose logit has a large intercept (-400 + 402*x: sympy's sigmoid of it
    folds exp(400) into 5.2e+173) prints, exports to sympy and to Python as the logit f with
    1/(1 + exp(-f)) beside it; the exported code equals predict_proba."""
    from interp_symbolic import SymbolicPursuitClassifier
    from interp_symbolic.expression import logit_of
    from interp_symbolic.render import model_formula

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.uniform(0.99, 1.01, 200), "b": rng.uniform(size=200)})
    p = 1 / (1 + np.exp(-(-400 + 402 * X.a.to_numpy())))
    est = SymbolicPursuitClassifier(max_terms=1, n_restarts=1, maxiter=30, random_state=0).fit(X, p > 0.5, proba=p)
    f = est.sympy()
    assert f == est.decision_expression_ == est.equations_["sympy"].iloc[est.selected_]
    for expr in [*est.equations_["sympy"].dropna(), est.expression_]:  # the logit's own numbers, none folded
        assert all(abs(float(c)) < 1e6 for c in expr.atoms(sp.Float))
    text = model_formula(est).text
    assert text.splitlines()[1] == "P(y=True) = 1/(1 + exp(-f(x)))" and "e+1" not in text.splitlines()[0]
    source = est.to_python()
    assert "out = 1.0 / (1.0 + numpy.exp(-f))" in source
    out = run_exported(source, X.to_numpy(), ["predict"], tmp_path)
    assert _close(out["predict"], est.predict_proba(X)[:, 1])
    assert sp.simplify(logit_of(est.expression_) - f) == 0


def test_a_classifier_pickled_with_probabilities_in_its_table_gets_their_logits():
    """A classifier saved when ``equations_`` held each row's probability: each row's sympy is
    its logit after loading, equal to the row's probability through the link."""
    est = old_estimator("symbolic_breast_cancer")
    X = _rows("breast-cancer")
    assert est.sympy() == est.decision_expression_
    for i, f in enumerate(est.equations_["sympy"]):
        if f is None or not has_standalone_form(f):
            continue
        namespace: dict = {}
        exec(compile(est.to_python(i), f"row{i}", "exec"), namespace)  # noqa: S102 - our own export
        logit = sp.lambdify(sorted(f.free_symbols, key=str), f, modules=["scipy", "numpy"])
        values = logit(*[X[s.name].to_numpy() for s in sorted(f.free_symbols, key=str)])
        assert _close(namespace["predict"](X), 1 / (1 + np.exp(-values)), rtol=1e-8)


def test_hostile_feature_names_stay_strings_in_the_exported_source(tmp_path):
    hostile = ['a"""\nimport os  # ', "b')\nraise SystemExit(3)\n#", "c\x1b[2J"]
    rng = np.random.default_rng(2)
    X = pd.DataFrame(rng.uniform(0, 1, (60, 3)), columns=hostile)
    est = SymbolicPursuitRegressor(max_terms=1, n_restarts=1, maxiter=10, random_state=0).fit(X, np.exp(X.iloc[:, 0]))
    source = est.to_python()
    namespace: dict = {}
    exec(compile(source, "hostile", "exec"), namespace)  # noqa: S102 - our own export
    assert namespace["FEATURES"] == tuple(hostile)
    out = run_exported(source, X.to_numpy(), ["predict"], tmp_path)
    assert _close(out["predict"], est.predict(X))


@pytest.fixture(scope="module")
def kinds_of_terms():
    """One fitted model per kind of term argument, with the rows it was fitted on: a monomial
    (x1*x2/x3 on positive columns), a monomial times a monomial prefactor, and an unfloored
    linear argument (x1 - x2, negative on half of the rows)."""
    rng = np.random.default_rng(0)
    positive = pd.DataFrame(rng.uniform(1, 3, (200, 3)), columns=["x1", "x2", "x3"])
    signed = pd.DataFrame(rng.uniform(0, 1, (150, 2)), columns=["x1", "x2"])
    fast = dict(max_terms=1, n_restarts=1, random_state=0)
    return {
        "monomial": (SymbolicPursuitRegressor(maxiter=40, **fast).fit(positive, positive.x1 * positive.x2 / positive.x3),
                     positive),
        "prefactor": (SymbolicPursuitRegressor(maxiter=60, **fast).fit(
            positive, positive.x1 / np.sqrt(1 + positive.x2**2 / positive.x3**2)), positive),
        "unfloored": (SymbolicPursuitRegressor(maxiter=40, families=["meijer_0131"], monomials=False, **fast).fit(
            signed, signed.x1 - signed.x2), signed),
    }


def _kind(est) -> str:
    tm = est.terms_[0]
    return tm.projection.name + (" times a monomial" if tm.prefactor is not None else "")


@pytest.mark.parametrize("kind", ["monomial", "prefactor", "unfloored"])
def test_every_kind_of_term_exports_what_predict_computes_without_interp(kinds_of_terms, kind, tmp_path):
    """The exported function equals ``predict`` to 1e-10 in an interpreter without interp, on
    the training rows and on rows beyond them (a monomial's column at or below 0 is floored at
    its training minimum, every argument clipped to its training range, as in ``predict``)."""
    est, X = kinds_of_terms[kind]
    assert _kind(est) == {"monomial": "monomial", "prefactor": "monomial times a monomial",
                          "unfloored": "unfloored"}[kind]
    beyond = X.iloc[:20] * np.linspace(-1.5, 3, 20)[:, None]
    rows = pd.concat([X, beyond])
    out = run_exported(est.to_python(), rows.to_numpy(), ["predict"], tmp_path)
    assert np.all(np.isfinite(out["predict"]))
    assert _close(out["predict"], est.predict(rows))


@pytest.mark.parametrize("kind", ["monomial", "prefactor", "unfloored"])
def test_every_kind_of_term_prints_and_exports_each_row(kinds_of_terms, kind):
    """Each row of the models by size in closed forms exports what its sympy expression computes
    (mpmath, at 30 digits); its LaTeX is the table's; the display names the term's argument."""
    est, X = kinds_of_terms[kind]
    sample = X.iloc[::37]
    exported = 0
    for i in range(len(est.equations_)):
        try:
            source = est.to_python(i)
        except InputError as err:  # a Meijer G term: refused, named
            assert "Meijer G" in str(err)
            continue
        namespace: dict = {}
        exec(compile(source, f"row{i}", "exec"), namespace)  # noqa: S102 - our own export
        expr = est.sympy(i)
        symbols = {s.name: s for s in expr.free_symbols}
        want = [float(expr.xreplace({symbols[c]: sp.Float(float(v)) for c, v in row.items() if c in symbols})
                      .evalf(30)) for _, row in sample.iterrows()]
        assert _close(namespace["predict"](sample), want), i
        assert est.latex(i) == est.equations_["latex"].iloc[i]
        exported += 1
    assert exported >= 1 and est.selected_ is not None
    _, plain = est._repr_html_(), est._repr_mimebundle_()["text/plain"]
    assert _kind(est) in plain
