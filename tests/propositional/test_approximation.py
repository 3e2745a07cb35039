"""Kernels beyond an exact Gram matrix: the Nystroem map, the approximate SVM, its rules, the
switch between the two and the refusal of a map too big for memory."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

import interp
from interp.runner import run_method
from interp_propositional import (
    Approximation,
    PropositionalNystroem,
    PropositionalSVC,
    feature_weights,
    propositional_kernel,
    propositional_kernel_diagonal,
)
from interp_propositional.estimator import APPROXIMATE_MODES

from .propositional_helpers import brute_features, random_binary


def _design(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A fixed synthetic design: 12 numeric features, a logistic target with an interaction."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 12))
    logit = 1.2 * X[:, 0] - X[:, 1] + 0.8 * X[:, 2] * X[:, 3] + np.where(X[:, 4] > 0.5, 1.0, -0.5)
    return X, (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)


def test_the_map_reproduces_the_kernel_when_the_landmarks_span_the_rows():
    rng = np.random.default_rng(0)
    X = random_binary(rng, 300, 5)  # 32 distinct rows at most: all become landmarks
    for formula, normalize in (("(a & ~b) | c", True), ("a ^ b", False)):
        ny = PropositionalNystroem(formula, normalize=normalize, n_components=100, random_state=0).fit(X)
        assert len(ny.landmarks_) == len(np.unique(X, axis=0))
        phi = ny.transform(X).astype(float)
        K = propositional_kernel(formula, X, normalize=normalize)
        np.testing.assert_allclose(phi @ phi.T, K, atol=1e-4 * K.max())
        assert ny.transform(X).dtype == (np.float32 if normalize else np.float64)


def test_the_map_is_exact_against_the_landmarks_and_pickles():
    rng = np.random.default_rng(1)
    X, Z = random_binary(rng, 400, 30), random_binary(rng, 50, 30)
    ny = PropositionalNystroem("a & ~b", n_components=80, random_state=3).fit(X)
    assert ny.landmarks_.shape == (80, 30) and ny.n_features_out_ == ny.components_.shape[1] <= 80
    np.testing.assert_allclose(ny.transform(ny.landmarks_) @ ny.transform(Z).T,
                               propositional_kernel("a & ~b", ny.landmarks_, Z, normalize=True), atol=2e-5)
    again = PropositionalNystroem("a & ~b", n_components=80, random_state=3).fit(X)
    np.testing.assert_array_equal(again.landmarks_, ny.landmarks_)  # drawn with random_state
    import pickle

    np.testing.assert_array_equal(pickle.loads(pickle.dumps(ny)).transform(Z), ny.transform(Z))


@pytest.mark.parametrize("normalize", [True, False])
def test_rules_of_the_approximation_reproduce_its_decision_function(normalize):
    """Decision = kernel expansion over the landmarks = sum_F w_F phi_F(x) (/|phi(x)|) + b."""
    rng = np.random.default_rng(2)
    X = random_binary(rng, 200, 4)
    y = (((X[:, 0] > 0) & (X[:, 1] < 1)) | (X[:, 3] > 0)).astype(int)
    formula = "(a & ~b) | c"
    est = PropositionalSVC(formula=formula, normalize=normalize, approximate="always", n_landmarks=12,
                           random_state=0).fit(X, y)
    L, alpha = est.feature_map_.landmarks_, est.landmark_coef_[:, 0]
    if normalize:  # a landmark without logical features (k(l, l) = 0) has weight 0
        d = propositional_kernel_diagonal(formula, L)
        alpha = np.where(d > 0, alpha / np.sqrt(np.where(d > 0, d, 1.0)), 0.0)
    W = feature_weights(formula, L, alpha)
    assert np.allclose(W, alpha @ brute_features(formula, L))
    Xt = random_binary(rng, 30, 4)
    Xt = Xt[Xt.sum(axis=1) > 0]
    phi = brute_features(formula, Xt).astype(float)
    if normalize:
        phi /= np.sqrt(propositional_kernel_diagonal(formula, Xt))[:, None]
    np.testing.assert_allclose(phi @ W + est.intercept_[0], est.decision_function(Xt), rtol=1e-9, atol=1e-9)
    # ... and equals the linear model on the feature map, up to the map's float32 rounding
    linear = est.linear_.decision_function(est.feature_map_.transform(Xt))
    np.testing.assert_allclose(est.decision_function(Xt), linear, atol=1e-4 * np.abs(linear).max())
    rules, _ = est.explain(top=3, feature_names=list("pqrs"))
    assert rules and abs(rules[0].weight) == pytest.approx(np.abs(W).max(), rel=1e-12)


def test_approximate_auc_is_within_0_01_of_the_exact_svm():
    """At the default number of landmarks (1,000) on 3,000 training rows, where the exact Gram
    matrix still fits: the measurement of docs/methods/propositional.md, smaller."""
    X, y = _design(5000)
    train, test = slice(0, 3000), slice(3000, None)
    for formula in ("a & ~b", "(a | b) ^ ~c"):
        common = dict(formula=formula, binarize="auto", random_state=0)
        exact = PropositionalSVC(**common, approximate="never").fit(X[train], y[train])
        approx = PropositionalSVC(**common, approximate="always").fit(X[train], y[train])
        auc_exact = roc_auc_score(y[test], exact.decision_function(X[test]))
        auc_approx = roc_auc_score(y[test], approx.decision_function(X[test]))
        assert approx.approximation_.n_landmarks == 1000 and exact.approximation_ is None
        assert abs(auc_approx - auc_exact) <= 0.01, (formula, auc_exact, auc_approx)


def test_the_switch_follows_max_exact_rows_and_the_selection_runs_on_a_subsample():
    X, y = _design(400)
    small = dict(binarize="auto", random_state=0, n_landmarks=60)
    assert PropositionalSVC(formula="a", max_exact_rows=400, **small).fit(X, y).approximation_ is None
    est = PropositionalSVC(max_exact_rows=399, n_candidates=3, selection_rows=100, selection="radius-margin", **small).fit(X, y)
    assert est.approximation_ == Approximation(400, 60, est.feature_map_.n_features_out_)
    assert est.selection_.n_rows == 100
    assert not hasattr(est, "svc_") and not hasattr(est, "X_fit_")
    assert est.predict(X[:5]).tolist() == [int(v > 0) for v in est.decision_function(X[:5])]
    options = {o.name: o for o in interp.get_registry().methods["propositional"].options}
    assert options["approximate"].choices == APPROXIMATE_MODES  # the CLI's choices are the estimator's
    for bad, words in ((dict(approximate="sometimes"), "approximate must be one of auto, never, always"),
                       (dict(n_landmarks=0), "n_landmarks must be a positive integer"),
                       (dict(max_exact_rows=2.5), "max_exact_rows must be a positive integer")):
        with pytest.raises(interp.InputError, match=words):
            PropositionalSVC(formula="a", binarize="auto", **bad).fit(X, y)


def test_multiclass_approximation_predicts_by_the_largest_decision():
    X, y = _design(300)
    y3 = np.digitize(X[:, 0], [-0.5, 0.5])
    est = PropositionalSVC(formula="a & ~b", binarize="auto", approximate="always", n_landmarks=50,
                           random_state=0).fit(X, y3)
    scores = est.decision_function(X)
    assert scores.shape == (300, 3)
    np.testing.assert_array_equal(est.predict(X), est.classes_[scores.argmax(axis=1)])
    assert (est.predict(X) == y3).mean() > 0.8
    with pytest.raises(interp.InputError, match="binary classifiers only"):
        est.explain()


def test_the_run_says_it_approximates():
    data = interp.load_dataset("house-votes-84")
    result = run_method("propositional", data, {"formula": "a & ~b", "cv": 2, "top": 2, "max_exact_rows": 100,
                                                "n_landmarks": 50}, interp.RunContext(seed=0, quiet=True))
    assert result.metrics["approximation"] == "nystroem m=50" and result.metrics["auc"] > 0.95
    assert result.payload["approximation"]["n_landmarks"] == 50
    note = [s for s in result.sections if isinstance(s, interp.Text) and s.title == "kernel approximation"]
    assert note and "approximation: nystroem m=50 landmark rows" in note[0].body and note[0].body in result.text
    assert " & ~" in result.payload["rules"][0]["feature"]
    exact = run_method("propositional", data, {"formula": "a & ~b", "cv": 2, "top": 2},
                       interp.RunContext(seed=0, quiet=True))
    assert "approximation" not in exact.metrics and exact.payload["approximation"] is None


def test_a_map_too_big_is_refused_in_one_line(run, monkeypatch):
    from interp_propositional.estimator import fit_memory

    monkeypatch.setenv("INTERP_MEMORY_LIMIT", "100K")
    res = run("run", "--plugin", "propositional", "--dataset", "house-votes-84", "--quiet", "--formula", "a",
              "--approximate", "always", "--n-landmarks", "50", "--n-jobs", "1")
    assert res.exit_code == 2 and res.output.count("\n") == 1, res.output
    most = max(n for n in range(436) if fit_memory(n, 50, 0, approximate=True) <= 100 * 1024)
    assert "the Nystroem approximation (50 landmarks) on 435 rows needs about" in res.output
    assert f"at most {most} rows fit (subsample the rows)" in res.output
    for args, words in ((["--n-landmarks", "0"], "--n-landmarks must be >= 1"),
                        (["--max-exact-rows", "0"], "--max-exact-rows must be >= 1")):
        res = run("run", "--plugin", "propositional", "--dataset", "house-votes-84", "--quiet", *args)
        assert res.exit_code == 2 and words in res.output and res.output.count("\n") == 1, (args, res.output)
    res = run("run", "--plugin", "propositional", "--dataset", "house-votes-84", "--quiet", "--approximate", "often")
    assert res.exit_code == 2 and "'often' is not one of 'auto', 'never', 'always'" in res.output


def test_a_map_of_many_blocks_reports_its_progress(monkeypatch):
    """The kernel map of many rows (2.1 million: 250 blocks, minutes) reports one step per
    block to ``interp.progress``; a map of one block reports nothing."""
    import interp_propositional.nystroem as nystroem

    X = random_binary(np.random.default_rng(0), 200, 6)
    phi = PropositionalNystroem("a & b", n_components=20, random_state=0).fit(X)
    whole = phi.transform(X)
    steps = []
    with interp.progress.on_progress(lambda desc, done, total: steps.append((desc, done, total))):
        phi.transform(X)
        assert steps == []
        monkeypatch.setattr(nystroem, "BLOCK_ENTRIES", 50 * 20)  # 50 rows a block: 4 blocks
        blocked = phi.transform(X)
    assert [s[1:] for s in steps] == [(1, 4), (2, 4), (3, 4), (4, 4)] and steps[0][0] == "kernel of 200 rows"
    np.testing.assert_array_equal(blocked, whole)
