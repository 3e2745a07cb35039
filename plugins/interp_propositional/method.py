"""The ``propositional`` method of ``interp run``: data -> ``PropositionalSVC`` -> Explanation."""

from __future__ import annotations

import functools
from typing import Callable

import attrs
import numpy as np
import pandas as pd
from joblib import effective_n_jobs
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold

from interp import Explanation, InputError, progress
from interp.binarize import binarize_unless_binary
from interp.preprocessing import MAX_CLASSES, BinaryLabels, binary_labels, class_index, class_name
from interp.resources import ResourceError

from .estimator import PropositionalSVC, check_fit_memory, uses_approximation
from .explain import RULE_WORK_LIMIT, most_leaves, rule_search_work
from .formula import n_leaves, parse
from .render import RunOutcome, explanation
from .rows import RulesOnColumns


def target_labels(y, positive: str, name: str = "y") -> BinaryLabels:
    """1 for ``positive`` (default: the larger of two classes, the most frequent of more), 0 for
    the rest; with more than two classes the negative class is named ``not <positive>``.
    Classes are named as `interp.preprocessing.class_name` shows them (``--positive 1`` for
    a 0/1 column read as numbers; ``1.0`` is accepted too).
    Refused, as neither is one class against another: a measured quantity (numbers that are
    not all whole), and more than ``MAX_CLASSES`` values unless ``positive`` names one."""
    y = np.asarray(y)
    classes, counts = np.unique(y, return_counts=True)
    shown = [class_name(c) for c in classes]
    if y.dtype.kind == "f" and np.any(np.mod(classes, 1) != 0):
        raise InputError(f"target {name!r} is a quantity ({classes.size:,} distinct numbers), not a class label: "
                         "propositional separates two classes; explain it with a regression method "
                         "(symbolic, featurevec) or give a column of classes")
    named = class_index(classes, positive) if positive else None
    if positive and named is None:
        raise InputError(f"--positive {positive!r} is not a class; classes are: {', '.join(shown[:20])}"
                         + (f" and {classes.size - 20} more" if classes.size > 20 else ""))
    if classes.size > MAX_CLASSES and not positive:
        raise InputError(f"target {name!r} has {classes.size} distinct values; propositional separates two classes: "
                         f"name the one to explain against the rest with --positive (the most frequent is "
                         f"{shown[int(np.argmax(counts))]!r}), or explain a quantity with a regression method "
                         "(symbolic, featurevec)")
    if classes.size <= 2:
        return binary_labels(y, positive or None)
    chosen = int(np.argmax(counts)) if named is None else named
    is_positive = y == classes[chosen]
    return binary_labels(np.where(is_positive, shown[chosen], f"not {shown[chosen]}"), shown[chosen])


def _check(formula: str, select: int, selection: str, C: float, y: np.ndarray, cv: int) -> None:
    """What the options' declared bounds cannot say."""
    if formula:
        parse(formula)  # fail early with the caret message
    elif select < 1 and selection == "radius-margin":
        raise InputError("give --formula F or --select N with N >= 1")
    if C < 0:
        raise InputError(f"--C must be positive (or 0: chosen by cross-validation), got {C}")
    min_class = int(min(y.sum(), len(y) - y.sum()))
    if min_class < cv:
        raise InputError(f"the smaller class has {min_class} rows, fewer than --cv {cv} folds")


def _leaves_within_work(formula: str, max_leaves: int, rule_rows: int) -> int:
    """The leaves the candidate draw may use (``max_leaves``, 0 for as many as fit), after a
    one-line ResourceError when ``--formula`` or ``--max-leaves`` asks for more leaves than the
    rules' search on ``rule_rows`` rows does within its work bound (see
    ``explain.RULE_WORK_LIMIT``)."""
    most = most_leaves(rule_rows)
    asked = (n_leaves(parse(formula)), "--formula has") if formula else (max_leaves, "--max-leaves")
    if asked[0] > most:
        raise ResourceError(f"{asked[1]} {asked[0]} leaves: the search for its rules over {rule_rows:,} rows would "
                            f"take about {rule_search_work(asked[0], rule_rows) / RULE_WORK_LIMIT:.0f} times the "
                            f"work bound; at most {most} leaves fit (or subsample the rows)")
    return min(max_leaves or most, most)


@attrs.frozen
class FoldScores:
    """What one held-out fold measured: the SVM's AUC and accuracy, the rule model's accuracy
    and agreement with the SVM, its number of rules, and the share of rows the SVM put in its
    most frequent predicted class (``majority_share``)."""

    auc: float
    accuracy: float
    rule_accuracy: float
    agreement: float
    n_rules: int
    majority_share: float


def _scores(est: PropositionalSVC, X, y) -> FoldScores:
    """``est``'s ``FoldScores`` on held-out rows ``X`` (a frame), ``y``, all by predict."""
    svm, rules = est.predict(X), est.predict_rules(X)
    return FoldScores(float(roc_auc_score(y, est.decision_function(X))), float(np.mean(svm == y)),
                      float(np.mean(rules == y)), float(np.mean(rules == svm)), est.rule_model_.n_rules_,
                      float(np.bincount(svm.astype(int), minlength=2).max() / len(svm)))


@attrs.frozen
class CrossValidated:
    """The folds' scores, the model shown (fitted on the first fold's ``n_train`` rows) and its
    rules' statistics (``RuleStats``) on that fold's ``n_test`` held-out rows."""

    folds: tuple[FoldScores, ...]
    estimator: PropositionalSVC
    rule_stats: list
    n_train: int
    n_test: int


def cross_validate(make: Callable[[], PropositionalSVC], X: pd.DataFrame, y, cv: int, seed, logic) -> CrossValidated:
    """A model made and fitted on the training rows of each of ``cv`` stratified folds (the
    formula selection, if any, inside), scored on the held-out rows; and the first fold's
    model with its rule model's statistics on that fold's held-out rows (what the run shows)."""
    folds = list(StratifiedKFold(n_splits=cv, shuffle=True, random_state=seed).split(X, y))
    scores, shown = [], None
    for train, test in progress.track(folds, "cross-validation", total=cv):
        est = make().fit(X.iloc[train], y[train], column_logic=logic)
        scores.append(_scores(est, X.iloc[test], y[test]))
        if shown is None:
            binary = est._binary(X.iloc[test])
            shown = (est, est.rule_model_.stats(binary, y[test], est.predict(X.iloc[test])), len(train), len(test))
    return CrossValidated(tuple(scores), *shown)


def run(data, ctx, *, formula, select, selection, C, p, eta, max_leaves, max_rules, cv, top, positive, normalize,
        third_party_operators, approximate, max_exact_rows, n_landmarks, selection_rows) -> Explanation:
    """Cross-validate and explain.

    One keyword per option declared in ``PROPOSITIONAL_METHOD``: the core passes every option
    by name, converted, bounded and defaulted, so the signature is the option list (as for
    every built-in method) and a settings record would only repeat it.

    Whether to approximate is decided once, on all rows, so that the cross-validated models
    are of the kind of the final one; a map too big for memory is refused here, before the
    cross-validation, whose smaller folds would fit it."""
    labels = target_labels(data.y, positive, data.target_name)
    y = labels.values.astype(int)
    _check(formula, select, selection, C, y, cv)
    approximated = uses_approximation(approximate, len(y), max_exact_rows)
    check_fit_memory(len(y), n_landmarks, 0 if formula else selection_rows, approximate=approximated,
                     workers=effective_n_jobs(ctx.n_jobs),
                     advice={"n_rows": "subsample the rows" + ("" if approximated else ", or lower --max-exact-rows"),
                             "n_landmarks": "lower --n-landmarks", "selection_rows": "lower --selection-rows"})
    leaves = _leaves_within_work(formula, max_leaves, min(len(y), n_landmarks) if approximated else len(y))
    features = binarize_unless_binary(data.X, data.feature_names, raw=data.raw, logic=data.column_logic())
    make = functools.partial(
        PropositionalSVC, formula=formula or None, C=C or None, normalize=normalize, n_candidates=select,
        p=p, eta=eta, max_leaves=leaves, random_state=ctx.seed, n_jobs=ctx.n_jobs,
        third_party_operators=third_party_operators, approximate="always" if approximated else "never",
        n_landmarks=n_landmarks, selection_rows=selection_rows, selection=selection, max_rules=max_rules)
    frame = pd.DataFrame(features.X, columns=list(features.names))
    checked = cross_validate(make, frame, y, cv, ctx.seed, features.logic)
    est = checked.estimator
    rules = est.explain(top=top, feature_names=list(features.names), logic=features.logic)
    result = explanation(RunOutcome(
        estimator=est, rules=rules, checked=checked, positive=class_name(labels.positive),
        negative=class_name(labels.negative), feature_names=features.names,
        params={"positive": class_name(labels.positive)}, n_rows=len(y)), y_share=float(max(y.mean(), 1 - y.mean())))
    on_columns = RulesOnColumns(est, features.binarizer, features.names, class_name(labels.negative),
                                class_name(labels.positive))
    return attrs.evolve(result, estimator=on_columns, **rules_headline(est))


def rules_headline(est) -> dict:
    """The report's summary of a rule model: its number of rules, and its first rule."""
    model = est.rule_model_
    texts = model.rule_texts()
    n = model.n_rules_
    first = f"if {texts[0]} then {class_name(model.classes_[model.rules_[0].label])}" if texts else ""
    return {"size": f"{n} rule{'s' if n != 1 else ''} and a default", "finding": first or str(model)}
