"""The library's plugins: one registers its components and adds its hooks, one fills a hook.

``DownstreamPlugin`` adds this library's hook specifications (``add_hookspecs``) and registers
components written as subclasses.  ``ReportersPlugin`` implements the library's own
``register_reporters`` hook, as any third-party plugin of this library would: it has its own
entry point, and the order in which the two load does not matter.
"""

from __future__ import annotations

import interp

from . import hookspecs
from .components import AllOf, Sigmoid
from .reporting import MarkdownReporter, Reporter


class DownstreamPlugin(interp.Plugin):
    """Adds the ``register_reporters`` hook and registers the library's components."""

    ridge_families = (Sigmoid(),)
    kernel_operators = (AllOf(3),)

    @interp.hookimpl
    def add_hookspecs(self, pluginmanager):
        pluginmanager.add_hookspecs(hookspecs)


class ReportersPlugin:
    """Reporters for the library's own catalogue: one subclass, one given as a callable."""

    @interp.hookimpl
    def register_reporters(self, register):
        register(MarkdownReporter())
        register(Reporter("plain", render=lambda explanation: explanation.summary() + "\n",
                          description="what interp run prints"))
