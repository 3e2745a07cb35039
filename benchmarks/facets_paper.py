"""Reproduce the Facets paper's Tables 1 and 2 (Belahcene et al., ACML 2020) on the 8 UCI sets.

Reads ../shared/data/uci (relative to the repository root: Path(__file__).parents[1] / ".." /
"shared" / "data" / "uci").  For every data set, with the same stratified 10 folds:

* Facets: FacetsClassifierCV (SCF, eps = 0.01, Newton solver, scale/threshold refit, snap_tol
  1e-4) over a (beta = lambda / gamma^2, gamma) grid, 24 x 100 as in the paper (12 x 30 for
  adult); the reported accuracy is the best mean 10-fold test accuracy among the fully integral,
  non-null grid points (Table 1's "Facets"), and beside it the same among the points that are
  integral without the snap ("strictly integral");
* Lasso / Ridge: L1 / L2 logistic regression, C over 13 values (1e-3 .. 1e3), best mean 10-fold
  test accuracy;
* Rounded: unpenalised logistic regression rounded to gamma * Z (threshold refitted), gamma
  over the same gamma grid, best mean 10-fold test accuracy.

``--scale maxabs`` runs the same on every set whose features are not already in [-1, 1], with
each column divided by its largest absolute value (the paper does not say how it scaled the
features; spambase's raw columns span five decades), and writes a separate table.

As in the paper, each method's hyperparameters are chosen on the same 10 folds that measure its
accuracy (no nested CV), for every column alike.  Table 2: grid points, null, integral (fully
integral non-null models) and optimal (integral models within 0.005 of the best accuracy of the
whole grid).

    python benchmarks/facets_paper.py [--gammas 24 --betas 100] [--only Breast,Heart]
                                      [--n-jobs 2] [--scale maxabs] [--page]
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold

from interp import progress
from interp_facets import FacetsClassifierCV
from interp_facets.refit import refit_scale
from page import page

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / ".." / "shared" / "data" / "uci"
SETS = [  # (paper name, file, paper's Facets accuracy, smaller grid for the big sets)
    ("Bank", "bankruptcy_processed.csv", 0.99, None),
    ("Breast", "breastcancer_data.csv", 0.97, None),
    ("Haberman", "haberman_processed.csv", 0.75, None),
    ("Heart", "heart_processed.csv", 0.85, None),
    ("Mammo", "mammo_data.csv", 0.80, None),
    ("Mushrooms", "mushroom_data.csv", 0.92, None),
    ("Spam", "spambase_data.csv", 0.89, None),
    ("Adult", "adult_data.csv", 0.70, (12, 30)),  # last: the slowest
]
CS = np.logspace(-3, 3, 13)


def load(file):
    df = pd.read_csv(DATA / file)
    return df.iloc[:, 1:].to_numpy(float), df.iloc[:, 0].to_numpy().astype(int)


def best_logistic(X, y, folds, l1):
    scores = np.zeros((len(folds), CS.size))
    for k, (tr, te) in enumerate(folds):
        for c, C in enumerate(CS):
            if l1:
                m = LogisticRegression(C=C, l1_ratio=1.0, solver="liblinear", intercept_scaling=10)
            else:
                m = LogisticRegression(C=C, max_iter=2000)
            scores[k, c] = m.fit(X[tr], y[tr]).score(X[te], y[te])
    return float(scores.mean(axis=0).max())


def best_rounded(X, y, folds, gammas):
    scores = np.zeros((len(folds), len(gammas)))
    for k, (tr, te) in enumerate(folds):
        lr = LogisticRegression(C=np.inf, max_iter=5000).fit(X[tr], y[tr])
        y_num = 2.0 * y[tr] - 1
        for g, gamma in enumerate(gammas):
            pts = np.round(lr.coef_[0] / gamma)
            a, b = gamma, lr.intercept_[0]
            if np.any(pts != 0):
                a_, b_ = refit_scale(X[tr] @ pts, y_num, "logistic")
                if a_[0] > 0:
                    a, b = a_[0], b_[0]
            pred = (a * (X[te] @ pts) + b > 0).astype(int)
            scores[k, g] = np.mean(pred == y[te])
    return float(scores.mean(axis=0).max())


def run(name, target, small, args, X, y):
    ng, nb = (args.gammas, args.betas) if small is None or args.full else small
    folds = list(StratifiedKFold(10, shuffle=True, random_state=0).split(X, y))
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        cv = FacetsClassifierCV(gammas=ng, betas=nb, cv=folds, n_jobs=args.n_jobs).fit(X, y)
    t_facets = time.perf_counter() - t0
    r = cv.cv_results_
    score = r["mean_test_score"]
    integral = r["fully_integral"].astype(bool)
    strict = r["fully_integral_strict"].astype(bool)
    top = score.max()
    optimal = int(np.sum(integral & (score >= top - 0.005)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lasso = best_logistic(X, y, folds, l1=True)
        ridge = best_logistic(X, y, folds, l1=False)
        rounded = best_rounded(X, y, folds, cv.gammas_)
    row = {
        "data": name, "n x d": f"{X.shape[0]} x {X.shape[1]}", "grid": f"{ng} x {nb}",
        "facets": cv.best_score_ if integral.any() else float("nan"),
        "strict": float(score[strict].max()) if strict.any() else float("nan"),
        "n_strict": int(strict.sum()),
        "paper": target, "best_any": top, "lasso": lasso, "ridge": ridge, "rounded": rounded,
        "points": int(ng * nb), "null": int(r["null"].sum()), "integral": int(integral.sum()),
        "optimal": optimal, "seconds": t_facets, "card": cv.points_.tolist(),
        "gamma": cv.best_gamma_, "beta": cv.best_beta_,
        "fallback": cv.best_score_, "fallback_integrity": float(r["mean_integrity"][cv.best_index_]),
    }
    print(f"- {name:10s} facets {row['facets']:.3f} strict {row['strict']:.3f} (paper {target:.2f}) best-any {top:.3f} "
          f"lasso {lasso:.3f} ridge {ridge:.3f} rounded {rounded:.3f} | grid {ng}x{nb}: "
          f"null {row['null']} integral {row['integral']} (strict {row['n_strict']}) optimal {optimal} | "
          f"{t_facets:.0f} s",
          flush=True)
    return row


def tables(rows, args):
    t1 = ["| data | n x d | Facets (integral) | strictly integral | paper's Facets | any grid point | "
          "Lasso | Ridge | rounded LR |", "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        if np.isfinite(r["facets"]):
            mark = "" if r["facets"] >= r["paper"] - 0.005 else " (below)"
            shown = f"{r['facets']:.3f}{mark}"
        else:
            shown = (f"none integral (most integral: {r['fallback']:.3f} at mean integrity "
                     f"{r['fallback_integrity']:.2f})")
        strict = f"{r['strict']:.3f}" if np.isfinite(r["strict"]) else "none"
        t1.append(f"| {r['data']} | {r['n x d']} | {shown} | {strict} | {r['paper']:.2f} | "
                  f"{r['best_any']:.3f} | {r['lasso']:.3f} | {r['ridge']:.3f} | {r['rounded']:.3f} |")
    t2 = ["| data | grid (gamma x beta) | grid points | null | integral | strictly integral | "
          "optimal | seconds |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        t2.append(f"| {r['data']} | {r['grid']} | {r['points']} | {r['null']} | {r['integral']} | "
                  f"{r['n_strict']} | {r['optimal']} | {r['seconds']:.0f} |")
    return "\n".join(t1) + "\n\n" + "\n".join(t2) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gammas", type=int, default=24)
    ap.add_argument("--betas", type=int, default=100)
    ap.add_argument("--full", action="store_true", help="same grid for the big sets too")
    ap.add_argument("--only", default="", help="comma-separated paper names, e.g. Breast,Heart")
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--scale", choices=["none", "maxabs"], default="none",
                    help="maxabs: divide each column by its largest |value| (sets not in [-1, 1])")
    ap.add_argument("--page", action="store_true", help="also save the tables as docs/benchmarks/facets-paper[-SCALE].md")
    args = ap.parse_args()
    only = {s.strip().lower() for s in args.only.split(",") if s.strip()}
    slug = "facets-paper" if args.scale == "none" else f"facets-paper-{args.scale}"
    title = "Facets: the paper's Tables 1 and 2" + ("" if args.scale == "none" else f", features scaled ({args.scale})")
    with page(slug, title, enabled=args.page, about=__doc__):
        rows = []
        with progress.quiet():
            for name, file, target, small in SETS:
                if only and name.lower() not in only:
                    continue
                X, y = load(file)
                if args.scale == "maxabs":
                    top = np.abs(X).max(axis=0)
                    if np.all(top <= 1):
                        continue  # already in [-1, 1]: the same as the unscaled run
                    X = X / np.where(top > 0, top, 1.0)
                rows.append(run(name, target, small, args, X, y))
        print()
        print(tables(rows, args))

if __name__ == "__main__":
    main()
