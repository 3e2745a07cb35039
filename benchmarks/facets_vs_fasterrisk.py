"""Facets score cards against FasterRisk (Liu et al., NeurIPS 2022) on the 8 UCI sets, by
repeated outer cross-validation.

Reads ../shared/data/uci (relative to the repository root, or to the folder holding it when the
checkout is a worktree; ``INTERP_BENCH_UCI`` names another folder).  Both methods see the same outer
folds: ``StratifiedKFold(folds, shuffle=True, random_state=r)`` for r = 0 .. repeats - 1
(default 5 repetitions of 10 folds, 50 train/test splits per set).  On every split:

* **Facets**: what a user of ``interp run --method facets --max-rows k --max-points 5`` gets:
  the card's readable design (``interp_facets.features.card_features``, fitted on the training
  part) and ``FacetsClassifierCV(max_rows=k, max_points=5, monotone=design.data_directions())``,
  whose card is chosen by its card search on the training part, each ordered column's points
  keeping the direction of its association with the target on the training part (the method's
  default ``--monotone auto``); accuracy and AUC of the card's risk on the test part.
* **FasterRisk** 0.1.10: ``RiskScoreOptimizer(k, lb=-5, ub=5)`` with its default beam and
  star-ray search, model 0 of its pool (its lowest training loss), on the columns as given.

Both at k = 10 and k = 5; Facets also free of directions (``--monotone none``, the card
search alone) and with ``card_ridge=1`` (``--card-ridge 1``: the card search minimises the
training loss plus a ridge on the card's weights, scikit-learn's C = 1 strength), in tables of
their own.  Per set and k the script prints the paired difference (Facets minus
FasterRisk) of test accuracy and of AUC, averaged over the splits, with its standard error:
Nadeau and Bengio's corrected resampled one, ``sqrt((1/J + n_test/n_train) s^2)`` over the
J = repeats x folds paired differences (the naive ``s / sqrt(J)`` ignores that the training
parts overlap and would be about 2.5 times smaller).  It also prints the mean training
log-loss of both cards (what both searches minimise; a lower loss for FasterRisk means its
search found a better card than ours, in its own columns), and, for every set and k where
Facets trails, how often its training loss is the lower and both cards on the split where
FasterRisk's training loss beats Facets' by the most (else the first split).

Where FasterRisk is too slow for every repetition in the time at hand (adult: minutes per fit),
``--set-repeats adult=1`` runs a set with fewer repetitions, both methods on the same splits;
the tables give every set's number of paired splits, and the page's first line names the sets
run with fewer.

Timing: one whole Facets fit (design, grid, card search, refit) against one FasterRisk
``optimize`` at k = 10, both with one BLAS thread, in CPU seconds (``time.process_time``; the
wall-clock medians are printed beside them).  The ratio is measured in the same run:
FasterRisk is re-timed on the first ``--timed-folds`` splits of repetition 0 (fewer for a set
named in ``--set-timed-folds``) in a child process that runs beside Facets' fits (its cached
accuracies come from an earlier run); the median and the worst of those ratios are printed per
set.

FasterRisk is never our dependency: the script installs it into its own virtual environment
(default /tmp/interp-bench-fasterrisk; fasterrisk 0.1.10 pins old pandas and scikit-learn and
calls ``ndarray.tostring``, so it is installed with ``--no-deps`` beside numpy < 2) and runs it
there in child processes, with one BLAS thread.  Its results are cached per set and repetition
in a JSON file (``--cache``), so an interrupted run resumes and later runs fit only Facets.

    python benchmarks/facets_vs_fasterrisk.py [--only adult,spam] [--repeats 5] [--folds 10]
        [--set-repeats adult=1] [--timed-folds 5] [--set-timed-folds adult=2] [--cache PATH]
        [--refresh-peer] [--peer-only] [--page]

``--page`` also writes what is printed to docs/benchmarks/facets-fasterrisk.md.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
#: ../shared/data/uci beside the checkout (or beside the folder of worktrees that holds it), or
#: the folder INTERP_BENCH_UCI names
DATA = Path(os.environ.get("INTERP_BENCH_UCI") or next(
    (p for p in (ROOT.parent / "shared" / "data" / "uci", ROOT.parent.parent / "shared" / "data" / "uci")
     if p.is_dir()), ROOT.parent / "shared" / "data" / "uci"))
SETS = {  # short name -> file; adult, the largest, last
    "bankruptcy": "bankruptcy_processed.csv",
    "breast": "breastcancer_data.csv",
    "haberman": "haberman_processed.csv",
    "heart": "heart_processed.csv",
    "mammo": "mammo_data.csv",
    "mushroom": "mushroom_data.csv",
    "spam": "spambase_data.csv",
    "adult": "adult_data.csv",
}
PEER_VENV = Path(os.environ.get("INTERP_BENCH_FASTERRISK_VENV", "/tmp/interp-bench-fasterrisk"))
PEER_REQUIREMENTS = ("numpy<2", "pandas", "scikit-learn", "requests")
PEER_PACKAGE = "fasterrisk==0.1.10"
ROWS, MAX_POINTS = (10, 5), 5
#: the Facets variants measured beside the default: a table key's suffix -> (what the table's
#: title adds, the options of `facets_fold`)
VARIANTS = {
    "": ("", {}),
    " free": (", Facets with --monotone none", {"monotone": "none"}),
    " ridge": (", Facets with card_ridge = 1", {"card_ridge": 1.0}),
}
SINGLE_THREAD = {k: "1" for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}


# --------------------------------------------------------------------------- shared by both sides
def load(name: str):
    """The set's features (a DataFrame, its column names kept) and 0/1 target (first column)."""
    df = pd.read_csv(DATA / SETS[name])
    return df.iloc[:, 1:].astype(float), df.iloc[:, 0].to_numpy().astype(int)


def splits(y, repeat: int, n_folds: int):
    """The outer train/test splits of one repetition."""
    from sklearn.model_selection import StratifiedKFold

    splitter = StratifiedKFold(n_folds, shuffle=True, random_state=repeat)
    return list(splitter.split(np.zeros(len(y)), y))


def scores(y_te, proba, y_tr, train_margin) -> dict:
    """Test accuracy and AUC of the probabilities ``proba``, and the mean training log-loss of
    the margins ``train_margin`` (the score ``log p / (1 - p)`` on the training rows)."""
    from sklearn.metrics import roc_auc_score

    signed = np.where(y_tr == 1, 1.0, -1.0)
    return dict(accuracy=float(np.mean((proba > 0.5).astype(int) == y_te)),
                auc=float(roc_auc_score(y_te, proba)),
                train_loss=float(np.mean(np.logaddexp(0.0, -signed * train_margin))))


# --------------------------------------------------------------------------- FasterRisk (child process)
def fasterrisk_fold(X_tr, y_tr, X_te, y_te, k: int) -> dict:
    """One FasterRisk fit (at most k rows, points in [-5, 5]): its scores, card and seconds."""
    from fasterrisk.fasterrisk import RiskScoreClassifier, RiskScoreOptimizer

    start, cpu = time.perf_counter(), time.process_time()
    optimizer = RiskScoreOptimizer(X=X_tr, y=np.where(y_tr == 1, 1, -1), k=k, lb=-MAX_POINTS, ub=MAX_POINTS)
    optimizer.optimize()
    multipliers, intercepts, coefficients = optimizer.get_models()
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    model = RiskScoreClassifier(multipliers[0], intercepts[0], coefficients[0])
    points = np.asarray(coefficients[0])
    margin = (X_tr @ points + intercepts[0]) / multipliers[0]
    return dict(**scores(y_te, model.predict_prob(X_te), y_tr, margin), seconds=seconds, cpu=cpu,
                rows=int(np.count_nonzero(points)), max_points=int(np.max(np.abs(points), initial=0)),
                points=points.astype(int).tolist(), intercept=float(intercepts[0]),
                multiplier=float(multipliers[0]))


def peer_worker(name: str, repeat: int, n_folds: int, only_folds: int | None) -> dict:
    """FasterRisk at every k on the splits of one repetition (runs inside the peer's venv);
    with ``only_folds``, k = 10 alone on the first that many splits (the same-run timing)."""
    import warnings

    warnings.simplefilter("ignore")
    X, y = load(name)
    out = {f"k{k}": [] for k in (ROWS[:1] if only_folds else ROWS)}
    for tr, te in splits(y, repeat, n_folds)[:only_folds]:
        Xtr, Xte = X.iloc[tr].to_numpy(), X.iloc[te].to_numpy()
        for key in out:
            out[key].append(fasterrisk_fold(Xtr, y[tr], Xte, y[te], int(key[1:])))
    return out


def ensure_peer_venv() -> Path:
    """The peer's python, installing it on first use."""
    python = PEER_VENV / "bin" / "python"
    probe = [str(python), "-c", "import fasterrisk.fasterrisk"]
    if python.exists() and subprocess.run(probe, capture_output=True).returncode == 0:
        return python
    print(f"installing {PEER_PACKAGE} into {PEER_VENV} ...", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", str(PEER_VENV)], check=True)
    pip = [str(python), "-m", "pip", "install", "-q"]
    subprocess.run([*pip, *PEER_REQUIREMENTS], check=True)
    subprocess.run([*pip, "--no-deps", PEER_PACKAGE], check=True)
    return python


def run_peer(name: str, repeat: int, n_folds: int, only_folds: int | None = None) -> dict:
    """:func:`peer_worker` in a child process of the peer's venv, with one BLAS thread."""
    cmd = [str(ensure_peer_venv()), __file__, "--peer-worker", "--only", name, "--repeat", str(repeat),
           "--folds", str(n_folds)] + (["--timing", "--timed-folds", str(only_folds)] if only_folds else [])
    done = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True, env={**os.environ, **SINGLE_THREAD})
    return json.loads(done.stdout)


def peer_results(names, repeats: dict, n_folds: int, cache: Path, refresh: bool) -> dict:
    """FasterRisk's results per set on its ``repeats[name]`` repetitions: ``{name: {"k10": [one
    dict per split], "k5": [...]}}``, the splits in order (repetition-major), from the cache
    where it holds them."""
    stored = json.loads(cache.read_text()) if cache.exists() and not refresh else {}
    if stored.get("scheme") != {"folds": n_folds, "version": 2}:
        stored = {"scheme": {"folds": n_folds, "version": 2}, "sets": {}}
    out = {}
    for name in names:
        per_repeat = stored["sets"].setdefault(name, {})
        for r in range(repeats[name]):
            if str(r) not in per_repeat:  # one child per (set, repetition), cached as it ends
                per_repeat[str(r)] = run_peer(name, r, n_folds)
                cache.write_text(json.dumps(stored))
                print(f"  fasterrisk {name} repetition {r + 1}/{repeats[name]}", file=sys.stderr, flush=True)
        out[name] = {key: [run for r in range(repeats[name]) for run in per_repeat[str(r)][key]]
                     for key in per_repeat["0"]}
    return out


# --------------------------------------------------------------------------- Facets
def facets_fold(X_tr: pd.DataFrame, y_tr, X_te: pd.DataFrame, y_te, k: int, monotone: str = "auto",
                card_ridge: float = 0.0) -> dict:
    """What ``interp run --method facets --max-rows k --max-points 5 --monotone M --card-ridge R``
    fits, on one split."""
    from interp_facets import FacetsClassifierCV
    from interp_facets.features import card_features
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        start, cpu = time.perf_counter(), time.process_time()
        design = card_features(X_tr.to_numpy(), list(X_tr.columns), raw=X_tr)
        directions = design.data_directions() if monotone == "auto" else None
        model = FacetsClassifierCV(max_rows=k, max_points=MAX_POINTS, random_state=0, monotone=directions,
                                   card_ridge=card_ridge)
        model.fit(design.X, y_tr)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        proba = model.predict_proba(design.binarizer.transform(X_te))[:, 1]
    points = np.asarray(model.best_estimator_.points_)
    card = [(str(f), int(p)) for f, p in zip(design.names, points) if p]
    return dict(**scores(y_te, proba, y_tr, model.decision_function(design.X)), seconds=seconds, cpu=cpu,
                rows=len(card), max_points=int(np.max(np.abs(points), initial=0)), card=card,
                intercept=float(model.intercept_[0]), scale=float(model.gamma_))


def facets_results(name: str, repeats: int, n_folds: int) -> dict:
    """Facets at every k on every split of one set: ``{"k10": [...], "k5": [...]}``, and each
    of the other `VARIANTS` under its suffix (``"k10 free"``, ``"k5 ridge"``, ...)."""
    from interp.progress import Progress

    X, y = load(name)
    runs = {f"k{k}{variant}": [] for k in ROWS for variant in VARIANTS}
    bar = Progress(f"facets {name}", total=repeats * n_folds)
    for r in range(repeats):
        for tr, te in splits(y, r, n_folds):
            for k in ROWS:
                for variant, (_, options) in VARIANTS.items():
                    runs[f"k{k}{variant}"].append(facets_fold(X.iloc[tr], y[tr], X.iloc[te], y[te], k, **options))
            bar.update()
    bar.close()
    return runs


# --------------------------------------------------------------------------- report
def paired(ours: list[dict], peer: list[dict], key: str, test_share: float) -> tuple[float, float]:
    """Mean paired difference (ours - peer) of ``key`` over the splits and its corrected
    resampled standard error (Nadeau and Bengio): ``sqrt((1/J + n_test/n_train) s^2)``."""
    d = np.array([a[key] - b[key] for a, b in zip(ours, peer)])
    return float(d.mean()), float(np.sqrt((1 / d.size + test_share / (1 - test_share)) * d.var(ddof=1)))


def mean(runs: list[dict], key: str) -> float:
    return float(np.mean([r[key] for r in runs]))


def accuracy_table(ours: dict, peer: dict, k: int, n_folds: int, variant: str = "") -> None:
    """The Markdown table of one k (of Facets' ``variant``, a key of `VARIANTS`): means, paired
    differences with their standard errors, the mean training losses and the rows; then how
    many sets are at least level."""
    key = f"k{k}"
    print(f"\n### At most {k} rows, points in [-{MAX_POINTS}, {MAX_POINTS}]{VARIANTS[variant][0]}\n")
    print("| set | splits | Facets acc | FasterRisk acc | acc diff +- SE | Facets AUC | FasterRisk AUC | "
          "AUC diff +- SE | train loss Facets / FasterRisk | splits where Facets' train loss is lower | "
          "rows Facets / FasterRisk |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    ahead = dict(accuracy=0, auc=0)
    for name in ours:
        a, b = ours[name][key + variant], peer[name][key]
        cells = []
        for metric in ("accuracy", "auc"):
            diff, se = paired(a, b, metric, 1 / n_folds)
            ahead[metric] += diff >= 0
            cells += [f"{mean(a, metric):.4f}", f"{mean(b, metric):.4f}", f"{diff:+.4f} +- {se:.4f}"]
        rows = f"{max(r['rows'] for r in a)} / {max(r['rows'] for r in b)}"
        lower = sum(r["train_loss"] < q["train_loss"] for r, q in zip(a, b))
        print(f"| {name} | {len(a)} | {' | '.join(cells)} | {mean(a, 'train_loss'):.4f} / {mean(b, 'train_loss'):.4f} "
              f"| {lower}/{len(a)} | {rows} |")
    n = len(ours)
    print(f"\nPaired difference >= 0: accuracy on {ahead['accuracy']}/{n} sets, AUC on {ahead['auc']}/{n}.")


def timing_table(ours: dict, timed: dict) -> None:
    """CPU seconds of one whole Facets fit and of one FasterRisk k = 10 fit on the same splits,
    timed in this run, their ratios (median and worst over those splits) and the wall-clock
    medians.  Both run on one thread, so CPU time is their running time on an idle core; on a
    shared machine it is the measure that the others' load disturbs least."""
    print("\n### Fit time: one whole Facets fit against one FasterRisk fit, k = 10\n")
    print("| set | splits | Facets CPU s, median | FasterRisk CPU s, median | ratio, median | ratio, worst | "
          "wall s, median: Facets / FasterRisk |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    medians, worst = [], []
    for name, peer_runs in timed.items():
        mine = ours[name]["k10"][: len(peer_runs)]
        cpu_ours, cpu_peer = (np.array([r["cpu"] for r in runs]) for runs in (mine, peer_runs))
        ratio = cpu_ours / cpu_peer
        medians.append(np.median(ratio))
        worst.append(ratio.max())
        wall = "{:.4f} / {:.4f}".format(*(np.median([r["seconds"] for r in runs]) for runs in (mine, peer_runs)))
        print(f"| {name} | {ratio.size} | {np.median(cpu_ours):.4f} | {np.median(cpu_peer):.4f} | "
              f"{np.median(ratio):.3f}x | {ratio.max():.3f}x | {wall} |")
    print(f"\nFacets faster (median ratio below 1) on {sum(m < 1 for m in medians)}/{len(medians)} sets, "
          f"on every timed split on {sum(w < 1 for w in worst)}/{len(worst)}.")


def trailing_cards(ours: dict, peer: dict, columns: dict) -> None:
    """For every (set, k) where Facets trails on accuracy or AUC: whose search found the lower
    training loss, how often, and both cards on the split where FasterRisk's card beats ours
    on the training loss by the most (else the first split)."""
    print("\n### Where Facets trails\n")
    for name in ours:
        for k in ROWS:
            key = f"k{k}"
            a, b = ours[name][key], peer[name][key]
            behind = [m for m in ("accuracy", "auc") if paired(a, b, m, 0.1)[0] < 0]
            if not behind:
                continue
            gap = np.array([r["train_loss"] - q["train_loss"] for r, q in zip(a, b)])
            lower = int((gap < 0).sum())
            where = int(np.argmax(gap)) if gap.max() > 0 else 0
            verdict = ("the search is not the limit there: Facets' card fits the training part better and "
                       "generalises slightly worse" if lower > gap.size / 2 else
                       "FasterRisk's search finds better-fitting cards on most splits")
            fr = [(c, p) for c, p in zip(columns[name], b[where]["points"]) if p]
            print(f"**{name}, k = {k}** (behind on {' and '.join(behind)}): Facets' training loss is lower on "
                  f"{lower} of {gap.size} splits; {verdict}. On split {where + 1}, Facets (train loss "
                  f"{a[where]['train_loss']:.4f}, test accuracy {a[where]['accuracy']:.3f}): "
                  + ", ".join(f"`{f}` {p:+d}" for f, p in a[where]["card"])
                  + f". FasterRisk (train loss {b[where]['train_loss']:.4f}, test accuracy "
                  f"{b[where]['accuracy']:.3f}): " + ", ".join(f"`{f}` {p:+d}" for f, p in fr) + ".\n")


def report(ours: dict, peer: dict, timed: dict, repeats: dict, n_folds: int) -> None:
    most = max(repeats.values())
    fewer = [f"{name} {r} (FasterRisk's fits too slow for more in this run)"
             for name, r in repeats.items() if r < most]
    print(f"{most} repetitions x {n_folds} folds (StratifiedKFold, shuffle=True, random_state = "
          f"repetition)" + (f"; fewer repetitions on {', '.join(fewer)}" if fewer else "")
          + "; diff = Facets - FasterRisk, averaged over a set's paired splits; "
          "SE: Nadeau and Bengio's corrected resampled standard error; train loss: mean training "
          "log-loss of the card on its training part.")
    for variant in VARIANTS:
        for k in ROWS:
            accuracy_table(ours, peer, k, n_folds, variant)
    timing_table(ours, timed)
    columns = {name: list(load(name)[0].columns) for name in ours}
    trailing_cards(ours, peer, columns)


def per_set(text: str) -> dict:
    """``"adult=1,spam=2"`` as ``{"adult": 1, "spam": 2}`` (an argparse type)."""
    out = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, _, value = item.partition("=")
        if name not in SETS or not value.isdigit():
            raise argparse.ArgumentTypeError(f"expected NAME=COUNT with NAME among {', '.join(SETS)}, got {item!r}")
        out[name] = int(value)
    return out


def timed_peer(names, timed_folds: dict, n_folds: int):
    """FasterRisk re-timed at k = 10 on the first ``timed_folds[name]`` splits of repetition 0 of
    every set, one child at a time in a thread beside the caller's Facets fits: a dict of futures."""
    runner = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    futures = {name: runner.submit(run_peer, name, 0, n_folds, timed_folds[name])
               for name in names if timed_folds[name]}
    runner.shutdown(wait=False)
    return futures


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(SETS), help="comma-separated set names")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--set-repeats", type=per_set, default={}, help="fewer repetitions on some sets: adult=1")
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--timed-folds", type=int, default=5, help="splits FasterRisk is re-timed on (0: none)")
    parser.add_argument("--set-timed-folds", type=per_set, default={}, help="fewer timed splits on some sets")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/fasterrisk_results.json"))
    parser.add_argument("--refresh-peer", action="store_true", help="re-run FasterRisk even if cached")
    parser.add_argument("--peer-only", action="store_true", help="run FasterRisk only (fills the cache)")
    parser.add_argument("--page", action="store_true", help="also write docs/benchmarks/facets-fasterrisk.md")
    parser.add_argument("--peer-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--repeat", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--timing", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = sorted(set(names) - set(SETS))
    if unknown:
        parser.error(f"unknown set(s) {', '.join(unknown)}; known: {', '.join(SETS)}")
    if args.peer_worker:
        print(json.dumps(peer_worker(names[0], args.repeat, args.folds,
                                     args.timed_folds if args.timing else None)))
        return
    repeats = {name: args.set_repeats.get(name, args.repeats) for name in names}
    if args.peer_only:
        peer_results(names, repeats, args.folds, args.cache, args.refresh_peer)
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from page import page

    with page("facets-fasterrisk", "Facets against FasterRisk", enabled=args.page, about=__doc__):
        timing = timed_peer(names, {name: args.set_timed_folds.get(name, args.timed_folds) for name in names},
                            args.folds)
        ours = {name: facets_results(name, repeats[name], args.folds) for name in names}
        timed = {name: future.result()["k10"] for name, future in timing.items()}
        peer = peer_results(names, repeats, args.folds, args.cache, args.refresh_peer)
        report(ours, peer, timed, repeats, args.folds)


if __name__ == "__main__":
    main()
