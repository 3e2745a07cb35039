"""Explanation: exact JSON round trip, summary text, save/load, saved runs."""

import json
import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st

from interp import Explanation, InputError
from interp.runs import VersionWarning, load_estimator, load_run, save_run

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**12, 10**12) | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=12,
)


@given(params=st.dictionaries(st.text(max_size=5), json_values, max_size=4), payload=json_values)
def test_json_round_trip_is_exact(params, payload):
    exp = Explanation("m", "1.0", "d", params=params, metrics={"r2": 0.5}, payload={"p": payload}, text="t")
    back = Explanation.from_dict(json.loads(exp.to_json()))
    assert back == exp and back.to_dict() == exp.to_dict()


def test_numpy_values_become_plain_json():
    exp = Explanation(params={"a": np.float32(0.5), "b": np.arange(3), "c": (1, 2)}, metrics={"x": np.int64(3)})
    assert exp.params == {"a": 0.5, "b": [0, 1, 2], "c": [1, 2]} and exp.metrics == {"x": 3}
    with pytest.raises(TypeError, match="cannot store object"):
        Explanation(payload={"bad": object()})


def test_summary_shows_header_metrics_and_text():
    text = Explanation("facets", "0.1", "votes", metrics={"accuracy": 0.91234, "n": 3}, text="score card").summary()
    assert text.splitlines()[0] == "facets 0.1 on votes"
    assert "accuracy  0.9123" in text and text.endswith("score card")


def test_save_run_and_load_back(tmp_path):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([0, 1])
    exp = Explanation("toy", "0.1", "d", metrics={"m": 1.0}, figures={"plot": fig}, estimator={"coef": [1, 2]})
    names = sorted(p.name for p in save_run(exp, tmp_path / "run"))
    assert names == ["estimator.joblib", "explanation.json", "plot.png"]
    assert load_run(tmp_path / "run") == exp
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load_estimator(tmp_path / "run") == {"coef": [1, 2]}
    plt.close(fig)


def test_estimator_from_another_version_warns(tmp_path):
    import joblib

    (tmp_path / "explanation.json").write_text(Explanation("toy").to_json())
    joblib.dump({"interp_version": "0.0.1", "plugin": "toy", "estimator": 42}, tmp_path / "estimator.joblib")
    with pytest.warns(VersionWarning, match="saved by interp 0.0.1"):
        assert load_estimator(tmp_path) == 42


def test_not_a_run_folder(tmp_path):
    with pytest.raises(InputError, match="not a saved run"):
        load_run(tmp_path)
