"""The peers of benchmarks/propositional_vs_rules.py, run in their own virtual environment.

Not part of interp and never imported by it: ``propositional_vs_rules.py`` runs this file with
the Python of the environment it created (wittgenstein, imodels, corels), as

    python rule_peers.py SPLITS.npz OUT.json [--skip NAME,...]

SPLITS.npz holds ``X`` (0/1, rows x columns), ``y`` (0/1), ``names`` and ``train_<i>`` /
``test_<i>`` row indices of every split.  For every peer and split it writes test accuracy,
rules, literals and fit seconds to OUT.json (a peer that fails says why instead).
"""

from __future__ import annotations

import json
import sys
import time
import warnings

import numpy as np
import pandas as pd


def _ripper(X, y, names):
    import wittgenstein as lw

    frame = pd.DataFrame(X.astype(int).astype(str), columns=names)  # 0/1 as categories, not binned numbers
    model = lw.RIPPER(random_state=0)
    model.fit(frame, y, pos_class=1)
    rules = model.ruleset_.rules
    return (lambda Z: np.asarray(model.predict(pd.DataFrame(Z.astype(int).astype(str), columns=names)), dtype=int),
            len(rules), sum(len(r.conds) for r in rules))


def _corels(X, y, names):
    from corels import CorelsClassifier

    model = CorelsClassifier(c=0.005, max_card=2, n_iter=100_000, verbosity=[]).fit(X.astype(int), y, features=names)
    rules = model.rl_.rules[:-1]  # the last is the default
    return (lambda Z: np.asarray(model.predict(Z.astype(int)), dtype=int), len(rules),
            sum(len(r["antecedents"]) for r in rules))


def _rulefit(X, y, names):
    from imodels import RuleFitClassifier

    model = RuleFitClassifier(random_state=0).fit(X, y, feature_names=names)
    kept = model._get_rules(exclude_zero_coef=True)
    terms = kept[kept.type == "rule"]["rule"]
    return (lambda Z: np.asarray(model.predict(Z), dtype=int), len(kept),
            int(sum(t.count(" and ") + 1 for t in terms) + (kept.type == "linear").sum()))


def _tree_rules(node, depth=0):
    """(leaves, sum of leaf depths) of a FIGS tree."""
    if node is None:
        return 0, 0
    if node.left is None and node.right is None:
        return 1, depth
    a, b = _tree_rules(node.left, depth + 1), _tree_rules(node.right, depth + 1)
    return a[0] + b[0], a[1] + b[1]


def _figs(X, y, names):
    from imodels import FIGSClassifier

    model = FIGSClassifier(max_rules=12, random_state=0).fit(X, y, feature_names=names)
    counts = [_tree_rules(t) for t in model.trees_]
    return (lambda Z: np.asarray(model.predict(Z), dtype=int), sum(c[0] for c in counts), sum(c[1] for c in counts))


def _brs(X, y, names):
    from imodels import BayesianRuleSetClassifier

    model = BayesianRuleSetClassifier(n_rules=100, maxlen=3, num_iterations=200, num_chains=1, random_state=0).fit(
        X, y, feature_names=names)
    rules = model.rules_
    return (lambda Z: np.asarray(model.predict(Z), dtype=int), len(rules),
            sum(len(r) if hasattr(r, "__len__") else 1 for r in rules))


def _greedy(X, y, names):
    from imodels import GreedyRuleListClassifier

    model = GreedyRuleListClassifier(max_depth=8).fit(X, y, feature_names=names)
    return lambda Z: np.asarray(model.predict(Z), dtype=int), max(len(model.rules_) - 1, 0), max(len(model.rules_) - 1, 0)


PEERS = {"RIPPER": _ripper, "CORELS": _corels, "RuleFit": _rulefit, "FIGS": _figs, "BRS": _brs,
         "greedy rule list": _greedy}


def main() -> None:
    splits, out = np.load(sys.argv[1], allow_pickle=False), sys.argv[2]
    skip = set(sys.argv[4].split(",")) if len(sys.argv) > 4 and sys.argv[3] == "--skip" else set()
    X, y, names = splits["X"], splits["y"].astype(int), [str(n) for n in splits["names"]]
    n_splits = sum(k.startswith("train_") for k in splits.files)
    results = {}
    for peer, fit in PEERS.items():
        if peer in skip:
            continue
        rows = []
        for i in range(n_splits):
            train, test = splits[f"train_{i}"], splits[f"test_{i}"]
            start = time.process_time()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    predict, n_rules, n_literals = fit(X[train], y[train], names)
                    seconds = time.process_time() - start
                    accuracy = float(np.mean(predict(X[test]) == y[test]))
            except Exception as exc:  # a peer's failure is a result to report, not a crash
                rows = {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0][:120] if str(exc) else ''}"}
                break
            rows.append({"accuracy": accuracy, "rules": n_rules, "literals": n_literals, "seconds": seconds})
        results[peer] = rows
        print(peer, "done", file=sys.stderr, flush=True)
    with open(out, "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    main()
