"""Hook implementations: the ``svd`` embedding, the tree readers and the ``featurevec`` method.

``FeatureVectorsPlugin`` inherits its catalogue hooks from ``interp.Plugin``, so a downstream
plugin can subclass it and extend a hook (call ``super()``, register more) or override it.  Only what registration
needs is imported here; the method's module is imported when it runs.
"""

from __future__ import annotations

from interp import Method, Option, Plugin, hookimpl
from interp.plugin import adds_hookspecs

from .embedding import CooccurrenceSVD


FEATUREVEC_METHOD = Method(
    name="featurevec",
    summary="Feature Vectors: feature importance and semantics from tree-path co-occurrence",
    run="interp_featurevec.method:run",
    task="any",
    explains_model=True,
    options=(
        Option("paths", int, 100_000, "root-to-leaf paths to collect (trees are added until reached)", min=1,
               max=10_000_000),
        Option("window", int, 3, "positions at distance <= window on a path co-occur", min=1, max=100),
        Option("model", str, None, "train this model on the data and explain it: rf (default: a random forest "
                                   "of shallow trees grown to --paths paths), hgb (scikit-learn "
                                   "HistGradientBoosting), xgboost, lightgbm (200 rounds each)",
               choices=("rf", "hgb", "xgboost", "lightgbm")),
        Option("depth", str, None, "tree depth (default 3 for rf, 6 for the boosted models), or 'cv' "
                                   "(rf) to choose it by cross-validation"),
        Option("embedding", str, "svd", "registered embedding of the co-occurrence matrix (see "
                                        "interp plugins); svd: the paper's 2-D truncated SVD",
               catalogue="embeddings"),
        Option("plot", str, None, "write the Feature Vectors picture to this PNG file"),
        Option("top_k", int, 20, "label this many most important features in the plot", min=1, max=1000),
        Option("bootstrap", int, 0, "resample the trees this many times for uncertainty ellipses", min=0,
               max=1000),
    ),
)


class FeatureVectorsPlugin(Plugin):
    """The built-in ``featurevec`` plugin: the ``svd`` embedding, the method, and the
    ``register_tree_readers`` hook with the built-in readers."""

    embeddings = (CooccurrenceSVD(),)
    methods = (FEATUREVEC_METHOD,)

    add_hookspecs = adds_hookspecs("interp_featurevec.hookspecs", "register_tree_readers")

    @hookimpl
    def register_tree_readers(self, register):
        from .readers import builtin_readers

        for reader in builtin_readers():
            register(reader)
