"""How long Feature Vectors takes to get the paths of a large fitted model: read its trees
(``interp_featurevec.readers.read_trees``), stack them (``tree_arrays``) and extract every
root-to-leaf path (``extract_paths``).  Target: under 2 s for a 1,000-tree depth-6 XGBoost model.

Models (trained once per run on 3,000 x 20 rows with a noisy target, so the trees fill their
depth): XGBoost 1,000 rounds of depth 6; LightGBM 1,000 rounds, depth 6, 63 leaves;
HistGradientBoosting 1,000 iterations of depth 6; a random forest of 1,000 depth-6 trees.
Libraries that are not installed are left out.  Medians (and min / max) of ``--repeats`` runs.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import time

import numpy as np

from interp_featurevec.paths import extract_paths, tree_arrays
from interp_featurevec.readers import read_trees
from page import run_page


def models(X, y) -> dict:
    """The fitted models to read, by label (a library that is absent is skipped)."""
    from sklearn.ensemble import HistGradientBoostingRegressor, RandomForestRegressor

    out = {}
    if importlib.util.find_spec("xgboost"):
        import xgboost

        out["XGBoost, 1,000 rounds, depth 6"] = xgboost.XGBRegressor(
            n_estimators=1000, max_depth=6, min_child_weight=0, reg_lambda=0.0, learning_rate=0.05, max_bin=32,
            random_state=0).fit(X, y)
    if importlib.util.find_spec("lightgbm"):
        import lightgbm

        out["LightGBM, 1,000 rounds, 63 leaves, depth 6"] = lightgbm.LGBMRegressor(
            n_estimators=1000, num_leaves=63, max_depth=6, min_child_samples=5, random_state=0, verbose=-1).fit(X, y)
    out["HistGradientBoosting, 1,000 iterations, depth 6"] = HistGradientBoostingRegressor(
        max_iter=1000, max_depth=6, max_leaf_nodes=None, min_samples_leaf=5, early_stopping=False,
        random_state=0).fit(X, y)
    out["random forest, 1,000 trees, depth 6"] = RandomForestRegressor(
        n_estimators=1000, max_depth=6, max_features=0.3, random_state=0, n_jobs=-1).fit(X, y)
    return out


def time_paths(model, repeats: int) -> tuple[list[float], int, int, int]:
    """Seconds per run, and the trees, nodes and paths of the model."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        trees = read_trees(model)
        left, right, feature, _owner = tree_arrays(trees)
        P, _lengths, _leaves = extract_paths(left, right, feature)
        times.append(time.perf_counter() - start)
    return times, len(trees), int(left.shape[0]), int(P.shape[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 20))
    y = X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(size=3000)
    for label, model in models(X, y).items():
        times, n_trees, n_nodes, n_paths = time_paths(model, args.repeats)
        print(f"{label}: {n_trees} trees, {n_nodes} nodes, {n_paths} paths: median {statistics.median(times):.3f} s "
              f"(min {min(times):.3f}, max {max(times):.3f}; {args.repeats} runs)", flush=True)


if __name__ == "__main__":
    run_page(main, "featurevec-readers-speed", "Feature Vectors: reading the trees of large models", about=__doc__)
