"""This library's own hook specifications, added to interp's plugin manager by ``add_hookspecs``.

They are marked with ``interp.hookspec``, so they live in the same registry as interp's hooks:
any installed plugin (of this library or not) implements them with ``interp.hookimpl`` and is
found through the entry-point group ``interp``.
"""

import interp


@interp.hookspec
def register_reporters(register):
    """Register reporters: ways to render an ``interp.Explanation`` as a document.

    Call ``register(Reporter(name, render))``, or register an instance of a ``Reporter``
    subclass that defines ``render(explanation) -> str``.  ``interp_downstream_example.reporters()``
    gathers them by name.
    """
