"""Notebook displays: an Explanation and every fitted estimator of the four methods show as
static HTML through the report's renderer (clean under ``interp.markup.audit``, with hostile
column names too), with a text fallback; an unfitted estimator keeps scikit-learn's display; and
the models saved by an older ``interp run --out`` display too."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator

from interp import Explanation, Formula, Table, Text, load_dataset
from interp.markup import audit
from interp.binarize import binarize_unless_binary
from interp.report import explanation_html
from interp_facets import FacetsClassifier, FacetsClassifierCV, FacetsRegressor, card_display
from interp_featurevec import FeatureVectors
from interp_propositional import PropositionalSVC
from interp_symbolic import SymbolicPursuitClassifier, SymbolicPursuitRegressor

from .exports_helpers import old_estimator

#: column names that would be markup, an attribute break-out or a terminal escape if shown raw
HOSTILE = ['<script>alert(1)</script>', '" onmouseover="alert(1)', "x\x1b[2J\x1b]0;title\x07",
           "</mi></math><img src=x onerror=alert(1)>"]

UNFITTED = [SymbolicPursuitRegressor(), SymbolicPursuitClassifier(), FacetsClassifier(), FacetsRegressor(),
            FacetsClassifierCV(), FeatureVectors(), PropositionalSVC()]


def _shown(est) -> tuple[str, str]:
    """(text/html, text/plain) as Jupyter gets them from ``est``."""
    bundle = est._repr_mimebundle_()
    assert bundle["text/html"] == est._repr_html_()  # the two ways a front end asks agree
    return bundle["text/html"], bundle["text/plain"]


def _assert_clean(page: str, plain: str = "") -> None:
    """The HTML passes the allow-list audit and holds the hostile names only as text; the text
    holds no terminal control character."""
    assert audit(page) == []
    for raw in ("<script", '" onmouseover="', "<img src=x"):
        assert raw not in page
    assert "\x1b" not in plain and "\x07" not in plain


@pytest.mark.parametrize("est", UNFITTED, ids=lambda e: type(e).__name__)
def test_an_unfitted_estimator_keeps_scikit_learns_display(est):
    bundle = est._repr_mimebundle_()
    assert bundle["text/plain"] == repr(est) == BaseEstimator._repr_mimebundle_(est)["text/plain"]
    assert "sk-top-container" in bundle["text/html"] and "interp-display" not in bundle["text/html"]


def test_an_explanation_displays_as_the_reports_section():
    exp = Explanation(plugin="demo", method="demo", metrics={"auc": 0.9},
                      sections=[Formula("f = <b>x</b>"), Table(("a", "b"), [(HOSTILE[0], 1)]), Text(HOSTILE[2])])
    assert exp._repr_html_() == explanation_html(exp)
    _assert_clean(exp._repr_html_())

    class Printer:  # what IPython hands _repr_pretty_
        def __init__(self):
            self.shown = []

        def text(self, value):
            self.shown.append(value)

    printer = Printer()
    exp._repr_pretty_(printer, cycle=False)
    assert printer.shown == [exp.summary()]


def _hostile_frame(n, seed=0) -> pd.DataFrame:
    return pd.DataFrame(np.random.default_rng(seed).uniform(0, 1, (n, len(HOSTILE))), columns=HOSTILE)


def test_symbolic_shows_the_formula_and_the_models_by_size_with_hostile_names():
    X = _hostile_frame(60)
    est = SymbolicPursuitRegressor(max_terms=1, n_restarts=1, maxiter=10, random_state=0).fit(
        X, np.exp(X.iloc[:, 0]) + X.iloc[:, 3])
    page, plain = _shown(est)
    _assert_clean(page, plain)
    assert 'class="formula"' in page and "Models by size" in page and "f(x) = " in plain
    assert "<mi>&lt;script&gt;alert(1)&lt;/script&gt;</mi>" in page  # the formula, its names as text
    assert "may read the strictly positive columns: <script>" in plain  # ... and the monomials' note


def test_symbolic_display_of_a_model_saved_by_an_older_run():
    est = old_estimator("symbolic_diabetes")
    page, plain = _shown(est)
    _assert_clean(page, plain)
    assert "besselj" in plain and "cos(u1)" in plain
    rows = page.split("Models by size")[1].split("</table>")[0].count("<tr>") - 1
    assert rows == len(est.equations_) and "<td>*</td>" in page


def test_facets_shows_the_card_with_its_risks_and_hostile_names():
    X = _hostile_frame(200, seed=1)
    X01 = (X > 0.5).astype(float)
    y = (X01.iloc[:, 0] + X01.iloc[:, 1] - X01.iloc[:, 2] + np.random.default_rng(3).normal(0, 0.6, 200) > 0.5)
    est = FacetsClassifier(lam=0.01, gamma=1.0, max_rows=3).fit(X01, y.astype(int))
    page, plain = _shown(est)
    _assert_clean(page, plain)
    assert "score card" in page and "risk of 1 by total" in plain and "predict 1 if total" in plain


def test_facets_card_display_of_the_pipeline_an_older_run_saved():
    model = old_estimator("facets_breast_cancer")
    shown = card_display(model)
    page = shown._repr_html_()
    _assert_clean(page)
    assert "worst_area &gt;= 500" in page and "risk of 1 by total" in page and "total 11: 92%" in page
    _assert_clean(*_shown(model[-1]))  # the estimator alone: its columns by number, no risks without ranges


def test_featurevec_shows_the_ranked_table_and_the_map():
    data = load_dataset("breast-cancer")
    X = pd.DataFrame(data.X[:, :4], columns=HOSTILE)
    est = FeatureVectors(n_paths=300, random_state=0).fit(X, data.y)
    page, plain = _shown(est)
    _assert_clean(page, plain)
    assert "<th>rank</th><th>feature</th><th>importance</th>" in page and 'src="data:image/png;base64,' in page
    frame = est.vectors_frame()
    assert list(frame.columns) == ["name", "x", "y", "length", "angle"]
    assert np.allclose(frame["length"], np.hypot(frame["x"], frame["y"]))
    assert np.allclose(frame["angle"], np.degrees(np.arctan2(frame["y"], frame["x"])))
    assert frame["length"].is_monotonic_decreasing and set(frame["name"]) == set(HOSTILE)


def test_propositional_shows_the_formula_and_its_rules():
    data = load_dataset("house-votes-84")
    features = binarize_unless_binary(data.X, data.feature_names, raw=data.raw)
    names = [HOSTILE[i % len(HOSTILE)] + str(i) for i in range(len(features.names))]
    est = PropositionalSVC(formula="a & ~b").fit(pd.DataFrame(features.X, columns=names), data.y)
    page, plain = _shown(est)
    _assert_clean(page, plain)
    assert "a &amp; ~b" in page and "top weighted features" in page and "supports" in page
    assert "rule model" in page and "else " in page
    rules = est.rules_frame(top=3)
    found = est.explain(top=3)
    assert rules["rule"].tolist() == [r.rule for r in found.rules]
    assert rules["weight"].tolist() == [r.weight for r in found.rules] and rules.attrs["exact"] == found.exact


@pytest.mark.parametrize("name", ["featurevec_breast_cancer", "propositional_house_votes", "symbolic_breast_cancer"])
def test_models_saved_by_an_older_run_display_and_give_their_frames(name):
    est = old_estimator(name)
    _assert_clean(*_shown(est))
    if name.startswith("featurevec"):
        assert est.vectors_frame()["name"].iloc[0] == "worst_concave_points"
    if name.startswith("propositional"):
        assert len(est.rules_frame()) == 5


def test_a_display_title_with_control_characters_shows_them_visibly():
    from interp.display import Display, display_text

    shown = display_text(Display(title="card of x\x1b]0;title\x07", sections=(Text("body"),)))
    assert "\x1b" not in shown and "\x07" not in shown and "x\\x1b]0;title\\x07" in shown
