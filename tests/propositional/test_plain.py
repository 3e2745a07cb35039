"""Rules in their plain form: equal to the kernel's feature on every row the encoding allows
(checked by enumerating every assignment), never longer, and plainer where it can be."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import interp
from interp.preprocessing import ColumnLogic
from interp.testing import registered
from interp.runner import run_method
from interp_propositional import PropositionalSVC, top_rules
from interp_propositional.formula import evaluate, leaves, n_leaves, parse, to_string
from interp_propositional.generator import random_formula
from interp_propositional.plain import MAX_VARIABLES, plain_rule


def all_rows(n: int) -> np.ndarray:
    return np.array(list(itertools.product((False, True), repeat=n)), dtype=bool)


def values(node, variables, rows: np.ndarray) -> np.ndarray:
    return evaluate(node, [rows[:, v] for v in variables])


def text(formula, assign, logic=None, names="abcdefgh") -> str:
    return plain_rule(parse(formula), assign, logic).text(names)


@pytest.mark.parametrize("formula, assign, logic, expected", [
    ("(~a <-> ~b <-> ~c) ^ d", (0, 1, 0, 2), None, "~b ^ c"),  # a repeated variable cancels
    ("a & ~b", (0, 1), ColumnLogic(exclusive=((0, 1),)), "a"),  # two levels of one column
    ("nimp(a, b)", (0, 1), None, "a & ~b"),  # as many literals, in words of a sentence
    ("a -> b", (0, 1), None, "a -> b"),  # already plain: kept in the formula's shape
    ("a & ~b", (0, 1), ColumnLogic(implies=((0, 1),)), "a & ~b"),  # false on every possible row: kept
    ("a | b", (0, 1), ColumnLogic(implies=((0, 1),)), "b"),  # a implies b
    ("left(a, b) & c", (0, 1, 2), None, "a & c"),  # an operand that does not count
    ("a ^ b", (0, 0), None, "a ^ a"),  # constant (false) everywhere: kept
    ("~~a ^ b", (0, 1), None, "a ^ b"),  # a double negation
    ("nand(a, b)", (0, 1), None, "~a | ~b"),
    ("~(a & b)", (0, 1), None, "~(a & b)"),  # as plain as "~a | ~b", with one operator fewer
])
def test_examples(formula, assign, logic, expected):
    assert text(formula, assign, logic) == expected


def test_a_rule_over_too_many_variables_is_kept_as_it_stands():
    def split_on_last(k: int) -> str:  # (x0 & ... & x{k-1}) | (x0 & ... & ~x{k-1}): x0 & ... & x{k-2}
        head = " & ".join(f"x{i}" for i in range(k - 1))
        return f"({head} & x{k - 1}) | ({head} & ~x{k - 1})"

    names = [f"x{i}" for i in range(MAX_VARIABLES + 1)]
    fits = split_on_last(MAX_VARIABLES)
    assign = tuple(range(MAX_VARIABLES)) * 2
    assert text(fits, assign, names=names) == " & ".join(names[:MAX_VARIABLES - 1])
    beyond = split_on_last(MAX_VARIABLES + 1)
    assert text(beyond, tuple(range(MAX_VARIABLES + 1)) * 2, names=names) == to_string(beyond)


def test_an_operator_of_another_plugin_is_rewritten_by_its_truth_table():
    class Majority:
        @interp.hookimpl
        def register_kernel_operators(self, register):
            register(interp.KernelOperator("maj", 3, (0, 0, 0, 1, 0, 1, 1, 1)))

    with registered(Majority(), "majority-plain"):
        node = parse("maj(a, b, c) | d")
    assert text(node, (0, 0, 1, 2)) == "a | c"  # maj(a, a, b) is a
    assert text(node, (0, 1, 2, 3)) == "maj(a, b, c) | d"  # already plain: six literals as a sum of products


def random_logic(rng, n: int) -> ColumnLogic:
    """A few groups of exclusive columns and implications among n columns, as an encoding has."""
    order = rng.permutation(n)
    cut = rng.integers(0, n + 1)
    exclusive = (tuple(int(c) for c in order[:cut]),) if cut > 1 else ()
    rest = [int(c) for c in order[cut:]]
    implies = tuple((a, b) for i, a in enumerate(rest) for b in rest[:i])  # a chain of thresholds
    return ColumnLogic(exclusive, implies)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 5), st.booleans())
def test_the_plain_form_agrees_on_every_possible_row_and_is_never_longer(seed, n, constrained):
    rng = np.random.default_rng(seed)
    node = random_formula(p=0.4, random_state=seed, as_string=False)
    assign = tuple(int(v) for v in rng.integers(0, n, size=n_leaves(node)))
    logic = random_logic(rng, n) if constrained else ColumnLogic()
    plain = plain_rule(node, assign, logic)
    rows = all_rows(n)
    possible = logic.possible(range(n), rows)
    assert np.array_equal(values(plain.node, plain.variables, rows)[possible],
                          values(node, assign, rows)[possible])
    assert n_leaves(plain.node) <= n_leaves(node) and len(plain.variables) == len(leaves(plain.node))


def test_rules_keep_their_weights_and_the_feature_they_read():
    rng = np.random.default_rng(1)
    X = np.zeros((60, 4))
    X[np.arange(60), rng.integers(0, 3, 60)] = 1  # columns 0-2: the levels of one column
    X[:, 3] = rng.random(60) < 0.5
    coef = rng.normal(size=60)
    logic = ColumnLogic(exclusive=((0, 1, 2),))
    names = ["c=x", "c=y", "c=z", "d"]
    plain = top_rules("a & ~b", X, coef, names, top=16, logic=logic).rules
    as_given = top_rules("a & ~b", X, coef, names, top=16).rules
    assert [(r.weight, r.feature, r.variables) for r in plain] == [(r.weight, r.feature, r.variables)
                                                                  for r in as_given]
    assert all(r.rule == r.feature for r in as_given)
    shortened = {r.feature: r.rule for r in plain if r.rule != r.feature}
    assert shortened and all(rule == feature.split(" & ")[0] for feature, rule in shortened.items())
    assert all(f.split(" & ~")[0].startswith("c=") and f.split(" & ~")[1].startswith("c=") for f in shortened)


def test_the_run_reads_one_hot_levels_as_exclusive():
    data = interp.load_dataset("house-votes-84")
    assert len(data.one_hot) == 16 and all(len(g) == 3 for g in data.one_hot)
    assert data.column_logic().possible(range(data.n_features), data.X.astype(bool)).all()
    result = run_method("propositional", data, {"formula": "a & ~b", "cv": 2, "top": 5},
                        interp.RunContext(seed=0, quiet=True))
    rules = result.payload["rules"]
    assert all(set(r) == {"rule", "weight", "supports", "feature"} for r in rules)
    for r in rules:
        left, right = r["feature"].split(" & ~")
        same_column = left.split("=")[0] == right.split("=")[0]
        assert r["rule"] == (left if same_column else r["feature"])


def test_a_model_with_its_own_binarizer_reads_its_columns_logic():
    import pandas as pd

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"grade": rng.integers(1, 4, 200).astype(float), "size": rng.normal(size=200)})
    y = (frame["grade"] == 1) | (frame["size"] > 1)
    est = PropositionalSVC(formula="a & ~b", binarize="auto").fit(frame, y)
    rules = est.explain(top=30).rules
    assert any(r.rule != r.feature for r in rules)
    logic = est.binarizer_.column_logic()
    names = list(est.binarizer_.get_feature_names_out())
    rows = all_rows(len(names))
    possible = logic.possible(range(len(names)), rows)
    for r in rules:
        assign = [names.index(v) for v in r.variables]
        plain = plain_rule(parse("a & ~b"), assign, logic)
        assert plain.text(names) == r.rule
        assert np.array_equal(values(plain.node, plain.variables, rows)[possible],
                              values(parse("a & ~b"), assign, rows)[possible])


def test_a_name_that_reads_as_the_rule_is_quoted():
    """0/1 columns named ``a & b`` and ``~c`` beside ``g``: the rule reads ``g & ~"a & b" &
    "~c"``, not ``g & ~a & b & ~c`` (another rule); plain names stay as written."""
    from interp_propositional.formula import rule_name, to_string

    shown = to_string("x & ~y & z", ["g", "a & b", "~c"])
    assert shown == 'g & ~"a & b" & "~c"'
    assert to_string("x | y", ["vote=y", "age>30.5"]) == "vote=y | age>30.5"
    for name, quoted in [("x >= 0", '"x >= 0"'), ("and", '"and"'), ("", '""'), ('say "hi"', r'"say \"hi\""'),
                         ("a\\b", "a\\b"), ('a \\b', r'"a \\b"'), ("p->q", '"p->q"'), ("(x)", '"(x)"')]:
        assert rule_name(name) == quoted
