"""Per-row contributions: they add up to the formula's output, 0 for an unread feature, and the
importances (their mean absolute value) rank features as the model's permutation importances."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.inspection import permutation_importance

from interp_symbolic import SymbolicPursuitClassifier, SymbolicPursuitRegressor
from interp_symbolic.contributions import term_contributions

sys.path.insert(0, str(Path(__file__).parent))
from test_monomial import _coulomb, _relativistic  # noqa: E402


@pytest.fixture(scope="module")
def fitted():
    """Models whose terms are each kind: linear (two terms), a monomial, a monomial with a
    prefactor, and a classifier."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.uniform(-1, 2, size=(200, 3)), columns=["a", "b", "c"])
    y = np.sin(2 * X.a) + X.b**2 - 0.5 * X.a * X.b
    out = {"linear": (X, SymbolicPursuitRegressor(max_terms=2, n_restarts=1, maxiter=40, random_state=0).fit(X, y))}
    Xc, yc = _coulomb()
    out["monomial"] = (Xc, SymbolicPursuitRegressor(max_terms=1, n_restarts=1, maxiter=40, families=["meijer_0131"],
                                                    random_state=0).fit(Xc, yc))
    Xr, yr = _relativistic()
    out["prefactor"] = (Xr, SymbolicPursuitRegressor(max_terms=1, n_restarts=2, maxiter=40, families=["meijer_2233"],
                                                     random_state=0).fit(Xr, yr))
    labels = (X.a + X.b ** 2 + 0.3 * rng.standard_normal(200) > 1).astype(int)
    out["classifier"] = (X, SymbolicPursuitClassifier(max_terms=1, n_restarts=1, maxiter=40, random_state=0).fit(X, labels))
    return out


def _output(est, X):
    return est.decision_function(X) if hasattr(est, "decision_function") else est.predict(X)


@pytest.mark.parametrize("name", ["linear", "monomial", "prefactor", "classifier"])
def test_contributions_add_up_to_the_output_on_the_training_rows(fitted, name):
    X, est = fitted[name]
    phi = est.contributions(X)
    assert isinstance(phi, pd.DataFrame) and list(phi.columns) == list(X.columns) and phi.index.equals(X.index)
    np.testing.assert_allclose(est.baseline_ + phi.sum(axis=1), _output(est, X), rtol=0, atol=1e-9)
    np.testing.assert_allclose(est.feature_importances_, phi.abs().mean(axis=0).to_numpy(), rtol=1e-12)


def test_the_prefactor_model_has_a_prefactor(fitted):
    assert fitted["prefactor"][1].terms_[0].prefactor is not None
    assert fitted["monomial"][1].terms_[0].projection.name == "monomial"


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(["linear", "monomial", "prefactor", "classifier"]),
       spread=arrays(np.float64, (5, 4), elements=st.floats(-0.5, 1.5)))
def test_contributions_add_up_to_the_output_on_any_rows(fitted, name, spread):
    """Rows anywhere in and around the training box (spread: the position in each feature's
    range, beyond it up to half the range, where u is clipped); a monomial's column stays positive."""
    X, est = fitted[name]
    lo, hi = X.min().to_numpy(), X.max().to_numpy()
    rows = lo + spread[:, :X.shape[1]] * (hi - lo)
    rows = np.where(lo > 0, np.maximum(rows, lo / 2), rows)
    frame = pd.DataFrame(rows, columns=X.columns)
    total = est.baseline_ + est.contributions(frame).sum(axis=1)
    np.testing.assert_allclose(total, _output(est, frame), rtol=0, atol=1e-9 * max(1.0, np.abs(_output(est, frame)).max()))


def test_the_baseline_row_gives_zero_contributions(fitted):
    X, est = fitted["prefactor"]
    at = pd.DataFrame([est.baseline_row_], columns=X.columns)
    assert np.all(est.contributions(at).to_numpy() == 0)
    assert _output(est, at)[0] == pytest.approx(est.baseline_, rel=1e-12)


def test_a_feature_the_formula_does_not_read_gets_exactly_zero(fitted):
    X, est = fitted["monomial"]  # 0.08 q1 q2 / r**2 never reads z
    assert not est.terms_[0].reads[3]
    phi = est.contributions(X)
    assert np.all(phi["z"].to_numpy() == 0.0) and est.feature_importances_[3] == 0.0


def test_a_monomial_term_splits_by_exponent_times_log_ratio(fitted):
    """For 0.08 q1 q2 / r**2, feature j's share of the term's change is a_j log(x_j / x0_j)
    over the sum of those: exact integrated gradients along the path straight in log x."""
    X, est = fitted["monomial"]
    x0 = est.baseline_row_
    a = np.array([1.0, 1.0, -2.0])
    logs = a * np.log(X[["q1", "q2", "r"]].to_numpy() / x0[:3])
    phi = est.contributions(X)[["q1", "q2", "r"]].to_numpy()
    change = phi.sum(axis=1)
    moved = np.abs(logs.sum(axis=1)) > 1e-6
    np.testing.assert_allclose(phi[moved], (change / logs.sum(axis=1))[moved, None] * logs[moved], rtol=1e-6, atol=1e-12)


def test_a_linear_term_splits_by_coefficient_times_difference():
    """A one-term model w g(c . x + c0): each feature's share of the change is
    c_j (x_j - x0_j) / sum of those, checked on the term itself."""
    rng = np.random.default_rng(3)
    X = rng.uniform(0, 1, size=(150, 3))
    y = np.exp(0.8 * X[:, 0] - 1.5 * X[:, 1])
    est = SymbolicPursuitRegressor(max_terms=1, n_restarts=1, maxiter=40, random_state=0,
                                   monomials=False).fit(X, y)
    (tm,) = est.terms_
    assert isinstance(est.contributions(X), np.ndarray)
    Xs, x0s = est._scale(X), est._scale(est.baseline_row_[None, :])
    phi = term_contributions(tm, Xs, x0s)
    parts = tm.slope() * (Xs - x0s)
    np.testing.assert_allclose(phi, (phi.sum(axis=1) / parts.sum(axis=1))[:, None] * parts, rtol=1e-9, atol=1e-12)
    c = tm.slope() / est.data_range_  # per unit of x: the printed coefficients up to the term's scale
    assert np.sign(c[0]) != np.sign(c[1]) and abs(c[2]) < 1e-2 * abs(c[1])


def test_importances_are_scale_free_and_rank_as_permutation_importance():
    """y = 0.003 a + 5 b + 0.5 c + 0 d, a in [0, 1000]: a moves y over 3, b over 5, c over 0.5,
    d not at all, so the ranking is b, a, c, d whatever each feature's units (a's coefficient
    is the smallest); the permutation importances of the fitted formula rank them alike."""
    rng = np.random.default_rng(4)
    X = pd.DataFrame({"a": rng.uniform(0, 1000, 300), "b": rng.uniform(0, 1, 300), "c": rng.uniform(0, 1, 300),
                      "d": rng.uniform(0, 1, 300)})
    y = 0.003 * X.a + 5 * X.b + 0.5 * X.c
    est = SymbolicPursuitRegressor(max_terms=2, n_restarts=1, maxiter=60, random_state=0).fit(X, y)
    assert est.score(X, y) > 0.999
    ours = np.argsort(-est.feature_importances_)
    perm = permutation_importance(est, X, y, n_repeats=5, random_state=0).importances_mean
    assert list(X.columns[ours]) == ["b", "a", "c", "d"]
    assert list(np.argsort(-perm)) == list(ours)
    assert est.feature_importances_[3] < 1e-3 * est.feature_importances_[2]


def test_a_model_pickled_before_contributions_has_them_too():
    """An estimator pickled by an earlier version (with ``taylor_point_``, no baseline) gets its
    baseline from that point: its contributions add up to its predictions."""
    import interp

    from ..exports_helpers import old_estimator

    est = old_estimator("symbolic_diabetes")
    data = interp.load_dataset("diabetes")
    X = pd.DataFrame(data.X, columns=list(data.feature_names))
    assert not hasattr(est, "taylor_point_")
    np.testing.assert_allclose(est.baseline_ + est.contributions(X).sum(axis=1), est.predict(X), rtol=0,
                               atol=1e-9 * np.abs(est.predict(X)).max())
