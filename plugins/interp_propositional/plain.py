"""A rule in a plain form: fewer literals, and the same value on every row the encoding can
produce.

A rule of the kernel puts input variables in the leaves of its formula, with repetition, so it
can say ``(~a <-> ~b <-> ~a) ^ c`` (which is ``~b ^ c``) or combine levels of one column that
exclude each other (``vote=y & ~vote=n`` is ``vote=y``: one-hot levels are never true together).
`plain_rule` rewrites the rule bottom-up: at every operator, the subformula's truth table over
its distinct variables is minimised by sympy (sum of products and product of sums), with the
assignments the binarizer can never produce as don't-cares (`interp.preprocessing.ColumnLogic`), and
a minimised form replaces the subformula when it is plainer: fewer literals, or as many with
fewer operators that do not read as a sentence (anything but and, or, not and implication),
or as many of those with fewer operators in all (``~~a`` reads ``a``).
On every row the model can be given, the plain form and the rule take the same value, so the
rule's weight and the class it supports are the plain form's.

A subformula that is constant on the possible rows, or has more than `MAX_VARIABLES` distinct
variables (where minimising costs about 3^k), is kept as it stands.
"""

from __future__ import annotations

import itertools
from typing import Sequence

import attrs
import numpy as np

from interp.preprocessing import ColumnLogic

from .formula import Formula, Op, evaluate, fold, n_leaves, parse, to_string
from .operators import BUILTIN_OPERATORS

__all__ = ["PlainRule", "plain_rule", "conjunction", "MAX_VARIABLES"]

MAX_VARIABLES = 6

Literal = tuple[int, bool]  # (variable, True for the variable itself, False for its negation)

#: the operators of the minimised forms, resolved here so that rewriting never consults the registry
_TWO_LEVEL = {op.name: op for op in BUILTIN_OPERATORS if op.name in ("and", "or", "not")}
#: operators that read as a sentence; any other makes a form harder to read
_SENTENCE = frozenset(("and", "or", "not", "imp"))


@attrs.frozen
class PlainRule:
    """A formula over input variables: ``node`` with column ``variables[i]`` in its leaf i
    (left to right)."""

    node: Formula
    variables: tuple[int, ...]

    def text(self, names: Sequence[str]) -> str:
        """The formula with the variables' names in its leaves."""
        return to_string(self.node, [names[v] for v in self.variables])


def _terms(expr, outer, inner) -> list[list[Literal]]:
    """sympy's two-level form ``expr`` (an ``outer`` of ``inner`` terms of literals; or one
    term; or one literal) as lists of literals, each sorted by variable."""
    from sympy import Not

    def literal(e) -> Literal:
        return (int(e.args[0].name[1:]), False) if isinstance(e, Not) else (int(e.name[1:]), True)

    groups = expr.args if isinstance(expr, outer) else (expr,)
    return [sorted(literal(e) for e in (g.args if isinstance(g, inner) else (g,))) for g in groups]


def _skeleton(terms: list[list[Literal]], inner: str, outer: str) -> PlainRule:
    """The parsed formula of ``terms`` joined by ``inner`` within a term and ``outer`` between
    terms (a term in parentheses when ``inner`` binds looser than ``outer``)."""
    leaves: list[int] = []
    parts = []
    for term in sorted(terms):
        words = []
        for var, positive in term:
            words.append(f"{'' if positive else '~'}v{len(leaves)}")
            leaves.append(var)
        text = f" {inner} ".join(words)
        parts.append(f"({text})" if inner == "|" and len(terms) > 1 and len(term) > 1 else text)
    return PlainRule(parse(f" {outer} ".join(parts), _TWO_LEVEL), tuple(leaves))


def _minimised(table: np.ndarray, true: np.ndarray, dont_care: np.ndarray) -> list[PlainRule]:
    """sympy's sum of products and product of sums of the function that is ``true`` on the
    rows of ``table`` marked so, false on the others, free on ``dont_care`` rows."""
    from sympy import And, Or, symbols
    from sympy.logic import POSform, SOPform

    names = symbols(f"v0:{table.shape[1]}")
    on = table[true & ~dont_care].astype(int).tolist()
    free = table[dont_care].astype(int).tolist()
    sop = SOPform(names, on, free)
    pos = POSform(names, on, free)
    return [_skeleton(_terms(sop, Or, And), "&", "|"), _skeleton(_terms(pos, And, Or), "|", "&")]


def _cost(node: Formula) -> tuple[int, int, int]:
    """What makes a form harder to read: (literals, operators other than and, or, not and ->,
    operators)."""
    def counts(op: Op, args: list[tuple[int, int]]) -> tuple[int, int]:
        return sum(a[0] for a in args) + (op.op not in _SENTENCE), sum(a[1] for a in args) + 1

    others, operators = fold(node, lambda leaf: (0, 0), counts)
    return n_leaves(node), others, operators


def _completed(distinct: list[int], logic: ColumnLogic) -> list[int]:
    """``distinct`` with the other levels of every one-hot column (``logic.complete``) it holds
    all levels but one of, so that ``~a=1 & ~a=2`` over the levels 1, 2, 3 can read ``a=3``."""
    out = list(distinct)
    for group in logic.complete:
        missing = [c for c in group if c not in out]
        if len(missing) == 1 and len(group) > 1 and len(out) < MAX_VARIABLES:
            out += missing
    return out


def _plainer(rule: PlainRule, logic: ColumnLogic) -> PlainRule:
    """``rule``, or its minimised form where that is plainer (see the module notes)."""
    distinct = _completed(list(dict.fromkeys(rule.variables)), logic)
    if len(distinct) > MAX_VARIABLES:
        return rule
    table = np.array(list(itertools.product((False, True), repeat=len(distinct))), dtype=bool)
    values = evaluate(rule.node, [table[:, distinct.index(v)] for v in rule.variables])
    possible = logic.possible(distinct, table)
    if values[possible].all() or not values[possible].any():
        return rule
    best = min(_minimised(table, values, ~possible), key=lambda r: _cost(r.node))
    if _cost(best.node) >= _cost(rule.node):
        return rule
    return PlainRule(best.node, tuple(distinct[v] for v in best.variables))


def _conjuncts(rule: PlainRule) -> list[PlainRule]:
    """The operands of ``rule``'s top-level chain of ``and`` (``rule`` itself if it is none)."""
    node = rule.node
    if not (isinstance(node, Op) and node.op == "and"):
        return [rule]
    left = n_leaves(node.args[0])
    return (_conjuncts(PlainRule(node.args[0], rule.variables[:left]))
            + _conjuncts(PlainRule(node.args[1], rule.variables[left:])))


def conjunction(parts: Sequence[PlainRule], logic: ColumnLogic | None = None) -> PlainRule:
    """The conjunction of ``parts`` (plain rules over input columns) in its plain form, one
    flat chain ``a & b & c``."""
    flat = [c for part in parts for c in _conjuncts(part)]
    joined = flat[0]
    for part in flat[1:]:
        joined = PlainRule(Op("and", (joined.node, part.node), _TWO_LEVEL["and"]),
                           joined.variables + part.variables)
    return _plainer(joined, logic or ColumnLogic()) if len(parts) > 1 else joined


def plain_rule(node: Formula, assign: Sequence[int], logic: ColumnLogic | None = None) -> PlainRule:
    """The plain form of the rule ``node`` with column ``assign[i]`` in leaf i: it agrees with
    the rule on every row ``logic`` allows (None: every row); see the module notes."""
    given = iter(int(a) for a in assign)
    logic = logic or ColumnLogic()

    def operator(op: Op, args: list[PlainRule]) -> PlainRule:
        joined = PlainRule(Op(op.op, tuple(a.node for a in args), op.operator),
                           tuple(v for a in args for v in a.variables))
        return _plainer(joined, logic)

    return fold(parse(node), lambda leaf: PlainRule(leaf, (next(given),)), operator)
