"""Cards with at most max_rows rows and bounded points: the integer local search and the
estimators' max_rows / max_points."""

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

import interp
from interp_facets import FacetsClassifier, FacetsClassifierCV, FacetsRegressor, FacetsRegressorCV
from interp_facets.search import EXACT_BUDGET, card_losses, local_search, neighbourhood, scale_ridge
from interp_facets.space import CardSpace


def scored_data(n=300, d=6, seed=0, noise=0.8):
    """Binary and real features, the label from a sparse integer card plus noise."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, 2, size=(n, d - 2)), rng.normal(size=(n, 2))]).astype(float)
    w = np.zeros(d)
    w[: min(d, 4)] = [3, -2, 1, 2][: min(d, 4)]
    y = (X @ w + rng.normal(scale=noise, size=n) > w.sum() / 3).astype(int)
    return X, y


def brute_force(X, y_pm, max_rows, max_points, ridge=0.0):
    """The lowest objective (training loss plus the ridge on the weights) over every integer
    card with at most max_rows rows and points in [-max_points, max_points] (scale and intercept
    fitted per card), and its card."""
    values = range(-max_points, max_points + 1)
    cards = np.array([u for u in itertools.product(values, repeat=X.shape[1])
                      if 0 < np.count_nonzero(u) <= max_rows], dtype=float)
    objectives = card_losses(X, y_pm, cards, "logistic", ridge).objective
    best = int(np.argmin(objectives))
    return objectives[best], cards[best]


def logistic_loss_of(total, y_pm, ridge=0.0):
    """min over (a, b) of the mean logistic loss of a * total + b (plus ridge / 2 * a^2), by a
    generic optimiser."""
    def f(p):
        return np.mean(np.logaddexp(0.0, -y_pm * (p[0] * total + p[1]))) + 0.5 * ridge * p[0] ** 2
    return minimize(f, np.zeros(2), method="Nelder-Mead", options=dict(xatol=1e-10, fatol=1e-13,
                                                                         maxiter=20000)).fun


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), d=st.integers(2, 7), max_rows=st.integers(1, 4),
       max_points=st.integers(1, 4))
def test_cards_respect_max_rows_and_max_points(seed, d, max_rows, max_points):
    X, y = scored_data(n=120, d=d, seed=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fixed = FacetsClassifier(lam=0.002, gamma=0.3, max_rows=max_rows, max_points=max_points).fit(X, y)
        cv = FacetsClassifierCV(gammas=2, betas=4, max_rows=max_rows, max_points=max_points).fit(X, y)
        boxed = FacetsClassifier(lam=0.001, gamma=0.05, max_points=max_points).fit(X, y)
    for model in (fixed, cv):
        assert np.count_nonzero(model.points_) <= max_rows
        assert np.abs(model.points_).max(initial=0) <= max_points
        np.testing.assert_allclose(model.coef_[0], model.gamma_ * model.points_)
        assert model.integrity_ == 1.0
    assert np.abs(boxed.coef_grid_).max() <= max_points + 1e-12  # the solver's box, without max_rows


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), max_rows=st.integers(1, 5), max_points=st.integers(1, 5),
       ridge=st.sampled_from([0.0, 1.0, 20.0]))
def test_the_search_never_raises_its_objective_and_ends_at_a_local_optimum(seed, max_rows, max_points, ridge):
    rng = np.random.default_rng(seed)
    X, y = scored_data(n=120, d=7, seed=seed)
    y_pm = 2.0 * y - 1
    space = CardSpace.box(7, max_rows, max_points)
    start = space.feasible(rng.integers(-6, 7, size=7))
    if not start.any():
        start[0] = 1
    card = local_search(X, y_pm, start, "logistic", space, ridge=ridge)
    before = card_losses(X, y_pm, start, "logistic", ridge).objective[0]
    assert card.objective <= before + 1e-9
    assert np.gcd.reduce(np.abs(card.points)) == 1
    assert np.count_nonzero(card.points) <= max_rows and np.abs(card.points).max() <= max_points
    # what the search minimises: the mean loss plus r / 2 |a u|^2 (r = ridge / n and the least
    # ridge that keeps separable totals finite); an independent 2-parameter fit agrees
    r, norm2 = scale_ridge(len(y), ridge), float(card.points @ card.points)
    assert card.objective == pytest.approx(logistic_loss_of(X @ card.points, y_pm, r * norm2), abs=1e-7)
    assert card.penalty == pytest.approx(0.5 * r * card.scale**2 * norm2, rel=1e-9)
    # and on a problem this small every move is scored exactly: no move improves (a local optimum)
    moves = neighbourhood(card.points, space)
    assert moves.size * len(y) <= EXACT_BUDGET
    U = moves.cards(card.points, np.arange(moves.size))
    F = card_losses(X, y_pm, U, "logistic", ridge).objective
    # a move to a multiple of the card (1 and 1 to 2 and 2) is the same model once the scale
    # re-fits: the neighbourhood leaves it out
    multiple = np.abs(U @ card.points) * np.linalg.norm(card.points) == (
        np.linalg.norm(U, axis=1) * np.linalg.norm(card.points) ** 2)
    assert not multiple[U.any(axis=1)].any()
    assert F.min() >= card.objective - 1e-9


def test_a_card_and_its_multiple_pay_the_same_ridge():
    """The ridge is on the weights a u, not on the scale: 2u is the same model as u."""
    X, y = scored_data(n=150, d=4, seed=7)
    fits = card_losses(X, 2.0 * y - 1, np.array([[2, -1, 1, 0], [4, -2, 2, 0]]), "logistic", 5.0)
    assert fits.objective[0] == pytest.approx(fits.objective[1], rel=1e-10)
    assert fits.scale[0] == pytest.approx(2 * fits.scale[1], rel=1e-8)


def test_a_larger_ridge_gives_smaller_weights_and_a_higher_training_loss():
    X, y = scored_data(n=150, d=4, seed=8)
    card = np.array([[3, -2, 1, 2]])
    fits = [card_losses(X, 2.0 * y - 1, card, "logistic", ridge) for ridge in (0.0, 5.0, 50.0)]
    scales = [f.scale[0] for f in fits]
    losses = [f.loss[0] for f in fits]
    assert scales[0] > scales[1] > scales[2] > 0
    assert losses[0] < losses[1] < losses[2]


@pytest.mark.parametrize("ridge", [0.0, 1.0, 30.0])
@pytest.mark.parametrize("seed, max_rows", [(0, 2), (1, 3), (2, 2), (3, 4)])
def test_the_search_reaches_the_brute_force_optimum_on_a_tiny_problem(seed, max_rows, ridge):
    """d = 4, points in [-2, 2]: every card with at most max_rows rows enumerated."""
    X, y = scored_data(n=200, d=4, seed=seed, noise=1.5)
    y_pm = 2.0 * y - 1
    best, best_card = brute_force(X, y_pm, max_rows, 2, ridge)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = FacetsClassifierCV(max_rows=max_rows, max_points=2, card_ridge=ridge).fit(X, y)
    found = card_losses(X, y_pm, model.points_, "logistic", ridge).objective[0]
    assert found == pytest.approx(best, abs=1e-9)
    r = scale_ridge(len(y), ridge) * float(best_card @ best_card)
    assert found == pytest.approx(logistic_loss_of(X @ best_card, y_pm, r), abs=1e-6)


def test_the_delivered_scale_and_intercept_are_the_unpenalised_fit_of_the_chosen_points():
    """The ridge chooses the points; the model's scale and intercept (hence predict_proba and
    the risk table) are the maximum-likelihood fit of its totals."""
    X, y = scored_data(n=300, d=6, seed=4, noise=1.5)
    y_pm = 2.0 * y - 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = FacetsClassifierCV(max_rows=4, card_ridge=50.0).fit(X, y)
    total = X @ model.points_
    loss = np.mean(np.logaddexp(0.0, -y_pm * model.decision_function(X)))
    least = scale_ridge(len(y), 0.0)  # the tiny ridge on the scale the risk table's fit has too
    assert loss + 0.5 * least * model.gamma_**2 == pytest.approx(logistic_loss_of(total, y_pm, least), abs=1e-8)
    penalised = card_losses(X, y_pm, model.points_, "logistic", 50.0)
    assert penalised.scale[0] < model.gamma_  # the ridge's own fit is shrunk; the model's is not


def test_regressor_cards_respect_the_limits():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 8))
    y = X @ np.array([4.0, -3, 2, 1, 0.5, 0, 0, 0]) + rng.normal(scale=0.1, size=200)
    for model in (FacetsRegressor(lam=0.01, gamma=0.5, max_rows=3, max_points=3),
                  FacetsRegressorCV(max_rows=3, max_points=3)):
        model.fit(X, y)
        assert np.count_nonzero(model.points_) <= 3 and np.abs(model.points_).max() <= 3
        assert model.score(X, y) > 0.7
        assert isinstance(model.intercept_, float)


ESTIMATORS = [FacetsClassifier, FacetsClassifierCV, FacetsRegressor, FacetsRegressorCV]
NO_ROW = "\\(a card with no row possible\\)"


@pytest.mark.parametrize("estimator", ESTIMATORS)
@pytest.mark.parametrize("params, match", [
    ({"max_points": 0}, "max_points must be an integer >= 1 or None, got 0 " + NO_ROW),
    ({"max_points": -2}, "max_points must be an integer >= 1 or None"),
    ({"max_points": 2.5}, "max_points must be an integer >= 1 or None, got 2.5"),
    ({"max_points": True}, "max_points must be an integer >= 1 or None"),
    ({"max_rows": 0}, "max_rows must be an integer >= 1 or None, got 0 " + NO_ROW),
    ({"max_rows": "3"}, "max_rows must be an integer >= 1 or None"),
    ({"max_rows": 3, "fit_intercept": False}, "max_rows needs fit_intercept=True"),
    ({"card_ridge": -1}, "card_ridge must be a number >= 0, got -1"),
    ({"card_ridge": float("nan")}, "card_ridge must be a number >= 0, got nan"),
    ({"card_ridge": None}, "card_ridge must be a number >= 0, got None"),
])
def test_bad_limits_are_one_line_input_errors(estimator, params, match):
    X, y = scored_data(n=60)
    with pytest.raises(interp.InputError, match=match) as err:
        estimator(**params).fit(X, y)
    assert "\n" not in str(err.value)


def test_cv_with_max_rows_reports_its_search_and_keeps_the_grid_card():
    X, y = scored_data(n=400, d=8, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = FacetsClassifierCV(max_rows=3, max_points=3).fit(X, y)
    res = model.search_results_
    chosen = int(np.flatnonzero(res["chosen"])[0])
    assert res["objective"][chosen] == np.nanmin(res["objective"])
    assert res["rows"][chosen] == np.count_nonzero(model.points_) <= 3
    assert model.best_gamma_ == res["param_gamma"][chosen]
    y_pm = 2.0 * y - 1
    fits = card_losses(X, y_pm, model.points_, "logistic")
    assert fits.objective[0] == pytest.approx(res["objective"][chosen])
    assert fits.loss[0] == pytest.approx(res["loss"][chosen])
    assert model.coefs_path_.shape == (3, 12, 8)
    assert model.score(X, y) > 0.8


def test_on_a_subsample_the_grid_card_is_searched_again_on_every_row():
    X, y = scored_data(n=600, d=8, seed=5, noise=1.2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = FacetsClassifierCV(max_rows=3, max_points=3, max_cv_rows=200).fit(X, y)
        grid = FacetsClassifierCV(max_rows=3, max_points=3, max_cv_rows=None).fit(X[model.cv_sample_],
                                                                                   y[model.cv_sample_])
    assert model.subsampled_ and model.cv_rows_ == 200
    y_pm = 2.0 * y - 1
    # the grid ran on the subsample (same card as a search on those rows alone), and the search
    # on every row started from that card never made it worse there
    np.testing.assert_array_equal(grid.search_results_["loss"], model.search_results_["loss"])
    full = card_losses(X, y_pm, model.points_, "logistic").objective[0]
    assert full <= card_losses(X, y_pm, grid.points_, "logistic").objective[0] + 1e-12
    assert np.count_nonzero(model.points_) <= 3


def test_a_path_with_no_more_features_than_rows_fits_only_its_weakest_strength():
    from interp_facets.problem import Objective
    from interp_facets.search import capped_path
    from interp_facets.solver import SolverOptions
    from interp_facets.validation import resolve_penalty

    X, y = scored_data(n=200, d=4, seed=1)
    objective = Objective("logistic", *resolve_penalty("scf", 0.01), gamma=0.5)
    lams = np.geomspace(0.1, 1e-4, 6)
    short = capped_path(X, 2.0 * y - 1, objective, lams, CardSpace.box(4, 4), SolverOptions())
    long = capped_path(X, 2.0 * y - 1, objective, lams, CardSpace.box(4, 3), SolverOptions())
    assert short.start == 5 and np.all(short.n_iter[:5] == 0) and short.n_iter[5] > 0
    # with fewer rows allowed the path runs from the top and stops after the first fit with too many
    rows = np.count_nonzero(np.round(long.coefs), axis=1)
    assert rows[long.start] <= 3 and long.n_iter[0] > 0
    assert np.all(rows[: long.start + 1] <= 3)
