"""Fixtures: an inline third-party plugin that registers a 3-ary majority operator."""

from __future__ import annotations

import pytest

import interp
from interp import registry

MAJ_TABLE = (0, 0, 0, 1, 0, 1, 1, 1)


class MajorityPlugin:
    """A third-party plugin that only registers a truth table."""

    @interp.hookimpl
    def register_kernel_operators(self, register):
        register(interp.KernelOperator("maj", 3, MAJ_TABLE, description="majority of three"))


@pytest.fixture
def majority():
    registry.register_plugin(MajorityPlugin(), "majority-test")
    yield "maj"
    registry.unregister_plugin("majority-test")


