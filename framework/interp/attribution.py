"""Whose bug it is when a method calls a component that another plugin registered.

A built-in method (Facets, Feature Vectors, Symbolic Pursuit, the propositional kernels) calls the
components a user chose by name.  When one of them raises, the error belongs to the component's
plugin, not to the method that called it: `attributed` marks an exception raised inside it with
the component's plugin (``interp.runner.at_fault`` reads the mark), and `owner` reads it back.
A component that returns what its contract rules out (the wrong shape, NaN, a prox that is not
a proximal point) is refused where it returns, with ``Component.fail``, which names the plugin too.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

from .errors import InterpError

__all__ = ["attributed", "owner"]

_MARK = "interp_plugin"


@contextlib.contextmanager
def attributed(component: Any, method: str) -> Iterator[None]:
    """Inside the block, an exception other than an ``InterpError`` (which the component raised
    on purpose) is marked as raised by ``component.method`` of ``component.plugin`` and passes on
    unchanged.  The innermost mark wins: a component calling another keeps the inner one's."""
    try:
        yield
    except InterpError:
        raise
    except Exception as err:
        plugin = getattr(component, "plugin", "")
        if plugin and not owner(err):
            setattr(err, _MARK, plugin)
            if hasattr(err, "add_note"):  # Python 3.11+: the traceback (--debug) says it too
                err.add_note(f"(raised in {component.kind} {component.name!r} from plugin {plugin!r}, "
                             f"by its {method})")
        raise


def owner(err: BaseException) -> str:
    """The plugin whose component raised ``err`` (marked by `attributed`), else ""."""
    try:
        return str(getattr(err, _MARK, "") or "")
    except Exception:  # noqa: BLE001 - an exception type with a hostile __getattr__
        return ""
