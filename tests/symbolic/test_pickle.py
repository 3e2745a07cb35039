"""Fitted models keep the ridge families they resolved at fit: a pickled regressor and classifier
predict and print their formula the same in a process where the symbolic plugin (and the
third-party plugin that gave two of the families) is disabled."""

from __future__ import annotations

from interp.testing import check_stands_alone

import numpy as np
import pytest

from interp import RidgeFamily, hookimpl, registry
from interp_symbolic import SymbolicPursuitClassifier, SymbolicPursuitRegressor

FAST = dict(max_terms=2, n_restarts=1, maxiter=30, random_state=0)


class Quadratic(RidgeFamily):
    """g(u) = a u + b u^2: a third-party family defined by methods (pickled by reference)."""

    name = "test_quadratic_methods"
    init_theta = (0.0, 1.0)

    def value(self, theta, u):
        return theta[0] * u + theta[1] * u**2

    def gradient(self, theta, u):
        return np.vstack([u, u**2]), theta[0] + 2 * theta[1] * u


class _ThirdPartyFamilies:
    @hookimpl
    def register_ridge_families(self, register):
        register(Quadratic())
        register(RidgeFamily(name="test_meijer_1122", orders=(1, 1, 2, 2), init_a=(0.0, 0.3),
                             init_b=(0.0, -0.2), init_scale=1.0))


@pytest.fixture
def third_party_families():
    registry.register_plugin(_ThirdPartyFamilies(), "test-pickle-families")
    yield
    registry.unregister_plugin("test-pickle-families")


def _describe(models, X):
    """What a person sees of the fitted models: predictions, the formula, the terms table."""
    from interp_symbolic.render import formula_section, terms_table

    out = {}
    for name, est in models.items():
        seen = {"expression": str(est.expression_), "latex": est.to_latex(), "mathml": est.to_mathml(),
                "shown": formula_section(est, "").text, "terms": [list(r) for r in terms_table(est).rows],
                "term_dicts": [tm.as_dict() for tm in est.terms_],
                "numpy_function": est.numpy_function()(X).tolist(), "predict": est.predict(X).tolist()}
        if hasattr(est, "predict_proba"):
            seen.update(proba=est.predict_proba(X).tolist(), decision=est.decision_function(X).tolist())
        out[name] = seen
    return out


def test_pickled_models_work_without_the_plugins(third_party_families):
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(80, 2))
    y = (X[:, 0] + X[:, 1]) ** 2
    p = 1 / (1 + np.exp(-(3 * X[:, 0] - 2 * X[:, 1])))
    models = {
        "regressor": SymbolicPursuitRegressor(families=["test_quadratic_methods", "meijer_0131"],
                                              **FAST).fit(X, y),
        "classifier": SymbolicPursuitClassifier(families=["test_meijer_1122", "meijer_2123"], **FAST).fit(
            X, np.where(p > 0.5, "b", "a"), proba=p),
    }
    families = {tm.family for est in models.values() for tm in est.terms_}
    assert families & {"test_quadratic_methods", "test_meijer_1122"}, families  # a third-party term
    check_stands_alone(_describe, models, X, disabled=["symbolic"])
