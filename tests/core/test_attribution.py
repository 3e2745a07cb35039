"""Every failure says whose it is: bad input exit 2 in one line, a plugin's bug exit 1 in one
line naming the plugin at fault, ``--debug`` showing the traceback."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

import interp
from interp.cli import cli
from interp.testing import registered


def _invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def _one_error_line(result) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    return lines[0]


def _returns_a_dict(data, ctx):
    return {"text": "not an explanation"}


class WrongResult:
    @interp.hookimpl
    def register_methods(self, register):
        register(interp.Method("wrongresult", "Returns a dict.", _returns_a_dict))


def test_a_method_that_returns_no_explanation_is_a_bug():
    with registered(WrongResult(), "wrongs"):
        result = _invoke("run", "--plugin", "wrongresult", "--dataset", "diabetes")
    assert result.exit_code == 1
    assert _one_error_line(result).startswith(
        "Error: bug in plugin 'wrongs' (method 'wrongresult'): TypeError: the method returned dict, not an "
        "interp.Explanation")


class FlatEmbedding:
    @interp.hookimpl
    def register_embeddings(self, register):
        register(interp.Embedding("flat", embed=lambda matrix: np.ones(matrix.shape[0])))


def test_an_embedding_of_the_wrong_shape_is_a_bug_of_its_plugin():
    with registered(FlatEmbedding(), "flatland"):
        result = _invoke("run", "--plugin", "featurevec", "--dataset", "breast-cancer", "--embedding", "flat",
                         "--paths", 200, "--quiet")
    assert result.exit_code == 1
    assert _one_error_line(result).startswith("Error: bug in plugin 'flatland' (method 'featurevec'): PluginError: "
                                              "embedding 'flat' from plugin 'flatland' returned shape (30,)")


def _exploding_prox(w, step):
    return np.asarray(w) / 0 if np.ndim(w) > 5 else {}["no such key"]


class ExplodingPenalty:
    @interp.hookimpl
    def register_penalties(self, register):
        register(interp.Penalty("boom", value=lambda w: 0.0, prox=_exploding_prox))


def test_a_component_that_raises_inside_a_run_is_a_bug_of_its_plugin():
    with registered(ExplodingPenalty(), "exploding"):
        result = _invoke("run", "--plugin", "facets", "--dataset", "breast-cancer", "--penalty", "boom",
                         "--lam", 0.05, "--gamma", 1.0, "--binarize", "never", "--quiet")
    assert result.exit_code == 1
    assert _one_error_line(result).startswith("Error: bug in plugin 'exploding' (method 'facets'): KeyError")


BROKEN_PLUGIN = """
def helper():
    raise RuntimeError("broken on purpose at import")

helper()
"""


def test_debug_shows_the_traceback_of_a_plugin_that_failed_to_import(install_fake):
    install_fake("fake-broken", {"broken": "fake_broken_mod"}, {"fake_broken_mod": BROKEN_PLUGIN})
    plain = _invoke("plugins")
    assert plain.exit_code == 0 and "Traceback" not in plain.output and "broken on purpose" in plain.output
    for args in (["plugins", "--debug"], ["--debug", "datasets"], ["show", "--debug", "nowhere"],
                 ["run", "--plugin", "facets", "--dataset", "nope", "--debug"]):
        result = _invoke(*args)
        assert "plugin 'broken' failed to load:\nTraceback (most recent call last):" in result.stderr, args
        assert 'in helper\n    raise RuntimeError("broken on purpose at import")' in result.stderr
        assert result.stderr.count("Traceback") == 1
    rows = json.loads(_invoke("plugins", "--json").stdout)
    assert "RuntimeError: broken on purpose at import" in next(r for r in rows if r["name"] == "broken")["traceback"]


@pytest.mark.parametrize("saved, message", [
    ([1, 2], "a saved explanation is a JSON object, got a list"),
    ("explanation", "a saved explanation is a JSON object, got a string"),
    (None, "a saved explanation is a JSON object, got null"),
    ({"plugin": "p", "sections": [{"kind": "text", "body": "x", "colour": "red"}]},
     "a text section has no field 'colour'"),
    ({"plugin": "p", "sections": [{"kind": "chart"}]}, "unknown section kind 'chart'"),
    ({"plugin": "p", "sections": [{"kind": "table", "columns": ["a"]}]}, "a table section needs the field 'rows'"),
    ({"plugin": "p", "sections": [{"kind": "table", "columns": ["a"], "rows": [[1, 2]]}]}, "row 0 has 2 values"),
    ({"plugin": "p", "sections": [{"kind": "formula", "text": 3}]}, "'text' of a formula section is a number"),
    ({"plugin": "p", "sections": "text"}, "'sections' is a string, not a list"),
    ({"plugin": "p", "metrics": [1, 2]}, "'metrics' is a list, not an object"),
    ({"plugin": "p", "params": "x"}, "'params' is a string, not an object"),
    ({"plugin": 3}, "'plugin' is a number, not a string"),
    ({"plugin": "p", "colour": "red"}, "unknown key 'colour'"),
    ({"method": "m"}, "names its 'plugin'"),
    ({"plugin": "p", "format_version": 99}, "format version 99 is not one this interp reads"),
    ({"plugin": "p", "format_version": True}, "'format_version' is a boolean, not a number"),
])
def test_show_on_json_that_is_not_an_explanation_is_one_line(tmp_path, saved, message):
    (tmp_path / "explanation.json").write_text(json.dumps(saved))
    result = _invoke("show", tmp_path)
    assert result.exit_code == 2
    line = _one_error_line(result)
    assert line.startswith("Error: ") and "is not a saved explanation" in line and message in line


@pytest.mark.parametrize("text", ["{", "[" * 100000, b"\xff\xfe".decode("latin-1")])
def test_show_on_a_file_that_is_not_json_is_one_line(tmp_path, text):
    (tmp_path / "explanation.json").write_text(text, encoding="latin-1")
    result = _invoke("show", tmp_path)
    assert result.exit_code == 2 and "is not a saved explanation" in _one_error_line(result)
