"""Propositional and Boolean kernels against brute-force enumeration and exact integers."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import interp
from interp_propositional import (
    BOOLEAN_KINDS,
    BUILTIN_OPERATORS,
    boolean_kernel,
    normalize_kernel,
    parse,
    propositional_kernel,
)
from interp_propositional import kernels as kernels_module
from interp_propositional.formula import Leaf, leaves
from interp_propositional.generator import random_formula

from .propositional_helpers import brute_kernel, random_binary

BINARY = [op for op in BUILTIN_OPERATORS if op.arity == 2]


def test_all_operators_registered_by_truth_table():
    ops = interp.get_registry().kernel_operators
    tables = {ops[op.name].truth_table for op in BINARY}
    assert len(BINARY) == 16 and len(tables) == 16  # all 16 distinct binary truth tables
    assert ops["and"].truth_table == (0, 0, 0, 1)
    assert ops["imp"].truth_table == (1, 1, 0, 1)
    assert ops["bimp"].truth_table == (1, 0, 1, 1)
    assert ops["nimp"].truth_table == (0, 0, 1, 0)
    assert ops["nbimp"].truth_table == (0, 1, 0, 0)
    assert ops["lit"].truth_table == (0, 1) and ops["not"].truth_table == (1, 0)
    assert all(ops[op.name].plugin == "propositional" for op in BUILTIN_OPERATORS)


@pytest.mark.parametrize("op", [op.name for op in BINARY])
def test_every_binary_operator_matches_enumeration(op):
    rng = np.random.default_rng(1)
    X, Z = random_binary(rng, 7, 3), random_binary(rng, 5, 3)
    # composite operands of different shapes, so that an operator and its converse differ
    formula = f"{op}(a & ~b, c)"
    assert np.array_equal(propositional_kernel(formula, X, Z), brute_kernel(formula, X, Z))
    formula = f"{op}(a, b ^ c)"
    assert np.array_equal(propositional_kernel(formula, X, Z), brute_kernel(formula, X, Z))


@pytest.mark.parametrize(
    "formula",
    ["a", "~a", "lit(a)", "~~a", "(a & ~b) | c", "a -> b", "b -> a", "~(a <-> b) & c",
     "nand(a, ~b) ^ c", "(a | b) & (c | d)", "left(a & b, c)", "true(a, b)", "false(a, b) | c"],
)
def test_formulas_match_enumeration_rectangular(formula):
    rng = np.random.default_rng(2)
    X, Z = random_binary(rng, 9, 3), random_binary(rng, 4, 3)
    K = propositional_kernel(formula, X, Z)
    assert K.shape == (9, 4)
    assert np.array_equal(K, brute_kernel(formula, X, Z))
    assert np.array_equal(propositional_kernel(formula, X), brute_kernel(formula, X, X))


def test_known_closed_forms():
    rng = np.random.default_rng(3)
    X = random_binary(rng, 20, 8)
    S = X @ X.T
    assert np.array_equal(propositional_kernel("a", X), S)
    assert np.array_equal(propositional_kernel("a & b & c", X), S**3)  # HPK, not C(s, 3)
    assert np.array_equal(propositional_kernel("~a", X), (1 - X) @ (1 - X).T)
    # literal leaves: IMP equals its converse, NIMP equals NBIMP (notes, section 2)
    assert np.array_equal(propositional_kernel("a -> b", X), propositional_kernel("b -> a", X))
    assert np.array_equal(propositional_kernel("nimp(a, b)", X), propositional_kernel("nbimp(a, b)", X))
    assert not np.array_equal(propositional_kernel("a & b -> c", X), propositional_kernel("c -> a & b", X))


def test_third_party_majority_operator(majority):
    rng = np.random.default_rng(4)
    X, Z = random_binary(rng, 6, 3), random_binary(rng, 5, 3)
    for formula in ["maj(a, b, c)", "maj(a & ~b, c, ~d)", "~maj(a, b | c, d) -> e"]:
        n_l = len(leaves(parse(formula)))
        Xs, Zs = (X, Z) if n_l <= 4 else (X[:, :2], Z[:, :2])
        assert np.array_equal(propositional_kernel(formula, Xs, Zs), brute_kernel(formula, Xs, Zs))
    # majority of literals: all 8 (a,b,c)-assignments x 2 states enumerated by hand
    s = X @ Z.T
    p, q = X.sum(1)[:, None], Z.sum(1)[None, :]
    n = 3
    blocks = {(1, 1): s, (1, 0): p - s, (0, 1): q - s, (0, 0): n - p - q + s}
    want = 0
    for r in itertools.product((0, 1), repeat=3):
        for r2 in itertools.product((0, 1), repeat=3):
            if sum(r) >= 2 and sum(r2) >= 2:
                want = want + np.prod([blocks[(r[j], r2[j])] for j in range(3)], axis=0)
    assert np.array_equal(propositional_kernel("maj(a, b, c)", X, Z), want)


def test_table_path_equals_direct_path(monkeypatch):
    rng = np.random.default_rng(5)
    X, Z = random_binary(rng, 60, 12), random_binary(rng, 45, 12)
    formulas = [random_formula(0.4, 0.7, seed) for seed in range(15)]
    table = [propositional_kernel(f, X, Z, normalize=norm) for f in formulas for norm in (False, True)]
    bools = [boolean_kernel(k, X, Z, normalize=True) for k in BOOLEAN_KINDS]
    monkeypatch.setattr(kernels_module, "_TABLE_LIMIT", 0)
    direct = [propositional_kernel(f, X, Z, normalize=norm) for f in formulas for norm in (False, True)]
    bools_direct = [boolean_kernel(k, X, Z, normalize=True) for k in BOOLEAN_KINDS]
    for t, d in zip(table + bools, direct + bools_direct):
        np.testing.assert_allclose(t, d, rtol=1e-14, atol=0)


# exact reference with Python integers: the closed forms of the notes (with subtraction) -------
def _closed_form(code, A, B):
    s, p, q, N = A
    t, u, v, M = B
    sb, tb = N - p - q + s, M - u - v + t
    table = {
        "0000": 0, "0001": sb * tb, "0010": sb * t, "0011": M * sb, "0100": s * tb, "0101": N * tb,
        "0110": s * tb + sb * t + (p - s) * (v - t) + (q - s) * (u - t),
        "0111": N * M - p * u - q * v + s * t, "1000": s * t,
        "1001": s * t + sb * tb + (p - s) * (u - t) + (q - s) * (v - t),
        "1010": N * t, "1011": N * M - p * (M - u) - q * (M - v) + s * tb, "1100": M * s,
        "1101": N * M - (N - p) * u - (N - q) * v + sb * t,
        "1110": N * M - (N - p) * (M - u) - (N - q) * (M - v) + sb * tb, "1111": N * M,
    }
    return table[code]


def _exact(node, s, p, q, n):
    """(k(x,z), k(x,x), k(z,z), N) with Python integers, composed from the closed forms."""
    ops = interp.get_registry().kernel_operators
    if isinstance(node, Leaf):
        return s, p, q, n
    if node.op == "not":
        s, p, q, N = _exact(node.args[0], s, p, q, n)
        return N - p - q + s, N - p, N - q, N
    if node.op == "lit":
        return _exact(node.args[0], s, p, q, n)
    A = _exact(node.args[0], s, p, q, n)
    B = _exact(node.args[1], s, p, q, n)
    tt = ops[node.op].truth_table  # rows (0,0), (0,1), (1,0), (1,1)
    code = f"{tt[3]}{tt[2]}{tt[1]}{tt[0]}"
    k = _closed_form(code, A, B)
    true_rows = [(ra, rb) for ra in (0, 1) for rb in (0, 1) if tt[2 * ra + rb]]

    def diag(pa, Na, pb, Nb):
        c_a = {1: pa, 0: Na - pa}
        c_b = {1: pb, 0: Nb - pb}
        return sum(c_a[ra] * c_b[rb] for ra, rb in true_rows)

    return k, diag(A[1], A[3], B[1], B[3]), diag(A[2], A[3], B[2], B[3]), A[3] * B[3]


def test_closed_forms_of_the_notes_match_enumeration():
    """The integer reference used below is itself right: all 16 tables, composite operands."""
    rng = np.random.default_rng(6)
    X, Z = random_binary(rng, 6, 3), random_binary(rng, 5, 3)
    for op in BINARY:
        node = parse(f"{op.name}((a & ~b) | c, a ^ b)")  # the operands of the notes' check
        want = brute_kernel(node, X, Z)
        got = np.array([[_exact(node, int(x @ z), int(x.sum()), int(z.sum()), 3)[0] for z in Z] for x in X])
        assert np.array_equal(got, want), op.name
        assert np.array_equal(propositional_kernel(node, X, Z), want), op.name


def test_precision_far_beyond_2_53():
    """n = 240 one-hot variables: n^L up to 240^12 ~ 4e28; relative error <= 1e-12."""
    rng = np.random.default_rng(7)
    m, groups, levels = 12, 60, 4
    X = np.zeros((m, groups * levels))
    X[np.arange(m)[:, None], np.arange(groups) * levels + rng.integers(0, levels, (m, groups))] = 1
    Z = X[:7].copy()
    Z[:, :8] = 1 - Z[:, :8]  # some rows that are not one-hot
    n = X.shape[1]
    # NOT(~a | ~b | ... ) with L leaves is exactly <x, z>^L
    for L in (6, 10, 12):
        formula = "~(" + " | ".join(f"~x{i}" for i in range(L)) + ")"
        K = propositional_kernel(formula, X, Z)
        exact = (X @ Z.T).astype(np.int64)
        for i, j in [(0, 0), (1, 3), (5, 6), (11, 2)]:
            want = int(exact[i, j]) ** L
            assert abs(K[i, j] - want) <= 1e-12 * want
    # random formulas, against the integer closed forms on a few entries
    worst = 0.0
    for seed in range(40):
        node = parse(random_formula(0.4, 0.7, seed))
        if len(leaves(node)) < 4:
            continue
        K = propositional_kernel(node, X, Z)
        for i, j in [(0, 1), (2, 2), (9, 5), (4, 0)]:
            want = _exact(node, int(X[i] @ Z[j]), int(X[i].sum()), int(Z[j].sum()), n)[0]
            if want:
                worst = max(worst, abs(K[i, j] - want) / want)
            else:
                assert K[i, j] == 0
    assert worst <= 1e-12


def test_normalisation_and_zero_diagonal_convention():
    rng = np.random.default_rng(8)
    X = random_binary(rng, 10, 4)
    X[0] = 0  # k(x, x) = 0 for "a & ~b" on the all-zero and all-one rows
    X[1] = 1
    X[2] = 0  # a duplicate zero row
    K = propositional_kernel("a & ~b", X)
    Kn = propositional_kernel("a & ~b", X, normalize=True)
    d = np.diag(K)
    assert d[0] == 0 and d[1] == 0
    ok = d > 0
    sub = K[np.ix_(ok, ok)] / np.sqrt(np.outer(d[ok], d[ok]))
    np.testing.assert_allclose(Kn[np.ix_(ok, ok)], sub, rtol=1e-14)
    assert np.all(np.diag(Kn) == 1.0)
    for i in np.flatnonzero(~ok):  # zero self-kernel: 1 with an identical row, else 0
        same = (X == X[i]).all(axis=1)
        assert Kn[i].tolist() == same.astype(float).tolist()
    assert Kn[0, 2] == 1.0 and Kn[0, 1] == 0.0
    np.testing.assert_allclose(Kn, normalize_kernel(K, d, d, X, X), rtol=1e-14)
    assert np.linalg.eigvalsh(Kn).min() > -1e-10
    # rectangular normalisation agrees with the square one
    np.testing.assert_allclose(propositional_kernel("a & ~b", X[:4], X[4:], normalize=True), Kn[:4, 4:])


def test_non_binary_input_suggests_the_binarizer():
    with pytest.raises(interp.InputError, match="TabularBinarizer") as info:
        propositional_kernel("a & b", np.array([[0, 1, 2.0], [1, 0, 1]]))
    assert "\n" not in str(info.value)
    with pytest.raises(interp.InputError, match="TabularBinarizer"):
        boolean_kernel("mc", np.array([["a", "b"], ["b", "a"]]))
    with pytest.raises(interp.InputError, match="variables"):
        propositional_kernel("a", np.ones((2, 3)), np.ones((2, 4)))
    with pytest.raises(interp.InputError, match="degrees"):
        boolean_kernel("mc", np.ones((2, 3)), d=2)
    with pytest.raises(interp.InputError, match="unknown Boolean kernel"):
        boolean_kernel("xyz", np.ones((2, 3)))


# Boolean kernels -----------------------------------------------------------------------------
def _boolean_features(kind, X, c, d):
    n = X.shape[1]
    Xb = X.astype(bool)
    var_sets = {k: list(itertools.combinations(range(n), k)) for k in (c, d)}

    def conj(row, cl):  # cl: tuple of (var, sign)
        return all(row[v] == sgn for v, sgn in cl)

    def disj(row, cl):
        return any(row[v] == sgn for v, sgn in cl)

    def literal_sets(k, monotone):
        out = []
        for vs in var_sets[k]:
            for signs in ([(True,) * k] if monotone else itertools.product((True, False), repeat=k)):
                out.append(tuple(zip(vs, signs)))
        return out

    feats = []
    if kind in ("mc", "c"):
        feats = [lambda r, cl=cl: conj(r, cl) for cl in literal_sets(c, kind == "mc")]
    elif kind in ("md", "d"):
        feats = [lambda r, cl=cl: disj(r, cl) for cl in literal_sets(d, kind == "md")]
    elif kind in ("mdnf", "dnf"):
        terms = literal_sets(c, kind == "mdnf")
        feats = [lambda r, ts=ts: any(conj(r, t) for t in ts) for ts in itertools.combinations(terms, d)]
    elif kind in ("mcnf", "cnf"):
        clauses = literal_sets(d, kind == "mcnf")
        feats = [lambda r, cs=cs: all(disj(r, t) for t in cs) for cs in itertools.combinations(clauses, c)]
    return np.array([[f(row) for f in feats] for row in Xb], dtype=np.int64)


@pytest.mark.parametrize(
    "kind, c, d",
    [("mc", 1, 1), ("mc", 3, 1), ("md", 1, 2), ("md", 1, 3), ("mdnf", 2, 2), ("mdnf", 1, 3),
     ("mdnf", 2, 3), ("mcnf", 2, 2), ("mcnf", 3, 1), ("mcnf", 2, 3), ("c", 2, 1), ("c", 3, 1),
     ("d", 1, 2), ("d", 1, 3), ("dnf", 2, 2), ("dnf", 1, 2), ("cnf", 2, 2), ("cnf", 2, 1)],
)
def test_boolean_kernels_match_enumeration(kind, c, d):
    rng = np.random.default_rng(9)
    X, Z = random_binary(rng, 8, 4), random_binary(rng, 5, 4)
    X[0] = 0
    X[1] = 1
    degrees = {name: {"c": c, "d": d}[name] for name in BOOLEAN_KINDS[kind][0]}
    got = boolean_kernel(kind, X, Z, **degrees)
    want = _boolean_features(kind, X, c, d) @ _boolean_features(kind, Z, c, d).T
    assert np.array_equal(got, want)
    Kn = boolean_kernel(kind, X, normalize=True, **degrees)
    K = boolean_kernel(kind, X, **degrees)
    np.testing.assert_allclose(Kn, normalize_kernel(K, np.diag(K), np.diag(K), X, X), rtol=1e-13)


def test_boolean_kernels_exact_for_huge_values():
    rng = np.random.default_rng(10)
    X = random_binary(rng, 6, 200)
    K = boolean_kernel("dnf", X, c=3, d=4)
    x, z = X[1].astype(int), X[4].astype(int)
    n, s, p, q = 200, int(x @ z), int(x.sum()), int(z.sum())
    agree = n - p - q + 2 * s
    big, nc = 2**3 * math.comb(n, 3), math.comb(n, 3)
    want = math.comb(big, 4) - 2 * math.comb(big - nc, 4) + math.comb(big - 2 * nc + math.comb(agree, 3), 4)
    assert abs(K[1, 4] - want) <= 1e-15 * want


def test_random_formulas_give_psd_symmetric_kernels_consistent_with_slices():
    rng = np.random.default_rng(11)
    X = random_binary(rng, 40, 9, density=0.3)
    for seed in range(25):
        formula = random_formula(0.4, 0.7, seed)
        K = propositional_kernel(formula, X, normalize=True)
        assert np.array_equal(K, K.T)
        assert np.linalg.eigvalsh(K).min() > -1e-9
        np.testing.assert_array_equal(propositional_kernel(formula, X[:13], X[13:], normalize=True), K[:13, 13:])


def test_kernel_composes_through_the_operators_combine():
    """A subclass that overrides combine with a closed form is what the kernel uses."""
    from interp.testing import registered

    calls = []

    class ClosedAnd(interp.KernelOperator):
        """Conjunction with the closed form of its joint-state counts."""

        name, arity, truth_table = "cand", 2, (0, 0, 0, 1)

        def combine(self, blocks):
            (A00, A01), (A10, A11) = blocks[0]
            (B00, B01), (B10, B11) = blocks[1]
            calls.append(self.name)
            both = A11 * B11
            at_x = (A11 + A10) * (B11 + B10) - both
            at_z = (A11 + A01) * (B11 + B01) - both
            total = (A00 + A01 + A10 + A11) * (B00 + B01 + B10 + B11)
            return [[total - both - at_x - at_z, at_z], [at_x, both]]

    class Plugin:
        @interp.hookimpl
        def register_kernel_operators(self, register):
            register(ClosedAnd())

    X = random_binary(np.random.default_rng(12), 9, 4)
    with registered(Plugin(), "closed-and"):
        K = propositional_kernel("cand(a, ~b) | c", X)
    assert calls and np.array_equal(K, propositional_kernel("(a & ~b) | c", X))
