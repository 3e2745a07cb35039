"""No formula text crashes the parser, the printer, the evaluator or the kernel: the only outcomes
are a result or an ``InputError``, at any nesting depth and chain length."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import interp
from interp.cli import cli
from interp_propositional import FormulaError, evaluate, n_leaves, parse, propositional_kernel, to_string

from .conftest import MAJ_TABLE
from .propositional_helpers import brute_kernel, random_binary

#: the registry's operators and a third-party 3-ary one, given to the functions explicitly
OPERATORS = {**interp.get_registry().kernel_operators, "maj": interp.KernelOperator("maj", 3, MAJ_TABLE)}
INFIX = ("&", "|", "^", "->", "<->", "and", "or")
PREFIX = ("~", "!", "not ")
X_TINY = np.array([[1.0, 0.0], [0.0, 0.0], [1.0, 1.0]])


def test_formula_error_is_an_input_error_and_pickles():
    assert issubclass(FormulaError, interp.InputError) and issubclass(FormulaError, ValueError)
    import pickle

    with pytest.raises(FormulaError) as info:
        parse("a & (b")
    again = pickle.loads(pickle.dumps(info.value))  # as a joblib or Dask worker sends it back
    assert str(again) == str(info.value) and again.position == info.value.position == 6


def _outcome(text: str) -> None:
    """Parse, print, evaluate and compute the kernel of ``text``; InputError is the only failure."""
    try:
        tree = parse(text, OPERATORS)
    except FormulaError as err:
        first, _shown, caret = str(err).split("\n")  # three lines, the caret under the position
        assert first.startswith("cannot parse formula at position") and caret.strip() == "^"
        return
    printed = to_string(tree)
    assert parse(printed, OPERATORS) == tree
    L = n_leaves(tree)
    rng = np.random.default_rng(L)
    values = [rng.random(4) < 0.5 for _ in range(L)]
    assert evaluate(tree, values).shape == (4,)
    for X in (X_TINY[:, :1], X_TINY):
        try:
            K = propositional_kernel(tree, X, normalize=bool(L % 2))
        except interp.InputError as err:
            assert "dimensions" in str(err) and "\n" not in str(err)  # n^L beyond float64
            continue
        assert K.shape == (3, 3) and np.isfinite(K).all()


_TOKENS = list(INFIX) + list(PREFIX) + ["(", ")", ",", "a", "b", "x_1", "v=2", "nand(", "maj(", "xor(",
                                        "foo(", " ", "\t", "\n", "$", "1", "not", "and", ")("]


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=60), st.lists(st.sampled_from(_TOKENS), max_size=40).map("".join)))
def test_random_strings_parse_or_raise_input_error(text):
    _outcome(text)


@st.composite
def deep_formulas(draw) -> str:
    """A formula built inside-out by thousands of random steps: parentheses, negations, infix
    chains on either side and operator calls (a third-party 3-ary one included)."""
    text = draw(st.sampled_from(["a", "b", "(a & b)", "maj(a, b, c)"]))
    steps = draw(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 10**6)), max_size=12))
    for kind, seed in steps:
        repeat = [1, 10, 300, 1500][seed % 4]
        symbol = INFIX[seed % len(INFIX)]
        if kind == 0:
            text = "(" * repeat + text + ")" * repeat
        elif kind == 1:
            text = PREFIX[seed % 3] * repeat + text
        elif kind == 2:
            text = text + "".join(f" {symbol} x{i}" for i in range(repeat))
        elif kind == 3:
            text = "".join(f"x{i} {symbol} " for i in range(repeat)) + "(" + text + ")"
        else:
            op = ["nand", "maj", "imp", "lit", "not"][seed % 5]
            arity = OPERATORS[op].arity
            text = f"{op}(" + ", ".join([text] + ["c"] * (arity - 1)) + ")"
    if draw(st.booleans()):  # sometimes break it: cut it short or insert a stray token
        cut = draw(st.integers(0, len(text)))
        text = text[:cut] + draw(st.sampled_from(["", ")", "(", " & ", "$", ","])) + text[cut:]
    return text


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deep_formulas())
def test_deep_and_long_formulas_parse_or_raise_input_error(text):
    _outcome(text)


@pytest.mark.parametrize("text", ["(" * 300 + "a" + ")" * 300, "~" * 5000 + "a",
                                  " & ".join(f"x{i}" for i in range(3000))])
def test_the_formulas_of_the_issue_parse_and_print(text):
    tree = parse(text)
    assert parse(to_string(tree)) == tree and hash(parse(to_string(tree))) == hash(tree)
    assert to_string(tree) == ("a" if text.startswith("(") else text)
    assert repr(tree).count("Leaf(") == n_leaves(tree)


def test_trees_compare_hash_and_print_as_dataclasses_do():
    tree = parse("~a & nand(b, c)")
    assert repr(tree) == ("Op(op='and', args=(Op(op='not', args=(Leaf(name='a'),)), "
                          "Op(op='nand', args=(Leaf(name='b'), Leaf(name='c')))))")
    assert tree == parse("(~a) & nand(b, (c))") and tree != parse("~a & nand(c, b)") and tree != parse("a")
    assert len({tree, parse("~a & nand(b, c)"), parse("a")}) == 2


def test_long_chains_keep_the_binary_tree_semantics():
    """A chain is the left-deep (right-deep for ->) binary tree: kernels equal brute force."""
    rng = np.random.default_rng(0)
    X, Z = random_binary(rng, 6, 2), random_binary(rng, 4, 2)
    for symbol in ("&", "|", "^", "->", "<->"):
        chain = f" {symbol} ".join(f"x{i}" for i in range(9))  # 2^9 features
        assert np.array_equal(propositional_kernel(chain, X, Z), brute_kernel(chain, X, Z)), symbol
    # thousands of leaves over one variable: a single feature, brute force is cheap
    X1, Z1 = random_binary(rng, 5, 1), random_binary(rng, 3, 1)
    for symbol in ("&", "|", "^", "<->", "->"):
        chain = f" {symbol} ".join("a" for _ in range(2500))
        assert np.array_equal(propositional_kernel(chain, X1, Z1), brute_kernel(chain, X1, Z1)), symbol
    # 4,000 negations and 2,000 nested groups around a 3-leaf formula
    X3, Z3 = random_binary(rng, 5, 3), random_binary(rng, 4, 3)
    deep = "~" * 4001 + "(" * 2000 + "(a & ~b) | c" + ")" * 2000
    assert np.array_equal(propositional_kernel(deep, X3, Z3), brute_kernel("~((a & ~b) | c)", X3, Z3))


def test_errors_in_long_formulas_stay_three_short_lines():
    text = " & ".join(f"x{i}" for i in range(5000)) + " & (y |\t\n z"
    with pytest.raises(FormulaError) as info:
        parse(text)
    first, shown, caret = str(info.value).split("\n")
    assert "expected ')' to close the '('" in first and info.value.position == len(text)
    assert len(shown) < 100 and shown.strip().startswith("...") and "\t" not in shown
    assert caret.index("^") == len(shown)  # the end of the formula, just after the excerpt
    with pytest.raises(FormulaError, match=r"unknown operator 'yyyyy.*'\.\.\. \(registered"):
        parse("y" * 10_000 + "(a)")


@pytest.mark.parametrize("formula, code, words", [
    ("(" * 300 + "a" + ")" * 300, 0, ""),
    ("~" * 5000 + "a", 0, ""),
    (" & ".join(f"x{i}" for i in range(3000)), 2, "--formula has 3000 leaves"),  # the rules' work bound
    ("(" * 3000 + "a", 2, "expected ')' to close"),
])
def test_cli_never_prints_a_traceback(formula, code, words):
    res = CliRunner().invoke(cli, ["run", "--plugin", "propositional", "--dataset", "house-votes-84", "--quiet",
                                   "--cv", "2", "--top", "1", "--formula", formula])
    assert res.exit_code == code, res.output
    assert "Traceback" not in res.output and words in res.output
    if code == 2 and "parse" not in res.output:
        assert res.output.count("\n") == 1


def test_the_command_line_shows_the_caret_under_the_formula_as_lines():
    """One line naming the problem, then the formula and the caret under the error as lines
    (they printed as one line joined by ``\\x0a``); a control character in the formula is
    shown visibly, never raw."""
    res = CliRunner().invoke(cli, ["run", "--method", "propositional", "--dataset", "house-votes-84", "--quiet",
                                   "--formula", "a &\n& b"])
    assert res.exit_code == 2 and "\\x0a" not in res.stderr
    first, shown, caret = res.stderr.splitlines()
    assert first == "Error: cannot parse formula at position 4: expected a variable, '(' or '~', found '&'"
    assert shown == "    a & & b" and caret == "        ^"
    res = CliRunner().invoke(cli, ["run", "--method", "propositional", "--dataset", "house-votes-84", "--quiet",
                                   "--formula", "a & b\x1b[2J"])
    assert res.exit_code == 2 and "\x1b" not in res.stderr and len(res.stderr.splitlines()) == 3
