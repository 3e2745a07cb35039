"""SymbolicPursuitRegressor: fidelity on known functions, expression, importances, families."""

import pickle

import numpy as np
import pandas as pd
import pytest
import sympy

import interp
from interp import RidgeFamily, hookimpl
from interp_symbolic import SymbolicPursuitClassifier, SymbolicPursuitRegressor

FAST = dict(n_restarts=1, maxiter=60)


@pytest.fixture(scope="module")
def exp_fit():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(150, 2))
    Xt = rng.uniform(size=(300, 2))
    f = lambda Z: np.exp(-(Z[:, 0] + 2 * Z[:, 1]))  # noqa: E731
    est = SymbolicPursuitRegressor(max_terms=2, random_state=0,
                                   families=["meijer_2123", "meijer_0131", "meijer_1002"], **FAST)
    est.fit(pd.DataFrame(X, columns=["x1", "x2"]), f(X))
    return est, Xt, f


def test_exp_fidelity_on_held_out_points(exp_fit):
    est, Xt, f = exp_fit
    pred = est.predict(pd.DataFrame(Xt, columns=["x1", "x2"]))
    r2 = 1 - np.mean((pred - f(Xt)) ** 2) / np.var(f(Xt))
    assert r2 >= 0.99
    assert 1 <= est.n_terms_ <= 2
    assert est.loss_history_[0] == pytest.approx(1.0)
    assert all(b < a for a, b in zip(est.loss_history_, est.loss_history_[1:]))


def test_expression_numpy_function_matches_predict(exp_fit):
    est, Xt, _ = exp_fit
    X = pd.DataFrame(Xt, columns=["x1", "x2"])
    np.testing.assert_allclose(est.numpy_function()(Xt), est.predict(X), rtol=1e-8, atol=1e-10)
    names = {s.name for s in est.expression_.free_symbols}
    assert names <= {"x1", "x2"}
    assert "x" in est.to_latex()
    assert "<mrow>" in est.to_mathml()


def test_interactions_are_second_order_taylor_coefficients(exp_fit):
    est, Xt, _ = exp_fit
    x0 = est.baseline_row_
    f = lambda Z: est.predict(pd.DataFrame(Z, columns=["x1", "x2"]))  # noqa: E731
    h = 1e-4
    e0, e1 = np.eye(2)
    mixed = (f((x0 + h * e0 + h * e1)[None]) - f((x0 + h * e0 - h * e1)[None])
             - f((x0 - h * e0 + h * e1)[None]) + f((x0 - h * e0 - h * e1)[None]))[0] / (4 * h * h)
    assert est.interactions_[0, 1] == pytest.approx(mixed, rel=1e-3, abs=1e-4)


def test_importances_of_exp_follow_its_coefficients(exp_fit):
    """exp(-(x1 + 2 x2)) on two features of one distribution: x2 moves f about twice as much."""
    est, _, _ = exp_fit
    assert est.feature_importances_[1] / est.feature_importances_[0] == pytest.approx(2, rel=0.15)


def test_pickle_roundtrip(exp_fit):
    est, Xt, _ = exp_fit
    est2 = pickle.loads(pickle.dumps(est))
    X = pd.DataFrame(Xt, columns=["x1", "x2"])
    np.testing.assert_array_equal(est2.predict(X), est.predict(X))


def test_n_jobs_does_not_change_the_result():
    rng = np.random.default_rng(1)
    X = rng.uniform(size=(80, 2))
    y = np.sin(X[:, 0] + X[:, 1])
    kw = dict(max_terms=1, random_state=3, families=["meijer_1002", "meijer_0131"], n_restarts=2, maxiter=30)
    a = SymbolicPursuitRegressor(n_jobs=1, **kw).fit(X, y)
    b = SymbolicPursuitRegressor(n_jobs=2, **kw).fit(X, y)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


class _LinearFamilyPlugin:
    """A third-party plugin: a custom (non-Meijer) family and an extra Meijer configuration."""

    @staticmethod
    @hookimpl
    def register_ridge_families(register):
        register(RidgeFamily(
            name="test_quadratic", init_theta=(0.0, 1.0),
            value=lambda th, u: th[0] * u + th[1] * u**2,
            gradient=lambda th, u: (np.vstack([u, u**2]), th[0] + 2 * th[1] * u),
        ))
        register(RidgeFamily(name="test_meijer_1122", orders=(1, 1, 2, 2), init_a=(0.0, 0.3),
                             init_b=(0.0, -0.2), init_scale=1.0))


def test_third_party_families_are_used():
    from interp import registry

    registry.register_plugin(_LinearFamilyPlugin, name="test-families")
    fams = interp.get_registry().ridge_families
    assert "test_quadratic" in fams and "test_meijer_1122" in fams
    rng = np.random.default_rng(2)
    X = rng.uniform(size=(100, 2))
    y = (X[:, 0] + X[:, 1]) ** 2
    est = SymbolicPursuitRegressor(max_terms=1, random_state=0, families=["test_quadratic"], **FAST).fit(X, y)
    assert est.terms_[0].family == "test_quadratic"
    assert est.score(X, y) > 0.999
    np.testing.assert_allclose(est.numpy_function()(X), est.predict(X), rtol=1e-8, atol=1e-10)
    est2 = SymbolicPursuitRegressor(max_terms=1, random_state=0, families=["test_meijer_1122"], **FAST).fit(X, y)
    assert est2.score(X, y) > 0.9
    # default: every registered family competes, including the third-party ones
    est3 = SymbolicPursuitRegressor(max_terms=1, random_state=0, n_restarts=1, maxiter=5).fit(X, y)
    assert {"test_quadratic", "test_meijer_1122", "meijer_2233"} <= set(est3.families_)


def test_failing_family_loses_without_aborting():
    from interp import registry

    class Broken:
        @staticmethod
        @hookimpl
        def register_ridge_families(register):
            def bad(th, u):
                raise FloatingPointError("overflow")
            register(RidgeFamily(name="test_broken", init_theta=(1.0,), value=bad, gradient=bad))

    registry.register_plugin(Broken, name="test-broken")
    rng = np.random.default_rng(3)
    X = rng.uniform(size=(60, 2))
    y = X[:, 0] + 0.5 * X[:, 1]
    est = SymbolicPursuitRegressor(max_terms=1, random_state=0, families=["test_broken", "meijer_0131"],
                                   simplify=False, **FAST).fit(X, y)
    assert est.terms_[0].family == "meijer_0131"
    assert "failed" in str(est.family_log_[0]["test_broken"]) or est.family_log_[0]["test_broken"]


def test_classifier_sigmoid_link():
    rng = np.random.default_rng(4)
    X = rng.uniform(size=(120, 2))
    p = 1 / (1 + np.exp(-(3 * X[:, 0] - 2 * X[:, 1])))
    labels = np.where(p > 0.5, "yes", "no")
    est = SymbolicPursuitClassifier(max_terms=2, random_state=0, families=["meijer_0131", "meijer_2123"],
                                    **FAST).fit(X, labels, proba=p)
    proba = est.predict_proba(X)
    assert proba.shape == (120, 2)
    assert np.all((proba >= 0) & (proba <= 1))
    assert np.corrcoef(proba[:, 1], p)[0, 1] > 0.95
    np.testing.assert_allclose(est.numpy_function()(X), proba[:, 1], rtol=1e-8)
    # a classifier: labels from predict, the logit as decision function, "yes" (the larger) positive
    assert list(est.classes_) == ["no", "yes"]
    decision = est.decision_function(X)
    np.testing.assert_allclose(proba[:, 1], 1 / (1 + np.exp(-decision)))
    np.testing.assert_array_equal(est.predict(X), np.where(decision > 0, "yes", "no"))
    assert est.score(X, labels) > 0.9


def test_classifier_fits_labels_without_probabilities():
    rng = np.random.default_rng(5)
    X = rng.uniform(size=(120, 2))
    y = np.where(X[:, 0] + X[:, 1] > 1, 7, 3)
    est = SymbolicPursuitClassifier(max_terms=1, random_state=0, families=["meijer_0131"], **FAST).fit(X, y)
    assert list(est.classes_) == [3, 7]
    assert set(est.predict(X)) <= {3, 7}
    assert est.score(X, y) > 0.9


@pytest.mark.parametrize("y, proba, msg", [
    (np.arange(6) % 3, None, "Only binary classification is supported"),
    (np.linspace(0, 1, 6), None, "Unknown label type"),
    (np.arange(6) % 2, np.full(5, 0.5), "one probability per row"),
    (np.arange(6) % 2, np.full(6, 1.5), "probabilities in \\[0, 1\\]"),
])
def test_classifier_bad_target_is_one_line_input_error(y, proba, msg):
    X = np.random.default_rng(6).uniform(size=(6, 2))
    with pytest.raises(interp.InputError, match=msg) as err:
        SymbolicPursuitClassifier(max_terms=1, families=["meijer_0131"], **FAST).fit(X, y, proba=proba)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("params, msg", [
    (dict(simplify="yes"), "simplify must be True or False"),
    (dict(simplify_tol=-0.1), "simplify_tol must be a finite number >= 0"),
    (dict(simplify_tol=float("nan")), "simplify_tol"),
    (dict(model_selection="fastest"), "model_selection must be 'score', 'best', 'simplest' or a number of terms"),
    (dict(model_selection=0), "model_selection = 0 terms must be between 1 and max_terms"),
    (dict(model_selection=4), "between 1 and max_terms \\(3\\)"),
    (dict(model_selection=True), "model_selection must be"),
    (dict(validation_fraction=1.0), "validation_fraction must be in \\[0, 1\\)"),
    (dict(validation_fraction=-0.2), "validation_fraction"),
    (dict(validation_fraction="0.2"), "validation_fraction"),
])
@pytest.mark.parametrize("cls", [SymbolicPursuitRegressor, SymbolicPursuitClassifier])
def test_bad_hyperparameters_are_one_line_input_errors(cls, params, msg):
    X = np.random.default_rng(7).uniform(size=(20, 2))
    y = (X[:, 0] > 0.5).astype(int)
    with pytest.raises(interp.InputError, match=msg) as err:
        cls(max_terms=3, **params, **FAST).fit(X, y)
    assert "\n" not in str(err.value)


def test_same_random_state_same_table_and_hold_out():
    rng = np.random.default_rng(8)
    X = rng.uniform(size=(60, 2))
    y = np.exp(-X[:, 0])
    kw = dict(max_terms=1, families=["meijer_2123"], n_restarts=1, maxiter=20)
    a = SymbolicPursuitRegressor(random_state=5, **kw).fit(X, y)
    b = SymbolicPursuitRegressor(random_state=5, **kw).fit(X, y)
    c = SymbolicPursuitRegressor(random_state=6, **kw).fit(X, y)
    pd.testing.assert_frame_equal(a.equations_.drop(columns="sympy"), b.equations_.drop(columns="sympy"))
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    assert a.equations_["test_loss"].iloc[0] != c.equations_["test_loss"].iloc[0]  # another hold-out


@pytest.mark.parametrize("X, y, msg", [
    (np.array([[1.0, np.nan], [2.0, 3.0]]), np.array([1.0, 2.0]), "NaN"),
    (np.array([[1.0, 2.0]]), np.array([1.0]), "sample"),
])
def test_bad_input(X, y, msg):
    with pytest.raises(ValueError):
        SymbolicPursuitRegressor(max_terms=1).fit(X, y)


def test_hyperexpand_closed_form_is_used_when_exact():
    from interp_symbolic.expression import _closed_form

    cf, Z = _closed_form([[], []], [[0.5], [0.0]], 0.01, 1.0)
    assert cf is not None and cf.has(sympy.sin)
    cf2, _ = _closed_form([[0.3], [0.1]], [[0.1, 0.0], [0.3]], 0.01, 1.0)
    assert cf2 is not None and cf2.has(sympy.exp)


def test_terms_carry_their_closed_form(exp_fit):
    from interp_symbolic.closed_forms import ClosedForm

    est, _, _ = exp_fit
    d = est.terms_[0].as_dict()
    assert d["family"] in {"meijer_2123", "meijer_0131", "meijer_1002"} or isinstance(
        est.terms_[0].ridge_family, ClosedForm)
    assert isinstance(d["closed_form"], str) and d["closed_form"]
    assert len(d["direction"]) == 2 and np.isfinite(d["weight"])
