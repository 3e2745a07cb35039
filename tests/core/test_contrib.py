"""The example third-party plugin in contrib/ appears through its entry point, with no core change."""

import json
import tomllib
from pathlib import Path

from click.testing import CliRunner

from interp.cli import cli
from interp.registry import get_registry
from interp.testing import check_kernel_operator, check_ridge_family

CONTRIB = Path(__file__).parents[2] / "contrib" / "interp-example-plugin"


def _install_contrib(install_fake):
    project = tomllib.loads((CONTRIB / "pyproject.toml").read_text())["project"]
    install_fake(project["name"], project["entry-points"]["interp"], version=project["version"],
                 extra_path=CONTRIB / "src")
    return project


def test_contrib_plugin_is_listed_with_what_it_registered(install_fake):
    project = _install_contrib(install_fake)
    rows = json.loads(CliRunner().invoke(cli, ["plugins", "--json"]).stdout)
    example = next(r for r in rows if r["name"] == "example")
    assert example["source"] == project["name"] == "interp-example-plugin"
    assert example["status"] == "loaded" and example["version"] == "0.1.0"
    assert example["registered"] == {"ridge_families": ["meijer_1122"], "kernel_operators": ["maj"]}


def test_contrib_components_are_usable_from_the_registry(install_fake):
    _install_contrib(install_fake)
    registry = get_registry()
    maj = registry.kernel_operators["maj"]
    assert maj.arity == 3 and maj.plugin == "example"
    # the truth table is the majority function, rows read as binary numbers
    assert [maj.truth_table[r] for r in range(8)] == [int(bin(r).count("1") >= 2) for r in range(8)]
    family = registry.ridge_families["meijer_1122"]
    assert family.orders == (1, 1, 2, 2) and family.plugin == "example"


def test_contrib_components_pass_the_contract_checks(install_fake):
    _install_contrib(install_fake)
    registry = get_registry()
    check_ridge_family(registry.ridge_families["meijer_1122"])
    check_kernel_operator(registry.kernel_operators["maj"])


def test_verbose_listing_shows_each_component_with_its_description(install_fake):
    _install_contrib(install_fake)
    text = CliRunner().invoke(cli, ["plugins", "--verbose"]).output
    assert ("example 0.1.0 (interp-example-plugin): loaded\n"
            "    ridge families:\n        meijer_1122  G^{1,1}_{2,2}: rational functions of z\n"
            "    kernel operators:\n        maj  majority of three\n") in text
    rows = json.loads(CliRunner().invoke(cli, ["plugins", "--json"]).stdout)
    example = next(r for r in rows if r["name"] == "example")
    assert example["descriptions"] == {"ridge_families": {"meijer_1122": "G^{1,1}_{2,2}: rational functions of z"},
                                       "kernel_operators": {"maj": "majority of three"}}
