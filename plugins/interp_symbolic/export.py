"""Exports of a fitted symbolic model, for any row of its models by size (``equations_``): the
sympy expression, its LaTeX, a LaTeX table of the rows, and the source of a standalone Python
function (numpy, and scipy.special where a term needs it) that computes what ``predict`` does.

Every row keeps the sympy expression of its model as ``predict`` computes it (``equations_``'s
``sympy`` column; ``expression_`` for the selected row): each term wrote its own argument into
it, clipped to its range, and its g as a closed form or a Meijer G
(``expression.build_expression``).  The exports read that expression and nothing else, so they
work on every row and on a model pickled before they existed, and a new kind of term argument
needs nothing here.  What a term needs from the exported code is decided by one function,
``_not_standalone``: scipy has no Meijer G-function, and a custom ridge family is known only by
its own Python code, so a term holding either is refused with a message naming it.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp
from interp import InputError
from interp.results import format_value
from sklearn.utils.validation import check_is_fitted
from sympy.core.function import AppliedUndef
from sympy.printing.numpy import SciPyPrinter

from .expression import feature_symbols
from .render import equation_records, model_formula

__all__ = ["row_index", "row_expression", "row_latex", "latex_table", "python_source"]

LATEX_COLUMNS = ("", "terms", "features", "complexity", "train loss", "held-out loss", r"held-out $R^2$", "formula")


def _rows(est) -> int:
    """How many rows the models-by-size table has (1, the selected model, for a model pickled
    before the table existed)."""
    table = getattr(est, "equations_", None)
    return 1 if table is None else len(table)


def row_index(est, index=None) -> int:
    """The row of ``equations_`` that ``index`` names: None for the row ``predict`` uses
    (``selected_``), else a row number (negative numbers count from the end)."""
    check_is_fitted(est, "terms_")
    selected = getattr(est, "selected_", 0)
    if index is None:
        return selected
    n = _rows(est)
    if isinstance(index, bool) or not isinstance(index, int) or not -n <= index < n:
        raise InputError(f"index must be None (the selected model, row {selected}) or a row number of the "
                         f"{n} models by size (equations_), got {index!r}")
    return index % n


def row_expression(est, index=None) -> sp.Expr:
    """The sympy expression of a row's model's sum at full precision, as ``predict`` would
    compute it with that row selected; a classifier's (a logit link's) is the logit f, the
    probability of ``classes_[1]`` being 1/(1 + exp(-f))."""
    i = row_index(est, index)
    table = getattr(est, "equations_", None)
    expr = est.decision_expression_ if table is None or i == est.selected_ else table["sympy"].iloc[i]
    if expr is None:
        raise InputError(f"row {i} of the models by size has no sympy expression (sympy could not build it)")
    return expr


def row_latex(est, index=None) -> str:
    """A row's formula in LaTeX as the table prints it: the sum, then one line per term defining
    its argument in the feature units, numbers to 4 significant digits (``render.model_formula``)."""
    i = row_index(est, index)
    table = getattr(est, "equations_", None)
    latex = model_formula(est).latex if table is None else table["latex"].iloc[i]
    if latex is None:
        raise InputError(f"row {i} of the models by size has no formula (sympy could not build it)")
    return latex


def latex_table(est) -> str:
    """The models by size (``equations_``) as a LaTeX ``tabular``: one row per model, the
    selected one marked with an asterisk, its formula as ``row_latex`` prints it."""
    check_is_fitted(est, "terms_")
    if getattr(est, "equations_", None) is None:
        raise InputError("this model was fitted before the models-by-size table (equations_) existed")
    lines = [r"\begin{tabular}{cccrrrrl}", r"\hline", " & ".join(LATEX_COLUMNS) + r" \\", r"\hline"]
    for record in equation_records(est):
        numbers = [format_value(record[k]) if record[k] is not None else ""
                   for k in ("n_terms", "n_features", "complexity", "train_loss", "test_loss", "r2")]
        formula = f"${record['latex']}$" if record["latex"] else ""
        lines.append(" & ".join([r"$\ast$" if record["selected"] else "", *numbers, formula]) + r" \\")
    lines += [r"\hline", r"\end{tabular}"]
    return "\n".join(lines)


def _not_standalone(node) -> str | None:
    """Why a function in a model's expression has no standalone numpy/scipy form (None: it has)."""
    if isinstance(node, sp.meijerg):
        groups = [", ".join(format_value(float(v)) for v in g) for g in (node.an, node.aother, node.bm, node.bother)]
        return (f"the Meijer G-function G^{{{len(node.bm)},{len(node.an)}}}_{{{len(node.ap)},{len(node.bq)}}}"
                f"({groups[0]}; {groups[1]} | {groups[2]}; {groups[3]} | z) (scipy has no Meijer G)")
    if isinstance(node, AppliedUndef):
        return f"the custom ridge family {node.func.__name__!r} (its values come from its own Python code)"
    return None


def _problems(expr) -> list[str]:
    """Why each function of ``expr`` without a standalone form has none (empty: it has one)."""
    return sorted({p for node in sp.preorder_traversal(expr) if (p := _not_standalone(node)) is not None})


def has_standalone_form(expr) -> bool:
    """Whether every function of ``expr`` has a numpy/scipy form (``to_python`` exports it)."""
    return not _problems(expr)


def _exportable(est, i: int) -> bool:
    try:
        return has_standalone_form(row_expression(est, i))
    except InputError:
        return False


def _check_standalone(est, i: int, expr) -> None:
    """An InputError naming each term of row ``i`` that has no standalone form, and the rows
    that have one."""
    problems = _problems(expr)
    if not problems:
        return
    exportable = [j for j in range(_rows(est)) if _exportable(est, j)]
    hint = (f"; rows of equations_ in closed forms only: {', '.join(map(str, exportable))} (to_python(index=...))"
            if exportable else "")
    raise InputError(f"row {i} of the models by size has no standalone Python form: a term holds "
                     f"{' and '.join(problems)}{hint}")


def _is_double(c: sp.Float) -> bool:
    """Whether the float constant ``c`` is a double: finite, and 0 only when it is 0."""
    value = float(c)
    return math.isfinite(value) and (value != 0.0 or c.is_zero)


def _in_doubles(expr):
    """``expr`` with every float constant a double: sympy folds exp(-b) of a large intercept b
    into one constant (1/(2.5e-1784*exp(...) + 1)), which is written back as exp(... + log c);
    an InputError names any other constant beyond the doubles."""
    def unfold(node):
        c, rest = node.as_coeff_Mul()
        if not (isinstance(c, sp.Float) and not _is_double(c) and isinstance(rest, sp.exp)):
            return node
        shifted = sp.exp(sp.Add(rest.args[0], sp.log(abs(c)), evaluate=False), evaluate=False)
        return shifted if c > 0 else -shifted

    expr = expr.replace(lambda node: node.is_Mul, unfold)
    beyond = [c for c in expr.atoms(sp.Float) if not _is_double(c)]
    if beyond:
        raise InputError(f"the model's expression holds the constant {beyond[0]}, beyond the range of a double")
    return expr


class _ExactPrinter(SciPyPrinter):
    """scipy's code printer with every float written so that it reads back to the same double."""

    def _print_Float(self, expr):
        return repr(float(expr))


_SOURCE = '''"""{title}

Exported by interp {version} from {model} (row {row} of its models by size).
It needs numpy{scipy} only.
"""

{imports}

#: the columns ``predict`` reads, in this order
FEATURES = {features!r}
{label}

def predict(X):
    """{returns} for each row of ``X``: a 2-d array whose columns are FEATURES in this order, or a
    table (such as a pandas DataFrame) with those columns."""
    if hasattr(X, "columns"):
        X = X[list(FEATURES)]
    X = numpy.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != len(FEATURES):
        raise ValueError(f"X must be a table of {{len(FEATURES)}} columns, got shape {{X.shape}}")
{columns}    with numpy.errstate(all="ignore"):
        {value} = {body}
{link}    return numpy.broadcast_to(numpy.asarray(out, dtype=float), X.shape[:1]).copy()
'''


#: the exported probability of a logit model, from its logit ``f`` (as ``predict_proba`` computes it)
LINK_SOURCE = "        out = 1.0 / (1.0 + numpy.exp(-f))\n"


def python_literal(value) -> str:
    """A class label as Python source: a number, text or boolean as itself (a numpy scalar as
    the Python value it holds), anything else as its text."""
    value = value.item() if hasattr(value, "item") and np.ndim(value) == 0 else value
    return repr(value if isinstance(value, (bool, int, float, str)) else str(value))


def python_source(est, index=None) -> str:
    """The source of a Python module defining ``predict(X)``: a row's model (None: the selected
    one, which ``predict`` uses) with numpy and, where a term needs it, scipy.special, and no
    interp.  A regressor's ``predict`` is the model's prediction, a classifier's the probability
    of ``classes_[1]`` (``predict_proba(X)[:, 1]``), computed as the formula reads: the logit
    f, then 1/(1 + exp(-f)).  An InputError names each term that has no
    such form (a Meijer G-function that no closed form replaced, a custom ridge family)."""
    from interp import __version__

    i = row_index(est, index)
    expr = row_expression(est, i)
    _check_standalone(est, i, expr)
    symbols = feature_symbols(est)
    columns = {s: sp.Symbol(f"x{j}", real=True) for j, s in enumerate(symbols)}
    printer = _ExactPrinter({"fully_qualified_modules": True, "allow_unknown_functions": False})
    body = printer.doprint(_in_doubles(expr.xreplace(columns)))  # (xreplace would fold constants again)
    if printer._not_supported:  # a function scipy's printer does not know: refused like the others
        names = sorted({str(getattr(f, "func", f)) for f in printer._not_supported})
        raise InputError(f"row {i} of the models by size has no standalone Python form: numpy and scipy have no "
                         f"{', '.join(names)}")
    used = sorted(j for j, s in enumerate(symbols) if s in expr.free_symbols)
    modules = sorted({"numpy", *printer.module_imports})
    classes = getattr(est, "classes_", None)
    return _SOURCE.format(
        title=f"A symbolic model of {len(symbols)} features as one numpy function.",
        version=__version__, model=type(est).__name__, row=i,
        scipy=" and scipy.special" if "scipy.special" in modules else "",
        imports="\n".join(f"import {m}" for m in modules), features=tuple(str(s) for s in symbols),
        label="" if classes is None else f"#: the class whose probability ``predict`` returns\n"
                                         f"POSITIVE_CLASS = {python_literal(classes[1])}\n",
        returns=("The probability of POSITIVE_CLASS" if classes is not None else "The model's prediction")
        + (", 1/(1 + exp(-f)) of the logit f," if est._logit_link else ""),
        columns="".join(f"    x{j} = X[:, {j}]\n" for j in used), body=body,
        value="f" if est._logit_link else "out", link=LINK_SOURCE if est._logit_link else "")
