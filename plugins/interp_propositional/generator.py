"""The random rule generator of the reference (``generate_formula(n, p, eta)``).

At depth t (root t = 0) a node is a leaf with probability p_t = 1 - p**(eta * t); a leaf is a
literal or its negation with probability 1/2 each.  Otherwise the node is one of 11 choices drawn
uniformly: the 10 binary operators ``and or xor eq nand nor imp bimp nimp nbimp`` or ``not``,
whose operands are generated at depth t + 1.  The root is never a leaf (p_0 = 0).

Opt-in, the choices can include other plugins' operators
(``operators=generator_operators(third_party=True)``): a k-ary operator gets k operands.

Leaves are named a, b, c, ... in left-to-right order (the names do not matter for the kernel).
"""

from __future__ import annotations

import itertools

import numpy as np
from sklearn.utils import check_random_state

from interp import InputError

from .formula import Formula, Leaf, Op, fold, leaves, parse, to_string
from .operators import generator_operators

__all__ = ["random_formula", "leaf_name", "formula_stats"]

_MAX_NODES = 10_000


def leaf_name(i: int) -> str:
    """a, b, ..., z, a1, b1, ..."""
    letter = chr(ord("a") + i % 26)
    return letter if i < 26 else f"{letter}{i // 26}"


def _renamed(node: Formula) -> Formula:
    """The tree with its leaves named a, b, c, ... left to right."""
    counter = itertools.count()
    return fold(node, lambda leaf: Leaf(leaf_name(next(counter))),
                lambda op, args: Op(op.op, tuple(args), op.operator))


def _grow(p: float, eta: float, rng, pool: tuple, negation) -> Formula:
    """Draw a tree node by node, in the order of the recursive definition (a node, then its
    operands left to right), with an explicit stack: a deep draw is an InputError at
    ``_MAX_NODES`` nodes, never a RecursionError.

    ``todo`` holds depths still to draw (int) and operators waiting for their operands; the
    operands of a node are drawn one after another, so they finish in order on ``done``."""
    todo: list = [0]
    done: list[Formula] = []
    size = 0
    while todo:
        item = todo.pop()
        if not isinstance(item, int):
            args = tuple(done[len(done) - item.arity:])
            del done[len(done) - item.arity:]
            done.append(Op(item.name, args, item))
            continue
        size += 1
        if size > _MAX_NODES:
            raise InputError(f"p={p}, eta={eta} make formulas with more than {_MAX_NODES} nodes")
        if rng.random_sample() < 1.0 - p ** (eta * item):
            leaf: Formula = Leaf("x")
            done.append(leaf if rng.random_sample() < 0.5 else Op(negation.name, (leaf,), negation))
            continue
        choice = pool[rng.randint(len(pool))]
        todo.append(choice)
        todo.extend([item + 1] * choice.arity)
    return done[0]


def random_formula(p: float = 0.2, eta: float = 0.5, random_state=None, as_string: bool = True,
                   operators=None):
    """Draw one random formula (string, or parsed tree with ``as_string=False``).

    ``operators``: the ``KernelOperator`` choices of an inner node, drawn uniformly (default:
    the reference's 11, ``generator_operators()``); a negated leaf uses the ``not`` among them
    or the registered one.
    """
    if not 0 < p < 1:
        raise InputError(f"p must lie in (0, 1), got {p}")
    if eta <= 0:
        raise InputError(f"eta must be positive, got {eta}")
    rng = check_random_state(random_state)
    pool = generator_operators() if operators is None else tuple(operators)
    # a negated leaf: the pool's ``not``, else the registered negation (the operator of ``~``)
    negation = next((op for op in pool if op.name == "not"), None) or parse("~a").operator
    node = _renamed(_grow(p, eta, rng, pool, negation))
    return to_string(node) if as_string else node


def formula_stats(formulas) -> dict:
    """Leaf-count statistics of a list of formulas (for comparing with the reference)."""
    counts = np.array([len(leaves(parse(f))) for f in formulas])
    return {
        "mean": float(counts.mean()),
        "median": float(np.median(counts)),
        "p90": float(np.percentile(counts, 90)),
        "p99": float(np.percentile(counts, 99)),
        "max": int(counts.max()),
    }
