"""The model a user brings, as every method sees it: the user's raw columns in, one binary
decision or one number out.

A user's model takes the table as the user wrote it (text columns included, often through a
``Pipeline`` with a ``ColumnTransformer``), while interp's methods read interp's encoding of it
(``Dataset.X``: numbers as they are, a text column as one 0/1 column per level, named
``column=level``).  ``StudiedModel`` sits between the two: it takes rows in interp's encoding,
turns them back into the user's columns and asks the model.  A classifier of more than two
classes is shown to the methods as one class against the rest (``positive``), so that every
method explains one decision.
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np

from .data import Dataset, columns_for_model, level_text
from .errors import InputError
from .preprocessing import class_name


def is_classifier(model: Any) -> bool:
    """A model that gives classes with probabilities (``predict_proba`` and ``classes_``);
    anything else with ``predict`` is read as a regressor."""
    return hasattr(model, "predict_proba") and getattr(model, "classes_", None) is not None


def model_name(model: Any) -> str:
    """The class name of ``model``, or of a Pipeline's last step with the Pipeline's name
    beside it ("Pipeline(HistGradientBoostingClassifier)")."""
    steps = getattr(model, "steps", None)
    if steps:
        return f"{type(model).__name__}({type(steps[-1][1]).__name__})"
    return type(model).__name__


@attrs.frozen
class ModelOutputs:
    """What the model says of each row of a data set: ``scores`` (the probability of the
    ``positive`` class for a classifier, the prediction for a regressor) and, for a
    classifier, ``labels`` (its predicted class, named as ``class_name`` shows it, with every
    class but ``positive`` named ``not <positive>`` when it has more than two)."""

    task: str
    scores: np.ndarray
    labels: np.ndarray | None
    positive: str | None
    negative: str | None


@attrs.define(eq=False)
class StudiedModel:
    """The user's fitted ``model`` as a scikit-learn style model of interp's encoding of
    ``data``: ``predict`` and ``predict_proba`` take rows with ``feature_names_in_`` (the
    data's encoded columns) and answer what ``model`` answers for the same rows in the user's
    own columns.  A classifier answers for the binary decision ``positive`` against the rest
    (``classes_`` is (negative, positive)).  ``same_columns`` says whether the model reads
    interp's columns unchanged (no text column, no reordering), so that its own trees can be
    read against them."""

    model: Any
    data: Dataset
    positive: str | None = None
    task: str = attrs.field(init=False)
    classes_: np.ndarray | None = attrs.field(init=False, default=None)
    feature_names_in_: np.ndarray = attrs.field(init=False)
    n_features_in_: int = attrs.field(init=False)
    same_columns: bool = attrs.field(init=False)
    _columns: list[int] | None = attrs.field(init=False, default=None)
    _own_classes: np.ndarray | None = attrs.field(init=False, default=None)
    _positive_index: int | None = attrs.field(init=False, default=None)

    def __attrs_post_init__(self) -> None:
        if not hasattr(self.model, "predict"):
            raise InputError(f"the model ({type(self.model).__name__}) has no predict method: give a fitted model")
        raw = self.data.table()
        self._columns = columns_for_model(self.model, list(raw.columns), "the model")
        self.feature_names_in_ = np.array(self.data.feature_names, dtype=object)
        self.n_features_in_ = len(self.data.feature_names)
        self.same_columns = self.data.raw is None or (not self.data.categorical
                                                      and self._columns == list(range(raw.shape[1])))
        self.task = "classification" if is_classifier(self.model) else "regression"
        if self.task == "classification":
            self._set_classes()

    def _set_classes(self) -> None:
        own = np.asarray(self.model.classes_)
        names = [class_name(c) for c in own]
        if self.positive is not None and str(self.positive) not in names:
            raise InputError(f"positive class {self.positive!r} is not one of the model's classes: "
                             f"{', '.join(names[:20])}")
        if own.size == 2 and self.positive is None:
            index = 1
        elif self.positive is not None:
            index = names.index(str(self.positive))
        else:  # the class the model predicts most often on the data, against the rest
            predicted = np.asarray(self.model.predict(self.rows_of(self.data.X)))
            counts = [(np.sum(predicted == c), -k) for k, c in enumerate(own)]
            index = -max(counts)[1]
        self._own_classes, self._positive_index = own, index
        positive = names[index]
        negative = names[1 - index] if own.size == 2 else f"not {positive}"
        self.classes_ = np.array([negative, positive], dtype=object)

    # -- rows ----------------------------------------------------------------------------------
    def rows_of(self, X) -> Any:
        """Rows of interp's encoding (an array, or a DataFrame with its columns) in the model's
        own columns: the user's raw columns rebuilt (a text column's level from its 0/1
        columns), in the model's order, as a DataFrame when the model was fitted with names."""
        X = np.asarray(X.to_numpy() if hasattr(X, "to_numpy") else X, dtype=float)
        if X.ndim != 2 or X.shape[1] != self.n_features_in_:
            raise InputError(f"rows for the model need {self.n_features_in_} columns, got shape {X.shape}")
        raw = self.raw_rows(X)
        raw = raw.iloc[:, self._columns]
        if getattr(self.model, "feature_names_in_", None) is None:
            return raw.to_numpy()
        return raw

    def raw_rows(self, X: np.ndarray):
        """The raw columns of encoded rows ``X``: a number as it is (a whole-number column back
        to its integer type), a text column's level as the name of its 0/1 column that holds
        (missing when none does)."""
        import pandas as pd

        data = self.data
        if data.raw is None:
            return pd.DataFrame(X, columns=list(data.feature_names))
        position = {name: j for j, name in enumerate(data.feature_names)}
        groups = dict(zip(data.categorical, data.one_hot))
        out = {}
        for column in data.raw.columns:
            if column in groups:
                idx = list(groups[column])
                levels = np.array([data.feature_names[j].split("=", 1)[1] for j in idx], dtype=object)
                block = X[:, idx]
                values = levels[np.argmax(block, axis=1)].astype(object)
                values[block.max(axis=1) <= 0] = np.nan
                out[column] = values
            else:
                values = X[:, position[str(column)]]
                kind = data.raw[column].dtype
                out[column] = values.astype(kind) if kind.kind in "iu" and np.all(np.isfinite(values)) else values
        return pd.DataFrame(out, columns=list(data.raw.columns))

    def encode(self, frame) -> np.ndarray:
        """Rows in the user's columns (a DataFrame) in interp's encoding of ``data``: a number
        as it is, a text column as its levels' 0/1 columns (an unseen level: all 0)."""
        data = self.data
        raw_columns = list(data.table().columns)
        missing = [c for c in raw_columns if c not in frame.columns]
        if missing:
            raise InputError(f"the rows lack column {missing[0]!r} of the data")
        out = np.zeros((len(frame), self.n_features_in_))
        position = {name: j for j, name in enumerate(data.feature_names)}
        groups = dict(zip(data.categorical, data.one_hot))
        for column in raw_columns:
            values = frame[column]
            if column in groups:
                text = level_text(values).to_numpy()
                for j in groups[column]:
                    out[:, j] = text == data.feature_names[j].split("=", 1)[1]
            else:
                out[:, position[str(column)]] = np.asarray(values, dtype=float)
        return out

    # -- answers -------------------------------------------------------------------------------
    def predict(self, X) -> np.ndarray:
        """The model's prediction (a classifier: ``positive`` or the other name of ``classes_``)."""
        if self.task == "regression":
            return np.asarray(self.model.predict(self.rows_of(X)), dtype=float).ravel()
        return self._labels(np.asarray(self.model.predict(self.rows_of(X))))

    def _labels(self, predicted: np.ndarray) -> np.ndarray:
        is_positive = predicted == self._own_classes[self._positive_index]
        return np.where(is_positive, self.classes_[1], self.classes_[0]).astype(object)

    def positive_score(self, X) -> np.ndarray:
        """The model's probability of the positive class."""
        P = np.asarray(self.model.predict_proba(self.rows_of(X)), dtype=float)
        return P[:, self._positive_index]

    def predict_proba(self, X) -> np.ndarray:
        """(P(negative), P(positive)) per row, from the model's own probabilities."""
        if self.task != "classification":
            raise AttributeError("a regressor has no predict_proba")
        p = self.positive_score(X)
        return np.column_stack([1.0 - p, p])

    def outputs(self, X) -> ModelOutputs:
        """The model's ``ModelOutputs`` on encoded rows ``X``."""
        if self.task == "regression":
            scores = self.predict(X)
            if not np.all(np.isfinite(scores)):
                raise InputError("the model predicts NaN or infinity on some rows")
            return ModelOutputs("regression", scores, None, None, None)
        rows = self.rows_of(X)
        P = np.asarray(self.model.predict_proba(rows), dtype=float)
        labels = self._labels(np.asarray(self.model.predict(rows)))
        return ModelOutputs("classification", P[:, self._positive_index], labels, str(self.classes_[1]),
                            str(self.classes_[0]))


def surrogate_of(estimator: Any, studied: StudiedModel) -> tuple[Any, str]:
    """The model of a method's result that predicts (its estimator, or the ``estimator`` it
    reads), or None and why there is none."""
    for candidate in (estimator, getattr(estimator, "estimator", None)):
        if candidate is studied or candidate is studied.model:
            return None, "exact: it reads the model's own trees"
        if candidate is not None and hasattr(candidate, "predict"):
            return candidate, ""
    return None, "not measured: the method's result makes no predictions"


def rows_for(estimator: Any, frame: Any, encoded: np.ndarray, studied: StudiedModel) -> Any:
    """Rows as ``estimator`` takes them: the user's columns it was fitted on, or those of
    interp's encoding (a method may leave out columns that were constant where it was fitted),
    by name and in its order; interp's encoding as it is for an estimator without names."""
    import pandas as pd

    names = getattr(estimator, "feature_names_in_", None)
    encoded = pd.DataFrame(encoded, columns=list(studied.data.feature_names), index=frame.index)
    if names is None:
        return encoded
    names = [str(n) for n in names]
    for table in (frame.rename(columns=str), encoded):  # the columns it was fitted on, in its order
        if set(names) <= set(table.columns):
            return table[names]
    return encoded
