"""What every method does to its input before it fits, written once.

- ``infer_task(y)``: "classification" or "regression", by one rule for all methods;
- ``binary_labels(y)``: a two-class target as 0/1 or -1/+1, with the classes kept;
- ``BinaryFeatures``: what ``interp.binarize.binarize_unless_binary(X, names)`` returns, 0/1
  features made by thresholding and one-hot encoding only when some column is not already 0/1.
"""

from __future__ import annotations

from typing import Any, Sequence

import attrs
import numpy as np

from .errors import InputError

__all__ = ["MAX_CLASSES", "BinaryLabels", "BinaryFeatures", "ColumnLogic", "infer_task", "class_name",
           "class_index", "binary_labels", "is_binary"]

#: integer targets with at most this many distinct values are class labels
MAX_CLASSES = 10


def infer_task(y: Any) -> str:
    """"classification" for text, boolean or integer-valued targets with at most
    ``MAX_CLASSES`` distinct values, else "regression"."""
    y = np.asarray(y)
    if y.dtype.kind in "OUSb":
        return "classification"
    if y.dtype.kind not in "iuf":
        raise InputError(f"the target has dtype {y.dtype}, neither numbers nor labels")
    finite = y[np.isfinite(y)] if y.dtype.kind == "f" else y
    if np.all(np.mod(finite, 1) == 0) and np.unique(finite).size <= MAX_CLASSES:
        return "classification"
    return "regression"


def class_name(value: Any) -> str:
    """The text a class is shown and named by: a whole number read as a float is shown as the
    integer (a 0/1 column read from a CSV file has the classes ``0`` and ``1``, not ``0.0`` and
    ``1.0``); anything else as ``str``."""
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    return str(value)


def class_names(values: Any) -> np.ndarray:
    """``class_name`` of every value, as an array of text: computed once per distinct value, so
    that comparing a model's classes with another's costs numpy's time, not a Python call a row."""
    values = np.asarray(values)
    if values.size == 0:
        return np.array([], dtype=object)
    distinct, inverse = np.unique(values, return_inverse=True)
    return np.array([class_name(v) for v in distinct], dtype=object)[inverse.ravel()]


def class_index(classes: Sequence[Any], name: Any) -> int | None:
    """Where the class called ``name`` is in ``classes``: named as `class_name` shows it or as
    ``str`` gives it (``1`` and ``1.0`` both name the class 1.0); None when no class is."""
    return next((i for i, c in enumerate(classes) if str(name) in (class_name(c), str(c))), None)


@attrs.frozen(eq=False)
class BinaryLabels:
    """A two-class target: ``values`` (0/1, or -1/+1 when signed), ``classes`` (negative,
    positive) as they were given."""

    values: np.ndarray
    classes: np.ndarray

    @property
    def positive(self) -> Any:
        return self.classes[1]

    @property
    def negative(self) -> Any:
        return self.classes[0]


def binary_labels(y: Any, positive: Any = None, *, signed: bool = False, what: str = "the target") -> BinaryLabels:
    """``y`` with exactly two classes as numbers: 1 for ``positive`` (default: the larger of the
    two sorted classes; named as `class_index` reads it), 0 (or -1 when ``signed``) for the other.  An InputError names the
    problem when ``y`` does not have exactly two classes or ``positive`` is not one of them."""
    y = np.asarray(y)
    if y.ndim != 1:
        raise InputError(f"{what} must be one column, got shape {y.shape}")
    classes = np.unique(y)
    if classes.size != 2:
        shown = ", ".join(map(str, classes[:5])) + (", ..." if classes.size > 5 else "")
        raise InputError(f"{what} must have exactly two classes, got {classes.size} ({shown})")
    if positive is not None:
        at = class_index(classes, positive)
        if at is None:
            raise InputError(f"positive class {positive!r} is not one of {class_name(classes[0])!r}, "
                             f"{class_name(classes[1])!r}")
        if at == 0:
            classes = classes[::-1]
    is_positive = y == classes[1]
    values = np.where(is_positive, 1.0, -1.0 if signed else 0.0)
    return BinaryLabels(values=values, classes=classes)


def is_binary(X: Any) -> bool:
    """True when every value of ``X`` is 0 or 1."""
    return bool(np.isin(np.asarray(X, dtype=float), (0.0, 1.0)).all())


@attrs.frozen
class ColumnLogic:
    """What binary columns say of each other on every row an encoding can produce.

    ``exclusive``: groups of column indices of which at most one is true in a row (the levels
    of a one-hot column with its "missing" column; a threshold column with the "missing" column
    of its input); ``implies``: pairs (a, b) where column a true means column b true
    (``col>5`` implies ``col>3``), listed for every such pair, not only neighbours;
    ``complete``: groups of which exactly one is true in a row (the levels of a one-hot column
    as the data encode it, missing being a level: ``Dataset.one_hot``).
    ``ColumnLogic()`` knows nothing: every assignment is possible."""

    exclusive: tuple[tuple[int, ...], ...] = ()
    implies: tuple[tuple[int, int], ...] = ()
    complete: tuple[tuple[int, ...], ...] = ()

    def possible(self, columns: Sequence[int], table: np.ndarray) -> np.ndarray:
        """Which rows of ``table`` (Boolean, one column per entry of ``columns``, the output
        columns they hold) some input row can produce: a Boolean vector over its rows."""
        table = np.asarray(table, dtype=bool)
        at = {int(c): j for j, c in enumerate(columns)}
        ok = np.ones(table.shape[0], dtype=bool)
        for group in self.exclusive:
            held = [at[c] for c in group if c in at]
            if len(held) > 1:
                ok &= table[:, held].sum(axis=1) <= 1
        for a, b in self.implies:
            if a in at and b in at:
                ok &= ~table[:, at[a]] | table[:, at[b]]
        for group in self.complete:
            if all(c in at for c in group):
                ok &= table[:, [at[c] for c in group]].sum(axis=1) == 1
        return ok


@attrs.frozen(eq=False)
class BinaryFeatures:
    """0/1 features, their names, the fitted ``TabularBinarizer`` (None when the input was
    already binary and passed through) and what the columns say of each other (``logic``)."""

    X: np.ndarray
    names: tuple[str, ...]
    binarizer: Any = None
    logic: ColumnLogic = attrs.field(factory=ColumnLogic)
