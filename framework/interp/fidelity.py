"""How closely a method's own model follows the model it explains, on rows no method saw."""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np

from .data import Dataset
from .preprocessing import class_name, class_names
from .studied import StudiedModel, rows_for, surrogate_of

#: below these the summary says in words that an explanation does not follow the model
LOW_AGREEMENT, LOW_R2 = 0.9, 0.8


@attrs.frozen
class Fidelity:
    """How closely a method's own model follows the studied model on ``rows`` held-out rows:
    ``agreement`` (share of equal classes) and ``auc`` (its score ranking the model's classes)
    for a decision, ``r2`` against the model's predictions for a number; ``note`` says why
    nothing was measured, or that nothing needs to be (a method that reads the model itself)."""

    rows: int
    agreement: float | None = None
    auc: float | None = None
    r2: float | None = None
    note: str = ""

    @property
    def low(self) -> bool:
        return ((self.agreement is not None and self.agreement < LOW_AGREEMENT)
                or (self.r2 is not None and self.r2 < LOW_R2))

    def text(self) -> str:
        """One cell of the summary table: "agreement 0.96, AUC 0.99" (and "LOW" when low)."""
        parts = []
        if self.agreement is not None:
            parts.append(f"agreement {self.agreement:.3f}")
        if self.auc is not None:
            parts.append(f"AUC {self.auc:.3f}")
        if self.r2 is not None:
            parts.append(f"R^2 {self.r2:.3f}")
        text = ", ".join(parts) or self.note
        return f"{text}: LOW, does not follow the model closely" if self.low else text

    def to_dict(self) -> dict:
        return attrs.asdict(self)


def measure_fidelity(estimator: Any, studied: StudiedModel, data: Dataset, held: np.ndarray,
                     truth: np.ndarray, positive: str) -> Fidelity:
    """``Fidelity`` of a method's result on the held-out rows ``held`` against ``truth``, the
    model's answer for every row: R^2 for numbers, else agreement and AUC for ``positive``."""
    from sklearn.metrics import roc_auc_score

    surrogate, note = surrogate_of(estimator, studied)
    if surrogate is None:
        return Fidelity(len(held), note=note)
    raw = data.table()
    rows = rows_for(surrogate, raw.iloc[held].reset_index(drop=True), data.X[held], studied)
    try:
        predicted = np.asarray(surrogate.predict(rows))
    except Exception as err:  # noqa: BLE001 - a result that cannot take the rows is reported, not fatal
        return Fidelity(len(held), note=f"not measured: its model does not take the data's rows ({type(err).__name__})")
    truth = truth[held]
    if truth.dtype.kind in "fc":
        var = float(np.var(truth))
        r2 = 1 - float(np.mean((predicted.astype(float) - truth) ** 2)) / var if var > 0 else None
        return Fidelity(len(held), r2=r2)
    predicted, truth = class_names(predicted), class_names(truth)
    own = set(class_names(getattr(surrogate, "classes_", predicted)))
    if not own & set(truth):
        return Fidelity(len(held), note=f"not measured: its classes ({', '.join(sorted(own)[:4])}) are not the model's")
    agreement = float(np.mean(predicted == truth))
    score = _positive_score(surrogate, rows, positive)
    is_positive = truth == positive
    auc = (float(roc_auc_score(is_positive, score)) if score is not None and 0 < is_positive.sum() < len(truth)
           else None)
    return Fidelity(len(held), agreement=agreement, auc=auc)


def _positive_score(surrogate: Any, rows: Any, positive: str) -> np.ndarray | None:
    """The surrogate's score for the positive class: its probability, or its decision value."""
    classes = [class_name(c) for c in getattr(surrogate, "classes_", [])]
    if positive not in classes:
        return None
    if hasattr(surrogate, "predict_proba"):
        return np.asarray(surrogate.predict_proba(rows), dtype=float)[:, classes.index(positive)]
    if hasattr(surrogate, "decision_function") and len(classes) == 2:
        value = np.asarray(surrogate.decision_function(rows), dtype=float).ravel()
        return value if classes.index(positive) == 1 else -value
    return None
