"""Every hook specification is documented in docs/plugins.md, with its arguments."""

import inspect
import re
from pathlib import Path

import pytest

from interp import hookspecs

DOC = (Path(__file__).parents[2] / "docs" / "plugins.md").read_text()
HOOKS = [
    (name, fn) for name, fn in inspect.getmembers(hookspecs, inspect.isfunction)
    if hasattr(fn, "interp_spec")
]


def test_there_are_seven_hooks():
    assert sorted(name for name, _ in HOOKS) == [
        "add_hookspecs", "register_commands", "register_embeddings", "register_kernel_operators",
        "register_methods", "register_penalties", "register_ridge_families",
    ]


@pytest.mark.parametrize("name, fn", HOOKS, ids=[n for n, _ in HOOKS])
def test_hook_has_a_section_with_its_signature(name, fn):
    args = ", ".join(inspect.signature(fn).parameters)
    assert re.search(rf"^### {name}\({re.escape(args)}\)$", DOC, re.MULTILINE), name
    assert fn.__doc__ and len(fn.__doc__.strip()) > 40
