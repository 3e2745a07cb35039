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

Formulas of any depth and length work: the parser is an operator-precedence parser with explicit
stacks, and every walk over a tree (printing, evaluation, the kernel's composition, equality)
goes through `fold` or an explicit stack, never Python recursion.  A chain ``a & b & c``
is the binary tree ``(a & b) & c`` (left-deep, as deep as the chain is long).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping, Sequence, Union

import numpy as np

from interp import InputError, KernelOperator

from .operators import operators as registered_operators
from .operators import refused

__all__ = ["Leaf", "Op", "Formula", "FormulaError", "parse", "to_string", "leaves", "n_leaves",
           "evaluate", "dimension", "operators_of", "fold"]

_SHOWN = 72  # characters of the formula an error message shows around the error position


class FormulaError(InputError):
    """A formula that cannot be parsed; ``position`` is the 0-based character offset.

    The message has three lines: the problem, the formula (on one line, cut to about
    ``_SHOWN`` characters around the position) and a caret under the position."""

    def __init__(self, problem: str, text: str, position: int) -> None:
        self.problem, self.text, self.position = problem, text, position
        self.excerpt = _excerpt(text, position)  # its lines shown as lines on the command line
        super().__init__(f"cannot parse formula at position {position}: {problem}\n{self.excerpt}")

    def __reduce__(self):  # pickles (e.g. from a joblib or Dask worker) with its own arguments
        return type(self), (self.problem, self.text, self.position)


def _excerpt(text: str, position: int) -> str:
    """Two indented lines: ``text`` as one printable line around ``position``, and a caret under it.

    Line breaks, tabs and unprintable characters become blanks so that the caret lines up; a
    long text is cut around the position, with ``...`` where it was cut."""
    start = max(0, min(position - _SHOWN // 2, len(text) - _SHOWN))
    end = min(len(text), start + _SHOWN)
    line = "".join(c if c == " " or (c.isprintable() and not c.isspace()) else " " for c in text[start:end])
    head, tail = ("..." if start > 0 else ""), ("..." if end < len(text) else "")
    return f"    {head}{line}{tail}\n    {' ' * (len(head) + position - start)}^"


def _quote(value: str, limit: int = 40) -> str:
    """``repr(value)``, cut to ``limit`` characters of value (an error names a token, not a page)."""
    return repr(value) if len(value) <= limit else repr(value[:limit]) + "..."


@dataclass(frozen=True)
class Leaf:
    """A literal: ranges over all input variables."""

    name: str


@dataclass(frozen=True, eq=False, repr=False)
class Op:
    """An operator node: ``op`` names a kernel operator, ``args`` its operands, ``operator`` the
    ``KernelOperator`` the name was resolved to (None until the tree goes through ``parse``).

    Two trees are equal when their names and shapes are; ``operator`` is not compared.
    Equality, hashing and ``repr`` walk the tree with an explicit stack, so they work at any
    depth (the dataclass versions recurse)."""

    op: str
    args: tuple
    operator: KernelOperator | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "args", tuple(self.args))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Op):
            return NotImplemented
        pairs = [(self, other)]
        while pairs:
            a, b = pairs.pop()
            if a is b:
                continue
            if not (isinstance(a, Op) and isinstance(b, Op)):
                if isinstance(a, Op) or isinstance(b, Op) or a != b:
                    return False
                continue
            if a.op != b.op or len(a.args) != len(b.args):
                return False
            pairs.extend(zip(a.args, b.args))
        return True

    def __hash__(self) -> int:
        return fold(self, hash, lambda node, args: hash((node.op, tuple(args))))

    def __repr__(self) -> str:
        def pieces(node: Op) -> list:
            out: list = [f"Op(op={node.op!r}, args=("]
            for i, arg in enumerate(node.args):
                out += [", "] * (i > 0) + [arg if isinstance(arg, (Leaf, Op)) else repr(arg)]
            return out + [",))" if len(node.args) == 1 else "))"]

        return _render(self, repr, pieces)


Formula = Union[Leaf, Op]


# walking trees without recursion ---------------------------------------------------------------
def _node(node: Any) -> Formula:
    if not isinstance(node, (Leaf, Op)):
        raise InputError(f"a formula node must be a Leaf or an Op, got {type(node).__name__}")
    return node


def fold(node: Formula, leaf: Callable[[Leaf], Any], op: Callable[[Op, list], Any]) -> Any:
    """The bottom-up value of a tree: ``leaf(l)`` at a leaf, ``op(node, values of its args)`` at
    an operator node.  Leaves are visited left to right; no recursion, so any depth works.

    A node that is neither a ``Leaf`` nor an ``Op`` is an ``InputError``."""
    values: list = []
    stack: list = [(_node(node), False)]
    while stack:
        current, expanded = stack.pop()
        if isinstance(current, Leaf):
            values.append(leaf(current))
        elif expanded:
            k = len(current.args)
            args = values[len(values) - k:]
            del values[len(values) - k:]
            values.append(op(current, args))
        else:
            stack.append((current, True))
            stack.extend((_node(a), False) for a in reversed(current.args))
    return values[0]


def _walk(node: Formula) -> Iterator[Formula]:
    """Every node, pre-order (a node before its operands, operands left to right)."""
    stack = [_node(node)]
    while stack:
        current = stack.pop()
        yield current
        if isinstance(current, Op):
            stack.extend(_node(a) for a in reversed(current.args))


def _render(node: Formula, leaf: Callable[[Leaf], str], pieces: Callable[[Op], list]) -> str:
    """Text of a tree in linear time: ``pieces(op)`` lists strings and operand nodes in order
    (expanded in turn), ``leaf(l)`` is the text of a leaf (called left to right)."""
    out: list[str] = []
    stack: list = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, Leaf):
            out.append(leaf(item))
        else:
            stack.extend(reversed(pieces(item)))
    return "".join(out)


# tokens and grammar ----------------------------------------------------------------------------
_TOKEN = re.compile(r"(?P<iff><->)|(?P<imp>->)|(?P<name>[A-Za-z_][A-Za-z0-9_.=]*)|(?P<sym>[~!&|^(),])")
_WORD_OPS = {"and": "&", "or": "|", "not": "~"}
_ALIASES = {"!": "~", **_WORD_OPS}

#: the grammar's infix symbols, loosest first: symbol -> (precedence, right-associative)
_INFIX = {"<->": (1, False), "->": (2, True), "|": (3, False), "^": (4, False), "&": (5, False)}
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
    """(kind, value, position) triples; kind is ``name``, the symbol itself, or ``end``."""
    tokens, pos = [], 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        match = _TOKEN.match(text, pos)  # every token is at least one character
        if match is None:
            raise FormulaError(f"unexpected character {text[pos]!r}", text, pos)
        value = match.group()
        tokens.append(("name" if match.lastgroup == "name" else value, value, pos))
        pos = match.end()
    tokens.append(("end", "", len(text)))
    return tokens


def _arity_problem(name: str, arity: int, got: int) -> str:
    return f"operator {name!r} takes {arity} operand{'s' * (arity != 1)}, got {got}"


@dataclass(frozen=True)
class _Pending:
    """An operator read but not applied yet: its grammar symbol, position and precedence."""

    symbol: str
    pos: int
    prec: int


@dataclass(frozen=True)
class _Open:
    """An open bracket: a group ``(`` (``call`` empty) or the call ``call(``; ``base`` is the
    number of finished operands when it opened."""

    pos: int
    base: int
    call: str = ""


class _Parser:
    """Operator-precedence parsing with two explicit stacks (operands, pending operators and
    open brackets), so nesting depth and chain length are limited by memory only."""

    def __init__(self, text: str, known: Mapping[str, KernelOperator]) -> None:
        self.text = text
        self.tokens = _tokenize(text)
        self.i = 0
        self.ops = known
        self.claims = _claims(known)
        self.operands: list[Formula] = []
        self.pending: list[_Pending | _Open] = []

    # helpers ---------------------------------------------------------------------------------
    def peek(self) -> tuple[str, str, int]:
        return self.tokens[min(self.i, len(self.tokens) - 1)]

    def take(self) -> tuple[str, str, int]:
        token = self.peek()
        self.i += 1
        return token

    def error(self, problem: str, pos: int | None = None) -> FormulaError:
        return FormulaError(problem, self.text, self.peek()[2] if pos is None else pos)

    @staticmethod
    def symbol(token: tuple[str, str, int]) -> str:
        """The grammar symbol a token stands for (``and`` -> ``&``, ``!`` -> ``~``), else its kind."""
        kind, value, _ = token
        return _ALIASES.get(value if kind == "name" else kind, kind)

    @staticmethod
    def describe(token: tuple[str, str, int]) -> str:
        kind, value, _ = token
        return "end of formula" if kind == "end" else _quote(value)

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
        while True:
            self.operand()
            if self.after_operand():
                return self.operands[0]

    def operand(self) -> None:
        """Read prefix operators and open brackets up to one leaf (an operand is expected)."""
        while True:
            token = self.take()
            kind, value, pos = token
            if self.symbol(token) == _PREFIX:
                self.pending.append(_Pending(_PREFIX, pos, _UNARY_PREC))
            elif kind == "(":
                self.pending.append(_Open(pos, len(self.operands)))
            elif kind == "name" and self.peek()[0] == "(":
                self.open_call(value, pos)
            elif kind == "name":
                if value in _WORD_OPS:
                    raise self.error(f"the keyword {value!r} needs operands", pos)
                self.operands.append(Leaf(value))
                return
            else:
                raise self.error(f"expected a variable, '(' or '~', found {self.describe(token)}", pos)

    def open_call(self, name: str, pos: int) -> None:
        if name not in self.ops:
            raise self.error(refused(name) or f"unknown operator {_quote(name)} "
                                              f"(registered: {', '.join(sorted(self.ops))})", pos)
        self.take()  # "("
        self.pending.append(_Open(pos, len(self.operands), name))

    def after_operand(self) -> bool:
        """Read what follows an operand: infix operators, closing brackets, commas or the end.

        Returns True at the end of the formula, False when another operand is expected."""
        while True:
            token = self.take()
            symbol = self.symbol(token)
            if symbol in _INFIX:
                prec, right_assoc = _INFIX[symbol]
                self.reduce(lambda top: top.prec > prec or (top.prec == prec and not right_assoc))
                self.pending.append(_Pending(symbol, token[2], prec))
                return False
            self.reduce(lambda top: True)
            bracket = self.pending[-1] if self.pending else None
            if token[0] == "end" and bracket is None:
                return True
            if token[0] == "," and bracket is not None and bracket.call:
                return False
            if token[0] == ")" and bracket is not None:
                self.close(bracket)
                continue
            raise self.unexpected(token, bracket)

    def unexpected(self, token: tuple[str, str, int], bracket: _Open | None) -> FormulaError:
        found = self.describe(token)
        if bracket is None:
            return self.error(f"unexpected {found} (expected an operator or the end)", token[2])
        if bracket.call:
            return self.error(f"expected ',' or ')' in the call of {bracket.call!r}, found {found}", token[2])
        return self.error(f"expected ')' to close the '(' at position {bracket.pos}, found {found}", token[2])

    def reduce(self, applies: Callable[[_Pending], bool]) -> None:
        """Apply the pending operators on top of the stack while ``applies(top)``."""
        while self.pending and isinstance(self.pending[-1], _Pending) and applies(self.pending[-1]):
            top = self.pending.pop()
            k = 1 if top.symbol == _PREFIX else 2
            args = tuple(self.operands[-k:])
            del self.operands[-k:]
            self.operands.append(self.node(top.symbol, top.pos, args))

    def close(self, bracket: _Open) -> None:
        """Close a group (its operand stays) or a call (its operands become one node)."""
        self.pending.pop()
        if not bracket.call:
            return
        args = tuple(self.operands[bracket.base:])
        del self.operands[bracket.base:]
        arity = self.ops[bracket.call].arity
        if len(args) != arity:
            raise self.error(_arity_problem(bracket.call, arity, len(args)), bracket.pos)
        self.operands.append(Op(bracket.call, args, self.ops[bracket.call]))


def _bound(node: Formula) -> bool:
    return all(isinstance(n, Leaf) or n.operator is not None for n in _walk(node))


def _bind(node: Formula, known: Mapping[str, KernelOperator]) -> Formula:
    """The tree with every operator name resolved in ``known`` (resolved nodes keep theirs)."""

    def bind(current: Op, args: list) -> Op:
        op = current.operator if current.operator is not None else known.get(current.op)
        if op is None:
            raise InputError(refused(current.op) or f"unknown kernel operator {current.op!r}; "
                                                     f"registered: {', '.join(sorted(known))}")
        if op.arity != len(args):
            raise InputError(_arity_problem(current.op, op.arity, len(args)))
        return Op(current.op, tuple(args), op)

    return fold(node, lambda leaf: leaf, bind)


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
    for node in _walk(parse(formula, operators)):
        if isinstance(node, Op):
            found.setdefault(node.op, node.operator)
    return found


# printing ------------------------------------------------------------------------------------
class _Printer:
    """How the nodes of one tree print: an operator by its grammar symbol, unless another
    operator of the same tree has that symbol too; then both print as calls ``name(...)``,
    which parse back by name.  (The registry gives every symbol to one operator, so trees
    parsed from it never meet this; a tree built from a hand-made mapping may.)"""

    def __init__(self, tree: Formula) -> None:
        claims = _claims({node.op: node.operator for node in _walk(tree) if isinstance(node, Op)})
        self.contested = {symbol for symbol, names in claims.items() if len(names) > 1}

    def symbol(self, node: Op) -> str:
        """The grammar symbol ``node`` is printed with ("" for the call form ``name(...)``)."""
        symbol = _grammar_symbol(node.operator)
        return "" if symbol in self.contested else symbol

    def prec(self, node: Formula) -> int:
        if isinstance(node, Leaf):
            return _ATOM_PREC
        symbol = self.symbol(node)
        if symbol == _PREFIX:
            return _UNARY_PREC
        return _INFIX[symbol][0] if symbol else _ATOM_PREC

    def pieces(self, node: Op) -> list:
        """How ``node`` prints: strings and operand nodes, parenthesised where the grammar needs it."""
        symbol, prec = self.symbol(node), self.prec(node)
        if symbol == _PREFIX:
            return [symbol] + _wrapped(node.args[0], self.prec(node.args[0]) < _UNARY_PREC)
        if symbol:
            left, right = node.args
            right_assoc = _INFIX[symbol][1]
            return (_wrapped(left, self.prec(left) < prec or (right_assoc and self.prec(left) == prec))
                    + [f" {symbol} "]
                    + _wrapped(right, self.prec(right) < prec or (not right_assoc and self.prec(right) == prec)))
        out: list = [f"{node.op}("]
        for i, arg in enumerate(node.args):
            out += [", "] * (i > 0) + [arg]
        return out + [")"]


def _wrapped(node: Formula, paren: bool) -> list:
    return ["(", node, ")"] if paren else [node]


def to_string(node: str | Formula, names: Sequence[str] | None = None,
              operators: Mapping[str, KernelOperator] | None = None) -> str:
    """Print a formula with the fewest parentheses that parse back to the same tree.

    An operator with a grammar symbol (its ``symbol`` field: ``&``, ``|``, ``^``, ``->``,
    ``<->``, ``~``) is printed with it, any other as ``name(f1, ..., fk)``; so is an operator
    whose symbol another operator of the tree has too (the parser refuses a contested symbol).  ``names`` replaces
    the leaves, in left-to-right order (used to print concrete rules); ``operators`` resolves
    a tree whose nodes do not carry their operators yet (see `parse`).
    """
    tree = parse(node, operators)
    pieces = _Printer(tree).pieces
    if names is None:
        return _render(tree, lambda leaf: leaf.name, pieces)
    if len(names) < n_leaves(tree):
        raise InputError(f"the formula has {n_leaves(tree)} leaves but {len(names)} names were given")
    shown = iter(names)
    return _render(tree, lambda leaf: rule_name(str(next(shown))), pieces)


#: what in a column's name would read as the grammar: its symbols, quotes, spaces and line breaks
_NOT_IN_A_NAME = re.compile(r'[~!&|^(),"\s]|->|<-')


def rule_name(name: str) -> str:
    """A column's name as a rule shows it: as written, or in double quotes (a quote or
    backslash in it escaped) when it would read as part of the rule: a column ``a & b`` or
    ``~c`` beside ``g`` would make ``g & ~a & b`` of ``g & ~"a & b"``; so is an operator word
    (``and``) or an empty name."""
    if name and name.lower() not in _WORD_OPS and not _NOT_IN_A_NAME.search(name):
        return name
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


# structure -----------------------------------------------------------------------------------
def leaves(node: Formula) -> list[Leaf]:
    """The leaves in left-to-right order (repeated names are separate leaves)."""
    return [n for n in _walk(node) if isinstance(n, Leaf)]


def n_leaves(node: Formula) -> int:
    return sum(isinstance(n, Leaf) for n in _walk(node))


def dimension(node: str | Formula, n_variables: int) -> int:
    """The feature-space dimension n**L (an exact Python integer)."""
    return int(n_variables) ** n_leaves(parse(node))


def evaluate(node: str | Formula, values: Sequence[np.ndarray],
             operators: Mapping[str, KernelOperator] | None = None) -> np.ndarray:
    """Evaluate the formula on Boolean arrays, one per leaf (left-to-right), broadcasting.

    ``operators`` resolves the operator names of a formula not parsed yet (see `parse`)."""
    node = parse(node, operators)
    n_vals = n_leaves(node)
    if len(values) != n_vals:
        raise InputError(f"formula has {n_vals} leaves, got {len(values)} value arrays")
    given = iter(values)
    return fold(node, lambda leaf: np.asarray(next(given), dtype=bool), _apply_table)


def _apply_table(node: Op, args: list[np.ndarray]) -> np.ndarray:
    """The operator's truth table applied to its operands' Boolean arrays (broadcasting)."""
    table = np.asarray(node.operator.truth_table, dtype=bool)
    index = np.zeros(np.broadcast_shapes(*(a.shape for a in args)), dtype=np.intp)
    for a in args:
        index = (index << 1) | a
    return table[index]
