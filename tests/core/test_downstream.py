"""The downstream example library in contrib/ builds on interp in the three ways the core offers:
components written as subclasses, a subclass of a built-in plugin, and hook specifications of its
own.  It is loaded through real entry points, as the first contrib package is."""

import json
import pickle
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import interp
from interp.cli import cli
from interp.registry import get_registry
from interp.testing import check_kernel_operator, check_penalty, check_ridge_family

CONTRIB = Path(__file__).parents[2] / "contrib" / "interp-downstream-example"
PROJECT = tomllib.loads((CONTRIB / "pyproject.toml").read_text())["project"]
ENTRY_POINTS = PROJECT["entry-points"]["interp"]
FACETS_PENALTIES = ["facets", "scf", "l1", "l2", "elasticnet"]


@pytest.fixture
def install(install_fake):
    """Install the package with its entry points (or others naming the same objects)."""

    def install_downstream(entry_points=ENTRY_POINTS):
        install_fake(PROJECT["name"], entry_points, version=PROJECT["version"], extra_path=CONTRIB / "src")

    yield install_downstream
    for name in [m for m in sys.modules if m.startswith("interp_downstream_example")]:
        del sys.modules[name]


def _plugins_json():
    return {row["name"]: row for row in json.loads(CliRunner().invoke(cli, ["plugins", "--json"]).stdout)}


def test_each_plugin_has_its_own_entry_point(install, recwarn):
    install()
    rows = _plugins_json()
    assert rows["downstream"]["source"] == "interp-downstream-example"
    assert rows["downstream"]["status"] == "loaded" and rows["downstream"]["version"] == "0.1.0"
    assert rows["downstream"]["registered"] == {"ridge_families": ["sigmoid"], "kernel_operators": ["and3"]}
    assert rows["downstream"]["hookspecs"] == ["register_reporters"]
    assert rows["downstream_reporters"]["status"] == "loaded"
    # the library's catalogue is listed on the plugin that fills it, with the hook it implements
    assert rows["downstream_reporters"]["registered"] == {"reporters": ["markdown", "plain"]}
    assert rows["downstream_reporters"]["hooks"] == ["register_reporters"]
    # the replacement declares replaces = "facets": it takes the built-in's names, silently
    extended, builtin = rows["facets_extended"], rows["facets"]
    assert extended["status"] == builtin["status"] == "loaded" and extended["replaces"] == ["facets"]
    assert extended["registered"] == {"penalties": FACETS_PENALTIES + ["capped_l1"], "methods": ["facets"]}
    assert builtin["registered"] == {}
    assert {(c["catalogue"], c["name"], c["winner"], c["rule"]) for c in builtin["conflicts"]} == {
        *(("penalties", name, "facets_extended", "replaces") for name in FACETS_PENALTIES),
        ("methods", "facets", "facets_extended", "replaces")}
    assert not [w for w in recwarn if issubclass(w.category, interp.registry.PluginWarning)]


def test_the_listing_shows_the_replacement_and_the_librarys_catalogue(install):
    install()
    text = CliRunner().invoke(cli, ["plugins"]).output
    assert ("facets_extended 0.1.0 (interp-downstream-example): loaded\n"
            "    replaces: facets\n"
            "    penalties: facets, scf, l1, l2, elasticnet, capped_l1\n"
            "    methods: facets\n") in text
    assert ("facets 0.1.0 (built-in): loaded\n"
            "    replaced by facets_extended: penalties facets, scf, l1, l2, elasticnet; methods facets\n") in text
    assert "    taken from facets: penalties facets, scf, l1, l2, elasticnet; methods facets\n" in text
    assert ("downstream_reporters 0.1.0 (interp-downstream-example): loaded\n"
            "    reporters: markdown, plain\n"
            "    hooks: register_reporters\n") in text
    verbose = CliRunner().invoke(cli, ["plugins", "--verbose"]).output
    assert "    reporters:\n        markdown  Markdown: a heading, the metrics as a table" in verbose


# -- 1. components written as subclasses ------------------------------------------------------------
def test_subclassed_components_are_registered_instances_that_keep_their_contracts(install):
    install()
    from interp_downstream_example import AllOf, CappedL1, Sigmoid

    registry = get_registry()
    and3, sigmoid = registry.kernel_operators["and3"], registry.ridge_families["sigmoid"]
    assert isinstance(and3, AllOf) and isinstance(sigmoid, Sigmoid)
    assert and3.plugin == sigmoid.plugin == "downstream"
    assert and3.description == "conjunction of 3 operands (closed-form kernel)"
    check_kernel_operator(and3)
    check_kernel_operator(AllOf(5))
    check_ridge_family(sigmoid)
    check_penalty(CappedL1())
    check_penalty(CappedL1(), {"cap": 2.5})


def test_the_closed_form_operator_is_what_propositional_kernels_use(install, monkeypatch):
    install()
    from interp_downstream_example import AllOf
    from interp_propositional import propositional_kernel

    calls = []
    closed_form = AllOf.combine
    monkeypatch.setattr(AllOf, "combine", lambda self, blocks: calls.append(len(blocks)) or closed_form(self, blocks))
    X = (np.random.default_rng(0).random((12, 5)) < 0.5).astype(float)
    np.testing.assert_array_equal(propositional_kernel("and3(a, ~b, c | d)", X),
                                  propositional_kernel("a & ~b & (c | d)", X))
    assert calls == [3]


# -- 2. a subclass of a built-in plugin -------------------------------------------------------------
@pytest.mark.parametrize("disabled", ["", "facets"], ids=["builtin-loaded", "builtin-disabled"])
def test_the_extended_facets_plugin_replaces_the_builtin_one(install, monkeypatch, disabled):
    monkeypatch.setenv("INTERP_DISABLE_PLUGINS", disabled)
    install()
    from interp_facets.plugin import FACETS_METHOD, FacetsPlugin

    registry = get_registry()
    assert registry.plugin("facets").status == ("disabled" if disabled else "loaded")
    assert registry.plugin("facets_extended").registered == {
        "penalties": FACETS_PENALTIES + ["capped_l1"], "methods": ["facets"]}
    assert isinstance(interp.plugin_manager().get_plugin("facets_extended"), FacetsPlugin)
    method = registry.methods["facets"]
    assert method.plugin == "facets_extended" and method.run == FACETS_METHOD.run
    assert registry.penalties["l1"].plugin == "facets_extended"
    check_penalty(registry.penalties["capped_l1"])


def test_the_subclassed_penalty_works_in_a_facets_fit(install):
    install()
    from interp_facets import FacetsClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 6))
    y = (X[:, 0] + 2 * X[:, 1] - X[:, 2] + 0.3 * rng.normal(size=200) > 0).astype(int)
    capped = FacetsClassifier(lam=0.02, gamma=0.5, penalty="capped_l1", penalty_params={"cap": 2.0},
                              max_points=None).fit(X, y)
    assert capped.penalty_params_ == {"cap": 2.0}
    assert (capped.predict(X) == y).mean() > 0.9
    assert np.count_nonzero(capped.coef_) == 3  # the three features y does not depend on are left out
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(capped)).predict(X), capped.predict(X))
    # above the cap the penalty is flat: the large coefficients are the L1 fit's, unshrunk
    l1 = FacetsClassifier(lam=0.02, gamma=0.5, penalty="l1", max_points=None).fit(X, y)
    assert np.abs(capped.coef_).sum() > np.abs(l1.coef_).sum()


# -- 3. hook specifications of its own --------------------------------------------------------------
def _explanation():
    return interp.Explanation(method="demo", metrics={"auc": 0.91234}, sections=[
        interp.Formula("a & b", latex=r"a \land b", title="kernel"),
        interp.Table(["feature", "weight"], [["age", 2], ["bmi", -1]]),
    ])


def test_the_library_hook_gathers_reporters_from_another_plugin(install):
    install()
    from interp_downstream_example import MarkdownReporter, reporters

    found = reporters()
    assert sorted(found) == ["markdown", "plain"]
    assert isinstance(found["markdown"], MarkdownReporter) and found["markdown"].plugin == "downstream_reporters"
    assert found["markdown"].render(_explanation()) == (
        "# demo\n\n| metric | value |\n|---|---|\n| auc | 0.9123 |\n\n## kernel\n\n$$a \\land b$$\n\n"
        "| feature | weight |\n|---|---|\n| age | 2 |\n| bmi | -1 |\n")
    assert found["plain"].render(_explanation()).startswith("demo\nmetrics:\n  auc  0.9123")


@pytest.mark.parametrize("names", [("a_reporters", "b_downstream"), ("a_downstream", "b_reporters")],
                         ids=["implementation-first", "specification-first"])
def test_load_order_does_not_matter_for_the_added_hooks(install, names):
    implementer, adder = sorted(names, key=lambda n: "reporters" not in n)
    install({adder: ENTRY_POINTS["downstream"], implementer: ENTRY_POINTS["downstream_reporters"]})
    from interp_downstream_example import reporters

    registry = get_registry()
    assert registry.plugin(implementer).status == registry.plugin(adder).status == "loaded"
    assert {name: r.plugin for name, r in reporters().items()} == {"markdown": implementer, "plain": implementer}


def test_a_hook_implementation_without_its_specification_is_reported(install, monkeypatch):
    monkeypatch.setenv("INTERP_DISABLE_PLUGINS", "downstream")
    install()
    from interp_downstream_example import reporters

    with pytest.warns(interp.registry.PluginWarning, match="'downstream_reporters'.*register_reporters"):
        info = get_registry().plugin("downstream_reporters")
    assert info.status == "failed" and info.error == (
        "validate its hooks: PluginError: the hook 'register_reporters' is declared by the plugin 'downstream', "
        "which is disabled (INTERP_DISABLE_PLUGINS)")
    with pytest.raises(interp.PluginError, match="no plugin adds the register_reporters hook"):
        reporters()
