"""What a person reads of a symbolic surrogate: the formula, its terms, the importances, a figure.

``explanation`` turns a fitted surrogate (``method.Surrogate``) into an ``interp.Explanation``:
the payload keeps every number at full precision; the sections show the formula with 4
significant digits (as text, LaTeX and presentation MathML), the fidelity, a table of terms and
a table of feature importances, and the fidelity figure.

Every printed number is printable: a classifier's formula is written with its link,
``P(y=1) = 1/(1 + exp(-(...)))``, so sympy never folds exp(-intercept) into one constant (which
overflowed to 2.485e-1784), and a constant beyond [``TINY``, ``HUGE``] in magnitude is dropped
(with a note) or written as exp(log |c|).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy
from interp import Explanation, Figure, Formula, Table, Text
from interp.results import format_value

from .plots import plot_fidelity

SHOWN_DIGITS = 4  # significant digits of the numbers in the displayed formula
TOP_FEATURES = 15  # rows of the importance table
TOP_INTERACTIONS = 10  # pairs of features kept in the payload
TINY = 1e-300  # a nonzero constant below this in magnitude is printed as 0 (its term dropped)
HUGE = 1e300  # a constant above this in magnitude is printed as exp(log |c|)


def explanation(fit, metrics: dict, params: dict, notes=()) -> Explanation:
    """The Explanation of a fitted surrogate: payload, sections and the ``fidelity`` figure;
    ``notes`` (how the rows were subsampled) are printed under the fidelity."""
    est = fit.estimator
    importances = {n: float(v) for n, v in zip(fit.names, est.feature_importances_)}
    figure = plot_fidelity(fit.blackbox_test, fit.symbolic_test, importances, metrics["fidelity_r2"])
    sections = [
        formula_section(est, f"Symbolic model of the {fit.blackbox} black box ({est.n_terms_} terms, {fit.task})"),
        Text("\n".join([_fidelity_text(metrics), *notes])),
        terms_table(est),
        importance_table(importances),
        Figure("fidelity", title="Held-out fidelity and the largest importances"),
    ]
    return Explanation(params=params, metrics=metrics, payload=payload(fit, importances), sections=sections,
                       figures={"fidelity": figure}, estimator=est)


def payload(fit, importances: dict) -> dict:
    """Everything about the fitted model at full precision (JSON values; the formula's are None
    when sympy could not build it)."""
    est = fit.estimator
    formula = dict.fromkeys(("expression", "latex", "mathml"))
    if est.expression_ is not None:
        full = model_formula(est, digits=None)
        formula.update(expression=full.right, latex=full.latex_right, mathml=full.mathml_right)
    return dict(
        **formula,
        terms=[tm.as_dict() for tm in est.terms_], intercept=est.intercept_,
        feature_importances=importances, interactions=_strongest_interactions(est, fit.names),
        loss_history=est.loss_history_, closed_forms=est.closed_forms_, blackbox=fit.blackbox,
        scaling=dict(min=est.data_min_.tolist(), range=est.data_range_.tolist()),
    )


class FoldedConstant(sympy.UnevaluatedExpr):
    """exp(L) for a constant too large to print: kept unevaluated (sympy would fold it back
    into one Float), positive and real so that Min/Max still accept it."""

    is_extended_real = is_real = is_positive = is_extended_positive = is_finite = True
    is_comparable = False

    def _mathml_presentation(self, printer):
        return printer._print(self.args[0])


@dataclass(frozen=True)
class Printable:
    """An expression whose every constant is printable, and how many tiny ones it dropped."""

    expression: object
    dropped: int


def printable(expr, digits=SHOWN_DIGITS) -> Printable:
    """``expr`` with each float rounded to ``digits`` significant digits (None: kept), a
    nonzero one below ``TINY`` in magnitude set to 0 (its term vanishes) and one above ``HUGE``
    written as +-exp(log |c|)."""
    subs, dropped = {}, 0
    for c in expr.atoms(sympy.Float):
        v = abs(c)
        if v == 0:
            continue
        if v < TINY:
            subs[c], dropped = sympy.Integer(0), dropped + 1
        elif v > HUGE:
            log_c = sympy.Float(float(sympy.log(v)), digits or 15)
            subs[c] = int(sympy.sign(c)) * FoldedConstant(sympy.exp(log_c, evaluate=False))
        elif digits is not None:
            subs[c] = sympy.Float(c, digits)
    return Printable(expr.xreplace(subs), dropped)


@dataclass(frozen=True)
class ModelFormula:
    """The model's formula as text, LaTeX and presentation MathML: its left-hand side ``lhs``
    and right-hand sides, and a ``note`` (empty, or which tiny constants were dropped)."""

    lhs: str
    right: str
    latex_right: str
    mathml_right: str
    note: str = ""

    @property
    def text(self) -> str:
        return f"{self.lhs} = {self.right}" + (f"\n{self.note}" if self.note else "")

    @property
    def latex(self) -> str:
        return f"{self.lhs} = {self.latex_right}"

    @property
    def mathml(self) -> str:
        return f"<mrow><mi>{self.lhs}</mi><mo>=</mo>{self.mathml_right}</mrow>"


def model_formula(est, digits=SHOWN_DIGITS) -> ModelFormula:
    """``f(x) = sum``, or with a logit link ``P(y=c) = 1/(1 + exp(-(sum)))`` (``c`` the positive
    class), every constant printable (``printable``) and rounded to ``digits`` (None: full
    precision); a note follows the text when tiny constants were dropped."""
    decision = getattr(est, "decision_expression_", None)
    link = est._logit_link and decision is not None  # (a model pickled before the attribute: no sum)
    if decision is None:
        decision = est.expression_
    shown = printable(decision, digits)
    body = shown.expression
    text, latex = str(body), sympy.latex(body)
    mathml = sympy.mathml(body, printer="presentation")
    lhs = "f(x)"
    if link:
        classes = getattr(est, "classes_", None)
        lhs = f"P(y={_label(classes[1])})" if classes is not None else "p(x)"
        text = f"1/(1 + exp(-({text})))"
        latex = r"\frac{1}{1 + e^{-\left(" + latex + r"\right)}}"
        mathml = ("<mfrac><mn>1</mn><mrow><mn>1</mn><mo>+</mo><msup><mi>&ExponentialE;</mi><mrow><mo>-</mo>"
                  f"<mrow><mo>(</mo>{mathml}<mo>)</mo></mrow></mrow></msup></mrow></mfrac>")
    note = (f"({shown.dropped} constant(s) below {TINY:g} in magnitude printed as 0: their terms are negligible)"
            if shown.dropped else "")
    return ModelFormula(lhs=lhs, right=text, latex_right=latex, mathml_right=mathml, note=note)


def _label(c) -> str:
    """A class label as written in P(y=...): 1.0 as 1."""
    if isinstance(c, (float, np.floating)) and float(c).is_integer():
        return str(int(c))
    return str(c)


def formula_section(est, title: str) -> Formula:
    """The fitted formula, rounded to read, as text, LaTeX and presentation MathML."""
    if est.expression_ is None:
        return Formula(text="f(x): sympy could not build the expression (the model still predicts)", title=title)
    shown = model_formula(est)
    return Formula(text=shown.text, latex=shown.latex, mathml=shown.mathml, title=title)


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
