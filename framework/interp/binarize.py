"""Binarisation of tabular data: 0/1 columns with readable names, for methods that need binary input.

``TabularBinarizer`` turns every column into 0/1 columns:

* categorical (text, boolean-as-text, pandas category) columns: one column per level, named
  ``col=level``.  A missing value is a level of its own: ``?`` stays ``col=?`` (as in the UCI
  files), an empty cell / NaN / None becomes ``col=missing``.
* numeric columns whose values are all 0/1: kept as one column ``col``;
* numeric columns with at most ``max_levels`` distinct values (ordinal codes such as 1..10):
  one-hot like categorical columns, ``col=3``;
* other numeric columns: ``n_thresholds`` round thresholds near evenly spaced quantiles, one
  column ``col>=t`` each (`round_quantile_splits`: ``age>=50``, not ``age>49.37``; a column whose
  lower part is all zeros gets ``col>0``).  NaN in a numeric column adds ``col=missing``.

Levels not seen in ``fit`` give all-zero columns in ``transform``.

``column_logic()`` says what the output columns say of each other whatever the input (the levels
of one column are never true together; ``col>5`` implies ``col>3``): a
``interp.preprocessing.ColumnLogic``, for a method that reads its binary features as logic.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any, Sequence

import attrs
import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .errors import InputError
from .data import as_numeric
from .preprocessing import BinaryFeatures, ColumnLogic, is_binary

__all__ = ["TabularBinarizer", "binarize_unless_binary", "Split", "round_quantile_splits", "round_threshold"]

_MISSING = "missing"

#: half-width of the band of quantiles a threshold may move within, as a fraction of the spacing
#: between two target quantiles (the bands of neighbouring thresholds never overlap)
QUANTILE_SLACK = 0.25

#: the steps a round threshold is a multiple of, within one decade, coarsest first
ROUND_MANTISSAS = (5, 2, 1)

#: the most significant digits a threshold may show before the quantile rounded to two is used
MAX_DIGITS = 2


def _fmt(value: float) -> str:
    """A threshold or level as a name shows it: a whole number as an integer (up to 1e15, beyond
    which it would print hundreds of digits), else 6 significant digits."""
    value = float(value)
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else f"{value:.6g}"


def _significant_digits(t: float) -> int:
    """How many significant digits ``t`` shows (0 for zero)."""
    return 0 if t == 0 else len(Decimal(repr(float(t))).normalize().as_tuple().digits)


def _first_multiple_above(low: float, mantissa: int, exponent: int) -> float:
    """The smallest decimal k x mantissa x 10^exponent (k an integer) whose float is above
    ``low``, as that float (read from its decimal text, so 0.3 and not 0.30000000000000004)."""
    def multiple(k: int) -> float:
        return float(f"{k * mantissa}e{exponent}")

    step = float(f"{mantissa}e{exponent}")  # inf beyond the largest float, where 10.0**309 raises
    k = math.floor(low / step) + 1  # exact up to float rounding: corrected
    while multiple(k - 1) > low:
        k -= 1
    while multiple(k) <= low:
        k += 1
    return multiple(k)


def round_threshold(low: float, high: float) -> float:
    """The roundest number t with ``low < t <= high`` (``low < high``): 0 when the interval holds
    it, else the smallest multiple above ``low`` of the coarsest step m x 10^k (m in 5, 2, 1)
    that has one in the interval."""
    if not low < high:
        raise ValueError(f"empty interval ({low}, {high}]")
    if low < 0 <= high:
        return 0.0
    exponent = math.floor(math.log10(max(abs(low), abs(high)))) + 1
    while True:  # ends: once a step is below the floats' spacing, the float after low qualifies
        for mantissa in ROUND_MANTISSAS:
            t = _first_multiple_above(low, mantissa, exponent)
            if t <= high:
                return t
        exponent -= 1


@attrs.frozen
class Split:
    """One threshold of a numeric column: the 0/1 column ``x > t`` when ``strict``, else
    ``x >= t`` (a missing value is never above)."""

    t: float
    strict: bool = False

    def name(self, col: str, space: str = "") -> str:
        """``col>=50`` (or with ``space`` around the sign, ``col >= 50``)."""
        return f"{col}{space}{'>' if self.strict else '>='}{space}{_fmt(self.t)}"

    def apply(self, values: np.ndarray) -> np.ndarray:
        return values > self.t if self.strict else values >= self.t


def _n_above(sorted_values: np.ndarray, split: Split) -> int:
    side = "right" if split.strict else "left"
    return int(sorted_values.size - np.searchsorted(sorted_values, split.t, side=side))


def round_quantile_splits(values: np.ndarray, n_thresholds: int) -> list[Split]:
    """Round thresholds near the ``n_thresholds`` evenly spaced quantiles of a numeric column
    (``values`` without missing ones), ascending, each splitting the data and no two alike.

    Each sits at the roundest number within a band of quantiles around its target (a multiple
    of 5, 2 or 1 x 10^k, the coarsest that fits: ``age >= 50``); a non-integer column whose
    lower part is all zeros gets ``x > 0``; when even the band allows no number with at most
    `MAX_DIGITS` significant digits, the quantile itself rounded to that many digits (if that
    still splits the data).  A person reads a rule or a card row at a glance, and a threshold
    moved within its band splits the rows almost as the quantile does."""
    sorted_values = np.sort(np.asarray(values, dtype=float))
    distinct = np.unique(sorted_values)
    integer = bool(np.all(distinct == np.round(distinct)))
    n = sorted_values.size
    spacing = 1.0 / (n_thresholds + 1)
    splits, seen = [], set()
    for q in spacing * np.arange(1, n_thresholds + 1):
        low = sorted_values[int(np.clip(math.floor((q - QUANTILE_SLACK * spacing) * n), 0, n - 1))]
        high = sorted_values[int(np.clip(math.ceil((q + QUANTILE_SLACK * spacing) * n) - 1, 0, n - 1))]
        if low == high:  # a band inside one tied value: split just above it (or below the top)
            i = int(np.searchsorted(distinct, low))
            low, high = (low, distinct[i + 1]) if i + 1 < distinct.size else (distinct[i - 1], low)
        if low > distinct[0]:  # x >= low itself splits the data: let the threshold sit on it
            low = np.nextafter(low, -np.inf)
        split = Split(0.0, strict=True) if low == 0 and not integer else Split(round_threshold(low, high))
        if _significant_digits(split.t) > MAX_DIGITS:
            rounded = Split(float(f"{sorted_values[min(int(q * n), n - 1)]:.{MAX_DIGITS}g}"))
            if 0 < _n_above(sorted_values, rounded) < n:
                split = rounded
        count = _n_above(sorted_values, split)
        if 0 < count < n and count not in seen:
            seen.add(count)
            splits.append(split)
    return sorted(splits, key=lambda s: (s.t, s.strict))


def _as_numeric(series: pd.Series) -> pd.Series | None:
    """The column as float, "?" and empty cells missing; None for a categorical column."""
    return as_numeric(series, missing=("", "?"))


def _levels(series: pd.Series) -> pd.Series:
    text = series.astype(object).where(series.notna(), _MISSING).astype(str).str.strip()
    return text.where(text != "", _MISSING)


def _check_name_free(name: str, col: str, owners: dict[str, str]) -> None:
    """Record that column ``col`` gives the output ``name``, or an InputError when another
    column gave it already (a column ``x >= 0`` beside the threshold ``x >= 0`` of a column
    ``x``; the level ``b = c`` of ``a`` and the level ``c`` of ``a = b``): a card or a rule
    would show two different features under one name."""
    other = owners.setdefault(name, col)
    if other != col:
        raise InputError(f"the columns {other!r} and {col!r} both give a feature named {name!r}, which would "
                         "read as one; rename one of the columns")


class TabularBinarizer(TransformerMixin, BaseEstimator):
    """One-hot categorical columns, numeric columns at round thresholds near quantiles (0/1
    output).

    Parameters
    ----------
    max_levels : int, default=10
        Numeric columns with at most this many distinct values are one-hot encoded.
    n_thresholds : int, default=3
        Thresholds for the other numeric columns (round numbers near evenly spaced quantiles).
    """

    def __init__(self, max_levels: int = 10, n_thresholds: int = 3) -> None:
        self.max_levels = max_levels
        self.n_thresholds = n_thresholds

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        tags.input_tags.allow_nan = True
        return tags

    def _frame(self, X, reset: bool) -> pd.DataFrame:
        if isinstance(X, pd.DataFrame):
            validate_data(self, X, reset=reset, dtype=None, ensure_all_finite="allow-nan",
                          skip_check_array=True)
            if not reset and X.shape[1] != self.n_features_in_:
                raise ValueError(f"X has {X.shape[1]} features, but TabularBinarizer is expecting "
                                 f"{self.n_features_in_} features as input")
            frame = X.copy()
            frame.columns = [str(c) for c in frame.columns]
            return frame.reset_index(drop=True)
        arr = validate_data(self, X, reset=reset, dtype=None, ensure_all_finite="allow-nan")
        names = getattr(self, "columns_", None) if not reset else None
        names = names or [f"x{i}" for i in range(arr.shape[1])]
        return pd.DataFrame(arr, columns=names)

    def fit(self, X, y=None):
        if int(self.max_levels) < 1 or int(self.n_thresholds) < 1:
            raise InputError("max_levels and n_thresholds must be at least 1")
        frame = self._frame(X, reset=True)
        self.columns_ = list(frame.columns)
        self.encodings_ = []
        names: list[str] = []
        owners: dict[str, str] = {}
        for col in frame.columns:
            encoding, column_names = self._encode_column(str(col), frame[col])
            self.encodings_.append(encoding)
            names += column_names
            for name in column_names:
                _check_name_free(name, str(col), owners)
        self.feature_names_out_ = np.asarray(names, dtype=object)
        return self

    def _encode_column(self, col: str, series: pd.Series) -> tuple[tuple, list[str]]:
        """(encoding, output names) of one column; the encoding is (kind, info, has_missing),
        what `_column_block` reads back."""
        numeric = _as_numeric(series)
        if numeric is None:
            levels = sorted(_levels(series).unique())
            return ("onehot_text", levels, False), [f"{col}={lv}" for lv in levels]
        values = numeric.dropna().to_numpy()
        has_missing = bool(numeric.isna().any())
        missing = [f"{col}={_MISSING}"] if has_missing else []
        distinct = np.unique(values)
        if distinct.size and np.isin(distinct, (0.0, 1.0)).all():
            return ("binary", None, has_missing), [str(col)] + missing
        if distinct.size <= int(self.max_levels):
            return (("onehot_num", distinct.tolist(), has_missing),
                    [f"{col}={_fmt(v)}" for v in distinct] + missing)
        splits = round_quantile_splits(values, int(self.n_thresholds))
        return ("splits", splits, has_missing), [split.name(col) for split in splits] + missing

    def __setstate__(self, state: dict) -> None:
        """Loads a binarizer pickled by an older interp, whose numeric columns were ``col>t`` at
        raw quantiles (the kind "threshold"): the same columns as strict splits."""
        encodings = state.get("encodings_")
        if encodings is not None:
            state["encodings_"] = [("splits", [Split(float(t), strict=True) for t in info], missing)
                                   if kind == "threshold" else (kind, info, missing)
                                   for kind, info, missing in encodings]
        super().__setstate__(state)

    def transform(self, X) -> np.ndarray:
        check_is_fitted(self, "encodings_")
        return self._columns(self._frame(X, reset=False)).astype(float)

    def _columns(self, frame: pd.DataFrame) -> np.ndarray:
        """Every output column of ``frame`` as a boolean matrix."""
        blocks = [self._column_block(frame.iloc[:, j], *encoding) for j, encoding in enumerate(self.encodings_)]
        return np.hstack(blocks) if blocks else np.zeros((len(frame), 0), dtype=bool)

    def _column_block(self, series: pd.Series, kind: str, info, has_missing: bool) -> np.ndarray:
        """The output columns of one input column under its encoding, as a boolean matrix."""
        if kind == "onehot_text":
            return _levels(series).to_numpy()[:, None] == np.asarray(info, dtype=object)[None, :]
        numeric = _as_numeric(series)
        if numeric is None:  # text where numbers were seen in fit
            numeric = pd.to_numeric(series, errors="coerce")
        values = numeric.to_numpy(dtype=float)
        block = self._numeric_block(values, kind, info)
        return np.hstack([block, np.isnan(values)[:, None]]) if has_missing else block

    def _numeric_block(self, values: np.ndarray, kind: str, info) -> np.ndarray:
        """The columns of a numeric column (without its missing-value column)."""
        if kind == "binary":
            return (values == 1)[:, None]
        if kind == "onehot_num":
            return values[:, None] == np.asarray(info)[None, :]
        columns = [split.apply(values) for split in info]
        return np.stack(columns, axis=1) if columns else np.zeros((values.size, 0), dtype=bool)

    def column_logic(self) -> ColumnLogic:
        """What the output columns say of each other on every row ``transform`` can produce
        (see `ColumnLogic`): one-hot levels, a 0/1 column and a missing-value column exclude
        each other (an unseen level makes them all false, so "at most one", not "one"); a
        higher threshold implies every lower one, and a missing value makes every threshold
        false."""
        check_is_fitted(self, "encodings_")
        exclusive: list[tuple[int, ...]] = []
        implies: list[tuple[int, int]] = []
        start = 0
        for kind, info, has_missing in self.encodings_:
            width = (1 if kind == "binary" else len(info)) + has_missing
            block = range(start, start + width)
            if kind != "splits":
                exclusive.append(tuple(block))
            else:
                cuts = block[:len(info)]  # ascending thresholds
                implies += [(hi, lo) for i, hi in enumerate(cuts) for lo in cuts[:i]]
                if has_missing:
                    exclusive += [(c, block[-1]) for c in cuts]
            start += width
        return ColumnLogic(tuple(g for g in exclusive if len(g) > 1), tuple(implies))

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        check_is_fitted(self, "feature_names_out_")
        return self.feature_names_out_.copy()


def binarize_unless_binary(X: Any, names: Sequence[str], *, raw: Any = None, logic: ColumnLogic | None = None,
                           mode: str = "auto", n_thresholds: int = 3, max_levels: int = 10) -> BinaryFeatures:
    """0/1 features for a method that reads binary data.

    ``mode``: "auto" binarises when some column is not 0/1, "always" binarises every column
    (0/1 columns pass through the binarizer unchanged), "never" returns ``X`` as it is.  ``raw``
    is the table before numeric encoding (``Dataset.raw``), read in preference to ``X`` so that
    text levels keep their names.  ``logic`` is what the columns of ``X`` say of each other
    (``Dataset.column_logic()``), kept when they pass through; binarised columns get the
    binarizer's.
    """
    if mode not in ("auto", "always", "never"):
        raise InputError(f"binarize must be auto, always or never, got {mode!r}")
    X = np.asarray(X, dtype=float)
    if mode == "never" or (mode == "auto" and is_binary(X)):
        return BinaryFeatures(X=X, names=tuple(str(n) for n in names), logic=logic or ColumnLogic())
    source = raw if raw is not None else pd.DataFrame(X, columns=[str(n) for n in names])
    binarizer = TabularBinarizer(max_levels=max_levels, n_thresholds=n_thresholds).fit(source)
    out = binarizer.transform(source)
    return BinaryFeatures(X=out, names=tuple(str(n) for n in binarizer.get_feature_names_out()),
                          binarizer=binarizer, logic=binarizer.column_logic())
