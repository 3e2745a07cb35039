"""Readable card features: round thresholds, ordinal codes, no twin or complement columns, names
that say what the column holds, and a binarizer that re-applies to new rows."""

import pickle
import re

import numpy as np
import pandas as pd
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

import interp
from interp_facets.features import CardBinarizer, card_features

from ..core.test_binarize import digits

CONDITION = re.compile(r"^(?P<col>.+?) (?P<op>>=|>|=|is) (?P<value>.+)$")
UNITS = re.compile(r"^(?P<col>.+) \((?P<low>-?[\d.]+)-(?P<high>-?[\d.]+)\)$")


def evaluate(name: str, frame: pd.DataFrame) -> np.ndarray:
    """The column a feature name describes, computed from the name alone: 0/1, or the values of
    an integer code ``col (low-high)`` (a missing value counts as ``low``)."""
    units = UNITS.match(name)
    if units is not None:
        return frame[units["col"]].fillna(float(units["low"])).to_numpy(dtype=float)
    match = CONDITION.match(name)
    if match is None:  # a 0/1 column kept as it is
        return frame[name].to_numpy(dtype=float) == 1
    col, op, value = match["col"], match["op"], match["value"]
    series = frame[col]
    if value == "missing":
        return series.isna().to_numpy()
    if op == "=":
        return (series.astype(str) == value).to_numpy()
    x = series.to_numpy(dtype=float)
    return x > float(value) if op == ">" else x >= float(value)


def mixed_frame(n=400, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "age": rng.uniform(18, 90, n).round(1),
        "income": rng.lognormal(10, 1, n),
        "clump thickness": rng.integers(1, 11, n),
        "sex": rng.choice(["Male", "Female"], n, p=[0.6, 0.4]),
        "colour": rng.choice(["red", "green", "blue"], n),
        "smoker": rng.integers(0, 2, n),
        "visits": np.where(rng.random(n) < 0.5, 0.0, rng.exponential(3, n)),
    })
    frame["non smoker"] = 1 - frame["smoker"]
    frame["age again"] = frame["age"]
    return frame


def test_names_say_what_each_column_holds_and_no_column_repeats():
    frame = mixed_frame()
    cf = card_features(None, None, raw=frame)
    assert cf.X.shape == (len(frame), len(cf.names))
    for j, name in enumerate(cf.names):
        np.testing.assert_array_equal(cf.X[:, j], evaluate(name, frame).astype(float), err_msg=name)
    B = cf.X
    for j in range(B.shape[1]):
        assert B[:, j].min() < B[:, j].max()
        for k in range(j):
            assert not np.array_equal(B[:, j], B[:, k]), (cf.names[j], cf.names[k])
            assert not np.array_equal(B[:, j], 1 - B[:, k]), (cf.names[j], cf.names[k])
    names = set(cf.names)
    assert "sex = Female" in names and "sex = Male" not in names  # two levels: the rarer one
    assert {"colour = blue", "colour = green", "colour = red"} <= names
    assert "smoker" in names and "non smoker" not in names and not any("again" in n for n in names)
    assert "visits > 0" in names


def test_ordinal_codes_are_thresholds_not_one_hot():
    frame = mixed_frame()
    frame["grade"] = np.random.default_rng(3).integers(1, 5, len(frame))  # 4 levels: every one
    cf = card_features(None, None, raw=frame)
    assert [n for n in cf.names if n.startswith("grade")] == [f"grade >= {t}" for t in (2, 3, 4)]


@pytest.mark.parametrize("low, high, per_unit", [(1, 10, True), (0, 60, True), (1, 150, False)])
def test_integer_codes_with_many_levels_get_a_per_unit_column_and_round_thresholds(low, high, per_unit):
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"code": rng.integers(low, high + 1, 500).astype(float),
                          "flag": rng.integers(0, 2, 500)})
    frame.loc[[5, 9], "code"] = np.nan
    frame["twin"] = frame["code"]  # the same code twice: its columns are kept once
    cf = card_features(None, None, raw=frame, n_thresholds=3)
    assert not any(n.startswith("twin") for n in cf.names)
    names = [n for n in cf.names if n.startswith("code")]
    unit = f"code ({low}-{high})"
    assert (unit in names) == per_unit and "code is missing" in names
    thresholds = [n for n in names if CONDITION.match(n) and CONDITION.match(n)["op"] == ">="]
    if high - low < 10:  # a short code (at most max_levels levels): the per-unit column alone
        assert thresholds == []
    else:
        assert 1 <= len(thresholds) <= 3 and all(digits(float(n.split()[-1])) <= 2 for n in thresholds)
    if per_unit:  # the code itself, missing as the lowest level; new rows too
        column = cf.X[:, cf.names.index(unit)]
        np.testing.assert_array_equal(column, frame["code"].fillna(low).to_numpy())
        new = pd.DataFrame({"code": [np.nan, float(high), 3.0], "flag": [0, 1, 0]})
        new["twin"] = new["code"]
        np.testing.assert_array_equal(cf.binarizer.transform(new)[:, cf.names.index(unit)], [low, high, 3])


def test_thresholds_are_round_and_distinct():
    cf = card_features(None, None, raw=mixed_frame(), n_thresholds=4)
    for col in ("age", "income"):
        values = [float(CONDITION.match(n)["value"]) for n in cf.names if n.startswith(col + " >=")]
        assert len(values) == 4 and len(set(values)) == 4
        assert all(digits(v) <= 2 for v in values), values
    ages = [n for n in cf.names if n.startswith("age >=")]
    assert all(float(n.split()[-1]) % 5 == 0 for n in ages), ages


def test_transform_of_new_rows_matches_the_fit_and_survives_pickling():
    frame = mixed_frame(seed=1)
    frame.loc[[3, 7], "income"] = np.nan
    cf = card_features(None, None, raw=frame.iloc[:300])
    assert "income is missing" in cf.names
    binarizer = pickle.loads(pickle.dumps(cf.binarizer))
    np.testing.assert_array_equal(binarizer.transform(frame.iloc[:300]), cf.X)
    new = binarizer.transform(frame.iloc[300:])
    for j, name in enumerate(cf.names):
        np.testing.assert_array_equal(new[:, j], evaluate(name, frame.iloc[300:]).astype(float))


def test_numeric_arrays_with_names_and_unseen_levels():
    rng = np.random.default_rng(2)
    X = np.column_stack([rng.integers(-1, 2, 200), rng.normal(size=200), rng.integers(0, 2, 200)])
    cf = card_features(X, ["risk", "z", "flag"])
    assert [n for n in cf.names if n.startswith("risk")] == ["risk >= 0", "risk >= 1"]
    assert "flag" in cf.names
    np.testing.assert_array_equal(cf.binarizer.transform(X), cf.X)
    text = pd.DataFrame({"c": ["a", "b", "c", "a"]})
    fitted = CardBinarizer().fit(text)
    np.testing.assert_array_equal(fitted.transform(pd.DataFrame({"c": ["z"]})), [[0.0, 0.0, 0.0]])


def test_no_varying_column_is_one_line_input_error():
    with pytest.raises(interp.InputError, match="no feature varies"):
        card_features(np.ones((10, 2)), ["a", "b"])


@parametrize_with_checks([CardBinarizer()])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_cards_and_the_tabular_binarizer_place_the_same_round_thresholds():
    """One rounding for the project: a card's ``age >= 40`` is the tabular binarizer's
    ``age>=40`` (the rules of the propositional method read the same numbers as a card)."""
    frame = mixed_frame()[["age", "income", "visits"]]
    card = CardBinarizer().fit(frame).get_feature_names_out()
    tabular = interp.binarize.TabularBinarizer().fit(frame).get_feature_names_out()
    assert [name.replace(" ", "") for name in card] == [name.replace(" ", "") for name in tabular]
    assert all(digits(float(re.split(">=?", name)[-1])) <= 2 for name in tabular)


def test_a_column_near_the_largest_float_gets_finite_round_thresholds():
    """Rounding near 1.8e308 once asked for 10.0**309 and raised OverflowError from inside
    the card's binariser; the thresholds are now finite round numbers that split the column."""
    frame = pd.DataFrame({"a": np.linspace(1.5e308, 1.79e308, 40)})
    binarizer = CardBinarizer().fit(frame)
    names = list(binarizer.get_feature_names_out())
    assert names and all(np.isfinite(float(name.split()[-1])) for name in names)
    B = binarizer.transform(frame)
    assert np.all((B.min(axis=0) == 0) & (B.max(axis=0) == 1))
