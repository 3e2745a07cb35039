"""Feature Vectors (Ghorbani et al., Information 2022): feature maps from tree co-occurrence.

``FeatureVectors`` trains (or takes) a tree ensemble, reads every root-to-leaf path as a
"sentence" of features, counts which features occur within ``window`` positions of each other
and embeds the features in 2-D by a truncated SVD of those counts: a vector's length is the
feature's importance, its angle what it means to the model.
"""

from .embedding import embed_matrix
from .estimator import FeatureVectors
from .paths import brute_force_cooccurrence, cooccurrence, ensemble_trees, extract_paths, tree_arrays
from .plotting import plot_feature_vectors

__all__ = [
    "FeatureVectors",
    "brute_force_cooccurrence",
    "cooccurrence",
    "embed_matrix",
    "ensemble_trees",
    "extract_paths",
    "plot_feature_vectors",
    "tree_arrays",
]
