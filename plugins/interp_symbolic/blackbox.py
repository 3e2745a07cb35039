"""The black boxes the ``symbolic`` method trains when given a name, and what it reads from one."""

from __future__ import annotations

import numpy as np
from interp import InputError

BLACK_BOXES = ("mlp", "gbm", "rf", "svm")
# Row limits of the ``symbolic`` method (its --max-blackbox-rows and --max-fit-rows defaults).
# Above them a random subsample of the training rows is used, and the output says so; every
# bundled data set is below both, so their results do not depend on them.  A model of one to
# three ridge terms is pinned down by a thousand rows; more cost fitting time and memory without
# raising the held-out fidelity (docs/methods/symbolic.md, "Scale").
MAX_BLACKBOX_ROWS = 10000
MAX_FIT_ROWS = 1000


def make_blackbox(kind: str, classification: bool, random_state=None):
    """An unfitted scikit-learn model: "mlp", "gbm", "rf" or "svm", for classification or
    regression.  Networks and SVMs see standardised features, and for regression a
    standardised target too."""
    from sklearn.compose import TransformedTargetRegressor
    from sklearn.ensemble import (GradientBoostingClassifier, GradientBoostingRegressor,
                                  RandomForestClassifier, RandomForestRegressor)
    from sklearn.neural_network import MLPClassifier, MLPRegressor
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC, SVR

    def scaled_target(reg):
        return TransformedTargetRegressor(regressor=reg, transformer=StandardScaler())

    if kind == "mlp":
        if classification:
            return make_pipeline(StandardScaler(), MLPClassifier(hidden_layer_sizes=(64, 64), alpha=1e-2,
                                                                 max_iter=2000, random_state=random_state))
        return scaled_target(make_pipeline(StandardScaler(), MLPRegressor(
            hidden_layer_sizes=(64, 64), alpha=1.0, max_iter=2000, early_stopping=True,
            random_state=random_state)))
    if kind == "gbm":
        cls = GradientBoostingClassifier if classification else GradientBoostingRegressor
        return cls(random_state=random_state)
    if kind == "rf":
        cls = RandomForestClassifier if classification else RandomForestRegressor
        return cls(n_estimators=200, random_state=random_state)
    if kind == "svm":
        if classification:
            return make_pipeline(StandardScaler(), SVC(probability=True, random_state=random_state))
        return scaled_target(make_pipeline(StandardScaler(), SVR()))
    raise InputError(f"unknown black box {kind!r}: choose one of {', '.join(BLACK_BOXES)}")


def blackbox_outputs(model, X, classification: bool) -> np.ndarray:
    """What the surrogate mimics: the black box's predictions, or for classification its
    probability of the second (positive) class; bad outputs are an InputError."""
    if classification:
        if not hasattr(model, "predict_proba"):
            raise InputError("the black box has no predict_proba: symbolic classification needs probabilities")
        P = np.asarray(model.predict_proba(X), dtype=float)
        if P.ndim != 2 or P.shape[1] != 2:
            raise InputError(f"symbolic classification handles two classes, the black box gives {P.shape[-1]}")
        out = P[:, 1]
    else:
        out = np.asarray(model.predict(X), dtype=float).ravel()
    if not np.all(np.isfinite(out)):
        raise InputError(f"the black box returned {int(np.sum(~np.isfinite(out)))} NaN/inf outputs")
    return out
