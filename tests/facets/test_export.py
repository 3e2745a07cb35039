"""Score-card exports: the total per row, the card and its risks as tables, standalone Python
(run where interp cannot be imported) and SQL (run in SQLite), each against the model's own
predict_score and predict_proba; and they follow the card the model uses now."""

from __future__ import annotations

import copy
import sqlite3
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.pipeline import Pipeline, make_pipeline

from interp import InputError, load_dataset
from interp_facets import (CardBinarizer, FacetsClassifier, FacetsClassifierCV, FacetsRegressor, card_features,
                           score_card)
from interp_facets import export

from ..exports_helpers import old_estimator, run_exported

HOSTILE = {"grade": "grade", "sex": 'sex" OR 1=1; --', "color": "<b>color</b>", "dose": "dose'); DROP TABLE t; --"}


def _mixed_rows(n=300, seed=0):
    """A table with an integer code (a per-unit column), text with missing and empty cells, a
    number with missing values, hostile column names, and a label that depends on all of them."""
    rng = np.random.default_rng(seed)
    grade = rng.integers(1, 11, n)
    sex = rng.choice(["Male", "Female"], n)
    color = rng.choice(["red", "green", "blue", None, ""], n).astype(object)
    dose = rng.normal(5, 2, n)
    dose[rng.random(n) < 0.1] = np.nan
    z = 0.6 * (grade - 5) + (sex == "Male") + 0.7 * np.nan_to_num(dose - 5) + 1.5 * (color == "red")
    y = (z + rng.logistic(size=n) > 0.5).astype(int)
    X = pd.DataFrame({HOSTILE["grade"]: grade, HOSTILE["sex"]: sex, HOSTILE["color"]: color, HOSTILE["dose"]: dose})
    return X, y


@pytest.fixture(scope="module")
def mixed():
    X, y = _mixed_rows()
    model = make_pipeline(CardBinarizer(), FacetsClassifier(lam=0.01, gamma=0.5, max_rows=8)).fit(X, y)
    return model, X


def _sqlite(X: pd.DataFrame, query: str) -> pd.DataFrame:
    with sqlite3.connect(":memory:") as con:
        X.to_sql("test rows", con, index=False)
        return pd.read_sql(query, con)


def _as_lists(X: pd.DataFrame) -> dict:
    """The columns as JSON lists, a missing value None."""
    return {c: [None if v is None or (isinstance(v, float) and np.isnan(v)) else v for v in X[c].tolist()]
            for c in X.columns}


def test_the_mixed_card_reads_every_kind_of_column(mixed):
    model, _ = mixed
    tests = {c.test for c, p in zip(export.card_model(model).columns(), model[-1].points_) if p != 0}
    assert {"value", "level", ">="} <= tests  # a per-unit code, a text level and a threshold on the card


def test_sql_in_sqlite_gives_the_score_and_the_probability(mixed):
    model, X = mixed
    out = _sqlite(X, export.to_sql(model, "test rows"))
    assert list(out.columns[:4]) == list(X.columns)
    assert np.array_equal(out["score"].to_numpy(), export.predict_score(model, X))
    assert np.allclose(out["risk"], model.predict_proba(X)[:, 1], rtol=0, atol=1e-12)


def test_python_without_interp_gives_the_score_and_the_probability(mixed, tmp_path):
    model, X = mixed
    out = run_exported(export.to_python(model), _as_lists(X), ["score", "risk"], tmp_path)
    assert np.array_equal(out["score"], export.predict_score(model, X))
    assert np.allclose(out["risk"], model.predict_proba(X)[:, 1], rtol=0, atol=1e-12)


def test_the_card_saved_by_an_older_run_exports_to_sql_and_python(tmp_path):
    model = old_estimator("facets_breast_cancer")
    X = load_dataset("breast-cancer").raw
    score, proba = export.predict_score(model, X), model.predict_proba(X)[:, 1]
    out = _sqlite(X, export.to_sql(model, "test rows"))
    assert np.array_equal(out["score"].to_numpy(), score) and np.allclose(out["risk"], proba, rtol=0, atol=1e-12)
    exported = run_exported(export.to_python(model), X.to_numpy(), ["score", "risk"], tmp_path)
    assert np.array_equal(exported["score"], score) and np.allclose(exported["risk"], proba, rtol=0, atol=1e-12)


def test_card_and_risk_frames_are_the_models_card_and_probabilities():
    model = old_estimator("facets_breast_cancer")
    X = load_dataset("breast-cancer").raw
    names = list(model[0].get_feature_names_out())
    card = score_card(model[-1], names)
    frame = export.card_frame(model)
    assert list(frame.itertuples(index=False, name=None)) == card.rows()
    risks = export.risk_frame(model).set_index("total")["risk"]
    score = export.predict_score(model, X)
    assert risks.index.min() <= score.min() and score.max() <= risks.index.max()
    assert np.allclose(risks.loc[score].to_numpy(), model.predict_proba(X)[:, 1], rtol=0, atol=1e-12)
    seen = export.risk_frame(model, X)["total"]
    assert (seen.min(), seen.max()) == (score.min(), score.max())


def test_exports_follow_the_card_the_model_uses_now(mixed):
    """Another card put in the estimator's attributes (points, scale, intercept), as choosing a
    card from a pool does: every export reads that one."""
    model, X = mixed
    other = copy.deepcopy(model)
    est = other[-1]
    est.points_ = np.where(est.points_ != 0, 0, 1).astype(np.int64)
    est.gamma_, est.intercept_ = 0.25, np.array([-1.5])
    est.coef_ = (est.gamma_ * est.points_).reshape(1, -1).astype(float)
    design = other[0].transform(X)
    assert np.array_equal(export.predict_score(other, X), (design @ est.points_).astype(np.int64))
    out = _sqlite(X, export.to_sql(other, "test rows"))
    assert np.array_equal(out["score"].to_numpy(), design @ est.points_)
    assert np.allclose(out["risk"], other.predict_proba(X)[:, 1], rtol=0, atol=1e-12)
    assert not np.allclose(out["risk"], model.predict_proba(X)[:, 1])
    assert export.card_frame(other)["points"].tolist() == [1] * int(est.points_.sum())


def test_a_model_that_is_not_integral_is_refused(mixed):
    model, X = mixed
    other = copy.deepcopy(model)
    other[-1].coef_ = other[-1].coef_ + 0.1 * other[-1].gamma_
    for call in (lambda: export.to_sql(other, "t"), lambda: export.to_python(other), lambda: export.risk_frame(other)):
        with pytest.raises(InputError, match="not fully integral"):
            call()


def test_the_estimator_alone_exports_its_own_columns():
    data = load_dataset("breast-cancer")
    design = card_features(data.X, data.feature_names, raw=data.raw)
    X = pd.DataFrame(design.X, columns=list(design.names))
    est = FacetsClassifier(lam=0.01, gamma=1.0, max_rows=6).fit(X, data.y)
    assert np.array_equal(est.predict_score(X), (X.to_numpy() @ est.points_).astype(np.int64))
    out = _sqlite(X, est.to_sql("test rows"))
    assert np.allclose(out["risk"], est.predict_proba(X)[:, 1], rtol=0, atol=1e-12)
    namespace: dict = {}
    exec(compile(est.to_python(), "card", "exec"), namespace)  # noqa: S102 - our own export
    assert np.allclose(namespace["risk"](X), est.predict_proba(X)[:, 1], rtol=0, atol=1e-12)
    risks = est.risk_frame()  # the totals the training columns allow (data_min_, data_max_)
    assert risks["total"].min() == est.points_[est.points_ < 0].sum()
    assert risks["total"].max() == est.points_[est.points_ > 0].sum()
    assert est.card_frame()["points"].abs().is_monotonic_decreasing


def test_a_regressor_exports_its_prediction():
    data = load_dataset("diabetes")
    design = card_features(data.X, data.feature_names)
    X = pd.DataFrame(design.X, columns=list(design.names))
    est = FacetsRegressor(lam=1.0, gamma=10.0, max_rows=5).fit(X, data.y)
    out = _sqlite(X, est.to_sql("test rows"))
    assert np.allclose(out["prediction"], est.predict(X), rtol=1e-12)
    assert set(est.risk_frame().columns) == {"total", "prediction"}


def test_sql_names_are_quoted_so_that_no_name_escapes_its_quotes(mixed):
    model, _ = mixed
    query = export.to_sql(model, 'rows"; DROP TABLE x; --')
    assert 'FROM "rows""; DROP TABLE x; --" AS t' in query
    with pytest.raises(InputError, match="NUL"):
        export.to_sql(model, "a\x00b")


def _pooled_card_with_a_missing_row():
    """A pool of cards on 0/1 columns (one with a near twin), an age that may only raise the
    score and a cholesterol whose missing values are a level of their own, strongly predictive:
    what ``interp run --out`` saves, a Pipeline of the card's binariser and a
    ``FacetsClassifierCV(pool=...)`` with monotone and grouped rows."""
    rng = np.random.default_rng(0)
    n = 500
    a, b = rng.integers(0, 2, n), rng.integers(0, 2, n)
    age = rng.integers(20, 80, n).astype(float)
    chol = rng.normal(200, 30, n)
    chol[rng.random(n) < 0.2] = np.nan
    z = 2.0 * a + b + 0.04 * (age - 50) + 2.0 * np.isnan(chol)
    y = (z + rng.logistic(size=n) > 2.0).astype(int)
    X = pd.DataFrame({"a": a, "b": b, "b twin": np.where(rng.random(n) < 0.95, b, 1 - b), "age": age, "chol": chol})
    design = card_features(X.to_numpy(dtype=object), list(X.columns), raw=X)
    est = FacetsClassifierCV(max_rows=4, max_features=4, groups=design.groups, monotone=design.monotone({"age": 1}),
                             pool=10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(design.X, y)
    return Pipeline([("features", design.binarizer), ("card", est)]), X, design


def test_every_card_of_a_pool_exports_with_its_missing_row_as_is_null(tmp_path):
    """select_card(i) makes card i the model; SQL (in SQLite) and standalone Python give its total
    and the model's probability, its "chol is missing" row is ``chol IS NULL``, and the card
    keeps the model's monotone and grouped rows."""
    model, X, design = _pooled_card_with_a_missing_row()
    est = model[-1]
    assert len(est.pool_) >= 2
    age_rows = np.array([g == "age" for g in design.groups])
    for i in range(len(est.pool_)):
        est.select_card(i)
        rows = dict(export.card_frame(model).itertuples(index=False, name=None))
        assert rows == {design.names[j]: int(p) for j, p in enumerate(est.pool_[i].points) if p}
        assert rows.get("chol is missing", 0) > 0 and np.all(est.points_[age_rows] >= 0)
        assert len({design.groups[j] for j in np.flatnonzero(est.points_)}) <= 4
        query = export.to_sql(model, "test rows")
        assert 'CASE WHEN t."chol" IS NULL THEN' in query
        score, proba = export.predict_score(model, X), model.predict_proba(X)[:, 1]
        np.testing.assert_array_equal(score, design.X @ est.pool_[i].points)
        out = _sqlite(X, query)
        assert np.array_equal(out["score"].to_numpy(), score)
        assert np.allclose(out["risk"], proba, rtol=0, atol=1e-12)
        exported = run_exported(export.to_python(model), _as_lists(X), ["score", "risk"], tmp_path)
        assert np.array_equal(exported["score"], score) and np.allclose(exported["risk"], proba, rtol=0, atol=1e-12)
        risks = export.risk_frame(model).set_index("total")["risk"]
        assert np.allclose(risks.loc[score].to_numpy(), proba, rtol=0, atol=1e-12)


def test_a_model_without_a_card_displays_why_and_exports_nothing():
    """Not fully integral: its rounded points would be another model, so the notebook display says
    why there is no card (the command line's reason) and every export refuses."""
    from interp_facets.scorecard import no_card_reason

    data = load_dataset("breast-cancer")
    est = FacetsClassifier(lam=0.05, gamma=1.0).fit(data.X, data.y)
    reason = no_card_reason(est)
    assert reason is not None
    page = est._repr_html_()
    assert "no score card" in page and "<th>points</th>" not in page
    for call in (lambda: est.card_frame(), lambda: est.predict_score(data.X), lambda: est.to_sql("t"),
                 lambda: est.to_python(), lambda: est.risk_frame()):
        with pytest.raises(InputError, match="not fully integral"):
            call()


def _hostile_levels_and_clashing_names(n=120, seed=1):
    """Text levels padded with tabs, non-breaking spaces and other whitespace the model strips
    (and quotes), beside user columns named like the query's outputs and its table alias."""
    rng = np.random.default_rng(seed)
    level = rng.choice(["red", "it's", 'say "x"', "a b"], n)
    pads = np.array(["", " ", "\t", "\u00a0", "\u2003", "\n", "\u3000 \t"], dtype=object)
    cell = [pads[i] + str(v) + pads[j] for v, i, j in zip(level, rng.integers(0, 7, n), rng.integers(0, 7, n))]
    cell = np.array(cell, dtype=object)
    cell[rng.random(n) < 0.1] = "\t\u00a0"  # only whitespace: missing
    x = rng.normal(size=n)
    y = ((level == "red") + (level == "it's") + x + rng.logistic(size=n) > 1).astype(int)
    X = pd.DataFrame({"level": cell, "x": x, "score": rng.normal(size=n), "risk": rng.random(n),
                      "t": rng.normal(size=n)})
    model = make_pipeline(CardBinarizer(), FacetsClassifier(lam=0.01, gamma=0.5, max_rows=8)).fit(X, y)
    tests = {c.test for c, p in zip(export.card_model(model).columns(), model[-1].points_) if p}
    assert "level" in tests
    return model, X


def _duckdb(X: pd.DataFrame, query: str) -> pd.DataFrame:
    duckdb = pytest.importorskip("duckdb")
    with duckdb.connect() as con:
        con.register("frame", X)
        con.execute('CREATE TABLE "test rows" AS SELECT * FROM frame')
        return con.execute(query).df()


@pytest.mark.parametrize("engine", [_sqlite, _duckdb], ids=["sqlite", "duckdb"])
def test_sql_strips_as_the_model_and_ignores_columns_named_like_its_outputs(engine):
    """Every row's score and risk in a real engine equal the model's, with levels padded by
    tabs and non-breaking spaces and user columns named score, risk and t."""
    model, X = _hostile_levels_and_clashing_names()
    out = engine(X, export.to_sql(model, "test rows"))
    assert out.shape == (len(X), X.shape[1] + 2)
    score, risk = out.iloc[:, -2].to_numpy(), out.iloc[:, -1].to_numpy(dtype=float)
    assert np.array_equal(score, export.predict_score(model, X))
    assert np.allclose(risk, model.predict_proba(X)[:, 1], rtol=0, atol=1e-12)
    assert np.allclose(out.iloc[:, 2].to_numpy(dtype=float), X["score"])  # the user's column kept as is


def test_the_exported_whitespace_is_every_character_python_strips():
    assert set(export.WHITESPACE) == {ch for ch in map(chr, range(0x110000)) if ch.isspace()}
