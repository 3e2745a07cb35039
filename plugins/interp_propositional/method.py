"""The ``propositional`` method of ``interp run``."""

from __future__ import annotations

import numpy as np
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold

from interp import Explanation, InputError, progress

from interp.binarize import TabularBinarizer
from .estimator import PropositionalSVC
from .formula import n_leaves, parse


def binary_matrix(data) -> tuple[np.ndarray, list[str]]:
    """The data set's features as 0/1 columns: as loaded when already binary (one-hot
    categorical columns), else through ``TabularBinarizer`` on the raw columns."""
    X = np.asarray(data.X, dtype=float)
    if X.size and np.isin(X, (0.0, 1.0)).all():
        return X, list(data.feature_names)
    source = data.raw if data.raw is not None else data.frame()
    binarizer = TabularBinarizer().fit(source)
    return binarizer.transform(source), [str(n) for n in binarizer.get_feature_names_out()]


def binary_target(y, positive: str = "") -> tuple[np.ndarray, str, str]:
    """0/1 labels: ``positive`` (default: the last class of two, the most frequent of more)
    against the rest."""
    y = np.asarray(y)
    labels = np.array([str(v) for v in y], dtype=object)
    classes, counts = np.unique(labels, return_counts=True)
    if positive:
        if positive not in classes:
            raise InputError(f"--positive {positive!r} is not a class; classes are: {', '.join(classes)}")
        pos = positive
    elif classes.size == 2:
        pos = str(classes[1])
    else:
        pos = str(classes[np.argmax(counts)])
    negative = str(classes[0]) if classes.size == 2 and pos == classes[1] else (
        str(classes[1]) if classes.size == 2 else f"not {pos}")
    return (labels == pos).astype(int), pos, negative


def run(data, ctx, *, formula: str = "", select: int = 30, C: float = 1.0, p: float = 0.4,
        eta: float = 0.7, max_leaves: int = 8, cv: int = 5, top: int = 5, positive: str = "",
        normalize: bool = True) -> Explanation:
    X, names = binary_matrix(data)
    y, pos, neg = binary_target(data.y, positive)
    if formula:
        parse(formula)  # fail early with the caret message
    elif select < 1:
        raise InputError("give --formula F or --select N with N >= 1")
    if C <= 0:
        raise InputError(f"--C must be positive, got {C}")
    if cv < 2:
        raise InputError(f"--cv must be at least 2, got {cv}")
    min_class = int(min(y.sum(), len(y) - y.sum()))
    if min_class < cv:
        raise InputError(f"the smaller class has {min_class} rows, fewer than --cv {cv} folds")

    def make() -> PropositionalSVC:
        return PropositionalSVC(formula=formula or None, C=C, normalize=normalize,
                                n_candidates=select, p=p, eta=eta, max_leaves=max_leaves or None,
                                random_state=ctx.seed, n_jobs=ctx.n_jobs)

    folds = StratifiedKFold(n_splits=cv, shuffle=True, random_state=ctx.seed)
    aucs = []
    for train, test in progress.track(list(folds.split(X, y)), "cross-validation", total=cv):
        est = make().fit(X[train], y[train])
        aucs.append(roc_auc_score(y[test], est.decision_function(X[test])))
    est = make().fit(X, y)
    rules, exact = est.explain(top=top, feature_names=names)
    classes = {"1": pos, "0": neg}
    rule_rows = [{"rule": r.rule, "weight": r.weight, "supports": classes[r.supports]} for r in rules]
    candidates = est.selection_.table(10) if est.selection_ is not None else []
    n_var = X.shape[1]
    L = n_leaves(parse(est.formula_))
    lines = [
        f"formula:   {est.formula_}   ({'given' if formula else f'selected among {select} by radius-margin ratio'})",
        f"features:  {n_var} binary variables, {L} leaves -> {n_var}^{L} = {n_var ** L:.3g} logical features",
        f"AUC:       {np.mean(aucs):.4f} +- {np.std(aucs):.4f} ({cv}-fold CV{', selection inside each fold' if not formula else ''}; "
        f"positive class {pos!r})",
        "",
        f"top rules ({'exact, all features enumerated' if exact else 'local search, not guaranteed best'}):",
    ]
    width = max((len(f"{r['weight']:+.4g}") for r in rule_rows), default=0)
    for r in rule_rows:
        lines.append(f"  {r['weight']:+.4g}".ljust(width + 3) + f"  {r['rule']}   -> {r['supports']}")
    if candidates:
        lines += ["", "candidates (lowest radius-margin ratio first):"]
        for c in candidates[:5]:
            lines.append(f"  {c['ratio']:.4g}  {c['formula']}")
    return Explanation(
        params={"formula": formula, "select": select, "C": C, "p": p, "eta": eta,
                "max_leaves": max_leaves, "cv": cv, "top": top, "positive": pos,
                "normalize": normalize, "seed": ctx.seed},
        metrics={"auc": float(np.mean(aucs)), "auc_std": float(np.std(aucs)),
                 "n_leaves": L, "n_variables": n_var},
        payload={"formula": est.formula_, "positive_class": pos, "negative_class": neg,
                 "auc_folds": aucs, "rules": rule_rows, "rules_exact": exact,
                 "candidates": candidates, "feature_names": names},
        text="\n".join(lines),
        estimator=est,
    )
