"""What a person reads of a symbolic surrogate: the formula, the models by size, its terms, the
importances, the figures.

``explanation`` turns a fitted surrogate (``method.Surrogate``) into an ``interp.Explanation``:
the payload keeps every number at full precision; the sections show the formula with 4
significant digits (as text, LaTeX and presentation MathML), the fidelity, the table of models
by size (``equations_``), a table of terms and a table of feature importances, and the
fidelity and shape figures.

The formula is written for a statistician (``model_formula``): ``f(x) = b + w1*g1(u1) + ...``
with each g the term's closed form, or the hypergeometric functions of its Meijer G
(``expression.readable_terms``), then one line per term defining its argument in the feature
units, ``u1 = 0.4477*a + 0.2238*c - 0.01   for u1 in [0.02, 0.67]`` (the min-max scaling
folded in, coefficients by decreasing size, the clip of ``predict`` stated as the domain).

A classifier's formula is what it fits, the logit: ``f(x) = b + w1*g1(u1) + ...``, with the
link on the line below it, ``P(y=1) = 1/(1 + exp(-f(x)))`` (never the sympy expression of the
sigmoid, which folds exp(-intercept) into one constant: 8.8e+4342).  Every printed number is
printable: a constant beyond [``TINY``, ``HUGE``] in magnitude is dropped (with a note) or
written as exp(log |c|).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import sympy
from interp import Explanation, Figure, Formula, Table, Text
from interp.preprocessing import class_name
from interp.results import format_value

from .expression import U, argument_symbol, feature_symbols, readable_terms
from .hypergeometric import LatexPrinter, MathMLPrinter, TextPrinter, latex_text
from .plots import plot_fidelity, plot_shapes
from .printable import SHOWN_DIGITS, TINY, Printable, printable, without_unit

TOP_FEATURES = 15  # rows of the importance table
TOP_INTERACTIONS = 10  # pairs of features kept in the payload


def explanation(fit, metrics: dict, params: dict, notes=()) -> Explanation:
    """The Explanation of a fitted surrogate: payload, sections and the ``shapes``
    (``plots.plot_shapes`` on the rows it was fitted on) and ``fidelity`` figures; ``notes``
    (how the rows were subsampled) are printed under the fidelity."""
    est = fit.estimator
    importances = {n: float(v) for n, v in zip(fit.names, est.feature_importances_)}
    figures = {"fidelity": plot_fidelity(fit.blackbox_test, fit.symbolic_test, importances, metrics["fidelity_r2"]),
               "shapes": plot_shapes(est, fit.rows)}
    sections = [
        formula_section(est, f"Symbolic model of the {fit.blackbox} black box ({est.n_terms_} terms, {fit.task})"),
        Text("\n".join([_fidelity_text(metrics), *notes, *features_note(est, fit.names),
                         *projection_note(est, fit.names)])),
        *([equations_table(est)] if _has_equations(est) else []),
        terms_table(est),
        importance_table(importances),
        Figure("shapes", title="Each term's shape over its argument's range, and its direction"),
        Figure("fidelity", title="Held-out fidelity and the largest importances"),
    ]
    return Explanation(params=params, metrics=metrics, payload=payload(fit, importances), sections=sections,
                       figures=figures, estimator=est)


def projection_note(est, names) -> list[str]:
    """What the sign check of the data allows: which columns monomial terms may read (strictly
    positive on the training rows) and which are read by linear arguments only."""
    if not getattr(est, "monomials", False) or getattr(est, "monomial_features_", None) is None:
        return []
    positive = [n for n, p in zip(names, est.monomial_features_) if p]
    other = [n for n, p in zip(names, est.monomial_features_) if not p]
    if not positive:
        return ["no column is strictly positive with three values or more: every term is a function of a "
                "linear combination"]
    line = (f"monomial terms (C * x1**a1 * ..., and prefactors x1**b1 * ...) may read the strictly positive "
            f"columns: {', '.join(positive)}")
    rest = f"zero, negative, constant or two-valued, linear arguments only: {', '.join(other)}"
    return [line] + ([rest] if other else [])


def features_note(est, names) -> list[str]:
    """When the formula leaves features out: which it reads, which it drops and why (the best
    row of the models by size that reads more of them, its held-out R^2 and complexity against
    the formula's)."""
    used = np.any([tm.reads for tm in est.terms_], axis=0) if est.terms_ else np.zeros(len(names), dtype=bool)
    if used.all() or not _has_equations(est):
        return []
    kept = [n for n, u in zip(names, used) if u]
    dropped = [n for n, u in zip(names, used) if not u]
    line = (f"the formula reads {len(kept)} of {len(names)} features ({', '.join(kept) or 'none'}) and drops "
            f"{len(dropped)} ({', '.join(dropped)})")
    table = est.equations_
    chosen = table.iloc[est.selected_]
    wider = table[table["n_features"] > chosen["n_features"]]
    if wider.empty:
        return [f"{line}: no row of the models by size reads more (the terms fitted and their sparser, "
                "rounded variants set the others' coefficients to 0)"]
    if wider["r2"].isna().all():
        return [f"{line}: the rows of the models by size that read more were not scored on held-out rows"]
    best = wider.loc[wider["r2"].idxmax()]
    why = (f"model_selection={est.model_selection!r} does not take that gain for the complexity it adds "
           f"({best['complexity']} against {chosen['complexity']})" if best["r2"] > chosen["r2"]
           else "reading them does not predict the held-out rows better")
    return [f"{line}: the best row that reads more ({best['n_features']} features) has held-out R^2 "
            f"{best['r2']:.4g} against {chosen['r2']:.4g} here; {why}"]


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
        equations=equation_records(est) if _has_equations(est) else [],
    )


def _has_equations(est) -> bool:
    """Whether ``est`` tabulated its models by size (a model pickled before ``equations_`` did not)."""
    return getattr(est, "equations_", None) is not None


def _number_or_none(value):
    """A table value as a JSON number (None for a missing one; NaN stays NaN)."""
    if value is None or value is pd.NA:
        return None
    return int(value) if isinstance(value, (int, np.integer)) else float(value)


def equation_records(est) -> list[dict]:
    """``equations_`` as plain records: the numbers, whether the row is the selected model,
    the formula (4 significant digits) as text and LaTeX, and the full-precision expression."""
    out = []
    for i, row in enumerate(est.equations_.to_dict("records")):
        out.append(dict(
            n_terms=int(row["n_terms"]), n_features=int(row["n_features"]), selected=i == est.selected_,
            **{k: _number_or_none(row.get(k)) for k in ("complexity", "train_loss", "test_loss", "r2", "score")},
            formula=row["formula"], latex=row["latex"],
            expression=None if row["sympy"] is None else str(row["sympy"])))
    return out


def equations_table(est) -> Table:
    """``equations_`` as the table "Models by size": the selected row marked with *, each
    formula on one line (``one_line``), so that a sparser row says which features it reads."""
    rows = [("*" if r["selected"] else "", r["n_terms"], r["n_features"], r["complexity"], r["train_loss"],
             r["test_loss"], r["r2"], r["score"], one_line(r["formula"]) if r["formula"] else "")
            for r in equation_records(est)]
    return Table(("", "terms", "features", "complexity", "train loss", "held-out loss", "held-out R^2", "score",
                  "formula"),
                 rows, title=f"Models by size (* = the model used, model_selection={est.model_selection!r}; "
                             "losses: mean squared error on the model's scale)")


def one_line(formula: str) -> str:
    """A printed formula (``model_formula``'s text) on one line: the sum, a logit model's link,
    then each argument's definition without its domain, separated by "; " (a note on dropped
    constants left out)."""
    lines = formula.splitlines()
    kept = [line.split("   for ")[0] for line in lines[1:]
            if re.match(r"u\d+ = ", line) or line.endswith(" = 1/(1 + exp(-f(x)))")]
    return "; ".join([lines[0], *kept])


@dataclass(frozen=True)
class ModelFormula:
    """The model's formula as text, LaTeX and presentation MathML: its left-hand side ``lhs``
    and right-hand sides (the sum; for a logit model its ``link``, "P(y=1) = 1/(1 +
    exp(-f(x)))" in text; then one line per term defining its argument u_k), and a ``note``
    (empty, or which tiny constants were dropped)."""

    lhs: str
    right: str
    latex_right: str
    mathml_right: str
    note: str = ""
    link: str = ""

    @property
    def text(self) -> str:
        return f"{self.lhs} = {self.right}" + (f"\n{self.note}" if self.note else "")

    @property
    def latex(self) -> str:
        return f"{self.lhs} = {self.latex_right}"

    @property
    def mathml(self) -> str:
        return f"<mrow><mi>{html.escape(self.lhs)}</mi><mo>=</mo>{self.mathml_right}</mrow>"


@dataclass(frozen=True)
class Notation:
    """One language of the printed formula: how it ``show``s a sympy expression, writes the
    logistic ``link`` of a probability (its left-hand side, already escaped) to the logit
    f(x), ``define``s an argument (u, its linear form, the ends of its domain, all already
    shown) and sets the ``lines`` one under the other."""

    show: Callable[[sympy.Expr], str]
    link: Callable[[str], str]
    define: Callable[[str, str, str, str], str]
    lines: Callable[[list[str]], str]


def _latex_lines(lines: list[str]) -> str:
    return lines[0] if len(lines) == 1 else r"\begin{aligned}&" + r" \\ &".join(lines) + r"\end{aligned}"


def _mathml_lines(lines: list[str]) -> str:
    if len(lines) == 1:
        return lines[0]
    cells = "".join(f'<mtr><mtd columnalign="left" style="text-align: left">{line}</mtd></mtr>' for line in lines)
    return f'<mtable columnalign="left">{cells}</mtable>'  # (the style: browsers ignore columnalign)


TEXT = Notation(show=lambda e: TextPrinter().doprint(e), link=lambda p: f"{p} = 1/(1 + exp(-f(x)))",
                define=lambda u, lin, lo, hi: f"{u} = {lin}   for {u} in [{lo}, {hi}]", lines="\n".join)
LATEX = Notation(
    show=lambda e: LatexPrinter().doprint(e), link=lambda p: p + r" = \frac{1}{1 + e^{-f(x)}}",
    define=lambda u, lin, lo, hi: rf"{u} = {lin} \quad \text{{for }} {u} \in \left[{lo}, {hi}\right]",
    lines=_latex_lines)
MATHML = Notation(
    show=lambda e: MathMLPrinter().doprint(e),
    link=lambda p: (f"<mrow><mi>{p}</mi><mo>=</mo><mfrac><mn>1</mn><mrow><mn>1</mn><mo>+</mo><msup>"
                    "<mi>&ExponentialE;</mi><mrow><mo>-</mo><mi>f</mi><mo>&#8289;</mo><mrow><mo>(</mo><mi>x</mi>"
                    "<mo>)</mo></mrow></mrow></msup></mrow></mfrac></mrow>"),
    define=lambda u, lin, lo, hi: (f'<mrow>{u}<mo>=</mo>{lin}<mspace width="1em"/><mtext>for</mtext>'
                                   f'<mspace width="0.5em"/>{u}<mo>&#8712;</mo><mrow><mo>[</mo>{lo}<mo>,</mo>{hi}'
                                   "<mo>]</mo></mrow></mrow>"),
    lines=_mathml_lines)
NOTATIONS = (TEXT, LATEX, MATHML)


def _ordered_sum(pieces, digits) -> Printable:
    """The sum of ``pieces`` in their order (sympy would sort it), each ``printable`` at
    ``digits``, those that print as 0 left out."""
    shown = [printable(sympy.sympify(p), digits) for p in pieces]
    kept = [without_unit(p.expression) for p in shown if not p.expression.is_zero]
    expr = sympy.Integer(0) if not kept else kept[0] if len(kept) == 1 else sympy.Add(*kept, evaluate=False)
    return Printable(expr, sum(p.dropped for p in shown))


def _definition(term, xs, digits) -> tuple[Printable, Printable, Printable]:
    """A term's argument, c . x + c_0 (coefficients by decreasing size, the constant last) or
    a monomial C * x1**a1 * ..., and the ends of its domain, printable at ``digits``."""
    if term.monomial:
        argument = printable(term.argument(xs), digits)
    else:
        order = sorted(np.flatnonzero(term.coefficients), key=lambda j: -abs(term.coefficients[j]))
        pieces = [sympy.Float(float(term.coefficients[j])) * xs[j] for j in order]
        argument = _ordered_sum([*pieces, sympy.Float(term.offset)], digits)
    lo, hi = (printable(sympy.Float(v), digits) for v in term.domain)
    return argument, lo, hi


def _inlined(term) -> bool:
    """Whether a term prints inside the sum (a monomial term whose g is u itself: w * C *
    x1**a1 * ... reads better than w*u1 with u1 defined below)."""
    return term.monomial and term.shape == U


def _printed_sum(est) -> tuple[list, list, list]:
    """The readable terms of ``est`` that define an argument, their symbols u1..uK and the
    pieces of the printed sum: the intercept, then w * (each part of g), so that w * (A + B)
    prints as w*A + w*B, without parentheses; an inlined term (``_inlined``) as its monomial."""
    xs = feature_symbols(est)
    defined, us, pieces = [], [], [sympy.Float(est.intercept_)]
    for t in readable_terms(est):
        if _inlined(t):
            pieces.append(sympy.Float(t.weight) * t.factor(xs) * t.argument(xs))
            continue
        u = argument_symbol(len(us) + 1, xs)
        defined.append(t)
        us.append(u)
        pieces += [sympy.Float(t.weight) * t.factor(xs) * part for part in sympy.Add.make_args(t.shape.xreplace({U: u}))]
    return defined, us, pieces


def model_formula(est, digits=SHOWN_DIGITS) -> ModelFormula:
    """``f(x) = b + w1*g1(u1) + ...``, with a logit link followed by ``P(y=c) = 1/(1 +
    exp(-f(x)))`` (``c`` the positive class; ``p(x)`` without classes), then one line per term
    ``u1 = 0.4477*a + ...   for u1 in [lo, hi]``; every constant printable (``printable``) and
    rounded to ``digits`` (None: full precision), in text, LaTeX and MathML alike; a note
    follows the text when tiny constants were dropped."""
    terms, us, pieces = _printed_sum(est)
    body = _ordered_sum(pieces, digits)
    xs = feature_symbols(est)
    definitions = [_definition(t, xs, digits) for t in terms]
    dropped = body.dropped + sum(d[0].dropped for d in definitions)
    probability = probability_lhs(est)
    printed = []
    for notation, lhs in zip(NOTATIONS, probability):
        link = [notation.link(lhs)] if est._logit_link else []
        lines = [notation.define(notation.show(u), *(notation.show(p.expression) for p in d))
                 for u, d in zip(us, definitions)]
        printed.append(notation.lines([notation.show(body.expression), *link, *lines]))
    note = (f"({dropped} constant(s) below {TINY:g} in magnitude printed as 0: their terms are negligible)"
            if dropped else "")
    return ModelFormula("f(x)", *printed, note=note, link=TEXT.link(probability[0]) if est._logit_link else "")


def probability_lhs(est) -> tuple[str, str, str]:
    """The left-hand side of a logit model's link, as text, LaTeX and MathML text: ``P(y=c)``
    for the positive class ``c`` (``p(x)`` without classes), the label escaped in LaTeX and
    MathML."""
    classes = getattr(est, "classes_", None)
    if classes is None:
        return "p(x)", "p(x)", "p(x)"
    label = class_name(classes[1])
    return f"P(y={label})", f"P(y={_latex_label(label)})", html.escape(f"P(y={label})")


def headline(formula: ModelFormula, chars: int) -> str:
    """A formula's first line (the sum) cut to ``chars`` characters, with a logit model's link
    after it ("; P(y=1) = 1/(1 + exp(-f(x)))", never cut)."""
    first = formula.text.splitlines()[0]
    room = chars - (len(formula.link) + 2 if formula.link else 0)
    cut = first if len(first) <= room else first[:max(room - 3, 0)] + "..."
    return f"{cut}; {formula.link}" if formula.link else cut


def _latex_label(label: str) -> str:
    """A class label in LaTeX: a whole number as it is, anything else as escaped text (a label
    is the user's data: ``\\immediate\\write...`` must print, never run)."""
    return label if label.isascii() and label.isdigit() else latex_text(label)


def formula_complexity(est) -> int:
    """The operations (``operations``) of the formula ``model_formula`` prints: its sum (an
    intercept of 0 and a weight of 1 are not printed) and each argument's definition (a domain
    is not an operation; the logistic link of a classifier is not counted, so that sizes
    compare across tasks)."""
    terms, _, pieces = _printed_sum(est)
    xs = feature_symbols(est)
    linear = [_definition(t, xs, None)[0].expression for t in terms]
    return operations(_ordered_sum(pieces, None).expression) + sum(operations(lin) for lin in linear)


def operations(expr) -> int:
    """``sympy.count_ops`` of ``expr``, a square root counted as the one operation it prints as
    (``sqrt(u)``, ``1/sqrt(u)``): count_ops also counts the 1/2 of its exponent as a division."""
    roots = sum(1 for node in sympy.preorder_traversal(expr)
                if node.is_Pow and node.exp in (sympy.Rational(1, 2), sympy.Rational(-1, 2)))
    return int(sympy.count_ops(expr)) - roots


def formula_section(est, title: str) -> Formula:
    """The fitted formula, rounded to read, as text, LaTeX and presentation MathML."""
    if est.expression_ is None:
        return Formula(text="f(x): sympy could not build the expression (the model still predicts)", title=title)
    shown = model_formula(est)
    return Formula(text=shown.text, latex=shown.latex, mathml=shown.mathml, title=title)


def terms_table(est) -> Table:
    """One row per term: its family, its kind of argument (``_argument_kind``), weight, fitted
    parameters and whether g has a closed form."""
    rows = [(k + 1, tm.family, _argument_kind(tm), tm.weight, _parameters(tm), "yes" if closed else "no")
            for k, (tm, closed) in enumerate(zip(est.terms_, est.closed_forms_))]
    return Table(("term", "family", "argument", "weight", "parameters", "closed form"), rows,
                 title=f"Terms (intercept {format_value(est.intercept_)})")


def _argument_kind(tm) -> str:
    """A term's kind of argument as the table says it: linear, unfloored (linear, never floored
    on the training rows) or monomial, and "times a monomial" for a term with a prefactor."""
    return tm.projection.name + (" times a monomial" if tm.prefactor is not None else "")


def importance_table(importances: dict) -> Table:
    """The largest importances (each feature's mean absolute contribution on the rows the
    model was fitted on: ``contributions``)."""
    order = sorted(importances, key=lambda n: -abs(importances[n]))[:TOP_FEATURES]
    return Table(("feature", "importance"), [(n, importances[n]) for n in order],
                 title="Feature importances (mean absolute contribution to the formula on the training rows)")


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
    """The ``TOP_INTERACTIONS`` feature pairs (i < j) with the largest |second-order coefficient|;
    ties go to the pair of larger names (a, then b), as a reverse sort of (|value|, a, b) orders
    them.  Found with numpy over the d x d matrix: the pairs themselves (d^2 / 2 of them, 5e7 at
    d = 10,000) never become Python objects."""
    d = len(names)
    k = min(TOP_INTERACTIONS, d * (d - 1) // 2)
    if k == 0:
        return []
    size = np.abs(est.interactions_)
    size[~np.triu(np.ones((d, d), dtype=bool), 1)] = -1.0  # only the pairs i < j compete
    flat = size.ravel()
    cut = np.partition(flat, flat.size - k)[flat.size - k]
    kept = np.flatnonzero(flat >= cut)
    rows, cols = np.divmod(kept, d)
    rank = np.empty(d, dtype=np.int64)
    rank[np.argsort(np.array(names, dtype=str), kind="stable")] = np.arange(d)
    best = kept[np.lexsort((-rank[cols], -rank[rows], -flat[kept]))[:k]]
    return [dict(a=names[i], b=names[j], value=float(est.interactions_[i, j])) for i, j in zip(*np.divmod(best, d))]


def estimator_display(est):
    """A fitted symbolic model in a notebook (``interp.display``): the formula ``predict`` uses,
    which columns monomial terms may read, the models by size with that row marked, its terms
    and the feature importances."""
    from interp.display import Display

    names = [str(s) for s in feature_symbols(est)]
    note = features_note(est, names) + projection_note(est, names)
    sections = [formula_section(est, "The model predict uses (4 significant digits)"),
                *([Text("\n".join(note))] if note else []),
                *([equations_table(est)] if _has_equations(est) else []), terms_table(est),
                importance_table({n: float(v) for n, v in zip(names, est.feature_importances_)})]
    return Display(f"{type(est).__name__}: {est.n_terms_} term(s) on {len(names)} features", sections)
