"""The propositional result as a model of the data's own columns: what ``interp.explain``
measures against the model it explains, and why each row gets its class."""

from __future__ import annotations

import numpy as np
from interp.local import Piece, RowExplanation

from .contributions import rule_contributions

#: the SVM's logical features a row's account lists one by one; the rest are "other rules"
TOP_FEATURES = 10


class RulesOnColumns:
    """A fitted ``PropositionalSVC`` behind the binariser the method read the data with (None
    when the data was already 0/1): ``predict`` gives the rule model's class for each row of
    the data's columns, named as the data names its classes (``negative``, ``positive``);
    ``for_rows`` says why (``rule_rows``).  ``svm`` is the fitted model itself."""

    def __init__(self, svm, binarizer, names, negative: str, positive: str):
        self.svm, self.binarizer = svm, binarizer
        self.classes_ = np.array([negative, positive], dtype=object)
        columns = binarizer.feature_names_in_ if binarizer is not None else names
        self.feature_names_in_ = np.array([str(c) for c in columns], dtype=object)

    def binary(self, X):
        """Rows of the data's columns as the 0/1 columns the SVM reads (named as at its fit)."""
        import pandas as pd

        if self.binarizer is not None:
            values = np.asarray(self.binarizer.transform(X), dtype=float)
        else:
            values = np.asarray(X.to_numpy() if hasattr(X, "to_numpy") else X, dtype=float)
        names = getattr(self.svm, "feature_names_in_", None)
        return values if names is None else pd.DataFrame(values, columns=list(names))

    def predict(self, X) -> np.ndarray:
        return self.classes_[np.asarray(self.svm.predict_rules(self.binary(X)), dtype=int)]

    def decision_function(self, X) -> np.ndarray:
        """The SVM's decision value (positive: ``classes_[1]``)."""
        return self.svm.decision_function(self.binary(X))

    def for_rows(self, X) -> list[RowExplanation]:
        return rule_rows(self, X)

    def sources(self) -> dict[str, str]:
        """The user's column each 0/1 column of the binariser comes from (``age>50.5`` from
        ``age``, ``colour=red`` from ``colour``: the longest column name it starts with, before
        ``>`` or ``=``); empty without a binariser."""
        if self.binarizer is None:
            return {}
        columns = sorted((str(c) for c in self.binarizer.columns_), key=len, reverse=True)
        out = {}
        for name in map(str, self.binarizer.get_feature_names_out()):
            out[name] = next((c for c in columns if name[len(c):len(c) + 1] in (">", "=") and name.startswith(c)), name)
        return out


def rule_rows(model: RulesOnColumns, X) -> list[RowExplanation]:
    """Per row: the SVM's decision value as its intercept plus the parts of the ``TOP_FEATURES``
    logical features it weights most (each split equally among the 0/1 columns it reads, and
    so among the user's columns they come from: ``RulesOnColumns.sources``) and the rest as one
    "other rules" amount; beside it, the rule of the rule model that decides the row."""
    import pandas as pd

    binary = model.binary(X)
    parts = rule_contributions(model.svm, binary, top=TOP_FEATURES)
    frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(binary))
    decided_labels = model.svm.predict_rules(binary)
    sources = model.sources()
    texts = [f"rule {k + 1}, if {rule}" for k, rule in enumerate(parts.rules)] + ["the default (no rule holds)"]
    out = []
    for i in range(len(binary)):
        pieces = [Piece(f"{rule} (weighted)", float(v), variables)
                  for rule, v, variables in zip(parts.features, parts.parts[i], parts.variables) if v != 0]
        pieces.append(Piece("other rules", float(parts.other[i])))
        contributions: dict[str, float] = {}
        for piece in pieces[:-1]:
            for name in piece.features:
                column = sources.get(name, name)
                contributions[column] = contributions.get(column, 0.0) + piece.value / len(piece.features)
        contributions["other rules"] = float(parts.other[i])
        decided = int(parts.decided_by[i])
        label = model.classes_[int(decided_labels[i])]
        out.append(RowExplanation(
            "propositional", float(parts.total()[i]), f"the SVM's decision value for {model.classes_[1]}",
            parts.intercept, "the SVM's intercept", contributions, pieces, dict(frame.iloc[i]),
            outcome=f"the rule list says {label}, by {texts[decided]}", show="pieces").check())
    return out
