"""``interp.Plugin``: a base for plugin classes that register fixed sets of components.

A plugin class lists what it provides as class attributes and inherits one hook per
catalogue that registers them::

    class MyPlugin(interp.Plugin):
        penalties = (CappedL1(),)
        methods = (MY_METHOD,)

A subclass extends a catalogue by extending the tuple (``penalties = FacetsPlugin.penalties +
(CappedL1(),)``) or a hook by overriding it with ``@interp.hookimpl`` and calling ``super()``.
Plugins need not use this base: any object with ``@interp.hookimpl`` functions is a plugin.
"""

from __future__ import annotations

from typing import ClassVar

from .components import Embedding, KernelOperator, Method, Penalty, RidgeFamily
from .hookspecs import hookimpl

__all__ = ["Plugin"]


class Plugin:
    """Registers the components named by its class attributes, one hook per catalogue."""

    ridge_families: ClassVar[tuple[RidgeFamily, ...]] = ()
    penalties: ClassVar[tuple[Penalty, ...]] = ()
    embeddings: ClassVar[tuple[Embedding, ...]] = ()
    kernel_operators: ClassVar[tuple[KernelOperator, ...]] = ()
    methods: ClassVar[tuple[Method, ...]] = ()

    @hookimpl
    def register_ridge_families(self, register):
        for family in self.ridge_families:
            register(family)

    @hookimpl
    def register_penalties(self, register):
        for penalty in self.penalties:
            register(penalty)

    @hookimpl
    def register_embeddings(self, register):
        for embedding in self.embeddings:
            register(embedding)

    @hookimpl
    def register_kernel_operators(self, register):
        for operator in self.kernel_operators:
            register(operator)

    @hookimpl
    def register_methods(self, register):
        for method in self.methods:
            register(method)
