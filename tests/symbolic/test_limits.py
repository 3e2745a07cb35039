"""Symbolic refuses a fit beyond the memory budget before any work (before it trains the black
box), reads a supplied model's columns by name, and ranks its interactions without a Python
object per pair."""

from types import SimpleNamespace

import joblib
import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LinearRegression

import interp
from interp.resources import MEMORY_ENV, ResourceError


def _wide_csv(path, rows=50, columns=200):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(rows, columns))
    header = ",".join([f"f{i}" for i in range(columns)] + ["y"])
    np.savetxt(path, np.column_stack([X, X[:, 0] + X[:, 1]]), delimiter=",", header=header, comments="",
               fmt="%.5g")
    return path


def test_a_wide_csv_is_refused_before_the_black_box_is_trained(run, tmp_path, monkeypatch):
    import interp_symbolic.method as method

    def never(*args, **kwargs):
        raise AssertionError("the black box was trained before the refusal")

    monkeypatch.setattr(method, "make_blackbox", never)
    monkeypatch.setenv(MEMORY_ENV, "1M")
    result = run("run", "--method", "symbolic", "--data", _wide_csv(tmp_path / "wide.csv"), "--target", "y",
                 "--quiet")
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert "symbolic on 37 fitted rows x 200 features needs about" in result.output
    assert "features fit (drop columns)" in result.output


def test_more_features_than_a_formula_can_hold_are_refused_at_once():
    """10,000 columns took 8.9 GB and 251 s for formulas of 10,000 coefficients a term."""
    from interp.runner import run_method

    frame = pd.DataFrame(np.random.default_rng(0).normal(size=(10, 2001)), columns=[f"f{i}" for i in range(2001)])
    data = interp.load_dataset(frame.assign(y=frame["f0"]), "y")
    with pytest.raises(ResourceError, match="2,001 features are beyond its bound of 2,000; select at most 2,000"):
        run_method("symbolic", data, {}, interp.RunContext(quiet=True))


def test_the_estimator_refuses_a_billion_restarts_before_any_work(monkeypatch):
    from interp_symbolic import SymbolicPursuitRegressor

    monkeypatch.delenv(MEMORY_ENV, raising=False)
    X = np.random.default_rng(0).uniform(size=(40, 3))
    with pytest.raises(ResourceError, match=r"starting points per step fit \(lower n_restarts\)"):
        SymbolicPursuitRegressor(n_restarts=10**9).fit(X, X[:, 0])


def test_a_model_of_another_width_is_the_users_error(run, tmp_path):
    X = np.random.default_rng(0).normal(size=(30, 3))
    joblib.dump(LinearRegression().fit(X, X[:, 0]), tmp_path / "m.joblib")
    result = run("run", "--method", "symbolic", "--dataset", "diabetes", "--quiet", "--model-file",
                 tmp_path / "m.joblib", "--trust-model-file")
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert "the model was fitted on 3 columns; the data has 10" in result.output


def test_a_model_fitted_on_named_columns_in_another_order_reads_them_by_name():
    from interp_symbolic.method import Inputs, _blackbox

    data = interp.load_dataset("diabetes")
    frame = data.frame()
    reordered = frame[list(reversed(frame.columns))]
    model = LinearRegression().fit(reordered, data.y)
    box = _blackbox(model, Inputs(data.X, data.y, list(data.feature_names)), None, "regression", 0)
    np.testing.assert_allclose(model.predict(box.rows(data.X)), model.predict(reordered), rtol=1e-12)
    with pytest.warns(UserWarning, match="does not have valid feature names"):  # the misread, by position
        assert not np.allclose(model.predict(reordered.to_numpy()), model.predict(frame.to_numpy()))
    lacking = LinearRegression().fit(reordered.rename(columns={"bmi": "BMI"}), data.y)
    with pytest.raises(interp.InputError, match="the data lacks column 'BMI' that the model was fitted on"):
        _blackbox(lacking, Inputs(data.X, data.y, list(data.feature_names)), None, "regression", 0)


def test_the_strongest_interactions_are_those_of_a_sort_of_every_pair():
    from interp_symbolic.render import TOP_INTERACTIONS, _strongest_interactions

    rng = np.random.default_rng(0)
    for _ in range(200):
        d = int(rng.integers(1, 9))
        M = rng.integers(-2, 3, size=(d, d)) * rng.choice([1.0, 0.5], size=(d, d))  # ties and zeros
        M = M + M.T
        names = [str(n) for n in rng.permutation([f"n{i}" for i in range(d)])]
        pairs = sorted(((abs(M[i, j]), names[i], names[j], float(M[i, j])) for i in range(d)
                        for j in range(i + 1, d)), reverse=True)[:TOP_INTERACTIONS]
        expected = [dict(a=a, b=b, value=v) for _, a, b, v in pairs]
        assert _strongest_interactions(SimpleNamespace(interactions_=M), names) == expected


def test_options_large_together_are_refused_before_the_black_box_is_trained(run, monkeypatch):
    """--n-restarts 100 --maxiter 10000 --max-terms 20, each within its maximum, plan 9.9e10
    row-iterations on diabetes: refused at once, saying how many iterations fit."""
    import interp_symbolic.method as method

    def never(*args, **kwargs):
        raise AssertionError("the black box was trained before the refusal")

    monkeypatch.setattr(method, "make_blackbox", never)
    result = run("run", "--method", "symbolic", "--dataset", "diabetes", "--quiet", "--n-restarts", 100,
                 "--maxiter", 10000, "--max-terms", 20)
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert "20 terms x 1,500 starting points x 10,000 iterations on 331 rows, 9.9e+10 row-iterations" in result.output
    assert "(at these other sizes, at most 201 iterations)" in result.output


def test_each_option_at_its_maximum_alone_fits_the_work_bound():
    from interp_symbolic.estimator import MAX_FIT_WORK, fit_work, starts_per_step

    defaults = dict(max_terms=3, n_starts=starts_per_step(None, 3), maxiter=100, n_rows=1000)
    maxima = dict(max_terms=20, n_starts=starts_per_step(None, 100), maxiter=10_000, n_rows=100_000)
    for name, largest in maxima.items():
        assert fit_work(**{**defaults, name: largest}) <= MAX_FIT_WORK, name
    assert fit_work(**maxima) > MAX_FIT_WORK
