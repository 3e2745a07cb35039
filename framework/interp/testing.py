"""Helpers for testing plugins: register a plugin object for the duration of a block.

    from interp.testing import registered

    def test_my_operator():
        with registered(MyPlugin(), "myplugin"):
            assert "maj" in interp.get_registry().kernel_operators
"""

from __future__ import annotations

import contextlib
from typing import Iterator

from .registry import PluginInfo, register_plugin, unregister_plugin


@contextlib.contextmanager
def registered(plugin: object, name: str) -> Iterator[PluginInfo]:
    """Register ``plugin`` under ``name`` inside the block, unregister it afterwards."""
    info = register_plugin(plugin, name)
    try:
        yield info
    finally:
        unregister_plugin(name)
