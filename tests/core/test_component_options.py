"""Options that name registered components: one component with its parameters (declared once, in
the component's ``defaults``), a ``param_of`` shortcut that is an error where it does not apply,
and a selection of a catalogue by names, patterns and exclusions."""

import json

import numpy as np
import pytest

import interp
from interp.component_options import select
from interp.errors import InputError, PluginError
from interp.runner import RunContext, run_method
from interp.testing import registered


class Capped(interp.Penalty):
    """Capped L1 (a penalty with parameters of three types)."""

    name = "capped"
    defaults = {"cap": 1.0, "rounds": 2, "strict": False}

    def check_hyper(self, hyper):
        if not hyper["cap"] > 0:
            raise InputError(f"cap must be > 0, got {hyper['cap']}")
        return hyper

    def value(self, w, cap=1.0, rounds=2, strict=False):
        return float(np.minimum(np.abs(w), cap).sum())

    def prox(self, w, step, cap=1.0, rounds=2, strict=False):
        return w


class Plain(interp.Penalty):
    name = "plain"

    def value(self, w):
        return float(np.abs(w).sum())

    def prox(self, w, step):
        return w


def _record(data, ctx, **options):
    """Returns no params of its own: the core fills them from the resolved options."""
    return interp.Explanation(payload={"received": options}, text="ok")


METHOD = interp.Method(
    name="picker",
    summary="Records the options it receives.",
    run=_record,
    options=(
        interp.Option("penalty", str, "plain", "a penalty", catalogue="penalties"),
        interp.Option("cap", float, None, "the cap of a penalty that has one", param_of="penalty"),
        interp.Option("families", str, None, "ridge families", catalogue="ridge_families", many=True),
        interp.Option("k", int, 3, "a plain option"),
    ),
)


class Picker:
    @interp.hookimpl
    def register_penalties(self, register):
        register(Capped())
        register(Plain())

    @interp.hookimpl
    def register_methods(self, register):
        register(METHOD)


@pytest.fixture
def picker():
    with registered(Picker(), "picker") as info:
        yield info


def _received(run, *args):
    result = run("run", "--method", "picker", "--dataset", "diabetes", "--format", "json", *args)
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    return out["explanation"]["received"], out["params"]


def test_the_component_and_its_parameters_reach_run_and_params(run, picker):
    received, params = _received(run, "--penalty", "capped", "--penalty-param", "cap=2.5",
                                 "--penalty-param", "rounds=4", "--penalty-param", "strict=yes")
    assert received["penalty"] == "capped"
    assert received["penalty_params"] == {"cap": 2.5, "rounds": 4, "strict": True}
    assert "cap" not in received  # the shortcut arrives inside penalty_params only
    assert params == {**received, "seed": 0}  # the method left params empty: the core filled them


def test_defaults_fill_what_is_not_given_and_the_shortcut_sets_its_parameter(run, picker):
    received, _ = _received(run, "--penalty", "capped", "--cap", "0.5")
    assert received["penalty_params"] == {"cap": 0.5, "rounds": 2, "strict": False}
    received, _ = _received(run)
    assert received["penalty"] == "plain" and received["penalty_params"] == {}


@pytest.mark.parametrize("args, message", [
    (("--cap", "2"), "--cap does not apply to --penalty plain (it takes no parameters); it sets the "
                     "parameter 'cap' of a penalty that has one (capped)"),
    (("--penalty", "capped", "--penalty-param", "width=1"),
     "--penalty-param width: penalty 'capped' has no parameter 'width' (its parameters: cap, rounds, strict)"),
    (("--penalty", "capped", "--penalty-param", "cap=wide"), "--penalty-param cap must be a number, got 'wide'"),
    (("--penalty", "capped", "--penalty-param", "rounds=2.5"), "--penalty-param rounds must be an integer"),
    (("--penalty", "capped", "--penalty-param", "strict=maybe"), "--penalty-param strict must be true or false"),
    (("--penalty", "capped", "--penalty-param", "cap=inf"), "--penalty-param cap must be finite"),
    (("--penalty", "capped", "--penalty-param", "cap"), "--penalty-param takes NAME=VALUE, got 'cap'"),
    (("--penalty", "capped", "--penalty-param", "cap=1", "--penalty-param", "cap=2"), "cap is given twice"),
    (("--penalty", "capped", "--penalty-param", "cap=1", "--cap", "2"), "give 'cap' once"),
    (("--penalty", "capped", "--penalty-param", "cap=-1"), "--penalty capped: cap must be > 0, got -1.0"),
    (("--penalty", "nope"), "unknown penalty 'nope'; registered: capped, elasticnet"),
])
def test_what_does_not_apply_is_a_one_line_error(run, picker, args, message):
    result = run("run", "--method", "picker", "--dataset", "diabetes", *args)
    assert result.exit_code == 2
    line = result.output.strip()
    assert "\n" not in line and line.startswith("Error: ")
    assert message in line


def test_python_callers_pass_a_dict_and_the_plugin_alias_still_works(run, picker):
    data = interp.load_dataset("diabetes")
    result = run_method("picker", data, {"penalty": "capped", "penalty_params": {"cap": 3}}, RunContext(seed=5))
    assert result.payload["received"]["penalty_params"] == {"cap": 3.0, "rounds": 2, "strict": False}
    assert result.params["seed"] == 5 and result.params["k"] == 3
    via_alias = run("run", "--plugin", "picker", "--dataset", "diabetes", "--penalty", "capped", "--format", "json")
    assert json.loads(via_alias.output)["params"]["penalty"] == "capped"


def test_help_lists_the_parameters_of_each_registered_component(run, picker):
    text = " ".join(run("run", "--method", "picker", "--help").output.split())
    assert "--penalty-param NAME=VALUE" in text
    assert "capped: cap=1.0, rounds=2, strict=False" in text and "plain:" not in text


# -- selections ----------------------------------------------------------------------------------
FAMILIES = ("meijer_1002", "meijer_0131", "meijer_2123", "meijer_2233", "meijer_2013")


@pytest.mark.parametrize("spec, chosen", [
    (None, FAMILIES),
    ("meijer_2233,meijer_1002", ("meijer_2233", "meijer_1002")),  # the order given
    ("-meijer_2233", ("meijer_1002", "meijer_0131", "meijer_2123", "meijer_2013")),
    ("meijer_2*,-meijer_2233", ("meijer_2123", "meijer_2013")),
    ("-meijer_2*,-meijer_0131", ("meijer_1002",)),
    ("meijer_1002,meijer_1002,meijer_1*", ("meijer_1002",)),
    (" meijer_0131 , meijer_1002 ", ("meijer_0131", "meijer_1002")),
    (["meijer_0131", "-meijer_0131", "meijer_1002"], ("meijer_1002",)),
])
def test_a_selection_includes_and_excludes_by_name_or_pattern(spec, chosen):
    option = METHOD.options[2]
    assert select(option, interp.get_registry().ridge_families, option.convert(spec)) == chosen


@pytest.mark.parametrize("spec, message", [
    ("meijr_*", "--families: 'meijr_\\*' matches none of the registered ridge families"),
    ("-meijer_*", "--families -meijer_\\* leaves none of the registered ridge families"),
    ("meijer_1002,,meijer_2233", "--families has an empty name"),
    ("meijer_1002,-", "--families has an empty name"),
    (3, "--families takes comma-separated names, got 3"),
])
def test_a_selection_that_names_nothing_is_an_error(spec, message):
    option = METHOD.options[2]
    with pytest.raises(InputError, match=message):
        select(option, interp.get_registry().ridge_families, option.convert(spec))


@pytest.mark.parametrize("form", [("--families=-meijer_2233",), ("--families", "-meijer_2233")])
def test_the_command_line_passes_the_selected_names(run, picker, form):
    received, params = _received(run, *form)
    assert received["families"] == ["meijer_1002", "meijer_0131", "meijer_2123", "meijer_2013"]
    assert params["families"] == received["families"]


# -- declarations ----------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, message", [
    (dict(catalogue="widgets"), "catalogue must be one of ridge_families, penalties, embeddings"),
    (dict(catalogue="penalties", choices=("a",)), "a str option without choices"),
    (dict(many=True), "many=True needs a catalogue"),
    (dict(param_of="penalty", default=0.1, type=float), "an option with param_of names no catalogue and has the "
                                                        "default None"),
])
def test_bad_component_options_are_rejected_when_declared(kwargs, message):
    with pytest.raises(PluginError, match=message):
        interp.Option("x", **{"type": str, **kwargs})


def test_a_method_checks_its_shortcuts_and_companions():
    run = "package.module:run"
    with pytest.raises(PluginError, match="option 'eps' is a parameter of 'penalty', which is not an option naming"):
        interp.Method("m", "s", run, options=(interp.Option("eps", float, param_of="penalty"),))
    with pytest.raises(PluginError, match="must be unique"):
        interp.Method("m", "s", run, options=(interp.Option("penalty", catalogue="penalties"),
                                              interp.Option("penalty_params", str)))


def test_component_defaults_are_checked_when_the_component_is_made():
    with pytest.raises(PluginError, match="the default of parameter 'cap' must be a bool, number or str"):
        Capped(defaults={"cap": [1.0]})
    with pytest.raises(PluginError, match="parameter names in defaults must be Python identifiers"):
        Capped(defaults={"not a name": 1.0})
    assert Capped().resolve_hyper({"cap": 2.0}) == {"cap": 2.0, "rounds": 2, "strict": False}


def test_the_method_params_override_and_extend_the_resolved_options(picker):
    def chooses(data, ctx, **options):
        return interp.Explanation(params={"k": 7, "chosen": "yes"})

    method = interp.Method("chooser", "Overrides a param.", chooses, options=(interp.Option("k", int, 3),))

    class Chooser:
        @interp.hookimpl
        def register_methods(self, register):
            register(method)

    with registered(Chooser(), "chooser"):
        result = run_method("chooser", interp.load_dataset("diabetes"), {}, RunContext(seed=1))
    assert result.params == {"k": 7, "seed": 1, "chosen": "yes"}
