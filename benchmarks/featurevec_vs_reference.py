"""Feature Vectors end to end versus the public reference package (``feature-vectors`` on PyPI).

The reference needs numpy 1.23 / scikit-learn 1.2, so this script builds its own virtual
environment under /tmp/bench-venvs/featurevec-ref (python3.11 -m venv; pip install numpy==1.23.5
scikit-learn==1.2.2 pandas==1.5.3 "plotly<6", then feature-vectors without its pinned,
uninstallable dependencies).  It is never a dependency of interp.

Both sides run end to end at 100,000 paths, depth 3: training the forest, extracting the paths,
counting co-occurrences and the 2-D SVD.  The reference runs with its default window (1): with
window 3 it silently returns all-zero vectors for depth-3 trees (its paths shorter than 2w+1
are skipped); ours runs with window 3 (our default; the window barely changes our cost).
Data: breast cancer (scikit-learn's copy, 569 x 30) and the Figure-2 style synthetic set
(interp_featurevec.synthetic.exchangeable_pairs, 2,000 x 20).  Medians of ``--repeats`` runs;
the ratio is reference median / ours, measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer

from interp_featurevec import FeatureVectors
from interp_featurevec.synthetic import exchangeable_pairs
from page import run_page

VENV = Path("/tmp/bench-venvs/featurevec-ref")
PY = VENV / "bin" / "python"

REF_SCRIPT = r"""
import json, sys, time, warnings
warnings.filterwarnings("ignore")
import numpy as np
from fvecs.featurevec import FeatureVec
X = np.load(sys.argv[1]); y = np.load(sys.argv[2]); repeats = int(sys.argv[3])
names = [f"f{i}" for i in range(X.shape[1])]
times, imps = [], []
for _ in range(repeats):
    t = time.perf_counter()
    fv = FeatureVec("classify", feature_names=names, max_depth=3, max_sentences=100000)
    fv.fit(X, y, window_size=1)
    times.append(time.perf_counter() - t)
    imps.append(np.asarray(fv.importance).tolist())
print(json.dumps({"times": times, "importance": imps[-1]}))
"""


def ensure_venv() -> None:
    if PY.exists():
        check = subprocess.run([str(PY), "-c", "import fvecs.featurevec, sklearn; print(sklearn.__version__)"],
                               capture_output=True, text=True)
        if check.returncode == 0:
            return
    VENV.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["python3.11", "-m", "venv", str(VENV)], check=True)
    pip = [str(VENV / "bin" / "pip"), "install", "-q"]
    subprocess.run(pip + ["numpy==1.23.5", "scikit-learn==1.2.2", "pandas==1.5.3", "plotly<6"], check=True)
    subprocess.run(pip + ["--no-deps", "feature-vectors"], check=True)


def time_reference(X, y, repeats: int) -> tuple[list[float], np.ndarray]:
    with tempfile.TemporaryDirectory() as tmp:
        np.save(os.path.join(tmp, "X.npy"), X)
        np.save(os.path.join(tmp, "y.npy"), y)
        script = os.path.join(tmp, "ref.py")
        Path(script).write_text(REF_SCRIPT)
        out = subprocess.run([str(PY), script, os.path.join(tmp, "X.npy"), os.path.join(tmp, "y.npy"), str(repeats)],
                             capture_output=True, text=True, check=True)
    res = json.loads(out.stdout.strip().splitlines()[-1])
    return res["times"], np.array(res["importance"])


def time_ours(X, y, repeats: int, n_jobs) -> tuple[list[float], FeatureVectors]:
    times = []
    fv = None
    for rep in range(repeats):
        t = time.perf_counter()
        fv = FeatureVectors(n_paths=100_000, window=3, max_depth=3, random_state=rep, n_jobs=n_jobs).fit(X, y)
        times.append(time.perf_counter() - t)
    return times, fv


def main() -> None:
    parser = argparse.ArgumentParser(description="Feature Vectors vs the reference package")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n-jobs", type=int, default=1)
    args = parser.parse_args()
    ensure_venv()
    Xb, yb = load_breast_cancer(return_X_y=True)
    Xs, ys, _ = exchangeable_pairs(2000, 20, random_state=0)
    from scipy.stats import spearmanr

    for name, X, y in (("breast cancer 569x30", Xb, yb), ("synthetic pairs 2000x20", Xs, ys)):
        ours, fv = time_ours(X, y, args.repeats, args.n_jobs)
        ref, ref_imp = time_reference(X, y, args.repeats)
        mo, mr = statistics.median(ours), statistics.median(ref)
        rho = spearmanr(ref_imp, fv.importances_).statistic
        print(f"{name}: ours median {mo:.2f} s ({fv.n_trees_} trees, {fv.n_paths_} paths) | "
              f"reference median {mr:.2f} s | ratio {mr / mo:.1f}x (target >= 10x) | "
              f"Spearman of importances vs reference {rho:.3f}")
        sys.stdout.flush()


if __name__ == "__main__":
    run_page(main, "featurevec-vs-reference", "Feature Vectors against the reference package", about=__doc__)
