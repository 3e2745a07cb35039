"""Facets score cards against FasterRisk (Liu et al., NeurIPS 2022) on the 8 UCI sets.

Reads ../shared/data/uci (relative to the repository root).  Both methods see the same outer
folds, ``StratifiedKFold(n_folds, shuffle=True, random_state=0)``:

* **Facets**: what a user of ``interp run --plugin facets --max-rows 10 --max-points 5`` gets:
  the card's own readable design (``interp_facets.features.card_features``, fitted on the
  training fold) and ``FacetsClassifierCV(max_rows=10, max_points=5)``, whose card is chosen
  by its card search on the training fold (the lowest training loss over its few gammas, no
  inner CV); accuracy and AUC of the card's risk on the test fold.
* **FasterRisk** 0.1.10: ``RiskScoreOptimizer(k, lb=-5, ub=5)``, model 0 of its pool (its lowest
  training loss), on the raw columns with k = 5 and k = 10, and with k = 10 on quantile-binarised
  columns (``x <= t`` at the training fold's deciles) for the sets that have non-binary columns.

FasterRisk is never our dependency: the script installs it into its own virtual environment
(default /tmp/interp-bench-fasterrisk; fasterrisk 0.1.10 pins old pandas and scikit-learn and
calls ``ndarray.tostring``, so it is installed with ``--no-deps`` beside numpy < 2) and runs it
there in a child process, with one BLAS thread like our fit.  Its results are cached in a JSON
file (``--cache``) so that later runs time only Facets.

Printed per set: accuracy, AUC, rows, max |points| and fit seconds (median over folds) for
both, the fit-time ratio (one whole FacetsClassifierCV fit over one FasterRisk k=10 fit) and the
number of sets where Facets is within 0.005 of FasterRisk k=10 on accuracy and on AUC.

    python benchmarks/facets_vs_fasterrisk.py [--only adult,spam] [--folds 10] [--cache PATH]
                                              [--refresh-peer] [--peer-only]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / ".." / "shared" / "data" / "uci"
SETS = {  # short name -> file; adult, the largest, last
    "bankruptcy": "bankruptcy_processed.csv",
    "breast": "breastcancer_data.csv",
    "haberman": "haberman_processed.csv",
    "heart": "heart_processed.csv",
    "mammo": "mammo_data.csv",
    "mushroom": "mushroom_data.csv",
    "spam": "spambase_data.csv",
    "adult": "adult_data.csv",
}
PEER_VENV = Path(os.environ.get("INTERP_BENCH_FASTERRISK_VENV", "/tmp/interp-bench-fasterrisk"))
PEER_REQUIREMENTS = ("numpy<2", "pandas", "scikit-learn", "requests")
PEER_PACKAGE = "fasterrisk==0.1.10"
MAX_ROWS, MAX_POINTS = 10, 5
TOLERANCE = 0.005
SINGLE_THREAD = {k: "1" for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}


# --------------------------------------------------------------------------- shared by both sides
def load(name: str):
    """The set's features (a DataFrame, its column names kept) and 0/1 target (first column)."""
    df = pd.read_csv(DATA / SETS[name])
    return df.iloc[:, 1:].astype(float), df.iloc[:, 0].to_numpy().astype(int)


def folds(y, n_folds: int):
    from sklearn.model_selection import StratifiedKFold

    splitter = StratifiedKFold(n_folds, shuffle=True, random_state=0)
    return list(splitter.split(np.zeros(len(y)), y))


def auc(y, score) -> float:
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(y, score))


# --------------------------------------------------------------------------- FasterRisk (child process)
def decile_design(train: pd.DataFrame, test: pd.DataFrame):
    """``x <= t`` columns at the training fold's deciles for every column with more than two
    values (binary columns pass through): the quantile binarisation of the issue's table."""
    cols_tr, cols_te = [], []
    for name in train.columns:
        x_tr, x_te = train[name].to_numpy(), test[name].to_numpy()
        if np.unique(x_tr).size <= 2:
            cols_tr.append(x_tr)
            cols_te.append(x_te)
            continue
        for t in np.unique(np.quantile(x_tr, np.linspace(0.1, 0.9, 9)))[:-1]:
            cols_tr.append((x_tr <= t).astype(float))
            cols_te.append((x_te <= t).astype(float))
    return np.column_stack(cols_tr), np.column_stack(cols_te)


def fasterrisk_fold(X_tr, y_tr, X_te, y_te, k: int) -> dict:
    """One FasterRisk fit (k rows, points in [-5, 5]) and its test accuracy and AUC."""
    from fasterrisk.fasterrisk import RiskScoreClassifier, RiskScoreOptimizer

    y_pm = np.where(y_tr == 1, 1, -1)
    start = time.perf_counter()
    optimizer = RiskScoreOptimizer(X=X_tr, y=y_pm, k=k, lb=-MAX_POINTS, ub=MAX_POINTS)
    optimizer.optimize()
    multipliers, intercepts, coefficients = optimizer.get_models()
    seconds = time.perf_counter() - start
    model = RiskScoreClassifier(multipliers[0], intercepts[0], coefficients[0])
    proba = model.predict_prob(X_te)
    accuracy = float(np.mean((proba > 0.5).astype(int) == y_te))
    points = np.asarray(coefficients[0])
    return dict(accuracy=accuracy, auc=auc(y_te, proba), rows=int(np.count_nonzero(points)),
                max_points=int(np.max(np.abs(points))) if points.any() else 0, seconds=seconds)


def peer_worker(names, n_folds: int) -> dict:
    """Every FasterRisk variant on every fold of ``names`` (runs inside the peer's venv)."""
    import warnings

    warnings.simplefilter("ignore")
    out = {}
    for name in names:
        X, y = load(name)
        binary = bool(np.isin(X.to_numpy(), (0.0, 1.0)).all())
        runs = {"k5": [], "k10": [], "k10_binarised": []}
        for k_fold, (tr, te) in enumerate(folds(y, n_folds)):
            Xtr, Xte = X.iloc[tr], X.iloc[te]
            runs["k5"].append(fasterrisk_fold(Xtr.to_numpy(), y[tr], Xte.to_numpy(), y[te], 5))
            runs["k10"].append(fasterrisk_fold(Xtr.to_numpy(), y[tr], Xte.to_numpy(), y[te], 10))
            if not binary:
                Btr, Bte = decile_design(Xtr, Xte)
                runs["k10_binarised"].append(fasterrisk_fold(Btr, y[tr], Bte, y[te], 10))
            print(f"  fasterrisk {name} fold {k_fold + 1}/{n_folds}", file=sys.stderr, flush=True)
        out[name] = {key: value for key, value in runs.items() if value}
    return out


def ensure_peer_venv() -> Path:
    """The peer's python, installing it on first use."""
    python = PEER_VENV / "bin" / "python"
    probe = [str(python), "-c", "import fasterrisk.fasterrisk"]
    if python.exists() and subprocess.run(probe, capture_output=True).returncode == 0:
        return python
    print(f"installing {PEER_PACKAGE} into {PEER_VENV} ...", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", str(PEER_VENV)], check=True)
    pip = [str(python), "-m", "pip", "install", "-q"]
    subprocess.run([*pip, *PEER_REQUIREMENTS], check=True)
    subprocess.run([*pip, "--no-deps", PEER_PACKAGE], check=True)
    return python


def peer_results(names, n_folds: int, cache: Path, refresh: bool) -> dict:
    """FasterRisk's results per set, from the cache when it holds them for these folds."""
    stored = json.loads(cache.read_text()) if cache.exists() and not refresh else {}
    if stored.get("n_folds") != n_folds:
        stored = {"n_folds": n_folds, "sets": {}}
    for name in [n for n in names if n not in stored["sets"]]:  # one child per set, cached as it ends
        python = ensure_peer_venv()
        cmd = [str(python), __file__, "--peer-worker", "--only", name, "--folds", str(n_folds)]
        done = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True,
                              env={**os.environ, **SINGLE_THREAD})
        stored["sets"].update(json.loads(done.stdout))
        cache.write_text(json.dumps(stored, indent=1))
    return {n: stored["sets"][n] for n in names}


# --------------------------------------------------------------------------- Facets
def facets_fold(X_tr: pd.DataFrame, y_tr, X_te: pd.DataFrame, y_te) -> dict:
    """What ``interp run --plugin facets --max-rows 10 --max-points 5`` fits, on one fold."""
    from interp_facets import FacetsClassifierCV
    from interp_facets.features import card_features
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        start = time.perf_counter()
        design = card_features(X_tr.to_numpy(), list(X_tr.columns), raw=X_tr)
        model = FacetsClassifierCV(max_rows=MAX_ROWS, max_points=MAX_POINTS, random_state=0)
        model.fit(design.X, y_tr)
        seconds = time.perf_counter() - start
        Z_te = design.binarizer.transform(X_te)
        proba = model.predict_proba(Z_te)[:, 1]
    points = np.asarray(model.best_estimator_.points_)
    return dict(accuracy=float(np.mean(model.predict(Z_te) == y_te)), auc=auc(y_te, proba),
                rows=int(np.count_nonzero(points)), max_points=int(np.max(np.abs(points), initial=0)),
                seconds=seconds)


def facets_results(names, n_folds: int) -> dict:
    from interp.progress import Progress

    out = {}
    for name in names:
        X, y = load(name)
        splits = folds(y, n_folds)
        bar = Progress(f"facets {name}", total=len(splits))
        runs = []
        for tr, te in splits:
            runs.append(facets_fold(X.iloc[tr], y[tr], X.iloc[te], y[te]))
            bar.update()
        bar.close()
        out[name] = runs
    return out


# --------------------------------------------------------------------------- report
def summary(runs: list[dict]) -> dict:
    """Means of accuracy and AUC, the largest rows and points, the median and worst fit time."""
    seconds = [r["seconds"] for r in runs]
    return dict(accuracy=float(np.mean([r["accuracy"] for r in runs])),
                auc=float(np.mean([r["auc"] for r in runs])),
                rows=max(r["rows"] for r in runs), max_points=max(r["max_points"] for r in runs),
                seconds=float(np.median(seconds)), worst_seconds=float(np.max(seconds)))


def report(ours: dict, peer: dict) -> None:
    header = (f"{'set':<11} {'facets acc':>10} {'auc':>6} {'rows':>4} {'pts':>3} {'fit s':>7}   "
              f"{'FR10 acc':>8} {'auc':>6} {'rows':>4} {'pts':>3} {'fit s':>7}  {'ratio':>6}   "
              f"{'FR5 acc':>7} {'FR10bin acc':>11}")
    print(header)
    print("-" * len(header))
    level = dict(accuracy=0, auc=0, both=0)
    for name in ours:
        a, b = summary(ours[name]), summary(peer[name]["k10"])
        k5 = summary(peer[name]["k5"])["accuracy"]
        binarised = peer[name].get("k10_binarised")
        bin_text = f"{summary(binarised)['accuracy']:.3f}" if binarised else "-"
        acc_ok = a["accuracy"] >= b["accuracy"] - TOLERANCE
        auc_ok = a["auc"] >= b["auc"] - TOLERANCE
        level["accuracy"] += acc_ok
        level["auc"] += auc_ok
        level["both"] += acc_ok and auc_ok
        print(f"{name:<11} {a['accuracy']:>10.3f} {a['auc']:>6.3f} {a['rows']:>4} {a['max_points']:>3} "
              f"{a['seconds']:>7.2f}   {b['accuracy']:>8.3f} {b['auc']:>6.3f} {b['rows']:>4} "
              f"{b['max_points']:>3} {b['seconds']:>7.2f}  {a['seconds'] / b['seconds']:>5.2f}x   "
              f"{k5:>7.3f} {bin_text:>11}   {'level' if acc_ok and auc_ok else 'behind'}")
    n = len(ours)
    print(f"\nFacets within {TOLERANCE} of FasterRisk k=10: accuracy on {level['accuracy']}/{n} sets, "
          f"AUC on {level['auc']}/{n}, both on {level['both']}/{n}.")
    print("fit s: median over folds of one whole fit (Facets: design + card search + refit; "
          "FasterRisk: optimize); ratio = Facets / FasterRisk k=10. rows and pts: the largest over folds.")
    worst = {name: summary(ours[name])["worst_seconds"] / summary(peer[name]["k10"])["worst_seconds"]
             for name in ours}
    print("worst-fold fit ratio: " + ", ".join(f"{k} {v:.2f}x" for k, v in worst.items()))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(SETS), help="comma-separated set names")
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/fasterrisk_results.json"))
    parser.add_argument("--refresh-peer", action="store_true", help="re-run FasterRisk even if cached")
    parser.add_argument("--peer-only", action="store_true", help="run FasterRisk only (fills the cache)")
    parser.add_argument("--peer-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = sorted(set(names) - set(SETS))
    if unknown:
        parser.error(f"unknown set(s) {', '.join(unknown)}; known: {', '.join(SETS)}")
    if args.peer_worker:
        print(json.dumps(peer_worker(names, args.folds)))
        return
    peer = peer_results(names, args.folds, args.cache, args.refresh_peer)
    if args.peer_only:
        for name in names:
            print(name, {key: summary(runs) for key, runs in peer[name].items()})
        return
    report(facets_results(names, args.folds), peer)


if __name__ == "__main__":
    main()
