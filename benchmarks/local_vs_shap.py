"""Why this prediction: each method's per-row contributions against TreeSHAP's, on the same rows.

shap is not a dependency of interp: the script runs in the environment of
``featurevec_vs_treeshap.py`` (/tmp/interp-bench-shap, built and refreshed by its
``run_in_venv``).  ``--here`` runs in the current interpreter instead (shap installed).

For 3 data sets x 2 tree models, ``interp.explain`` fits every method to the model on three
quarters of the rows; on (at most ``--rows``) held-out rows each method that explains single
rows gives its contributions (``ModelExplanation.for_rows``), and ``shap.TreeExplainer`` the
model's SHAP values (of the log-odds for a classifier).  Per row: how many of the method's top
3 features (by |contribution|, non-zero ones only) are among SHAP's top 3, and the Spearman correlation of the two
over all features (rows where either is constant left out); the table gives medians over the
rows and the time per row of each.  A method's contributions are those of its own model (a
card, a formula): where that model does not follow the black box, neither do they.  The
baselines differ by design: SHAP's is the model's mean output, a card's is 0 points (a row on
which no card row holds gets no contribution at all: the card's reason is that nothing holds),
a formula's its value at the training rows' mean.
Data: ``breast-cancer`` (binary) and ``diabetes`` (regression), bundled with interp, and
``heart`` (binary) from ../shared/data/uci (left out, with a note, where it is absent).
Models: XGBoost (200 rounds, depth 4) and a random forest (200 trees, depth 8), seeded.  The
propositional method runs with the fixed formula ``a & b`` and 3 folds (``explain_models.QUICK``).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings

import numpy as np
from explain_models import QUICK
from featurevec_vs_treeshap import load, make_model, run_in_venv
from page import run_page

KINDS = ("xgboost", "forest")
TOP = 3


def shap_values(model, X) -> np.ndarray:
    """Per row and feature, the SHAP value of the model's output (a classifier's positive class)."""
    import shap

    values = shap.TreeExplainer(model).shap_values(X)
    values = values[1] if isinstance(values, list) else np.asarray(values)
    return values[:, :, 1] if values.ndim == 3 else values


def compare(contributions: np.ndarray, shap: np.ndarray) -> tuple[float, float]:
    """Median over rows of the top-3 overlap and of the Spearman correlation."""
    from scipy.stats import spearmanr

    overlap, rho = [], []
    for c, s in zip(contributions, shap):
        top_c = set(np.argsort(-np.abs(c), kind="stable")[:min(TOP, np.count_nonzero(c))])
        top_s = set(np.argsort(-np.abs(s), kind="stable")[:TOP])
        overlap.append(len(top_c & top_s) / TOP)
        if np.ptp(c) > 0 and np.ptp(s) > 0:
            rho.append(spearmanr(np.abs(c), np.abs(s)).statistic)
    return float(np.median(overlap)), float(np.median(rho)) if rho else float("nan")


def one_model(name: str, kind: str, rows: int, seed: int) -> None:
    import pandas as pd

    import interp

    X, y, task, names = load(name)
    frame = pd.DataFrame(X, columns=names)
    model = make_model(kind, task, seed).fit(frame, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = interp.explain(model, frame, y, quiet=True, name=name, options=QUICK)
    held = result.held_rows[:rows]
    start = time.perf_counter()
    reference = shap_values(model, frame.iloc[held])
    shap_ms = 1000 * (time.perf_counter() - start) / len(held)
    start = time.perf_counter()
    explained = result.for_rows(held)
    ms = 1000 * (time.perf_counter() - start) / len(held)
    for method, per_row in explained.by_method.items():
        # each method's contributions are in its own columns; the data here has no text columns
        matrix = np.array([[r.contributions.get(n, 0.0) for n in names] for r in per_row])
        fid = next(r.fidelity for r in result.results if r.method == method)
        overlap, rho = compare(matrix, reference)
        print(f"| {name} | {kind} | {method} | {fid.text()} | {overlap:.2f} | {rho:.2f} | {ms:.2f} | {shap_ms:.2f} |")
    for method, why in explained.notes.items():
        print(f"| {name} | {kind} | {method} | | {why} | | | |")
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200, help="held-out rows compared (at most)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--here", action="store_true", help="run in this interpreter (shap installed)")
    args = parser.parse_args()
    print(f"| data | model | method | fidelity | top-{TOP} shared with SHAP (median) | Spearman of |values| "
          "(median) | ms per row, every method's rows | SHAP ms per row |")
    print("|---|---|---|---|---|---|---|---|")
    for name in ("breast-cancer", "diabetes", "heart"):
        if load(name) is None:
            print(f"| {name} | (left out: ../shared/data/uci is absent) | | | | | | |")
            continue
        for kind in KINDS:
            one_model(name, kind, args.rows, args.seed)


if __name__ == "__main__":
    run_in_venv(__file__, "--here" in sys.argv)  # before run_page: the page is written by the run in the venv
    run_page(main, "local-vs-shap", "Per-row contributions against TreeSHAP", about=__doc__)
