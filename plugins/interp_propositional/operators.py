"""The built-in kernel operators: the literal, NOT and all 16 binary truth tables.

Each operator is defined only by its truth table (row ``r`` = operand values read as a binary
number, first operand most significant).  Its kernel follows from the joint-truth-table rule
(``interp.KernelOperator.combine``), so operators registered by other plugins (of any arity) work
the same way.  ``symbol`` is the operator's infix symbol in the formula grammar: the parser reads
``a & b`` as the operator whose symbol is ``&`` and the printer writes it back so.

The registry is the one source of operators: formulas name operators, and a name is resolved
through the registry when a formula is parsed (a fitted model keeps what it resolved).
"""

from __future__ import annotations

from typing import Mapping

from interp import InputError, KernelOperator

# name, truth table for rows (0,0) (0,1) (1,0) (1,1), infix symbol, description
_BINARY = (
    ("false", (0, 0, 0, 0), "", "constant false (ignores both operands)"),
    ("and", (0, 0, 0, 1), "&", "conjunction a & b"),
    ("nimp", (0, 0, 1, 0), "", "non-implication a & ~b, i.e. ~(a -> b)"),
    ("left", (0, 0, 1, 1), "", "projection on the first operand: a"),
    ("nbimp", (0, 1, 0, 0), "", "converse non-implication ~a & b, i.e. ~(b -> a)"),
    ("right", (0, 1, 0, 1), "", "projection on the second operand: b"),
    ("xor", (0, 1, 1, 0), "^", "exclusive or a ^ b"),
    ("or", (0, 1, 1, 1), "|", "disjunction a | b"),
    ("nor", (1, 0, 0, 0), "", "~(a | b)"),
    ("eq", (1, 0, 0, 1), "<->", "equivalence (xnor) a <-> b"),
    ("nright", (1, 0, 1, 0), "", "negated second operand: ~b"),
    ("bimp", (1, 0, 1, 1), "", "converse implication b -> a, i.e. a | ~b"),
    ("nleft", (1, 1, 0, 0), "", "negated first operand: ~a"),
    ("imp", (1, 1, 0, 1), "->", "implication a -> b"),
    ("nand", (1, 1, 1, 0), "", "~(a & b)"),
    ("true", (1, 1, 1, 1), "", "constant true (ignores both operands)"),
)

BUILTIN_OPERATORS: tuple[KernelOperator, ...] = (
    KernelOperator("lit", 1, (0, 1), symbol="", description="identity (the literal kernel <x, z>)"),
    KernelOperator("not", 1, (1, 0), symbol="~", description="negation ~a"),
) + tuple(
    KernelOperator(name, 2, table, symbol=symbol, description=text)
    for name, table, symbol, text in _BINARY
)

#: the 10 binary operators the reference generator draws from, and ``not``
GENERATOR_OPERATORS = ("and", "or", "xor", "eq", "nand", "nor", "imp", "bimp", "nimp", "nbimp", "not")

_BUILTIN_NAMES = frozenset(op.name for op in BUILTIN_OPERATORS)


def operators() -> dict[str, KernelOperator]:
    """Every registered kernel operator by name.

    The registry is the only source: with the plugin disabled the built-ins are absent too, and
    a registry error propagates.  A fitted model does not call this again; it keeps the
    operators its formula uses."""
    import interp

    return dict(interp.get_registry().kernel_operators)


def refused(name: str) -> str | None:
    """Why the registry gave the operator name ``name`` to no plugin (two third parties claim
    it), for the message of a formula that uses it; None when it did not refuse it."""
    import interp

    why = interp.get_registry().kernel_operators.refusal(name)
    return f"operator {name!r} is not available: {why}" if why else None


def generator_operators(third_party: bool = False,
                        known: Mapping[str, KernelOperator] | None = None) -> tuple[KernelOperator, ...]:
    """The operators the random-formula generator draws an inner node from.

    The reference's 10 binary operators and ``not`` (``GENERATOR_OPERATORS``); with
    ``third_party``, also every operator in ``known`` (default: the registry) that is not one
    of this plugin's built-ins, in name order so that a seeded draw is reproducible.
    """
    known = operators() if known is None else known
    missing = [name for name in GENERATOR_OPERATORS if name not in known]
    if missing:
        raise InputError(f"the formula generator needs the operators {', '.join(missing)}, "
                         "which are not registered (is the propositional plugin disabled?)")
    pool = [known[name] for name in GENERATOR_OPERATORS]
    if third_party:
        pool += [known[name] for name in sorted(set(known) - _BUILTIN_NAMES)]
    return tuple(pool)
