"""Tree readers: a fitted tree model of any library -> one ``TreeNodes`` record per tree.

Feature Vectors needs only the structure of a model's trees: which feature each internal node
splits on and which nodes are its children.  A reader turns one library's fitted model into that
structure, plus what routes a row through a tree as the library does (the threshold, where a
missing value goes) and the library's own number of each leaf, so that the read trees can be
checked against the library's leaf index (``apply`` / ``pred_leaf=True``).

Built-in readers, tried after any a plugin registers (``register_tree_readers``):

- ``xgboost``: ``XGBClassifier``, ``XGBRegressor``, any ``xgboost`` model with ``get_booster()``
  and ``Booster`` (gbtree and dart);
- ``lightgbm``: ``LGBMClassifier``, ``LGBMRegressor``, any model with ``booster_`` and
  ``Booster``;
- ``sklearn-hgb``: ``HistGradientBoostingClassifier`` / ``Regressor``;
- ``sklearn``: single trees and ensembles of them (anything with ``tree_`` or ``estimators_``).

Multiclass boosters keep one tree per class per round; every tree is read, round by round with
the class fastest, which is the column order of the libraries' leaf indices.  A reader imports
its library only when given such a model (most need no import at all: they read the library's
own dump), so neither XGBoost nor LightGBM is needed to import this module.
docs/methods/featurevec.md ("The tree models people train") tells how each library's trees are read and compared.
"""

from __future__ import annotations

import json
from typing import Any, Callable, ClassVar, Iterable, Sequence

import attrs
import numpy as np

from interp import Component, InputError, PluginError, plugin_manager, registry

__all__ = ["TreeNodes", "TreeReader", "builtin_readers", "available_readers", "find_reader", "read_trees"]

HOOK = "register_tree_readers"


def _optional(dtype: type) -> Callable[[Any], np.ndarray | None]:
    def convert(values: Any) -> np.ndarray | None:
        return None if values is None else np.asarray(values, dtype=dtype)
    return convert


@attrs.frozen(eq=False)
class TreeNodes:
    """One tree as flat node arrays (node 0 is the root).

    ``children_left`` / ``children_right`` are node indices, -1 at leaves; ``feature`` the
    column of ``X`` an internal node splits on, -1 at leaves.  The rest says how a row is routed
    and is not needed for paths: ``threshold`` (NaN at leaves and categorical splits),
    ``missing_left`` (a missing value goes left), ``categorical`` (a split on a set of
    categories, not a threshold) and ``leaf_id``, the library's own number of each leaf (what
    its ``apply`` / ``pred_leaf=True`` reports), -1 at internal nodes.  Left out, they default
    to NaN, False, False and the node index.  Construction normalises what a library stores
    in unused slots, so a reader passes the library's arrays as they are: a node with
    ``children_left < 0`` is a leaf, its children and feature become -1, its threshold NaN and
    its flags False; the threshold of a categorical split becomes NaN; ``leaf_id`` of an
    internal node becomes -1.
    """

    children_left: np.ndarray = attrs.field(converter=_optional(np.int64))
    children_right: np.ndarray = attrs.field(converter=_optional(np.int64))
    feature: np.ndarray = attrs.field(converter=_optional(np.int64))
    threshold: np.ndarray | None = attrs.field(default=None, converter=_optional(np.float64))
    missing_left: np.ndarray | None = attrs.field(default=None, converter=_optional(bool))
    leaf_id: np.ndarray | None = attrs.field(default=None, converter=_optional(np.int64))
    categorical: np.ndarray | None = attrs.field(default=None, converter=_optional(bool))

    def __attrs_post_init__(self) -> None:
        n = self.children_left.shape[0]
        sizes = {name: getattr(self, name).shape for name in attrs.fields_dict(type(self))
                 if getattr(self, name) is not None}
        if any(shape != (n,) for shape in sizes.values()):
            raise ValueError(f"TreeNodes arrays must be 1-D of one length; got shapes {sizes}")
        leaf = self.children_left < 0
        no_threshold = leaf if self.categorical is None else leaf | self.categorical
        fill = {
            "children_left": np.where(leaf, -1, self.children_left),
            "children_right": np.where(leaf, -1, self.children_right),
            "feature": np.where(leaf, -1, self.feature),
            "threshold": np.full(n, np.nan) if self.threshold is None else np.where(no_threshold, np.nan, self.threshold),
            "missing_left": np.zeros(n, bool) if self.missing_left is None else self.missing_left & ~leaf,
            "leaf_id": np.where(leaf, np.arange(n) if self.leaf_id is None else self.leaf_id, -1),
            "categorical": np.zeros(n, bool) if self.categorical is None else self.categorical & ~leaf,
        }
        for name, value in fill.items():
            object.__setattr__(self, name, value)

    @property
    def n_nodes(self) -> int:
        return int(self.children_left.shape[0])

    @property
    def n_leaves(self) -> int:
        return int((self.children_left < 0).sum())

    def problem(self) -> str | None:
        """What makes these arrays not one tree rooted at node 0 (None when they are one)."""
        n, left, right = self.n_nodes, self.children_left, self.children_right
        if n == 0:
            return "it has no nodes"
        internal = left >= 0
        if not np.array_equal(right >= 0, internal):
            return "a node has one child"
        kids = np.concatenate([left[internal], right[internal]])
        if kids.size and (kids.min() < 1 or kids.max() >= n):
            return "a child index is out of range (or points at the root)"
        if (self.feature[internal] < 0).any():
            return "an internal node has a negative feature index"
        if kids.size != n - 1 or not reachable(left, right).all():  # n - 1 edges, all reached: a tree
            return "some node is not reached from the root exactly once"
        return None


def reachable(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Which nodes are reached from the root (node 0), one depth level at a time."""
    reached = np.zeros(left.shape[0], dtype=bool)
    frontier = np.zeros(1, dtype=np.int64)
    while frontier.size:
        reached[frontier] = True
        internal = frontier[left[frontier] >= 0]
        frontier = np.concatenate([left[internal], right[internal]])
        frontier = frontier[~reached[frontier]]  # a malformed cycle stops here
    return reached


def keep_reachable(tree: TreeNodes) -> TreeNodes:
    """The tree without nodes the root does not reach (XGBoost keeps pruned nodes in its
    arrays), renumbered in the original order; ``leaf_id`` keeps the library's numbers."""
    keep = reachable(tree.children_left, tree.children_right)
    if keep.all():
        return tree
    new = np.cumsum(keep) - 1
    left, right = (np.where(c >= 0, new[np.maximum(c, 0)], -1) for c in (tree.children_left[keep],
                                                                        tree.children_right[keep]))
    return TreeNodes(left, right, tree.feature[keep], tree.threshold[keep], tree.missing_left[keep],
                     tree.leaf_id[keep], tree.categorical[keep])


class TreeReader(Component):
    """Reads the trees of one kind of fitted model.

    Subclass and define ``accepts(model) -> bool`` (cheap: look at the type, import nothing
    heavy) and ``read(model) -> list[TreeNodes]``, or pass both as callables:
    ``TreeReader("catboost", accepts=..., read=...)``.  ``description`` names the models read,
    for the message a user gets when no reader accepts a model.  ``read`` raises
    ``interp.InputError`` for a model of its kind it cannot read (not fitted, no trees).
    """

    kind: ClassVar[str] = "tree reader"
    accepts: Callable | None = None
    read: Callable | None = None

    def __init__(self, name: str | None = None, accepts: Callable | None = None, read: Callable | None = None,
                 *, description: str | None = None):
        super().__init__(name, description=description, accepts=accepts, read=read)

    def validate(self) -> None:
        if not (self.provides("accepts") and self.provides("read")):
            self.fail("a tree reader needs accepts(model) and read(model)")


def _from_library(model: Any, package: str) -> bool:
    """True when ``model``'s class, or one it derives from, is defined in ``package``."""
    return any(cls.__module__.split(".")[0] == package for cls in type(model).__mro__)


def _not_fitted(model: Any, what: str) -> InputError:
    return InputError(f"{type(model).__name__} is not fitted (no {what}); fit it before reading its trees")


def _in_columns(feature: np.ndarray, columns: np.ndarray | None) -> np.ndarray:
    """Feature indices of the columns a tree was fitted on as columns of ``X`` (``columns[i]``
    is the column of ``X`` of the tree's feature ``i``; None: the same).  Leaves, whatever they
    hold, map to column 0 and ``TreeNodes`` resets them to -1."""
    return feature if columns is None else columns[np.maximum(feature, 0)]


# -- scikit-learn trees and forests ------------------------------------------------------------

def _sklearn_tree(tree: Any, columns: np.ndarray | None) -> TreeNodes:
    missing = getattr(tree, "missing_go_to_left", None)  # scikit-learn >= 1.3
    return TreeNodes(tree.children_left, tree.children_right, _in_columns(tree.feature, columns), tree.threshold,
                     missing)


def _sklearn_trees(model: Any, columns: np.ndarray | None = None) -> list[TreeNodes]:
    """Trees in the order of ``estimators_`` flattened (boosting: round by round, class fastest,
    as ``apply`` reports them).  A bagged tree fitted on a subset of the columns
    (``estimators_features_``) has its feature indices mapped back to columns of ``X``."""
    if hasattr(model, "tree_"):
        return [_sklearn_tree(model.tree_, columns)]
    estimators = getattr(model, "estimators_", None)
    if estimators is None:
        raise _not_fitted(model, "tree_ or estimators_")
    estimators = np.ravel(np.asarray(estimators, dtype=object))
    subsets = getattr(model, "estimators_features_", None)
    trees: list[TreeNodes] = []
    for i, est in enumerate(estimators):
        if not (hasattr(est, "tree_") or hasattr(est, "estimators_")):
            raise InputError(f"{type(model).__name__} holds a {type(est).__name__}, not a tree: "
                             "Feature Vectors reads tree ensembles only")
        cols = columns
        if subsets is not None and (getattr(model, "bootstrap_features", False)
                                    or len(subsets[i]) != model.n_features_in_):
            sub = np.asarray(subsets[i], dtype=np.int64)  # the columns this estimator was fitted on
            cols = sub if columns is None else columns[sub]
        trees.extend(_sklearn_trees(est, cols))
    return trees


class ScikitLearnReader(TreeReader):
    """scikit-learn trees and tree ensembles."""

    name = "sklearn"
    description = "scikit-learn trees and tree ensembles (tree_ / estimators_)"

    def accepts(self, model: Any) -> bool:
        if hasattr(model, "tree_") or hasattr(model, "estimators_"):
            return True
        if not _from_library(model, "sklearn"):
            return False
        from sklearn.ensemble import BaseEnsemble
        from sklearn.tree import BaseDecisionTree

        return isinstance(model, (BaseDecisionTree, BaseEnsemble))  # not fitted: read says so

    def read(self, model: Any) -> list[TreeNodes]:
        return _sklearn_trees(model)


# -- scikit-learn HistGradientBoosting ---------------------------------------------------------

def _hgb_columns(model: Any) -> np.ndarray | None:
    """Column of ``X`` of each column the predictors split on: with categorical features the
    model's ColumnTransformer puts the encoded categorical columns first."""
    pre = getattr(model, "_preprocessor", None)
    if pre is None:
        return None
    columns = np.full(pre.n_features_in_, -1, dtype=np.int64)
    for name, _, selected in pre.transformers_:
        out = pre.output_indices_[name]
        columns[out] = np.arange(pre.n_features_in_)[np.asarray(selected)] if out.stop > out.start else []
    return columns


def _hgb_tree(nodes: np.ndarray, columns: np.ndarray | None) -> TreeNodes:
    """One predictor's ``nodes`` record array (a leaf's ``left`` is 0, so it is set to -1;
    ``left`` is unsigned, so it is made signed first)."""
    return TreeNodes(np.where(nodes["is_leaf"].astype(bool), -1, nodes["left"].astype(np.int64)), nodes["right"],
                     _in_columns(nodes["feature_idx"].astype(np.int64), columns), nodes["num_threshold"],
                     nodes["missing_go_to_left"], categorical=nodes["is_categorical"])


class HistGradientBoostingReader(TreeReader):
    """scikit-learn HistGradientBoostingClassifier / Regressor."""

    name = "sklearn-hgb"
    description = "scikit-learn HistGradientBoostingClassifier/Regressor"

    def accepts(self, model: Any) -> bool:
        return _from_library(model, "sklearn") and any(
            cls.__name__ == "BaseHistGradientBoosting" for cls in type(model).__mro__)

    def read(self, model: Any) -> list[TreeNodes]:
        """The trees of every iteration (one per class for a multiclass model), on raw-value
        thresholds ``num_threshold`` (the binned ``bin_threshold`` serves training only);
        ``leaf_id`` is the node's index in the predictor's ``nodes`` array."""
        predictors = getattr(model, "_predictors", None)
        if predictors is None:
            raise _not_fitted(model, "_predictors")
        columns = _hgb_columns(model)
        return [_hgb_tree(p.nodes, columns) for per_class in predictors for p in per_class]


# -- XGBoost -----------------------------------------------------------------------------------

def _xgboost_tree(tree: dict) -> TreeNodes:
    """One tree of the JSON model; its thresholds are float32 values, as XGBoost compares them."""
    threshold = np.asarray(tree["split_conditions"], dtype=np.float32)
    nodes = TreeNodes(tree["left_children"], tree["right_children"], tree["split_indices"], threshold,
                      tree["default_left"], categorical=tree["split_type"])
    return keep_reachable(nodes) if int(tree["tree_param"].get("num_deleted", 0)) else nodes


def _xgboost_tree_count(model: Any, gbtree: dict) -> int:
    """How many trees predict: a scikit-learn wrapper trained with early stopping predicts
    with the rounds up to ``best_iteration`` (as its ``predict`` and ``apply`` do)."""
    n = len(gbtree["trees"])
    if not hasattr(model, "get_booster"):  # a Booster predicts with all its trees
        return n
    try:
        rounds = int(model.best_iteration) + 1
    except (AttributeError, TypeError, ValueError):
        return n
    indptr = gbtree.get("iteration_indptr")
    return min(n, int(indptr[rounds])) if indptr and rounds < len(indptr) else n


class XGBoostReader(TreeReader):
    """XGBoost models: the scikit-learn wrappers and Booster."""

    name = "xgboost"
    description = "XGBoost XGBClassifier/XGBRegressor/Booster"

    def accepts(self, model: Any) -> bool:
        return _from_library(model, "xgboost") and (hasattr(model, "get_booster") or hasattr(model, "save_raw"))

    def read(self, model: Any) -> list[TreeNodes]:
        """The trees of the booster's own JSON model (``save_raw("json")``): its node arrays are
        read as they are, a tree at a time, never a node at a time.  Feature indices are the
        positions of the booster's features whatever their names."""
        try:
            booster = model.get_booster() if hasattr(model, "get_booster") else model
        except (AttributeError, ValueError):
            raise _not_fitted(model, "booster") from None
        learner = json.loads(booster.save_raw(raw_format="json"))["learner"]["gradient_booster"]
        if learner["name"] == "gblinear":
            raise InputError(f"{type(model).__name__} uses the gblinear booster: it has no trees to read")
        gbtree = (learner["gbtree"] if learner["name"] == "dart" else learner)["model"]
        return [_xgboost_tree(tree) for tree in gbtree["trees"][: _xgboost_tree_count(model, gbtree)]]


# -- LightGBM ----------------------------------------------------------------------------------

_LGB_CATEGORICAL, _LGB_DEFAULT_LEFT = 1, 2  # decision_type bits; bits 2-3: missing type
_LGB_MISSING_NONE = 0  # missing type None: LightGBM reads NaN as 0.0


def _numbers(text: str, dtype: type) -> np.ndarray:
    return np.array(text.split(), dtype=dtype)


def _lightgbm_tree(fields: dict[str, str]) -> TreeNodes:
    """One ``Tree=`` block of LightGBM's model text: internal nodes keep LightGBM's numbers
    0..L-2, leaf ``k`` (child code ``~k``) becomes node L-1+k."""
    n_leaves = int(fields["num_leaves"])
    n_internal = n_leaves - 1
    if n_internal == 0:
        return TreeNodes([-1], [-1], [-1], leaf_id=[0])

    def children(key: str) -> np.ndarray:  # leaf k, coded ~k, is node L-1+k; leaves get -1
        codes = _numbers(fields[key], np.int64)
        return np.concatenate([np.where(codes >= 0, codes, n_internal + ~codes), np.full(n_leaves, -1)])

    def with_leaves(values: np.ndarray) -> np.ndarray:  # leaves' slots: TreeNodes resets them
        return np.pad(values, (0, n_leaves))

    decision = _numbers(fields["decision_type"], np.int64)
    threshold = _numbers(fields["threshold"], np.float64)
    categorical = (decision & _LGB_CATEGORICAL).astype(bool)
    default_left = (decision & _LGB_DEFAULT_LEFT).astype(bool)
    none_type = (decision >> 2) & 3 == _LGB_MISSING_NONE
    return TreeNodes(children("left_child"), children("right_child"),
                     with_leaves(_numbers(fields["split_feature"], np.int64)), with_leaves(threshold),
                     with_leaves(np.where(none_type & ~categorical, 0.0 <= threshold, default_left)),
                     np.arange(-n_internal, n_leaves), with_leaves(categorical))


def _lightgbm_blocks(text: str) -> Iterable[dict[str, str]]:
    body = text.split("end of trees", 1)[0]
    for block in body.split("\nTree=")[1:]:
        yield dict(line.split("=", 1) for line in block.splitlines()[1:] if "=" in line)


class LightGBMReader(TreeReader):
    """LightGBM models: the scikit-learn wrappers and Booster."""

    name = "lightgbm"
    description = "LightGBM LGBMClassifier/LGBMRegressor/Booster"

    def accepts(self, model: Any) -> bool:
        return _from_library(model, "lightgbm") and (hasattr(type(model), "booster_")
                                                     or hasattr(model, "model_to_string"))

    def read(self, model: Any) -> list[TreeNodes]:
        """The trees of LightGBM's model text (``model_to_string()``: the iterations up to the
        best one when early stopping found one, as ``predict`` uses), each node array parsed
        from one line."""
        try:
            booster = model.booster_ if hasattr(type(model), "booster_") else model
        except (AttributeError, ValueError):
            raise _not_fitted(model, "booster_") from None
        return [_lightgbm_tree(fields) for fields in _lightgbm_blocks(booster.model_to_string())]


# -- finding a reader --------------------------------------------------------------------------

_BUILTIN = (XGBoostReader, LightGBMReader, HistGradientBoostingReader, ScikitLearnReader)


def builtin_readers() -> list[TreeReader]:
    """The readers this plugin registers, in the order they are tried."""
    return [cls() for cls in _BUILTIN]


def available_readers() -> list[TreeReader]:
    """Every registered reader, other plugins' first; the built-in ones when the hook is not
    there (the featurevec plugin, which adds it, is disabled or not loaded)."""
    if not hasattr(plugin_manager().hook, HOOK):
        return builtin_readers()
    readers = list(registry.collect(HOOK, TreeReader, "tree reader").values())
    return sorted(readers, key=lambda r: isinstance(r, _BUILTIN)) or builtin_readers()


def find_reader(model: Any, readers: Sequence[TreeReader]) -> TreeReader:
    """The first of ``readers`` that accepts ``model``; a one-line ``InputError`` naming the type
    and the kinds of model the readers read when none does."""
    if model is None:
        raise InputError("no model given: Feature Vectors reads the trees of a fitted tree model")
    for reader in readers:
        if reader.accepts(model):
            return reader
    kinds = "; ".join(r.description or r.name for r in readers) or "none (no tree reader is registered)"
    raise InputError(f"cannot read the trees of a {type(model).__module__.split('.')[0]}."
                     f"{type(model).__name__}; Feature Vectors reads: {kinds}")


def read_trees(model: Any, readers: Sequence[TreeReader] | None = None) -> list[TreeNodes]:
    """The trees of a fitted model, read by the first reader that accepts it (default: the
    registered readers).  Each tree is checked to be one tree rooted at node 0: a reader that
    returns anything else is a ``PluginError`` naming it."""
    reader = find_reader(model, available_readers() if readers is None else readers)
    trees = reader.read(model)
    origin = f" (plugin {reader.plugin!r})" if reader.plugin else ""
    if not isinstance(trees, list) or not all(isinstance(t, TreeNodes) for t in trees):
        raise PluginError(f"tree reader {reader.name!r}{origin} must return a list of TreeNodes",
                          plugin=reader.plugin)
    for i, tree in enumerate(trees):
        problem = tree.problem()
        if problem:
            raise PluginError(f"tree reader {reader.name!r}{origin} returned an invalid tree {i}: {problem}",
                              plugin=reader.plugin)
    if not trees:
        raise InputError(f"the {type(model).__name__} has no trees")
    return trees
