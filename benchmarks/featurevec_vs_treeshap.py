"""Feature Vectors' importances against TreeSHAP's mean |SHAP value|, on the same fitted models.

shap is not a dependency of interp: the script builds its own virtual environment under
/tmp/interp-bench-shap (``python -m venv``; ``pip install shap xgboost lightgbm scikit-learn``;
then this repository, reinstalled on every run so the code measured is the working tree's) and
runs itself there.  ``--here`` runs in the current interpreter instead (shap must be installed).

Two tables:

1. For 4 data sets x 3 model kinds, the Spearman correlation between the importances of
   ``FeatureVectors(estimator=model)`` (all the model's paths, window 3) and the mean |SHAP
   value| over the rows (``shap.TreeExplainer``; every class for a multiclass model), with how
   many of each method's top 5 features the other's top 5 shares.
   Data: ``breast-cancer`` (569 x 30, binary) and ``diabetes`` (442 x 10, regression), bundled
   with interp; ``spambase`` (4,601 x 57, binary) and ``heart`` (303 x 32, binary, mostly 0/1
   columns) from ../shared/data/uci (left out, with a note, where that folder is absent).
2. Designs with known informative features: ``make_classification(n_informative=5, no
   redundant, shuffle=False)`` so columns 0-4 carry the signal and the rest are noise, an easy
   one (2,000 x 20) and a hard one (300 x 30, 20% of the labels flipped); for each model kind,
   in how many of ``--seeds`` seeds each method ranks every informative feature above every
   noise feature.

Models (the same for every data set): random forest (200 trees, depth 8), XGBoost (200 rounds,
depth 4, learning rate 0.1), LightGBM (200 rounds, 15 leaves), all seeded.  SHAP values are
computed on at most ``--rows`` rows (a seeded sample).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from page import run_page

ROOT = Path(__file__).resolve().parents[1]
UCI = ROOT.parent / "shared" / "data" / "uci"
VENV = Path("/tmp/interp-bench-shap")
PY = VENV / "bin" / "python"
KINDS = ("forest", "xgboost", "lightgbm")
TOP = 5


# -- the environment -----------------------------------------------------------------------------

def ensure_venv() -> None:
    """Create the benchmark's environment once, and reinstall the project into it every run."""
    if not PY.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    pip = [str(PY), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    ready = subprocess.run([str(PY), "-c", "import shap, xgboost, lightgbm, interp"], capture_output=True)
    if ready.returncode != 0:
        subprocess.run(pip + ["shap", "xgboost", "lightgbm", "scikit-learn", str(ROOT)], check=True)
    subprocess.run(pip + ["--no-deps", "--force-reinstall", str(ROOT)], check=True)


def run_in_venv(script: str, here: bool) -> None:
    """Unless ``here`` or already in it: run ``script`` again with this command line (``--page``
    included, so the run in the environment writes the page) in the benchmark's environment
    (``ensure_venv``) and exit with its exit code."""
    if here or Path(sys.prefix).resolve() == VENV.resolve():
        return
    ensure_venv()
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    sys.exit(subprocess.run([str(PY), script, *sys.argv[1:], "--here"], env=env).returncode)


# -- data and models -----------------------------------------------------------------------------

def load(name: str):
    """``(X, y, task, feature names)`` of one data set, or None when its file is absent."""
    import pandas as pd

    from interp import load_dataset

    if name in ("breast-cancer", "diabetes"):
        data = load_dataset(name)
        return data.X, data.y, data.task, list(data.feature_names)
    path = UCI / {"spambase": "spambase_data.csv", "heart": "heart_processed.csv"}[name]
    if not path.exists():
        return None
    frame = pd.read_csv(path)  # label in the first column, coded 0/1
    return (frame.iloc[:, 1:].to_numpy(dtype=float), frame.iloc[:, 0].to_numpy(dtype=int), "classification",
            list(frame.columns[1:]))


def make_model(kind: str, task: str, seed: int):
    """An unfitted model of ``kind`` for ``task`` ("classification" or "regression")."""
    classify = task == "classification"
    if kind == "forest":
        from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

        cls = RandomForestClassifier if classify else RandomForestRegressor
        return cls(n_estimators=200, max_depth=8, random_state=seed, n_jobs=-1)
    if kind == "xgboost":
        import xgboost

        cls = xgboost.XGBClassifier if classify else xgboost.XGBRegressor
        return cls(n_estimators=200, max_depth=4, learning_rate=0.1, random_state=seed)
    import lightgbm

    cls = lightgbm.LGBMClassifier if classify else lightgbm.LGBMRegressor
    return cls(n_estimators=200, num_leaves=15, random_state=seed, verbose=-1)


# -- the two importances -------------------------------------------------------------------------

def featurevec_importances(model, X, y) -> np.ndarray:
    """Feature Vectors' importances of the fitted ``model``'s own trees."""
    from interp_featurevec import FeatureVectors

    return FeatureVectors(estimator=model).fit(X, y).importances_


def shap_importances(model, X) -> np.ndarray:
    """Mean |SHAP value| per feature over the rows (and over the classes of a multiclass model)."""
    import shap

    values = shap.TreeExplainer(model).shap_values(X)
    values = np.stack(values, axis=-1) if isinstance(values, list) else np.asarray(values)
    magnitude = np.abs(values)
    return magnitude.mean(axis=0) if magnitude.ndim == 2 else magnitude.mean(axis=(0, 2))


def top(importances: np.ndarray, k: int = TOP) -> set[int]:
    return set(np.argsort(-importances, kind="stable")[:k].tolist())


def first_names(importances: np.ndarray, names: list[str], k: int = 3) -> str:
    return ", ".join(names[i][:15] for i in np.argsort(-importances, kind="stable")[:k])


def separates(importances: np.ndarray, informative: np.ndarray) -> bool:
    """Every informative feature ranks above every noise feature."""
    noise = np.setdiff1d(np.arange(importances.shape[0]), informative)
    return bool(importances[informative].min() > importances[noise].max())


def sample_rows(X, n: int, seed: int) -> np.ndarray:
    if X.shape[0] <= n:
        return X
    return X[np.sort(np.random.default_rng(seed).choice(X.shape[0], n, replace=False))]


# -- the tables ----------------------------------------------------------------------------------

def agreement_table(rows: int, seed: int) -> None:
    from scipy.stats import spearmanr

    print(f"{'data set':<14} {'n x d':>9}  {'model':<9} {'Spearman':>8}  top-{TOP} shared  "
          f"{'Feature Vectors top 3':<48} mean |SHAP| top 3")
    for name in ("breast-cancer", "diabetes", "spambase", "heart"):
        loaded = load(name)
        if loaded is None:
            print(f"{name:<14} (left out: {UCI} is absent)")
            continue
        X, y, task, names = loaded
        for kind in KINDS:
            model = make_model(kind, task, seed).fit(X, y)
            fv = featurevec_importances(model, X, y)
            sh = shap_importances(model, sample_rows(X, rows, seed))
            rho = spearmanr(fv, sh).statistic
            print(f"{name:<14} {X.shape[0]:>5}x{X.shape[1]:<3}  {kind:<9} {rho:>8.3f}  {len(top(fv) & top(sh)):>5}/{TOP}"
                  f"       {first_names(fv, names):<48} {first_names(sh, names)}")
            sys.stdout.flush()


#: (rows, features, fraction of labels flipped): columns 0-4 informative, the rest noise
DESIGNS = ((2000, 20, 0.0), (300, 30, 0.2))


def synthetic_table(seeds: int, rows: int) -> None:
    from sklearn.datasets import make_classification

    informative = np.arange(5)
    print(f"\nknown informative features (make_classification, shuffle=False: columns 0-4 informative, the rest "
          f"noise): seeds of {seeds} where every informative feature ranks above every noise feature")
    print(f"{'design':<28} {'model':<9} {'Feature Vectors':>16} {'mean |SHAP|':>12}")
    for n, d, flip in DESIGNS:
        for kind in KINDS:
            hits = {"fv": 0, "shap": 0}
            for seed in range(seeds):
                X, y = make_classification(n, d, n_informative=5, n_redundant=0, n_repeated=0, shuffle=False,
                                           flip_y=flip, random_state=seed)
                model = make_model(kind, "classification", seed).fit(X, y)
                hits["fv"] += separates(featurevec_importances(model, X, y), informative)
                hits["shap"] += separates(shap_importances(model, sample_rows(X, rows, seed)), informative)
            design = f"{n} x {d}, {flip:.0%} labels flipped"
            print(f"{design:<28} {kind:<9} {hits['fv']:>13}/{seeds} {hits['shap']:>10}/{seeds}")
            sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1000, help="rows SHAP values are computed on (at most)")
    parser.add_argument("--seeds", type=int, default=5, help="seeds of the synthetic design")
    parser.add_argument("--seed", type=int, default=0, help="seed of the models on the real data sets")
    parser.add_argument("--here", action="store_true", help="run in this interpreter (shap installed)")
    args = parser.parse_args()
    agreement_table(args.rows, args.seed)
    synthetic_table(args.seeds, args.rows)


if __name__ == "__main__":
    run_in_venv(__file__, "--here" in sys.argv)  # before run_page: the page is written by the run in the venv
    run_page(main, "featurevec-vs-treeshap", "Feature Vectors against TreeSHAP", about=__doc__)
