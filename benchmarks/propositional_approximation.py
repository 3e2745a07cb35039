"""The Nystroem approximation of the propositional SVM against the exact one, where both fit.

For each data set, 15,000 rows are drawn (seed 0) and split, stratified, into 10,000 training
rows and 5,000 test rows: the exact SVM's Gram matrix of 10,000 rows (0.8 GB) still fits.  For
each formula, ``PropositionalSVC(approximate="never")`` and ``approximate="always"`` (Nystroem
map on m landmarks + linear SVM by SGD) are fitted with C = 1, the normalised kernel and
random_state 0, and their test AUCs compared; "selected" is the formula the radius-margin ratio
picks among 30 candidates on ``selection_rows`` = 1,000 training rows (the default; the same for
both fits).

Data sets: the synthetic design of ``benchmarks/scaling.py`` (30 standard normal features,
binarised by ``TabularBinarizer`` into 90 binary columns), and UCI adult as processed by Ustun &
Rudin (36 binary features; ``../shared/data/uci/adult_data.csv``, label in the first column).

    python benchmarks/propositional_approximation.py [--landmarks 500 1000 2000]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

from interp_propositional import PropositionalSVC

sys.path.insert(0, str(Path(__file__).parent))
from scaling import write_design  # noqa: E402 - the scaling benchmark's synthetic design
from page import run_page

ADULT = Path(__file__).parents[2] / "shared" / "data" / "uci" / "adult_data.csv"
FORMULAS = ("a & ~b", "(a | b) ^ ~c", "(~a <-> ~b <-> ~c) ^ nimp(d, e)", None)  # None: selected by radius-margin ratio


def data_sets() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """name -> (X, y) with 15,000 rows each."""
    with tempfile.TemporaryDirectory() as tmp:
        frame = pd.read_csv(write_design(Path(tmp) / "design.csv", 15_000))
    out = {"synthetic (90 binarised)": (frame.drop(columns="y").to_numpy(), frame["y"].to_numpy())}
    if ADULT.exists():
        adult = pd.read_csv(ADULT).sample(15_000, random_state=0)
        out["adult (36 binary)"] = (adult.iloc[:, 1:].to_numpy(dtype=float), adult.iloc[:, 0].to_numpy())
    return out


def fit_auc(X_train, y_train, X_test, y_test, **params) -> tuple[float, float, PropositionalSVC]:
    start = time.perf_counter()
    est = PropositionalSVC(binarize="auto", random_state=0, **params).fit(X_train, y_train)
    seconds = time.perf_counter() - start
    return roc_auc_score(y_test, est.decision_function(X_test)), seconds, est


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--landmarks", type=int, nargs="+", default=[500, 1000, 2000])
    args = parser.parse_args()
    print("data set | formula | exact AUC (fit s) | " + " | ".join(f"m={m}: AUC, diff (fit s)" for m in args.landmarks))
    for name, (X, y) in data_sets().items():
        X_train, X_test, y_train, y_test = train_test_split(X, y, train_size=10_000, stratify=y, random_state=0)
        for formula in FORMULAS:
            auc, secs, exact = fit_auc(X_train, y_train, X_test, y_test, formula=formula, approximate="never")
            cells = []
            for m in args.landmarks:
                a, s, approx = fit_auc(X_train, y_train, X_test, y_test, formula=formula, approximate="always",
                                       n_landmarks=m)
                assert approx.formula_ == exact.formula_
                cells.append(f"{a:.4f}, {a - auc:+.4f} ({s:.1f})")
            print(f"{name} | {exact.formula_} | {auc:.4f} ({secs:.1f}) | " + " | ".join(cells), flush=True)


if __name__ == "__main__":
    run_page(main, "propositional-approximation", "Propositional kernels: the Nystroem approximation against the exact SVM", about=__doc__)
