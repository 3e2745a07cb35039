"""``FeatureVectors``: the scikit-learn estimator of Algorithm 1 (Ghorbani et al., 2022)."""

from __future__ import annotations

import functools
import math
import numbers
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from interp import Embedding, get_registry
from interp.data import columns_for_model
from interp.display import ExplainedEstimator
from interp.resources import check_sizes
from interp.errors import InputError
from interp.preprocessing import infer_task

from .embedding import align, feature_map
from .histforest import HistForest, heap_to_children
from .paths import cooccurrence, extract_paths, tree_arrays
from .readers import read_trees
from .sparseforest import SparseHistForest

DEPTH_GRID = (2, 3, 4, 5, 6)
MAX_DEPTH = 12
EMPTY_MESSAGE = ("no root-to-leaf path has two splits, so no features co-occur and every feature "
                 "vector is zero (trees that stop after one split: pure or tiny data, or stumps)")
AUTO_MAX_SAMPLES = 512
#: the bytes one collected path costs at the peak of a fit: its row of the path matrix and its
#: co-occurrence entries (about PATH_BYTES_PER_LEVEL per level of depth) and its share of the
#: growing trees' heap arrays (2^(depth + 1) slots a tree, HEAP_BYTES per leaf-sized share): an
#: upper bound of the peaks measured at depths 3, 6 and 10 (about 0.26, 0.7 and 7.5 KB a path)
PATH_BYTES_PER_LEVEL, HEAP_BYTES = 100, 8


def fit_memory(n_paths: int, n_boot: int = 0, *, depth: int = 3, n_features: int = 2) -> float:
    """The bytes a fit collecting ``n_paths`` paths of trees of ``depth``, then ``n_boot``
    bootstrap replicates of its ``n_features`` feature vectors, allocates at its peak (see
    :data:`PATH_BYTES_PER_LEVEL`)."""
    return n_paths * (PATH_BYTES_PER_LEVEL * depth + HEAP_BYTES * 2.0**depth) + 16.0 * n_features * n_boot


def check_fit_memory(n_paths: int, n_boot: int = 0, *, depth: int = 3, n_features: int = 2,
                     advice: dict | None = None) -> None:
    """A one-line ``ResourceError`` before any work when :func:`fit_memory` exceeds the memory
    budget (``interp.resources``), saying how many paths or replicates would fit; ``advice``
    (by size: ``n_paths``, ``n_boot``) says how to get there."""
    check_sizes(functools.partial(fit_memory, depth=depth, n_features=n_features),
                {"n_paths": n_paths, "n_boot": n_boot},
                f"Feature Vectors with {n_paths:,} paths of depth {depth}"
                + (f" and {n_boot:,} bootstrap replicates" if n_boot else ""),
                {"n_paths": "paths", "n_boot": "bootstrap replicates"},
                advice or {"n_paths": "lower n_paths or max_depth", "n_boot": "fewer replicates"})


class FeatureVectors(ExplainedEstimator, BaseEstimator):
    """Feature Vectors: 2-D feature embeddings from the co-occurrence of features on tree paths.

    Parameters
    ----------
    n_paths : int, default=100_000
        Root-to-leaf paths ("sentences") to collect: trees are added until there are at least
        this many.  Ignored when ``estimator`` is given (all its paths are used).
    window : int, default=3
        Two positions of a path at distance <= ``window`` co-occur (see ``paths``).
    max_depth : int or "cv", default=3
        Depth of the trees (2..12); "cv" picks it from (2, 3, 4, 5, 6) by 3-fold cross-validation of
        a 50-tree random forest (ties go to the shallower depth).
    task : {"auto", "classification", "regression"}, default="auto"
        "auto" classifies text, boolean and integer-valued targets with at most 10 distinct
        values and regresses any other numeric target (``interp.preprocessing.infer_task``,
        the rule every interp method uses).
    estimator : fitted tree model, default=None
        Use its trees instead of training a forest: scikit-learn trees and tree ensembles,
        ``HistGradientBoosting*``, XGBoost and LightGBM models, or any model a registered tree
        reader accepts (``interp_featurevec.readers``).
    max_samples : int, float or "auto", default="auto"
        Bootstrap rows per tree (drawn with replacement): an int, a fraction of the rows, or
        "auto" = min(n_samples, 512), which keeps each of the thousands of trees cheap.
    random_state : int, RandomState or None
        Seed of everything random; the result does not depend on ``n_jobs``.
    n_jobs : int or None
        Threads used to grow the trees.
    embedding : str or interp.Embedding, default="svd"
        How the co-occurrence matrix becomes 2-D feature vectors: the name of an embedding in
        ``interp.get_registry().embeddings`` or an ``interp.Embedding`` instance.  "svd" is the
        paper's truncated SVD with fixed signs (``interp_featurevec.embedding``).  Resolved at
        fit time and kept in ``embedder_``, so a fitted model never needs the registry again.
    embedding_params : dict or None, default=None
        Parameters of the embedding (names in its ``defaults``; None: its defaults), checked at
        fit time and kept, complete, in ``embedding_params_``.

    Attributes
    ----------
    cooccurrence_ : scipy.sparse.csr_matrix (d, d)
        Raw co-occurrence counts (symmetric; a repeated feature adds 2 to the diagonal).
    embedder_ : interp.Embedding
        The embedding ``embedding`` resolved to at fit time (also used by ``bootstrap``).
    embedding_params_ : dict
        Its parameters: its ``defaults`` updated with ``embedding_params``.
    embedding_ : ndarray (d, 2)
        The embedder's feature vectors (for "svd": ``U * S`` of the 2-D truncated SVD), scaled
        so the largest norm is 1.
    importances_ : ndarray (d,)
        Norms of the feature vectors (max 1).
    angles_ : ndarray (d,)
        ``atan2(axis 2, axis 1)`` in degrees.
    explained_variance_ratio_ : ndarray (2,) or None
        ``s_k**2 / ||M||_F**2`` of each component; None when the embedding does not give it
        (an embedding that is not a matrix factorisation).
    singular_values_ : ndarray (2,) or None
        The two largest singular values of ``cooccurrence_``; None when the embedding does not
        give them.
    n_trees_, n_paths_ : int
        Trees used and root-to-leaf paths collected.
    max_depth_ : int or None
        Depth used for training (None when ``estimator`` was given).
    task_ : str
    """

    #: what ``interp.explain``'s per-row explanations say of this method
    rows_note = ("no per-row explanation: the map of Feature Vectors is global, the model's features as a whole "
                 "(read single rows with the other methods)")

    embedding_params = None  # the default, for a model pickled before the parameter existed

    def __init__(self, n_paths=100_000, window=3, max_depth=3, task="auto", estimator=None,
                 max_samples="auto", random_state=None, n_jobs=None, embedding="svd", embedding_params=None):
        """Store the hyperparameters as given (scikit-learn's convention: one constructor keyword
        per hyperparameter, checked in ``fit``); ``embedding`` and ``embedding_params`` come last
        so that positional callers of earlier versions keep working.

        Ten parameters: one per hyperparameter, as scikit-learn estimators take them."""
        self.n_paths = n_paths
        self.window = window
        self.max_depth = max_depth
        self.task = task
        self.estimator = estimator
        self.max_samples = max_samples
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.embedding = embedding
        self.embedding_params = embedding_params

    # -- validation ----------------------------------------------------------------------------
    def _check_params(self) -> None:
        def is_int(v):
            return isinstance(v, numbers.Integral) and not isinstance(v, bool)

        if not is_int(self.n_paths) or self.n_paths < 1:
            raise InputError(f"n_paths must be an integer >= 1, got {self.n_paths!r}")
        if not is_int(self.window) or self.window < 1:
            raise InputError(f"window must be an integer >= 1, got {self.window!r}")
        if not (self.max_depth == "cv" or (is_int(self.max_depth) and 2 <= self.max_depth <= MAX_DEPTH)):
            raise InputError(f"max_depth must be an integer in 2..{MAX_DEPTH} (paths need 2 splits to co-occur) "
                             f"or 'cv', got {self.max_depth!r}")
        if self.task not in ("auto", "classification", "regression"):
            raise InputError(f"task must be 'auto', 'classification' or 'regression', got {self.task!r}")
        ms = self.max_samples
        ok = ms == "auto" or (is_int(ms) and ms >= 1) or (
            isinstance(ms, float) and 0.0 < ms <= 1.0)
        if not ok:
            raise InputError(f"max_samples must be 'auto', an integer >= 1 or a fraction in (0, 1], got {ms!r}")

    def _resolve_embedding(self) -> Embedding:
        """``embedding`` as an ``interp.Embedding``: an instance as given, a name from the registry."""
        if isinstance(self.embedding, Embedding):
            return self.embedding
        if not isinstance(self.embedding, str):
            raise InputError(f"embedding must be a registered embedding's name or an interp.Embedding, "
                             f"got {self.embedding!r}")
        try:
            return get_registry().embeddings[self.embedding]
        except KeyError as err:
            raise InputError(err.args[0]) from None

    def _validate_X(self, X, y):
        """validate_data with one-line InputErrors for NaN/inf and a single feature."""
        kw = dict(accept_sparse=["csr", "csc"], dtype=np.float64, ensure_all_finite=False)
        if y is None:
            X = validate_data(self, X, **kw)
        else:
            X, y = validate_data(self, X, y, y_numeric=False, **kw)
        values = X.data if sp.issparse(X) else X
        if not np.isfinite(values).all():
            raise InputError("X contains NaN or infinity; impute or drop those cells first")
        if X.shape[1] < 2:
            raise InputError(f"Feature Vectors needs at least 2 features, got n_features = {X.shape[1]}")
        return X, y

    # -- fit -----------------------------------------------------------------------------------
    def fit(self, X, y=None):
        """Collect paths (training a forest unless ``estimator`` is given) and embed."""
        self._check_params()
        embedder = self._resolve_embedding()
        hyper = embedder.resolve_hyper(self.embedding_params)
        if self.estimator is None and y is None:
            raise InputError("FeatureVectors requires y to be passed, but the target y is None (give y, or a fitted estimator)")
        X, y = self._validate_X(X, y)
        d = X.shape[1]
        rng = np.random.default_rng(check_random_state(self.random_state).randint(0, 2**31 - 1))
        if self.estimator is not None:
            trees = read_trees(self.estimator)
            left, right, feat, owner = tree_arrays(trees)
            feat = self._in_columns_of_X(feat, d)
            self.task_ = "given"
            self.max_depth_ = None
            self.n_trees_ = len(trees)
        else:
            self.task_ = self.task if self.task != "auto" else infer_task(y)
            classification = self.task_ == "classification"
            if classification:
                y = np.asarray(y)
                if np.unique(y).size < 2:
                    raise InputError("the target has 1 class; a classifier needs at least two")
            else:
                y = np.asarray(y, dtype=np.float64)
                if not np.isfinite(y).all():
                    raise InputError("y contains NaN or infinity")
            k = math.ceil(math.sqrt(d))
            n = X.shape[0]
            m = self._max_samples(n)
            check_fit_memory(int(self.n_paths), depth=max(DEPTH_GRID) if self.max_depth == "cv" else int(self.max_depth))
            depth = self._choose_depth(X, y, classification, k, rng) if self.max_depth == "cv" else int(self.max_depth)
            self.max_depth_ = depth
            left, right, feat, owner = self._train(X, y, classification, depth, k, m, rng)
            self.n_trees_ = int(owner.max()) + 1 if owner.size else 0
        P, lengths, leaves = extract_paths(left, right, feat)
        self.paths_ = P
        self.path_lengths_ = lengths
        self.path_trees_ = owner[leaves]
        self.n_paths_ = int(P.shape[0])
        self.cooccurrence_ = cooccurrence(P, d, self.window)
        if self.cooccurrence_.nnz == 0:
            warnings.warn(EMPTY_MESSAGE, UserWarning, stacklevel=2)
        self.embedder_, self.embedding_params_ = embedder, hyper
        fmap = feature_map(self.cooccurrence_, embedder, self.embedding_params_)
        self.embedding_ = fmap.embedding
        self.importances_ = fmap.importances
        self.angles_ = fmap.angles
        self.singular_values_ = fmap.singular_values
        self.explained_variance_ratio_ = fmap.explained_variance_ratio
        return self

    def _in_columns_of_X(self, feat: np.ndarray, d: int) -> np.ndarray:
        """The ``estimator``'s split features (its column numbers, -1 at leaves) as columns of X:
        matched by name when both X and the estimator have column names (X's columns may come
        in another order; a name on one side only is an InputError), else by position (the
        counts must agree)."""
        names = getattr(self, "feature_names_in_", None)
        if names is None:
            n_in = getattr(self.estimator, "n_features_in_", None)
            if n_in is not None and n_in != d:
                raise InputError(f"the estimator was fitted on {n_in} features, X has {d}")
            return feat
        columns = np.asarray(columns_for_model(self.estimator, names, "the estimator"), dtype=np.int64)
        return np.where(feat >= 0, columns[np.maximum(feat, 0)], feat)

    def _max_samples(self, n: int) -> int:
        ms = self.max_samples
        if ms == "auto":
            return min(n, AUTO_MAX_SAMPLES)
        if isinstance(ms, float):
            return max(1, int(round(ms * n)))
        return int(ms)

    def _train(self, X, y, classification, depth, k, m, rng):
        from interp import progress

        with progress.Progress("featurevec: growing trees", total=self.n_paths) as bar:
            def report(done, _bar=bar):
                _bar.update(done - _bar.done)

            cls = SparseHistForest if sp.issparse(X) else HistForest
            forest = cls(X, y, classification=classification, max_depth=depth, max_features=k, max_samples=m)
            heaps = forest.grow(self.n_paths, rng, n_jobs=self.n_jobs, progress=report)
            return heap_to_children(heaps.feature, heaps.exists)

    def _choose_depth(self, X, y, classification, k, rng) -> int:
        from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
        from sklearn.model_selection import KFold, StratifiedKFold, cross_val_score

        seed = int(rng.integers(0, 2**31 - 1))
        if classification:
            _, counts = np.unique(y, return_counts=True)
            cv = StratifiedKFold(3, shuffle=True, random_state=seed) if counts.min() >= 3 else KFold(3, shuffle=True, random_state=seed)
            model = RandomForestClassifier
        else:
            cv = KFold(3, shuffle=True, random_state=seed)
            model = RandomForestRegressor
        if X.shape[0] < 6:
            return 3
        best, best_score = DEPTH_GRID[0], -np.inf
        for depth in DEPTH_GRID:
            est = model(n_estimators=50, max_depth=depth, max_features=k, random_state=seed, n_jobs=self.n_jobs)
            score = float(np.mean(cross_val_score(est, X, y, cv=cv)))
            if score > best_score + 1e-12:
                best, best_score = depth, score
        return best

    # -- extras --------------------------------------------------------------------------------
    def bootstrap(self, n_boot: int = 30, random_state=None) -> np.ndarray:
        """Embeddings of ``n_boot`` resamplings of the trees (with replacement).

        Each replicate reweights every tree's paths by how often the tree was drawn, re-embeds
        with ``embedder_`` (the embedding resolved at fit) and flips its axes to agree with
        ``embedding_``.  Stored in ``bootstrap_embeddings_``
        (n_boot, d, 2) and returned.
        """
        check_is_fitted(self, "embedding_")
        check_fit_memory(0, int(n_boot), n_features=self.n_features_in_)
        rng = np.random.default_rng(check_random_state(random_state).randint(0, 2**31 - 1))
        T = max(self.n_trees_, 1)
        reps = []
        for _ in range(int(n_boot)):
            counts = np.bincount(rng.integers(0, T, T), minlength=T).astype(float)
            M = cooccurrence(self.paths_, self.n_features_in_, self.window, weights=counts[self.path_trees_])
            Z = feature_map(M, self.embedder_, getattr(self, "embedding_params_", None)).embedding
            reps.append(align(Z, self.embedding_))
        self.bootstrap_embeddings_ = np.array(reps)
        return self.bootstrap_embeddings_

    def ranking(self) -> np.ndarray:
        """Feature indices by decreasing importance (ties: lower index first)."""
        check_is_fitted(self, "importances_")
        return np.argsort(-self.importances_, kind="stable")

    def feature_names(self) -> list[str]:
        check_is_fitted(self, "embedding_")
        names = getattr(self, "feature_names_in_", None)
        if names is None:
            return [f"x{i}" for i in range(self.n_features_in_)]
        return [str(v) for v in names]

    def plot(self, ax=None, top_k: int = 20, bootstrap: int = 0, ellipses: bool = True):
        """The paper's picture; see ``interp_featurevec.plots.plot_feature_vectors``."""
        from .plots import plot_feature_vectors

        check_is_fitted(self, "embedding_")
        if bootstrap and not hasattr(self, "bootstrap_embeddings_"):
            self.bootstrap(bootstrap, random_state=self.random_state)
        reps = getattr(self, "bootstrap_embeddings_", None) if ellipses else None
        return plot_feature_vectors(self.embedding_, self.feature_names(), ax=ax, top_k=top_k,
                                    bootstrap=reps, explained=self.explained_variance_ratio_)

    def vectors_frame(self):
        """Every feature's vector as a DataFrame: name, x, y, length, angle (``render.vectors_frame``)."""
        from .render import vectors_frame

        check_is_fitted(self, "embedding_")
        return vectors_frame(self)

    def _display(self):
        from .render import estimator_display

        return estimator_display(self)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.required = True
        return tags
