"""A model of one size: the least-squares weights, the clipped design and the features read."""

from __future__ import annotations

import numpy as np
from interp_symbolic.closed_forms import Power
from interp_symbolic.families import Ridge
from interp_symbolic.model import Model
from interp_symbolic.terms import Term


def power_term(t, weight=1.0, v=(1.0,)):
    """weight * u^t with direction ``v``."""
    return Term(Ridge(Power()), [t], list(v), weight)


def test_a_term_with_huge_values_does_not_erase_the_other_weights():
    """lstsq's cutoff is relative to the largest singular value: a column of 1e20s (a Meijer
    term blowing up near the ReLU floor) once zeroed every other weight."""
    from interp_symbolic.model import solved

    x = np.random.default_rng(0).uniform(0.05, 1, size=200)
    G = np.column_stack([x, 1e20 * x**2])
    target = 1 + 3 * x + 2 * x**2  # weights 3 and 2e-20 exactly, intercept 1
    model = solved([power_term(1.0), power_term(2.0)], G, target)
    np.testing.assert_allclose([model.intercept] + [tm.weight for tm in model.terms], [1, 3, 2e-20], rtol=1e-8)


def test_held_out_rows_are_scored_clipped_to_the_training_range_as_predict_does():
    from interp_symbolic.model import design

    x = np.linspace(0, 1, 11)
    term = power_term(-2.0)
    term.u_range = (0.3, 0.6)
    np.testing.assert_allclose(design([term], x[:, None])[:, 0], np.clip(x, 0.3, 0.6) ** -2.0)


def test_n_features_counts_the_features_some_term_reads():
    terms = (power_term(1.0, v=[0.5, 0.0, 0.0, 2.0]), power_term(2.0, v=[0.0, 0.0, 0.0, -1.0]))
    assert Model(terms, 0.0).n_features == 2
    assert Model(terms[1:], 0.0).n_features == 1
    assert Model((), 1.0).n_features == 0
