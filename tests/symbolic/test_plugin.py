"""Registration, the `symbolic` method, explain_blackbox, bad input and scikit-learn checks."""

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

import interp
from interp import InputError
from interp.runner import RunContext, run_method
from interp_symbolic import SymbolicPursuitClassifier, SymbolicPursuitRegressor, explain_blackbox

PAPER = {"meijer_1002": (1, 0, 0, 2), "meijer_0131": (0, 1, 3, 1), "meijer_2123": (2, 1, 2, 3),
         "meijer_2233": (2, 2, 3, 3), "meijer_2013": (2, 0, 1, 3)}


def test_families_and_method_registered():
    reg = interp.get_registry()
    for name, orders in PAPER.items():
        fam = reg.ridge_families[name]
        assert fam.orders == orders and fam.plugin == "symbolic"
    assert reg.methods["symbolic"].plugin == "symbolic"


def _data(n=160, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 3))
    y = np.exp(-(X[:, 0] + 2 * X[:, 1])) + 0.1 * X[:, 2]
    return X, y


def test_run_method_payload():
    X, y = _data()
    data = interp.load_dataset(X, y=y, feature_names=["a", "b", "c"])
    res = run_method("symbolic", data, {"model": "gbm", "max_terms": 1, "n_restarts": 1, "maxiter": 40},
                     RunContext(seed=0, quiet=True))
    for key in ("expression", "latex", "mathml", "terms", "feature_importances"):
        assert key in res.payload
    fig = res.figures["fidelity"]
    assert len(fig.axes) == 2 and len(fig.axes[1].patches) == 3  # one importance bar per feature
    assert set(res.payload["feature_importances"]) == {"a", "b", "c"}
    assert res.metrics["fidelity_r2"] > 0.8
    assert res.metrics["n_terms"] == 1
    assert isinstance(res.estimator, SymbolicPursuitRegressor)
    assert "fidelity" in res.text
    res.to_dict()  # JSON-able
    formula, fidelity, models, terms, importances, shapes, figure = res.sections
    assert isinstance(formula, interp.Formula) and formula.text.startswith("f(x) = ")
    assert formula.text.splitlines()[1].startswith("u1 = ")  # the term's argument, in the feature names
    assert formula.latex.startswith("f(x) = ") and "<mrow>" in formula.mathml
    assert isinstance(fidelity, interp.Text) and "held-out rows" in fidelity.body
    assert isinstance(models, interp.Table) and models.title.startswith("Models by size")
    assert {row[1] for row in models.rows} == {1} and [row[0] for row in models.rows].count("*") == 1
    assert isinstance(terms, interp.Table) and len(terms.rows) == 1
    assert isinstance(importances, interp.Table) and {row[0] for row in importances.rows} == {"a", "b", "c"}
    assert isinstance(shapes, interp.Figure) and shapes.name == "shapes" and "shapes" in res.figures
    assert isinstance(figure, interp.Figure) and figure.name == "fidelity"
    assert interp.Explanation.from_dict(res.to_dict()).sections == res.sections


def test_run_method_classification_is_a_classifier():
    X, y = _data(120, seed=2)
    labels = np.where(y > np.median(y), "high", "low")
    data = interp.load_dataset(X, y=labels, feature_names=["a", "b", "c"])
    res = run_method("symbolic", data, {"model": "gbm", "max_terms": 1, "n_restarts": 1, "maxiter": 20},
                     RunContext(seed=0, quiet=True))
    est = res.estimator
    assert isinstance(est, SymbolicPursuitClassifier) and list(est.classes_) == ["high", "low"]
    assert res.params["task"] == "classification"
    assert 0 <= res.metrics["symbolic_accuracy"] <= 1 and res.metrics["fidelity_r2"] > 0.5
    main, link = res.sections[0].text.splitlines()[:2]
    assert main.startswith("f(x) = ") and link == "P(y=low) = 1/(1 + exp(-f(x)))"  # the logit, then the link
    assert res.finding == f"{main}; {link}" or res.finding.endswith(f"...; {link}")


@pytest.mark.parametrize("options, flag", [
    ({"max_terms": 0}, "--max-terms"), ({"n_restarts": 0}, "--n-restarts"), ({"maxiter": 0}, "--maxiter"),
    ({"test_size": 1.5}, "--test-size"), ({"test_size": 0.0}, "test_size"), ({"model": "knn"}, "--model"),
    ({"max_fit_rows": 1}, "--max-fit-rows"), ({"max_blackbox_rows": 0}, "--max-blackbox-rows"),
])
def test_method_options_are_checked_in_one_line(options, flag):
    X, y = _data(40)
    data = interp.load_dataset(X, y=y, feature_names=["a", "b", "c"])
    with pytest.raises(InputError, match=flag) as err:
        run_method("symbolic", data, options, RunContext(seed=0, quiet=True))
    assert "\n" not in str(err.value)


def test_task_is_inferred_by_the_shared_rule():
    X, y = _data(60)
    labels = (y > np.median(y)).astype(int)  # integer labels: classification, as for every method
    res = explain_blackbox("gbm", X, labels, max_terms=1, n_restarts=1, maxiter=5, random_state=0,
                           families=["meijer_0131"])
    assert res.params["task"] == "classification"
    assert isinstance(res.estimator, SymbolicPursuitClassifier)


def test_model_selection_and_simplify_tol_pass_through_and_digits_are_a_size():
    """The command line gives --model-selection as text: digits are a number of terms."""
    X, y = _data(80)
    res = explain_blackbox("gbm", X, y, max_terms=2, n_restarts=1, maxiter=20, random_state=0,
                           families=["meijer_0131", "meijer_2123"], model_selection="1", simplify_tol=0.02,
                           loss_tol=0.0)
    est = res.estimator
    assert est.model_selection == 1 and est.simplify_tol == 0.02
    assert est.equations_.loc[est.selected_, "n_terms"] == est.n_terms_ == 1 and res.params["model_selection"] == "1"
    with pytest.raises(InputError, match="model_selection"):
        explain_blackbox("gbm", X, y, max_terms=1, n_restarts=1, maxiter=5, model_selection="fewest")


def test_explain_blackbox_with_fitted_model_and_classification():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(1)
    X = rng.uniform(size=(120, 2))
    y = (X[:, 0] + 0.5 * X[:, 1] + 0.2 * rng.standard_normal(120) > 0.75).astype(int)
    lr = LogisticRegression().fit(X, y)
    res = explain_blackbox(lr, X, y, task="classification", max_terms=1, random_state=0,
                           n_restarts=1, maxiter=40, families=["meijer_0131", "meijer_2123"])
    assert res.metrics["fidelity_r2"] > 0.9
    assert "symbolic_accuracy" in res.metrics



def test_an_expression_sympy_cannot_build_still_gives_an_explanation(monkeypatch):
    """The fitted model still predicts; the formula section says so and the payload's formula is None."""
    import interp_symbolic.expression as expression

    def fail(*args, **kwargs):
        raise RuntimeError("sympy gave up")

    monkeypatch.setattr(expression, "build_expression", fail)
    X, y = _data(60)
    res = explain_blackbox("gbm", X, y, max_terms=1, n_restarts=1, maxiter=5, random_state=0,
                           families=["meijer_0131"])
    assert res.estimator.expression_ is None and "could not build" in res.sections[0].text
    assert res.payload["expression"] is None and res.payload["latex"] is None and res.payload["mathml"] is None
    assert np.isfinite(res.metrics["fidelity_r2"])

class _NaNBox:
    def predict(self, X):
        out = np.ones(len(X))
        out[0] = np.nan
        return out


@pytest.mark.parametrize("case", ["nan", "inf", "one_row", "constant", "nan_box", "test_size", "task"])
def test_bad_input_is_one_line_input_error(case):
    X, y = _data(40)
    model = "gbm"
    if case == "nan":
        X[3, 1] = np.nan
    elif case == "inf":
        X[3, 1] = np.inf
    elif case == "one_row":
        X, y = X[:1], y[:1]
    elif case == "constant":
        y = np.full(len(y), 2.0)
    elif case == "nan_box":
        model = _NaNBox()
    options = dict(max_terms=1, n_restarts=1, maxiter=5)
    if case == "test_size":
        options["test_size"] = 0.99  # leaves one row to fit on
    elif case == "task":
        options["task"] = "ranking"
    with pytest.raises(InputError) as err:
        explain_blackbox(model, X, y, **options)
    assert "\n" not in str(err.value)


_SMALL = dict(max_terms=1, n_restarts=1, maxiter=5, random_state=0, families=["meijer_0131"])


@parametrize_with_checks([SymbolicPursuitRegressor(**_SMALL), SymbolicPursuitClassifier(**_SMALL)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("families, tried", [
    ("meijer_1002", ["meijer_1002"]),
    ("-meijer_2*,-meijer_0131", ["meijer_1002"]),
])
def test_families_option_selects_the_families_the_pursuit_tries(families, tried):
    X, y = _data(n=80)
    data = interp.load_dataset(X, y=y, feature_names=["a", "b", "c"])
    res = run_method("symbolic", data, {"model": "gbm", "max_terms": 1, "n_restarts": 1, "maxiter": 20,
                                        "families": families}, RunContext(seed=0, quiet=True))
    assert res.estimator.families_ == tried and res.params["families"] == tried
