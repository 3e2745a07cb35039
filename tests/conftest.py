"""Shared fixtures: every test starts with freshly loaded plugins and a headless matplotlib."""

import matplotlib
import pytest

matplotlib.use("Agg")


@pytest.fixture(autouse=True)
def _fresh_registry():
    from interp import registry

    registry.reset()
    yield
    registry.reset()


@pytest.fixture
def run():
    """Invoke the ``interp`` command line in-process: ``run("plugins", "--json")``."""
    from click.testing import CliRunner

    from interp.cli import cli

    runner = CliRunner()

    def invoke(*args):
        return runner.invoke(cli, [str(a) for a in args], catch_exceptions=False)

    return invoke
