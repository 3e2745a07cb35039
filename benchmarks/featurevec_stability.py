"""Stability of Feature Vectors over seeds, and the pictures of the docs page.

* 10 seeds on breast cancer (bundled with interp), 100,000 paths, depth 3, window 3: Spearman
  correlation of the importances between every pair of seeds (target >= 0.95), and per feature
  the spread (max - min) of its angle and the relative spread of its norm over the seeds.
* The Feature Vectors pictures of breast cancer, diabetes (bundled) and adult
  (../shared/data/uci/adult_data.csv relative to the repository root: 32,561 x 36 binary
  features; read only if present) written to docs/methods/img/ with 30 bootstrap ellipses.
* The knockoff permutation test on breast cancer and SSS/SDS curves on breast cancer
  (picture docs/methods/img/featurevec_sss_sds.png).
"""

from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

import interp
from interp_featurevec import FeatureVectors
from interp_featurevec.validation import (
    angle_difference,
    compare_importances,
    importance_curves,
    knockoff_angle_test,
    plot_curves,
)
from page import run_page

ROOT = Path(__file__).resolve().parents[1]
IMG = ROOT / "docs" / "methods" / "img"
ADULT = ROOT / ".." / "shared" / "data" / "uci" / "adult_data.csv"


def stability(n_seeds: int) -> None:
    data = interp.load_dataset("breast-cancer")
    fits = []
    t0 = time.perf_counter()
    for seed in range(n_seeds):
        fits.append(FeatureVectors(n_paths=100_000, random_state=seed).fit(data.X, data.y))
    elapsed = time.perf_counter() - t0
    imps = np.array([f.importances_ for f in fits])
    angs = np.array([f.angles_ for f in fits])
    rhos = [spearmanr(imps[i], imps[j]).statistic for i, j in itertools.combinations(range(n_seeds), 2)]
    spread = np.array([angle_difference(angs[:, k].max(), angs[:, k].min()) for k in range(angs.shape[1])])
    rel = (imps.max(0) - imps.min(0)) / imps.max(0)
    evr = np.array([f.explained_variance_ratio_.sum() for f in fits])
    print(f"stability, breast cancer, {n_seeds} seeds ({elapsed / n_seeds:.2f} s per fit):")
    print(f"  Spearman of importances over seed pairs: min {min(rhos):.4f}, mean {np.mean(rhos):.4f} (target >= 0.95)")
    print(f"  angle spread per feature (max - min, degrees): median {np.median(spread):.2f}, max {spread.max():.2f}")
    print(f"  relative norm spread per feature: median {np.median(rel):.3f}, max {rel.max():.3f}")
    print(f"  2-D explained variance: {evr.min():.4f} .. {evr.max():.4f}")
    order = np.argsort(-imps.mean(0))
    print("  top features (mean importance, angle mean +- sd):")
    for k in order[:8]:
        print(f"    {data.feature_names[k]:<24} {imps[:, k].mean():.3f}  {angs[:, k].mean():6.1f} +- {angs[:, k].std():.2f}")


def picture(name: str, X, y, names, out: Path, seed: int = 0) -> None:
    t0 = time.perf_counter()
    fv = FeatureVectors(n_paths=100_000, random_state=seed).fit(pd.DataFrame(X, columns=names), y)
    fv.bootstrap(30, random_state=seed)
    fig = fv.plot(top_k=15)
    fig.axes[0].set_title(f"{name}: Feature Vectors, 2-D explained variance "
                          f"{100 * fv.explained_variance_ratio_.sum():.1f}%", fontsize=10)
    fig.savefig(out, dpi=110, bbox_inches="tight")
    top = ", ".join(f"{names[i]} ({fv.angles_[i]:.0f} deg)" for i in fv.ranking()[:5])
    print(f"{name}: {time.perf_counter() - t0:.1f} s, {fv.n_trees_} trees ({fv.task_}); top 5: {top} -> {out.name}")


def validation() -> None:
    data = interp.load_dataset("breast-cancer")
    t0 = time.perf_counter()
    res = knockoff_angle_test(data.X, data.y, n_permutations=10_000, random_state=0, n_paths=100_000)
    print(f"knockoff test, breast cancer (30 features + 30 Gaussian knockoffs): mean |angle(f) - angle(knockoff)| "
          f"{res.statistic:.2f} deg vs random pairing mean {res.null.mean():.2f} deg; p = {res.p_value:.4f} "
          f"({time.perf_counter() - t0:.1f} s)")
    fv = FeatureVectors(n_paths=100_000, random_state=0).fit(data.X, data.y)
    imps = compare_importances(data.X, data.y, fv=fv, random_state=0)
    curves = importance_curves(data.X, data.y, imps, steps=[1, 2, 3, 5, 8, 12, 20])
    for kind in ("sss", "sds"):
        print(f"  {kind.upper()} (k = {curves['steps'].tolist()}):")
        for name, vals in curves[kind].items():
            print(f"    {name:<12} " + " ".join(f"{v:.3f}" for v in vals) + f"   mean {vals.mean():.3f}")
    plot_curves(curves, "breast cancer").savefig(IMG / "featurevec_sss_sds.png", dpi=110, bbox_inches="tight")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--skip", nargs="*", default=[], choices=["stability", "pictures", "validation"])
    args = parser.parse_args()
    IMG.mkdir(parents=True, exist_ok=True)
    if "stability" not in args.skip:
        stability(args.seeds)
    if "pictures" not in args.skip:
        for ds in ("breast-cancer", "diabetes"):
            d = interp.load_dataset(ds)
            picture(ds, d.X, d.y, list(d.feature_names), IMG / f"featurevec_{ds.replace('-', '_')}.png")
        if ADULT.exists():
            frame = pd.read_csv(ADULT)
            y = frame.pop("Over50K").to_numpy()
            picture("adult", frame.to_numpy(dtype=float), y, list(frame.columns), IMG / "featurevec_adult.png")
        else:
            print(f"adult: {ADULT} not found, skipped")
    if "validation" not in args.skip:
        validation()


if __name__ == "__main__":
    run_page(main, "featurevec-stability", "Feature Vectors: stability over seeds, knockoffs, SSS and SDS", about=__doc__)
