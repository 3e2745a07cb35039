"""The formula parser: grammar, precedence, printing, errors with a caret."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import interp
from interp_propositional import FormulaError, Leaf, Op, evaluate, leaves, parse, to_string
from interp_propositional.generator import random_formula

a, b, c, d = (Leaf(x) for x in "abcd")


@pytest.mark.parametrize(
    "text, tree",
    [
        ("a & b | c", Op("or", (Op("and", (a, b)), c))),
        ("a | b & c", Op("or", (a, Op("and", (b, c))))),
        ("a ^ b & c", Op("xor", (a, Op("and", (b, c))))),
        ("a | b ^ c", Op("or", (a, Op("xor", (b, c))))),
        ("a -> b | c", Op("imp", (a, Op("or", (b, c))))),
        ("a -> b -> c", Op("imp", (a, Op("imp", (b, c))))),
        ("a <-> b -> c", Op("eq", (a, Op("imp", (b, c))))),
        ("a <-> b <-> c", Op("eq", (Op("eq", (a, b)), c))),
        ("~a & b", Op("and", (Op("not", (a,)), b))),
        ("~(a & b)", Op("not", (Op("and", (a, b)),))),
        ("not a and b or c", Op("or", (Op("and", (Op("not", (a,)), b)), c))),
        ("!!a", Op("not", (Op("not", (a,)),))),
        ("nand(a, b) | nor(c, d)", Op("or", (Op("nand", (a, b)), Op("nor", (c, d))))),
        ("and(a, or(b, c))", Op("and", (a, Op("or", (b, c))))),
        ("lit(a)", Op("lit", (a,))),
        ("vote4=y & ~vote14=n", Op("and", (Leaf("vote4=y"), Op("not", (Leaf("vote14=n"),))))),
    ],
)
def test_precedence_and_calls(text, tree):
    assert parse(text) == tree
    assert parse(to_string(tree)) == tree


@pytest.mark.parametrize(
    "text, position, words",
    [
        ("a & ", 4, "expected a variable"),
        ("a & (b | c", 10, "expected ')'"),
        ("a b", 2, "unexpected 'b'"),
        ("a $ b", 2, "unexpected character"),
        ("foo(a, b)", 0, "unknown operator 'foo'"),
        ("nand(a)", 0, "takes 2 operands, got 1"),
        ("xor(a, b, c)", 0, "takes 2 operands, got 3"),
        ("", 0, "empty formula"),
        ("(a & b))", 7, "unexpected ')'"),
        ("a -> ", 5, "expected a variable"),
    ],
)
def test_errors_point_at_the_position(text, position, words):
    with pytest.raises(FormulaError) as info:
        parse(text)
    err = info.value
    assert isinstance(err, interp.InputError)
    assert err.position == position
    first, shown, caret = str(err).splitlines()
    assert words in first and f"position {position}" in first
    assert shown.strip() == text.strip()
    assert caret.index("^") - 4 == position  # caret under the offending character


def test_no_eval():
    # Python syntax is not accepted and nothing is evaluated: names are only names
    for text in ["__import__('os')", "1 + 1", "lambda: 0", "a[0]"]:
        with pytest.raises(FormulaError):
            parse(text)
    assert parse("os.system") == Leaf("os.system")


def test_registered_operator_of_arity_three_is_callable(majority):
    tree = parse("maj(a, ~b, c & d)")
    assert tree == Op("maj", (a, Op("not", (b,)), Op("and", (c, d))))
    with pytest.raises(FormulaError, match="takes 3 operands"):
        parse("maj(a, b)")


def test_unknown_without_plugin():
    with pytest.raises(FormulaError, match="unknown operator 'maj'"):
        parse("maj(a, b, c)")


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6))
def test_random_formulas_round_trip_and_evaluate(seed):
    text = random_formula(0.3, 0.6, seed)
    tree = parse(text)
    assert to_string(tree) == text
    assert parse(to_string(tree)) == tree
    # the Boolean function agrees with Python's own operators on every assignment
    L = len(leaves(tree))
    grid = np.array(np.meshgrid(*[[False, True]] * L, indexing="ij")).reshape(L, -1)
    got = evaluate(tree, list(grid))

    py = {"and": lambda x, y: x and y, "or": lambda x, y: x or y, "xor": lambda x, y: x != y,
          "eq": lambda x, y: x == y, "nand": lambda x, y: not (x and y), "nor": lambda x, y: not (x or y),
          "imp": lambda x, y: (not x) or y, "bimp": lambda x, y: x or (not y),
          "nimp": lambda x, y: x and not y, "nbimp": lambda x, y: (not x) and y}

    def ev(node, vals):
        if isinstance(node, Leaf):
            return vals.pop(0)
        if node.op == "not":
            return not ev(node.args[0], vals)
        left = ev(node.args[0], vals)
        return py[node.op](left, ev(node.args[1], vals))

    want = [ev(tree, list(col)) for col in grid.T]
    assert got.tolist() == want


def test_symbols_are_read_from_the_operators():
    ops = dict(interp.get_registry().kernel_operators)
    assert {name: ops[name].symbol for name in ("and", "or", "xor", "eq", "imp", "not")} == {
        "and": "&", "or": "|", "xor": "^", "eq": "<->", "imp": "->", "not": "~"}
    assert to_string(parse("xor(a, b) | imp(c, not(d))")) == "a ^ b | (c -> ~d)"
    # another operator claims '^', xor has none: each parses and prints by its own symbol
    myx = interp.KernelOperator("myx", 2, (1, 0, 0, 1), symbol="^")
    custom = {**ops, "xor": interp.KernelOperator("xor", 2, (0, 1, 1, 0)), "myx": myx}
    tree = parse("a ^ b & c", custom)
    assert tree == Op("myx", (a, Op("and", (b, c)))) and tree.operator is myx
    assert to_string(tree) == "a ^ b & c"
    assert to_string(parse("xor(a, b) & c", custom)) == "xor(a, b) & c"
    with pytest.raises(FormulaError, match="no registered operator has the symbol '&'") as info:
        parse("a & b", {k: v for k, v in ops.items() if k != "and"})
    assert info.value.position == 2
    clash = {**ops, "myand": interp.KernelOperator("myand", 2, (0, 0, 0, 1), symbol="&")}
    with pytest.raises(FormulaError, match="'&' is claimed by operators 'and', 'myand'"):
        parse("a & b", clash)


def test_the_registry_is_the_only_source_of_operators(monkeypatch):
    from interp import registry
    from interp_propositional.operators import operators

    monkeypatch.setenv("INTERP_DISABLE_PLUGINS", "propositional")
    registry.reset()
    assert operators() == {}  # no silent fallback to the built-ins
    with pytest.raises(FormulaError, match="no registered operator has the symbol '&'"):
        parse("a & b")
    with pytest.raises(interp.InputError, match="unknown kernel operator 'and'"):
        evaluate(Op("and", (a, b)), [np.array([True]), np.array([False])])

    def broken():
        raise RuntimeError("registry is broken")

    monkeypatch.setattr(interp, "get_registry", broken)
    with pytest.raises(RuntimeError, match="registry is broken"):  # not hidden behind the built-ins
        operators()


def test_a_draw_too_deep_for_recursion_is_an_input_error():
    # p, eta near 1 / 0 make leaves rare: the first operand chain passes Python's recursion
    # limit long before the generator's node budget, which must be what stops the draw
    with pytest.raises(interp.InputError, match="more than 10000 nodes"):
        random_formula(0.999, 0.001, 0)
