"""An extended Facets plugin: the built-in one plus the capped-L1 penalty.

``ExtendedFacets`` subclasses the built-in plugin class and extends its ``register_penalties``
hook (the parent's penalties, then its own); every other hook, the ``facets`` method included,
is inherited.  Registering everything the built-in registers makes it a *replacement* for the
built-in ``facets`` plugin, so the two cannot both register (their names would clash): the
user picks one with ``INTERP_DISABLE_PLUGINS=facets``.  While the built-in is loaded this plugin
steps aside with a one-line reason, so which one wins never depends on the load order.
"""

from __future__ import annotations

import interp
from interp_facets.plugin import FacetsPlugin

from .components import CappedL1


class ExtendedFacets(FacetsPlugin):
    """The ``facets`` method and penalties, plus ``capped_l1``."""

    replaces = "facets"

    @interp.hookimpl
    def register_penalties(self, register):
        self._check_replaced()
        super().register_penalties(register)
        register(CappedL1())

    def _check_replaced(self) -> None:
        """A PluginError naming the fix while the plugin this one replaces is loaded too."""
        pm = interp.plugin_manager()
        if pm.has_plugin(self.replaces):
            mine = pm.get_name(self)
            raise interp.PluginError(
                f"{mine!r} replaces the plugin {self.replaces!r}, which is loaded too: set "
                f"INTERP_DISABLE_PLUGINS={self.replaces} to use {mine!r}, or "
                f"INTERP_DISABLE_PLUGINS={mine} to keep {self.replaces!r}")
