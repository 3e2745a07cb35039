"""Per-row explanations: the rules that fire, and the SVM's decision split among its features.

For a row x, the exact SVM's decision function is
f(x) = sum_F w_F phi_F(x) / sqrt(k(x, x)) + b (normalised kernel; without the root otherwise),
a sum over the n^L logical features F.  `rule_contributions` gives each of the ``top`` features
the SVM weights most its part w_F phi_F(x) / sqrt(k(x, x)) (0 where it is false), the rest of
f(x) - b as one "other" amount, and the intercept b, so that the parts add up to
``decision_function`` (exactly, up to round-off: "other" is what is left).  Beside them, the rule
model's rules that hold on the row and the one that decides it.
"""

from __future__ import annotations

import attrs
import numpy as np

from interp import InputError

from .explain import feature_coefficients, top_features
from .formula import evaluate, parse
from .kernels import propositional_kernel_diagonal
from .plain import plain_rule
from .rulelist import truth

__all__ = ["RuleContributions", "rule_contributions"]


@attrs.frozen(eq=False)
class RuleContributions:
    """``fired`` (rows x rules, Boolean): the rule model's ``rules`` that hold on each row;
    ``decided_by``: the rule that decides it (``len(rules)``: the default); ``parts`` (rows x
    features): each of the SVM's top weighted ``features``' part of the decision value;
    ``other``: the rest of it; ``intercept``: b; ``variables``: the binary columns each of the
    ``features`` reads.  ``parts.sum(1) + other + intercept`` is the decision function."""

    rules: tuple[str, ...]
    fired: np.ndarray
    decided_by: np.ndarray
    features: tuple[str, ...]
    parts: np.ndarray
    other: np.ndarray
    intercept: float
    variables: tuple[tuple[str, ...], ...] = ()

    def total(self) -> np.ndarray:
        return self.parts.sum(axis=1) + self.other + self.intercept


def rule_contributions(est, X, top: int = 10) -> RuleContributions:
    """The ``RuleContributions`` of a fitted binary ``PropositionalSVC`` on the rows ``X``."""
    if len(est.classes_) != 2:
        raise InputError("contributions are computed for binary classifiers only")
    Xb = est._binary(X).astype(bool)
    node = parse(est.formula_, est.operators_)
    rows, coef = est._expansion()
    weights = feature_coefficients(node, rows, coef, est.normalize)
    found, _ = top_features(node, rows, weights, top=top, distinct=False, random_state=est.random_state)
    scale = np.ones(len(Xb))
    if est.normalize:
        diag = propositional_kernel_diagonal(node, Xb)
        scale = np.where(diag > 0, 1.0 / np.sqrt(np.where(diag > 0, diag, 1.0)), 0.0)
    parts = np.zeros((len(Xb), len(found)))
    for j, (assign, w) in enumerate(found):
        parts[:, j] = w * evaluate(node, [Xb[:, a] for a in assign]) * scale
    intercept = float(est.svc_.intercept_[0] if est.approximation_ is None else est.intercept_[0])
    other = est.decision_function(X) - intercept - parts.sum(axis=1)
    names = est._binary_names()
    model = est.rule_model_
    fired = np.zeros((len(Xb), model.n_rules_), dtype=bool)
    for j, rule in enumerate(model.rules_):
        fired[:, j] = truth(rule.condition, Xb)
    return RuleContributions(tuple(model.rule_texts()), fired, model.decide(Xb),
                             tuple(plain_rule(node, assign, est.column_logic_).text(names) for assign, _ in found),
                             parts, other, intercept,
                             tuple(tuple(dict.fromkeys(names[a] for a in assign)) for assign, _ in found))
