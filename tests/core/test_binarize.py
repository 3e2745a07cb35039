"""Preprocessing for methods that read binary data: what the binarizer's columns say of each
other holds on every row it produces, for tables it was fitted on and for new ones (unseen
levels, missing values); a class is named as written."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interp.binarize import TabularBinarizer
from interp.preprocessing import ColumnLogic


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
    assert names == ["x>3.5", "x>6.5", "x>8.5", "x=missing", "colour=b", "colour=g", "colour=r", "flag",
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


def test_thresholds_between_huge_values_stay_finite_and_split_the_column():
    """The midpoint of two values near the largest float is finite: ``(a + b) / 2`` overflowed
    to a threshold ``a>inf`` whose column was all zeros (the column silently lost)."""
    values = np.linspace(1.5e308, 1.79e308, 40)
    binarizer = TabularBinarizer(n_thresholds=3).fit(pd.DataFrame({"a": values}))
    kind, thresholds, _ = binarizer.encodings_[0]
    assert kind == "threshold" and all(np.isfinite(thresholds))
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
