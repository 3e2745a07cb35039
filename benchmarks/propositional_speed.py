"""Speed of the propositional plugin's kernels (synthetic data; no files read).

1. A 10-leaf formula on 5,000 x 5,000 rows of 50 binary features (target: under 3 s), plain and
   normalised, against the same joint-state recursion evaluated elementwise on every pair (the
   plain numpy way, no table of distinct triples).
2. Every Boolean kernel (2,000 x 2,000 rows, 50 features) against a plain numpy implementation
   of the textbook closed form (scipy.special.binom on the m x m arrays), with the largest
   relative difference.

Run: python benchmarks/propositional_speed.py
"""

from __future__ import annotations

import statistics
import time

import numpy as np
from scipy.special import binom

from interp_propositional import boolean_kernel, n_leaves, parse, propositional_kernel
from interp_propositional import kernels as km
from page import run_page

FORMULA = "((a & ~b) | (c ^ d)) -> (nand(e, f) <-> (g | ~h)) & (i -> j)"


def median_time(fn, repeats: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def textbook(kind: str, X: np.ndarray, c: int, d: int) -> np.ndarray:
    n = X.shape[1]
    S = X @ X.T
    p = X.sum(1)[:, None]
    q = X.sum(1)[None, :]
    agree = n - p - q + 2 * S
    if kind == "mc":
        return binom(S, c)
    if kind == "md":
        return binom(n, d) - binom(n - p, d) - binom(n - q, d) + binom(n - p - q + S, d)
    if kind == "mdnf":
        nc = binom(n, c)
        return (binom(nc, d) - binom(nc - binom(p, c), d) - binom(nc - binom(q, c), d)
                + binom(nc - binom(p, c) - binom(q, c) + binom(S, c), d))
    if kind == "mcnf":
        return binom(binom(n, d) - binom(n - p, d) - binom(n - q, d) + binom(n - p - q + S, d), c)
    if kind == "c":
        return binom(agree, c)
    if kind == "d":
        return (2**d - 2) * binom(n, d) + binom(agree, d)
    if kind == "dnf":
        big, nc = 2**c * binom(n, c), binom(n, c)
        return binom(big, d) - 2 * binom(big - nc, d) + binom(big - 2 * nc + binom(agree, c), d)
    if kind == "cnf":
        return binom((2**d - 2) * binom(n, d) + binom(agree, d), c)
    raise ValueError(kind)


def main() -> None:
    rng = np.random.default_rng(0)
    X = (rng.random((5000, 50)) < 0.5).astype(float)
    print(f"formula {FORMULA!r}: {n_leaves(parse(FORMULA))} leaves, 5000 x 5000, 50 features")
    t_plain, K = median_time(lambda: propositional_kernel(FORMULA, X), 5)
    t_norm, _ = median_time(lambda: propositional_kernel(FORMULA, X, normalize=True), 5)
    old = km._TABLE_LIMIT
    km._TABLE_LIMIT = 0  # force the elementwise path
    try:
        t_elem, K2 = median_time(lambda: propositional_kernel(FORMULA, X), 3)
    finally:
        km._TABLE_LIMIT = old
    rel = float(np.max(np.abs(K - K2) / np.maximum(K2, 1e-300)))
    print(f"  propositional kernel          median {t_plain:.3f} s   (target < 3 s)")
    print(f"  normalised                    median {t_norm:.3f} s")
    print(f"  elementwise blocks (anchor)   median {t_elem:.3f} s   ratio anchor/ours {t_elem / t_plain:.1f}x"
          f"   max rel diff {rel:.1e}")

    Xb = X[:2000]
    print("\nBoolean kernels, 2000 x 2000, 50 features: ours (exact integers per distinct triple) "
          "vs textbook closed form with scipy.special.binom")
    for kind, c, d in [("mc", 3, 1), ("md", 1, 3), ("mdnf", 2, 3), ("mcnf", 2, 3), ("c", 3, 1),
                       ("d", 1, 3), ("dnf", 2, 3), ("cnf", 2, 3)]:
        uses = {"c": c, "d": d}
        degrees = {k: uses[k] for k in km.BOOLEAN_KINDS[kind][0]}
        t_ours, ours = median_time(lambda: boolean_kernel(kind, Xb, **degrees), 3)
        t_ref, ref = median_time(lambda: textbook(kind, Xb, c, d), 3)
        with np.errstate(divide="ignore", invalid="ignore"):
            diff = np.abs(ours - ref) / np.where(ours > 0, ours, 1.0)
        print(f"  {kind:<5} c={c} d={d}   ours {t_ours:.3f} s   textbook {t_ref:.3f} s   "
              f"ratio textbook/ours {t_ref / t_ours:5.1f}x   max rel diff {float(np.nanmax(diff)):.1e}")


if __name__ == "__main__":
    run_page(main, "propositional-speed", "Propositional kernels: speed", about=__doc__)
