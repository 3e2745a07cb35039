"""Radius-margin ratio, the random generator and kernel selection."""

from __future__ import annotations

import numpy as np
import pytest

import interp
from interp_propositional import (
    parse,
    propositional_kernel,
    radius,
    radius_margin_ratio,
    random_formula,
    select_kernel,
)
from interp_propositional.formula import Op
from interp_propositional.generator import formula_stats
from interp_propositional.selection import hull_distance

from .propositional_helpers import brute_kernel, random_binary


@pytest.fixture(scope="module")
def toy():
    rng = np.random.default_rng(0)
    X = random_binary(rng, 30, 6)
    y = ((X[:, 0] > 0) & (X[:, 1] < 1)) | (X[:, 2] > 0)
    return X, y.astype(int)


@pytest.mark.parametrize("formula", ["(a & ~b) | c", "a", "a ^ b"])
def test_svm_solver_matches_scipy_slsqp(toy, formula):
    X, y = toy
    K = propositional_kernel(formula, X, normalize=True)
    a = radius_margin_ratio(K, y)
    b = radius_margin_ratio(K, y, solver="slsqp")
    c = radius_margin_ratio(K, y, solver="pgd")
    for key in ("radius", "margin", "ratio"):
        if key == "ratio" and not np.isfinite(a[key]):  # hulls touch: scipy gets m ~ 1e-7
            assert b["margin"] < 1e-5 and c["margin"] < 1e-5
            continue
        assert a[key] == pytest.approx(b[key], rel=1e-5, abs=1e-6), key
        assert c[key] == pytest.approx(b[key], rel=1e-5, abs=1e-6), key


def test_radius_and_margin_on_hand_made_geometry():
    # points 0, 1, 3 on a line (K = x x^T): the enclosing ball has radius 1.5
    x = np.array([[0.0], [1.0], [3.0]])
    K = x @ x.T
    for solver in ("pgd", "slsqp", "svm"):  # svm falls back (diagonal not constant)
        assert radius(K, solver=solver) == pytest.approx(1.5, rel=1e-6)
    # classes {0, 1} and {3}: hull distance 2
    assert hull_distance(K, [0, 0, 1]) == pytest.approx(2.0, rel=1e-6)
    assert hull_distance(K, [0, 0, 1], solver="slsqp") == pytest.approx(2.0, rel=1e-6)
    # interleaved classes: the hulls intersect, the ratio is infinite
    r = radius_margin_ratio(K, [0, 1, 0])
    assert r["margin"] == pytest.approx(0.0, abs=1e-6) and r["ratio"] == float("inf")


def test_conflicting_duplicates_are_left_out(toy):
    X, y = toy
    Xd = np.vstack([X, X[:1]])
    yd = np.r_[y, 1 - y[0]]
    K = propositional_kernel("(a & ~b) | c", Xd, normalize=True)
    assert radius_margin_ratio(K, yd)["ratio"] == float("inf")
    r = radius_margin_ratio(K, yd, X=Xd)
    assert r["n_conflicts"] == int((Xd == X[0]).all(axis=1).sum()) >= 2 and np.isfinite(r["ratio"])


def test_generator_statistics_match_the_reference():
    rng = np.random.RandomState(12345)
    stats = formula_stats([random_formula(0.4, 0.7, rng) for _ in range(3000)])
    # reference (notes, 5000 draws): mean 3.42, median 3, 90th pct 5, 99th pct 8
    assert 3.2 < stats["mean"] < 3.65 and stats["median"] == 3 and 4 <= stats["p90"] <= 6
    stats = formula_stats([random_formula(0.2, 0.7, rng) for _ in range(3000)])
    assert 2.45 < stats["mean"] < 2.75 and stats["median"] == 2  # reference 2.59
    assert random_formula(0.4, 0.7, 7) == random_formula(0.4, 0.7, 7)
    with pytest.raises(interp.InputError):
        random_formula(1.5, 0.7)


def test_select_kernel_ranks_by_ratio(toy):
    X, y = toy
    target = "(a & ~b) | c"
    cands = ["a", "a ^ b", target, "nor(a, b)"]
    sel = select_kernel(X, y, candidates=cands)
    assert sorted(sel.formulas) == sorted(cands) and sel.ratios == sorted(sel.ratios)
    for f, r in zip(sel.formulas, sel.ratios):
        K = propositional_kernel(f, X, normalize=True)
        assert r == pytest.approx(radius_margin_ratio(K, y, X=X)["ratio"], rel=1e-12)
    assert sel.formulas.index(target) < sel.formulas.index("a")  # target beats linear
    seen = []
    with interp.progress.on_progress(lambda desc, done, total: seen.append((desc, done, total))):
        a = select_kernel(X, y, n_candidates=8, random_state=3)
    b = select_kernel(X, y, n_candidates=8, random_state=3, n_jobs=2)
    assert a.formulas == b.formulas and np.allclose(a.ratios, b.ratios)
    assert len(a.formulas) == 8 and seen[-1] == ("radius-margin", 8, 8)


def test_conflicting_duplicate_rows_are_found_for_any_label_type():
    from interp_propositional.selection import _conflicts

    X = np.array([[1, 0], [1, 0], [0, 1], [0, 1], [1, 1]])
    for y in (np.array(["dem", "rep", "dem", "dem", "rep"]), np.array([-1.0, 1.0, 1.0, 1.0, -1.0])):
        np.testing.assert_array_equal(_conflicts(X, y), [True, True, False, False, False])


def _nodes(node):
    if isinstance(node, Op):
        yield node
        for arg in node.args:
            yield from _nodes(arg)


def test_third_party_operators_are_drawn_only_when_opted_in(majority):
    from interp_propositional import generator_operators

    reference = generator_operators()
    assert [op.name for op in reference] == ["and", "or", "xor", "eq", "nand", "nor", "imp", "bimp",
                                             "nimp", "nbimp", "not"]
    extended = generator_operators(third_party=True)
    assert extended[:11] == reference and [op.name for op in extended[11:]] == ["maj"]
    plain = [random_formula(0.4, 0.7, seed) for seed in range(200)]
    drawn = [random_formula(0.4, 0.7, seed, operators=extended) for seed in range(200)]
    assert not any("maj(" in f for f in plain)
    with_maj = [f for f in drawn if "maj(" in f]
    assert len(with_maj) > 10
    for f in with_maj:  # a drawn maj node has three operands
        assert all(len(node.args) == 3 for node in _nodes(parse(f)) if node.op == "maj"), f
    # the default draw is the reference generator's, unchanged by the registered operator
    assert plain == [random_formula(0.4, 0.7, seed, operators=reference) for seed in range(200)]


def test_selection_with_third_party_operators_scores_their_exact_kernels(majority):
    rng = np.random.default_rng(1)
    X = random_binary(rng, 12, 3)
    y = (X[:, 0] + X[:, 1] + X[:, 2] >= 2).astype(int)
    sel = select_kernel(X, y, n_candidates=10, max_leaves=5, random_state=3, third_party_operators=True)
    assert any("maj(" in f for f in sel.formulas) and "maj" in sel.operators
    for f in sel.formulas:
        assert np.array_equal(propositional_kernel(f, X), brute_kernel(f, X, X)), f
    plain = select_kernel(X, y, n_candidates=10, max_leaves=5, random_state=3)
    assert not any("maj(" in f for f in plain.formulas) and "maj" not in plain.operators
