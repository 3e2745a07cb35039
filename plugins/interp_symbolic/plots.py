"""The symbolic model's pictures: fidelity to the black box, and the shape of every term.

Figures are built with ``interp.plotting.figure`` (a ``matplotlib.figure.Figure`` whose text is
never parsed as mathtext, so feature names are drawn as written; no pyplot): they are returned,
never shown, and no global figure state is touched or closed.
"""

from __future__ import annotations

import textwrap

import numpy as np
from interp.plotting import figure, shown_text
from matplotlib.figure import Figure

TOP_WEIGHTS = 10  # bars drawn per direction (the largest |weights|)
GRID = 200  # points of each ridge function's curve
TITLE_DIGITS = 4  # significant digits of the numbers in a term's title
TITLE_WIDTH = 80  # characters per line of a term's title (a long one is wrapped)


def plot_fidelity(blackbox, symbolic, importances: dict[str, float], r2: float, top_k: int = 10) -> Figure:
    """Held-out black-box vs symbolic outputs (left) and the largest importances (right)."""
    fig = figure(figsize=(10, 4.2))
    ax, bx = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1.2]})
    ax.scatter(blackbox, symbolic, s=12, alpha=0.7, color="#3b6ea8", edgecolor="none")
    lo, hi = float(np.min([blackbox, symbolic])), float(np.max([blackbox, symbolic]))
    ax.plot([lo, hi], [lo, hi], color="#a4262c", lw=1, label="perfect fidelity")
    ax.set(xlabel="black box", ylabel="symbolic model", title=f"held-out fidelity  R² = {r2:.4f}")
    ax.legend(loc="upper left", frameon=False)
    _bars(bx, importances, top_k)
    bx.set(title="importance (mean absolute contribution)", xlabel="mean |contribution| to f")
    fig.tight_layout()
    return fig


def plot_shapes(est, X) -> Figure:
    """One row per term of a fitted symbolic pursuit model: its shape and its direction, in the
    terms of the printed formula (``expression.readable_terms``: u_k as ``render.model_formula``
    defines it, any scale of the argument folded in).

    Left, the term's contribution ``weight * g`` over the domain of u_k (gid "shape"), with a
    rug of u_k at the rows of ``X`` (gid "rug"; clipped to the domain as the model clips them
    when predicting); the title is the term as the formula prints it.  Right, u_k's
    coefficients in the user's feature units (the min-max scaling folded in), the
    ``TOP_WEIGHTS`` largest |coefficients| as horizontal bars, largest on top (gid "direction").
    A classifier's terms are on the logit scale.  ``X`` is checked like ``predict``'s input
    (a one-line ``interp.InputError`` when it does not fit).
    """
    from interp import InputError
    from sklearn.utils.validation import check_is_fitted, validate_data

    from .expression import argument_symbol, feature_symbols, readable_terms

    check_is_fitted(est, "terms_")
    try:
        X = validate_data(est, X, reset=False, dtype=np.float64)
    except ValueError as exc:
        raise InputError(f"plot_shapes: {' '.join(str(exc).split())}") from None
    Xs = est._scale(X)
    names = [str(x) for x in feature_symbols(est)]
    fig = figure(figsize=(11, 2.9 * max(1, len(est.terms_))))
    if not est.terms_:
        ax = fig.subplots()
        ax.axis("off")
        ax.text(0.5, 0.5, f"no terms: the model is the constant {est.intercept_:.4g}", ha="center", va="center")
        return fig
    axes = fig.subplots(len(est.terms_), 2, squeeze=False, gridspec_kw={"width_ratios": [1.4, 1]})
    scale = "logit" if est._logit_link else "f(x)"
    for k, (tm, shown, (ax, bx)) in enumerate(zip(est.terms_, readable_terms(est), axes), start=1):
        _draw_shape(ax, tm, shown, Xs, k, feature_symbols(est))
        ax.set_ylabel(f"contribution to {scale}" if shown.prefactor is None else
                      f"contribution to {scale} / {shown.factor(feature_symbols(est))}")
        _bars(bx, dict(zip(names, shown.coefficients)), TOP_WEIGHTS, gid="direction")
        top = f", top {TOP_WEIGHTS} of {len(names)}" if len(names) > TOP_WEIGHTS else ""
        if shown.monomial:
            bx.set_title(f"{argument_symbol(k, feature_symbols(est))}: exponents (constant {np.exp(shown.offset):.4g}{top})", fontsize=10)
            bx.set_xlabel("power of the feature")
        else:
            bx.set_title(f"{argument_symbol(k, feature_symbols(est))}: coefficients (constant {shown.offset:.4g}{top})", fontsize=10)
            bx.set_xlabel("per unit of the feature")
    fig.tight_layout()
    return fig


def _draw_shape(ax, tm, shown, Xs, k: int, xs) -> None:
    """weight * g over the term's domain (without its prefactor, which the title shows), and the
    rug of the rows' arguments, both in the printed u_k (the term's internal argument times the
    folded scale); ``xs``: the feature symbols."""
    from .expression import Fold, argument_symbol

    lo, hi = tm.u_range
    fold = shown.fold or Fold()

    def printed(u):
        return fold.scale * u**fold.power

    grid = np.linspace(lo, hi, GRID)
    u_data, _ = tm.argument(Xs)
    ax.plot(printed(grid), tm.weight * tm.ridge.value(tm.theta, grid), color="#3b6ea8", lw=1.8, gid="shape")
    ax.plot(printed(u_data), np.zeros_like(u_data), "|", color="black", alpha=0.35, ms=9,
            transform=ax.get_xaxis_transform(), gid="rug")
    title = textwrap.wrap(f"term {k}: {term_title(shown, k, xs)}", TITLE_WIDTH)
    ax.set_xlabel(str(argument_symbol(k, xs)))
    ax.set_title("\n".join(title), fontsize=10 if len(title) == 1 else 8)


def term_title(shown, k: int, xs) -> str:
    """A term as the formula prints it (``weight * P(x) * g(u_k)``, 4 significant digits;
    ``xs``: the feature symbols)."""
    import sympy

    from .expression import U, argument_symbol
    from .hypergeometric import TextPrinter
    from .printable import printable, without_unit

    term = sympy.Float(shown.weight) * shown.factor(xs) * shown.shape.xreplace({U: argument_symbol(k, xs)})
    return TextPrinter().doprint(without_unit(printable(term, TITLE_DIGITS).expression))


def _bars(ax, values: dict[str, float], top_k: int, gid: str | None = None) -> None:
    """Horizontal bars of the ``top_k`` largest |values|, largest on top, signed colours."""
    names = sorted(values, key=lambda n: -abs(values[n]))[:top_k][::-1]
    shown = [values[n] for n in names]
    # bars at positions, names as tick labels: names as categories would make matplotlib try to
    # read each as a date (minutes for a 1 MB text cell) and merge two names cut alike
    ax.barh(np.arange(len(names)), shown, color=["#3b6ea8" if v >= 0 else "#c8553d" for v in shown], gid=gid)
    ax.set_yticks(np.arange(len(names)), labels=[shown_text(n) for n in names])
    ax.axvline(0, color="black", lw=0.8)
