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
