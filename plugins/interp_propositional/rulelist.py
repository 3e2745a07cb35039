"""A rule model that is a classifier: a decision list over logical features.

``RuleList`` reads a row top to bottom: the first rule whose condition holds gives the class,
and a row no rule covers gets the default class.  Each condition is a conjunction of at most
``max_terms`` candidate conditions (for `PropositionalSVC`: the logical features its SVM weights
most, and the binary variables and their negations), in its plain form.

Learning is RIPPER's sequential covering of an ordered list, on candidate truth values: for
each class but the last of an order (rarest first, the most frequent the default; with two
classes both orders are tried), rules for that class are learned one after the other on the rows
earlier rules leave.  A rule grows by the candidate of largest FOIL gain until it is pure or has
``max_terms`` candidates, and is cut back to the beginning of largest p - w n (p, n: rows of its
class and of the others it covers; w = 2 and w = 5, each tried); it is kept while p - n is at least ``min_gain`` of the rows,
up to ``max_rules`` rules.  How many of them to keep is chosen by ``cv``-fold cross-validation
repeated 3 times: the shortest list whose held-out accuracy is within ``tolerance`` of the best
(each shorter list with the default class of the rows it leaves uncovered); of the orders, the
one whose list is as accurate (within ``tolerance``) with the fewest rules; and the same again
without the negated variables among the candidates (a negation covers more rows and can win the
greedy growth where the variable itself makes the exact rule): of every list so learned, the
fewest rules within ``tolerance`` of the best held-out accuracy.  Vectorised: one matrix product of the candidates' truth values with the labels scores every candidate at once.
"""

from __future__ import annotations

import itertools
from typing import Sequence

import attrs
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import RepeatedStratifiedKFold
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from interp import InputError
from interp.preprocessing import ColumnLogic, class_name

from .formula import Leaf, Op, evaluate, parse, to_string
from .kernels import check_binary
from .plain import PlainRule, conjunction, plain_rule

__all__ = ["RuleList", "ListedRule", "RuleStats", "literals"]

#: how much a covered row of another class counts against a rule when it is cut back: 2 keeps
#: rules general (noisy data), 5 keeps them pure (exact concepts); both are tried
PENALTIES = (2.0, 5.0)
_REPEATS = 3  # repetitions of the cross-validation that chooses the list's length (small data is noisy)


def literals(n_variables: int, negated: bool = False) -> list[PlainRule]:
    """Every binary variable as a condition on its own (``negated``: and its negation)."""
    forms = (parse("a"), parse("~a")) if negated else (parse("a"),)
    return [PlainRule(form, (i,)) for form in forms for i in range(n_variables)]


def truth(rule: PlainRule, Xb: np.ndarray) -> np.ndarray:
    """Where ``rule`` holds on the Boolean rows ``Xb``."""
    return np.broadcast_to(evaluate(rule.node, [Xb[:, v] for v in rule.variables]), (Xb.shape[0],))


@attrs.frozen
class ListedRule:
    """One rule of a decision list: where ``condition`` holds (and no earlier rule did),
    the class ``label`` (an index into the list's ``classes_``)."""

    condition: PlainRule
    label: int


@attrs.frozen
class RuleStats:
    """How one rule (or the default, ``rule`` None) did on rows it decided: how many it
    ``decided`` (covered first), the share of them whose class is its class (``accuracy``) and the
    share a reference model puts in its class too (``agreement``; NaN when none decided)."""

    rule: str
    label: str
    decided: int
    accuracy: float
    agreement: float


def _grow_rule(B: np.ndarray, counts: np.ndarray, y: np.ndarray, rows: np.ndarray, max_terms: int,
               penalty: float) -> tuple[list[int], float]:
    """The candidates (columns of ``B``) of the next rule for the class of the rows where ``y``
    holds, and its gain, learned on the rows ``rows`` (a mask) of ``B``; ``counts`` is ``B`` as
    floats, so that two matrix-vector products count every candidate's rows at once.

    The conjunction grows by the candidate of largest FOIL gain
    p1 (log p1 / (p1 + n1) - log p0 / (p0 + n0)) (p: rows of the class covered, n: the others;
    0 before, 1 after adding it) until it is pure, nothing gains or it has ``max_terms``
    candidates; of it and its beginnings, the one of largest p - ``penalty`` n wins (the
    shorter on a tie), and its gain is p - n."""
    chosen: list[int] = []
    covered = rows
    p0, n0 = float(np.count_nonzero(rows & y)), float(np.count_nonzero(rows & ~y))
    best: tuple[float, float, list[int]] = (-np.inf, 0.0, [])
    for _ in range(max_terms):
        if p0 == 0 or n0 == 0:
            break
        p1 = ((covered & y).astype(counts.dtype) @ counts).astype(np.float64)
        n1 = ((covered & ~y).astype(counts.dtype) @ counts).astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            foil = p1 * (np.log(p1 / (p1 + n1)) - np.log(p0 / (p0 + n0)))
        foil[(p1 == 0) | ~np.isfinite(foil)] = -np.inf
        pick = int(np.argmax(foil))
        if foil[pick] <= 1e-12:
            break
        chosen.append(pick)
        covered, p0, n0 = covered & B[:, pick], p1[pick], n1[pick]
        if p0 - penalty * n0 > best[0] + 1e-9:
            best = (p0 - penalty * n0, p0 - n0, list(chosen))
    return best[2], best[1]


def _learn(B: np.ndarray, codes: np.ndarray, order: Sequence[int], max_rules: int, max_terms: int,
           min_gain: float, penalty: float) -> tuple[list[tuple[list[int], int]], list[int]]:
    """The greedy list on candidate matrix ``B``: rules for each class of ``order`` but the last
    in turn (sequential covering, on the rows earlier rules leave), as long as a rule gains at
    least ``min_gain`` rows.  Returns its rules (candidates, class) and the default class after
    each prefix (``defaults[j]``: the majority of the rows the first j rules leave)."""
    n_classes = int(max(order)) + 1
    counts = B.astype(np.float32 if len(codes) < 2**24 else np.float64)  # float32 counts exactly below 2^24
    left = np.ones(len(codes), dtype=bool)
    rules, defaults = [], [int(np.argmax(np.bincount(codes, minlength=n_classes)))]
    for k in order[:-1]:
        while len(rules) < max_rules and left.any():
            chosen, gain = _grow_rule(B, counts, codes == k, left, max_terms, penalty)
            if not chosen or gain < min_gain:
                break
            rules.append((chosen, k))
            left &= ~B[:, chosen].all(axis=1)
            defaults.append(int(np.argmax(np.bincount(codes[left], minlength=n_classes))) if left.any()
                            else defaults[-1])
    return rules, defaults


def _without_negations(pool: Sequence[PlainRule]) -> list[list[int]]:
    """The candidate sets to learn from: every candidate, and (when there are any) every
    candidate but the negated variables: a negation (``~mm=o``, mm being x or blank) covers
    more rows and wins the greedy growth where the variable itself makes the exact rule."""
    every = list(range(len(pool)))
    plain = [i for i, c in enumerate(pool) if not (isinstance(c.node, Op) and c.node.op == "not"
                                                    and isinstance(c.node.args[0], Leaf))]
    return [every, plain] if 0 < len(plain) < len(pool) else [every]


def _orders(counts: np.ndarray) -> list[list[int]]:
    """The orders in which to learn rules for the classes: rarest first, the most frequent the
    default; with two classes also the other way round."""
    rarest_first = [int(k) for k in np.argsort(counts, kind="stable")]
    return [rarest_first, rarest_first[::-1]] if len(counts) == 2 else [rarest_first]


def _prefix_accuracy(B: np.ndarray, codes: np.ndarray, rules, defaults, max_rules: int) -> np.ndarray:
    """Accuracy on rows ``B`` of each prefix of the list (0 to ``max_rules`` rules; a prefix
    longer than the list is the whole list): the rows the first k rules decide rightly, plus
    the rows they leave whose class is the default after k."""
    n_rules = len(rules)
    which = np.full(len(codes), n_rules)  # the rule that decides each row (n_rules: none)
    for i in range(n_rules - 1, -1, -1):
        which[B[:, rules[i][0]].all(axis=1)] = i
    labels = np.array([label for _, label in rules] + [-1])
    right = np.concatenate([[0], np.cumsum(np.bincount(which, weights=labels[which] == codes,
                                                       minlength=n_rules + 1)[:n_rules])])
    counts = np.zeros((n_rules + 1, int(max(codes.max(initial=0), max(defaults))) + 1))
    np.add.at(counts, (which, codes), 1)
    left = np.cumsum(counts[::-1], axis=0)[::-1]  # left[k, c]: rows of class c no rule before k decides
    k = np.minimum(np.arange(max_rules + 1), n_rules)
    return (right[k] + left[k, np.asarray(defaults)[k]]) / len(codes)


def _cv_length(B: np.ndarray, codes: np.ndarray, learn: tuple, folds, tolerance: float) -> tuple[int, float]:
    """The number of rules to keep: the fewest whose held-out accuracy over ``folds`` is within
    ``tolerance`` of the best prefix's, and that accuracy (all rules and NaN without folds)."""
    max_rules = learn[1]
    if not folds:
        return max_rules, float("nan")
    acc = np.zeros(max_rules + 1)
    for train, test in folds:
        rules, defaults = _learn(B[train], codes[train], *learn)
        acc += _prefix_accuracy(B[test], codes[test], rules, defaults, max_rules)
    acc /= len(folds)
    keep = int(np.flatnonzero(acc >= acc.max() - tolerance)[0])
    return keep, float(acc[keep])


class RuleList(ClassifierMixin, BaseEstimator):
    """A decision list over ``conditions`` (``PlainRule``s over the binary columns; empty: every
    column on its own), learned as the module notes say.

    Fitted: ``classes_``, ``rules_`` (``ListedRule``s, in order), ``default_`` (an index into
    ``classes_``), ``cv_score_`` (the held-out accuracy that chose it; NaN when not
    cross-validated) and ``feature_names_`` (for the text).  ``logic`` (a ``ColumnLogic``) makes the rules' plain
    forms use what the columns say of each other.  ``predict`` takes binary rows."""

    def __init__(self, conditions: Sequence[PlainRule] = (), feature_names=None, logic: ColumnLogic | None = None,
                 max_rules: int = 10, max_terms: int = 4, min_gain: float = 0.005, cv: int = 5,
                 tolerance: float = 0.005, random_state=None) -> None:
        self.conditions = conditions
        self.feature_names = feature_names
        self.logic = logic
        self.max_rules = max_rules
        self.max_terms = max_terms
        self.min_gain = min_gain
        self.cv = cv
        self.tolerance = tolerance
        self.random_state = random_state

    def fit(self, X, y):
        Xb = check_binary(X).astype(bool)
        y = np.asarray(y)
        check_classification_targets(y)
        if len(y) != Xb.shape[0]:
            raise InputError(f"X has {Xb.shape[0]} rows and y {len(y)}")
        self.classes_, codes = np.unique(y, return_inverse=True)
        names = self.feature_names
        self.feature_names_ = [str(n) for n in names] if names is not None else [f"x{i}" for i in range(Xb.shape[1])]
        pool, B = self._pool(Xb)
        gain = max(1.0, float(self.min_gain) * len(y))
        fitted = []
        orders = _orders(np.bincount(codes, minlength=len(self.classes_)))
        folds = self._folds(codes)
        for columns, penalty, order in itertools.product(_without_negations(pool), PENALTIES, orders):
            learn = (order, int(self.max_rules), int(self.max_terms), gain, penalty)
            keep, held_out = _cv_length(B[:, columns], codes, learn, folds, float(self.tolerance))
            rules, defaults = _learn(B[:, columns], codes, *learn)
            fitted.append((held_out, [([columns[c] for c in chosen], label) for chosen, label in rules[:keep]],
                           defaults[min(keep, len(rules))]))
        top = max(f[0] for f in fitted)  # NaN (not cross-validated) never wins: the first order
        good = [f for f in fitted if f[0] >= top - float(self.tolerance)] or fitted[:1]
        self.cv_score_, rules, self.default_ = min(good, key=lambda f: len(f[1]))
        logic = self.logic or ColumnLogic()
        self.rules_ = [ListedRule(conjunction([plain_rule(pool[c].node, pool[c].variables, logic) for c in chosen],
                                              logic), label)
                       for chosen, label in rules]
        return self

    def _pool(self, Xb: np.ndarray) -> tuple[list[PlainRule], np.ndarray]:
        """The candidates that are neither constant nor a copy of an earlier one on these rows
        (all constant: the first, and the list will be its default class alone), and their
        truth values on the rows (one column each)."""
        if Xb.shape[1] == 0:
            raise InputError("a rule list needs at least one binary column")
        pool = list(self.conditions) or literals(Xb.shape[1])
        seen, out, columns = set(), [], []
        for c in pool:
            values = truth(c, Xb)
            key = np.packbits(values).tobytes()
            if values.all() or not values.any() or key in seen:
                continue
            seen.add(key)
            out.append(c)
            columns.append(values)
        if not out:
            out, columns = pool[:1], [truth(pool[0], Xb)]
        return out, np.column_stack(columns)

    def _folds(self, codes: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """The ``cv``-fold splits, repeated, that choose every list's length (the same for each
        candidate set, penalty and order); none when a class is too small for ``cv`` folds."""
        if int(self.cv) < 2 or np.bincount(codes).min() < int(self.cv):
            return []
        folds = RepeatedStratifiedKFold(n_splits=int(self.cv), n_repeats=_REPEATS, random_state=self.random_state)
        return list(folds.split(np.zeros(len(codes)), codes))

    def decide(self, X) -> np.ndarray:
        """For each row, the index of the rule that decides it (``len(rules_)``: the default)."""
        check_is_fitted(self, "rules_")
        Xb = check_binary(X).astype(bool)
        which = np.full(Xb.shape[0], len(self.rules_))
        for i, rule in reversed(list(enumerate(self.rules_))):
            which[truth(rule.condition, Xb)] = i
        return which

    def predict(self, X) -> np.ndarray:
        labels = np.array([r.label for r in self.rules_] + [self.default_])
        return self.classes_[labels[self.decide(X)]]

    @property
    def n_rules_(self) -> int:
        return len(self.rules_)

    @property
    def n_literals_(self) -> int:
        return sum(len(r.condition.variables) for r in self.rules_)

    def rule_texts(self) -> list[str]:
        """Each rule's condition over the feature names."""
        return [r.condition.text(self.feature_names_) for r in self.rules_]

    def stats(self, X, y, reference=None) -> list[RuleStats]:
        """``RuleStats`` of every rule and of the default on rows ``X`` with classes ``y``;
        ``reference``: another model's predictions on them (agreement; NaN without)."""
        y = np.asarray(y)
        which = self.decide(X)
        pred = self.predict(X)
        texts = self.rule_texts() + [None]
        labels = [r.label for r in self.rules_] + [self.default_]
        out = []
        for i, (text, label) in enumerate(zip(texts, labels)):
            rows = which == i
            n = int(rows.sum())
            agree = float(np.mean(reference[rows] == pred[rows])) if n and reference is not None else float("nan")
            out.append(RuleStats(text, class_name(self.classes_[label]), n, float(np.mean(y[rows] == pred[rows])) if n else float("nan"), agree))
        return out

    def to_dict(self) -> dict:
        """The list as JSON-ready data: each rule's condition (text and the kernel-free formula
        with its column indices) and class, and the default class."""
        check_is_fitted(self, "rules_")
        return {"rules": [{"if": text, "then": class_name(self.classes_[r.label]),
                           "formula": to_string(r.condition.node), "columns": list(r.condition.variables)}
                          for text, r in zip(self.rule_texts(), self.rules_)],
                "default": class_name(self.classes_[self.default_])}

    def __str__(self) -> str:
        lines = [f"{'if' if i == 0 else 'else if'} {text} then {class_name(self.classes_[r.label])}"
                 for i, (text, r) in enumerate(zip(self.rule_texts(), self.rules_))]
        return "\n".join(lines + [f"{'else' if lines else 'always'} {class_name(self.classes_[self.default_])}"])
