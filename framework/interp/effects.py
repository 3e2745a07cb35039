"""Per feature: each method's effect curve drawn over the model's own partial dependence and ICE
lines, so a reader sees where an explanation follows the model and where it does not.

For a feature, every row of a sample gets the feature set to each value of a grid (the
feature's quantiles), the others kept as they are; the model's output on those rows gives its
ICE lines (one per row) and their mean its partial dependence, and each method's own model on
the same rows gives the method's curve (its mean).  For a classifier the output is the
probability of the positive class, for a regressor the prediction.
"""

from __future__ import annotations

from typing import Callable

import attrs
import numpy as np

#: the grid's points per feature, the rows the curves average over, and the ICE lines drawn
GRID_POINTS, CURVE_ROWS, ICE_LINES = 20, 100, 40
#: the grid's points when ranking the features by how much they move the model
RANK_POINTS = 8


@attrs.frozen
class EffectCurve:
    """One feature's curves: the ``grid``, the model's partial dependence ``model`` and its
    ``ice`` lines (rows x grid), and per method its curve (``methods``)."""

    feature: str
    grid: np.ndarray
    model: np.ndarray
    ice: np.ndarray
    methods: dict

    def direction(self, curve: np.ndarray | None = None) -> str:
        """"rises", "falls", "rises, then falls", "falls, then rises" or "is flat": how a curve
        (default the model's) moves as the feature grows, ignoring changes under 2% of its range."""
        curve = self.model if curve is None else curve
        span = float(np.ptp(curve))
        if span <= 1e-12:
            return "is flat"
        steps = np.diff(curve)
        steps = steps[np.abs(steps) > 0.02 * span]
        signs = [s for i, s in enumerate(np.sign(steps)) if i == 0 or s != np.sign(steps[i - 1])]
        if len(signs) == 1:
            return "rises" if signs[0] > 0 else "falls"
        first = "rises" if signs[0] > 0 else "falls"
        then = "falls" if signs[0] > 0 else "rises"
        return f"{first}, then {then}" if len(signs) == 2 else f"{first} and {then} by turns"

    def text(self) -> str:
        """One line: the model's direction and each method's."""
        parts = [f"as {self.feature} grows, the model's output {self.direction()}"]
        parts += [f"{m}'s {self.direction(c)}" for m, c in self.methods.items()]
        return "; ".join(parts)


def numeric_features(result) -> list[int]:
    """Positions (in interp's encoding) of the user's numeric columns with three values or more."""
    data = result.studied.data
    levels = {j for group in data.one_hot for j in group}
    return [j for j in range(data.n_features)
            if j not in levels and np.unique(data.X[:, j][np.isfinite(data.X[:, j])]).size >= 3]


def top_features(result, k: int = 4) -> list[int]:
    """The ``k`` numeric features whose partial dependence moves the model's output most."""
    rows = _sample(result)
    spread = []
    for j in numeric_features(result):
        grid = _grid(result.studied.data.X[:, j], RANK_POINTS)
        spread.append((float(np.ptp(_curves(_model_output(result.studied), rows, j, grid).mean(axis=0))), j))
    return [j for _, j in sorted(spread, reverse=True)[:k]]


def _sample(result) -> np.ndarray:
    X = result.studied.data.X
    rng = np.random.default_rng(0)
    chosen = rng.choice(len(X), size=min(CURVE_ROWS, len(X)), replace=False)
    return X[np.sort(chosen)]


def _grid(column: np.ndarray, points: int = GRID_POINTS) -> np.ndarray:
    """``points`` quantiles of a column, from its 2nd to its 98th percentile (repeats dropped)."""
    finite = column[np.isfinite(column)]
    return np.unique(np.quantile(finite, np.linspace(0.02, 0.98, points)))


def _curves(output: Callable[[np.ndarray], np.ndarray], rows: np.ndarray, j: int, grid: np.ndarray) -> np.ndarray:
    """``output`` (rows x grid) of ``rows`` with feature ``j`` set to each grid value."""
    stacked = np.repeat(rows[None, :, :], len(grid), axis=0)
    stacked[:, :, j] = grid[:, None]
    out = output(stacked.reshape(-1, rows.shape[1]))
    return np.asarray(out, dtype=float).reshape(len(grid), len(rows)).T


def effect_curves(result, features: list[str] | None = None, k: int = 4) -> list[EffectCurve]:
    """The ``EffectCurve`` of each of ``features`` (names of numeric columns; default the ``k``
    that move the model most), with the curve of every method whose result predicts."""
    data = result.studied.data
    names = list(data.feature_names)
    chosen = [names.index(f) for f in features] if features else top_features(result, k)
    rows = _sample(result)
    model = _model_output(result.studied)
    makers = {r.method: _method_output(r, result) for r in result.results if r.explanation is not None}
    out = []
    for j in chosen:
        grid = _grid(data.X[:, j])
        ice = _curves(model, rows, j, grid)
        methods = {m: _curves(f, rows, j, grid).mean(axis=0) for m, f in makers.items() if f is not None}
        out.append(EffectCurve(names[j], grid, ice.mean(axis=0), ice[:ICE_LINES], methods))
    return out


def _model_output(studied):
    """The studied model's output on encoded rows: its probability of the positive class, or
    its prediction."""
    return studied.positive_score if studied.task == "classification" else studied.predict


def _method_output(result, explained):
    """A function of encoded rows giving a method's output on the model's scale (its
    probability of the positive class, or 1 where it predicts that class and 0 elsewhere for a
    result without probabilities, such as a rule list, whose mean over the rows is then the share
    it puts in the class; a regressor's prediction), or None when its result makes no
    predictions or explains a regressor's decision rather than its number."""
    from .preprocessing import class_name, class_names
    from .studied import rows_for, surrogate_of

    studied = explained.studied
    surrogate, _ = surrogate_of(result.explanation.estimator, studied)
    if surrogate is None:
        return None
    classes = [class_name(c) for c in getattr(surrogate, "classes_", [])]  # a 0/1 target may be read as 0.0/1.0
    positive = str(studied.classes_[1]) if explained.task == "classification" else None
    if positive is not None and positive not in classes:
        return None
    if positive is None and classes:
        return None  # a class of a regressor's decision is not on the prediction's scale
    probabilities = hasattr(surrogate, "predict_proba")

    def output(X):
        rows = rows_for(surrogate, studied.raw_rows(X), X, studied)
        if positive is None:
            return np.asarray(surrogate.predict(rows), dtype=float)
        if probabilities:
            return np.asarray(surrogate.predict_proba(rows))[:, classes.index(positive)]
        return (class_names(surrogate.predict(rows)) == positive).astype(float)  # a rule list: 0 or 1

    return output


def plot_effects(curves: list[EffectCurve], output_name: str):
    """One panel per feature: the model's ICE lines (grey), its partial dependence (black) and
    each method's curve (coloured); returns the Figure."""
    from .plotting import figure

    n = max(len(curves), 1)
    cols = min(n, 2)
    fig = figure(figsize=(5.2 * cols, 3.4 * ((n + cols - 1) // cols)))
    colours = ["#c0392b", "#2e6da4", "#27ae60", "#8e44ad", "#d35400"]
    for i, curve in enumerate(curves):
        ax = fig.add_subplot((n + cols - 1) // cols, cols, i + 1)
        for line in curve.ice:
            ax.plot(curve.grid, line, color="#bbbbbb", lw=0.6)
        ax.plot(curve.grid, curve.model, color="#111111", lw=2.2, label="the model (mean of its lines)")
        for colour, (method, values) in zip(colours, curve.methods.items()):
            ax.plot(curve.grid, values, color=colour, lw=1.6, ls="--", label=method)
        ax.set_xlabel(curve.feature)
        ax.set_ylabel(output_name)
        if i == 0:
            ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
