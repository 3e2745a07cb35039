"""scikit-learn integration: kernel objects, Pipelines, GridSearchCV, estimator checks."""

from __future__ import annotations

import pickle

import joblib
import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import parametrize_with_checks

import interp
from interp_propositional import (
    BooleanKernel,
    PropositionalKernel,
    PropositionalSVC,
    TabularBinarizer,
    boolean_kernel,
    propositional_kernel,
)


@pytest.fixture(scope="module")
def votes():
    data = interp.load_dataset("house-votes-84")
    return data.raw, data.y


def test_svc_with_kernel_object_equals_precomputed():
    rng = np.random.default_rng(0)
    X = (rng.random((80, 7)) < 0.5).astype(float)
    y = ((X[:, 0] > 0) & (X[:, 1] < 1)) | (X[:, 2] > 0)
    Xt = (rng.random((30, 7)) < 0.5).astype(float)
    kern = PropositionalKernel("(a & ~b) | c")
    a = SVC(kernel=kern, C=10).fit(X, y)
    b = SVC(kernel="precomputed", C=10).fit(propositional_kernel(kern.formula, X, normalize=True), y)
    np.testing.assert_allclose(a.decision_function(Xt),
                               b.decision_function(propositional_kernel(kern.formula, Xt, X, normalize=True)),
                               rtol=1e-10, atol=1e-12)
    bk = SVC(kernel=BooleanKernel("mdnf", c=2, d=2)).fit(X, y)
    bb = SVC(kernel="precomputed").fit(boolean_kernel("mdnf", X, c=2, d=2, normalize=True), y)
    np.testing.assert_allclose(bk.decision_function(Xt),
                               bb.decision_function(boolean_kernel("mdnf", Xt, X, c=2, d=2, normalize=True)),
                               rtol=1e-10, atol=1e-12)


def test_pipeline_grid_search_over_formulas(votes):
    raw, y = votes
    pipe = make_pipeline(TabularBinarizer(), SVC(kernel=PropositionalKernel()))
    assert "svc__kernel__formula" in pipe.get_params()
    grid = GridSearchCV(pipe, {"svc__kernel__formula": ["a", "a & ~b", "a | b"], "svc__C": [0.1, 1.0]},
                        cv=3, scoring="roc_auc").fit(raw, y)
    assert grid.best_score_ > 0.95
    assert grid.best_params_["svc__kernel__formula"] in ("a", "a & ~b", "a | b")
    # the fitted pipeline pickles and predicts the same after a round trip
    again = pickle.loads(pickle.dumps(grid.best_estimator_))
    assert (again.predict(raw.iloc[:50]) == grid.predict(raw.iloc[:50])).all()


def test_binarizer_names_and_missing_levels(votes):
    raw, _ = votes
    binz = TabularBinarizer().fit(raw)
    names = list(binz.get_feature_names_out())
    assert "handicapped_infants=y" in names and "handicapped_infants=?" in names
    Xb = binz.transform(raw)
    assert Xb.shape == (435, 48) and set(np.unique(Xb)) == {0.0, 1.0}
    # every categorical column has exactly one active level per row
    assert (Xb.reshape(435, 16, 3).sum(axis=2) == 1).all()
    frame = pd.DataFrame({"age": [20.0, 35.0, np.nan, 50.0, 61.0, 70.0, 44.0, 33.0, 28.0, 90.0, 15.0, 55.0],
                          "color": ["red", "blue", None, "red", "?", "blue", "red", "red", "", "blue", "red", "red"]})
    b = TabularBinarizer(n_thresholds=3).fit(frame)
    names = list(b.get_feature_names_out())
    assert [n for n in names if n.startswith("color=")] == ["color=?", "color=blue", "color=missing", "color=red"]
    assert "age=missing" in names and sum(n.startswith("age>") for n in names) == 3
    out = b.transform(frame)
    assert out[2, names.index("age=missing")] == 1 and out[2, names.index("color=missing")] == 1
    assert out[4, names.index("color=?")] == 1
    unseen = b.transform(pd.DataFrame({"age": [1.0], "color": ["green"]}))
    assert unseen[0, [i for i, n in enumerate(names) if n.startswith("color=")]].sum() == 0


def test_estimator_pickles_and_explains(votes):
    raw, y = votes
    X = TabularBinarizer().fit_transform(raw)
    est = PropositionalSVC(formula="a & ~b", C=1.0).fit(X, y)
    again = joblib.load(_dump(est))
    np.testing.assert_allclose(again.decision_function(X[:20]), est.decision_function(X[:20]))
    with pytest.raises(interp.InputError, match="TabularBinarizer"):
        PropositionalSVC(formula="a").fit(np.full((4, 2), 2.0), [0, 1, 0, 1])
    clone(est)


def test_nystroem_map_in_a_pipeline(votes):
    """The map is a scikit-learn transformer: a pipeline binarises, maps and fits a linear SVM."""
    from sklearn.linear_model import SGDClassifier

    from interp_propositional import PropositionalNystroem

    raw, y = votes
    pipe = make_pipeline(TabularBinarizer(), PropositionalNystroem("a & ~b", n_components=100, random_state=0),
                         SGDClassifier(loss="hinge", random_state=0))
    assert pipe.get_params()["propositionalnystroem__n_components"] == 100
    pipe.fit(raw, y)
    assert pipe.score(raw, y) > 0.9
    again = joblib.load(_dump(clone(pipe).fit(raw, y)))
    np.testing.assert_array_equal(again.decision_function(raw), pipe.decision_function(raw))


def _dump(obj):
    import io

    buf = io.BytesIO()
    joblib.dump(obj, buf)
    buf.seek(0)
    return buf


@parametrize_with_checks([TabularBinarizer(), PropositionalSVC(formula="a | ~b", binarize="auto"),
                          PropositionalSVC(formula="a | ~b", binarize="auto", approximate="always", n_landmarks=20,
                                           random_state=0)])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
