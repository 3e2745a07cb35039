"""A plugin class attribute interp never reads (a misspelled catalogue) is reported, not ignored."""

import numpy as np
import pytest
from click.testing import CliRunner

import interp
from interp.cli import cli
from interp.registry import PluginWarning
from interp.testing import registered

LASSO = interp.Penalty("lasso_typo", value=lambda w: float(np.abs(w).sum()),
                       prox=lambda w, s: np.sign(w) * np.maximum(np.abs(w) - s, 0.0))


class Misspelled(interp.Plugin):
    penaltys = (LASSO,)


class WithPrivateHelper(interp.Plugin):
    penalties = (LASSO,)
    _cache: dict = {}

    def _helper(self):
        return 1


class PlainMisspelled:  # not an interp.Plugin: only names close to a known one are reported
    replace = "facets"
    version_note = "free to name anything"

    @interp.hookimpl
    def register_penalties(self, register):
        register(LASSO)


def test_a_misspelled_catalogue_is_a_warning_with_the_name_it_is_close_to():
    with pytest.warns(PluginWarning) as caught:
        with registered(Misspelled(), "typos"):
            assert "lasso_typo" not in interp.get_registry().penalties
    assert [str(w.message) for w in caught] == [
        "interp plugin 'typos' (inline): attribute 'penaltys' of Misspelled is not one interp reads (did you mean "
        "'penalties'?); name a helper with a leading underscore"]


def test_strict_mode_refuses_the_plugin(monkeypatch):
    monkeypatch.setenv("INTERP_STRICT_PLUGINS", "1")
    with pytest.raises(interp.PluginError, match=r"failed to register: PluginError: attribute 'penaltys' of "
                                                 r"Misspelled is not one interp reads \(did you mean 'penalties'\?\)"):
        interp.registry.register_plugin(Misspelled(), "typos")


def test_private_helpers_and_a_plain_class_s_own_names_are_not_reported(recwarn):
    with registered(WithPrivateHelper(), "helpers"):
        assert "lasso_typo" in interp.get_registry().penalties
    assert not [w for w in recwarn if issubclass(w.category, PluginWarning)]
    with pytest.warns(PluginWarning, match=r"attribute 'replace' of PlainMisspelled is not one interp reads "
                                           r"\(did you mean 'replaces'\?\)") as caught:
        with registered(PlainMisspelled(), "plain"):
            pass
    assert not any("version_note" in str(w.message) for w in caught)


def test_the_built_in_plugins_load_without_a_warning():
    result = CliRunner().invoke(cli, ["plugins"])
    assert result.exit_code == 0 and "warning" not in result.stderr


# -- operator symbols: the parser reads what the printer writes ------------------------------------
@pytest.mark.parametrize("symbol, arity", [("=>", 2), ("%", 2), ("&", 3), ("~", 2), ("->", 1)])
def test_a_symbol_the_formula_parser_cannot_read_is_refused_in_one_line(symbol, arity):
    with pytest.raises(interp.PluginError) as caught:
        interp.KernelOperator("implies2", arity, (1,) * 2**arity, symbol=symbol)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(
        f"invalid kernel operator 'implies2': the formula parser cannot read the symbol {symbol!r}: an operator of "
        f"arity {arity} takes ")


def test_the_grammar_reads_exactly_the_symbols_an_operator_may_have():
    from interp.components import OPERATOR_SYMBOLS
    from interp_propositional import formula

    assert set(OPERATOR_SYMBOLS[2]) == set(formula._INFIX) and OPERATOR_SYMBOLS[1] == (formula._PREFIX,)


@pytest.mark.parametrize("symbol, arity", [(s, 2) for s in ("&", "|", "^", "->", "<->")] + [("~", 1)])
def test_every_symbol_an_operator_may_have_parses_back_as_printed(symbol, arity):
    from interp.testing import check_kernel_operator
    from interp_propositional.formula import Leaf, Op, parse, to_string

    op = interp.KernelOperator("mine", arity, (0, 1, 1, 0)[: 2**arity], symbol=symbol)
    check_kernel_operator(op)
    tree = Op("mine", tuple(Leaf(f"x{i}") for i in range(arity)), op)
    assert symbol in to_string(tree) and parse(to_string(tree), {"mine": op}) == tree


MAJ = """
import interp

class Plugin:
    @interp.hookimpl
    def register_kernel_operators(self, register):
        register(interp.KernelOperator("maj3", 3, (0, 0, 0, 1, 0, 1, 1, 1)))
"""


def test_a_contested_operator_says_why_it_is_not_available(install_fake):
    from interp_propositional.formula import FormulaError, parse

    for name in ("apx", "zpx"):
        install_fake(f"fake-{name}", {name: f"fake_{name}:Plugin"}, {f"fake_{name}": MAJ})
    with pytest.warns(PluginWarning):
        interp.get_registry()
    with pytest.raises(FormulaError, match=r"operator 'maj3' is not available: interp plugins 'apx' and 'zpx' both "
                                           r"register the kernel operator 'maj3': neither gets it"):
        parse("maj3(a, b, c) & d")


# -- a registry of chosen plugins only -------------------------------------------------------------
CAPPED = """
import interp
import numpy as np

class Plugin(interp.Plugin):
    penalties = (interp.Penalty("capped_extra", value=lambda w: float(np.abs(w).sum()),
                                prox=lambda w, s: np.sign(w) * np.maximum(np.abs(w) - s, 0.0)),)
"""


def test_plugins_only_runs_a_block_against_the_chosen_installed_plugins(install_fake):
    from interp.testing import plugins_only, registered

    install_fake("fake-extra", {"extra": "fake_extra:Plugin"}, {"fake_extra": CAPPED})
    assert "capped_extra" in interp.get_registry().penalties
    with plugins_only("facets") as registry:
        assert [info.name for info in registry.plugins] == ["facets"]
        assert "capped_extra" not in interp.get_registry().penalties and "l1" in registry.penalties
        with registered(Misspelled.__base__(), "bare"):  # registering inside the block still works
            assert interp.registry.plugin_manager().has_plugin("bare")
        listing = CliRunner().invoke(cli, ["plugins"])
        assert listing.exit_code == 0 and "extra" not in listing.output and "propositional" not in listing.output
    assert "capped_extra" in interp.get_registry().penalties
    assert not interp.registry.plugin_manager().has_plugin("bare")
    with pytest.raises(ValueError, match="no installed plugin is named 'nope'; installed: extra, facets, "):
        with plugins_only("facets", "nope"):
            pass
