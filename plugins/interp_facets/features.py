"""Readable features for a score card: ``age >= 50``, ``sex = Male``, ``clump thickness (1-10)``.

A card is read by a person adding points, so its features must be 0/1 statements (or small
integer codes counted per unit) that read at a glance and never say the same thing twice:

* numeric columns with many values get ``n_thresholds`` thresholds ``x >= t`` near evenly spaced
  quantiles, each at the roundest number within a band of quantiles around the target
  (`interp.binarize.round_quantile_splits`, as every binariser of the project places them);
* numeric columns with at most ``max_levels`` values (codes such as 1..4) are ordinal, not
  one-hot: ``x >= t`` at every level but the lowest, so their order is kept;
* integer columns with at least `MIN_UNIT_LEVELS` levels, and at most ``max_levels`` of
  them or spanning at most `MAX_UNIT_RANGE` units (a code 1..10, a count, an age in
  years), get a per-unit column, the value itself (named ``col (1-10)``: the card's row adds its
  points times the value).  A threshold at every level would spend the card's rows following a
  nearly linear effect step by step.  A code of at most ``max_levels`` levels (a rating 1..10)
  gets the per-unit column alone: its steps are the scale's own, and thresholds beside it let a
  card zig-zag (``+1 per unit`` and ``>= 5: -5``) to fit noise.  A longer range (ages, counts)
  also gets ``n_thresholds`` round thresholds, for a bend in its effect (``age >= 60``); the
  search chooses between the unit column and the thresholds;
* 0/1 columns are kept as they are, text columns are one-hot (``col = level``; a two-level text
  column keeps one level, the rarer one); a missing number is a level of its own, the row
  ``col is missing`` (1 where the value is missing, and 0 in every threshold of the column), never
  an error and never a value made up for it;
* no column appears twice, and no column beside its complement (``Male`` and ``Female``, or
  ``x >= t`` and ``x < t``): of each such group the first is kept.

`CardBinarizer` is the fitted transformer (``transform`` re-applies it to new rows and it
pickles on its own); `card_features` fits it and returns the design.
"""

from __future__ import annotations

import attrs
import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from interp import InputError
from interp.binarize import _MISSING, Split, TabularBinarizer, _as_numeric, _fmt, _levels, round_quantile_splits
from interp.preprocessing import BinaryFeatures

from .space import DataDirections

__all__ = ["CardFeatures", "CardBinarizer", "card_features"]

#: integer codes with at least this many levels (and at most ``max_levels``) get a per-unit
#: column and round thresholds instead of a threshold at every level
MIN_UNIT_LEVELS = 5

#: an integer column with more than ``max_levels`` levels (a count, an age in years) also gets a
#: per-unit column when its values span at most this many units, so that a row's points times
#: the value stay a number a person adds up
MAX_UNIT_RANGE = 100

@attrs.frozen(eq=False)
class CardFeatures(BinaryFeatures):
    """The design a card is written in (0/1 columns and per-unit integer codes): ``X``, its
    ``names``, the fitted ``binarizer`` (a `CardBinarizer`; None when the columns are
    used as given, ``binarize`` never) and per column its ``groups`` (the original column it
    comes from: the estimators' ``groups``, so that a column's thresholds count as one feature)
    and whether it ``rises`` with that column's value (thresholds, per-unit codes, 0/1 columns;
    not "is missing" nor a text level)."""

    groups: tuple[str, ...] = ()
    rises: tuple[bool, ...] = ()

    def monotone(self, directions) -> tuple[int, ...]:
        """The per-column form of ``{"age": +1, ...}`` (original columns, as in ``groups``) for
        the estimators' ``monotone``: the direction on every row of the column that rises with
        its value, 0 elsewhere; an unknown or text-only column is a one-line InputError."""
        out = [0] * len(self.names)
        for col, direction in dict(directions).items():
            rows = [j for j, g in enumerate(self.groups) if g == str(col)]
            if not rows:
                raise InputError(f"monotone names {col!r}, which is not a column of the data "
                                 f"(columns: {', '.join(dict.fromkeys(self.groups))})")
            if not any(self.rises[j] for j in rows):
                raise InputError(f"monotone: {col!r} is a text column, whose levels have no order")
            for j in rows:
                out[j] = direction if self.rises[j] else 0
        return tuple(out)

    def data_directions(self) -> DataDirections:
        """The estimators' ``monotone`` that makes each ordered column of this design monotone
        the way its association with the target goes on the rows a fit sees (`DataDirections`,
        per original column; text levels and "is missing" rows stay free).  A design of columns
        as given (no groups) takes one direction per column."""
        return DataDirections(self.groups or None, self.rises or None)


_Split = Split  # the name cards saved by an older interp pickled their thresholds under


@attrs.frozen
class _Units:
    """The per-unit column of an integer code with levels ``low`` to ``high``: the code itself
    (a missing value counts as ``low``; its own column says it is missing), then the 0/1
    columns of its round thresholds ``splits``."""

    low: float
    high: float
    splits: tuple

    def name(self, col: str) -> str:
        return f"{col} ({_fmt(self.low)}-{_fmt(self.high)})"

    def block(self, values: np.ndarray) -> np.ndarray:
        codes = np.where(np.isnan(values), self.low, values)[:, None]
        return np.hstack([codes] + [split.apply(values)[:, None] for split in self.splits])


def _numeric_encoding(numeric: pd.Series, n_thresholds: int, max_levels: int) -> tuple:
    """(kind, info) for a numeric column: ("binary", None) for 0/1, ("splits", [Split...])
    for ordinal codes with few levels (every level but the lowest) and for many-valued columns
    (round quantile thresholds), ("units", _Units) for integer codes with more levels (the
    per-unit column alone) and for integer columns of a short range (the per-unit column and
    round thresholds; see the module docstring)."""
    values = np.sort(numeric.dropna().to_numpy(dtype=float))
    distinct = np.unique(values)
    if distinct.size and np.isin(distinct, (0.0, 1.0)).all():
        return "binary", None
    integer = bool(np.all(distinct == np.round(distinct)))
    if integer and distinct.size >= MIN_UNIT_LEVELS and (
            distinct.size <= max_levels or distinct[-1] - distinct[0] <= MAX_UNIT_RANGE):
        code = distinct.size <= max_levels  # a short code: its levels are the steps, no thresholds
        splits = () if code else tuple(round_quantile_splits(values, n_thresholds))
        return "units", _Units(float(distinct[0]), float(distinct[-1]), splits)
    if distinct.size <= max_levels:
        return "splits", [Split(float(t)) for t in distinct[1:]]
    return "splits", round_quantile_splits(values, n_thresholds)


def _text_levels(series: pd.Series) -> list[str]:
    """The levels a text column is one-hot encoded into: all of them, or of two, the rarer."""
    counts = _levels(series).value_counts()
    levels = sorted(counts.index)
    if len(levels) == 2:
        return [min(levels, key=lambda lv: (counts[lv], lv))]
    return levels


def _keep_mask(B: np.ndarray) -> np.ndarray:
    """Which columns of ``B`` (0/1 columns and integer codes) to keep: not constant, and none
    equal to or the complement (1 - x) of an earlier kept one (found by exact integer hashes,
    then checked)."""
    n, p = B.shape
    keep = np.zeros(p, dtype=bool)
    if p == 0:
        return keep
    B = B.astype(np.int64)
    constant = B.min(axis=0) == B.max(axis=0)
    weights = np.random.default_rng(0).integers(1, 2**31, size=n, dtype=np.int64)
    hashes = (weights @ B).tolist()  # one integer hash per column
    total = int(weights.sum())
    kept: dict[int, list[int]] = {}
    for j in range(p):
        if constant[j]:
            continue
        twins = kept.get(hashes[j], []) + kept.get(total - hashes[j], [])
        if any(np.array_equal(B[:, j], B[:, k]) or np.array_equal(B[:, j], 1 - B[:, k]) for k in twins):
            continue
        keep[j] = True
        kept.setdefault(hashes[j], []).append(j)
    return keep


class CardBinarizer(TabularBinarizer):
    """The readable features of a card (see the module docstring), as a transformer.

    It takes the parameters of `interp.binarize.TabularBinarizer`, read as follows:

    - ``max_levels`` (default 10): numeric columns with at most this many distinct values are
      ordinal codes (``x >= t`` at every level but the lowest, or with ``MIN_UNIT_LEVELS``
      levels or more, a per-unit column and round thresholds);
    - ``n_thresholds`` (default 3): round thresholds per other numeric column.

    Fitted, it has ``columns_``, ``encodings_`` (per input column: kind, levels or splits,
    whether it had missing values), ``keep_`` (which candidate columns survive: not constant,
    no duplicate, no complement) and ``feature_names_out_``.
    """

    def fit(self, X, y=None):
        super().fit(X, y)
        frame = self._frame(X, reset=False)
        self.keep_ = _keep_mask(super()._columns(frame))
        self.feature_names_out_ = self.feature_names_out_[self.keep_]
        return self

    def _encode_column(self, col: str, series: pd.Series) -> tuple[tuple, list[str]]:
        numeric = _as_numeric(series)
        if numeric is None:
            levels = _text_levels(series)
            return ("onehot_text", levels, False), [f"{col} = {lv}" for lv in levels]
        kind, info = _numeric_encoding(numeric, int(self.n_thresholds), int(self.max_levels))
        has_missing = bool(numeric.isna().any())
        if kind == "units":
            names = [info.name(col)] + [split.name(col, " ") for split in info.splits]
        else:
            names = [col] if kind == "binary" else [split.name(col, " ") for split in info]
        return (kind, info, has_missing), names + ([f"{col} is {_MISSING}"] if has_missing else [])

    def column_layout(self) -> tuple[np.ndarray, np.ndarray]:
        """Per kept output column: the input column it comes from, and whether it rises with that
        column's value (not a text level, not "is missing")."""
        check_is_fitted(self, "keep_")
        sources, rises = [], []
        for col, (kind, info, has_missing) in zip(self.columns_, self.encodings_):
            count = 1 if kind == "binary" else 1 + len(info.splits) if kind == "units" else len(info)
            sources += [str(col)] * (count + has_missing)
            rises += [kind != "onehot_text"] * count + [False] * has_missing
        return np.array(sources, dtype=object)[self.keep_], np.array(rises)[self.keep_]

    def _numeric_block(self, values: np.ndarray, kind: str, info) -> np.ndarray:
        return info.block(values) if kind == "units" else super()._numeric_block(values, kind, info)

    def _columns(self, frame: pd.DataFrame) -> np.ndarray:
        """The kept columns (``keep_``) of ``frame``: a boolean matrix, or a float one when an
        integer code has a per-unit column."""
        return super()._columns(frame)[:, self.keep_]

    def transform(self, X) -> np.ndarray:
        """The card's columns for new rows: a table like the one fitted, or an array whose
        columns are in its order."""
        check_is_fitted(self, "keep_")
        if not isinstance(X, pd.DataFrame) and hasattr(self, "feature_names_in_"):
            X = pd.DataFrame(np.asarray(X), columns=self.columns_)
        return super().transform(X)


def card_features(X, names, raw=None, *, n_thresholds: int = 3, max_levels: int = 10) -> CardFeatures:
    """The readable design of a card for ``X`` (numeric, n x d, columns ``names``), read
    from ``raw`` (the table before numeric encoding, ``Dataset.raw``) when given so that text
    levels keep their names.  An InputError when no column varies (no card row is possible)."""
    if raw is None:
        raw = pd.DataFrame(np.asarray(X, dtype=float), columns=[str(n) for n in names])
    binarizer = CardBinarizer(max_levels=max_levels, n_thresholds=n_thresholds).fit(raw)
    design = binarizer.transform(raw)
    if design.shape[1] == 0:
        raise InputError("no feature varies over the rows: a score card needs at least one")
    sources, rises = binarizer.column_layout()
    return CardFeatures(X=design, names=tuple(str(n) for n in binarizer.get_feature_names_out()),
                        binarizer=binarizer, groups=tuple(sources), rises=tuple(bool(r) for r in rises))
