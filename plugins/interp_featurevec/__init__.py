"""Feature Vectors (Ghorbani et al., Information 2022): feature maps from tree co-occurrence.

``FeatureVectors`` trains (or takes) a tree ensemble, reads every root-to-leaf path as a
"sentence" of features, counts which features occur within ``window`` positions of each other
and embeds the features in 2-D (by default a truncated SVD of those counts, any registered
``interp.Embedding`` on request): a vector's length is the feature's importance, its angle what
it means to the model.
"""

from interp.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    ".embedding": ["CooccurrenceSVD", "FeatureMap", "feature_map"],
    ".estimator": ["FeatureVectors"],
    ".paths": ["brute_force_cooccurrence", "cooccurrence", "extract_paths", "tree_arrays"],
    ".plots": ["plot_feature_vectors"],
    ".readers": ["read_trees"],
})
