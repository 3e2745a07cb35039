"""The built-in kernel operators: the literal, NOT and all 16 binary truth tables.

Each operator is defined only by its truth table (row ``r`` = operand values read as a binary
number, first operand most significant).  Its kernel follows from the joint-truth-table rule in
:mod:`interp_propositional.kernels`, so operators registered by other plugins (of any arity) work
the same way.
"""

from __future__ import annotations

from interp import KernelOperator

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

#: the 10 binary operators the reference generator draws from (plus ``not``)
GENERATOR_BINARY = ("and", "or", "xor", "eq", "nand", "nor", "imp", "bimp", "nimp", "nbimp")

_BUILTIN_BY_NAME = {op.name: op for op in BUILTIN_OPERATORS}


def operators() -> dict[str, KernelOperator]:
    """Every registered kernel operator by name (falls back to the built-ins if the registry
    does not have them, e.g. when the plugin is disabled)."""
    import interp

    found = dict(_BUILTIN_BY_NAME)
    try:
        found.update(dict(interp.get_registry().kernel_operators.items()))
    except Exception:  # noqa: BLE001 - a broken registry must not break the kernels
        pass
    return found
