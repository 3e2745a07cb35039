"""End-to-end fit time and held-out fidelity: interp's symbolic pursuit vs the reference package.

The reference is ``symbolic-pursuit`` from PyPI.  It is never a dependency of interp: this script
creates its own virtual environment under ``/tmp/bench-venvs/symbolic-pursuit`` and installs it
there by name.  Both implementations get the same training rows and the same black-box outputs
(saved to an .npz file); fidelity is R^2 against the black box on held-out rows.

The reference is slow (it evaluates mpmath through a degree-15 Taylor surrogate and optimises with
CG on numerical gradients), so the default budget is reduced: ``--patience 1`` (one pursuit step,
the reference's ``patience``), the reference's own ``maxiter=100`` per optimisation.  Reference
results are cached in the venv folder (``--fresh`` to rerun).

    python benchmarks/symbolic_vs_reference.py                 # both cases
    python benchmarks/symbolic_vs_reference.py --reference-only  # only run/cached reference part
    python benchmarks/symbolic_vs_reference.py --cases exp2

Cases: ``exp2``: f = exp(-x1 - 2 x2) on 200 uniform points of [0, 1]^2 (1,000 held-out points);
``diabetes``: scikit-learn's diabetes data (min-max scaled, 300 train / 142 held-out rows), the
black box an MLP trained on the train rows.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import venv
from pathlib import Path

import numpy as np
from page import run_page

ROOT = Path("/tmp/bench-venvs/symbolic-pursuit")
PY = ROOT / "venv" / "bin" / "python"

REFERENCE_RUNNER = r'''
import json, sys, time, warnings
import numpy as np
warnings.filterwarnings("ignore")
from symbolic_pursuit.models import SymbolicRegressor
import symbolic_pursuit.logger as log
try:
    log.remove()
except Exception:
    pass
data = np.load(sys.argv[1])
maxiter, patience = int(sys.argv[2]), int(sys.argv[3])
Xtr, ytr, Xte, yte = data["Xtr"], data["ytr"], data["Xte"], data["yte"]
f = lambda X: ytr  # the reference only ever calls the black box on the training rows
model = SymbolicRegressor(maxiter=maxiter, patience=patience, random_seed=42)
t0 = time.perf_counter()
model.fit(f, Xtr)
fit_s = time.perf_counter() - t0
pred = np.asarray(model.predict(Xte), dtype=float)
r2 = 1 - np.mean((pred - yte) ** 2) / np.var(yte)
print(json.dumps({"fit_s": fit_s, "r2": float(r2), "terms": len(model.terms_list),
                  "expression": str(model)[:400]}))
'''


def make_cases():
    rng = np.random.default_rng(0)
    cases = {}
    Xtr = rng.uniform(size=(200, 2))
    Xte = rng.uniform(size=(1000, 2))
    f = lambda X: np.exp(-X[:, 0] - 2 * X[:, 1])  # noqa: E731
    cases["exp2"] = dict(Xtr=Xtr, ytr=f(Xtr), Xte=Xte, yte=f(Xte))

    from sklearn.datasets import load_diabetes
    from sklearn.neural_network import MLPRegressor

    X, y = load_diabetes(return_X_y=True)
    perm = rng.permutation(len(X))
    tr, te = perm[:300], perm[300:]
    lo, hi = X[tr].min(0), X[tr].max(0)
    Xs = np.clip((X - lo) / (hi - lo), 0, 1)
    ys = (y - y[tr].mean()) / y[tr].std()
    mlp = MLPRegressor(hidden_layer_sizes=(64, 64), max_iter=2000, random_state=0).fit(Xs[tr], ys[tr])
    cases["diabetes"] = dict(Xtr=Xs[tr], ytr=mlp.predict(Xs[tr]), Xte=Xs[te], yte=mlp.predict(Xs[te]))
    return cases


def ensure_venv():
    if PY.exists():
        return
    ROOT.mkdir(parents=True, exist_ok=True)
    venv.EnvBuilder(with_pip=True).create(ROOT / "venv")
    subprocess.run([str(PY), "-m", "pip", "install", "-q", "symbolic-pursuit", "scipy", "mpmath"], check=True)


def run_reference(name, path, maxiter, patience, fresh):
    out = ROOT / f"result_{name}_m{maxiter}_p{patience}.json"
    if out.exists() and not fresh:
        return json.loads(out.read_text())
    ensure_venv()
    script = ROOT / "runner.py"
    script.write_text(REFERENCE_RUNNER)
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    proc = subprocess.run([str(PY), str(script), str(path), str(maxiter), str(patience)],
                          capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-2000:])
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    out.write_text(json.dumps(result))
    return result


def run_ours(case, max_terms):
    from interp_symbolic import SymbolicPursuitRegressor

    times, r2s, terms = [], [], []
    for rep in range(3):
        est = SymbolicPursuitRegressor(max_terms=max_terms, random_state=rep)
        t0 = time.perf_counter()
        est.fit(case["Xtr"], case["ytr"])
        times.append(time.perf_counter() - t0)
        pred = est.predict(case["Xte"])
        r2s.append(1 - np.mean((pred - case["yte"]) ** 2) / np.var(case["yte"]))
        terms.append(est.n_terms_)
    return dict(fit_s=float(np.median(times)), r2=float(np.median(r2s)), terms=int(np.median(terms)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", default="exp2,diabetes")
    ap.add_argument("--maxiter", type=int, default=100)
    ap.add_argument("--patience", type=int, default=1)
    ap.add_argument("--max-terms", type=int, default=3)
    ap.add_argument("--reference-only", action="store_true")
    ap.add_argument("--fresh", action="store_true")
    args = ap.parse_args()
    cases = make_cases()
    ROOT.mkdir(parents=True, exist_ok=True)
    for name in args.cases.split(","):
        case = cases[name]
        path = ROOT / f"case_{name}.npz"
        np.savez(path, **case)
        ref = run_reference(name, path, args.maxiter, args.patience, args.fresh)
        print(f"[{name}] reference symbolic-pursuit (maxiter={args.maxiter}, patience={args.patience}): "
              f"fit {ref['fit_s']:.1f} s, held-out R^2 {ref['r2']:.6f}, terms {ref['terms']}", flush=True)
        if args.reference_only:
            continue
        ours = run_ours(case, args.max_terms)
        print(f"[{name}] interp symbolic (max_terms={args.max_terms}, median of 3 seeds): "
              f"fit {ours['fit_s']:.2f} s, held-out R^2 {ours['r2']:.6f}, terms {ours['terms']}")
        verdict = "equal or better" if ours["r2"] >= ref["r2"] - 1e-12 else "WORSE"
        print(f"[{name}] speed-up {ref['fit_s'] / ours['fit_s']:.0f}x, fidelity {verdict} "
              f"({ours['r2']:.4f} vs {ref['r2']:.4f})", flush=True)


if __name__ == "__main__":
    run_page(main, "symbolic-vs-reference", "Symbolic Pursuit against the reference package", about=__doc__)
