"""Reproduce the experiments of the Propositional-kernels paper (tables for
docs/methods/propositional.md).

Reads ../shared/data/categorical/ (relative to the repository root; the copies and their sources
are listed in that folder's README.md).  Prints Markdown tables.

A. Artificial data: X = all 1024 assignments of n = 10 variables; a random rule f from the
   generator (p = 0.4, eta = 0.7; each leaf a random variable) labels them; 30% held out for
   test; hard-margin SVM (C = 1e4, normalised kernels) trained on 50 / 100 / 200 rows of the
   rest.  AUC of the target kernel (the propositional kernel of f's shape) against 10 random
   kernels from the same generator.  Repeated until 100 repetitions or the time budget.
B. Categorical sets: nested 5-fold CV AUC.  In each outer training fold: the propositional
   kernel with the lowest radius-margin ratio among 30 random ones; the linear kernel; the best
   Boolean kernel (mc, md, c, d of degree 1-3; mdnf, mcnf, dnf, cnf with (c, d) in (2, 2),
   (2, 3), (3, 2)) chosen by inner 3-fold CV AUC, and (the paper's protocol, optimistic) the best
   Boolean kernel on the outer test fold.  C in {0.1, 1, 10, 100} by inner 3-fold CV for every
   kernel, except for the "oracle" column and the rank correlation, which train each of the 30
   candidates once with C = 10 (time).  All kernels normalised.  Then the top rules of the model
   selected on all rows.

Usage: python benchmarks/propositional_paper.py [--budget-artificial SECONDS] [--jobs N]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from scipy.stats import spearmanr
from sklearn.datasets import load_svmlight_file
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.svm import SVC

from interp_propositional import (
    TabularBinarizer,
    boolean_kernel,
    evaluate,
    explain_svc,
    leaves,
    parse,
    propositional_kernel,
    random_formula,
    select_kernel,
)
from page import run_page

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "categorical"
C_GRID = (0.1, 1.0, 10.0, 100.0)
BOOLEAN = [(k, {"c": g}) for k in ("mc", "c") for g in (1, 2, 3)] + \
          [(k, {"d": g}) for k in ("md", "d") for g in (1, 2, 3)] + \
          [(k, {"c": c, "d": d}) for k in ("mdnf", "mcnf", "dnf", "cnf") for c, d in ((2, 2), (2, 3), (3, 2))]
ORACLE_C = 10.0


# A. artificial --------------------------------------------------------------------------------
def artificial(budget: float, seed: int = 0) -> str:
    n = 10
    X = np.array(np.meshgrid(*[[0, 1]] * n, indexing="ij")).reshape(n, -1).T.astype(float)
    rng = np.random.RandomState(seed)
    sizes = (50, 100, 200)
    target = {s: [] for s in sizes}
    others = {s: [] for s in sizes}
    wins = {s: 0 for s in sizes}
    start, reps = time.perf_counter(), 0
    while reps < 100 and time.perf_counter() - start < budget:
        node = parse(random_formula(0.4, 0.7, rng))
        assign = rng.randint(n, size=len(leaves(node)))
        y = evaluate(node, [X[:, i].astype(bool) for i in assign]).astype(int)
        if min(y.sum(), len(y) - y.sum()) < 20:  # nearly constant rule: draw again
            continue
        tr, te = train_test_split(np.arange(len(y)), test_size=0.3, stratify=y, random_state=rng.randint(2**31))
        randoms = [random_formula(0.4, 0.7, rng) for _ in range(10)]
        kernels = [propositional_kernel(node, X, normalize=True)] + [
            propositional_kernel(f, X, normalize=True) for f in randoms]
        for size in sizes:
            sub = rng.choice(tr, size=size, replace=False)
            if len(np.unique(y[sub])) < 2:
                sub = tr[:size]
            aucs = []
            for K in kernels:
                svm = SVC(kernel="precomputed", C=1e4).fit(K[np.ix_(sub, sub)], y[sub])
                aucs.append(roc_auc_score(y[te], svm.decision_function(K[np.ix_(te, sub)])))
            target[size].append(aucs[0])
            others[size].append(float(np.mean(aucs[1:])))
            wins[size] += aucs[0] >= max(aucs[1:])
        reps += 1
    lines = [f"Artificial data (n = 10, 1024 rows, 30% test, hard-margin SVM), {reps} repetitions "
             f"in {time.perf_counter() - start:.0f} s:", "",
             "| training rows | target kernel AUC (mean) | median | random kernels AUC (mean of 10, averaged) | target >= best random |",
             "|---|---|---|---|---|"]
    for s in sizes:
        lines.append(f"| {s} | {np.mean(target[s]):.4f} | {np.median(target[s]):.4f} | "
                     f"{np.mean(others[s]):.4f} | {wins[s]}/{reps} |")
    return "\n".join(lines)


# B. categorical sets -------------------------------------------------------------------------
def _skip_header(path: Path, sep: str) -> pd.DataFrame:
    return pd.read_csv(path, sep=sep, header=None, skiprows=1, skipinitialspace=True)


def load_sets() -> dict:
    sets = {}
    ttt = pd.read_csv(DATA / "tictactoe.data")
    sets["tic-tac-toe"] = (ttt.drop(columns="outcome"), (ttt["outcome"] == "positive").astype(int).to_numpy())
    for k in (1, 2, 3):
        frame = pd.read_csv(DATA / f"monks-{k}.test", sep=r"\s+", header=None, skiprows=1)
        frame = frame.iloc[:, :7]
        frame.columns = ["class"] + [f"a{i}" for i in range(1, 7)]
        sets[f"monks-{k}"] = (frame.drop(columns="class").astype(str), frame["class"].astype(int).to_numpy())
    spect = pd.concat([_skip_header(DATA / "SPECT.train", ","), _skip_header(DATA / "SPECT.test", ",")])
    spect.columns = ["class"] + [f"F{i}" for i in range(1, 23)]
    sets["SPECT"] = (spect.drop(columns="class"), spect["class"].astype(int).to_numpy())
    votes = pd.read_csv(DATA / "house-votes-84.data", skipinitialspace=True)
    votes.columns = [c.strip() for c in votes.columns]
    sets["house-votes-84"] = (votes.drop(columns="Class"), (votes["Class"] == "republican").astype(int).to_numpy())
    soy = _skip_header(DATA / "soybean-small.data", ",")
    soy.columns = [f"A{i}" for i in range(1, 36)] + ["class"]
    sets["soybean-small (D4 vs rest)"] = (soy.drop(columns="class").astype(str), (soy["class"] == "D4").astype(int).to_numpy())
    Xb, yb = load_svmlight_file(str(DATA / "breast_cancer.svmlight"), n_features=9)
    names = ["clump_thickness", "cell_size", "cell_shape", "adhesion", "epithelial_size", "bare_nuclei",
             "chromatin", "nucleoli", "mitoses"]
    sets["breast-cancer"] = (pd.DataFrame(Xb.toarray().astype(int).astype(str), columns=names), yb.astype(int))
    return sets


def _inner_auc(K: np.ndarray, y: np.ndarray, seed: int) -> tuple[float, float]:
    """Best inner 3-fold CV AUC and its C for a precomputed training kernel."""
    folds = list(StratifiedKFold(3, shuffle=True, random_state=seed).split(K, y))
    best = (-1.0, C_GRID[0])
    for C in C_GRID:
        aucs = []
        for a, b in folds:
            svm = SVC(kernel="precomputed", C=C).fit(K[np.ix_(a, a)], y[a])
            aucs.append(roc_auc_score(y[b], svm.decision_function(K[np.ix_(b, a)])))
        best = max(best, (float(np.mean(aucs)), C))
    return best


def _test_auc(Kfull, tr, te, y, C) -> float:
    svm = SVC(kernel="precomputed", C=C).fit(Kfull[np.ix_(tr, tr)], y[tr])
    return float(roc_auc_score(y[te], svm.decision_function(Kfull[np.ix_(te, tr)])))


def one_fold(X, y, tr, te, seed) -> dict:
    out = {}
    sel = select_kernel(X[tr], y[tr], n_candidates=30, p=0.4, eta=0.7, random_state=seed, max_leaves=8)
    cand_auc = {f: _test_auc(propositional_kernel(f, X, normalize=True), tr, te, y, ORACLE_C)
                for f in sel.formulas}
    K = propositional_kernel(sel.best, X, normalize=True)
    _, C = _inner_auc(K[np.ix_(tr, tr)], y[tr], seed)
    out["prop"] = _test_auc(K, tr, te, y, C)
    out["prop_formula"] = sel.best
    out["prop_oracle"] = max(cand_auc.values())
    finite = [(r, cand_auc[f]) for f, r in zip(sel.formulas, sel.ratios) if np.isfinite(r)]
    out["spearman"] = float(spearmanr([r for r, _ in finite], [a for _, a in finite])[0]) if len(finite) > 2 else float("nan")
    K = propositional_kernel("a", X, normalize=True)
    _, C = _inner_auc(K[np.ix_(tr, tr)], y[tr], seed)
    out["linear"] = _test_auc(K, tr, te, y, C)
    best_inner, best_test = (-1.0, None, None), (-1.0, None)
    for kind, deg in BOOLEAN:
        try:
            K = boolean_kernel(kind, X, normalize=True, **deg)
        except Exception:  # noqa: BLE001 - e.g. float64 overflow at high degree
            continue
        inner, C = _inner_auc(K[np.ix_(tr, tr)], y[tr], seed)
        test = _test_auc(K, tr, te, y, C)
        label = f"{kind}({', '.join(f'{k}={v}' for k, v in deg.items())})"
        if inner > best_inner[0]:
            best_inner = (inner, label, test)
        if test > best_test[0]:
            best_test = (test, label)
    out["bool_cv"], out["bool_cv_kernel"] = best_inner[2], best_inner[1]
    out["bool_test"], out["bool_test_kernel"] = best_test
    return out


def categorical(jobs: int) -> str:
    rows, rules_text = [], []
    for name, (frame, y) in load_sets().items():
        t0 = time.perf_counter()
        binz = TabularBinarizer().fit(frame)
        X = binz.transform(frame)
        names = list(binz.get_feature_names_out())
        folds = list(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))
        res = Parallel(n_jobs=jobs)(delayed(one_fold)(X, y, tr, te, i) for i, (tr, te) in enumerate(folds))
        mean = lambda key: float(np.mean([r[key] for r in res]))  # noqa: E731
        rows.append(f"| {name} | {X.shape[0]} x {X.shape[1]} | {mean('prop'):.4f} | {mean('prop_oracle'):.4f} | "
                    f"{mean('linear'):.4f} | {mean('bool_cv'):.4f} | {mean('bool_test'):.4f} | "
                    f"{np.nanmean([r['spearman'] for r in res]):+.2f} | {time.perf_counter() - t0:.0f} s |")
        # the model on all rows: selected formula, C by CV, top rules
        sel = select_kernel(X, y, n_candidates=30, p=0.4, eta=0.7, random_state=0, max_leaves=8)
        K = propositional_kernel(sel.best, X, normalize=True)
        _, C = _inner_auc(K, y, 0)
        svm = SVC(kernel="precomputed", C=C).fit(K, y)
        rules, exact = explain_svc(svm, X, formula=sel.best, normalize=True, feature_names=names, top=3,
                                   logic=binz.column_logic())
        rules_text.append(f"* **{name}**: formula `{sel.best}` (C = {C:g}); selected per fold: "
                          + ", ".join(f"`{r['prop_formula']}`" for r in res)
                          + f"; best Boolean (inner CV) per fold: {', '.join(r['bool_cv_kernel'] for r in res)}; top rules"
                          + f" ({'exact' if exact else 'local search'}):")
        for r in rules:
            rules_text.append(f"  - `{r.rule}` (weight {r.weight:+.3g}, class {r.supports})")
        print(rows[-1], flush=True)
    head = ["| data set | rows x binary features | propositional, radius-margin selected | best of the 30 on test (oracle, C = 10) | linear | best Boolean, inner CV | best Boolean on test (paper protocol, optimistic) | Spearman(ratio, AUC) | time |",
            "|---|---|---|---|---|---|---|---|---|"]
    return "\n".join(head + rows) + "\n\nTop rules of the model selected on all rows:\n\n" + "\n".join(rules_text)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--budget-artificial", type=float, default=600.0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--skip-artificial", action="store_true")
    parser.add_argument("--skip-categorical", action="store_true")
    args = parser.parse_args()
    if not args.skip_categorical:
        print("## Categorical data sets (nested 5-fold CV AUC)\n", flush=True)
        print(categorical(args.jobs), flush=True)
    if not args.skip_artificial:
        print("\n## Artificial data\n", flush=True)
        print(artificial(args.budget_artificial), flush=True)


if __name__ == "__main__":
    run_page(main, "propositional-paper", "Propositional kernels: the paper's experiments", about=__doc__)
