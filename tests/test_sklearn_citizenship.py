"""scikit-learn citizenship: every estimator of the four methods in a Pipeline, cloned and tuned by
GridSearchCV; every transformer with get_feature_names_out and set_output(transform="pandas"),
its names reaching the next step."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler

from interp import load_dataset
from interp.binarize import TabularBinarizer
from interp_facets import CardBinarizer, FacetsClassifier, FacetsClassifierCV, FacetsRegressor, FacetsRegressorCV
from interp_featurevec import FeatureVectors
from interp_propositional import PropositionalNystroem, PropositionalSVC
from interp_symbolic import SymbolicPursuitClassifier, SymbolicPursuitRegressor

TINY_SYMBOLIC = dict(max_terms=1, n_restarts=1, maxiter=10, simplify=False, families=["meijer_2013"], random_state=0)
SMALL_GRID = dict(gammas=2, betas=3, cv=2, max_rows=3, random_state=0)


def _rows(name: str, n: int, columns: int | None = None):
    """The first ``n`` rows of a bundled data set (shuffled once), raw, with its target."""
    data = load_dataset(name)
    order = np.random.default_rng(0).permutation(data.n_samples)[:n]
    raw = data.raw.iloc[order].reset_index(drop=True)
    return (raw.iloc[:, :columns] if columns else raw), data.y[order]


def _explained(est, X, y=None) -> float:
    """A FeatureVectors score for the grid search: the variance its two axes explain."""
    return float(est.explained_variance_ratio_.sum())


CASES = {  # name: (pipeline, a parameter grid, data set, rows, columns, scoring)
    "SymbolicPursuitRegressor": (
        Pipeline([("scale", StandardScaler()), ("model", SymbolicPursuitRegressor(**TINY_SYMBOLIC))]),
        {"model__maxiter": [5, 10]}, "diabetes", 80, 3, None),
    "SymbolicPursuitClassifier": (
        Pipeline([("scale", StandardScaler()), ("model", SymbolicPursuitClassifier(**TINY_SYMBOLIC))]),
        {"model__maxiter": [5, 10]}, "breast-cancer", 80, 3, None),
    "FacetsClassifier": (
        Pipeline([("features", CardBinarizer()), ("model", FacetsClassifier(lam=0.01, max_rows=3))]),
        {"model__gamma": [0.5, 1.0], "features__n_thresholds": [2, 3]}, "breast-cancer", 150, 6, None),
    "FacetsRegressor": (
        Pipeline([("features", CardBinarizer()), ("model", FacetsRegressor(lam=1.0, gamma=10.0, max_rows=3))]),
        {"model__gamma": [5.0, 10.0]}, "diabetes", 150, 5, None),
    "FacetsClassifierCV": (
        Pipeline([("features", CardBinarizer()), ("model", FacetsClassifierCV(**SMALL_GRID))]),
        {"features__n_thresholds": [2, 3]}, "breast-cancer", 150, 5, None),
    "FacetsRegressorCV": (
        Pipeline([("features", CardBinarizer()), ("model", FacetsRegressorCV(**SMALL_GRID))]),
        {"features__n_thresholds": [2, 3]}, "diabetes", 150, 5, None),
    "FeatureVectors": (
        Pipeline([("scale", StandardScaler()), ("model", FeatureVectors(n_paths=200, random_state=0))]),
        {"model__window": [1, 3]}, "breast-cancer", 150, 6, _explained),
    "PropositionalSVC": (
        Pipeline([("features", TabularBinarizer()), ("model", PropositionalSVC(formula="a & ~b"))]),
        {"model__C": [0.5, 1.0]}, "house-votes-84", 120, 6, None),
}


@pytest.mark.parametrize("name", list(CASES))
def test_in_a_pipeline_cloned_and_tuned_by_grid_search(name):
    pipeline, grid, dataset, n, columns, scoring = CASES[name]
    X, y = _rows(dataset, n, columns)
    pipeline = clone(pipeline).set_output(transform="pandas")  # names reach the model as columns
    search = GridSearchCV(pipeline, grid, cv=2, scoring=scoring)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence notes of the tiny fits
        search.fit(X, y)
    best = search.best_estimator_
    assert search.cv_results_["mean_test_score"].shape == (int(np.prod([len(v) for v in grid.values()])),)
    assert list(best[-1].feature_names_in_) == list(best[:-1].get_feature_names_out())
    again = clone(best)
    assert again.get_params()["model"].get_params() == best[-1].get_params()
    assert not hasattr(again[-1], "n_features_in_")  # a clone is unfitted
    if hasattr(best, "predict"):
        assert best.predict(X).shape == (len(X),)


TRANSFORMERS = {
    "CardBinarizer": (CardBinarizer(), "breast-cancer", 150, 6),
    "TabularBinarizer": (TabularBinarizer(), "house-votes-84", 150, None),
    "PropositionalNystroem": (make_pipeline(TabularBinarizer(), PropositionalNystroem("a & ~b", n_components=40,
                                                                                      random_state=0)),
                              "house-votes-84", 150, None),
}


@pytest.mark.parametrize("name", list(TRANSFORMERS))
def test_a_transformer_names_its_columns_and_outputs_pandas(name):
    transformer, dataset, n, columns = TRANSFORMERS[name]
    X, y = _rows(dataset, n, columns)
    plain = clone(transformer).fit(X, y)
    names = plain.get_feature_names_out()
    framed = clone(transformer).set_output(transform="pandas").fit(X, y)
    out = framed.transform(X)
    assert isinstance(out, pd.DataFrame) and list(out.columns) == list(names)
    np.testing.assert_array_equal(out.to_numpy(), plain.transform(X))
    search = GridSearchCV(make_pipeline(clone(transformer), LogisticRegression(max_iter=500)),
                          {"logisticregression__C": [0.1, 1.0]}, cv=2).fit(X, y)
    assert search.best_score_ > 0.5
