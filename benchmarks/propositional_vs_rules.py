"""The propositional rule model against the rule learners people use.

Reads ../shared/data/categorical and ../shared/data/uci/mushroom_data.csv (relative to the
repository root, or to the folder holding it when the checkout is a worktree).  Every set is
read as categorical columns and one-hot encoded, each level a 0/1 column (one matrix for every
method; numbers such as monks' 1..4 as names of levels; breast-cancer's ordinal 1..10 values as categories, mushroom's one-hot columns
back to their 22 attributes first).  Soybean-small's four diseases become its most frequent
(D4) against the rest, so that every set has two classes.

Splits: the published train/test splits of monks-1, monks-2, monks-3 and SPECT; stratified
``--folds``-fold cross-validation (shuffled, seed 0) elsewhere, the same folds for every method.

* **interp**: ``PropositionalSVC(random_state=0)`` with its defaults (the formula chosen among
  short ones by its rule model's 3-fold accuracy, C by 3-fold accuracy), fitted with the data's
  one-hot logic.  Accuracy of the rule model (``predict_rules``) and of the SVM (``predict``) on
  the test rows, the rule model's agreement with the SVM there, its rules and literals (the
  variables of its conditions), and the fit's CPU seconds (formula and C selection included).
* **peers**, installed by this script into their own virtual environment
  (``--peers-venv``, default /tmp/interp-bench-rules; never interp's dependencies) and run there
  by ``benchmarks/rule_peers.py`` on the same matrix and splits: RIPPER (wittgenstein, the 0/1
  columns as categories), CORELS (``corels``, c = 0.005, rules of at most 2 literals, 100,000
  nodes), imodels' RuleFit (rules with a non-zero coefficient, linear terms counted as rules of
  one literal), FIGS (at most 12 splits; rules = leaves, literals = their depths), BRS
  (Bayesian rule set: 100 candidate rules of at most 3 literals, 200 iterations of 1 chain, for
  time; only on sets of at most ``--brs-rows`` = 2,000 rows: it takes minutes a fit beyond) and
  greedy rule list (depth 8).  A peer that fails or cannot be installed says so.

The goals checked per set: rule-model accuracy >= RIPPER's - 0.01 with no more rules than
RIPPER; agreement with the SVM >= 0.95; monks-1 and monks-3: the concept recovered exactly
(the rule model right on all 432 rows of the noise-free published test set, which holds every
possible row).

    python benchmarks/propositional_vs_rules.py [--folds 10] [--set-folds mushroom=3] [--only monks-1,SPECT]
        [--skip-peers BRS] [--no-peers] [--peers-venv PATH] [--page]

``--page`` also writes what is printed to docs/benchmarks/propositional-vs-rules.md.

Tried for the goals missed, each measured with interp alone (published splits, 3-fold CV
elsewhere) and none kept:

* the most accurate list in cross-validation rather than the fewest rules within 0.005 of it
  (no tolerance, for the list's length and among its configurations): monks-2 0.935 in 10 rules
  (formula ``a <-> b``, whose SVM is right on every row), but house-votes 0.952 -> 0.933 and
  monks-3 unchanged (1 rule, 0.972).  The rule list alone over the variables, without
  tolerance, does recover monks-3 exactly (its second rule ``a4=1 & a5=3`` gains 0.003 of
  held-out accuracy), but the formula selection then prefers a formula whose list has 1 rule;
* rules learned from the SVM's classes of the training rows instead of the data's: SPECT
  0.759 -> 0.690 with agreement 0.904 -> 0.866, house-votes 0.952 -> 0.940, monks-2 unchanged
  (the SVM is right on all its training rows, so its classes are the data's);
* RIPPER's reduced-error pruning (grow on 2/3 of the rows left, cut back by (p - n) / (p + n)
  on the other third) as a third way beside p - 2n and p - 5n: house-votes 0.947, SPECT
  0.642 with agreement 0.882, monks-3 unchanged.

Breast-cancer's miss under 10-fold CV (under 3-fold CV it met the goal: 0.955 against
RIPPER's 0.957) has not been worked on.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold

from interp.data import Dataset
from interp_propositional import PropositionalSVC

sys.path.insert(0, str(Path(__file__).resolve().parent))
from page import page  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHARED = next((p for p in (ROOT.parent / "shared" / "data", ROOT.parent.parent / "shared" / "data") if p.is_dir()),
              ROOT.parent / "shared" / "data")
CATEGORICAL = SHARED / "categorical"
PEER_PACKAGES = ("wittgenstein", "imodels", "six", "corels")  # imodels' rule sets import six without requiring it


def _monks(name: str) -> tuple[pd.DataFrame, int]:
    """A MONK's problem as one frame (train rows first) and the number of training rows."""
    cols = ["class", "a1", "a2", "a3", "a4", "a5", "a6", "id"]
    parts = [pd.read_csv(CATEGORICAL / f"{name}.{part}", sep=r"\s+", header=None, names=cols, skiprows=1, dtype=str)
             for part in ("train", "test")]
    return pd.concat(parts, ignore_index=True).drop(columns="id"), len(parts[0])


def _spect() -> tuple[pd.DataFrame, int]:
    parts = [pd.read_csv(CATEGORICAL / f"SPECT.{part}", header=None, skiprows=1, dtype=str) for part in ("train", "test")]
    frame = pd.concat(parts, ignore_index=True)
    frame.columns = ["class"] + [f"f{i}" for i in range(1, frame.shape[1])]
    return frame, len(parts[0])


def _breast_cancer() -> pd.DataFrame:
    from sklearn.datasets import load_svmlight_file

    X, y = load_svmlight_file(str(CATEGORICAL / "breast_cancer.svmlight"))
    names = ["clump", "size_uniformity", "shape_uniformity", "adhesion", "cell_size", "bare_nuclei", "chromatin",
             "nucleoli", "mitoses"]
    frame = pd.DataFrame(X.toarray().astype(int).astype(str), columns=names)
    return frame.assign(**{"class": np.where(y > 0, "malignant", "benign")})


def _mushroom() -> pd.DataFrame:
    raw = pd.read_csv(SHARED / "uci" / "mushroom_data.csv")
    target, onehot = raw.columns[0], raw.columns[1:]
    frame = {}
    for attribute in dict.fromkeys(c.split("_eq_")[0] for c in onehot):
        levels = [c for c in onehot if c.split("_eq_")[0] == attribute]
        block = raw[levels].to_numpy()
        names = np.array([c.split("_eq_")[1] for c in levels] + ["other"])
        frame[attribute] = names[np.where(block.any(axis=1), block.argmax(axis=1), len(levels))]
    return pd.DataFrame(frame).assign(**{"class": np.where(raw[target] > 0, "poisonous", "edible")})


def _soybean() -> pd.DataFrame:
    frame = pd.read_csv(CATEGORICAL / "soybean-small.data", header=None, skiprows=1, dtype=str)
    frame.columns = [f"a{i}" for i in range(1, frame.shape[1])] + ["class"]
    return frame.assign(**{"class": np.where(frame["class"] == "D4", "D4", "other")})


def load_sets() -> dict[str, tuple[pd.DataFrame, int | None]]:
    """Every set as a categorical frame with a ``class`` column, and its published number of
    training rows (None: cross-validate)."""
    votes = pd.read_csv(CATEGORICAL / "house-votes-84.data", dtype=str, skipinitialspace=True)
    ttt = pd.read_csv(CATEGORICAL / "tictactoe.data", dtype=str)
    return {"monks-1": _monks("monks-1"), "monks-2": _monks("monks-2"), "monks-3": _monks("monks-3"),
            "SPECT": _spect(), "tic-tac-toe": (ttt.rename(columns={"outcome": "class"}), None),
            "house-votes": (votes.rename(columns={"Class": "class"}), None),
            "breast-cancer": (_breast_cancer(), None), "soybean-small": (_soybean(), None),
            "mushroom": (_mushroom(), None)}


def one_hot(frame: pd.DataFrame) -> Dataset:
    """Every column but ``class`` one-hot as text levels (``col=level``, numbers too: monks'
    1..4 are names), with its groups of levels (``Dataset.one_hot``)."""
    columns, names, groups = [], [], []
    for col in frame.columns.drop("class"):
        values = frame[col].astype(str).str.strip()
        levels = sorted(values.unique())
        groups.append(tuple(range(len(names), len(names) + len(levels))))
        names += [f"{col}={level}" for level in levels]
        columns.append(values.to_numpy()[:, None] == np.array(levels)[None, :])
    return Dataset(np.hstack(columns).astype(float), frame["class"].astype(str).str.strip().to_numpy(),
                   tuple(names), "class", one_hot=tuple(groups))


def splits_of(y: np.ndarray, n_train: int | None, folds: int) -> list[tuple[np.ndarray, np.ndarray]]:
    if n_train is not None:
        return [(np.arange(n_train), np.arange(n_train, len(y)))]
    return list(StratifiedKFold(folds, shuffle=True, random_state=0).split(np.zeros(len(y)), y))


def run_interp(data, y: np.ndarray, splits) -> list[dict]:
    rows = []
    logic, X = data.column_logic(), data.frame()
    for train, test in splits:
        start = time.process_time()
        est = PropositionalSVC(random_state=0).fit(X.iloc[train], y[train], column_logic=logic)
        seconds = time.process_time() - start
        rules, svm = est.predict_rules(X.iloc[test]), est.predict(X.iloc[test])
        rows.append({"accuracy": float(np.mean(rules == y[test])), "svm": float(np.mean(svm == y[test])),
                     "agreement": float(np.mean(rules == svm)), "rules": est.rule_model_.n_rules_,
                     "literals": est.rule_model_.n_literals_, "seconds": seconds, "formula": est.formula_,
                     "model": str(est.rule_model_).replace("\n", "; ")})
    return rows


def _pip(python: Path, *args: str) -> None:
    subprocess.run([str(python), "-m", "pip", "install", "-q", *args], capture_output=True)


def _install_corels(python: Path) -> None:
    """corels 1.1.29, the last release, ships a C++ file generated for Pythons before 3.11 and a
    setup.py that runs only as a script: build it from its sdist with the file generated anew
    from its own .pyx (Cython < 3), without build isolation."""
    _pip(python, "setuptools", "wheel", "numpy", "cython<3")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([str(python), "-m", "pip", "download", "-q", "corels==1.1.29", "--no-deps", "--no-binary",
                        ":all:", "--no-build-isolation", "--no-use-pep517", "-d", tmp], capture_output=True)
        archives = list(Path(tmp).glob("corels-*.tar.gz"))
        if not archives:
            return
        subprocess.run(["tar", "xzf", str(archives[0]), "-C", tmp], check=True)
        source = next(p for p in Path(tmp).iterdir() if p.is_dir())
        subprocess.run([str(python.parent / "cython"), "--cplus", "-3", "corels/_corels.pyx", "-o",
                        "corels/_corels.cpp"], cwd=source, capture_output=True)
        _pip(python, "--no-build-isolation", "--no-use-pep517", str(source))


def peers_python(venv: Path) -> Path:
    """The Python of the peers' own environment, created and filled on first use."""
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    for package in PEER_PACKAGES:
        if subprocess.run([str(python), "-c", f"import {package}"], capture_output=True).returncode != 0:
            _install_corels(python) if package == "corels" else _pip(python, package)
    return python


def run_peers(python: Path, data, y: np.ndarray, splits, skip: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        arrays = {"X": data.X.astype(np.int8), "y": y, "names": np.array(data.feature_names, dtype=str)}
        for i, (train, test) in enumerate(splits):
            arrays[f"train_{i}"], arrays[f"test_{i}"] = train, test
        np.savez(Path(tmp) / "splits.npz", **arrays)
        out = Path(tmp) / "peers.json"
        env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
        subprocess.run([str(python), str(Path(__file__).with_name("rule_peers.py")), str(Path(tmp) / "splits.npz"),
                        str(out), "--skip", skip or "-"], check=True, env=env, stderr=subprocess.DEVNULL)
        return json.loads(out.read_text())


def _mean(rows: list[dict], key: str) -> float:
    return float(np.mean([r[key] for r in rows]))


def report(name: str, n_rows: int, n_columns: int, protocol: str, ours: list[dict], peers: dict) -> dict:
    """Print one set's table; return what the goals need."""
    print(f"\n### {name} ({n_rows} rows, {n_columns} one-hot columns; {protocol})\n")
    print("| method | accuracy | rules | literals | fit CPU s | SVM accuracy | agreement with SVM |")
    print("|---|---|---|---|---|---|---|")
    print(f"| interp rule model | {_mean(ours, 'accuracy'):.3f} | {_mean(ours, 'rules'):.1f} | "
          f"{_mean(ours, 'literals'):.1f} | {_mean(ours, 'seconds'):.1f} | {_mean(ours, 'svm'):.3f} | "
          f"{_mean(ours, 'agreement'):.3f} |")
    for peer, rows in peers.items():
        if isinstance(rows, dict):
            print(f"| {peer} | failed: {rows['error']} | | | | | |")
        else:
            print(f"| {peer} | {_mean(rows, 'accuracy'):.3f} | {_mean(rows, 'rules'):.1f} | "
                  f"{_mean(rows, 'literals'):.1f} | {_mean(rows, 'seconds'):.1f} | | |")
    formulas = pd.Series([r["formula"] for r in ours]).value_counts()
    print(f"\nformulas chosen: {', '.join(f'`{f}` ({n})' for f, n in formulas.items())}; "
          f"rule model of the first split: `{ours[0]['model']}`")
    return {"accuracy": _mean(ours, "accuracy"), "rules": _mean(ours, "rules"), "agreement": _mean(ours, "agreement"),
            "ripper": peers.get("RIPPER")}


def goals(results: dict) -> None:
    print("\n## Goals\n")
    print("| set | accuracy >= RIPPER's - 0.01 | rules <= RIPPER's | agreement >= 0.95 | concept recovered |")
    print("|---|---|---|---|---|")
    for name, r in results.items():
        ripper = r["ripper"]
        if isinstance(ripper, list):
            acc = f"{'yes' if r['accuracy'] >= _mean(ripper, 'accuracy') - 0.01 else 'no'} " \
                  f"({r['accuracy']:.3f} vs {_mean(ripper, 'accuracy'):.3f})"
            size = f"{'yes' if r['rules'] <= _mean(ripper, 'rules') else 'no'} " \
                   f"({r['rules']:.1f} vs {_mean(ripper, 'rules'):.1f})"
        else:
            acc = size = "RIPPER not run"
        concept = ("yes" if r["accuracy"] == 1.0 else f"no ({r['accuracy']:.3f} on the 432 rows)") \
            if name in ("monks-1", "monks-3") else ""
        print(f"| {name} | {acc} | {size} | {'yes' if r['agreement'] >= 0.95 else 'no'} ({r['agreement']:.3f}) "
              f"| {concept} |")


def main(args) -> None:
    sets = load_sets()
    only = [s for s in args.only.split(",") if s] or list(sets)
    python = None if args.no_peers else peers_python(Path(args.peers_venv))
    results = {}
    print(f"Protocol: published splits for monks and SPECT, stratified {args.folds}-fold CV elsewhere"
          + (f" ({args.set_folds.replace('=', ': ')} folds)" if args.set_folds else "") + ".")
    for name in only:
        frame, n_train = sets[name]
        data = one_hot(frame)
        classes = sorted(set(data.y))
        positive = {"monks-1": "1", "monks-2": "1", "monks-3": "1", "SPECT": "1", "tic-tac-toe": "positive",
                    "house-votes": "republican", "breast-cancer": "malignant", "soybean-small": "D4",
                    "mushroom": "poisonous"}[name]
        y = (data.y == positive).astype(int)
        assert len(classes) == 2 and y.any(), (name, classes)
        folds = dict(item.split("=") for item in args.set_folds.split(",") if item).get(name, args.folds)
        splits = splits_of(y, n_train, int(folds))
        protocol = "published train/test split" if n_train is not None else f"{folds}-fold CV"
        ours = run_interp(data, y, splits)
        skip = ",".join(filter(None, [args.skip_peers, "BRS" if len(y) > args.brs_rows else ""]))
        peers = run_peers(python, data, y, splits, skip) if python is not None else {}
        results[name] = report(name, len(y), data.n_features, protocol, ours, peers)
    goals(results)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--only", default="")
    parser.add_argument("--set-folds", default="", help="e.g. mushroom=3: fewer folds for a set")
    parser.add_argument("--skip-peers", default="")
    parser.add_argument("--brs-rows", type=int, default=2000, help="BRS only on sets of at most this many rows")
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--peers-venv", default="/tmp/interp-bench-rules")
    parser.add_argument("--page", action="store_true")
    parsed = parser.parse_args()
    with page("propositional-vs-rules", "Propositional rule model against rule learners", enabled=parsed.page,
              about=__doc__):
        main(parsed)
