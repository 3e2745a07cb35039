"""The registry: entry-point loading, isolation of broken plugins, duplicates, strict mode."""

import warnings

import pytest

import interp
from interp import KernelOperator, Penalty, PluginError, hookimpl
from interp.registry import PluginWarning, get_registry, plugin_manager, register_plugin
from interp.testing import registered


class OperatorPlugin:
    def __init__(self, name="xnor3"):
        self.name = name

    @hookimpl
    def register_kernel_operators(self, register):
        register(KernelOperator(self.name, 1, [1, 0]))


def test_inline_plugin_is_labelled_and_removed_afterwards():
    with registered(OperatorPlugin("flip"), "flipper"):
        registry = get_registry()
        assert registry.kernel_operators["flip"].plugin == "flipper"
        assert registry.plugin("flipper").registered == {"kernel_operators": ["flip"]}
    assert "flip" not in get_registry().kernel_operators


def test_catalogues_are_read_only_and_unknown_names_list_known_ones():
    with registered(OperatorPlugin("flip"), "flipper"):
        ops = get_registry().kernel_operators
        with pytest.raises(TypeError):
            ops["x"] = 1  # type: ignore[index]
        with pytest.raises(KeyError, match="unknown kernel operator 'nope'; registered: .*flip"):
            ops["nope"]
        with pytest.raises(PluginError, match="unknown kernel operator 'nope'"):
            interp.registry.resolve("kernel_operators", "nope")


def test_a_name_two_third_parties_register_goes_to_neither_and_the_rest_stays():
    with registered(OperatorPlugin("same"), "first"), registered(OperatorPlugin("same"), "second"):
        with pytest.warns(PluginWarning, match="plugins 'first' and 'second' both register the kernel operator "
                                               "'same': neither gets it; disable one: INTERP_DISABLE_PLUGINS=first "
                                               "or INTERP_DISABLE_PLUGINS=second"):
            registry = get_registry()
        assert "same" not in registry.kernel_operators
        assert registry.plugin("first").status == registry.plugin("second").status == "loaded"
        with pytest.raises(KeyError, match="kernel operator 'same' is not available: .*neither gets it"):
            registry.kernel_operators["same"]


BUILTINS = "symbolic,facets,featurevec,propositional"


def test_a_name_conflict_is_fatal_in_strict_mode(monkeypatch):
    monkeypatch.setenv("INTERP_DISABLE_PLUGINS", BUILTINS)  # isolate from the built-ins' state
    monkeypatch.setenv("INTERP_STRICT_PLUGINS", "1")
    with registered(OperatorPlugin("same"), "first"), registered(OperatorPlugin("same"), "second"):
        with pytest.raises(PluginError, match="'first' and 'second' both register the kernel operator 'same'"):
            get_registry()


class BadComponentPlugin:
    @hookimpl
    def register_kernel_operators(self, register):
        register(KernelOperator("ok", 1, [0, 1]))
        register(KernelOperator("broken", 2, [0, 1, 1]))


def test_malformed_component_fails_its_plugin_only():
    with registered(OperatorPlugin("fine"), "good"), registered(BadComponentPlugin(), "bad"):
        with pytest.warns(PluginWarning, match="'bad'.*truth table has 3 rows"):
            registry = get_registry()
        assert "fine" in registry.kernel_operators
        assert "ok" not in registry.kernel_operators  # all or nothing per plugin
        assert registry.plugin("bad").status == "failed"


class WrongTypePlugin:
    @hookimpl
    def register_penalties(self, register):
        register(KernelOperator("not_a_penalty", 1, [1, 0]))


def test_registering_the_wrong_component_type_is_reported():
    with registered(WrongTypePlugin(), "confused"):
        with pytest.warns(PluginWarning, match="takes an interp.Penalty, got KernelOperator"):
            assert get_registry().plugin("confused").status == "failed"


class MisspelledPlugin:
    @hookimpl
    def register_kernel_operator(self, register):  # missing "s"
        pass


def test_misspelled_hook_is_reported_by_check_pending():
    with pytest.warns(PluginWarning, match="validate its hooks.*register_kernel_operator") as caught:
        info = register_plugin(MisspelledPlugin(), "typo")
    assert info.status == "failed"
    assert not plugin_manager().has_plugin("typo")
    assert "'register_kernel_operator' is not a hook: did you mean 'register_kernel_operators'?" in info.error
    assert "object at 0x" not in str(caught[0].message)


class TwoTypos:
    @hookimpl
    def register_penalty(self, register):
        pass

    @hookimpl
    def register_widgets(self, register):
        pass


def test_each_unknown_hook_gets_its_reason_and_no_object_address():
    with pytest.warns(PluginWarning) as caught:
        info = register_plugin(TwoTypos(), "typos")
    assert info.error == ("validate its hooks: PluginError: 'register_penalty' is not a hook: did you mean "
                          "'register_penalties'?; no installed plugin declares the hook 'register_widgets': is the "
                          "library that adds it installed?")
    assert all("0x" not in str(w.message) for w in caught)


class TreeReaders:
    @hookimpl
    def register_tree_readers(self, register):
        pass


def test_a_hook_of_a_disabled_library_names_the_plugin_that_declares_it(monkeypatch):
    monkeypatch.setenv("INTERP_DISABLE_PLUGINS", "featurevec")
    with pytest.warns(PluginWarning, match="the hook 'register_tree_readers' is declared by the plugin 'featurevec', "
                                           r"which is disabled \(INTERP_DISABLE_PLUGINS\)"):
        info = register_plugin(TreeReaders(), "readers")
    assert info.status == "failed"


def test_a_hook_of_a_library_that_failed_to_load_says_so(install_fake):
    install_fake("fake-lib", {"lib": "fake_lib"}, {"fake_lib": """
        import interp

        @interp.hookspec
        def register_gadgets(register):
            "Register gadgets."

        raise RuntimeError("broken library")
    """})
    install_fake("fake-user", {"user": "fake_user"}, {"fake_user": """
        import interp

        @interp.hookimpl
        def register_gadgets(register):
            pass
    """})
    with pytest.warns(PluginWarning) as caught:
        registry = get_registry()
    assert registry.plugin("user").error == ("validate its hooks: PluginError: the hook 'register_gadgets' is "
                                             "declared by the plugin 'lib', which failed to load")
    assert all("0x" not in str(w.message) for w in caught)


class WrongArguments:
    @hookimpl
    def register_penalties(self, reg):
        pass


def test_an_implementation_with_the_wrong_arguments_shows_both_signatures():
    with pytest.warns(PluginWarning) as caught:
        info = register_plugin(WrongArguments(), "args")
    assert info.error == ("register: PluginError: the hook register_penalties(reg) of plugin 'args' does not fit the "
                          "specification register_penalties(register): Argument(s) {'reg'} are declared in the "
                          "hookimpl but can not be found in the hookspec")
    assert "0x" not in str(caught[0].message)


class RaisesWithARepr:
    @hookimpl
    def register_penalties(self, register):
        raise ValueError(f"cannot use {object()!r}")


def test_an_error_message_names_no_object_address():
    with pytest.warns(PluginWarning) as caught:
        registered_info = register_plugin(RaisesWithARepr(), "reprs")
        get_registry()
    assert registered_info.error == "register its penalties: ValueError: cannot use object"
    assert all("0x" not in str(w.message) for w in caught)


def test_penalty_hyperparameter_defaults_are_kept():
    class P:
        @hookimpl
        def register_penalties(self, register):
            register(Penalty("mine", value=lambda w, eps: 0.0, prox=lambda w, s, eps: w, defaults={"eps": 0.5}))

    with registered(P(), "pen"):
        assert get_registry().penalties["mine"].defaults == {"eps": 0.5}


BROKEN_IMPORT = "raise ImportError('this plugin is broken on purpose')\n"
GOOD_PLUGIN = """
from interp import hookimpl, KernelOperator

@hookimpl
def register_kernel_operators(register):
    register(KernelOperator("fake_op", 1, [0, 1]))
"""


def test_entry_point_that_fails_to_import_is_skipped_and_named(install_fake):
    install_fake("fake-broken", {"broken": "fake_broken"}, {"fake_broken": BROKEN_IMPORT})
    install_fake("fake-good", {"good": "fake_good"}, {"fake_good": GOOD_PLUGIN}, version="2.5")
    with pytest.warns(PluginWarning, match="'broken' \\(fake-broken\\) failed to import: ImportError: this plugin"):
        registry = get_registry()
    assert registry.plugin("broken").status == "failed"
    good = registry.plugin("good")
    assert (good.status, good.source, good.version) == ("loaded", "fake-good", "2.5")
    assert registry.kernel_operators["fake_op"].plugin == "good"


def test_strict_mode_makes_an_import_failure_fatal(install_fake, monkeypatch):
    install_fake("fake-broken", {"broken": "fake_broken"}, {"fake_broken": BROKEN_IMPORT})
    monkeypatch.setenv("INTERP_DISABLE_PLUGINS", BUILTINS)
    monkeypatch.setenv("INTERP_STRICT_PLUGINS", "1")
    with pytest.raises(PluginError, match="'broken'.*this plugin is broken on purpose"):
        get_registry()


def test_disabled_plugins_are_skipped(install_fake, monkeypatch):
    install_fake("fake-good", {"good": "fake_good"}, {"fake_good": GOOD_PLUGIN})
    monkeypatch.setenv("INTERP_DISABLE_PLUGINS", "good, other")
    registry = get_registry()
    assert registry.plugin("good").status == "disabled"
    assert "fake_op" not in registry.kernel_operators


def test_builtin_plugins_come_through_the_entry_point_group():
    from importlib.metadata import entry_points

    names = {ep.name: ep.value for ep in entry_points(group="interp") if ep.dist.metadata["Name"] == "interp"}
    assert names == {
        "symbolic": "interp_symbolic.plugin:SymbolicPlugin",
        "facets": "interp_facets.plugin:FacetsPlugin",
        "featurevec": "interp_featurevec.plugin:FeatureVectorsPlugin",
        "propositional": "interp_propositional.plugin:PropositionalPlugin",
    }


def test_core_never_imports_a_plugin():
    import pathlib

    core = pathlib.Path(interp.__file__).parent
    for path in core.rglob("*.py"):
        text = path.read_text()
        for plugin in ("interp_symbolic", "interp_facets", "interp_featurevec", "interp_propositional"):
            assert f"import {plugin}" not in text and f"from {plugin}" not in text, path


def test_plugin_manager_is_loaded_once():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert plugin_manager() is plugin_manager()
