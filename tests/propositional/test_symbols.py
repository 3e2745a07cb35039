"""Operator symbols under third-party operators: whatever third parties claim, a printed formula
parses back to the same tree (``parse(to_string(f)) == f``), tested on random formulas over
every registered operator."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import interp
from interp import KernelOperator
from interp.registry import PluginWarning
from interp.testing import registered
from interp_propositional.formula import Leaf, Op, evaluate, n_leaves, parse, to_string

AND, OR, XOR, XNOR = (0, 0, 0, 1), (0, 1, 1, 1), (0, 1, 1, 0), (1, 0, 0, 1)
MAJ = (0, 0, 0, 1, 0, 1, 1, 1)


class Operators:
    """A third-party plugin registering the given operators."""

    def __init__(self, *ops: KernelOperator):
        self.ops = ops

    @interp.hookimpl
    def register_kernel_operators(self, register):
        for op in self.ops:
            register(op)


#: with the built-ins loaded: third parties claim built-in symbols (refused) and add call-only ones
BESIDE_BUILTINS = {
    "first": Operators(KernelOperator("myxor", 2, XNOR, symbol="^"), KernelOperator("maj", 3, MAJ)),
    "second": Operators(KernelOperator("myand", 2, AND, symbol="&"), KernelOperator("flip", 1, (1, 0), symbol="~"),
                        KernelOperator("myimp", 2, (1, 1, 0, 1), symbol="->")),
}
#: without them: both claim '&' (refused for both), each has one symbol of its own
WITHOUT_BUILTINS = {
    "first": Operators(KernelOperator("conj", 2, AND, symbol="&"), KernelOperator("disj", 2, OR, symbol="|"),
                       KernelOperator("maj", 3, MAJ)),
    "second": Operators(KernelOperator("conj2", 2, AND, symbol="&"), KernelOperator("neg", 1, (1, 0), symbol="~"),
                        KernelOperator("ex", 2, XOR, symbol="^")),
}
LEAVES = st.sampled_from(["a", "b", "c", "x1", "vote4=y", "_z"]).map(Leaf)


def formulas(ops: dict[str, KernelOperator]):
    """Random trees over every operator in ``ops`` (any arity), up to 14 leaves."""
    def extend(children):
        return st.one_of([st.lists(children, min_size=op.arity, max_size=op.arity).map(
            lambda args, name=name: Op(name, tuple(args))) for name, op in sorted(ops.items())])

    return st.recursive(LEAVES, extend, max_leaves=14)


@pytest.fixture(params=["beside-builtins", "without-builtins"])
def setting(request, monkeypatch):
    """The third-party plugins registered in both orders; yields the registry's operators."""
    if request.param == "without-builtins":
        monkeypatch.setenv("INTERP_DISABLE_PLUGINS", "propositional")
        interp.registry.reset()
    plugins = BESIDE_BUILTINS if request.param == "beside-builtins" else WITHOUT_BUILTINS
    yield request.param, plugins


@pytest.mark.parametrize("order", ["first-then-second", "second-then-first"])
def test_a_printed_formula_parses_back_to_the_same_tree(setting, order):
    kind, plugins = setting
    names = list(plugins) if order == "first-then-second" else list(plugins)[::-1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PluginWarning)
        with registered(plugins[names[0]], names[0]), registered(plugins[names[1]], names[1]):
            ops = dict(interp.get_registry().kernel_operators)

            @settings(max_examples=150, deadline=None)
            @given(formulas(ops))
            def round_trip(raw):
                tree = parse(raw)
                text = to_string(tree)
                again = parse(text)
                assert again == tree, text
                assert all(a.operator is b.operator for a, b in zip(_ops(again), _ops(tree)))
                values = list(np.random.default_rng(0).random((n_leaves(tree), 8)) < 0.5)
                np.testing.assert_array_equal(evaluate(again, values), evaluate(tree, values))

            round_trip()


def _ops(tree):
    stack, out = [tree], []
    while stack:
        node = stack.pop()
        if isinstance(node, Op):
            out.append(node)
            stack.extend(node.args)
    return out


@pytest.mark.parametrize("order", ["first-then-second", "second-then-first"])
def test_who_has_which_symbol_does_not_depend_on_the_order(setting, order):
    kind, plugins = setting
    names = list(plugins) if order == "first-then-second" else list(plugins)[::-1]
    with registered(plugins[names[0]], names[0]), registered(plugins[names[1]], names[1]):
        with pytest.warns(PluginWarning):
            ops = interp.get_registry().kernel_operators
        symbols = {op.symbol: name for name, op in ops.items() if op.symbol}
    if kind == "beside-builtins":
        assert symbols == {"~": "not", "&": "and", "^": "xor", "|": "or", "<->": "eq", "->": "imp"}
    else:
        assert symbols == {"|": "disj", "~": "neg", "^": "ex"}
