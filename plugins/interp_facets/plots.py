"""Figures: the regularisation path and the accuracy / integrity heat maps (paper's Figure 3).

Every function returns a matplotlib Figure and never shows it; figures are made with
``interp.plotting.figure``, so feature names are drawn as they are written (never as mathtext).
"""

from __future__ import annotations

import numpy as np
from interp.plotting import figure
from matplotlib.figure import Figure

__all__ = ["plot_path", "plot_heatmaps", "plot_cv", "plot_risk", "plot_predictions"]


def plot_path(betas, coefs, gamma: float, feature_names=None, selected_beta: float | None = None,
              max_labels: int = 12) -> Figure:
    """Coefficients in points (w / gamma) along beta = lam / gamma^2 at one gamma.

    ``coefs``: (n_betas, n_features) in the model's units.
    """
    betas = np.asarray(betas, dtype=float)
    coefs = np.asarray(coefs, dtype=float) / float(gamma)
    order = np.argsort(betas)
    fig = figure(figsize=(7, 4.2), layout="constrained")
    ax = fig.add_subplot()
    d = coefs.shape[1]
    names = list(feature_names) if feature_names is not None else [f"x{j}" for j in range(d)]
    top = np.argsort(-np.max(np.abs(coefs), axis=0))[:max_labels]
    named = []  # (line, label) of the top features: passed to legend() explicitly, because
    # matplotlib leaves out artists whose label starts with "_", and a column may be named so
    for j in range(d):
        (line,) = ax.step(betas[order], coefs[order, j], where="mid", lw=1.2 if j in top else 0.6)
        if j in top:
            named.append((line, names[j]))
    ax.set_xscale("log")
    ax.set_xlabel("beta = lambda / gamma^2")
    ax.set_ylabel("points (w / gamma)")
    ax.set_title(f"regularisation path at gamma = {gamma:.3g}")
    ax.axhline(0, color="0.6", lw=0.5)
    if selected_beta is not None:
        named.append((ax.axvline(selected_beta, color="k", ls="--", lw=0.8), "selected"))
    ax.grid(True, axis="y", alpha=0.3)
    if d:
        ax.legend(*zip(*named), fontsize=7, ncols=2, loc="best")
    return fig


def plot_heatmaps(gammas, betas, accuracy, integrity, selected: tuple[float, float] | None = None,
                  score_label: str = "CV accuracy") -> Figure:
    """Two heat maps over the (beta, gamma) grid: mean CV score and integrity.

    ``accuracy``/``integrity``: arrays (n_gammas, n_betas); ``selected``: (gamma, beta).
    """
    gammas = np.asarray(gammas, dtype=float)
    betas = np.asarray(betas, dtype=float)
    fig = figure(figsize=(11, 4.2), layout="constrained")
    axes = fig.subplots(1, 2)
    bo = np.argsort(betas)
    go = np.argsort(gammas)
    extent = (np.log10(betas.min()), np.log10(betas.max()), np.log10(gammas.min()),
              np.log10(gammas.max()))
    for ax, values, title, cmap in (
        (axes[0], accuracy, score_label, "viridis"),
        (axes[1], integrity, "integrity (fraction on the grid)", "magma"),
    ):
        img = np.asarray(values, dtype=float)[np.ix_(go, bo)]
        im = ax.imshow(img, origin="lower", aspect="auto", extent=extent, cmap=cmap,
                       interpolation="nearest")
        fig.colorbar(im, ax=ax, shrink=0.9)
        ax.set_xlabel("log10 beta = log10(lambda / gamma^2)")
        ax.set_ylabel("log10 gamma")
        ax.set_title(title)
        if selected is not None:
            ax.plot(np.log10(selected[1]), np.log10(selected[0]), marker="*", color="red",
                    markersize=12, markeredgecolor="white")
    return fig


def plot_cv(cv, feature_names=None) -> dict[str, Figure]:
    """The figures of a fitted ``FacetsClassifierCV`` (``FacetsRegressorCV``): ``path`` (the path
    at the chosen gamma, the chosen beta marked) and, after a grid CV (not a ``max_rows`` card
    search), ``heatmaps`` (CV accuracy (R^2) and integrity, the chosen point starred)."""
    gi = int(np.argmin(np.abs(cv.gammas_ - cv.best_gamma_)))
    figures = {"path": plot_path(cv.betas_, cv.coefs_path_[gi], cv.best_gamma_, feature_names,
                                 selected_beta=cv.best_beta_)}
    if hasattr(cv, "cv_results_"):
        figures["heatmaps"] = plot_heatmaps(cv.gammas_, cv.betas_, cv.heatmap("mean_test_score"),
                                            cv.heatmap("integrity"), selected=(cv.best_gamma_, cv.best_beta_),
                                            score_label="CV R^2" if cv._loss == "squared" else "CV accuracy")
    return figures


def plot_risk(card) -> Figure:
    """The risk curve of a card with a risk table: the probability of the positive class
    against the total, a dot at every total the table lists, the card's threshold dashed."""
    table = card.risk
    if table is None:
        raise ValueError("this card has no risk table: make it with score_card(..., X, y=labels)")
    totals = np.asarray(table.totals, dtype=float)
    fine = np.linspace(totals.min() - 0.5, totals.max() + 0.5, 200)
    fig = figure(figsize=(6, 3.8), layout="constrained")
    ax = fig.add_subplot()
    ax.plot(fine, table.risk(fine), color="C0", lw=1.2)
    ax.plot(totals, table.risk(totals), "o", color="C0", markersize=4)
    cut = card.threshold if card.integer_threshold is None else card.integer_threshold - 0.5
    ax.axvline(cut, color="k", ls="--", lw=0.8, label=card.rule())
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("total (sum of the points)")
    ax.set_ylabel(f"risk of {card.positive}")
    ax.set_title("risk by total" + (" (separable: ridge-limited slope)" if table.separable else ""))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    return fig


def plot_predictions(card, totals, y) -> Figure:
    """A regressor's card: its prediction against the total (the line, a dot at every total its
    table lists) over the training rows' totals and targets (grey points)."""
    table = card.predictions
    if table is None:
        raise ValueError("this card has no table of predictions: make it with score_card(regressor, names, X)")
    listed = np.asarray(table.totals, dtype=float)
    totals = np.asarray(totals, dtype=float)
    low, high = min(listed.min(), totals.min()), max(listed.max(), totals.max())
    fig = figure(figsize=(6, 3.8), layout="constrained")
    ax = fig.add_subplot()
    ax.plot(totals, np.asarray(y, dtype=float), "o", color="0.6", markersize=3, alpha=0.5, label="training rows")
    ax.plot([low, high], table.predict([low, high]), color="C0", lw=1.2, label=card.rule())
    ax.plot(listed, table.predict(listed), "o", color="C0", markersize=4)
    ax.set_xlabel("total (sum of the points)")
    ax.set_ylabel(card.target)
    ax.set_title("prediction by total")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    return fig
