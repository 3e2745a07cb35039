"""An extended Facets plugin: the built-in one plus the capped-L1 penalty.

``ExtendedFacets`` subclasses the built-in plugin class and extends its ``penalties`` (the
parent's, then its own); every other catalogue, the ``facets`` method included, is inherited.
It registers every name the built-in ``facets`` plugin registers, and it says so:
``replaces = "facets"`` gives it those names while both are loaded, whatever the load order.
Without the declaration the built-in would keep each of them and this plugin would get only
``capped_l1`` (with a warning naming both plugins).  ``interp plugins`` shows the replacement
on both plugins.
"""

from __future__ import annotations

from interp_facets.plugin import FacetsPlugin

from .components import CappedL1


class ExtendedFacets(FacetsPlugin):
    """The ``facets`` method and penalties, plus ``capped_l1``; replaces the built-in ``facets``."""

    replaces = "facets"
    penalties = FacetsPlugin.penalties + (CappedL1(),)
