"""Feature Vectors on 50,000 sparse synthetic features (target: a median of at most 20 s on 2 cores).

Synthetic data only (interp_featurevec.synthetic.sparse_wide): 1,000 rows, 50,000 0/1 columns
at 0.2% density, the label driven by the first 20 columns.  End to end: training the forest
until 100,000 root-to-leaf paths (depth 3, ceil(sqrt(d)) = 224 candidates per split), path
extraction, sparse co-occurrence and the 2-D truncated SVD.  Prints the median and the worst of
the runs, each run's CPU time (this process) and the load average when it ended: on a shared
machine the wall time of a run depends on the other jobs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from interp_featurevec import FeatureVectors
from interp_featurevec.synthetic import sparse_wide
from page import run_page


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--features", type=int, default=50_000)
    parser.add_argument("--rows", type=int, default=1_000)
    parser.add_argument("--paths", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n-jobs", type=int, default=1)
    args = parser.parse_args()
    X, y = sparse_wide(args.rows, args.features, density=0.002, n_informative=20, random_state=0)
    print(f"data: {X.shape[0]} rows x {X.shape[1]} features, {X.nnz} non-zeros (sparse)")
    times = []
    for rep in range(args.repeats):
        t0, cpu0 = time.perf_counter(), time.process_time()
        fv = FeatureVectors(n_paths=args.paths, max_depth=3, random_state=rep, n_jobs=args.n_jobs).fit(X, y)
        times.append(time.perf_counter() - t0)
        top = fv.ranking()[:5]
        print(f"run {rep}: {times[-1]:.2f} s (CPU {time.process_time() - cpu0:.2f} s, load average "
              f"{os.getloadavg()[0]:.1f}), {fv.n_trees_} trees, {fv.n_paths_} paths, "
              f"cooccurrence nnz {fv.cooccurrence_.nnz}, explained {fv.explained_variance_ratio_.sum():.3f}, "
              f"top-5 {top.tolist()} ({int(np.sum(top < 20))} informative)")
    med = statistics.median(times)
    print(f"median end-to-end time: {med:.2f} s, worst {max(times):.2f} s (target: median <= 20 s) -> "
          f"{'OK' if med <= 20 else 'TOO SLOW'}")


if __name__ == "__main__":
    run_page(main, "featurevec-scale", "Feature Vectors on 50,000 sparse features", about=__doc__)
