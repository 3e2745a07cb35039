"""The proximal-gradient solver against independent references."""

import warnings

import attrs
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize_scalar
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Lasso, LogisticRegression

import interp
from interp import hookimpl
from interp.testing import registered
from interp_facets import FacetsClassifier, FacetsRegressor, Objective, SolverOptions, solve
from interp_facets.solver import WarmStart
from interp_facets import penalties as P
from interp_facets.problem import Problem
from interp_facets.validation import resolve_penalty


def regression_data(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6))
    w = np.array([2.0, -1.0, 0.0, 0.5, 0.0, 3.0])
    return X, X @ w + 0.7 + rng.normal(scale=0.3, size=n)


def classification_data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    z = X @ np.array([1.5, -2.0, 0.0, 1.0, 0.2]) - 0.3 + rng.logistic(size=n)
    return X, np.where(z > 0, 1.0, -1.0)


def logistic_objective(X, y, w, b, lam):
    return np.mean(np.logaddexp(0, -y * (X @ w + b))) + lam * np.abs(w).sum()


SOLVERS = ["newton", "fista", "ista"]


@pytest.mark.parametrize("solver", SOLVERS)
def test_l1_squared_loss_is_sklearn_lasso(solver):
    X, y = regression_data()
    pen, hyper = resolve_penalty("l1")
    res = solve(X, y, Objective("squared", pen), 0.05, SolverOptions(solver, tol=1e-6, max_iter=20000))
    ref = Lasso(alpha=0.05, tol=1e-12, max_iter=100000).fit(X, y)
    assert res.converged
    np.testing.assert_allclose(res.u, ref.coef_, atol=1e-6)
    assert res.intercept == pytest.approx(ref.intercept_, abs=1e-6)


@pytest.mark.parametrize("solver", SOLVERS)
def test_l1_logistic_matches_sklearn_and_is_no_worse(solver):
    X, y = classification_data()
    lam = 0.02
    pen, hyper = resolve_penalty("l1")
    res = solve(X, y, Objective("logistic", pen), lam, SolverOptions(solver, tol=1e-6, max_iter=20000))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = LogisticRegression(C=1 / (len(y) * lam), l1_ratio=1.0, solver="saga", tol=1e-12,
                                 max_iter=100000).fit(X, y)
    ours = logistic_objective(X, y, res.u, res.intercept, lam)
    theirs = logistic_objective(X, y, ref.coef_[0], ref.intercept_[0], lam)
    assert ours <= theirs + 1e-9
    np.testing.assert_allclose(res.u, ref.coef_[0], atol=1e-4)


def test_l2_squared_loss_is_the_closed_form_ridge():
    X, y = regression_data()
    lam = 0.3
    pen, _ = resolve_penalty("l2")
    res = solve(X, y, Objective("squared", pen), lam, SolverOptions("fista", tol=1e-10, max_iter=20000))
    Xc, yc = X - X.mean(0), y - y.mean()
    n = len(y)
    w = np.linalg.solve(Xc.T @ Xc / n + lam * np.eye(X.shape[1]), Xc.T @ yc / n)
    np.testing.assert_allclose(res.u, w, atol=1e-8)
    assert res.intercept == pytest.approx(y.mean() - X.mean(0) @ w, abs=1e-8)


@pytest.mark.parametrize("solver", ["newton", "ista"])
@pytest.mark.parametrize("penalty", ["facets", "scf"])
@pytest.mark.parametrize("gamma", [0.3, 1.0, 2.5])
def test_one_feature_without_intercept_matches_brute_force(penalty, gamma, solver):
    """min_w sum (y - x w)^2 / (2n) + lam Omega(w / gamma) by bounded Brent on a 1-D convex objective."""
    rng = np.random.default_rng(4)
    x = rng.normal(size=80)
    y = 3.3 * x + rng.normal(scale=0.5, size=80)
    lam = 0.4
    pen, hyper = resolve_penalty(penalty)
    res = solve(x[:, None], y, Objective("squared", pen, hyper, gamma=gamma, fit_intercept=False), lam,
                SolverOptions(solver, tol=1e-10, max_iter=100000))
    f = lambda w: np.mean((y - x * w) ** 2) / 2 + lam * pen.value(np.array([w / gamma]), **hyper)  # noqa: E731
    ref = minimize_scalar(f, bounds=(-10, 10), method="bounded", options={"xatol": 1e-12}).x
    assert gamma * res.u[0] == pytest.approx(ref, abs=1e-6)


def test_the_three_solvers_reach_the_same_scf_minimiser_and_integrity():
    X, y = classification_data(seed=2)
    pen, hyper = resolve_penalty("scf")
    objective, lam, kw = Objective("logistic", pen, hyper, gamma=0.5), 0.05, dict(tol=1e-7, max_iter=50000)
    ref = solve(X, y, objective, lam, SolverOptions("ista", **kw))
    assert ref.converged
    for solver in ("fista", "newton"):
        res = solve(X, y, objective, lam, SolverOptions(solver, **kw))
        assert res.converged
        np.testing.assert_allclose(res.u, ref.u, atol=1e-6)
        assert np.array_equal(res.u == np.round(res.u), ref.u == np.round(ref.u))
    assert np.any(ref.u == np.round(ref.u)) and np.any(ref.u != np.round(ref.u))


def ill_conditioned(n=400, seed=3):
    """Features on scales 1e-2 .. 1e3 with two nearly collinear pairs, as in spambase."""
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, 6))
    Z[:, 1] = Z[:, 0] + 0.05 * rng.normal(size=n)
    Z[:, 3] = Z[:, 2] - 0.05 * rng.normal(size=n)
    X = Z * np.array([1e-2, 1.0, 10.0, 1e3, 1.0, 0.1])
    z = Z @ np.array([1.0, 1.0, -2.0, 0.5, 0.0, 1.0]) + rng.logistic(size=n) * 0.5
    return X, np.where(z > 0, 1.0, -1.0)


@pytest.mark.parametrize("penalty", ["l1", "scf", "facets"])
def test_newton_reaches_the_fista_objective_in_far_fewer_iterations(penalty):
    X, y = ill_conditioned()
    pen, hyper = resolve_penalty(penalty)
    objective, kw = Objective("logistic", pen, hyper, gamma=0.3), dict(tol=1e-8, max_iter=100000)
    fista = solve(X, y, objective, 0.004, SolverOptions("fista", **kw))
    newton = solve(X, y, objective, 0.004, SolverOptions("newton", **kw))
    assert fista.converged and newton.converged
    assert newton.objective <= fista.objective + 1e-10
    assert newton.n_iter * 5 < fista.n_iter
    assert np.array_equal(newton.u == np.round(newton.u), fista.u == np.round(fista.u))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), log_lam=st.floats(-3.5, -0.5), gamma=st.floats(0.05, 3.0),
       penalty=st.sampled_from(["facets", "scf", "l1", "elasticnet"]),
       loss=st.sampled_from(["logistic", "squared"]))
def test_newton_is_never_worse_than_fista(seed, log_lam, gamma, penalty, loss):
    """On random problems the Newton solver's minimiser is at least as good as FISTA's, and it
    satisfies the stopping test at the returned point."""
    rng = np.random.default_rng(seed)
    n, d = 60, 4
    X = rng.normal(size=(n, d)) * rng.uniform(0.1, 10.0, size=d)
    y = X @ rng.normal(size=d) + rng.normal(size=n)
    if loss == "logistic":
        y = np.where(y > np.median(y), 1.0, -1.0)
    pen, hyper = resolve_penalty(penalty)
    objective, kw = Objective(loss, pen, hyper, gamma=gamma), dict(tol=1e-9, max_iter=200000)
    fista = solve(X, y, objective, 10**log_lam, SolverOptions("fista", **kw))
    newton = solve(X, y, objective, 10**log_lam, SolverOptions("newton", **kw))
    assert newton.converged
    assert newton.objective <= fista.objective + 1e-9 * max(1.0, abs(fista.objective))
    assert newton.criterion <= 1e-9


def test_newton_does_not_stall_at_a_tight_tolerance():
    """A case found by a random search (Facets, logistic, 16 features on scales 0.1 to 10).
    Newton once stalled at criterion 1.6e-9 > tol 1e-9 for 20000 iterations: its steps on the
    free coordinates no longer lowered the objective, while a coordinate on a plateau, whose
    violation was smaller than their rounding-level residuals, waited to be released."""
    rng = np.random.default_rng(689999)
    n, d = int(rng.integers(30, 200)), int(rng.integers(2, 30))
    X = rng.normal(size=(n, d)) * rng.uniform(0.1, 10.0, size=d)
    rng.random()  # the search's draw that chose these Gaussian features
    y = X @ rng.normal(size=d) + rng.normal(size=n)
    y = np.where(y > np.median(y), 1.0, -1.0)
    pen, hyper = resolve_penalty("facets")
    lam = 10 ** rng.uniform(-4, -0.5)
    objective = Objective("logistic", pen, hyper, gamma=rng.uniform(0.05, 3))
    kw = dict(tol=1e-9, max_iter=2000)
    newton = solve(X, y, objective, lam, SolverOptions("newton", **kw))
    fista = solve(X, y, objective, lam, SolverOptions("fista", **kw))
    assert newton.converged and newton.n_iter < 100
    assert newton.objective <= fista.objective + 1e-12


@pytest.mark.parametrize("loss", ["logistic", "squared"])
def test_datafit_pieces_agree_with_each_other_and_with_finite_differences(loss):
    """The shared-work pairs equal the single pieces; the gradient and the per-sample curvature
    are the derivatives of the value; the column values are the value per column."""
    from interp_facets.datafits import DATAFITS

    fit = DATAFITS[loss]
    rng = np.random.default_rng(1)
    z, y = rng.normal(scale=2.0, size=40), np.where(rng.random(40) < 0.4, 1.0, -1.0)
    value, grad = fit.value_and_gradient(z, y)
    assert value == pytest.approx(fit.value(z, y), rel=1e-14)
    np.testing.assert_allclose(grad, fit.gradient(z, y), rtol=1e-14)
    grad2, curv = fit.gradient_and_curvature(z, y)
    np.testing.assert_allclose(grad2, grad, rtol=1e-14)
    e = 1e-6
    for i in (0, 7, 31):
        dz = np.eye(40)[i] * e
        assert grad[i] == pytest.approx((fit.value(z + dz, y) - fit.value(z - dz, y)) / (2 * e), rel=1e-6)
        assert curv[i] == pytest.approx((fit.gradient(z + dz, y)[i] - fit.gradient(z - dz, y)[i]) / (2 * e),
                                        rel=1e-5)
        assert 40 * curv[i] <= fit.curvature * (1 + 1e-12)
    Z = np.column_stack([z, -z, 0 * z])
    np.testing.assert_allclose(fit.column_values(Z, y), [fit.value(c, y) for c in Z.T], rtol=1e-12)
    with pytest.raises(interp.InputError, match="loss must be one of 'logistic', 'squared', got 'hinge'"):
        Objective("hinge", None)


@pytest.mark.parametrize("loss", ["logistic", "squared"])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_problem_hessian_matches_finite_differences_of_the_gradient(loss, fit_intercept):
    """The Hessian matches finite differences of the gradient; the gradient that comes with its
    weights is the plain one."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 4)) * [1.0, 10.0, 100.0, 0.1]
    y = np.where(rng.random(50) < 0.5, 1.0, -1.0)
    pen, hyper = resolve_penalty("l1")
    objective = Objective(loss, pen, hyper, gamma=0.7, fit_intercept=fit_intercept)
    prob = Problem(np.asfortranarray(X), y, objective, 0.01)
    u, b = rng.normal(size=4) * 0.01, (0.3 if fit_intercept else 0.0)
    cols = np.array([0, 2, 3])
    gu, gb, weights = prob.grads_and_curvature(prob.scores(u, b))
    H = prob.hessian(weights, cols)
    gu_plain, gb_plain = prob.grads(prob.scores(u, b))
    np.testing.assert_allclose(gu, gu_plain, rtol=1e-12, atol=1e-15)
    assert gb == pytest.approx(gb_plain, rel=1e-12, abs=1e-15)

    def grad(du, db):
        gu, gb = prob.grads(prob.scores(u + du, b + db))
        return np.append(gu[cols], gb) if fit_intercept else gu[cols]

    e = 1e-6
    directions = [(np.eye(4)[c] * e, 0.0) for c in cols] + ([(np.zeros(4), e)] if fit_intercept else [])
    H_fd = np.column_stack([(grad(du, db) - grad(-du, -db)) / (2 * e) for du, db in directions])
    # the logistic Hessian is summed in single precision
    np.testing.assert_allclose(H, H_fd, rtol=1e-5, atol=1e-8 * np.abs(H).max())


def test_prox_slopes_are_zero_on_plateaus_and_the_ramp_slope_elsewhere():
    from interp_facets.newton import prox_slopes

    zeta = np.array([0.1, 0.9, 1.3, 2.05, -1.7, -2.5])
    step = 0.5  # mu = lam * step = 0.2: Facets plateaus [1.2 k, 1.2 k + 0.2] at every integer k
    for name, ramp in (("facets", 1.0), ("l1", 1.0), ("scf", 1 / (1 + 0.2 * 0.01))):
        pen, hyper = resolve_penalty(name)
        prob = Problem(np.eye(6), np.ones(6), Objective("squared", pen, hyper, fit_intercept=False), 0.4,
                       precondition=False)
        v = prob.prox(zeta, step)
        slope = prox_slopes(prob, zeta, step)
        on_kink = v == np.round(v) if name != "l1" else v == 0
        np.testing.assert_allclose(slope[on_kink], 0.0, atol=1e-12)
        np.testing.assert_allclose(slope[~on_kink], ramp, rtol=1e-6)
        assert on_kink.any() and (~on_kink).any()


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("loss", ["logistic", "squared"])
def test_above_the_null_threshold_the_fit_is_the_intercept_only_model_at_once(solver, loss):
    from interp_facets.problem import null_threshold

    X, y = classification_data() if loss == "logistic" else regression_data()
    c = null_threshold(X, y, loss)
    pen, hyper = resolve_penalty("facets")
    objective = Objective(loss, pen, hyper, gamma=0.5)
    strong = solve(X, y, objective, 1.01 * c * 0.5, SolverOptions(solver, tol=1e-8))
    assert strong.n_iter == 1 and np.all(strong.u == 0)
    # the intercept-only optimum, found independently
    p = np.mean(y > 0)
    assert strong.intercept == pytest.approx(np.log(p / (1 - p)) if loss == "logistic" else np.mean(y))
    # just below the threshold the model is not null
    weak = solve(X, y, objective, 0.9 * c * 0.5, SolverOptions(solver, tol=1e-8))
    assert weak.converged and np.any(weak.u != 0)


def test_stopping_criterion_holds_at_the_returned_point():
    X, y = classification_data(seed=5)
    lam, gamma = 0.03, 0.4
    pen, hyper = resolve_penalty("scf")
    res = solve(X, y, Objective("logistic", pen, hyper, gamma=gamma), lam,
                SolverOptions("fista", tol=1e-6, max_iter=20000))
    z = gamma * X @ res.u + res.intercept
    gz = -y / (1 + np.exp(y * z)) / len(y)
    gu = gamma * X.T @ gz
    dist = P.scf_subdiff_distance(res.u, gu / lam, **hyper)
    assert np.max(dist) <= 1e-6 and abs(gz.sum()) <= 1e-6 * lam


def test_max_iter_gives_a_convergence_warning():
    X, y = classification_data()
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        m = FacetsClassifier(lam=0.01, gamma=0.5, max_iter=2, tol=1e-12).fit(X, y)
    assert m.n_iter_ == 2 and not m.converged_


class HalfL1:
    """A third-party penalty: 0.5 |w|, registered under a new name."""

    @hookimpl
    def register_penalties(self, register):
        register(interp.Penalty(
            "half_l1",
            lambda w: 0.5 * float(np.abs(w).sum()),
            lambda w, step: np.sign(w) * np.maximum(np.abs(w) - 0.5 * step, 0.0),
        ))


def test_a_third_party_penalty_is_resolved_by_name_at_fit_time():
    X, y = regression_data()
    with pytest.raises(interp.InputError, match="unknown penalty 'half_l1'"):
        FacetsRegressor(lam=0.1, penalty="half_l1").fit(X, y)
    with registered(HalfL1(), "halfl1"):
        m = FacetsRegressor(lam=0.1, gamma=1.0, penalty="half_l1", tol=1e-9, max_iter=20000,
                            refit_scale=False).fit(X, y)
    ref = Lasso(alpha=0.05, tol=1e-12, max_iter=100000).fit(X, y)
    np.testing.assert_allclose(m.coef_, ref.coef_, atol=1e-6)


def _scalar_step_prox(w, step):
    step = float(step)  # takes one step for all coordinates, as some hand-written proxes do
    return np.sign(w) * np.maximum(np.abs(w) - step, 0.0)


def _one_dimensional_prox(w, step):
    w = np.asarray(w, dtype=float)
    if w.ndim != 1:
        raise RuntimeError("one vector at a time")
    return np.sign(w) * np.maximum(np.abs(w) - step, 0.0)


@pytest.mark.parametrize("prox, per_coordinate_steps", [(_scalar_step_prox, False), (_one_dimensional_prox, True)])
@pytest.mark.parametrize("solver", SOLVERS)
def test_a_prox_that_takes_less_than_arrays_still_fits(prox, per_coordinate_steps, solver):
    """The Newton step needs a step per coordinate (and stacks points); a third-party prox that
    takes one scalar step or only 1-D input, as it declares (by default: neither a step per
    coordinate nor any shape), is served one distinct step, or one point, at a time, and gives
    scikit-learn's L1 fit.  The built-ins declare both."""
    for builtin in P.PENALTIES:
        assert builtin.per_coordinate_steps and builtin.any_shape
    pen = interp.Penalty("l1_by_hand", lambda w: float(np.abs(w).sum()), prox,
                         per_coordinate_steps=per_coordinate_steps)
    assert not pen.any_shape
    X, y = classification_data()
    X = X * np.array([1.0, 30.0, 1.0, 0.02, 1.0])  # scales apart: the metric is not constant
    lam = 0.01
    res = solve(X, y, Objective("logistic", pen), lam, SolverOptions(solver, tol=1e-8, max_iter=200000))
    assert res.converged
    ref = LogisticRegression(C=1 / (len(y) * lam), l1_ratio=1.0, solver="liblinear", tol=1e-10,
                             intercept_scaling=1e4, max_iter=100000).fit(X, y)
    scale = np.abs(X).max(axis=0)  # compare the coefficients' effects on the scores
    np.testing.assert_allclose(res.u * scale, ref.coef_[0] * scale, atol=1e-4)


def test_refit_scale_is_the_2d_minimiser_per_column():
    """Against scipy's BFGS on the same ridge-regularised 2-parameter log-loss, per column,
    including a separable column (finite only thanks to the tiny ridge)."""
    from scipy.optimize import minimize

    from interp_facets.refit import refit_scale

    rng = np.random.default_rng(0)
    n = 200
    y = np.where(rng.random(n) < 0.4, 1.0, -1.0)
    S = np.column_stack([rng.normal(size=n) + 0.8 * y, rng.integers(0, 4, n) + (y > 0),
                         rng.normal(size=n), y * (1 + rng.random(n))])  # the last is separable
    ridge = 1e-3
    a, b = refit_scale(S, y, "logistic", ridge=ridge, n_newton=100)
    for k in range(S.shape[1]):
        def f(p, s=S[:, k]):
            return np.mean(np.logaddexp(0, -y * (p[0] * s + p[1]))) + 0.5 * ridge * p[0] ** 2
        ref = minimize(f, [0.0, 0.0], method="BFGS", options={"gtol": 1e-12}).x
        assert f([a[k], b[k]]) <= f(ref) + 1e-10
        np.testing.assert_allclose([a[k], b[k]], ref, atol=1e-4)


@pytest.mark.parametrize("solver", SOLVERS)
def test_the_stopping_floor_is_per_coordinate(solver):
    """For a nearly unpenalised problem the stopping test is floored at 0.1 times each
    coordinate's own gradient at the intercept-only model.  Here one feature is on a scale of
    1e5: when its gradient set the floor for all coordinates, Newton stopped with the last
    coefficient held at 0, its optimality violated 1600x beyond this tolerance, and ISTA
    stopped with the second one 5.7x beyond."""
    rng = np.random.default_rng(0)
    n = 1000
    t, e = rng.normal(size=n), rng.normal(scale=np.sqrt(0.5), size=n)
    suppressor = e - 0.177 * t  # uncorrelated with the target until t is in the model
    y = np.where(3 * t + suppressor + rng.logistic(size=n) > 0, 1.0, -1.0)
    X = np.column_stack([1e5 * t, suppressor, rng.normal(size=(n, 2))])
    lam, tol = 1e-3, 1e-4
    pen, hyper = resolve_penalty("l1")
    res = solve(X, y, Objective("logistic", pen, hyper), lam, SolverOptions(solver, tol=tol, max_iter=100000))
    p_null = np.mean(y > 0)
    c = np.abs(X.T @ (-y * np.where(y > 0, 1 - p_null, p_null)) / n)  # gradients at the null model
    z = X @ res.u + res.intercept
    gu = X.T @ (-y / (1 + np.exp(y * z))) / n
    dist = lam * P.l1_subdiff_distance(res.u, gu / lam)
    assert res.converged
    assert c[0] > 1e4 * c[1:].max()  # the large feature alone would set a floor 1e4x looser
    assert np.all(dist <= tol * np.maximum(lam, 0.1 * c) * (1 + 1e-9))
    assert np.count_nonzero(res.u) == 4


@pytest.mark.parametrize("kwargs, message", [
    ({"solver": "Newton"}, "solver must be one of 'newton', 'fista', 'ista', got 'Newton'"),
    ({"loss": "Logistic"}, "loss must be one of 'logistic', 'squared', got 'Logistic'"),
])
def test_solve_names_an_unknown_solver_or_loss(kwargs, message):
    """An unknown solver used to run ISTA silently, and an unknown loss raised a bare KeyError."""
    X, y = classification_data(n=50)
    pen, hyper = resolve_penalty("l1")
    with pytest.raises(interp.InputError, match=message):
        objective = Objective(kwargs.get("loss", "logistic"), pen, hyper)
        solve(X, y, objective, 0.01, SolverOptions(kwargs.get("solver", "newton")))
    if "solver" in kwargs:
        with pytest.raises(interp.InputError, match=message):
            FacetsClassifier(solver=kwargs["solver"]).fit(X, y)


# -- the box |u_j| <= max_points -------------------------------------------------------------------
def _box_reference(X, y, objective, lam, M):
    """The box-constrained minimiser by scipy (Powell with bounds, from the unconstrained
    minimiser clipped and from zero, the better kept): independent of our prox."""
    from scipy.optimize import minimize

    datafit, pen, hyper, gamma = objective.datafit, objective.penalty, objective.hyper, objective.gamma
    d = X.shape[1]

    def f(x):
        return datafit.value(gamma * X @ x[:d] + x[d], y) + lam * pen.value(x[:d], **hyper)

    free = solve(X, y, attrs.evolve(objective, max_points=None), lam, SolverOptions(tol=1e-9, max_iter=5000))
    bounds = [(-M, M)] * d + [(None, None)]
    best = None
    for x0 in (np.r_[np.clip(free.u, -M, M), free.intercept], np.zeros(d + 1)):
        for _ in range(3):  # restart Powell where it stopped: it stalls on the kinks otherwise
            r = minimize(f, x0, method="Powell", bounds=bounds, options={"xtol": 1e-12, "ftol": 1e-15,
                                                                         "maxfev": 200000})
            x0 = r.x
        if best is None or r.fun < best.fun:
            best = r
    return best, free


@pytest.mark.parametrize("M", [2.0, 2.5])
@pytest.mark.parametrize("penalty", ["facets", "scf", "l1"])
@pytest.mark.parametrize("solver", SOLVERS)
def test_max_points_gives_the_box_constrained_minimiser(penalty, solver, M):
    """With every |u_j| <= M binding on some coordinates: our fit is feasible, stationary, and its
    objective is the numerical argmin's (a strictly convex logistic problem: the point too)."""
    X, y = classification_data(n=150, seed=7)
    X = X[:, :3]
    lam, gamma = 0.002, 0.2
    objective = Objective("logistic", *resolve_penalty(penalty, 0.05), gamma=gamma, max_points=M)
    tol = 1e-9 if solver == "newton" else 1e-7  # ISTA's linear rate is slow here
    res = solve(X, y, objective, lam, SolverOptions(solver, tol=tol, max_iter=20000))
    ref, free = _box_reference(X, y, objective, lam, M)
    assert res.converged and np.max(np.abs(res.u)) <= M
    assert np.max(np.abs(free.u)) > M + 0.5  # the box binds
    assert np.sum(np.abs(res.u) == M) >= 1  # on the bound exactly
    assert res.objective <= ref.fun + 1e-8
    np.testing.assert_allclose(np.r_[res.u, res.intercept], ref.x, atol=2e-4)


@pytest.mark.parametrize("penalty", ["facets", "scf"])
@pytest.mark.parametrize("M", [0.5, 1.0, 2.0, 3.7])
def test_max_points_in_one_dimension_matches_brute_force(penalty, M):
    """min over |u| <= M of sum (y - gamma x u)^2 / (2n) + lam Omega(u) by bounded Brent."""
    rng = np.random.default_rng(4)
    x = rng.normal(size=80)
    y = 3.3 * x + rng.normal(scale=0.5, size=80)
    lam, gamma = 0.2, 0.5
    pen, hyper = resolve_penalty(penalty)
    res = solve(x[:, None], y, Objective("squared", pen, hyper, gamma=gamma, fit_intercept=False, max_points=M),
                lam, SolverOptions(tol=1e-10, max_iter=10000))
    f = lambda u: np.mean((y - gamma * x * u) ** 2) / 2 + lam * pen.value(np.array([u]), **hyper)  # noqa: E731
    ref = minimize_scalar(f, bounds=(-M, M), method="bounded", options={"xatol": 1e-12}).x
    assert res.converged and abs(res.u[0]) <= M
    assert res.u[0] == pytest.approx(ref, abs=1e-6)


def test_max_points_none_and_a_loose_box_change_nothing():
    X, y = classification_data(seed=3)
    pen, hyper = resolve_penalty("scf")
    fits = [solve(X, y, Objective("logistic", pen, hyper, gamma=0.3, max_points=M), 0.01) for M in (None, 1e6)]
    np.testing.assert_array_equal(fits[0].u, fits[1].u)
    assert fits[0].intercept == fits[1].intercept


def test_a_warm_start_outside_the_box_is_clipped_into_it():
    X, y = classification_data(seed=3)
    objective = Objective("logistic", *resolve_penalty("facets"), gamma=0.3, max_points=1)
    res = solve(X, y, objective, 0.01, SolverOptions("ista", tol=1e-8, max_iter=20000), WarmStart(np.full(5, 9.0)))
    ref = solve(X, y, objective, 0.01, SolverOptions("ista", tol=1e-8, max_iter=20000))
    assert res.converged and np.max(np.abs(res.u)) <= 1
    np.testing.assert_allclose(res.u, ref.u, atol=1e-6)


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf"), "5", True])
def test_bad_max_points_is_an_input_error(bad):
    with pytest.raises(interp.InputError, match="max_points must be None or a number > 0"):
        Objective("logistic", P.SCF, max_points=bad)


@pytest.mark.parametrize("solver", SOLVERS)
def test_a_solver_class_run_on_a_problem_is_solve(solver):
    """SolverOptions makes the solver object (ISTA, FISTA, ProxNewton); its run on the problem
    returns the named result solve returns, bit for bit."""
    from interp_facets.first_order import FISTA, ISTA
    from interp_facets.newton import ProxNewton
    from interp_facets.problem import SolveResult

    X, y = classification_data(seed=1)
    X = np.asfortranarray(X)
    objective = Objective("logistic", P.SCF.bind(eps=0.05), gamma=0.3, max_points=3)
    options = SolverOptions(solver, tol=1e-7, max_iter=5000, check_every=4)
    made = options.make_solver()
    assert made == {"newton": ProxNewton(1e-7, 5000), "fista": FISTA(1e-7, 5000, 4), "ista": ISTA(1e-7, 5000)}[solver]
    P_ = Problem(X, y, objective, 0.01)
    res = made.run(P_, np.zeros(X.shape[1]), 0.0, P_.lipschitz_max)
    ref = solve(X, y, objective, 0.01, options)
    assert isinstance(res, SolveResult) and res.converged
    np.testing.assert_array_equal(res.u, ref.u)
    assert (res.intercept, res.n_iter) == (ref.intercept, ref.n_iter)
