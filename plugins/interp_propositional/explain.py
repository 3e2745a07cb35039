"""Readable rules from an SVM trained with a propositional kernel.

The decision function of a kernel SVM is f(x) = sum_F w_F phi_F(x) / |phi(x)| + b (without the
division for an unnormalised kernel), where F runs over the n^L logical features of the
formula (one variable per leaf) and

    w_F = sum_i alpha_i y_i phi_F(x_i) / |phi(x_i)|       (support vectors x_i).

A feature with a large positive weight is a rule that speaks for the positive class, a large
negative weight for the other class.  ``top_rules``:

* enumerates all n^L features when n^L <= ``max_enumerate`` (exact top list);
* otherwise runs a local search over leaf assignments: from ``restarts`` random assignments,
  change one leaf at a time to its best variable (all n tried at once) until no change improves
  the weight, for both signs.  This finds good rules but does not guarantee the best ones.

Features that take identical values on the reference rows (e.g. ``x & y`` and ``y & x``) are
shown once (the first found), and so are near duplicates (`top_rules`: differing on at most
2% of them, e.g. ``fee=y & ~budget=?`` and ``fee=y & ~crime=?``).  Each is shown in its plain form (`.plain`): a minimised formula
that agrees with it on every row the binarizer can produce (``~a <-> ~b <-> ~a`` reads ``~b``).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Mapping, NamedTuple

import numpy as np
from sklearn.utils import check_random_state

from interp import InputError, KernelOperator
from interp.preprocessing import ColumnLogic

from .formula import Formula, evaluate, n_leaves, parse, to_string
from .kernels import check_binary, propositional_kernel_diagonal
from .plain import plain_rule

__all__ = ["Rule", "TopRules", "feature_weights", "top_features", "top_rules", "explain_expansion", "explain_svc",
           "rule_search_work", "most_leaves", "RULE_WORK_LIMIT"]

_CHUNK = 2**22  # booleans evaluated at once
_MAX_SWEEPS = 50  # passes over the leaves of one local-search restart
#: the local search evaluates a formula of L leaves about L times per sweep and restart, and each
#: evaluation walks its L nodes over the rows, so its work grows as L^2 x (rows + a per-node
#: overhead worth about RULE_ROW_OVERHEAD rows); RULE_WORK_LIMIT bounds it for the method (about
#: a minute on two cores)
RULE_ROW_OVERHEAD, RULE_WORK_LIMIT = 1_000, 5_000_000
#: the shown rules leave out a rule that differs from a heavier one on at most this share of rows
NEAR_DUPLICATE = 0.02


def rule_search_work(n_leaves: int, n_rows: int) -> float:
    """The work of the rules' local search for a formula of ``n_leaves`` leaves whose weights
    sum over ``n_rows`` rows, in the units of :data:`RULE_WORK_LIMIT`."""
    return float(n_leaves) ** 2 * (n_rows + RULE_ROW_OVERHEAD)


def most_leaves(n_rows: int) -> int:
    """The most leaves whose rule search on ``n_rows`` rows stays within :data:`RULE_WORK_LIMIT`."""
    return int(math.isqrt(int(RULE_WORK_LIMIT // (n_rows + RULE_ROW_OVERHEAD))))


@dataclass
class Rule:
    """One logical feature of the kernel as a rule: ``rule`` its plain form (`.plain`),
    ``weight`` its w_F, ``variables`` the variables in the formula's leaves (left to right),
    the class it ``supports``, and ``feature`` the formula with those variables in its leaves
    (equal to ``rule`` on every row the binarizer can produce)."""

    rule: str
    weight: float
    variables: list
    supports: str = ""
    feature: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


class TopRules(NamedTuple):
    """The rules with the largest weights, and whether the list is ``exact`` (all features
    enumerated) or the result of a local search."""

    rules: list[Rule]
    exact: bool


def _leaf_values(Xb: np.ndarray, fixed: dict, free: list[int], L: int) -> list[np.ndarray]:
    m, n = Xb.shape
    r = len(free)
    vals = []
    for j in range(L):
        if j in fixed:
            vals.append(Xb[:, fixed[j]].reshape((m,) + (1,) * r))
        else:
            k = free.index(j)
            vals.append(Xb.reshape((m,) + (1,) * k + (n,) + (1,) * (r - 1 - k)))
    return vals


def feature_weights(formula, X, coef, max_enumerate: int = 2_000_000,
                    operators: Mapping[str, KernelOperator] | None = None) -> np.ndarray:
    """All n^L weights w_F = sum_i coef_i phi_F(x_i), leaf 0 most significant in the index.

    Read off the formula's truth table: phi_F(x) is the sum, over the leaf values t that make
    the formula true, of prod_l [x_{i_l} = t_l], so the weights are a sum of tensor
    contractions, one per such t (or, when fewer, sum(coef) minus one per t that makes it
    false), each a chain of products and one matrix product over the rows of non-zero
    coefficient.  Any formula, its leaves repeating variables or not: it never evaluates
    the formula on the n^L features one by one.

    ``operators`` resolves the operators of a formula given as text (default: the registry)."""
    node = parse(formula, operators)
    Xb = check_binary(X).astype(bool)
    coef = np.asarray(coef, dtype=float)
    n = Xb.shape[1]
    L = n_leaves(node)
    total = n**L
    if total > max_enumerate:
        raise InputError(f"n^L = {n}^{L} features exceed max_enumerate={max_enumerate}")
    used = coef != 0
    coef, ones = coef[used], Xb[used].astype(np.float64)
    levels = (ones, 1.0 - ones)  # [x = 1], [x = 0]
    table = _truth_table(node, L)
    W = np.zeros(total)
    if 2 * table.sum() > table.size:  # more true rows than false: every feature's sum minus the false ones
        W += coef.sum()
        terms, sign = np.flatnonzero(~table), -1.0
    else:
        terms, sign = np.flatnonzero(table), 1.0
    for t in terms:
        bits = [(int(t) >> (L - 1 - leaf)) & 1 for leaf in range(L)]
        W += sign * _contraction(coef, [levels[1 - bit] for bit in bits])
    return W


def _truth_table(node: Formula, L: int) -> np.ndarray:
    """The formula on its 2^L leaf values, leaf 0 the most significant bit of the index."""
    index = np.arange(2**L)
    values = [((index >> (L - 1 - leaf)) & 1).astype(bool) for leaf in range(L)]
    return np.broadcast_to(evaluate(node, values), index.shape).astype(bool)


def _contraction(coef: np.ndarray, factors: list[np.ndarray]) -> np.ndarray:
    """sum_r coef_r prod_l factors[l][r, i_l] for every (i_0, ..., i_{L-1}), flattened with
    i_0 most significant; rows in chunks so that at most ``_CHUNK`` products are held."""
    m, n = factors[0].shape
    L = len(factors)
    out = np.zeros(n**L)
    step = max(1, _CHUNK // n ** max(L - 1, 1))
    for start in range(0, m, step):
        rows = slice(start, start + step)
        partial = coef[rows, None] * factors[0][rows]
        for factor in factors[1:-1]:
            partial = (partial[:, :, None] * factor[rows][:, None, :]).reshape(partial.shape[0], -1)
        out += partial.sum(axis=0) if L == 1 else (partial.T @ factors[-1][rows]).ravel()
    return out


def _weight_of(node, Xb, coef, assign) -> float:
    vals = [Xb[:, a] for a in assign]
    return float(coef @ evaluate(node, vals))


def _local_search(node, Xb, coef, sign, restarts, rng, found: dict) -> None:
    m, n = Xb.shape
    L = n_leaves(node)
    for _ in range(restarts):
        assign = list(rng.randint(n, size=L))
        best = _weight_of(node, Xb, coef, assign)
        found[tuple(assign)] = best
        improved = True
        sweeps = 0
        while improved and sweeps < _MAX_SWEEPS:
            improved, sweeps = False, sweeps + 1
            for j in range(L):
                fixed = {i: assign[i] for i in range(L) if i != j}
                vals = _leaf_values(Xb, fixed, [j], L)
                phi = np.broadcast_to(evaluate(node, vals), (m, n))
                ws = coef @ phi
                for v in np.argsort(-sign * ws)[:3]:
                    trial = assign.copy()
                    trial[j] = int(v)
                    found[tuple(trial)] = float(ws[v])
                v = int(np.argmax(sign * ws))
                if sign * ws[v] > sign * best + 1e-12 * max(1.0, abs(best)):
                    assign[j], best, improved = v, float(ws[v]), True


def _enumerated(node: Formula, Xb, coef, top: int, max_enumerate: int) -> list[tuple[tuple, float]]:
    """The (leaf assignment, weight) pairs with the largest |weight|, from every feature."""
    n, L = Xb.shape[1], n_leaves(node)
    W = feature_weights(node, Xb, coef, max_enumerate)
    k = min(W.size, max(50 * top, 200))
    idx = np.argpartition(-np.abs(W), k - 1)[:k] if k < W.size else np.arange(W.size)
    idx = idx[np.argsort(-np.abs(W[idx]), kind="stable")]
    return [(tuple(int(v) for v in np.unravel_index(i, (n,) * L)), float(W[i])) for i in idx]


def _searched(node: Formula, Xb, coef, restarts: int, random_state) -> list[tuple[tuple, float]]:
    """The (leaf assignment, weight) pairs a local search for both signs met, largest |weight| first."""
    rng = check_random_state(random_state)
    found: dict = {}
    for sign in (1.0, -1.0):
        _local_search(node, Xb, coef, sign, restarts, rng, found)
    return sorted(found.items(), key=lambda kv: -abs(kv[1]))


def top_features(formula, X, coef, top: int = 5, reference=None, max_enumerate: int = 1_000_000,
                 restarts: int = 20, random_state=0, operators: Mapping[str, KernelOperator] | None = None,
                 distinct: bool = True, near: float = 0.0) -> tuple[list[tuple[tuple, float]], bool]:
    """The ``top`` logical features with the largest |w_F| as (leaf assignment, weight) pairs,
    and whether the list is exact (every feature enumerated; else a local search found them).
    With ``distinct``, a feature true on every ``reference`` row or on none is left out (it
    says nothing of a row: ``x | ~x``), and so is a feature that differs from one listed before
    on at most ``near`` of the ``reference`` rows (default X; 0: equal on all of them): the
    larger weight of near duplicates speaks for both.  See `top_rules`.

    Eleven parameters: the search's knobs, which `top_rules`, the rule model's candidates and
    `rule_contributions` each set differently; a settings record would be built at each call."""
    node = parse(formula, operators)
    Xb = check_binary(X).astype(bool)
    coef = np.asarray(coef, dtype=float)
    ref = Xb if reference is None else check_binary(reference).astype(bool)
    exact = Xb.shape[1] ** n_leaves(node) <= max_enumerate
    cands = (_enumerated(node, Xb, coef, top, max_enumerate) if exact
             else _searched(node, Xb, coef, restarts, random_state))
    found, kept = [], np.zeros((0, ref.shape[0]), dtype=bool)
    for assign, w in cands:
        if len(found) >= top or w == 0:
            break
        if distinct:
            values = np.broadcast_to(evaluate(node, [ref[:, a] for a in assign]), (ref.shape[0],))
            if values.all() or not values.any() or (len(kept) and (kept != values).mean(axis=1).min() <= near):
                continue  # always true or false on these rows (x | ~x), or a near duplicate
            kept = np.vstack([kept, values])
        found.append((assign, w))
    return found, exact


def top_rules(formula, X, coef, feature_names=None, top: int = 5, reference=None,
              max_enumerate: int = 1_000_000, restarts: int = 20, random_state=0,
              classes=("negative", "positive"), operators: Mapping[str, KernelOperator] | None = None,
              logic: ColumnLogic | None = None, near: float = NEAR_DUPLICATE) -> TopRules:
    """The ``top`` features with the largest |w_F| as rules; returns ``TopRules(rules, exact)``.

    ``X``: the rows the weights sum over (support vectors), ``coef`` their coefficients;
    ``reference``: rows used to merge features that agree on all of them (default X);
    ``max_enumerate``, ``restarts``, ``random_state``: the search (exact up to
    ``max_enumerate`` features, else a local search); ``operators`` resolves the operators of
    a formula given as text; ``logic`` says which rows the binarizer can produce
    (``TabularBinarizer.column_logic()``; None: any), so that each rule reads in its plain form;
    a rule that differs from one listed before on at most ``near`` of the reference rows is
    left out (near duplicates, e.g. the same rule with ``& ~vote=?`` for different votes).
    (Each is a knob ``explain_svc`` passes through, hence more than eight parameters.)
    """
    node = parse(formula, operators)
    n = check_binary(X).shape[1]
    names = list(feature_names) if feature_names is not None else [f"x{i}" for i in range(n)]
    if len(names) != n:
        raise InputError(f"{len(names)} feature names for {n} variables")
    found, exact = top_features(node, X, coef, top, reference, max_enumerate, restarts, random_state, near=near)
    rules = []
    for assign, w in found:
        variables = [names[a] for a in assign]
        rules.append(Rule(plain_rule(node, assign, logic).text(names), w, variables,
                          str(classes[1] if w > 0 else classes[0]), feature=to_string(node, variables)))
    return TopRules(rules, exact)


def feature_coefficients(node: Formula, rows: np.ndarray, coef, normalize: bool) -> np.ndarray:
    """The coefficients of the expansion's rows in w_F = sum_i c_i phi_F(row_i): ``coef``, each
    divided by sqrt(k(row, row)) for the normalised kernel (0 for a row with k = 0)."""
    coef = np.asarray(coef, dtype=float)
    if not normalize:
        return coef
    diag = propositional_kernel_diagonal(node, rows) if len(rows) else np.zeros(0)
    return np.where(diag > 0, coef / np.sqrt(np.where(diag > 0, diag, 1.0)), 0.0)


def explain_expansion(rows, coef, formula, normalize: bool, classes, feature_names=None, top: int = 5,
                      reference=None, **options) -> TopRules:
    """Top rules of a kernel expansion f(x) = sum_i coef_i k(x, rows_i) + b of a binary model.

    The rows of an SVM are its support vectors (``coef``: its ``dual_coef_``), those of a
    Nystroem model its landmarks (``coef``: alpha = K(L, L)^(-1/2) w).  With ``normalize`` the
    kernel is k(x, z) / sqrt(k(x, x) k(z, z)), so each coefficient is divided by
    sqrt(k(row, row)) (a row with k = 0 has no logical features: 0).  A positive weight speaks
    for ``classes[1]``.  ``reference`` (default ``rows``) and ``options`` go to
    `top_rules`.
    """
    node = parse(formula, options.pop("operators", None))
    rows = check_binary(rows)
    coef = feature_coefficients(node, rows, coef, normalize)
    return top_rules(node, rows, coef, feature_names, top, reference=rows if reference is None else reference,
                     classes=tuple(str(c) for c in classes), **options)


def explain_svc(svc, X_train, formula=None, normalize=None, feature_names=None, top: int = 5,
                **options) -> TopRules:
    """Top rules of a fitted binary ``SVC`` trained on ``X_train`` with a propositional kernel.

    ``svc.kernel`` may be a ``PropositionalKernel`` (formula, normalisation and the operators
    it resolved are read from it) or ``"precomputed"`` (give ``formula`` and ``normalize``).
    ``options`` go to `top_rules`.
    """
    kernel = getattr(svc, "kernel", None)
    if formula is None:
        formula = getattr(kernel, "formula", None)
        options.setdefault("operators", getattr(kernel, "operators_", None))
    if normalize is None:
        normalize = bool(getattr(kernel, "normalize", False))
    if formula is None:
        raise InputError("give the formula the SVC was trained with")
    if len(svc.classes_) != 2:
        raise InputError("rules are extracted for binary classifiers only")
    X_train = check_binary(X_train)
    return explain_expansion(X_train[svc.support_], svc.dual_coef_[0], formula, normalize, svc.classes_,
                             feature_names, top, reference=X_train, **options)
