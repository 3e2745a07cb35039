"""Speed of interp_symbolic.meijerg against mpmath.meijerg called per point, same points.

For each configuration of the paper (and the (1,1,2,2) one a contrib package may add), 5 random
parameter sets in [-1.5, 1.5] (well separated, as in the accuracy tests) and 500 points z in
(0.02, 0.9) (the range the pursuit uses for the p == q configurations; p != q also get z up to
3).  Prints per configuration the median time of one vectorised call (value, and value + full
gradient), the time of mpmath.meijerg called on each of the same 500 points, the ratios
(medians over the parameter sets), the largest relative error against mpmath (30 digits, all
points) and how many points fell back to mpmath.  Last, the cost of one pass of the scaled sum
(a fixed part and a part per point and term), which ``strategy.GROUP_SAVE`` weighs when it
decides whether a group of points gets its own pass.

    python benchmarks/symbolic_meijerg.py
"""

import time

import mpmath
import numpy as np

from interp_symbolic import meijerg, meijerg_grad
from interp_symbolic.meijer.coefficients import cached_block_coeffs
from interp_symbolic.meijer.series import Parameters
from interp_symbolic.meijer.scaled import sum_scaled
from interp_symbolic.meijer.strategy import GROUP_SAVE

CONFIGS = [(1, 0, 0, 2), (0, 1, 3, 1), (2, 1, 2, 3), (2, 2, 3, 3), (2, 0, 1, 3), (1, 1, 2, 2)]
N = 500
N_SETS = 5


def separated(m, n, a, b):
    for grp, k in ((b, m), (a, n)):
        for i in range(k):
            for j in range(i + 1, k):
                d = grp[j] - grp[i]
                if abs(d - round(d)) < 0.05:
                    return False
    for j in range(n):
        for h in range(m):
            d = a[j] - b[h]
            if d > 0.5 and abs(d - round(d)) < 0.05:
                return False
    return True


def median_time(fn, reps=7, cold=True):
    """Median wall time of ``fn``; ``cold`` empties the coefficient cache before each call, so a
    repeated call pays for everything a first call with new parameters pays for (as in a fit)."""
    ts = []
    for _ in range(reps):
        if cold:
            cached_block_coeffs.cache_clear()
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts))


def main():
    rng = np.random.default_rng(0)
    print(f"{'config':>14} {'ours ms':>9} {'ours+grad ms':>13} {'mpmath ms':>10} {'ratio':>8} "
          f"{'ratio(grad)':>11} {'max rel err':>12} {'fallback':>9} {'warm ratio':>10}")
    for m, n, p, q in CONFIGS:
        ratios, ratios_g, errs, fbs, t_ours, t_grad, t_mp, t_warm = [], [], [], [], [], [], [], []
        for rep in range(N_SETS):
            while True:
                a, b = rng.uniform(-1.5, 1.5, p), rng.uniform(-1.5, 1.5, q)
                if separated(m, n, a, b):
                    break
            a_s, b_s = [list(a[:n]), list(a[n:])], [list(b[:m]), list(b[m:])]
            hi = 0.9 if p == q else 3.0
            z = rng.uniform(0.02, hi, N)
            val, info = meijerg(a_s, b_s, z, return_info=True)
            to = median_time(lambda: meijerg(a_s, b_s, z))
            tg = median_time(lambda: meijerg_grad(a_s, b_s, z))
            t_warm.append(median_time(lambda: meijerg(a_s, b_s, z), cold=False))
            t0 = time.perf_counter()
            for zi in z:
                mpmath.meijerg(a_s, b_s, zi)
            tm = time.perf_counter() - t0
            with mpmath.workdps(30):
                ref30 = np.array([float(mpmath.meijerg(a_s, b_s, zi)) for zi in z])
            errs.append(float(np.max(np.abs(val - ref30) / np.abs(ref30))))
            fbs.append(int(info["fallback"].sum()))
            t_ours.append(to)
            t_grad.append(tg)
            t_mp.append(tm)
            ratios.append(tm / to)
            ratios_g.append(tm / tg)
        print(f"{str((m, n, p, q)):>14} {1e3 * np.median(t_ours):9.2f} {1e3 * np.median(t_grad):13.2f} "
              f"{1e3 * np.median(t_mp):10.1f} {np.median(ratios):7.0f}x {np.median(ratios_g):10.0f}x "
              f"{max(errs):12.1e} {sum(fbs):>5d}/{N_SETS * N} {np.median(t_mp) / np.median(t_warm):9.0f}x")
    print(f"(mpmath at its default 15 digits on the same {N} points; times and ratios are medians over"
          f" {N_SETS} random parameter sets; 'ours' is a cold call, coefficient cache emptied first;"
          f" 'warm ratio' repeats the same parameters with the cache kept)")


def pass_cost():
    """Fixed cost of one pass (1 point, 48 terms) and cost per point and term (2,000 points,
    1,000 terms), p == q with w_max = 0.995 so that every pass uses its whole cap of terms."""
    par = Parameters.from_mpmath([[0.3], [-0.4]], [[0.8], [0.1]])
    rng = np.random.default_rng(1)

    def t(N, K):
        logw = np.log(np.append(rng.uniform(0.5, 0.995, N - 1), 0.995))
        with np.errstate(all="ignore"):
            return median_time(lambda: sum_scaled(par, logw, K, False, {}), reps=15, cold=False)

    fixed = t(1, 48)
    per_term = (t(2000, 1000) - fixed) / (2000 * 1000)
    print(f"one pass of the scaled sum: {1e3 * fixed:.2f} ms fixed + {1e9 * per_term:.2f} ns per point and term;"
          f" GROUP_SAVE = {GROUP_SAVE:.0e} point-terms = {1e3 * GROUP_SAVE * per_term:.2f} ms")


if __name__ == "__main__":
    main()
    pass_cost()
