"""Fitted models keep the operators they resolved: a pickled model predicts and prints its rules
the same in a process where the propositional plugin (and any third-party one) is disabled."""

from __future__ import annotations

import numpy as np
from sklearn.svm import SVC

from interp.testing import check_stands_alone
from interp_propositional import PropositionalKernel, PropositionalSVC

from .propositional_helpers import random_binary


def _describe(models, X):
    """What a person sees of the fitted models: decisions, predictions and rules."""
    from interp_propositional import explain_svc

    given, selected, svc, approximated = models
    out = {}
    for name, est in (("given", given), ("selected", selected), ("approximated", approximated)):
        rules, exact = est.explain(top=3)
        out[name] = {"formula": est.formula_, "decision": est.decision_function(X).tolist(),
                     "predict": est.predict(X).tolist(), "exact": exact,
                     "rules": [[r.rule, r.weight, r.supports] for r in rules]}
    rules, _ = explain_svc(svc, X, top=3)
    out["svc"] = {"decision": svc.decision_function(X).tolist(), "rules": [r.rule for r in rules]}
    return out


def test_pickled_models_work_without_the_plugins(majority):
    rng = np.random.default_rng(0)
    X = random_binary(rng, 40, 5)
    y = (((X[:, 0] > 0) & (X[:, 1] < 1)) | (X[:, 2] > 0)).astype(int)
    models = (
        PropositionalSVC(formula="maj(a, ~b, c) | nand(d, e)", C=10).fit(X, y),  # a third-party operator
        PropositionalSVC(n_candidates=4, random_state=0, max_leaves=4, selection="radius-margin").fit(X, y),
        SVC(kernel=PropositionalKernel("a ^ ~b"), C=10).fit(X, y),
        PropositionalSVC(formula="maj(a, ~b, c) | d", approximate="always", n_landmarks=12, random_state=0).fit(X, y),
    )
    assert set(models[0].operators_) == {"or", "maj", "not", "nand"}
    check_stands_alone(_describe, models, X, disabled=["propositional"])
