"""Wall time and peak memory of every method as the rows grow, and how time scales with rows.

For each method and each size, the script writes a CSV of a fixed synthetic design (30 standard
normal features; y ~ Bernoulli(sigmoid(x0 - 2 x1 + x2 x3 + 0.5 sin(3 x4))), seed 0), runs
``interp run --method NAME --data FILE --target y --quiet`` as a child process exactly as a user
would, and reads the child's wall time and peak resident memory from the operating system
(``os.wait4``).  It prints one row per (method, size) and, per method, the slope of log(time)
against log(rows) between the sizes that finished: 1 means linear in rows.

A run over its time limit is stopped and shown as such; one that exits with an error shows its
one-line message (a refusal that says what to do is an answer too).

    python benchmarks/scaling.py                       # 10,000 and 100,000 rows, all methods
    python benchmarks/scaling.py --sizes 10000 100000 1000000 --methods facets featurevec
    python benchmarks/scaling.py --wide                # also 1,000 rows x 5,000 columns

Needs only the installed project (``pip install .``); it writes its CSVs to a temporary folder.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from page import run_page

METHODS = ("featurevec", "facets", "symbolic", "propositional")
N_FEATURES = 30


def write_design(path: Path, n_rows: int, n_features: int = N_FEATURES, seed: int = 0) -> Path:
    """The benchmark's synthetic design as a CSV with a header row and target column y."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n_rows, n_features))
    logit = X[:, 0] - 2 * X[:, 1] + X[:, 2] * X[:, 3] + 0.5 * np.sin(3 * X[:, 4])
    y = (rng.random(n_rows) < 1 / (1 + np.exp(-logit))).astype(int)
    header = ",".join([f"x{i}" for i in range(n_features)] + ["y"])
    with path.open("w") as out:
        out.write(header + "\n")
        for start in range(0, n_rows, 50_000):  # chunks: a million rows never sit in one string
            block = np.column_stack([X[start:start + 50_000], y[start:start + 50_000]])
            np.savetxt(out, block, delimiter=",", fmt=["%.6g"] * n_features + ["%d"])
    return path


def run_child(args: list[str], timeout: float) -> tuple[float, float, int, str]:
    """(wall seconds, peak MiB, exit code, last stderr line) of one child process."""
    interp = shutil.which("interp", path=str(Path(sys.executable).parent)) or "interp"
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen([interp, *args], stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
        deadline = start + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                os.killpg(proc.pid, signal.SIGKILL)
                _, status, usage = os.wait4(proc.pid, 0)
                return timeout, usage.ru_maxrss / 1024, -1, f"stopped after {timeout:.0f} s"
            time.sleep(0.05)
        wall = time.perf_counter() - start
        err.seek(0)
        lines = err.read().decode(errors="replace").strip().splitlines()
    return wall, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status), (lines[-1] if lines else "")


def slope(sizes: list[int], times: list[float]) -> float:
    """Least-squares slope of log(time) on log(rows)."""
    if len(sizes) < 2:
        return float("nan")
    return float(np.polyfit(np.log(sizes), np.log(times), 1)[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per run")
    parser.add_argument("--wide", action="store_true", help="also 1,000 rows x 5,000 columns (featurevec)")
    opts = parser.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="interp-scaling-"))
    try:
        files = {n: write_design(folder / f"rows{n}.csv", n) for n in opts.sizes}
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n")
        print(f"{'method':<14}{'rows':>10}{'wall s':>10}{'peak MiB':>10}  result")
        for method in opts.methods:
            done_sizes, done_times = [], []
            for n in opts.sizes:
                wall, peak, code, last = run_child(
                    ["run", "--method", method, "--data", str(files[n]), "--target", "y", "--quiet"], opts.timeout)
                result = "ok" if code == 0 else f"exit {code}: {last}"
                print(f"{method:<14}{n:>10,}{wall:>10.1f}{peak:>10.0f}  {result}", flush=True)
                if code == 0:
                    done_sizes.append(n)
                    done_times.append(wall)
            print(f"{method:<14}{'slope':>10}{slope(done_sizes, done_times):>10.2f}\n", flush=True)
        if opts.wide:
            wide = write_design(folder / "wide.csv", 1_000, n_features=5_000)
            wall, peak, code, last = run_child(["run", "--method", "featurevec", "--data", str(wide),
                                                "--target", "y", "--quiet"], opts.timeout)
            print(f"{'featurevec':<14}{'1,000 x 5,000':>10}{wall:>10.1f}{peak:>10.0f}  "
                  f"{'ok' if code == 0 else f'exit {code}: {last}'}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    run_page(main, "scaling", "Every method as the rows grow", about=__doc__)
