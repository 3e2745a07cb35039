"""Every method on models a user brings: fidelity on held-out rows, size and time, per data set
and model kind (``interp.explain``).

Data: ``breast-cancer`` (569 x 30, binary) and ``diabetes`` (442 x 10, regression), bundled
with interp; ``house-votes-84`` (435 x 16 text columns of y/n/?, party), bundled; ``heart``
(303 rows, binary) from ../shared/data/uci (left out, with a note, where that folder is absent).
Models: scikit-learn's HistGradientBoosting (100 rounds), a random forest (200 trees) and
XGBoost (200 rounds of depth 4), each seeded and fitted on every row of the data set as a user
would (a Pipeline with a one-hot ColumnTransformer where the data has text columns; XGBoost
then reads the one-hot columns through the same Pipeline). ``interp.explain`` holds out a
quarter of the rows (stratified by the model's classes), fits each method with its defaults
(``--quick``: the propositional method with the fixed formula ``a & b`` and 3 folds instead of
its formula selection, which takes minutes per fit on a loaded 2-core machine) on the rest to
what the model says of them, and compares it with the model on the held-out rows:
agreement and AUC against the model's classes, or R^2 against its predictions. Time is the
method's wall time in that call.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
from page import run_page

ROOT = Path(__file__).resolve().parents[1]
UCI = ROOT.parent / "shared" / "data" / "uci"
KINDS = ("hgb", "forest", "xgboost")
#: ``--quick``: the propositional method without its formula selection
QUICK = {"propositional": {"formula": "a & b", "cv": 3}}


def load(name: str):
    """``(X frame, y, task)`` of one data set, or None when its file is absent."""
    import pandas as pd

    import interp

    if name == "heart":
        path = UCI / "heart_processed.csv"
        if not path.exists():
            return None
        frame = pd.read_csv(path)  # label in the first column, coded 0/1
        return frame.iloc[:, 1:], frame.iloc[:, 0].to_numpy(dtype=int), "classification"
    data = interp.load_dataset(name)
    return data.raw.copy(), data.y, data.task


def make_model(kind: str, task: str, X, seed: int = 0):
    """A fitted-ready model of ``kind``: inside a Pipeline that one-hot encodes text columns."""
    import pandas as pd
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import (HistGradientBoostingClassifier, HistGradientBoostingRegressor,
                                  RandomForestClassifier, RandomForestRegressor)
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    classification = task == "classification"
    if kind == "hgb":
        cls = HistGradientBoostingClassifier if classification else HistGradientBoostingRegressor
        model = cls(max_iter=100, random_state=seed)
    elif kind == "forest":
        cls = RandomForestClassifier if classification else RandomForestRegressor
        model = cls(n_estimators=200, random_state=seed, n_jobs=2)
    else:
        import xgboost

        cls = xgboost.XGBClassifier if classification else xgboost.XGBRegressor
        model = cls(n_estimators=200, max_depth=4, learning_rate=0.1, random_state=seed, n_jobs=2)
    text = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
    if not text:
        return model
    encode = ColumnTransformer([("onehot", OneHotEncoder(handle_unknown="ignore"), text)], remainder="passthrough")
    return make_pipeline(encode, model)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="breast-cancer,diabetes,house-votes-84,heart")
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--quick", action="store_true", help="propositional with formula a & b, 3 folds")
    args = parser.parse_args()
    options = QUICK if args.quick else None
    import interp

    print("| data | model | method | fitted to | fidelity on held-out rows | size | seconds |")
    print("|---|---|---|---|---|---|---|")
    for name in args.data.split(","):
        loaded = load(name)
        if loaded is None:
            print(f"| {name} | (left out: ../shared/data/uci is absent) | | | | | |")
            continue
        X, y, task = loaded
        for kind in args.kinds.split(","):
            # XGBoost takes classes coded 0..K-1; the others keep the data's own class names
            codes = np.unique(y, return_inverse=True)[1] if task == "classification" and kind == "xgboost" else y
            model = make_model(kind, task, X).fit(X, codes)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = interp.explain(model, X, codes, quiet=True, name=name, options=options)
            for r in result.results:
                fidelity = r.fidelity.text() if r.fidelity else f"failed: {r.error}"
                size = r.explanation.size if r.explanation else ""
                print(f"| {name} | {kind} | {r.method} | {r.fitted_to} | {fidelity} | {size} | {r.seconds:.1f} |")
            sys.stdout.flush()


if __name__ == "__main__":
    run_page(main, "explain-models", "Every method on models a user brings", about=__doc__)
