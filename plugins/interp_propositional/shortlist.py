"""Choosing the SVM's ``C`` and the explaining formula by held-out accuracy.

* ``C``: the value of ``C_GRID`` with the best 3-fold accuracy of the SVM (ties: the first in
  the grid, which starts at 1), on the model's selection rows.
* The formula (``selection="rules"``): each of ``SHORT_FORMULAS`` that has at most
  ``max_leaves`` leaves is scored by the 3-fold cross-validated accuracy of the rule model of a
  ``PropositionalSVC`` with that formula (its C chosen once on all the rows given, then kept in
  the folds).  Among the formulas of ``and``, ``or`` and ``not`` only, the one with the fewest
  rules (then leaves) within ``TOLERANCE`` of the best accuracy wins; a formula with other
  operators (``xor``, ``<->``) wins only when its accuracy beats that by more than ``EARN``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import SVC

from interp import KernelOperator, progress

from .formula import n_leaves, operators_of, parse
from .kernels import propositional_kernel

__all__ = ["SELECTIONS", "C_GRID", "SHORT_FORMULAS", "RuleSelection", "choose_C", "seeded", "select_by_rules"]

SELECTIONS = ("rules", "radius-margin")
C_GRID = (1.0, 10.0, 100.0, 0.1)
SHORT_FORMULAS = ("a", "a & b", "a & ~b", "~a & ~b", "a | b", "a & b & c", "a & b & ~c", "(a & b) | c",
                  "a & (b | c)", "a ^ b", "a <-> b")
_SENTENCE_OPERATORS = frozenset(("and", "or", "not"))
TOLERANCE, EARN = 0.005, 0.01
_FOLDS = 3


def seeded(random_state):
    """``random_state``, or 0 for None: the folds that choose C, the formula and the rule
    model's length are the same from fit to fit, so a model's rules do not change when it is
    refitted on the same rows."""
    return 0 if random_state is None else random_state


def _folds(y: np.ndarray, random_state) -> list | None:
    """Stratified 3-fold splits of ``y``, None when a class has fewer than 3 rows."""
    if np.bincount(np.unique(y, return_inverse=True)[1]).min() < _FOLDS:
        return None
    return list(StratifiedKFold(_FOLDS, shuffle=True, random_state=random_state).split(np.zeros(len(y)), y))


def choose_C(K: np.ndarray, y: np.ndarray, class_weight=None, random_state=None) -> float:
    """The ``C_GRID`` value of best 3-fold accuracy of the SVM with Gram matrix ``K`` (1 when a
    class is too small to split)."""
    folds = _folds(y, random_state)
    if folds is None:
        return 1.0
    scores = []
    for C in C_GRID:
        hits = 0
        for train, test in folds:
            svc = SVC(C=C, kernel="precomputed", class_weight=class_weight).fit(K[np.ix_(train, train)], y[train])
            hits += int((svc.predict(K[np.ix_(test, train)]) == y[test]).sum())
        scores.append(hits / len(y))
    return float(C_GRID[int(np.argmax(scores))])


@dataclass
class RuleSelection:
    """Formulas ranked by their rule model's cross-validated accuracy (the chosen first), with
    the mean number of rules, the C each was fitted with, the operators they use (by name) and
    the rows scored (``n_rows``)."""

    formulas: list[str]
    accuracies: list[float]
    n_rules: list[float]
    Cs: list[float]
    operators: dict[str, KernelOperator] = field(default_factory=dict)
    n_rows: int = 0
    title = "candidates (by the rule model's 3-fold accuracy; the chosen first)"

    @property
    def best(self) -> str:
        return self.formulas[0]

    def table(self, top: int | None = None) -> list[dict]:
        rows = [{"formula": f, "accuracy": a, "rules": r, "C": c}
                for f, a, r, c in zip(self.formulas, self.accuracies, self.n_rules, self.Cs)]
        return rows[:top] if top else rows


def _score(formula: str, X: np.ndarray, y: np.ndarray, folds, model, given) -> tuple[float, float, float]:
    """(accuracy, mean rules, C) of the rule model of ``model`` refitted with ``formula`` in
    each fold, with ``C`` = ``given``, or (None) the one ``choose_C`` finds on all rows, as
    the model's own fit on them would (no model is fitted on all rows: only its C is needed)."""
    if given is None:
        K = propositional_kernel(formula, X, normalize=model.normalize, operators=operators_of(formula))
        given = choose_C(K, y, model.class_weight, seeded(model.random_state))
    model.set_params(formula=formula, C=float(given), approximate="never", binarize="error")
    hits, rules = 0, 0
    for train, test in folds:
        fold = model.fit(X[train], y[train])
        hits += int((fold.predict_rules(X[test]) == y[test]).sum())
        rules += fold.rule_model_.n_rules_
    return hits / len(y), rules / len(folds), float(given)


def _choice(formulas: list[str], scores: list[tuple[float, float, float]]) -> list[int]:
    """The formulas' indices, the chosen first (see the module notes), then by accuracy."""
    basic = [i for i, f in enumerate(formulas) if set(operators_of(f)) <= _SENTENCE_OPERATORS]
    top = max(scores[i][0] for i in basic)
    near = [i for i in basic if scores[i][0] >= top - TOLERANCE]
    chosen = min(near, key=lambda i: (scores[i][1], n_leaves(parse(formulas[i])), i))
    earning = [i for i in range(len(formulas)) if i not in basic and scores[i][0] > top + EARN]
    if earning:
        chosen = max(earning, key=lambda i: (scores[i][0], -i))
    rest = sorted((i for i in range(len(formulas)) if i != chosen), key=lambda i: (-scores[i][0], scores[i][1], i))
    return [chosen] + rest


def select_by_rules(X: np.ndarray, y: np.ndarray, estimator) -> RuleSelection:
    """The formula of ``SHORT_FORMULAS`` (at most ``estimator.max_leaves`` leaves) whose rule
    model is most accurate in 3-fold cross-validation on binary rows ``X`` (module notes);
    ``estimator``'s other parameters are kept."""
    from sklearn.base import clone

    limit = estimator.max_leaves
    formulas = [f for f in SHORT_FORMULAS if limit is None or n_leaves(parse(f)) <= limit]
    folds = _folds(y, seeded(estimator.random_state)) or [(np.arange(len(y)), np.arange(len(y)))]
    model = clone(estimator)
    scores = [_score(f, X, y, folds, model, estimator.C) for f in progress.track(formulas, "formulas", total=len(formulas))]
    order = _choice(formulas, scores)
    return RuleSelection([formulas[i] for i in order], [scores[i][0] for i in order], [scores[i][1] for i in order],
                         [scores[i][2] for i in order],
                         {name: op for f in formulas for name, op in operators_of(f).items()}, len(y))
