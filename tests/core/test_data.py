"""Data loading: CSV, DataFrame, arrays, bundled sets; every bad input is one clear InputError."""

import re

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from interp import InputError, load_dataset
from interp.cli import cli
from interp.data import bundled_datasets, check_finite, closest_bundled


def test_csv_with_numeric_and_categorical_columns(csv_file):
    path = csv_file("""
        size,color,label
        1.5,red,a
        2.0,blue,b
        3.5,red,a
    """)
    data = load_dataset(path, "label")
    assert data.feature_names == ("size", "color=blue", "color=red")
    np.testing.assert_array_equal(data.X, [[1.5, 0, 1], [2.0, 1, 0], [3.5, 0, 1]])
    assert list(data.y) == ["a", "b", "a"] and data.task == "classification"
    assert data.categorical == ("color",) and data.name == "data"
    assert list(data.raw.columns) == ["size", "color"]


def test_missing_categorical_value_is_its_own_level(csv_file):
    data = load_dataset(csv_file("v,c,y\n1,?,0\n2,,1\n3,x,0\n"), "y")
    assert data.feature_names == ("v", "c=?", "c=missing", "c=x")


def test_dataframe_and_arrays_carry_feature_names():
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [0, 1, 0], "t": [0.5, 1.5, 2.5]})
    data = load_dataset(frame, "t")
    assert data.feature_names == ("a", "b") and data.task == "regression"
    arrays = load_dataset(np.eye(3), y=[1.0, 2.5, 3.0], feature_names=["p", "q", "r"])
    assert arrays.feature_names == ("p", "q", "r") and arrays.task == "regression"
    unnamed = load_dataset(np.eye(3), y=[0, 1, 0])
    assert unnamed.feature_names == ("x0", "x1", "x2")


@pytest.mark.parametrize("name", sorted(bundled_datasets()))
def test_bundled_datasets_load_without_download(name):
    data = load_dataset(name)
    assert data.n_samples > 100 and data.n_features >= 10
    assert np.isfinite(data.X).all()


def test_bundled_tasks():
    assert load_dataset("breast-cancer").task == "classification"
    assert load_dataset("diabetes").task == "regression"
    votes = load_dataset("house-votes-84")
    assert set(votes.classes) == {"democrat", "republican"}
    assert "physician_fee_freeze=y" in votes.feature_names
    assert set(np.unique(votes.X)) == {0.0, 1.0}


@pytest.mark.parametrize(
    "text, target, message",
    [
        ("a,b\n1,2\n3,4\n", "y", "target column 'y' not found; columns are: a, b"),
        ("a,y\n1,2\n", "y", "has 1 row; at least 2 are needed"),
        ("a,y\n1,1\n2,0\nabc,1\n3,0\n4.5,1\n", "y", "column 'a' mixes numbers and text \\(e.g. 'abc' at row 2\\)"),
        ("a,y\n1,1\n,0\n3,1\n", "y", "X contains nan in 'a' \\(row 1"),
        ("a,y\n1,1\ninf,0\n3,1\n", "y", "X contains inf in 'a' \\(row 1"),
        ("a,y\n1,1\n2,\n3,1\n", "y", "target 'y' is missing at row 1"),
        ("y\n1\n2\n", "y", "no feature columns besides the target"),
    ],
)
def test_bad_csv_input(csv_file, text, target, message):
    with pytest.raises(InputError, match=message):
        load_dataset(csv_file(text), target)


def test_missing_and_empty_files(tmp_path):
    with pytest.raises(InputError, match="not found"):
        load_dataset(tmp_path / "nope.csv", "y")
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(InputError, match="is empty"):
        load_dataset(tmp_path / "empty.csv", "y")
    with pytest.raises(InputError, match="needs --target"):
        load_dataset(tmp_path / "empty.csv")


def test_a_file_named_like_a_bundled_data_set_is_pointed_to_it():
    with pytest.raises(InputError, match=r"not found; did you mean the bundled data set 'house-votes-84'"):
        load_dataset("house_votes_84.csv", "party")
    with pytest.raises(InputError, match=r"^data file 'votes_of_1984.csv' not found$"):
        load_dataset("votes_of_1984.csv", "party")


@pytest.mark.parametrize("name", sorted(bundled_datasets()))
def test_every_bundled_name_is_found_from_its_usual_misspellings(name):
    for typed in (name.upper(), name.replace("-", "_"), f"{name}.csv", f"data/{name.replace('-', '_')}.csv"):
        assert closest_bundled(typed) == name, typed
    assert closest_bundled("zz") is None


def test_array_shape_errors():
    with pytest.raises(InputError, match="2-D"):
        load_dataset(np.ones(3), y=[1, 2, 3])
    with pytest.raises(InputError, match="y has shape \\(2,\\); expected \\(3,\\)"):
        load_dataset(np.ones((3, 2)), y=[1, 2])
    with pytest.raises(InputError, match="2 feature names for 3 columns"):
        load_dataset(np.ones((3, 3)), y=[1, 2, 3], feature_names=["a", "b"])


def test_single_class_target_is_refused_for_classifiers(csv_file):
    data = load_dataset(csv_file("a,y\n1,yes\n2,yes\n"), "y")
    with pytest.raises(InputError, match="single class \\('yes'\\)"):
        data.require("classification")
    with pytest.raises(InputError, match="not numeric"):
        data.require("regression")
    data.require("any")


def test_check_finite_names_the_column():
    X = np.ones((3, 2))
    X[2, 1] = np.nan
    with pytest.raises(InputError, match="'b' \\(row 2"):
        check_finite(X, ["a", "b"])


@pytest.mark.parametrize("text, message", [
    ("a,a,y\n1,2,0\n3,4,1\n", "two columns are named 'a' in the header"),
    ("a,b,a,y\n1,2,3,0\n3,4,5,1\n", "two columns are named 'a' in the header"),
    ("a,a=x,y\nx,2,0\nz,4,1\n", "two features are named 'a=x' (a column, and a level of a text column)"),
])
def test_a_name_given_twice_is_refused_not_silently_renamed(tmp_path, text, message):
    (tmp_path / "d.csv").write_text(text)
    with pytest.raises(InputError, match=re.escape(message)):
        load_dataset(tmp_path / "d.csv", "y")


def test_a_frame_or_arrays_with_a_name_given_twice_are_refused():
    frame = pd.DataFrame([[1, 2, 0], [3, 4, 1]], columns=["a", "y", "y"])
    with pytest.raises(InputError, match="two columns are named 'y'"):
        load_dataset(frame, "y")
    with pytest.raises(InputError, match="two features are named 'a'"):
        load_dataset(np.eye(2), y=[0, 1], feature_names=["a", "a"])


@pytest.mark.parametrize("value, message", [
    (1e308, "larger than 1.34e+154 in magnitude, so its square overflows"),
    (-2e200, "larger than 1.34e+154"),
    (5e-324, "smaller than 2.23e-308 in magnitude (a subnormal float)"),
])
def test_numbers_the_methods_cannot_compute_with_are_refused_in_one_line(tmp_path, value, message):
    rows = "".join(f"{value if i == 3 else i / 10!r},{i % 3},{i % 2}\n" for i in range(30))
    (tmp_path / "d.csv").write_text("a,b,y\n" + rows)
    with pytest.raises(InputError, match=r"column 'a' of the data holds .* \(row 3\): " + re.escape(message)):
        load_dataset(str(tmp_path / "d.csv"), "y")
    with pytest.raises(InputError, match="target 'y' holds"):
        load_dataset(pd.DataFrame({"a": [1.0, 2.0, 3.0], "y": [0.0, value, 1.0]}), "y")
    for method in ("symbolic", "facets"):
        result = CliRunner().invoke(cli, ["run", "--method", method, "--data", str(tmp_path / "d.csv"),
                                          "--target", "y", "--quiet"])
        assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1 and message in result.stderr


def test_large_and_tiny_numbers_within_the_limits_are_kept():
    data = load_dataset(pd.DataFrame({"a": [1e150, -1e150, 1e-300, 0.0], "y": [0, 1, 0, 1]}), "y")
    assert data.X[:, 0].tolist() == [1e150, -1e150, 1e-300, 0.0]


def test_a_repeated_column_name_is_refused_before_the_body_is_parsed(tmp_path, monkeypatch):
    """200,000 columns all named 'a': the header alone is read (pandas, which takes minutes on
    such a body, is never called)."""
    n = 200_000
    path = tmp_path / "dup.csv"
    path.write_text(",".join(["a"] * n) + "\n" + ",".join(["1"] * n) + "\n" + ",".join(["2"] * n) + "\n")
    monkeypatch.setattr(pd, "read_csv", lambda *a, **k: pytest.fail("the body was parsed"))
    with pytest.raises(InputError, match="two columns are named 'a' in the header"):
        load_dataset(str(path), "a")


def test_the_header_is_read_as_pandas_reads_it(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text('\ufeff"x, y", z,"multi\nline"\n1,2,3\n4,5,6\n', encoding="utf-8")
    from interp.data import _header

    assert _header(path) == ["x, y", "z", "multi\nline"] == list(pd.read_csv(path, skipinitialspace=True).columns)
