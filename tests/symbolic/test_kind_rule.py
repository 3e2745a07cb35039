"""Which projection kind a term takes: binary columns stay out of monomials, a monomial must
earn its place by a clear margin of held-out loss, and the diabetes default reads elementary
linear terms."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import sympy
from interp import load_dataset
from interp_symbolic import SymbolicPursuitRegressor
from interp_symbolic.estimator import SCORE_LOSS_FACTOR, _by_margin, _NewTerm, kind_margin
from interp_symbolic.projections import LINEAR, monomial_projection

# what a reader cannot read as an elementary function (sympy's names of Bessel, Gamma,
# hypergeometric and Meijer G functions)
SPECIAL = ("besselj", "bessely", "besseli", "besselk", "gamma", "hyper", "meijerg")


def _special(expr) -> bool:
    return any(f.func.__name__ in SPECIAL for f in sympy.preorder_traversal(expr) if isinstance(f, sympy.Function))


def test_a_column_of_two_values_never_enters_a_monomial():
    rng = np.random.default_rng(0)
    n = 120
    X = pd.DataFrame({"sex": rng.integers(1, 3, n).astype(float), "a": rng.uniform(1, 4, n),
                      "grade": rng.integers(1, 4, n).astype(float), "b": rng.uniform(1, 4, n)})
    kind = monomial_projection(X.to_numpy(), X.min().to_numpy(), np.ptp(X.to_numpy(), axis=0))
    assert list(kind.positive) == [False, True, True, True]  # three values are a power's to read
    y = X.sex * X.a**2 / X.b
    est = SymbolicPursuitRegressor(max_terms=1, n_restarts=1, maxiter=40, families=["meijer_0131"],
                                   random_state=0).fit(X, y)
    assert list(est.monomial_features_) == [False, True, True, True]
    for term in est.terms_:  # neither a monomial argument nor a prefactor reads the binary code
        if term.projection is not LINEAR:
            assert term.v[0] == 0.0
        if term.prefactor is not None:
            assert term.prefactor.exponents[0] == 0.0


def test_the_margin_is_three_standard_errors_of_a_mean_square():
    rng = np.random.default_rng(0)
    for n in (66, 300):
        means = np.mean(rng.standard_normal((4000, n)) ** 2, axis=1)
        spread = np.std(np.log(means))  # the relative standard error, measured
        assert kind_margin(n) == pytest.approx(np.exp(-3 * spread), rel=0.03)
    assert kind_margin(66) < kind_margin(300) < kind_margin(10_000) < 1


@pytest.mark.parametrize("held, n_rows, kept", [
    ((1.0, 0.7, 0.6), 66, 0),  # 40% better on 66 rows is within the noise: the linear term stays
    ((1.0, 0.7, 0.6), 300, 1),  # on 300 rows 30% is three standard errors: the monomial replaces it
    ((1.0, 0.45, 0.2), 66, 2),  # and a prefactor must beat the monomial by the same margin
    ((1.0, 0.45, 0.3), 66, 1),
    ((1e-20, 0.0, 0.0), 300, 0),  # exact fits tie, and the simplest kind stays
    ((np.inf, 5.0, np.inf), 66, 1),  # a kind whose loss is not finite never stays over a finite one
])
def test_a_richer_kind_replaces_a_simpler_one_only_by_a_clear_margin(held, n_rows, kept):
    best = [_NewTerm(term=f"kind {i}", loss=h, held_loss=h) for i, h in enumerate(held)]
    assert _by_margin(best, scale=1.0, n_rows=n_rows).term == f"kind {kept}"


def test_an_exact_monomial_law_still_wins_its_monomial_term():
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.uniform(1, 5, size=(200, 3)), columns=["q1", "q2", "r"])
    y = 0.08 * X.q1 * X.q2 / X.r**2
    est = SymbolicPursuitRegressor(max_terms=1, n_restarts=1, maxiter=60, families=["meijer_0131"],
                                   random_state=0).fit(X, y)
    assert est.terms_[0].projection.name == "monomial"
    assert est.score(X, y) > 0.9999


def test_the_diabetes_default_reads_linear_elementary_terms():
    """The default rule on the diabetes data (every column positive, sex coded 1 and 2; the
    target is noisy), with a short budget: no monomial of every column, no special function
    where an elementary row is within the selection rule."""
    data = load_dataset("diabetes")
    X = data.frame()
    est = SymbolicPursuitRegressor(max_terms=2, n_restarts=1, maxiter=40, random_state=0).fit(X, data.y)
    assert not est.monomial_features_[list(X.columns).index("sex")]
    assert all(t.projection is LINEAR for t in est.terms_), [t.projection.name for t in est.terms_]
    table = est.equations_
    losses = table["test_loss"].to_numpy(dtype=float)
    within = losses <= SCORE_LOSS_FACTOR * losses.min()
    elementary = np.array([not _special(e) for e in table["sympy"]])
    chosen = table["sympy"].iloc[est.selected_]
    assert not _special(chosen) or not (within & elementary).any()
    assert not any(f.func.__name__ in ("hyper", "meijerg") for f in sympy.preorder_traversal(chosen)
                   if isinstance(f, sympy.Function))
