"""Exports of a fitted score card: its total per row, the card and its risks as tables, and the
card as standalone Python source and as SQL.

A card is read from the fitted model each time an export is called: the estimator's current
``points_``, ``gamma_`` (the scale: one point is worth that much in the linear model) and
``intercept_``, and the binariser that turns the user's columns into the card's (the
``features`` step of the ``Pipeline`` that ``interp run --out`` saves, or of any Pipeline of a
binariser and a Facets estimator).  The model is that Pipeline, or a Facets estimator alone
(whose card reads its columns as given).

Each card column is described once, as a ``CardColumn`` (which user column, and which test or
value), from the binariser's fitted encodings; the Python and the SQL exports write those
descriptions in their language, and both are tested against the model's own numbers.
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
import pandas as pd
from scipy.special import expit
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import check_is_fitted

from interp import InputError
from interp.display import ExplainedEstimator
from interp.preprocessing import class_name

from .snap import on_grid

__all__ = ["CardColumn", "CardModel", "card_model", "predict_score", "card_rows", "card_frame", "risk_frame",
           "to_python", "to_sql", "CardExports", "CardPipeline", "card_display"]

_MISSING = "missing"  # the level a missing text cell is (interp.binarize)
#: the characters Python's ``str.strip`` removes (every one lies below U+3100), which the model
#: strips from a text cell: SQL's one-argument TRIM removes spaces only
WHITESPACE = "".join(ch for ch in map(chr, range(0x3100)) if ch.isspace())


@attrs.frozen
class CardColumn:
    """How one column of the card is read from a user column ``source``: ``test`` is "value"
    (the number itself, a missing one counting as ``value``: an integer code counted per unit),
    ">=", ">" or "==" (1 when the number compares so with ``value``, else 0: a missing number
    never does), "missing" (1 when the number is missing) or "level" (1 when the text, stripped,
    a missing cell read as "missing", equals ``value``)."""

    source: str
    test: str
    value: Any = None


def _split_columns(col: str, splits) -> list[CardColumn]:
    return [CardColumn(col, ">" if split.strict else ">=", float(split.t)) for split in splits]


def _encoded_columns(col: str, kind: str, info, has_missing: bool) -> list[CardColumn]:
    """The card columns one user column gives under its fitted encoding (``TabularBinarizer``'s
    and ``CardBinarizer``'s kinds), in the binariser's order."""
    if kind == "onehot_text":
        columns = [CardColumn(col, "level", str(level)) for level in info]
    elif kind == "binary":
        columns = [CardColumn(col, "==", 1.0)]
    elif kind == "onehot_num":
        columns = [CardColumn(col, "==", float(v)) for v in info]
    elif kind == "splits":
        columns = _split_columns(col, info)
    elif kind == "units":
        columns = [CardColumn(col, "value", float(info.low)), *_split_columns(col, info.splits)]
    else:
        raise InputError(f"cannot export a binariser encoding of kind {kind!r} (column {col!r})")
    return columns + ([CardColumn(col, "missing")] if has_missing else [])


def binarizer_columns(binarizer) -> list[CardColumn]:
    """Every output column of a fitted binariser, in its order (a ``CardBinarizer``'s dropped
    columns, ``keep_``, left out)."""
    columns = [c for col, encoding in zip(binarizer.columns_, binarizer.encodings_)
               for c in _encoded_columns(str(col), *encoding)]
    keep = getattr(binarizer, "keep_", None)
    if keep is not None:
        columns = [c for c, kept in zip(columns, keep) if kept]
    if len(columns) != len(binarizer.get_feature_names_out()):
        raise RuntimeError(f"{len(columns)} exported columns for the binariser's "
                           f"{len(binarizer.get_feature_names_out())}: the export does not know its encoding")
    return columns


@attrs.frozen(eq=False)
class CardModel:
    """A fitted card model: the Facets ``estimator`` and the fitted ``binarizer`` before it (None
    when the card reads its columns as given)."""

    estimator: Any
    binarizer: Any = None

    @property
    def classifier(self) -> bool:
        return hasattr(self.estimator, "classes_")

    @property
    def names(self) -> list[str]:
        """The card's column names."""
        if self.binarizer is not None:
            return [str(n) for n in self.binarizer.get_feature_names_out()]
        names = getattr(self.estimator, "feature_names_in_", None)
        return [str(n) for n in names] if names is not None else [f"x{j}" for j in range(self.estimator.n_features_in_)]

    @property
    def inputs(self) -> list[str]:
        """The user's columns the model reads, in their order."""
        return [str(c) for c in self.binarizer.columns_] if self.binarizer is not None else self.names

    def columns(self) -> list[CardColumn]:
        """How each card column is read from the user's columns."""
        if self.binarizer is not None:
            return binarizer_columns(self.binarizer)
        return [CardColumn(name, "value", None) for name in self.names]

    def points(self) -> np.ndarray:
        return np.asarray(self.estimator.points_, dtype=np.int64)

    def scale(self) -> float:
        return float(self.estimator.gamma_)

    def intercept(self) -> float:
        return float(np.ravel(self.estimator.intercept_)[0])

    def checked_integral(self) -> "CardModel":
        """Itself, or an InputError when the model's coefficients are not its card's points
        times its scale (a model that is not fully integral: its card rounds them)."""
        units = np.ravel(self.estimator.coef_) / self.scale()
        if not np.all(on_grid(units)):
            raise InputError(f"the model is not fully integral ({int(np.sum(~on_grid(units)))} coefficient(s) off "
                             "its grid): its card rounds them, so the card's risks are not the model's")
        return self


def card_model(model) -> CardModel:
    """The ``CardModel`` of a fitted Facets estimator, or of a Pipeline of a binariser and one."""
    if isinstance(model, CardModel):
        return model
    binarizer = None
    if isinstance(model, Pipeline):
        *before, (_, model) = model.steps
        if len(before) > 1 or (before and not hasattr(before[0][1], "encodings_")):
            raise InputError("a card exports from a Facets estimator alone or after one binariser "
                             f"(CardBinarizer, TabularBinarizer); this pipeline has steps {[n for n, _ in before]}")
        binarizer = before[0][1] if before else None
    if not hasattr(model, "points_"):
        raise InputError(f"{type(model).__name__} is not a fitted Facets estimator")
    check_is_fitted(model, "points_")
    return CardModel(model, binarizer)


def predict_score(model, X) -> np.ndarray:
    """The card's total for each row of ``X`` (the user's columns): integers when every total is
    one (0/1 columns and integer codes), else floats.  A model that is not fully integral has
    no card (its rounded points would be another model): an InputError, as for every export."""
    card = card_model(model).checked_integral()
    design = card.binarizer.transform(X) if card.binarizer is not None else _design(card.estimator, X)
    totals = np.asarray(design, dtype=float) @ card.points().astype(float)
    return totals.astype(np.int64) if np.all(totals == np.round(totals)) else totals


def _design(estimator, X) -> np.ndarray:
    from sklearn.utils.validation import validate_data

    return validate_data(estimator, X, dtype=np.float64, reset=False)


def card_rows(model, X) -> list:
    """Why each row of ``X`` (the user's columns) gets its total: the card's rows that hold
    and their points (``interp.local.RowExplanation``: the pieces are those rows, a user
    column's contribution the points of its rows; both sum to the total, from 0 points), with
    the risk and the class the card gives."""
    from interp.local import Piece, RowExplanation

    card = card_model(model).checked_integral()
    design = np.asarray(card.binarizer.transform(X) if card.binarizer is not None else _design(card.estimator, X),
                        dtype=float)
    frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X), columns=card.inputs)
    points, names, sources = card.points().astype(float), card.names, [c.source for c in card.columns()]
    out = []
    for i, row in enumerate(design):
        amounts = row * points
        pieces = [Piece(_held_row(name, row[j], int(points[j])), amounts[j], (sources[j],))
                  for j, name in enumerate(names) if amounts[j] != 0]
        by_column = dict.fromkeys(card.inputs, 0.0)
        for j, amount in enumerate(amounts):
            by_column[sources[j]] += amount
        total = float(amounts.sum())
        out.append(RowExplanation("facets", total, "card total (points)", 0.0, "no row of the card holds", by_column,
                                  pieces, dict(frame.iloc[i]), outcome=_card_outcome(card, total),
                                  show="pieces").check())
    return out


def _held_row(name: str, value: float, points: int) -> str:
    """A card row that holds, as the waterfall names it: ``age >= 65: +5``, or ``+1 per unit
    x 3`` on a row counted per unit."""
    if value == 1:
        return f"{name}: {points:+d}"
    return f"{name}: {points:+d} per unit x {value:g}"


def _card_outcome(card: CardModel, total: float) -> str:
    """What the card concludes from a total: the risk and the class, or the prediction."""
    value = card.scale() * total + card.intercept()
    if not card.classifier:
        return f"total {total:g}: prediction {value:.4g}"
    negative, positive = (class_name(c) for c in card.estimator.classes_)
    return f"total {total:g}: risk of {positive} {expit(value):.1%}; predict {positive if value > 0 else negative}"


def card_frame(model) -> pd.DataFrame:
    """The card: its rows with non-zero points, largest |points| first (ties in column order),
    as columns ``feature`` and ``points``."""
    card = card_model(model).checked_integral()
    rows = [(name, int(p)) for name, p in zip(card.names, card.points()) if p != 0]
    rows.sort(key=lambda row: -abs(row[1]))
    return pd.DataFrame(rows, columns=["feature", "points"]).astype({"points": "int64"})


def _column_range(column: CardColumn, low_high) -> tuple[float, float]:
    """The values a card column takes: 0/1 for a test, the code's range for a "value" column."""
    if column.test != "value":
        return 0.0, 1.0
    return low_high


def attainable_totals(card: CardModel) -> tuple[int, int] | None:
    """The lowest and highest total the card can give: from the binariser's encodings, or from the
    columns' training ranges (``data_min_``, ``data_max_``, recorded at fit); None when neither
    is known (a model fitted before the ranges were recorded, without a binariser)."""
    points = card.points()
    if card.binarizer is not None:
        units = {c.source: _unit_range(card.binarizer, c.source) for c in card.columns() if c.test == "value"}
        ranges = np.array([_column_range(c, units.get(c.source)) for c in card.columns()])
    elif hasattr(card.estimator, "data_min_"):
        ranges = np.column_stack([card.estimator.data_min_, card.estimator.data_max_])
    else:
        return None
    ends = points[:, None] * ranges
    return int(np.floor(ends.min(axis=1).sum())), int(np.ceil(ends.max(axis=1).sum()))


def _unit_range(binarizer, source: str) -> tuple[float, float]:
    info = binarizer.encodings_[[str(c) for c in binarizer.columns_].index(source)][1]
    return float(info.low), float(info.high)


def risk_frame(model, X=None) -> pd.DataFrame:
    """Each total the card can give, and the model's probability of ``classes_[1]`` at it
    (``risk``; a regressor's ``prediction``): the totals from the lowest to the highest that
    ``X``'s rows give when ``X`` is given, else that the card's columns allow."""
    card = card_model(model).checked_integral()
    if X is not None:
        scores = predict_score(model, X)
        span = (int(np.floor(scores.min())), int(np.ceil(scores.max())))
    else:
        span = attainable_totals(card)
        if span is None:
            raise InputError("the card's column ranges are not known: give X, rows whose totals to list")
    totals = np.arange(span[0], span[1] + 1)
    linear = card.intercept() + card.scale() * totals
    output = "risk" if card.classifier else "prediction"
    return pd.DataFrame({"total": totals, output: expit(linear) if card.classifier else linear})


# ---------------------------------------------------------------------------------------- SQL
def sql_identifier(name: str) -> str:
    """``name`` as a quoted SQL identifier (an embedded quote doubled)."""
    if "\x00" in name:
        raise InputError(f"a SQL name cannot hold a NUL character: {name!r}")
    return '"' + name.replace('"', '""') + '"'


def sql_text(text: str) -> str:
    """``text`` as a SQL string literal (an embedded quote doubled)."""
    if "\x00" in text:
        raise InputError(f"a SQL string cannot hold a NUL character: {text!r}")
    return "'" + text.replace("'", "''") + "'"


def _sql_condition(column: CardColumn) -> str:
    """A 0/1 card column's test as a SQL condition on the user's column."""
    col = "t." + sql_identifier(column.source)
    if column.test == "missing":
        return f"{col} IS NULL"
    if column.test == "level":
        stripped = f"TRIM(CAST({col} AS TEXT), {sql_text(WHITESPACE)})"
        return f"COALESCE(NULLIF({stripped}, ''), {sql_text(_MISSING)}) = {sql_text(column.value)}"
    return f"{col} {'=' if column.test == '==' else column.test} {column.value!r}"


def _sql_term(column: CardColumn, points: int) -> str:
    """A card row's points as a SQL expression: a CASE for a 0/1 column, points times the value
    for a column counted per unit."""
    if column.test != "value":
        return f"CASE WHEN {_sql_condition(column)} THEN {points} ELSE 0 END"
    col = "t." + sql_identifier(column.source)
    return f"{points} * " + (col if column.value is None else f"COALESCE({col}, {column.value!r})")


def to_sql(model, table_name: str) -> str:
    """A SQL query that adds the card's ``score`` (its total) and ``risk`` (the probability of
    ``classes_[1]``; a regressor's ``prediction``) as the last two columns of every row of the
    table ``table_name``, whose columns are the user's columns (numbers, or text for text
    columns; a missing value NULL).  The query refers to the user's columns only (qualified,
    ``t."col"``), never to its own outputs, so a table with a column named ``score`` or
    ``risk`` gives the same two numbers (and two columns of that name).  Dialects: SQLite (3.35
    or later, for EXP) and DuckDB, both tested against the model; it uses double-quoted names,
    CASE, COALESCE, NULLIF, EXP and the two-argument ``TRIM(text, characters)``."""
    card = card_model(model).checked_integral()
    terms = [_sql_term(c, int(p)) for c, p in zip(card.columns(), card.points()) if p != 0]
    score = "(" + ("\n     + ".join(terms) or "0") + ")"
    linear = f"{card.intercept()!r} + {card.scale()!r} * {score}"
    output = f"1.0 / (1.0 + EXP(-({linear})))\n  AS risk" if card.classifier else f"{linear}\n  AS prediction"
    return f"SELECT t.*,\n  {score}\n  AS score,\n  {output}\nFROM {sql_identifier(table_name)} AS t"


# ------------------------------------------------------------------------------------- Python
def _python_value(column: CardColumn, index: int) -> str:
    """A card column as a Python expression of the arrays the exported module reads."""
    col = f"columns[{index}]"
    if column.test == "value":
        return f"_numbers({col})" if column.value is None else f"_or(_numbers({col}), {column.value!r})"
    if column.test == "missing":
        return f"numpy.isnan(_numbers({col}))"
    if column.test == "level":
        return f"(_levels({col}) == {column.value!r})"
    return f"(_numbers({col}) {column.test} {column.value!r})"


_PYTHON = '''"""A score card as standalone Python: exported by interp {version} from {model}.

It needs numpy only.  ``score(X)`` is the card's total for each row and ``{output}(X)`` {meaning}.
``X`` is a table with the columns INPUTS (a pandas DataFrame, or a dict of arrays), or a 2-d
array whose columns are INPUTS in this order; a missing value is None or NaN.
"""

import numpy

#: the user's columns the card reads
INPUTS = {inputs!r}
INTERCEPT = {intercept!r}
SCALE = {scale!r}
{label}

def _table(X):
    if hasattr(X, "keys"):
        return [numpy.asarray(X[name], dtype=object) for name in INPUTS]
    X = numpy.asarray(X, dtype=object)
    if X.ndim != 2 or X.shape[1] != len(INPUTS):
        raise ValueError(f"X must have the {{len(INPUTS)}} columns {{INPUTS}}, got shape {{X.shape}}")
    return list(X.T)


def _missing(value):
    return type(value).__name__ in ("NAType", "NaTType") or value is None or value != value


def _numbers(values):
    """A column as floats: numbers, or text that reads as one; anything else is missing (NaN)."""
    try:
        return numpy.asarray(values, dtype=float)  # numbers, None as NaN
    except (TypeError, ValueError):
        pass
    out = numpy.full(len(values), numpy.nan)
    for i, value in enumerate(values):
        if not _missing(value):
            try:
                out[i] = float(str(value).strip()) if isinstance(value, str) else float(value)
            except (TypeError, ValueError):
                pass
    return out


def _levels(values):
    """A text column's levels: each cell stripped, a missing or empty one read as "missing"."""
    return numpy.array(["missing" if _missing(v) or not str(v).strip() else str(v).strip() for v in values],
                       dtype=object)


def _or(numbers, default):
    return numpy.where(numpy.isnan(numbers), default, numbers)


def score(X):
    """The card's total for each row of ``X``."""
    columns = _table(X)
    total = numpy.zeros(len(columns[0]) if columns else 0)
{score}
    return total


def {output}(X):
    """{output_doc}"""
    linear = INTERCEPT + SCALE * score(X)
    return {formula}
'''


def to_python(model) -> str:
    """The source of a Python module (numpy only, no interp) with ``score(X)``, the card's total
    for each row, and ``risk(X)``, the probability of ``classes_[1]`` (a regressor:
    ``prediction(X)``), on the user's columns."""
    from interp import __version__

    card = card_model(model).checked_integral()
    inputs = card.inputs
    lines = [f"    total = total + {int(p)} * {_python_value(c, inputs.index(c.source))}"
             for c, p in zip(card.columns(), card.points()) if p != 0]
    if card.classifier:
        label = f"#: the class whose probability ``risk`` returns\nPOSITIVE_CLASS = {str(card.estimator.classes_[1])!r}\n"
        output, meaning = "risk", "the probability of POSITIVE_CLASS"
        formula, doc = "1.0 / (1.0 + numpy.exp(-linear))", "The probability of POSITIVE_CLASS for each row."
    else:
        label, output, meaning = "", "prediction", "the model's prediction"
        formula, doc = "linear", "The model's prediction for each row."
    return _PYTHON.format(version=__version__, model=type(card.estimator).__name__, output=output, meaning=meaning,
                          inputs=tuple(inputs), intercept=card.intercept(), scale=card.scale(), label=label,
                          score="\n".join(lines), output_doc=doc, formula=formula)


class CardPipeline(Pipeline):
    """The model ``interp run --out`` saves: a scikit-learn ``Pipeline`` of the binariser and
    the card estimator, which also says why each row gets its total (``card_rows``)."""

    def for_rows(self, X) -> list:
        return card_rows(self, X)


class CardExports(ExplainedEstimator):
    """The exports and the notebook display of a Facets estimator alone, whose card reads the
    columns it was fitted on as they are (thin methods over this module's functions, which also
    take a Pipeline of a binariser and an estimator, as ``interp run --out`` saves)."""

    def predict_score(self, X):
        """The card's total for each row of ``X`` (``predict_score``)."""
        return predict_score(self, X)

    def for_rows(self, X) -> list:
        """Why each row of ``X`` gets its total (``card_rows``)."""
        return card_rows(self, X)

    def card_frame(self) -> pd.DataFrame:
        """The card as a DataFrame of feature and points (``card_frame``)."""
        return card_frame(self)

    def risk_frame(self, X=None) -> pd.DataFrame:
        """Each total and the model's probability of ``classes_[1]`` (or prediction) at it (``risk_frame``)."""
        return risk_frame(self, X)

    def to_python(self) -> str:
        """The card as the source of a numpy-only module (``to_python``)."""
        return to_python(self)

    def to_sql(self, table_name: str) -> str:
        """The card as a SQL query adding its score and risk to the rows of a table (``to_sql``)."""
        return to_sql(self, table_name)

    def _display(self):
        return card_display(self)


def card_display(model):
    """A fitted card in a notebook (``interp.display.Display``): a Facets estimator, or a Pipeline
    of a binariser and one (what ``interp run --out`` saves).  Its card, its rule and, for a
    classifier, the risk of every total the card can give (``RiskTable``: the model's own
    probability at each total), and the fitted numbers; for a model that is not fully integral,
    why it has no card."""
    from interp import Table, Text
    from interp.display import Display

    from .render import card_header, fmt
    from .risk import RiskTable
    from .scorecard import no_card_reason, score_card

    model = card_model(model)
    est = model.estimator
    reason = no_card_reason(est)
    if reason is not None:  # rounded points would be another model: say why, as the command line does
        numbers = [("integrity (points on the grid)", est.integrity_), ("grid step", model.scale()),
                   ("intercept", model.intercept())]
        return Display(f"{type(est).__name__}: no score card", [Text(reason), Table(("", "value"), numbers, title="fit")])
    card = score_card(est, feature_names=model.names)
    if model.binarizer is not None:  # its columns are 0/1 tests and integer codes: the totals are integers
        card = attrs.evolve(card, integer_features=True)
    sections = [Table(("feature", "points"), card_frame(model).itertuples(index=False), title=card_header(card))]
    linear = f"{fmt(model.intercept())} + {fmt(model.scale())} x total"
    if not model.classifier:
        sections.append(Text(f"prediction = {linear}"))
    else:
        span = attainable_totals(model) if card.integral else None
        risk = "" if span is None else RiskTable(model.intercept(), model.scale(), tuple(range(span[0], span[1] + 1)))
        sections.append(Text("\n".join([card.rule(), f"risk = 1 / (1 + exp(-({linear})))",
                                        *([""] + risk.text(card.positive).splitlines() if risk else [])])))
    numbers = [("integrity (points on the grid)", est.integrity_), ("rows on the card", len(card.rows())),
               ("scale (one point in the linear model)", model.scale()), ("intercept", model.intercept())]
    sections.append(Table(("", "value"), numbers, title="fit"))
    reads = f" after {type(model.binarizer).__name__}" if model.binarizer is not None else ""
    return Display(f"{type(est).__name__}{reads}: a score card of {len(card.rows())} rows", sections)
