"""Facets speed: one fit vs scikit-learn's liblinear L1 logistic regression, and grid timings.

Reads the UCI files in ../shared/data/uci (relative to the repository root, i.e.
Path(__file__).parents[1] / ".." / "shared" / "data" / "uci").  Prints medians of repeated
runs and ratios measured in this same run.  Usage:

    python benchmarks/facets_speed.py [--repeats 5] [--skip-grid]
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression

from interp_facets import FacetsClassifier
from interp_facets.cv import reference_magnitude
from interp_facets.estimators import integrity
from interp_facets.path import fit_path
from interp_facets.problem import Objective, gram_matrix, null_threshold
from interp_facets.solver import SolverOptions
from interp_facets.validation import resolve_penalty
from page import run_page

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "uci"
FILES = {
    "adult": "adult_data.csv",
    "bankruptcy": "bankruptcy_processed.csv",
    "breastcancer": "breastcancer_data.csv",
    "haberman": "haberman_processed.csv",
    "heart": "heart_processed.csv",
    "mammo": "mammo_data.csv",
    "mushroom": "mushroom_data.csv",
    "spambase": "spambase_data.csv",
}


def load(name):
    df = pd.read_csv(DATA / FILES[name])
    return df.iloc[:, 1:].to_numpy(float), df.iloc[:, 0].to_numpy().astype(int)


def paired_medians(fns, repeats):
    """Median seconds of each function, run in turns (one call of each per round), so that a
    noisy machine slows them alike.  Returns (medians, the last outputs)."""
    times = [[] for _ in fns]
    outs = [None] * len(fns)
    for _ in range(repeats):
        for i, fn in enumerate(fns):
            t = time.perf_counter()
            outs[i] = fn()
            times[i].append(time.perf_counter() - t)
    return [float(np.median(t)) for t in times], outs


def l1_objective(X, y01, w, b, lam):
    y = 2 * y01 - 1
    return float(np.mean(np.logaddexp(0, -y * (X @ w + b))) + lam * np.abs(w).sum())


def liblinear(X, y, lam):
    """scikit-learn's L1 logistic regression on the same mean-loss objective (C = 1 / (n lam))."""
    return LogisticRegression(C=1 / (len(y) * lam), l1_ratio=1.0, solver="liblinear", tol=1e-4,
                              intercept_scaling=100, random_state=0)


def comparable_tol(X, y, lam, solver, target):
    """The loosest of our tolerances whose L1 objective reaches ``target`` (liblinear's) within
    1e-7: each solver's own stopping rule is different."""
    for tol in (1e-3, 1e-4, 1e-5, 1e-6, 1e-7):
        probe = ours_l1(lam, tol, solver).fit(X, y)
        if l1_objective(X, y, probe.coef_[0], probe.intercept_[0], lam) <= target + 1e-7:
            break
    return tol


def ours_l1(lam, tol, solver):
    return FacetsClassifier(lam=lam, gamma=1.0, penalty="l1", tol=tol, max_iter=20000,
                            refit_scale=False, solver=solver)


def one_fit(name, repeats, lam=1e-3):
    X, y = load(name)
    print(f"\n## one fit on {name} ({X.shape[0]} x {X.shape[1]}), lam = {lam:g} "
          f"(mean-loss scale; liblinear's C = 1 / (n lam)), medians of {repeats} paired runs")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lib = liblinear(X, y, lam).fit(X, y)
        obj_lib = l1_objective(X, y, lib.coef_[0], lib.intercept_[0], lam)
        g = 0.1 * reference_magnitude(X, 2.0 * y - 1, "logistic")  # a card of ~10 points
        ratios = {}
        for solver in ("newton", "fista"):
            tol = comparable_tol(X, y, lam, solver, obj_lib)
            (t_lib, t_l1, t_scf), (_, ours, scf) = paired_medians([
                lambda: liblinear(X, y, lam).fit(X, y),
                lambda: ours_l1(lam, tol, solver).fit(X, y),
                lambda: FacetsClassifier(lam=lam * g * g * 10, gamma=g, penalty="scf", tol=tol,
                                         max_iter=20000, solver=solver).fit(X, y),
            ], repeats)
            obj = l1_objective(X, y, ours.coef_[0], ours.intercept_[0], lam)
            ratios[solver] = t_l1 / t_lib
            print(f"liblinear L1 (tol 1e-4)   median {t_lib * 1e3:8.1f} ms  objective {obj_lib:.9f}")
            print(f"{solver:6s} penalty=l1        median {t_l1 * 1e3:8.1f} ms  objective {obj:.9f}  "
                  f"tol {tol:g}  iterations {ours.n_iter_}  ratio {t_l1 / t_lib:.2f}x liblinear")
            print(f"{solver:6s} penalty=scf       median {t_scf * 1e3:8.1f} ms  (gamma {g:.3g}, "
                  f"beta 10 lam)  iterations {scf.n_iter_}  integrity {scf.integrity_:.2f}  "
                  f"ratio {t_scf / t_lib:.2f}x liblinear")
    return ratios


def lam_sweep(name, repeats, lams=(1e-1, 1e-2, 1e-3, 1e-4)):
    """One fit (Newton, penalty l1) against liblinear over four decades of lam."""
    X, y = load(name)
    print(f"\n## {name}: one fit over lam (Newton, penalty l1), medians of {repeats} paired runs")
    print("| lam | liblinear | ours | ratio | tol | iterations | non-zeros |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for lam in lams:
            lib = liblinear(X, y, lam).fit(X, y)
            tol = comparable_tol(X, y, lam, "newton",
                                 l1_objective(X, y, lib.coef_[0], lib.intercept_[0], lam))
            (t_lib, t_ours), (_, ours) = paired_medians(
                [lambda: liblinear(X, y, lam).fit(X, y), lambda: ours_l1(lam, tol, "newton").fit(X, y)],
                repeats)
            print(f"| {lam:g} | {t_lib * 1e3:.1f} ms | {t_ours * 1e3:.1f} ms | {t_ours / t_lib:.2f}x | "
                  f"{tol:g} | {ours.n_iter_} | {np.count_nonzero(ours.coef_)} |", flush=True)


def grid(name, n_gammas, n_betas, solver="newton"):
    """The full-data warm-started paths over an (n_gammas x n_betas) grid, as FacetsClassifierCV."""
    X, y01 = load(name)
    y = 2.0 * y01 - 1
    pen, hyper = resolve_penalty("scf", 0.01)
    t0 = time.perf_counter()
    m = reference_magnitude(X, y, "logistic")
    gammas = np.geomspace(m / 30, m, n_gammas)
    c = null_threshold(X, y, "logistic")
    betas = c / gammas.min() * np.logspace(0, -5, n_betas)
    gram = gram_matrix(X)
    integ, iters, conv = [], 0, 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for g in gammas:
            path = fit_path(X, y, Objective("logistic", pen, hyper, gamma=g), betas * g * g,
                            SolverOptions(solver, tol=1e-4, max_iter=2000), gram=gram)
            integ += [integrity(u)[0] for u in path.coefs]
            iters += int(path.n_iter.sum())
            conv += int(path.converged.sum())
    dt = time.perf_counter() - t0
    return dt, np.array(integ), iters, conv


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--skip-grid", action="store_true", help="only the one-fit comparisons")
    ap.add_argument("--per-set-only", action="store_true", help="only the per-data-set timings")
    args = ap.parse_args()
    if args.per_set_only:
        return per_set()
    for name in ("adult", "spambase"):
        one_fit(name, args.repeats)
    for name in ("adult", "spambase"):
        lam_sweep(name, args.repeats)
    if args.skip_grid:
        return
    print("\n## full 24 x 100 grid with warm starts on breastcancer (full data, one path per gamma)")
    integ = {}
    for solver in ("newton", "fista", "ista"):
        dt, integ[solver], iters, conv = grid("breastcancer", 24, 100, solver)
        print(f"{solver:6s}: {dt:6.1f} s for 2400 points ({dt / 2400 * 1e3:.1f} ms per point), "
              f"{iters} iterations, {conv}/2400 converged, fully integral "
              f"{int((integ[solver] == 1).sum())}, mean integrity {integ[solver].mean():.3f}", flush=True)
    for other in ("fista", "ista"):
        same = np.mean(integ["newton"] == integ[other])
        print(f"newton vs {other}: the integrity agrees on {same:.1%} of the 2400 grid points")
    per_set()


def per_set(n_gammas=4, n_betas=10):
    k = n_gammas * n_betas
    print(f"\n## time per grid point ({n_gammas} x {n_betas} grid, full data, Newton) on every data set")
    for name in FILES:
        dt, integ, iters, conv = grid(name, n_gammas, n_betas)
        print(f"{name:13s} {dt / k * 1e3:8.1f} ms per point  ({iters / k:.0f} iterations per point, "
              f"{conv}/{k} converged)", flush=True)


if __name__ == "__main__":
    run_page(main, "facets-speed", "Facets: speed against liblinear, and grid timings", about=__doc__)
