"""Speed and accuracy of interp_symbolic.meijerg against mpmath.meijerg called per point.

For each configuration of ``families.PAPER_FAMILIES``, ``DRAWS`` random parameter sets in
[-1.5, 1.5] with ``POINTS`` points z in (0, 4] (none with |z - 1| < 0.05), in two strata of
equal size: uniform draws, and close-pole draws whose first two b's (configurations with m >= 2)
or first two a's (n >= 2, the poles of the 1/z expansion), or both, are 0.02 to 0.2 apart.
Per draw: our time (median of ``REPEATS`` cold calls, coefficient cache emptied first), the
time of mpmath.meijerg (default 15 digits) per point, timed on a random subsample of
``MP_POINTS`` of the draw's points and scaled to all of them, the relative error against mpmath
at 30 digits on that subsample, and how many points our call sent to mpmath.  Times are CPU
time of this process (``time.process_time``), so that other processes on a shared machine do
not change the ratios.  CPU time counts every thread of the process: after a product that BLAS
runs on several threads, OpenBLAS keeps its threads spinning for a while, and whatever is timed
next is charged for them (one reason ``scaled`` runs its large products on one thread).

Prints per configuration and stratum: the median ratio, the worst draw's ratio and fallback
count, the share of draws at >= 300x, the largest relative error and the fallback total.  Then
the cost of one pass of the scaled sum (a fixed part and a part per point and term), which
``strategy.GROUP_SAVE`` weighs when it decides whether a group of points gets its own pass.
Last, the time of (2,2,3,3) draws at ``BLAS_POINTS`` points (series of ~1,000 terms), with the
large products on one BLAS thread (``scaled.BLAS_THREADS_FROM``, as the package runs them) and
on as many as BLAS likes, wall and CPU time.

    python benchmarks/symbolic_meijerg.py [draws per configuration, default 200] [--page]
"""

import sys
import time

import mpmath
import numpy as np

from interp_symbolic import meijerg
from interp_symbolic.families import PAPER_FAMILIES
from interp_symbolic.meijer import scaled
from interp_symbolic.meijer.coefficients import cached_block_coeffs
from interp_symbolic.meijer.scaled import sum_scaled
from interp_symbolic.meijer.series import Parameters
from interp_symbolic.meijer.strategy import GROUP_SAVE
from page import run_page

DRAWS = 200
POINTS = 100
MP_POINTS = 10
REPEATS = 3
TARGET = 300.0
CLOSE = (0.02, 0.2)
BLAS_POINTS = 500
BLAS_DRAWS = 8


def draw(rng, orders, close):
    """a (p,), b (q,) uniform in [-1.5, 1.5]; ``close``: the first pair of first-group b's
    and of first-group a's (where there are two) 0.02 to 0.2 apart."""
    m, n, p, q = orders
    a, b = rng.uniform(-1.5, 1.5, p), rng.uniform(-1.5, 1.5, q)
    if close:
        for v, k in ((b, m), (a, n)):
            if k >= 2:
                gap = rng.uniform(*CLOSE) * rng.choice([-1.0, 1.0])
                v[1] = v[0] + gap if abs(v[0] + gap) <= 1.5 else v[0] - gap
    return [list(a[:n]), list(a[n:])], [list(b[:m]), list(b[m:])]


def points(rng, n=None):
    """``n`` (default POINTS) points z in (0, 4] with |z - 1| >= 0.05."""
    n = POINTS if n is None else n
    z = rng.uniform(0.0, 4.0, 3 * n)
    return z[(z > 0) & (np.abs(z - 1.0) >= 0.05)][:n]


def cpu_time(fn, reps):
    """Median CPU time of ``fn`` over ``reps`` calls, each with an empty coefficient cache."""
    ts = []
    for _ in range(reps):
        cached_block_coeffs.cache_clear()
        t0 = time.process_time()
        fn()
        ts.append(time.process_time() - t0)
    return float(np.median(ts))


def one_draw(rng, a_s, b_s):
    """(ratio, fallback count, max relative error) of one draw."""
    z = points(rng)
    val, info = meijerg(a_s, b_s, z, return_info=True)
    ours = cpu_time(lambda: meijerg(a_s, b_s, z), REPEATS)
    sub = rng.choice(z.size, MP_POINTS, replace=False)
    t0 = time.process_time()
    for zi in z[sub]:
        mpmath.meijerg(a_s, b_s, float(zi))
    mp = (time.process_time() - t0) * z.size / MP_POINTS
    with mpmath.workdps(30):
        ref = np.array([float(mpmath.meijerg(a_s, b_s, float(zi))) for zi in z[sub]])
    err = float(np.max(np.abs(val[sub] - ref) / np.maximum(np.abs(ref), 1e-300)))
    return mp / ours, int(info["fallback"].sum()), err


def report(orders, stratum, rows):
    ratio = np.array([r[0] for r in rows])
    worst = int(np.argmin(ratio))
    fb = sum(r[1] for r in rows)
    print(f"{str(orders):>14} {stratum:>8} {len(rows):6d} {np.median(ratio):8.0f}x {ratio[worst]:8.1f}x "
          f"{rows[worst][1]:>8d} {np.mean(ratio >= TARGET):8.1%} {max(r[2] for r in rows):10.1e} "
          f"{fb:>6d}/{len(rows) * POINTS}")


def main(draws):
    rng = np.random.default_rng(0)
    print(f"{'config':>14} {'stratum':>8} {'draws':>6} {'median':>9} {'worst':>9} {'worst fb':>8} "
          f"{'>=300x':>8} {'max err':>10} {'fallback':>12}")
    for fam in PAPER_FAMILIES:
        m, n, p, q = fam.orders
        strata = ("uniform", "close") if max(m, n) >= 2 else ("uniform",)
        for stratum in strata:
            k = draws // len(strata)
            rows = [one_draw(rng, *draw(rng, fam.orders, stratum == "close")) for _ in range(k)]
            report(fam.orders, stratum, rows)
    print(f"(ratio = mpmath.meijerg per point at 15 digits, timed on {MP_POINTS} random points of each"
          f" draw's {POINTS} and scaled, over our one vectorised call on all {POINTS}, median of {REPEATS}"
          f" cold calls; CPU times; errors against mpmath at 30 digits on the same subsample)")


def pass_cost():
    """Fixed cost of one pass (1 point, 48 terms) and cost per point and term (2,000 points,
    1,000 terms), p == q with w_max = 0.995 so that every pass uses its whole cap of terms."""
    par = Parameters.from_mpmath([[0.3], [-0.4]], [[0.8], [0.1]])
    rng = np.random.default_rng(1)

    def t(N, K):
        logw = np.log(np.append(rng.uniform(0.5, 0.995, N - 1), 0.995))
        with np.errstate(all="ignore"):
            ts = []
            for _ in range(15):
                t0 = time.process_time()
                sum_scaled(par, logw, K, False, {})
                ts.append(time.process_time() - t0)
            return float(np.median(ts))

    fixed = t(1, 48)
    per_term = (t(2000, 1000) - fixed) / (2000 * 1000)
    print(f"one pass of the scaled sum: {1e3 * fixed:.2f} ms fixed + {1e9 * per_term:.2f} ns per point"
          f" and term; GROUP_SAVE = {GROUP_SAVE:.0e} point-terms = {1e3 * GROUP_SAVE * per_term:.2f} ms")


def blas_threads():
    """Median wall and CPU time per call of (2,2,3,3) draws at BLAS_POINTS points (series of
    ~1,000 terms near |z| = 1): the large products on one BLAS thread, as ``scaled`` runs
    them, and on as many as BLAS likes."""
    rng = np.random.default_rng(2)
    cases = [(*draw(rng, (2, 2, 3, 3), False), points(rng, BLAS_POINTS)) for _ in range(BLAS_DRAWS)]
    threshold = scaled.BLAS_THREADS_FROM
    for label, limit in (("one BLAS thread", threshold), ("BLAS's own threads", float("inf"))):
        scaled.BLAS_THREADS_FROM = limit
        wall, cpu = [], []
        for a_s, b_s, z in cases:
            for _ in range(REPEATS):
                cached_block_coeffs.cache_clear()
                t0, c0 = time.perf_counter(), time.process_time()
                meijerg(a_s, b_s, z)
                wall.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
        print(f"(2, 2, 3, 3) at {BLAS_POINTS} points, {label}: {1e3 * np.median(wall):.2f} ms wall"
              f" (worst {1e3 * max(wall):.2f}), {1e3 * np.median(cpu):.2f} ms CPU per call")
    scaled.BLAS_THREADS_FROM = threshold


def run():
    """The whole benchmark: draws per configuration from the command line (default ``DRAWS``)."""
    main(int(sys.argv[1]) if len(sys.argv) > 1 else DRAWS)
    pass_cost()
    blas_threads()


if __name__ == "__main__":
    run_page(run, "symbolic-meijerg", "Symbolic Pursuit: Meijer G-functions against mpmath", about=__doc__)
