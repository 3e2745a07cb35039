"""Preprocessing for methods that read binary data: what the binarizer's columns say of each
other holds on every row it produces, for tables it was fitted on and for new ones (unseen
levels, missing values); a class is named as written."""

from __future__ import annotations

import math
import pickle
import re
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interp.binarize import Split, TabularBinarizer, round_quantile_splits, round_threshold
from interp.preprocessing import ColumnLogic


def digits(x: float) -> int:
    """Significant digits of the shortest decimal that reads back as ``x``."""
    return 0 if x == 0 else len(Decimal(repr(float(x))).normalize().as_tuple().digits)


def fewest_digits(low: float, high: float) -> int:
    """Brute force: the fewest significant digits of any decimal number whose float is in
    (low, high]."""
    if low < 0 <= high:
        return 0
    lo, hi = Fraction(low), Fraction(high)
    top = math.floor(math.log10(max(abs(low), abs(high)))) + 1
    for d in range(1, 17):
        for e in range(top - d + 1, top - d - 3, -1):  # numbers m * 10^e with a d-digit integer m
            scale = Fraction(10) ** e
            m_lo, m_hi = math.floor(lo / scale) - 1, math.floor(hi / scale) + 1
            if any(10 ** (d - 1) <= abs(m) < 10**d and low < float(m * scale) <= high
                   for m in range(m_lo, min(m_hi, m_lo + 10**d + 2) + 1)):
                return d
    raise AssertionError("no decimal found")


@settings(max_examples=200, deadline=None)
@given(st.floats(-1e6, 1e6), st.floats(1e-6, 1e6))
def test_round_threshold_is_in_the_interval_with_the_fewest_digits(low, width):
    high = low + width
    if not low < high:
        return
    t = round_threshold(low, high)
    assert low < t <= high
    assert digits(t) == fewest_digits(low, high)


@pytest.mark.parametrize("low, high, expected", [(47, 53, 50), (0.0771, 0.09, 0.08), (-0.1, 0.3, 0),
                                                 (12, 14, 14), (16, 19, 18), (0.21, 0.29, 0.25),
                                                 (1e6, 1e6 + 1e-6, 1e6 + 1e-6), (-3, -1, -2)])
def test_round_threshold_examples(low, high, expected):
    assert round_threshold(low, high) == expected


def random_frame(rng, n: int) -> pd.DataFrame:
    """Text, ordinal, 0/1 and continuous columns, each with some missing values."""
    def holes(values, share=0.1):
        values = pd.Series(values, dtype=object if isinstance(values[0], str) else float)
        values[rng.random(n) < share] = np.nan if values.dtype == float else "?"
        return values

    return pd.DataFrame({
        "text": holes(rng.choice(["a", "b", "c", "d"], n)),
        "ordinal": holes(rng.integers(1, 5, n).astype(float)),
        "flag": holes(rng.integers(0, 2, n).astype(float)),
        "level": rng.normal(size=n),
        "amount": holes(rng.exponential(size=n)),
    })


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_every_row_the_binarizer_produces_is_possible(seed):
    rng = np.random.default_rng(seed)
    fitted = random_frame(rng, 40)
    binarizer = TabularBinarizer(max_levels=5).fit(fitted)
    logic = binarizer.column_logic()
    unseen = random_frame(rng, 40)
    unseen["text"] = unseen["text"].replace({"d": "e"})  # a level the fit never saw
    unseen["ordinal"] = unseen["ordinal"] * 2  # numbers the fit never saw
    for frame in (fitted, unseen):
        out = binarizer.transform(frame).astype(bool)
        assert logic.possible(range(out.shape[1]), out).all()


def test_the_logic_of_each_encoding():
    frame = pd.DataFrame({"x": [1.0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, np.nan],
                          "colour": list("rgbrgbrgbrgb"), "flag": [0.0, 1] * 5 + [np.nan, 1]})
    binarizer = TabularBinarizer().fit(frame)
    names = list(binarizer.get_feature_names_out())
    assert names == ["x>=4", "x>=5", "x>=8", "x=missing", "colour=b", "colour=g", "colour=r", "flag",
                     "flag=missing"]
    logic = binarizer.column_logic()
    assert set(logic.implies) == {(1, 0), (2, 0), (2, 1)}  # every higher threshold implies each lower one
    assert set(logic.exclusive) == {(0, 3), (1, 3), (2, 3), (4, 5, 6), (7, 8)}


def test_possible_reads_only_the_columns_it_is_given():
    logic = ColumnLogic(exclusive=((0, 1, 2),), implies=((3, 4),))
    table = np.array([[1, 1], [1, 0], [0, 1], [0, 0]], dtype=bool)
    assert logic.possible([0, 2], table).tolist() == [False, True, True, True]
    assert logic.possible([4, 3], table).tolist() == [True, True, False, True]  # 3 true needs 4 true
    assert logic.possible([0, 4], table).all()  # no rule ties 0 to 4
    assert ColumnLogic().possible([0, 1], table).all()


def test_a_class_is_named_as_written():
    from interp.preprocessing import class_name

    assert [class_name(v) for v in (1.0, np.float64(0.0), -3.0, 2.5, np.int64(4), "yes", True)] == [
        "1", "0", "-3", "2.5", "4", "yes", "True"]


def test_a_class_is_found_by_its_shown_name_or_its_text():
    from interp import InputError
    from interp.preprocessing import binary_labels, class_index

    classes = np.array([0.0, 1.0])
    assert [class_index(classes, n) for n in ("1", "1.0", "0", "2", 1)] == [1, 1, 0, None, 1]
    y = np.array([1.0, 0.0, 1.0])
    assert binary_labels(y, "0").values.tolist() == [0.0, 1.0, 0.0]
    assert binary_labels(y, "1.0").values.tolist() == [1.0, 0.0, 1.0]
    with pytest.raises(InputError, match="positive class '2' is not one of '0', '1'"):
        binary_labels(y, "2")


THRESHOLD = re.compile(r"^(?P<col>.+?)(?P<op>>=|>)(?P<value>[^=>]+)$")


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(-3, 6), st.integers(1, 5))
def test_numeric_thresholds_are_round_numbers_within_their_quantile_band(seed, log_scale, n_thresholds):
    """``amount>=50`` rather than ``amount>49.37``: each threshold of a many-valued column has at
    most two significant digits (or is its quantile rounded to two), splits the rows within the
    band around its target quantile, and the column is what its name says."""
    rng = np.random.default_rng(seed)
    values = rng.lognormal(log_scale, 1.0, 200) * rng.choice([-1, 1])  # no ties: the bands are the quantiles
    binarizer = TabularBinarizer(n_thresholds=n_thresholds).fit(pd.DataFrame({"amount": values}))
    B = binarizer.transform(pd.DataFrame({"amount": values}))
    names = list(binarizer.get_feature_names_out())
    assert 1 <= len(names) <= n_thresholds
    spacing = 1 / (n_thresholds + 1)
    shares = []
    for j, name in enumerate(names):
        match = THRESHOLD.match(name)
        t = float(match["value"])
        np.testing.assert_array_equal(B[:, j], values >= t if match["op"] == ">=" else values > t, err_msg=name)
        assert 0 < B[:, j].mean() < 1
        assert digits(t) <= 2, name
        shares.append(1 - B[:, j].mean())
        assert any(abs(shares[-1] - q) <= spacing / 4 + 1 / len(values) for q in spacing * np.arange(1, n_thresholds + 1)), name
    assert shares == sorted(shares)  # ascending thresholds: each implies the ones before it


def test_round_quantile_splits_examples():
    ages = np.arange(18, 91, dtype=float)
    # quartiles 36, 54, 72; the coarsest steps within their bands: 20, 50, 10
    assert round_quantile_splits(ages, 3) == [Split(40.0), Split(50.0), Split(70.0)]
    visits = np.r_[np.zeros(60), np.linspace(0.13, 7.9, 40)]  # the lower part all zeros
    assert round_quantile_splits(visits, 1)[0] == Split(0.0, strict=True)
    assert Split(0.0, strict=True).name("visits") == "visits>0" and Split(50.0).name("age", " ") == "age >= 50"


def test_thresholds_between_huge_values_stay_finite_and_split_the_column():
    """The midpoint of two values near the largest float is finite: ``(a + b) / 2`` overflowed
    to a threshold ``a>inf`` whose column was all zeros (the column silently lost)."""
    values = np.linspace(1.5e308, 1.79e308, 40)
    binarizer = TabularBinarizer(n_thresholds=3).fit(pd.DataFrame({"a": values}))
    kind, splits, _ = binarizer.encodings_[0]
    assert kind == "splits" and all(np.isfinite(split.t) for split in splits)
    B = binarizer.transform(pd.DataFrame({"a": values}))
    assert np.all((B.min(axis=0) == 0) & (B.max(axis=0) == 1))
    assert all(len(name) < 20 and "inf" not in name for name in binarizer.get_feature_names_out())


@pytest.mark.parametrize("frame, message", [
    (pd.DataFrame({"x": np.linspace(-1, 1, 40), "x >= 0": np.arange(40) % 2}),
     "the columns 'x' and 'x >= 0' both give a feature named 'x >= 0'"),
    (pd.DataFrame({"a": ["b = c", "d"] * 20, "a = b": ["c", "e"] * 20}),
     "the columns 'a' and 'a = b' both give a feature named 'a = b = c'"),
])
def test_two_columns_giving_one_feature_name_are_refused(frame, message, tmp_path):
    """A card would show two rows named alike (a threshold of ``x`` and the 0/1 column
    ``x >= 0``; the level ``b = c`` of ``a`` and the level ``c`` of ``a = b``): one line, on the
    command line too (exit 2)."""
    from click.testing import CliRunner

    from interp import InputError
    from interp.cli import cli
    from interp_facets import CardBinarizer

    with pytest.raises(InputError, match=re.escape(message)):
        CardBinarizer().fit(frame)
    frame.assign(y=np.arange(len(frame)) % 3 == 0).astype({"y": int}).to_csv(tmp_path / "d.csv", index=False)
    result = CliRunner().invoke(cli, ["run", "--method", "facets", "--data", str(tmp_path / "d.csv"), "--target", "y",
                                      "--quiet"])
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1 and message in result.stderr


def test_a_column_named_like_another_columns_level_is_refused_by_the_tabular_binarizer():
    frame = pd.DataFrame({"c": ["red", "blue"] * 10, "c=red": [0, 1] * 10})
    with pytest.raises(ValueError, match="the columns 'c' and 'c=red' both give a feature named 'c=red'"):
        TabularBinarizer().fit(frame)


@given(st.one_of(st.lists(st.floats(-5, 5, allow_nan=False).map(lambda v: round(v, 1)), max_size=30),
                 st.lists(st.sampled_from(["yes", "no", "1", "0.0"]), max_size=30),
                 st.lists(st.integers(-3, 3), max_size=30)))
def test_class_names_name_every_value_as_class_name_does(values):
    from interp.preprocessing import class_name, class_names

    assert list(class_names(values)) == [class_name(v) for v in np.asarray(values)]


def test_a_binarizer_pickled_with_raw_quantile_thresholds_still_transforms():
    """An older interp saved numeric columns as ``col>t`` at raw quantiles (kind "threshold"):
    loaded now, the same columns under the same names."""
    frame = pd.DataFrame({"a": np.linspace(0.0, 9.9, 100)})
    binarizer = TabularBinarizer(n_thresholds=2).fit(frame)
    state = binarizer.__getstate__()
    state["encodings_"] = [("threshold", [3.35, 6.65], False)]
    state["feature_names_out_"] = np.array(["a>3.35", "a>6.65"], dtype=object)
    old = TabularBinarizer.__new__(TabularBinarizer)
    old.__setstate__(state)
    again = pickle.loads(pickle.dumps(old))
    np.testing.assert_array_equal(again.transform(frame), np.c_[frame["a"] > 3.35, frame["a"] > 6.65])
    assert list(again.get_feature_names_out()) == ["a>3.35", "a>6.65"]
    assert again.column_logic().implies == ((1, 0),)
