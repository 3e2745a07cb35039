"""An example library built on interp, the way a downstream project would.

It shows the three ways to build on interp besides registering plain components:

1. components written as subclasses (``components.py``): a penalty, a kernel operator with a
   closed-form kernel and a ridge family, each registered as an instance;
2. a subclass of a built-in plugin (``facets.py``): ``ExtendedFacets`` extends the Facets
   plugin's penalties and declares ``replaces = "facets"``, so it takes the built-in's names;
3. hook specifications of its own (``hookspecs.py``), added through interp's ``add_hookspecs``
   hook, with a catalogue (``reporting.py``) that other plugins fill: ``reporters()``.

Every plugin has its own entry point in the group ``interp`` (see ``pyproject.toml``).
"""

from .components import AllOf, CappedL1, Sigmoid
from .reporting import MarkdownReporter, Reporter, reporters

__version__ = "0.1.0"

__all__ = ["AllOf", "CappedL1", "MarkdownReporter", "Reporter", "Sigmoid", "reporters"]
