"""Why a symbolic formula gives a row its value: its terms' changes from the baseline row and
each feature's share of them (``interp.local.RowExplanation``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from interp.local import Piece, RowExplanation
from interp.preprocessing import class_name
from sklearn.utils.validation import check_is_fitted, validate_data

from .contributions import term_contributions


def formula_rows(est, X) -> list[RowExplanation]:
    """One ``RowExplanation`` per row of ``X``: the output is the model's sum (the logit of a
    classifier, the prediction of a regressor: its logit under ``link="logit"``), the baseline
    its value at the training rows' mean (``baseline_``), the pieces each term's change from
    there and the contributions each feature's share of those changes (``contributions``:
    integrated gradients along each term's argument), both summing to output - baseline."""
    check_is_fitted(est, "terms_")
    rows = validate_data(est, X, reset=False, dtype=np.float64)
    names = [str(c) for c in X.columns] if isinstance(X, pd.DataFrame) else [f"x{j}" for j in range(rows.shape[1])]
    frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(rows, columns=names)
    Xs, x0s = est._scale(rows), est._scale(est.baseline_row_[None, :])
    per_term = [term_contributions(tm, Xs, x0s) for tm in est.terms_]
    output = est._decision(X)
    label = _output_name(est)
    out = []
    for i in range(rows.shape[0]):
        parts = [t[i] for t in per_term]
        pieces = [Piece(f"term {k + 1} ({tm.family})", float(part.sum()),
                        tuple(n for n, v in zip(names, part) if v != 0))
                  for k, (tm, part) in enumerate(zip(est.terms_, parts))]
        contributions = dict(zip(names, np.sum(parts, axis=0) if parts else np.zeros(len(names))))
        out.append(RowExplanation("symbolic", float(output[i]), label, float(est.baseline_),
                                  "the formula at the training rows' mean", contributions, pieces,
                                  dict(frame.iloc[i]), outcome=_outcome(est, output[i])).check())
    return out


def _output_name(est) -> str:
    if hasattr(est, "classes_"):
        return f"the formula's logit of P(y={class_name(est.classes_[1])})"
    return "the formula's logit" if getattr(est, "_logit_link", False) else "the formula's value"


def _outcome(est, value: float) -> str:
    """The probability and class of a classifier's logit."""
    if not hasattr(est, "classes_"):
        return ""
    p = 1.0 / (1.0 + np.exp(-value))
    return f"P(y={class_name(est.classes_[1])}) = {p:.1%}; predict {class_name(est.classes_[int(value > 0)])}"
