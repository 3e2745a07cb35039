"""``interp.Plugin``: a base for plugin classes that register fixed sets of components.

A plugin class lists what it provides as class attributes and inherits one hook per
catalogue that registers them:

    class MyPlugin(interp.Plugin):
        penalties = (CappedL1(),)
        methods = (MY_METHOD,)

A subclass extends a catalogue by extending the tuple (``penalties = FacetsPlugin.penalties +
(CappedL1(),)``) or a hook by overriding it with ``@interp.hookimpl`` and calling ``super()``.
A catalogue left empty registers no hook, so ``interp plugins`` lists the hooks a plugin uses.
``replaces`` names the plugins whose names this one takes where both register one (see
``interp.registry``: without it a built-in keeps its names).  Plugins need not use this base:
any object with ``@interp.hookimpl`` functions (and, optionally, a ``replaces`` attribute) is a
plugin.
"""

from __future__ import annotations

import difflib
import importlib
from typing import ClassVar, Iterable

from .components import Embedding, KernelOperator, Method, Penalty, RidgeFamily
from .hookspecs import hookimpl

__all__ = ["Plugin", "adds_hookspecs", "unread_attributes"]


def _registers(attribute: str):
    """A ``register_*`` hook that registers every component in the class attribute ``attribute``."""

    @hookimpl
    def hook(self, register):
        for component in getattr(self, attribute):
            register(component)

    hook.__name__ = hook.__qualname__ = f"register_{attribute}"
    hook.__doc__ = f"Register every component of ``{attribute}``."
    hook.interp_catalogue = attribute  # the registry skips the hook while the attribute is empty
    return hook


def adds_hookspecs(module: str, hook: str):
    """An ``add_hookspecs`` hook that adds the hook specifications of ``module`` (imported when
    the hook runs), unless ``hook`` is already specified: a plugin and a subclass of it may be
    loaded side by side, and pluggy refuses a specification added twice.  A plugin that adds
    its own hooks (as featurevec adds ``register_tree_readers``) writes
    ``add_hookspecs = adds_hookspecs("my_plugin.hookspecs", "register_widgets")``."""

    @hookimpl
    def add_hookspecs(self, pluginmanager):
        caller = getattr(pluginmanager.hook, hook, None)
        if caller is None or not caller.has_spec():
            pluginmanager.add_hookspecs(importlib.import_module(module))

    return add_hookspecs


class Plugin:
    """Registers the components named by its class attributes, one hook per catalogue.

    ``ridge_families``, ``penalties``, ``embeddings``, ``kernel_operators`` and ``methods``
    are tuples of components; ``replaces`` is the name of a plugin (or a tuple of names) whose
    names this plugin takes where both register the same one.
    """

    replaces: ClassVar[str | tuple[str, ...]] = ()
    ridge_families: ClassVar[tuple[RidgeFamily, ...]] = ()
    penalties: ClassVar[tuple[Penalty, ...]] = ()
    embeddings: ClassVar[tuple[Embedding, ...]] = ()
    kernel_operators: ClassVar[tuple[KernelOperator, ...]] = ()
    methods: ClassVar[tuple[Method, ...]] = ()

    register_ridge_families = _registers("ridge_families")
    register_penalties = _registers("penalties")
    register_embeddings = _registers("embeddings")
    register_kernel_operators = _registers("kernel_operators")
    register_methods = _registers("methods")


def unread_attributes(plugin: object, hooks: Iterable[str]) -> list[str]:
    """What is wrong with the public attributes of ``plugin``'s class that interp never reads
    (a misspelled ``penaltys`` registers nothing): one message per attribute, with the known
    name it is closest to.  For a subclass of `Plugin` every public attribute that is neither
    one of Plugin's nor a hook implementation counts (helpers are named ``_like_this``); for
    another plugin class, only one whose name is close to a known one.  ``hooks``: the hook
    names the plugin manager knows."""
    if isinstance(plugin, type(importlib)) or type(plugin) is Plugin:
        return []
    known = {name for name in dir(Plugin) if not name.startswith("_")} | set(hooks)
    strict = isinstance(plugin, Plugin)
    messages = []
    for name in sorted(_own_public_names(type(plugin)) - known):
        if getattr(getattr(type(plugin), name, None), "interp_impl", None) is not None:
            continue  # a hook implementation (unknown hooks are reported by name elsewhere)
        close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.75)
        if close or strict:
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            messages.append(f"attribute {name!r} of {type(plugin).__name__} is not one interp reads{hint}; "
                            f"name a helper with a leading underscore")
    return messages


def _own_public_names(cls: type) -> set[str]:
    """The public names the classes of ``cls``'s hierarchy define, up to `Plugin` and ``object``."""
    return {name for klass in cls.__mro__ if klass not in (Plugin, object)
            for name in vars(klass) if not name.startswith("_")}
