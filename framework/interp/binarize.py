"""Binarisation of tabular data: 0/1 columns with readable names, for methods that need binary input.

``TabularBinarizer`` turns every column into 0/1 columns:

* categorical (text, boolean-as-text, pandas category) columns: one column per level, named
  ``col=level``.  A missing value is a level of its own: ``?`` stays ``col=?`` (as in the UCI
  files), an empty cell / NaN / None becomes ``col=missing``.
* numeric columns whose values are all 0/1: kept as one column ``col``;
* numeric columns with at most ``max_levels`` distinct values (ordinal codes such as 1..10):
  one-hot like categorical columns, ``col=3``;
* other numeric columns: ``n_thresholds`` quantile thresholds t, one column ``col>t`` each.
  NaN in a numeric column adds ``col=missing``.

Levels not seen in ``fit`` give all-zero columns in ``transform``.

``column_logic()`` says what the output columns say of each other whatever the input (the levels
of one column are never true together; ``col>5`` implies ``col>3``): a
``interp.preprocessing.ColumnLogic``, for a method that reads its binary features as logic.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .errors import InputError
from .data import as_numeric
from .preprocessing import BinaryFeatures, ColumnLogic, is_binary

__all__ = ["TabularBinarizer", "binarize_unless_binary"]

_MISSING = "missing"


def _fmt(value: float) -> str:
    """A threshold or level as a name shows it: a whole number as an integer (up to 1e15, beyond
    which it would print hundreds of digits), else 6 significant digits."""
    value = float(value)
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else f"{value:.6g}"


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
    """One-hot categorical columns, threshold numeric columns at quantiles (0/1 output).

    Parameters
    ----------
    max_levels : int, default=10
        Numeric columns with at most this many distinct values are one-hot encoded.
    n_thresholds : int, default=3
        Quantile thresholds for the other numeric columns (evenly spaced quantiles).
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
        qs = np.linspace(0, 1, int(self.n_thresholds) + 2)[1:-1]
        cuts = np.unique(np.quantile(values, qs))
        # a cut strictly inside the data: midpoint between neighbouring values
        thresholds = []
        for c in cuts:
            above = distinct[distinct > c]
            below = distinct[distinct <= c]
            if above.size and below.size:
                thresholds.append(below.max() / 2 + above.min() / 2)  # (a + b) / 2 overflows near 1e308
        thresholds = sorted(set(thresholds)) or [float(np.median(distinct))]
        return ("threshold", thresholds, has_missing), [f"{col}>{_fmt(t)}" for t in thresholds] + missing

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
        return values[:, None] > np.asarray(info)[None, :]

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
            if kind != "threshold":
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
