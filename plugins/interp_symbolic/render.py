"""What a person reads of a symbolic surrogate: the formula, its terms, the importances, a figure.

``explanation`` turns a fitted surrogate (``method.Surrogate``) into an ``interp.Explanation``:
the payload keeps every number at full precision; the sections show the formula with 4
significant digits (as text, LaTeX and presentation MathML), the fidelity, a table of terms and
a table of feature importances, and the fidelity figure.
"""

from __future__ import annotations

import numpy as np
import sympy
from interp import Explanation, Figure, Formula, Table, Text
from interp.results import format_value

from .plots import plot_fidelity

SHOWN_DIGITS = 4  # significant digits of the numbers in the displayed formula
TOP_FEATURES = 15  # rows of the importance table
TOP_INTERACTIONS = 10  # pairs of features kept in the payload


def explanation(fit, metrics: dict, params: dict) -> Explanation:
    """The Explanation of a fitted surrogate: payload, sections and the ``fidelity`` figure."""
    est = fit.estimator
    importances = {n: float(v) for n, v in zip(fit.names, est.feature_importances_)}
    figure = plot_fidelity(fit.blackbox_test, fit.symbolic_test, importances, metrics["fidelity_r2"])
    sections = [
        formula_section(est, f"Symbolic model of the {fit.blackbox} black box ({est.n_terms_} terms, {fit.task})"),
        Text(_fidelity_text(metrics)),
        terms_table(est),
        importance_table(importances),
        Figure("fidelity", title="Held-out fidelity and the largest importances"),
    ]
    return Explanation(params=params, metrics=metrics, payload=payload(fit, importances), sections=sections,
                       figures={"fidelity": figure}, estimator=est)


def payload(fit, importances: dict) -> dict:
    """Everything about the fitted model at full precision (JSON values)."""
    est = fit.estimator
    return dict(
        expression=str(est.expression_), latex=est.to_latex(), mathml=est.to_mathml(),
        terms=[tm.as_dict() for tm in est.terms_], intercept=est.intercept_,
        feature_importances=importances, interactions=_strongest_interactions(est, fit.names),
        loss_history=est.loss_history_, closed_forms=est.closed_forms_, blackbox=fit.blackbox,
        scaling=dict(min=est.data_min_.tolist(), range=est.data_range_.tolist()),
    )


def shown_expression(expr):
    """``expr`` with every float rounded to ``SHOWN_DIGITS`` significant digits, to read."""
    return expr.xreplace({c: sympy.Float(c, SHOWN_DIGITS) for c in expr.atoms(sympy.Float)})


def formula_section(est, title: str) -> Formula:
    """The fitted formula f(x), rounded to read, as text, LaTeX and presentation MathML."""
    if est.expression_ is None:
        return Formula(text="f(x): sympy could not build the expression (the model still predicts)", title=title)
    shown = shown_expression(est.expression_)
    return Formula(text=f"f(x) = {shown}", latex="f(x) = " + sympy.latex(shown),
                   mathml=sympy.mathml(shown, printer="presentation"), title=title)


def terms_table(est) -> Table:
    """One row per term: its family, weight, fitted parameters and whether g has a closed form."""
    rows = [(k + 1, tm.family, tm.weight, _parameters(tm), "yes" if closed else "no")
            for k, (tm, closed) in enumerate(zip(est.terms_, est.closed_forms_))]
    return Table(("term", "family", "weight", "parameters", "closed form"), rows,
                 title=f"Terms (intercept {format_value(est.intercept_)})")


def importance_table(importances: dict) -> Table:
    """The largest importances by absolute value."""
    order = sorted(importances, key=lambda n: -abs(importances[n]))[:TOP_FEATURES]
    return Table(("feature", "importance"), [(n, importances[n]) for n in order],
                 title="Feature importances (first-order Taylor coefficients at the data mean)")


def _parameters(tm) -> str:
    d = tm.as_dict()
    if tm.orders is None:
        return "theta = " + _numbers(d["theta"])
    return f"a = {_numbers(d['a'])}, b = {_numbers(d['b'])}, s = {d['scale']:.4g}, r = {d['power']:.4g}"


def _numbers(values) -> str:
    return "(" + ", ".join(f"{v:.4g}" for v in values) + ")"


def _fidelity_text(metrics: dict) -> str:
    lines = [f"fidelity on {metrics['n_test']} held-out rows: R^2 = {metrics['fidelity_r2']:.4f}, "
             f"MSE = {metrics['fidelity_mse']:.4g}   (fit {metrics['fit_seconds']:.1f} s)"]
    for key in ("blackbox_r2", "symbolic_r2", "blackbox_accuracy", "symbolic_accuracy"):
        if key in metrics:
            lines.append(f"  {key.replace('_', ' ')} vs true target: {metrics[key]:.4f}")
    return "\n".join(lines)


def _strongest_interactions(est, names) -> list[dict]:
    """The ``TOP_INTERACTIONS`` feature pairs with the largest |second-order coefficient|."""
    d = len(names)
    inter = est.interactions_
    pairs = sorted(((abs(inter[i, j]), names[i], names[j], float(inter[i, j]))
                    for i in range(d) for j in range(i + 1, d)), reverse=True)[:TOP_INTERACTIONS]
    return [dict(a=a, b=b, value=v) for _, a, b, v in pairs]
