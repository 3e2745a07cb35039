"""The name rules: the collision matrix (built-in vs third party, third party vs third party, each in
both load orders, with and without ``replaces``), through real entry points and inline
registration, and what ``interp plugins`` shows of each outcome."""

from __future__ import annotations

import json
import warnings

import attrs
import pytest

import interp
from interp.registry import PluginWarning, get_registry, register_plugin
from interp.testing import registered

FAKE = """
import interp


def value(w, **hyper):
    return 0.0


def prox(w, step, **hyper):
    return w


def run(data, ctx):
    return interp.Explanation()


class Plugin:
    replaces = {replaces!r}

    @interp.hookimpl
    def register_penalties(self, register):
        register(interp.Penalty({penalty!r}, value=value, prox=prox))
        register(interp.Penalty("own_{name}", value=value, prox=prox))

    @interp.hookimpl
    def register_methods(self, register):
        register(interp.Method({method!r}, "from {name}", run=run))
"""


@attrs.frozen
class Case:
    """Plugins (name, replaces) in load order that all register ``penalty`` and ``method``; the
    built-in ``facets`` plugin is a claimant when those are its names.  ``winner`` must get both
    names whatever the order; ``warned``: a warning names every claimant."""

    plugins: tuple[tuple[str, tuple[str, ...]], ...]
    penalty: str
    method: str
    winner: str | None
    warned: bool

    @property
    def claimants(self) -> list[str]:
        names = [name for name, _ in self.plugins]
        return sorted(names + ["facets"]) if self.penalty == "l1" else sorted(names)


def _builtin_vs_third_party():
    for third in ("adupe", "zdupe"):  # loads before / after the built-in "facets" (entry points sort by name)
        yield f"builtin-vs-{third}", Case(((third, ()),), "l1", "facets", "facets", True)
        yield f"builtin-vs-{third}-replaces", Case(((third, ("facets",)),), "l1", "facets", third, False)


def _third_party_vs_third_party():
    for first, second in (("adupe", "zdupe"), ("zdupe", "adupe")):
        pair = tuple(sorted((first, second)))
        yield f"{first}-then-{second}", Case(tuple((p, ()) for p in pair), "mcp", "mcp", None, True)
        plugins = tuple((p, (second,) if p == first else ()) for p in pair)
        yield f"{first}-replaces-{second}", Case(plugins, "mcp", "mcp", first, False)
    yield "each-replaces-the-other", Case((("adupe", ("zdupe",)), ("zdupe", ("adupe",))), "mcp", "mcp", None, True)


MATRIX = dict([*_builtin_vs_third_party(), *_third_party_vs_third_party()])


def _source(name: str, replaces: tuple[str, ...], case: Case) -> str:
    return FAKE.format(name=name, replaces=replaces, penalty=case.penalty, method=case.method)


def _load_through_entry_points(install_fake, case: Case):
    for name, replaces in case.plugins:
        install_fake(f"fake-{name}", {name: f"fake_{name}:Plugin"}, {f"fake_{name}": _source(name, replaces, case)})
    return _registry_and_warnings()


def _registry_and_warnings():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PluginWarning)
        registry = get_registry()
    return registry, [str(w.message) for w in caught if issubclass(w.category, PluginWarning)]


def _check(registry, messages: list[str], case: Case) -> None:
    for catalogue, name in (("penalties", case.penalty), ("methods", case.method)):
        table = getattr(registry, catalogue)
        if case.winner is None:
            assert name not in table
            with pytest.raises(KeyError, match=f"'{name}' is not available: .*none gets it|neither gets it"):
                table[name]
        else:
            assert table[name].plugin == case.winner
        for claimant in case.claimants:
            info = registry.plugin(claimant)
            assert info.status == "loaded"
            conflict = next(c for c in info.conflicts if (c.catalogue, c.name) == (catalogue, name))
            assert conflict.claimants == tuple(case.claimants) and conflict.winner == case.winner
            assert (name in info.registered.get(catalogue, [])) == (claimant == case.winner)
    for name, _ in case.plugins:  # the rest of every claimant stays
        assert registry.penalties[f"own_{name}"].plugin == name
    assert {"facets", "scf", "l2", "elasticnet"} <= set(registry.penalties) and "facets" in registry.methods
    if case.warned:
        assert len(messages) == 2  # one per contested name, naming every claimant
        assert all(all(repr(p) in m for p in case.claimants) for m in messages)
        assert all(("the built-in 'facets' keeps it" in m) if case.winner == "facets" else ("INTERP_DISABLE_PLUGINS=" in m)
                   for m in messages)
    else:
        assert messages == []


@pytest.mark.parametrize("case", MATRIX.values(), ids=MATRIX.keys())
def test_the_collision_matrix_through_entry_points(install_fake, case):
    registry, messages = _load_through_entry_points(install_fake, case)
    _check(registry, messages, case)


def _inline_cases():
    for key, case in MATRIX.items():
        builtin = case.penalty == "l1"
        if not (builtin and case.plugins[0][0] == "adupe"):  # inline plugins always come after the built-ins
            yield key, case


@pytest.mark.parametrize("case", dict(_inline_cases()).values(), ids=dict(_inline_cases()).keys())
@pytest.mark.parametrize("order", ["as-listed", "reversed"])
def test_the_collision_matrix_inline(case, order):
    import types

    plugins = case.plugins if order == "as-listed" else case.plugins[::-1]
    names = []
    try:
        for name, replaces in plugins:
            module = types.ModuleType(f"inline_{name}")
            exec(compile(_source(name, replaces, case), module.__name__, "exec"), vars(module))  # noqa: S102
            register_plugin(module.Plugin(), name)
            names.append(name)
        registry, messages = _registry_and_warnings()
        _check(registry, messages, case)
    finally:
        for name in names:
            interp.registry.unregister_plugin(name)


def test_the_listing_shows_each_side_of_a_conflict(install_fake, run):
    case = MATRIX["adupe-then-zdupe"]
    _load_through_entry_points(install_fake, case)
    text = run("plugins").output
    assert ("adupe 1.0 (fake-adupe): loaded\n"
            "    penalties: own_adupe\n"
            "    conflict: penalty 'mcp': none gets it, 'zdupe' also registers it (disable one: "
            "INTERP_DISABLE_PLUGINS=adupe or INTERP_DISABLE_PLUGINS=zdupe)\n") in text
    rows = {row["name"]: row for row in json.loads(run("plugins", "--json").stdout)}
    conflicts = rows["zdupe"]["conflicts"]
    assert [(c["catalogue"], c["name"], c["winner"], c["rule"], c["claimants"]) for c in conflicts] == [
        ("penalties", "mcp", None, "contested", ["adupe", "zdupe"]), ("methods", "mcp", None, "contested", ["adupe", "zdupe"])]


def test_the_listing_shows_a_builtin_that_keeps_its_name(install_fake, run):
    _load_through_entry_points(install_fake, MATRIX["builtin-vs-adupe"])
    text = run("plugins").output
    assert "    conflict: penalty 'l1': left out, 'facets' has it (it is built-in)\n" in text
    assert "    conflict: penalty 'l1': kept, 'adupe' also registers it (built-in)\n" in text


def test_the_listing_shows_a_declared_replacement_on_both_plugins(install_fake, run):
    _load_through_entry_points(install_fake, MATRIX["builtin-vs-zdupe-replaces"])
    text = run("plugins").output
    assert "zdupe 1.0 (fake-zdupe): loaded\n    replaces: facets\n    penalties: l1, own_zdupe\n" in text
    assert "    replaced by zdupe: penalties l1; methods facets\n" in text
    assert "    taken from facets: penalties l1; methods facets\n" in text
    verbose = run("plugins", "--verbose").output
    assert ("zdupe 1.0 (fake-zdupe): loaded\n    replaces: facets\n    penalties:\n        l1\n        own_zdupe\n"
            "    methods:\n        facets  from zdupe\n    taken from facets: penalties l1; methods facets\n") in verbose


def test_a_plugin_name_two_distributions_give_is_the_builtins_or_nobodys(install_fake):
    install_fake("fake-evil", {"facets": "fake_evil"}, {"fake_evil": "raise ImportError('never imported')"})
    install_fake("fake-one", {"twin": "fake_one"}, {"fake_one": ""})
    install_fake("fake-two", {"twin": "fake_two"}, {"fake_two": ""})
    with pytest.warns(PluginWarning) as caught:
        registry = get_registry()
    assert registry.plugin("facets").source == "built-in" and "facets" in registry.methods
    messages = [str(w.message) for w in caught]
    assert ("interp plugin 'facets' (fake-evil) failed to register: PluginError: the distributions 'fake-evil' and "
            "'interp' both name a plugin 'facets'; the built-in one keeps it (uninstall 'fake-evil')") in messages[0]
    assert sum("'fake-one' and 'fake-two' both name a plugin 'twin'; none gets it" in m for m in messages) == 2
    assert not interp.plugin_manager().has_plugin("twin")


# -- commands -------------------------------------------------------------------------------------
def _command_plugin(names: tuple[str, ...], replaces: tuple[str, ...] = ()):
    class Commands:
        @interp.hookimpl
        def register_commands(self, cli):
            import click

            for name in names:
                cli.command(name)(lambda name=name: click.echo(f"{name} from {type(self).owner}"))

    Commands.replaces = replaces
    return Commands


@pytest.mark.parametrize("replaces", [False, True], ids=["plain", "second-replaces-first"])
@pytest.mark.parametrize("order", ["as-listed", "reversed"])
def test_commands_follow_the_same_rules(run, replaces, order):
    first, second = _command_plugin(("hello", "only_a")), _command_plugin(("hello", "run"), ("a",) if replaces else ())
    first.owner, second.owner = "a", "b"
    pairs = [(first(), "a"), (second(), "b")]
    with registered(*pairs[0 if order == "as-listed" else 1]), registered(*pairs[1 if order == "as-listed" else 0]):
        result = run("hello")
        listing = run("plugins")
        rows = {row["name"]: row for row in json.loads(run("plugins", "--json").stdout)}
        assert run("only_a").output.endswith("only_a from a\n")
    assert rows["a"]["hooks"] == rows["b"]["hooks"] == ["register_commands"]
    assert rows["a"]["registered"] == {"commands": ["only_a"]}
    assert rows["b"]["registered"] == ({"commands": ["hello"]} if replaces else {})
    assert rows["a"]["descriptions"]["commands"] == {"only_a": ""}
    if replaces:
        assert result.output.endswith("hello from b\n")
        assert "taken from a: commands hello" in listing.output
    else:
        assert result.exit_code == 2 and "No such command 'hello'" in result.output
        assert "interp plugins 'a' and 'b' both register the command 'hello': neither gets it" in result.output
    assert "plugin 'b' registers the command 'run', which is interp's own: left out" in result.output
    assert "    conflict: command 'run': left out, it is interp's own\n" in listing.output


# -- kernel-operator symbols ----------------------------------------------------------------------
OPERATORS = """
import interp


class Plugin:
    replaces = {replaces!r}

    @interp.hookimpl
    def register_kernel_operators(self, register):
        register(interp.KernelOperator("op_{name}", 2, {table!r}, symbol={symbol!r}))
        register(interp.KernelOperator("maj_{name}", 3, (0, 0, 0, 1, 0, 1, 1, 1)))
"""
XNOR = (1, 0, 0, 1)


def _install_operators(install_fake, name, symbol, table=XNOR, replaces=()):
    code = OPERATORS.format(name=name, symbol=symbol, table=table, replaces=replaces)
    install_fake(f"fake-{name}", {name: f"fake_{name}:Plugin"}, {f"fake_{name}": code})


@pytest.mark.parametrize("third", ["apx", "zpx"])  # loads before / after "propositional"
def test_a_builtin_symbol_is_not_taken_and_the_operator_stays_callable(install_fake, third):
    from interp_propositional.formula import parse, to_string

    _install_operators(install_fake, third, "^")
    registry, messages = _registry_and_warnings()
    pair = " and ".join(repr(p) for p in sorted([third, "propositional"]))
    assert messages == [f"interp plugins {pair} both register the kernel operator symbol '^': the built-in "
                        f"'propositional' keeps it, {third!r} goes without (a plugin takes a built-in's name only "
                        "when it declares replaces = 'propositional')"]
    ops = registry.kernel_operators
    assert (ops["xor"].symbol, ops[f"op_{third}"].symbol, ops[f"op_{third}"].plugin) == ("^", "", third)
    assert parse("a ^ b").op == "xor"
    assert to_string(parse(f"op_{third}(a, b) ^ maj_{third}(a, b, c)")) == f"op_{third}(a, b) ^ maj_{third}(a, b, c)"
    assert registry.plugin(third).registered["kernel_operators"] == [f"op_{third}", f"maj_{third}"]


@pytest.mark.parametrize("third", ["apx", "zpx"])
def test_a_plugin_that_declares_it_replaces_the_builtin_takes_its_symbol(install_fake, third):
    from interp_propositional.formula import parse, to_string

    _install_operators(install_fake, third, "^", replaces=("propositional",))
    registry, messages = _registry_and_warnings()
    assert messages == []
    assert registry.kernel_operators["xor"].symbol == "" and registry.kernel_operators[f"op_{third}"].symbol == "^"
    assert parse("a ^ b").op == f"op_{third}"
    assert to_string(parse("xor(a, b) ^ c")) == "xor(a, b) ^ c"


@pytest.mark.parametrize("names", [("apx", "zpx"), ("zpx", "apx")])
def test_a_symbol_two_third_parties_claim_is_refused_for_both(install_fake, monkeypatch, names):
    from interp_propositional.formula import FormulaError, parse, to_string

    monkeypatch.setenv("INTERP_DISABLE_PLUGINS", "propositional")
    first, second = names
    _install_operators(install_fake, first, "&", table=(0, 0, 0, 1))
    _install_operators(install_fake, second, "&", table=(0, 0, 0, 1), replaces=())
    registry, messages = _registry_and_warnings()
    assert messages == ["interp plugins 'apx' and 'zpx' both register the kernel operator symbol '&': neither gets "
                        "it; disable one: INTERP_DISABLE_PLUGINS=apx or INTERP_DISABLE_PLUGINS=zpx"]
    assert registry.kernel_operators["op_apx"].symbol == registry.kernel_operators["op_zpx"].symbol == ""
    with pytest.raises(FormulaError, match="no registered operator has the symbol '&'"):
        parse("a & b")
    assert to_string(parse("op_zpx(op_apx(a, b), c)")) == "op_zpx(op_apx(a, b), c)"


def test_running_a_method_nobody_got_says_why(install_fake, run):
    _load_through_entry_points(install_fake, MATRIX["adupe-then-zdupe"])
    result = run("run", "--plugin", "mcp", "--dataset", "diabetes")
    assert result.exit_code == 2
    assert ("Error: method 'mcp' is not available: interp plugins 'adupe' and 'zdupe' both register the method "
            "'mcp': neither gets it; disable one: INTERP_DISABLE_PLUGINS=adupe or INTERP_DISABLE_PLUGINS=zdupe"
            ) in result.output


class OptionalReaders:
    @interp.hookimpl(optionalhook=True)
    def register_tree_readers(self, register):
        pass

    @interp.hookimpl
    def register_kernel_operators(self, register):
        register(interp.KernelOperator("opt_op", 1, (0, 1)))


def test_an_optional_hook_of_a_disabled_library_does_not_fail_the_plugin(monkeypatch):
    monkeypatch.setenv("INTERP_DISABLE_PLUGINS", "featurevec")
    with warnings.catch_warnings():
        warnings.simplefilter("error", PluginWarning)
        with registered(OptionalReaders(), "optional") as info:
            assert info.status == "loaded" and get_registry().kernel_operators["opt_op"].plugin == "optional"


# -- the rules themselves, for three claimants ----------------------------------------------------
@attrs.frozen
class Who:
    name: str
    builtin: bool = False
    replaces: tuple[str, ...] = ()


@pytest.mark.parametrize("claimants, winner, rule", [
    ([Who("b", True), Who("t1", replaces=("b",)), Who("t2")], "t1", "replaces"),  # t2 loses to b, b to t1
    ([Who("b", True), Who("t1", replaces=("b",)), Who("t2", replaces=("b",))], None, "contested"),
    ([Who("b", True), Who("t1"), Who("t2")], "b", "built-in"),
    ([Who("a", replaces=("b",)), Who("b", replaces=("c",)), Who("c", replaces=("a",))], None, "contested"),
    ([Who("a", replaces=("b", "c")), Who("b"), Who("c")], "a", "replaces"),
    ([Who("b", True, replaces=("t",)), Who("t", replaces=("b",))], None, "contested"),
], ids=["replacer-and-bystander", "two-replacers", "builtin-and-two", "cycle", "replaces-both", "mutual"])
def test_the_rules_for_three_claimants_in_every_order(claimants, winner, rule):
    import itertools

    from interp.names import settle

    plugins = {c.name: c for c in claimants}
    outcomes = set()
    for order in itertools.permutations(claimants):
        table, (conflict,) = settle("penalties", "penalty", {"x": [(c.name, c.name) for c in order]}, plugins.get)
        outcomes.add((table.get("x"), conflict.winner, conflict.rule))
    assert outcomes == {(winner, winner, rule)}
