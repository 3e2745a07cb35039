"""The core contracts: subclassable components, options declared once, typed sections, and the
line between bad input (exit 2) and a plugin's bug (exit 1)."""

import json
import pickle

import numpy as np
import pytest
from click.testing import CliRunner

import interp
from interp.cli import cli
from interp.component_options import resolve_options
from interp.errors import InputError, PluginError
from interp.testing import registered


class HalfL1(interp.Penalty):
    """Half the lasso: sum |w| / 2."""

    name = "half_l1"

    def value(self, w):
        return 0.5 * float(np.abs(w).sum())

    def prox(self, w, step):
        return np.sign(w) * np.maximum(np.abs(w) - 0.5 * step, 0.0)


def test_a_subclassed_component_defines_its_behaviour_as_methods():
    pen = HalfL1()
    assert pen.name == "half_l1" and pen.description == "Half the lasso: sum |w| / 2."
    assert pen.value(np.array([1.0, -3.0])) == 2.0
    np.testing.assert_allclose(pen.prox(np.array([1.0, -0.2]), 1.0), [0.5, 0.0])
    assert pen.subdiff_distance is None and pen.defaults == {}
    with pytest.raises(AttributeError, match="frozen"):
        pen.name = "other"


def test_a_subclass_missing_a_method_is_rejected_with_its_name():
    class NoProx(interp.Penalty):
        name = "noprox"

        def value(self, w):
            return 0.0

    with pytest.raises(PluginError, match="invalid penalty 'noprox': prox must be callable"):
        NoProx()


def test_labelling_copies_keep_the_subclass_and_pickle():
    labelled = HalfL1().labelled("mine")
    assert type(labelled) is HalfL1 and labelled.plugin == "mine" and HalfL1().plugin == ""
    again = pickle.loads(pickle.dumps(labelled))
    assert again == labelled and again.plugin == "mine"
    np.testing.assert_array_equal(again.prox(np.array([2.0]), 2.0), [1.0])


def test_a_registered_subclass_instance_reaches_the_registry_labelled():
    class Plugin:
        @interp.hookimpl
        def register_penalties(self, register):
            register(HalfL1())

    with registered(Plugin(), "halves"):
        pen = interp.get_registry().penalties["half_l1"]
    assert isinstance(pen, HalfL1) and pen.plugin == "halves"


def test_kernel_operator_combine_is_the_joint_truth_table_rule():
    xor = interp.KernelOperator("xor", 2, (0, 1, 1, 0))
    rng = np.random.default_rng(0)
    x, z = rng.integers(0, 2, 6), rng.integers(0, 2, 6)
    s, p, q, n = int(x @ z), int(x.sum()), int(z.sum()), 6
    lit = [[n - p - q + s, q - s], [p - s, s]]
    out = xor.combine([lit, lit])
    pairs = [(i, j) for i in range(n) for j in range(n)]
    for u in (0, 1):
        for v in (0, 1):
            brute = sum((x[i] ^ x[j]) == u and (z[i] ^ z[j]) == v for i, j in pairs)
            assert out[u][v] == brute
    with pytest.raises(InputError, match="takes 2 operands, got 1"):
        xor.combine([lit])


def test_option_is_the_one_source_of_defaults_conversion_and_bounds():
    method = interp.Method("m", "s", run="json:dumps", options=(
        interp.Option("k", int, 3, min=1), interp.Option("rate", float, 0.5, min=0, max=1),
        interp.Option("kind", str, "a", choices=("a", "b")), interp.Option("flag", bool, False)))
    assert resolve_options(method, {}) == {"k": 3, "rate": 0.5, "kind": "a", "flag": False}
    assert resolve_options(method, {"k": 5, "rate": 1}) == {"k": 5, "rate": 1.0, "kind": "a", "flag": False}
    for given, message in [({"k": 0}, "--k must be >= 1, got 0"), ({"rate": 1.5}, "--rate must be <= 1"),
                           ({"k": 2.5}, "--k must be an integer"), ({"kind": "c"}, "--kind must be one of a, b"),
                           ({"flag": "yes"}, "--flag is a flag"), ({"nope": 1}, "has no option 'nope'"),
                           ({"rate": float("nan")}, "--rate must be finite")]:
        with pytest.raises(InputError, match=message):
            resolve_options(method, given)
    with pytest.raises(PluginError, match="--k must be >= 1"):  # a default outside its own bounds
        interp.Option("k", int, 0, min=1)


def test_a_method_run_named_by_string_is_imported_when_it_runs():
    method = interp.Method("m", "s", run="json:dumps")
    assert method.load() is json.dumps
    with pytest.raises(PluginError, match="'module:function'"):
        interp.Method("m", "s", run="json.dumps")


def test_sections_round_trip_through_json_and_render_as_text():
    exp = interp.Explanation(
        method="m", plugin="p", metrics={"r2": 0.5},
        sections=[interp.Formula("y = 2*x", latex="y = 2 x", title="Formula"),
                  interp.Table(["feature", "weight"], [["x", 2.0], ["long name", -0.125]], title="Weights"),
                  interp.Text("a rule"), interp.Figure("shape")])
    assert exp.text == ("Formula:\ny = 2*x\n\nWeights:\nfeature    weight\nx               2\n"
                        "long name  -0.125\n\na rule")
    again = interp.Explanation.from_dict(json.loads(exp.to_json()))
    assert again == exp and again.sections == exp.sections and again.method == "m"
    assert exp.summary().splitlines()[0] == "m (plugin p)"


def test_a_format_1_explanation_loads_with_its_plugin_as_the_method():
    old = {"format_version": 1, "plugin": "facets", "version": "0.1", "dataset": "d", "params": {},
           "metrics": {}, "explanation": {}, "text": "card"}
    exp = interp.Explanation.from_dict(old)
    assert exp.method == "facets" and exp.text == "card" and exp.sections == ()


def test_bad_sections_are_refused():
    with pytest.raises(TypeError, match="Text, Table, Formula or Figure"):
        interp.Explanation(sections=["just a string"])
    with pytest.raises(ValueError, match="row 0 has 1 values for 2 columns"):
        interp.Table(["a", "b"], [[1]])


def _buggy(data, ctx, *, mode):
    if mode == "bad-input":
        raise InputError("the data is not what this method reads")
    return {"not": "an explanation"}["missing key"]


class BuggyPlugin:
    @interp.hookimpl
    def register_methods(self, register):
        register(interp.Method("buggy", "Raises.", _buggy, options=(
            interp.Option("mode", str, "bug", choices=("bug", "bad-input")),)))
        register(interp.Method("broken", "Cannot import.", "interp_no_such_module:run"))


@pytest.fixture
def buggy():
    with registered(BuggyPlugin(), "bugs"):
        yield


def test_a_plugins_bug_is_one_line_naming_it_with_exit_1(buggy):
    result = CliRunner().invoke(cli, ["run", "--plugin", "buggy", "--dataset", "diabetes", "--quiet"])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "Error: bug in plugin 'bugs' (method 'buggy'): KeyError: 'missing key' "
        "(run again with --debug for the traceback)"]


def test_debug_shows_the_bug_itself(buggy):
    result = CliRunner().invoke(cli, ["run", "--plugin", "buggy", "--dataset", "diabetes", "--debug"])
    assert result.exit_code == 1
    assert "Traceback (most recent call last)" in result.stderr and "in _buggy" in result.stderr
    assert result.stderr.strip().splitlines()[-1] == "Error: bug in plugin 'bugs' (method 'buggy'): KeyError: 'missing key'"


def test_bad_input_from_a_method_stays_exit_2(buggy):
    result = CliRunner().invoke(cli, ["run", "--plugin", "buggy", "--dataset", "diabetes", "--mode", "bad-input"])
    assert result.exit_code == 2
    assert result.output.strip() == "Error: the data is not what this method reads"


def test_a_method_whose_run_cannot_be_imported_is_one_line(buggy):
    result = CliRunner().invoke(cli, ["run", "--plugin", "broken", "--dataset", "diabetes"])
    assert result.exit_code == 2
    assert result.output.strip() == ("Error: plugin 'bugs' cannot run 'broken' here: missing dependency "
                                     "'interp_no_such_module' (ModuleNotFoundError: No module named "
                                     "'interp_no_such_module')")


def test_the_report_shows_a_bug_as_a_failed_section(buggy, tmp_path):
    result = CliRunner().invoke(cli, ["report", "--dataset", "diabetes", "--plugins", "buggy", "--out",
                                      str(tmp_path), "--quiet"])
    assert result.exit_code == 1 and "1 failed: buggy" in result.output
    assert "bug in plugin &#x27;bugs&#x27;" in (tmp_path / "report.html").read_text()


def test_registry_collect_builds_a_catalogue_from_any_register_hook():
    class Widget(interp.Component):
        kind = "widget"

    class Specs:
        @interp.hookspec
        def register_widgets(self, register):
            """Register widgets."""

    class Library:
        @interp.hookimpl
        def add_hookspecs(self, pluginmanager):
            pluginmanager.add_hookspecs(Specs)

    class User:
        @interp.hookimpl
        def register_widgets(self, register):
            register(Widget("knob"))

    with registered(Library(), "library"), registered(User(), "user"):
        widgets = interp.registry.collect("register_widgets", Widget, "widget")
    assert list(widgets) == ["knob"] and widgets["knob"].plugin == "user"


def test_table_formats_numbers_per_column_and_keeps_full_values_in_json():
    table = interp.Table(["feature", "angle"], [["a", 20.4567], ["b", -3.0]], formats=("", ".1f"))
    assert table.render_text() == "feature  angle\na         20.5\nb         -3.0"
    assert interp.Explanation(sections=[table]).to_dict()["sections"][0]["rows"] == [["a", 20.4567], ["b", -3.0]]
    with pytest.raises(ValueError, match="1 formats for 2 columns"):
        interp.Table(["a", "b"], [], formats=(".1f",))


def test_a_huge_cell_overflows_its_own_line_and_pads_no_other():
    """One name of a megabyte in a table of a thousand rows prints about a megabyte, not a
    gigabyte: the other rows are padded to at most MAX_PADDED_WIDTH."""
    from interp.sections import MAX_PADDED_WIDTH

    rows = [["x" * 1_000_000, 1.0]] + [[f"f{i}", float(i)] for i in range(1000)]
    lines = interp.Table(["feature", "weight"], rows).render_text().splitlines()
    assert len(lines[1]) > 1_000_000
    assert max(len(line) for line in lines[2:]) == MAX_PADDED_WIDTH + 2 + len("weight")
    assert lines[-1].split() == ["f999", "999"]
