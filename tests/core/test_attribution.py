"""Every failure says whose it is: bad input exit 2 in one line, a plugin's bug exit 1 in one
line naming the plugin at fault, ``--debug`` showing the traceback."""

import json
import operator
import re

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


# -- a component's failure is its plugin's, wherever the method trips over it ----------------------
def _soft_threshold(w, step):
    return np.sign(w) * np.maximum(np.abs(w) - step, 0.0)


class ComponentBugs:
    """Penalties that break their contract in the ways a method would trip over later."""

    @interp.hookimpl
    def register_penalties(self, register):
        l1 = lambda w: float(np.abs(w).sum())  # noqa: E731
        register(interp.Penalty("flat", value=l1, prox=lambda w, s: _soft_threshold(w, s).ravel(), any_shape=True))
        register(interp.Penalty("nan_prox", value=l1, prox=lambda w, s: np.full(np.shape(w), np.nan)))
        register(interp.Penalty("identity_prox", value=l1, prox=lambda w, s: np.array(w, dtype=float)))
        register(interp.Penalty("indexing", value=l1, prox=operator.getitem))  # raises in C, no frame of its own


def _facets(penalty, *extra):
    with registered(ComponentBugs(), "component_bugs"):
        return _invoke("run", "--plugin", "facets", "--dataset", "breast-cancer", "--penalty", penalty,
                       "--lam", 0.05, "--gamma", 1.0, "--quiet", *extra)


def test_a_prox_that_flattens_a_stack_of_points_is_a_bug_of_its_plugin_not_of_facets():
    result = _facets("flat")
    assert result.exit_code == 1
    assert re.fullmatch(r"Error: bug in plugin 'component_bugs' \(method 'facets'\): PluginError: invalid penalty "
                        r"'flat' from plugin 'component_bugs': prox of points of shape \((\d+), (\d+)\) returned "
                        r"shape \(\d+,\) \(run again with --debug for the traceback\)", _one_error_line(result))


def test_an_error_raised_where_no_plugin_owns_the_code_is_the_components_plugins():
    result = _facets("indexing")
    assert result.exit_code == 1
    assert _one_error_line(result).startswith("Error: bug in plugin 'component_bugs' (method 'facets'): IndexError")
    debug = _facets("indexing", "--debug")
    assert "(raised in penalty 'indexing' from plugin 'component_bugs', by its prox)" in debug.stderr


@pytest.mark.parametrize("penalty, problem", [
    ("nan_prox", "prox returned NaN or infinity at finite points"),
    ("identity_prox", "is not a proximal point: |u - w|^2 / 2 + step * value(u) is"),
])
def test_a_prox_that_returns_nan_or_the_identity_is_refused_naming_its_plugin(penalty, problem):
    result = _facets(penalty)
    assert result.exit_code == 1
    line = _one_error_line(result)
    assert line.startswith(f"Error: bug in plugin 'component_bugs' (method 'facets'): PluginError: invalid penalty "
                           f"{penalty!r} from plugin 'component_bugs': ") and problem in line


def test_the_checks_on_what_a_prox_returns_hold_from_python_too():
    bound = interp.Penalty("ident", value=lambda w: float(np.abs(w).sum()), prox=lambda w, s: w).bind()
    with pytest.raises(interp.PluginError, match=r"u = w shrunk by"):
        bound.prox(np.array([1.0, -2.0, 3.0]), 0.5)
    exact = interp.Penalty("l1", value=lambda w: float(np.abs(w).sum()), prox=_soft_threshold).bind()
    w = np.random.default_rng(0).normal(size=50)
    for step in (1e-6, 0.1, 0.7, 5.0):
        np.testing.assert_array_equal(exact.prox(w, step), _soft_threshold(w, step))


# -- an import error in a method's own code is its bug; a missing package is not -------------------
TYPO_PLUGIN = """
import interp

class Plugin:
    @interp.hookimpl
    def register_methods(self, register):
        register(interp.Method("typo_run", "Imports a misspelled name.", "fake_typo_run:run"))
"""


@pytest.mark.parametrize("line, error", [
    ("from sklearn.ensemble import GradientBoostingClassifer",
     "ImportError: cannot import name 'GradientBoostingClassifer' from 'sklearn.ensemble'"),
    ("import sklearn.ensembel", "ModuleNotFoundError: No module named 'sklearn.ensembel'"),
])
def test_an_import_error_in_a_methods_run_module_is_a_bug_with_its_file_and_line(install_fake, line, error):
    install_fake("fake-typo", {"typo_run": "fake_typo_plugin:Plugin"},
                 {"fake_typo_plugin": TYPO_PLUGIN, "fake_typo_run": f"import numpy\n{line}\n\ndef run(data, ctx):\n"
                                                                     "    pass\n"})
    result = _invoke("run", "--plugin", "typo_run", "--dataset", "diabetes")
    assert result.exit_code == 1
    assert _one_error_line(result).startswith(f"Error: bug in plugin 'typo_run' (method 'typo_run'): {error}")
    debug = _invoke("run", "--plugin", "typo_run", "--dataset", "diabetes", "--debug")
    assert debug.exit_code == 1 and 'fake_typo_run.py", line 2, in <module>' in debug.stderr


# -- a plugin's commands fail as interp's own do ----------------------------------------------------
class Commands:
    @interp.hookimpl
    def register_commands(self, cli):
        import click

        @cli.command("refuse")
        def refuse():
            raise interp.InputError("the file is not a score card")

        @cli.command("crash")
        def crash():
            return {}["no such key"]

        @cli.command("hello")
        def hello():
            click.echo("hello")


@pytest.mark.parametrize("args, code, line", [
    (["refuse"], 2, "Error: the file is not a score card"),
    (["crash"], 1, "Error: bug in plugin 'commands' (command 'crash'): KeyError: 'no such key' "
                   "(run again with --debug for the traceback)"),
])
def test_a_plugins_command_gets_interps_error_handling(args, code, line):
    with registered(Commands(), "commands"):
        result = _invoke(*args)
        debug = _invoke("--debug", *args)
        hello = _invoke("hello")
    assert result.exit_code == code and _one_error_line(result) == line
    assert debug.exit_code == code
    assert ("Traceback (most recent call last)" in debug.stderr and "in crash" in debug.stderr) == (code == 1)
    assert hello.exit_code == 0 and hello.output == "hello\n"


class ThirdPartyRaisers:
    """A ridge family and a kernel operator whose code raises from C, where no frame names them."""

    class ItemOperator(interp.KernelOperator):
        name, arity, truth_table = "item_op", 2, (0, 1, 1, 0)
        combine = operator.itemgetter(7)  # not a method: called with the blocks, raises IndexError

    @interp.hookimpl
    def register_kernel_operators(self, register):
        register(self.ItemOperator())

    @interp.hookimpl
    def register_ridge_families(self, register):
        register(interp.RidgeFamily("item_family", init_theta=(1.0,), value=operator.getitem,
                                    gradient=operator.getitem))


def test_every_call_from_a_built_in_method_into_a_component_names_the_components_plugin():
    """(Symbolic Pursuit lets a family that fails lose to the others; the error it drops names
    the family's plugin all the same.)"""
    from interp.attribution import owner
    from interp_propositional import propositional_kernel
    from interp_symbolic.families import Ridge

    X = np.random.default_rng(0).uniform(size=(30, 2))
    with registered(ThirdPartyRaisers(), "raisers"):
        with pytest.raises(IndexError) as kernel_error:
            propositional_kernel("item_op(a, b)", (X > 0.5).astype(int))
        ridge = Ridge(interp.get_registry().ridge_families["item_family"])
        for evaluate in (ridge.value, ridge.value_and_grad):
            with pytest.raises(IndexError) as family_error:
                evaluate(np.ones(1), X[:, 0])
            assert owner(family_error.value) == "raisers"
    assert owner(kernel_error.value) == "raisers"


class FlatCombine(interp.KernelOperator):
    name, arity, truth_table = "flat_combine", 2, (0, 1, 1, 0)

    def combine(self, blocks):
        return [value for row in super().combine(blocks) for value in row]  # four counts, not 2 x 2


class FlatCombinePlugin(interp.Plugin):
    kernel_operators = (FlatCombine(),)


def test_a_combine_of_the_wrong_shape_is_refused_naming_its_plugin():
    from interp_propositional import propositional_kernel

    X = (np.random.default_rng(0).uniform(size=(8, 3)) > 0.5).astype(int)
    with registered(FlatCombinePlugin(), "flat_ops"):
        with pytest.raises(interp.PluginError, match=r"^invalid kernel operator 'flat_combine' from plugin 'flat_ops': "
                                                     r"combine of 2 operands returned list, not the 2 x 2 nested "
                                                     r"counts out\[u\]\[v\]$") as caught:
            propositional_kernel("flat_combine(a, b)", X)
    assert caught.value.plugin == "flat_ops"
