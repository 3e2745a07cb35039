"""Shared fixtures: every test starts with freshly loaded plugins and a headless matplotlib.

Under CI (the ``CI`` environment variable set, as ``.ci/run`` sets it) hypothesis draws the same
examples on every run, so that a submission's result does not depend on the luck of the draw; a
developer's runs keep exploring new examples.
"""

import os

import matplotlib
import pytest
from hypothesis import settings

matplotlib.use("Agg")
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


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


@pytest.fixture(scope="session")
def dask_client():
    """One two-worker LocalCluster for every Dask test of the session (each method has one)."""
    distributed = pytest.importorskip("dask.distributed", reason="dask is the optional extra interp[dask]")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=40)
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()
