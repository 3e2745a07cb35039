"""Shape plots of a fitted symbolic pursuit model, read back from the figure and checked against
independent references: each term's curve against the model's own predictions along its
direction, the rug against the arguments recomputed from the unscaled rows, the bars against a
least-squares fit of the argument on the rows."""

from __future__ import annotations

import copy
import re

import matplotlib
import numpy as np
import pandas as pd
import pytest
import sympy

from interp import InputError, hookimpl, registry
from interp.testing import check_stands_alone
from interp_symbolic import SymbolicPursuitClassifier, SymbolicPursuitRegressor
from interp_symbolic.plots import TOP_WEIGHTS, plot_shapes
from interp_symbolic.render import model_formula

from .test_pickle import Quadratic as PickledQuadratic

FAST = dict(n_restarts=1, maxiter=30, random_state=0, families=["meijer_2123", "meijer_0131", "meijer_1002"])


class Quadratic(PickledQuadratic):
    """g(u) = a u + b u^2 (test_pickle's custom family) that also prints itself (``expression``)."""

    name = "test_plots_quadratic"
    init_theta = (1.0, 1.0)

    def expression(self, theta, u):
        return sympy.Float(theta[0]) * u + sympy.Float(theta[1]) * u**2


class _QuadraticPlugin:
    @hookimpl
    def register_ridge_families(self, register):
        register(Quadratic())


@pytest.fixture
def quadratic_family():
    registry.register_plugin(_QuadraticPlugin(), "test-plots-quadratic")
    yield Quadratic.name
    registry.unregister_plugin("test-plots-quadratic")


def _frame(n, d, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(rng.uniform(-1, 3, size=(n, d)), columns=[f"f{j}" for j in range(d)])


def _axes(fig):
    """The (shape axes, direction axes) pairs of the figure, one per term."""
    return list(zip(fig.axes[0::2], fig.axes[1::2]))


def _line(ax, gid):
    (line,) = [ln for ln in ax.lines if ln.get_gid() == gid]
    return np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)


def _check_figure(est, X):
    """Everything the figure shows, checked against the model's own predictions: the rug's u is
    linear in the rows with the bars' coefficients (least squares, where it is not clipped),
    and the term alone predicts the curve at rows whose u is the curve's abscissa."""
    fig = plot_shapes(est, X)
    assert isinstance(fig, matplotlib.figure.Figure)
    Xv = np.asarray(X, dtype=float)
    names = list(getattr(est, "feature_names_in_", [f"x{j + 1}" for j in range(Xv.shape[1])]))
    assert len(fig.axes) == 2 * len(est.terms_)
    for tm, (ax, bx) in zip(est.terms_, _axes(fig)):
        grid, values = _line(ax, "shape")
        rug, _ = _line(ax, "rug")
        lo, hi = grid[0], grid[-1]
        assert rug.min() >= lo - 1e-12 and rug.max() <= hi + 1e-12
        inside = (rug > lo + 1e-9) & (rug < hi - 1e-9)
        assert inside.sum() > Xv.shape[1]
        A = np.column_stack([Xv[inside], np.ones(inside.sum())])
        sol, *_ = np.linalg.lstsq(A, rug[inside], rcond=None)
        np.testing.assert_allclose(A @ sol, rug[inside], rtol=1e-9, atol=1e-12)  # u is linear in x
        c, c0 = sol[:-1], sol[-1]
        # bars: the largest |c_j|, largest on top
        bars = [p for p in bx.patches if p.get_gid() == "direction"]
        labels = [t.get_text() for t in bx.get_yticklabels()]
        widths = np.array([p.get_width() for p in bars])
        assert len(bars) == min(TOP_WEIGHTS, len(names))
        np.testing.assert_allclose(widths, [c[names.index(n)] for n in labels], rtol=1e-6, atol=1e-9)
        assert np.all(np.diff(np.abs(widths)) >= -1e-12)  # drawn bottom-up: the largest last (on top)
        assert np.abs(widths).min() >= np.sort(np.abs(c))[::-1][len(bars) - 1] - 1e-9
        # curve: the term alone predicts weight * g at rows whose u is the abscissa
        x0 = Xv.mean(axis=0)
        rows = x0 + np.outer(grid - (x0 @ c + c0), c / (c @ c))
        alone = copy.copy(est)
        alone.terms_, alone.intercept_ = [tm], 0.0
        frame = pd.DataFrame(rows, columns=names) if hasattr(est, "feature_names_in_") else rows
        expected = alone.decision_function(frame) if hasattr(est, "decision_function") else alone.predict(frame)
        np.testing.assert_allclose(values, expected, rtol=1e-7, atol=1e-9 * (1 + np.abs(expected).max()))
    return fig


def _domain_is_the_training_box(fig, X):
    """Each curve's domain is what its u takes over the box of the training rows (each feature
    between its smallest and largest value): u is linear in x (``_check_figure``), so its top is
    c0 + sum_j max(c_j lo_j, c_j hi_j), and its bottom the same with min (or the floor above it);
    the training rows' rug lies within."""
    Xv = np.asarray(X, dtype=float)
    lo, hi = Xv.min(axis=0), Xv.max(axis=0)
    for ax, _ in _axes(fig):
        grid, _ = _line(ax, "shape")
        rug, _ = _line(ax, "rug")
        assert grid[0] - 1e-12 <= rug.min() and rug.max() <= grid[-1] + 1e-12
        live = rug > grid[0] + 1e-9
        A = np.column_stack([Xv[live], np.ones(live.sum())])
        (*c, c0), *_ = np.linalg.lstsq(A, rug[live], rcond=None)
        c = np.array(c)
        top, bottom = c0 + np.maximum(c * lo, c * hi).sum(), c0 + np.minimum(c * lo, c * hi).sum()
        assert grid[-1] == pytest.approx(top, rel=1e-8, abs=1e-10)
        assert grid[0] == pytest.approx(bottom, rel=1e-8, abs=1e-10) or grid[0] > bottom


def test_closed_form_one_term_recovers_its_direction():
    X = _frame(300, 4)
    y = np.exp(-(2 * X.f0 + X.f2) / 4)
    est = SymbolicPursuitRegressor(max_terms=1, **FAST).fit(X, y)
    fig = _check_figure(est, X)
    _domain_is_the_training_box(fig, X)
    _, bx = _axes(fig)[0]
    labels = [t.get_text() for t in bx.get_yticklabels()]
    assert labels[-2:] == ["f2", "f0"]  # the two features the target uses, f0 (twice f2) on top
    title = fig.axes[0].get_title().replace("\n", " ")  # (a long title is wrapped)
    assert title.startswith("term 1: ") and "exp(" in title  # simplified to a closed form
    # the plot speaks the printed formula's language: its term, its u1 and u1's domain
    formula = model_formula(est).text
    assert title.removeprefix("term 1: ") in formula.splitlines()[0]
    definition = re.search(r"u1 = (.*) for u1 in \[(.*), (.*)\]", formula)
    printed = dict((name, float(coef.replace(" ", ""))) for coef, name in
                   re.findall(r"([+-]?\s*[0-9.e+-]+)\*(f\d)", " + " + definition.group(1)))
    shown = {p_label.get_text(): bar.get_width() for p_label, bar in zip(bx.get_yticklabels(), bx.patches)}
    for name, coef in printed.items():
        assert shown[name] == pytest.approx(coef, rel=1e-3)
    grid, _ = _line(fig.axes[0], "shape")
    np.testing.assert_allclose([grid[0], grid[-1]], [float(definition.group(2)), float(definition.group(3))],
                               rtol=1e-3)


def test_many_terms_many_features_and_held_out_rows():
    X = _frame(200, 12, seed=1)
    y = np.sin(X.f0 + X.f3) + 0.5 * X.f5**2 + 0.1 * X.f9
    est = SymbolicPursuitRegressor(max_terms=3, ratio_tol=0.99, loss_tol=0, simplify=False, model_selection=3,
                                   **FAST).fit(X, y)
    assert est.n_terms_ >= 2
    _domain_is_the_training_box(_check_figure(est, X), X)
    _check_figure(est, _frame(50, 12, seed=2) * 1.5)  # outside the training box: the rug is clipped


def test_one_feature_numpy_input_and_a_custom_family_that_prints_itself(quadratic_family):
    rng = np.random.default_rng(3)
    X = rng.uniform(0.5, 2.0, size=(120, 1))
    y = 3 * X[:, 0] ** 2 - X[:, 0]
    est = SymbolicPursuitRegressor(max_terms=1, n_restarts=1, maxiter=60, random_state=0,
                                   families=[quadratic_family]).fit(X, y)
    fig = _check_figure(est, X)
    title = fig.axes[0].get_title()
    assert "u1**2" in title and "test_plots_quadratic" not in title  # printed by the family, not named
    assert [t.get_text() for t in fig.axes[1].get_yticklabels()] == ["x1"]


def test_classifier_terms_are_on_the_logit_scale():
    X = _frame(200, 3, seed=4)
    p = 1 / (1 + np.exp(-(X.f0 - 2 * X.f1)))
    clf = SymbolicPursuitClassifier(max_terms=1, **FAST).fit(X, (p > 0.5).astype(int), proba=p)
    fig = _check_figure(clf, X)
    assert "logit" in fig.axes[0].get_ylabel()


def test_a_model_without_terms_and_bad_input():
    X = _frame(60, 2, seed=5)
    est = SymbolicPursuitRegressor(max_terms=1, ratio_tol=0.0, **FAST).fit(X, X.f0)
    assert est.n_terms_ == 0
    fig = plot_shapes(est, X)
    assert "constant" in fig.axes[0].texts[0].get_text()
    for bad in (X.iloc[:, :1], X.assign(f1=np.nan)):
        with pytest.raises(InputError) as err:
            plot_shapes(est, bad)
        assert "\n" not in str(err.value)


def test_plotting_leaves_pyplot_alone():
    import matplotlib.pyplot as plt

    X = _frame(100, 2, seed=6)
    est = SymbolicPursuitRegressor(max_terms=1, **FAST).fit(X, np.exp(-X.f0))
    before = plt.get_fignums()
    plot_shapes(est, X)
    assert plt.get_fignums() == before


def _describe_shapes(est, X):
    """What the shape plot shows: titles, curves, rugs and bars."""
    import matplotlib
    import numpy as np

    matplotlib.use("Agg")
    from interp_symbolic.plots import plot_shapes

    def points(line):
        return np.column_stack([line.get_xdata(), line.get_ydata()]).astype(float).tolist()

    fig = plot_shapes(est, X)
    return [dict(title=ax.get_title(), lines=[points(ln) for ln in ax.lines],
                 bars=[p.get_width() for p in ax.patches], labels=[t.get_text() for t in ax.get_yticklabels()])
            for ax in fig.axes]


def test_a_pickled_model_plots_the_same_without_the_plugin():
    X = _frame(150, 3, seed=7)
    est = SymbolicPursuitRegressor(max_terms=1, **FAST).fit(X, np.log1p(X.f0 + 2 * X.f1 + 3))
    check_stands_alone(_describe_shapes, est, X, disabled=["symbolic"])


def test_a_huge_feature_name_is_a_cut_tick_label_not_a_category():
    """A 1 MB name (a text cell one-hot encoded) is drawn cut, at once: as a category matplotlib
    would first try to read it as a date, for minutes."""
    import time

    from interp.plotting import MAX_TEXT_CHARS, figure
    from interp_symbolic.plots import _bars

    fig = figure()
    ax = fig.subplots()
    start = time.perf_counter()
    _bars(ax, {"x" * 1_000_000: 1.0, "b": -0.5}, top_k=10)
    fig.canvas.draw()
    assert time.perf_counter() - start < 20
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["b", "x" * (MAX_TEXT_CHARS - 1) + "\u2026"]
