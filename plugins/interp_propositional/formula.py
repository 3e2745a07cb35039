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

The grammar fixes the symbols and their precedence; which operator a symbol stands for is read
from the operators' ``symbol`` field (``&`` is the operator whose symbol is ``&``): the names on
the right are the built-ins that have these symbols.  The printer reads the same field.
``NAME(f1, ..., fk)`` calls any kernel operator by name (``nand(a, b)``, ``maj(a, b, c)``); its
arity is checked.  Every other NAME is a leaf.  Leaf names are placeholders: in a
propositional kernel every leaf ranges over all input variables, so ``a & b`` and ``a & a`` define
the same kernel.  Names may contain letters, digits, ``_``, ``.`` and ``=`` (``vote4=y``).

A parsed formula carries its operators: every ``Op`` node holds the ``interp.KernelOperator`` it
was resolved to (from the registry, or from the mapping given to ``parse``), so evaluating,
printing and computing the kernel of a parsed formula never consult the registry again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Mapping, Sequence, Union

import numpy as np

from interp import InputError, KernelOperator

from .operators import operators as registered_operators

__all__ = ["Leaf", "Op", "Formula", "FormulaError", "parse", "to_string", "leaves", "n_leaves",
           "evaluate", "dimension", "operators_of"]


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
    """An operator node: ``op`` names a kernel operator, ``args`` its operands, ``operator`` the
    ``KernelOperator`` the name was resolved to (None until the tree goes through ``parse``).

    Two trees are equal when their names and shapes are; ``operator`` is not compared."""

    op: str
    args: tuple
    operator: KernelOperator | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "args", tuple(self.args))


Formula = Union[Leaf, Op]

_TOKEN = re.compile(
    r"\s*(?:(?P<iff><->)|(?P<imp>->)|(?P<name>[A-Za-z_][A-Za-z0-9_.=]*)|(?P<sym>[~!&|^(),]))"
)
_WORD_OPS = {"and": "&", "or": "|", "not": "~"}
_ALIASES = {"!": "~", **_WORD_OPS}

#: the grammar's infix symbols, loosest first: symbol -> (precedence, right-associative)
_INFIX = {"<->": (1, False), "->": (2, True), "|": (3, False), "^": (4, False), "&": (5, False)}
_LEVELS = tuple(_INFIX)
_PREFIX = "~"
_UNARY_PREC, _ATOM_PREC = 6, 7


def _grammar_symbol(op: KernelOperator) -> str:
    """``op.symbol`` when the grammar has it for an operator of op's arity, else ""."""
    if (op.arity == 2 and op.symbol in _INFIX) or (op.arity == 1 and op.symbol == _PREFIX):
        return op.symbol
    return ""


def _claims(known: Mapping[str, KernelOperator]) -> dict[str, list[str]]:
    """Grammar symbol -> the names of the operators whose ``symbol`` it is."""
    claims: dict[str, list[str]] = {}
    for name, op in known.items():
        symbol = _grammar_symbol(op)
        if symbol:
            claims.setdefault(symbol, []).append(name)
    return claims


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
    def __init__(self, text: str, known: Mapping[str, KernelOperator]) -> None:
        self.text = text
        self.tokens = _tokenize(text)
        self.i = 0
        self.ops = known
        self.claims = _claims(known)

    # helpers ---------------------------------------------------------------------------------
    def peek(self, offset: int = 0) -> tuple[str, str, int]:
        return self.tokens[min(self.i + offset, len(self.tokens) - 1)]

    def error(self, problem: str, pos: int | None = None) -> FormulaError:
        return FormulaError(problem, self.text, self.peek()[2] if pos is None else pos)

    def at(self, symbol: str) -> bool:
        kind, value, _ = self.peek()
        return _ALIASES.get(value if kind == "name" else kind, kind) == symbol

    def take(self) -> tuple[str, str, int]:
        token = self.peek()
        self.i += 1
        return token

    def describe(self, token: tuple[str, str, int]) -> str:
        kind, value, _ = token
        return "end of formula" if kind == "end" else repr(value)

    def node(self, symbol: str, pos: int, args: tuple) -> Op:
        """The node of the one operator whose ``symbol`` is ``symbol``."""
        names = self.claims.get(symbol, [])
        if len(names) != 1:
            problem = (f"no registered operator has the symbol {symbol!r}" if not names else
                       f"the symbol {symbol!r} is claimed by operators {', '.join(map(repr, names))}; "
                       "call the one you mean by name")
            raise self.error(problem, pos)
        return Op(names[0], args, self.ops[names[0]])

    # grammar ---------------------------------------------------------------------------------
    def parse(self) -> Formula:
        if self.peek()[0] == "end":
            raise self.error("empty formula")
        node = self.binary()
        if self.peek()[0] != "end":
            raise self.error(f"unexpected {self.describe(self.peek())} (expected an operator or the end)")
        return node

    def binary(self, level: int = 0) -> Formula:
        """Infix operators from precedence ``level`` up (loosest first, see ``_INFIX``)."""
        if level == len(_LEVELS):
            return self.unary()
        symbol = _LEVELS[level]
        right_assoc = _INFIX[symbol][1]
        node = self.binary(level + 1)
        while self.at(symbol):
            pos = self.take()[2]
            right = self.binary(level if right_assoc else level + 1)
            node = self.node(symbol, pos, (node, right))
            if right_assoc:  # the recursion above took the rest of the chain
                break
        return node

    def unary(self) -> Formula:
        if self.at(_PREFIX):
            pos = self.take()[2]
            return self.node(_PREFIX, pos, (self.unary(),))
        return self.atom()

    def atom(self) -> Formula:
        kind, value, pos = self.peek()
        if kind == "(":
            self.take()
            node = self.binary()
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
        args = [self.binary()]
        while self.peek()[0] == ",":
            self.take()
            args.append(self.binary())
        if self.peek()[0] != ")":
            raise self.error(f"expected ',' or ')' in the call of {name!r}, found {self.describe(self.peek())}")
        self.take()
        arity = self.ops[name].arity
        if len(args) != arity:
            raise self.error(f"operator {name!r} takes {arity} operand{'s' * (arity != 1)}, "
                             f"got {len(args)}", pos)
        return Op(name, tuple(args), self.ops[name])


def _bound(node: Formula) -> bool:
    if isinstance(node, Leaf):
        return True
    return node.operator is not None and all(_bound(a) for a in node.args)


def _bind(node: Formula, known: Mapping[str, KernelOperator]) -> Formula:
    """The tree with every operator name resolved in ``known`` (resolved nodes keep theirs)."""
    if isinstance(node, Leaf):
        return node
    if not isinstance(node, Op):
        raise InputError(f"a formula node must be a Leaf or an Op, got {type(node).__name__}")
    args = tuple(_bind(a, known) for a in node.args)
    op = node.operator if node.operator is not None else known.get(node.op)
    if op is None:
        raise InputError(f"unknown kernel operator {node.op!r}; registered: {', '.join(sorted(known))}")
    if op.arity != len(args):
        raise InputError(f"operator {node.op!r} takes {op.arity} operand{'s' * (op.arity != 1)}, "
                         f"got {len(args)}")
    return Op(node.op, args, op)


def parse(formula: str | Formula, operators: Mapping[str, KernelOperator] | None = None) -> Formula:
    """Parse a formula string into a tree whose nodes carry their ``KernelOperator``.

    Operator names and symbols are resolved in ``operators`` (name -> ``KernelOperator``;
    default: the registry).  A tree is returned as it is when every node already carries its
    operator, else with the missing ones resolved the same way.
    """
    if isinstance(formula, (Leaf, Op)):
        if _bound(formula):
            return formula
        return _bind(formula, registered_operators() if operators is None else operators)
    if not isinstance(formula, str):
        raise InputError(f"a formula must be a string, got {type(formula).__name__}")
    return _Parser(formula, registered_operators() if operators is None else operators).parse()


def operators_of(formula: str | Formula, operators: Mapping[str, KernelOperator] | None = None
                 ) -> dict[str, KernelOperator]:
    """The operators a formula uses, by name in order of appearance: what a fitted model keeps."""
    found: dict[str, KernelOperator] = {}

    def visit(node: Formula) -> None:
        if isinstance(node, Op):
            found.setdefault(node.op, node.operator)
            for arg in node.args:
                visit(arg)

    visit(parse(formula, operators))
    return found


# printing ------------------------------------------------------------------------------------
def _symbol(node: Op) -> str:
    """The grammar symbol ``node`` is printed with ("" for the call form ``name(...)``)."""
    return _grammar_symbol(node.operator)


def _prec(node: Formula) -> int:
    if isinstance(node, Leaf):
        return _ATOM_PREC
    symbol = _symbol(node)
    if symbol == _PREFIX:
        return _UNARY_PREC
    return _INFIX[symbol][0] if symbol else _ATOM_PREC


def to_string(node: str | Formula, names: Sequence[str] | None = None,
              operators: Mapping[str, KernelOperator] | None = None) -> str:
    """Print a formula with the fewest parentheses that parse back to the same tree.

    An operator with a grammar symbol (its ``symbol`` field: ``&``, ``|``, ``^``, ``->``,
    ``<->``, ``~``) is printed with it, any other as ``name(f1, ..., fk)``.  ``names`` replaces
    the leaves, in left-to-right order (used to print concrete rules); ``operators`` resolves
    a tree whose nodes do not carry their operators yet (see :func:`parse`).
    """
    counter = iter(range(10**9))

    def show(n: Formula) -> str:
        if isinstance(n, Leaf):
            k = next(counter)
            return n.name if names is None else str(names[k])
        symbol, prec = _symbol(n), _prec(n)
        if symbol == _PREFIX:
            inner = show(n.args[0])
            return symbol + (f"({inner})" if _prec(n.args[0]) < _UNARY_PREC else inner)
        if symbol:
            left, right = n.args
            ltext, rtext = show(left), show(right)
            right_assoc = _INFIX[symbol][1]
            if _prec(left) < prec or (right_assoc and _prec(left) == prec):
                ltext = f"({ltext})"
            if _prec(right) < prec or (not right_assoc and _prec(right) == prec):
                rtext = f"({rtext})"
            return f"{ltext} {symbol} {rtext}"
        return f"{n.op}({', '.join(show(a) for a in n.args)})"

    return show(parse(node, operators))


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


def evaluate(node: str | Formula, values: Sequence[np.ndarray],
             operators: Mapping[str, KernelOperator] | None = None) -> np.ndarray:
    """Evaluate the formula on Boolean arrays, one per leaf (left-to-right), broadcasting.

    ``operators`` resolves the operator names of a formula not parsed yet (see :func:`parse`)."""
    node = parse(node, operators)
    n_vals = n_leaves(node)
    if len(values) != n_vals:
        raise InputError(f"formula has {n_vals} leaves, got {len(values)} value arrays")
    return _evaluate(node, iter(values))


def _evaluate(node: Formula, values) -> np.ndarray:
    """``evaluate`` of a parsed tree, the leaves' arrays taken from the iterator ``values``."""
    if isinstance(node, Leaf):
        return np.asarray(next(values), dtype=bool)
    args = [_evaluate(a, values) for a in node.args]
    table = np.asarray(node.operator.truth_table, dtype=bool)
    index = np.zeros(np.broadcast_shapes(*(a.shape for a in args)), dtype=np.intp)
    for a in args:
        index = (index << 1) | a
    return table[index]
