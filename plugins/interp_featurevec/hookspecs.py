"""The hook the featurevec plugin adds to interp's: ``register_tree_readers``.

The plugin adds it through interp's historic ``add_hookspecs`` hook, so any installed plugin can
implement it with ``@interp.hookimpl`` and teach Feature Vectors a tree library it does not know
(CatBoost, say) without a change to this plugin.
"""

from interp import hookspec


@hookspec
def register_tree_readers(register):
    """Register readers of fitted tree models for Feature Vectors.

    Call ``register(reader)`` with an instance of ``interp_featurevec.readers.TreeReader`` (a
    subclass defining ``accepts(model) -> bool`` and ``read(model) -> list[TreeNodes]``, or
    ``TreeReader(name, accepts=..., read=...)``).  ``FeatureVectors(estimator=model)`` and
    ``interp run --method featurevec --model-file`` use the first reader whose ``accepts`` is
    true; readers of other plugins are tried before the built-in ones, so a plugin may take over
    a kind of model the built-ins read.  ``read`` returns one ``TreeNodes`` per tree (node 0 the
    root, leaves with children -1), with the library's own feature indices.
    """
