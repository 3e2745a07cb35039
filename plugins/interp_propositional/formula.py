"""Propositional formulas: a safe parser (no ``eval``), printing and Boolean evaluation.

Grammar, loosest to tightest binding::

    formula := iff
    iff     := imp ( "<->" imp )*                 left-assoc, operator ``eq``
    imp     := or  ( "->" imp )?                  right-assoc, operator ``imp``
    or      := xor ( ("|" | "or") xor )*          operator ``or``
    xor     := and ( "^" and )*                   operator ``xor``
    and     := unary ( ("&" | "and") unary )*     operator ``and``
    unary   := ("~" | "!" | "not") unary | atom   operator ``not``
    atom    := NAME | NAME "(" formula ("," formula)* ")" | "(" formula ")"

``NAME(f1, ..., fk)`` calls any registered kernel operator (``nand(a, b)``, ``maj(a, b, c)``);
its arity is checked.  Every other NAME is a leaf.  Leaf names are placeholders: in a
propositional kernel every leaf ranges over all input variables, so ``a & b`` and ``a & a`` define
the same kernel.  Names may contain letters, digits, ``_``, ``.`` and ``=`` (``vote4=y``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence, Union

import numpy as np

from interp import InputError

from .operators import operators

__all__ = ["Leaf", "Op", "Formula", "FormulaError", "parse", "to_string", "leaves", "n_leaves",
           "evaluate", "dimension"]


class FormulaError(InputError):
    """A formula that cannot be parsed; ``position`` is the 0-based character offset."""

    def __init__(self, problem: str, text: str, position: int) -> None:
        self.problem, self.text, self.position = problem, text, position
        shown = text.replace("\n", " ")
        super().__init__(
            f"cannot parse formula at position {position}: {problem}\n    {shown}\n    {' ' * position}^"
        )


@dataclass(frozen=True)
class Leaf:
    """A literal: ranges over all input variables."""

    name: str


@dataclass(frozen=True)
class Op:
    """An operator node: ``op`` names a registered kernel operator, ``args`` its operands."""

    op: str
    args: tuple

    def __post_init__(self) -> None:
        object.__setattr__(self, "args", tuple(self.args))


Formula = Union[Leaf, Op]

_TOKEN = re.compile(
    r"\s*(?:(?P<iff><->)|(?P<imp>->)|(?P<name>[A-Za-z_][A-Za-z0-9_.=]*)|(?P<sym>[~!&|^(),]))"
)
_WORD_OPS = {"and": "&", "or": "|", "not": "~"}


def _tokenize(text: str) -> list[tuple[str, str, int]]:
    tokens, pos = [], 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        match = _TOKEN.match(text, pos)
        if match is None or match.end() == pos:
            raise FormulaError(f"unexpected character {text[pos]!r}", text, pos)
        start = match.start(match.lastgroup)
        kind, value = match.lastgroup, match.group(match.lastgroup)
        if kind == "sym":
            kind = value
        elif kind in ("iff", "imp"):
            kind = value
        tokens.append((kind, value, start))
        pos = match.end()
    tokens.append(("end", "", len(text)))
    return tokens


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokenize(text)
        self.i = 0
        self.ops = operators()

    # helpers ---------------------------------------------------------------------------------
    def peek(self, offset: int = 0) -> tuple[str, str, int]:
        return self.tokens[min(self.i + offset, len(self.tokens) - 1)]

    def error(self, problem: str, pos: int | None = None) -> FormulaError:
        return FormulaError(problem, self.text, self.peek()[2] if pos is None else pos)

    def at(self, *symbols: str) -> bool:
        kind, value, _ = self.peek()
        if kind == "name" and value in _WORD_OPS:
            return _WORD_OPS[value] in symbols
        return kind in symbols

    def take(self) -> tuple[str, str, int]:
        token = self.peek()
        self.i += 1
        return token

    def describe(self, token: tuple[str, str, int]) -> str:
        kind, value, _ = token
        return "end of formula" if kind == "end" else repr(value)

    # grammar ---------------------------------------------------------------------------------
    def parse(self) -> Formula:
        if self.peek()[0] == "end":
            raise self.error("empty formula")
        node = self.iff()
        if self.peek()[0] != "end":
            raise self.error(f"unexpected {self.describe(self.peek())} (expected an operator or the end)")
        return node

    def iff(self) -> Formula:
        node = self.imp()
        while self.at("<->"):
            self.take()
            node = Op("eq", (node, self.imp()))
        return node

    def imp(self) -> Formula:
        node = self.or_()
        if self.at("->"):
            self.take()
            node = Op("imp", (node, self.imp()))
        return node

    def or_(self) -> Formula:
        node = self.xor()
        while self.at("|"):
            self.take()
            node = Op("or", (node, self.xor()))
        return node

    def xor(self) -> Formula:
        node = self.and_()
        while self.at("^"):
            self.take()
            node = Op("xor", (node, self.and_()))
        return node

    def and_(self) -> Formula:
        node = self.unary()
        while self.at("&"):
            self.take()
            node = Op("and", (node, self.unary()))
        return node

    def unary(self) -> Formula:
        if self.at("~", "!"):
            self.take()
            return Op("not", (self.unary(),))
        return self.atom()

    def atom(self) -> Formula:
        kind, value, pos = self.peek()
        if kind == "(":
            self.take()
            node = self.iff()
            if self.peek()[0] != ")":
                raise self.error(f"expected ')' to close the '(' at position {pos}, found "
                                 f"{self.describe(self.peek())}")
            self.take()
            return node
        if kind == "name":
            self.take()
            if self.peek()[0] == "(":
                return self.call(value, pos)
            if value in _WORD_OPS:
                raise self.error(f"the keyword {value!r} needs operands", pos)
            return Leaf(value)
        raise self.error(f"expected a variable, '(' or '~', found {self.describe(self.peek())}")

    def call(self, name: str, pos: int) -> Formula:
        if name not in self.ops:
            known = ", ".join(sorted(self.ops))
            raise self.error(f"unknown operator {name!r} (registered: {known})", pos)
        self.take()  # "("
        args = [self.iff()]
        while self.peek()[0] == ",":
            self.take()
            args.append(self.iff())
        if self.peek()[0] != ")":
            raise self.error(f"expected ',' or ')' in the call of {name!r}, found {self.describe(self.peek())}")
        self.take()
        arity = self.ops[name].arity
        if len(args) != arity:
            raise self.error(f"operator {name!r} takes {arity} operand{'s' * (arity != 1)}, "
                             f"got {len(args)}", pos)
        return Op(name, tuple(args))


def parse(formula: str | Formula) -> Formula:
    """Parse a formula string (a parsed formula is returned unchanged)."""
    if isinstance(formula, (Leaf, Op)):
        return formula
    if not isinstance(formula, str):
        raise InputError(f"a formula must be a string, got {type(formula).__name__}")
    return _Parser(formula).parse()


# printing ------------------------------------------------------------------------------------
_INFIX = {"eq": ("<->", 1), "imp": ("->", 2), "or": ("|", 3), "xor": ("^", 4), "and": ("&", 5)}
_UNARY_PREC, _ATOM_PREC = 6, 7


def _prec(node: Formula) -> int:
    if isinstance(node, Leaf):
        return _ATOM_PREC
    if node.op in _INFIX and len(node.args) == 2:
        return _INFIX[node.op][1]
    if node.op == "not" and len(node.args) == 1:
        return _UNARY_PREC
    return _ATOM_PREC


def to_string(node: Formula, names: Sequence[str] | None = None) -> str:
    """Print a formula with the fewest parentheses that parse back to the same tree.

    ``names`` replaces the leaves, in left-to-right order (used to print concrete rules).
    """
    counter = iter(range(10**9))

    def show(n: Formula) -> str:
        if isinstance(n, Leaf):
            k = next(counter)
            return n.name if names is None else str(names[k])
        prec = _prec(n)
        if n.op == "not" and len(n.args) == 1:
            inner = show(n.args[0])
            return "~" + (f"({inner})" if _prec(n.args[0]) < _UNARY_PREC else inner)
        if n.op in _INFIX and len(n.args) == 2:
            symbol = _INFIX[n.op][0]
            left, right = n.args
            ltext, rtext = show(left), show(right)
            right_assoc = n.op == "imp"
            if _prec(left) < prec or (right_assoc and _prec(left) == prec):
                ltext = f"({ltext})"
            if _prec(right) < prec or (not right_assoc and _prec(right) == prec):
                rtext = f"({rtext})"
            return f"{ltext} {symbol} {rtext}"
        return f"{n.op}({', '.join(show(a) for a in n.args)})"

    return show(node)


# structure -----------------------------------------------------------------------------------
def leaves(node: Formula) -> list[Leaf]:
    """The leaves in left-to-right order (repeated names are separate leaves)."""
    if isinstance(node, Leaf):
        return [node]
    out: list[Leaf] = []
    for arg in node.args:
        out += leaves(arg)
    return out


def n_leaves(node: Formula) -> int:
    return len(leaves(node))


def dimension(node: str | Formula, n_variables: int) -> int:
    """The feature-space dimension n**L (an exact Python integer)."""
    return int(n_variables) ** n_leaves(parse(node))


def evaluate(node: str | Formula, values: Sequence[np.ndarray]) -> np.ndarray:
    """Evaluate the formula on Boolean arrays, one per leaf (left-to-right), broadcasting."""
    node = parse(node)
    ops = operators()
    it = iter(values)

    def ev(n: Formula) -> np.ndarray:
        if isinstance(n, Leaf):
            return np.asarray(next(it), dtype=bool)
        args = [ev(a) for a in n.args]
        table = np.asarray(ops[n.op].truth_table, dtype=bool)
        index = np.zeros(np.broadcast_shapes(*(a.shape for a in args)), dtype=np.intp)
        for a in args:
            index = (index << 1) | a
        return table[index]

    n_vals = n_leaves(node)
    if len(values) != n_vals:
        raise InputError(f"formula has {n_vals} leaves, got {len(values)} value arrays")
    return ev(node)
