"""The propositional method refuses, before any work: a target that is not two classes, a fit
beyond the memory budget, a formula whose rules' search is beyond the work bound."""

import numpy as np
import pytest

import interp
from interp.resources import MEMORY_ENV, ResourceError


def _votes_csv(path, rows=None, target=None):
    data = interp.load_dataset("house-votes-84")
    frame = data.raw.copy()
    frame["party"] = data.y if target is None else target(len(frame))
    frame.iloc[:rows].to_csv(path, index=False)
    return path


def _one_line(result, *words):
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    for word in words:
        assert word in result.output, result.output


def test_a_quantity_is_refused_naming_the_methods_that_regress(run, tmp_path):
    """Diabetes' progression (214 whole numbers) was explained as "72.0 vs rest" at AUC 0.56."""
    _one_line(run("run", "--method", "propositional", "--dataset", "diabetes", "--quiet"),
              "target 'progression' has 214 distinct values; propositional separates two classes",
              "--positive (the most frequent is '72')", "a regression method (symbolic, featurevec)")
    data = interp.load_dataset("diabetes")
    frame = data.raw.assign(level=data.y / 7)  # fractions: a measurement, never a class
    frame.to_csv(tmp_path / "measured.csv", index=False)
    _one_line(run("run", "--method", "propositional", "--data", tmp_path / "measured.csv", "--target", "level",
                  "--quiet", "--positive", "10.0"),
              "target 'level' is a quantity (214 distinct numbers), not a class label",
              "explain it with a regression method (symbolic, featurevec)")


def test_fifty_classes_need_the_positive_class_named(run, tmp_path):
    """With 50 classes the most frequent one against the rest gave rules of weight 1e-17."""
    path = _votes_csv(tmp_path / "many.csv", target=lambda n: [f"c{i % 50}" for i in range(n)])
    _one_line(run("run", "--method", "propositional", "--data", path, "--target", "party", "--quiet"),
              "target 'party' has 50 distinct values; propositional separates two classes",
              "with --positive (the most frequent is 'c0')")
    named = run("run", "--method", "propositional", "--data", path, "--target", "party", "--quiet", "--positive",
                "c3", "--formula", "a", "--cv", "2", "--top", "1")
    assert named.exit_code == 0 and "positive class 'c3'" in named.output, named.output


def test_a_formula_beyond_the_rules_work_bound_is_refused_at_once(run, tmp_path):
    """150 leaves passed the float64 size check and took 64 to 100 s on 200 rows."""
    from interp_propositional.explain import most_leaves

    path = _votes_csv(tmp_path / "votes200.csv", rows=200)
    formula = " | ".join(f"(v{2 * i} & ~v{2 * i + 1})" for i in range(75))
    assert most_leaves(200) == 64
    _one_line(run("run", "--method", "propositional", "--data", path, "--target", "party", "--quiet",
                  "--formula", formula), "--formula has 150 leaves", "at most 64 leaves fit")
    _one_line(run("run", "--method", "propositional", "--dataset", "house-votes-84", "--quiet", "--max-leaves",
                  "80"), "--max-leaves 80 leaves", "at most 59 leaves fit")


def test_an_exact_fit_beyond_the_budget_is_refused_naming_the_rows(run, monkeypatch):
    monkeypatch.setenv(MEMORY_ENV, "2M")
    _one_line(run("run", "--method", "propositional", "--dataset", "house-votes-84", "--quiet", "--formula", "a"),
              "the exact SVM on 435 rows needs about",
              "rows fit (subsample the rows, or lower --max-exact-rows)")


def test_the_estimator_checks_the_same_estimate(monkeypatch):
    from interp_propositional import PropositionalSVC

    monkeypatch.setenv(MEMORY_ENV, "1M")
    X = (np.random.default_rng(0).random((400, 6)) < 0.5).astype(int)
    y = X[:, 0] ^ X[:, 1]
    with pytest.raises(ResourceError, match=r"rows fit \(subsample the rows, or approximate\)"):
        PropositionalSVC(formula="a & b", approximate="never").fit(X, y)
    with pytest.raises(ResourceError, match=r"\(10 landmarks\) on 400 rows, its formula selected on 400 needs"):
        PropositionalSVC(approximate="always", n_landmarks=10, selection_rows=400).fit(X, y)
