"""Tree readers give exactly the trees of the model: every row, routed through the read arrays
with the library's own comparison, reaches the leaf the library reports for it."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest
from sklearn.ensemble import (BaggingRegressor, ExtraTreesRegressor, GradientBoostingClassifier,
                              HistGradientBoostingClassifier, HistGradientBoostingRegressor,
                              RandomForestClassifier)
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier

import interp
from interp.testing import registered
from interp_featurevec.paths import tree_arrays
from interp_featurevec.readers import (HOOK, TreeNodes, TreeReader, builtin_readers, find_reader, read_trees,
                                       reachable)

N, D = 240, 6


@pytest.fixture(scope="module")
def data():
    """Rows, three targets and a copy of the rows with missing cells (feature 1 often, 4 rarely)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(N, D))
    X[:, 3] = np.round(X[:, 3])  # ties on thresholds
    signal = X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=N)
    X_nan = X.copy()
    X_nan[rng.random(N) < 0.2, 1] = np.nan
    X_nan[rng.random(N) < 0.05, 4] = np.nan
    return {"X": X, "X_nan": X_nan, "binary": (signal > 0).astype(int),
            "multiclass": np.digitize(signal, np.quantile(signal, [1 / 3, 2 / 3])), "regression": signal}


@pytest.fixture
def one_thread():
    """HistGradientBoosting on 240 rows: OpenMP threads cost more than they save (seconds on a
    busy 2-core machine)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1, "openmp"):
        yield


def route(tree: TreeNodes, X: np.ndarray, strict: bool) -> np.ndarray:
    """The ``leaf_id`` each row reaches: left when ``x < threshold`` (strict) or
    ``x <= threshold``; a missing value goes where ``missing_left`` says."""
    node = np.zeros(X.shape[0], dtype=np.int64)
    rows = np.arange(X.shape[0])
    while (internal := tree.children_left[node] >= 0).any():
        x = X[rows, np.maximum(tree.feature[node], 0)]
        below = x < tree.threshold[node] if strict else x <= tree.threshold[node]
        left = np.where(np.isnan(x), tree.missing_left[node], below)
        node = np.where(internal, np.where(left, tree.children_left[node], tree.children_right[node]), node)
    return tree.leaf_id[node]


def routed(trees, X, strict=False):
    return np.column_stack([route(tree, X, strict) for tree in trees])


def sklearn_trees(model):
    """scikit-learn's own ``tree_`` objects of a tree or ensemble, in ``apply``'s column order:
    what the paths were read from before there were readers."""
    if hasattr(model, "tree_"):
        return [model.tree_]
    return [est.tree_ for est in np.ravel(model.estimators_)]


def split_counts(trees, d=D):
    return np.bincount(np.concatenate([t.feature[t.feature >= 0] for t in trees]), minlength=d)


# -- scikit-learn ------------------------------------------------------------------------------

@pytest.mark.parametrize("make, target, rows", [
    (lambda: DecisionTreeClassifier(max_depth=5, random_state=0), "binary", "X_nan"),
    (lambda: RandomForestClassifier(n_estimators=5, max_depth=4, random_state=0), "multiclass", "X_nan"),
    (lambda: ExtraTreesRegressor(n_estimators=5, max_depth=4, random_state=0), "regression", "X"),
    (lambda: GradientBoostingClassifier(n_estimators=4, max_depth=3, random_state=0), "multiclass", "X"),
], ids=["tree-nan", "forest-nan", "extratrees", "gradientboosting-multiclass"])
def test_sklearn_rows_reach_the_leaf_apply_reports(data, make, target, rows):
    X = data[rows]
    model = make().fit(X, data[target])
    trees = read_trees(model)
    assert len(trees) == len(sklearn_trees(model))
    # scikit-learn compares float32(x) <= threshold
    assert np.array_equal(routed(trees, X.astype(np.float32).astype(np.float64)), model.apply(X).reshape(N, -1))


def test_sklearn_bagged_trees_on_column_subsets_name_columns_of_X(data):
    X = data["X"]
    model = BaggingRegressor(DecisionTreeClassifier(max_depth=3), n_estimators=4, max_features=3,
                             random_state=0).fit(X, data["binary"])
    trees = read_trees(model)
    X32 = X.astype(np.float32).astype(np.float64)
    for tree, est, cols in zip(trees, model.estimators_, model.estimators_features_):
        assert np.array_equal(route(tree, X32, strict=False), est.apply(X[:, cols]))
        assert set(tree.feature[tree.feature >= 0]) <= set(cols)


@pytest.mark.parametrize("make", [
    lambda: RandomForestClassifier(n_estimators=4, max_depth=4, random_state=0),
    lambda: GradientBoostingClassifier(n_estimators=3, max_depth=3, random_state=0),
])
def test_sklearn_arrays_are_those_paths_read_before_readers(data, make):
    model = make().fit(data["X"], data["multiclass"])
    for new, old in zip(tree_arrays(read_trees(model)), tree_arrays(sklearn_trees(model))):
        assert np.array_equal(new, old)


# -- scikit-learn HistGradientBoosting ---------------------------------------------------------

@pytest.mark.parametrize("make, target, outputs", [
    (HistGradientBoostingClassifier, "binary", 1),
    (HistGradientBoostingClassifier, "multiclass", 3),
    (HistGradientBoostingRegressor, "regression", 1),
])
def test_hgb_leaf_values_add_up_to_the_raw_prediction(one_thread, data, make, target, outputs):
    """HistGradientBoosting has no ``apply``: the reached leaves' values, plus the baseline, must
    give the model's raw prediction, on rows with missing cells too."""
    X = data["X_nan"]
    model = make(max_iter=5, max_depth=3, random_state=0).fit(X, data[target])
    trees = read_trees(model)
    assert len(trees) == 5 * outputs
    leaves = routed(trees, X)
    values = [p.nodes["value"] for per_class in model._predictors for p in per_class]
    raw = np.column_stack([v[leaves[:, t]] for t, v in enumerate(values)]).reshape(N, 5, outputs).sum(1)
    raw += model._baseline_prediction.ravel()
    expected = model.predict(X) if target == "regression" else model.decision_function(X)
    np.testing.assert_allclose(raw, expected.reshape(N, outputs), rtol=1e-12, atol=1e-12)


def test_hgb_categorical_columns_keep_their_place_in_X(one_thread):
    """With categorical features the model reorders its columns (categorical first); the reader
    maps them back: only column 0 (numeric) and column 2 (categorical) carry the target."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"a": rng.normal(size=N), "const": 1.0, "c": pd.Categorical(rng.integers(0, 4, N)),
                          "const2": 0.0})
    y = frame["a"] + 2 * frame["c"].cat.codes.isin([1, 3])
    model = HistGradientBoostingRegressor(max_iter=5, max_depth=3, categorical_features="from_dtype").fit(frame, y)
    trees = read_trees(model)
    assert set(np.flatnonzero(split_counts(trees, 4))) == {0, 2}
    assert all(np.isnan(t.threshold[t.categorical]).all() and (t.feature[t.categorical] == 2).all() for t in trees)
    assert any(t.categorical.any() for t in trees)


# -- XGBoost -----------------------------------------------------------------------------------

@pytest.mark.parametrize("kind, target", [("XGBClassifier", "binary"), ("XGBClassifier", "multiclass"),
                                          ("XGBRegressor", "regression")])
def test_xgboost_rows_reach_the_leaf_pred_leaf_reports(data, kind, target):
    xgb = pytest.importorskip("xgboost")
    X = data["X_nan"]
    model = getattr(xgb, kind)(n_estimators=4, max_depth=3, n_jobs=1).fit(X, data[target])
    trees = read_trees(model)
    assert len(trees) == 4 * (3 if target == "multiclass" else 1)
    leaves = model.get_booster().predict(xgb.DMatrix(X), pred_leaf=True).astype(np.int64)
    # XGBoost compares float32(x) < float32(threshold)
    assert np.array_equal(routed(trees, X.astype(np.float32).astype(np.float64), strict=True), leaves)
    assert np.array_equal(leaves, model.apply(X))


@pytest.mark.filterwarnings("ignore:.*updater:UserWarning")
def test_xgboost_booster_with_named_features_and_pruned_nodes(data):
    """A Booster trained on named columns splits on positions of X; pruning leaves dead nodes in
    XGBoost's arrays, which the reader drops while keeping XGBoost's leaf numbers."""
    xgb = pytest.importorskip("xgboost")
    X, y = data["X_nan"], data["regression"]
    names = [f"col_{i}" for i in range(D)]
    train = xgb.DMatrix(X, label=y, feature_names=names)
    booster = xgb.train({"max_depth": 4, "nthread": 1}, train, 3)
    booster = xgb.train({"process_type": "update", "updater": "prune", "gamma": 20.0, "nthread": 1}, train, 3,
                        xgb_model=booster)
    trees = read_trees(booster)
    leaves = booster.predict(xgb.DMatrix(X, feature_names=names), pred_leaf=True).astype(np.int64)
    assert np.array_equal(routed(trees, X.astype(np.float32).astype(np.float64), strict=True), leaves)
    weights = booster.get_score(importance_type="weight")
    assert split_counts(trees).tolist() == [weights.get(name, 0) for name in names]


def test_xgboost_dart_booster(data):
    xgb = pytest.importorskip("xgboost")
    X = data["X_nan"]
    booster = xgb.train({"booster": "dart", "max_depth": 3, "rate_drop": 0.3, "nthread": 1},
                        xgb.DMatrix(X, label=data["regression"]), 4)
    leaves = booster.predict(xgb.DMatrix(X), pred_leaf=True).astype(np.int64)
    assert np.array_equal(routed(read_trees(booster), X.astype(np.float32).astype(np.float64), strict=True), leaves)


def test_xgboost_early_stopped_wrapper_reads_the_rounds_it_predicts_with(data):
    xgb = pytest.importorskip("xgboost")
    X, y = data["X"], data["regression"]
    model = xgb.XGBRegressor(n_estimators=60, max_depth=2, learning_rate=0.9, early_stopping_rounds=2, n_jobs=1)
    model.fit(X[:160], y[:160], eval_set=[(X[160:], y[160:])], verbose=False)
    assert model.best_iteration + 1 < 60
    trees = read_trees(model)
    assert np.array_equal(routed(trees, X.astype(np.float32).astype(np.float64), strict=True), model.apply(X))


# -- LightGBM ----------------------------------------------------------------------------------

@pytest.mark.parametrize("kind, target", [("LGBMClassifier", "binary"), ("LGBMClassifier", "multiclass"),
                                          ("LGBMRegressor", "regression")])
def test_lightgbm_rows_reach_the_leaf_pred_leaf_reports(data, kind, target):
    lgb = pytest.importorskip("lightgbm")
    X = data["X_nan"]
    model = getattr(lgb, kind)(n_estimators=4, num_leaves=8, min_child_samples=5, n_jobs=1, verbose=-1)
    model.fit(X, data[target])
    trees = read_trees(model)
    assert len(trees) == 4 * (3 if target == "multiclass" else 1)
    # LightGBM compares x <= threshold in double precision
    assert np.array_equal(routed(trees, X), model.predict(X, pred_leaf=True).reshape(N, -1))
    assert split_counts(trees).tolist() == model.booster_.feature_importance("split").tolist()


@pytest.mark.parametrize("min_leaf", [20, N], ids=["trees", "single-leaf-trees"])
def test_lightgbm_booster(data, min_leaf):
    lgb = pytest.importorskip("lightgbm")
    X, y = data["X_nan"], data["regression"]
    params = {"num_leaves": 6, "min_data_in_leaf": min_leaf, "verbose": -1, "num_threads": 1}
    booster = lgb.train(params, lgb.Dataset(X, y), num_boost_round=3)
    trees = read_trees(booster)
    assert len(trees) == booster.num_trees() and all((t.n_nodes == 1) == (min_leaf == N) for t in trees)
    assert np.array_equal(routed(trees, X), booster.predict(X, pred_leaf=True))
    assert split_counts(trees).tolist() == booster.feature_importance("split").tolist()


@pytest.mark.parametrize("library", ["xgboost", "lightgbm"])
def test_categorical_splits_are_flagged_on_the_right_column(library):
    """A split on a set of categories has no threshold; its column is still the library's."""
    lib = pytest.importorskip(library)
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"a": rng.normal(size=N), "b": rng.normal(size=N),
                          "c": pd.Categorical(rng.integers(0, 6, N))})
    y = frame["a"] + 3 * frame["c"].cat.codes.isin([1, 3, 4])
    if library == "xgboost":
        model = lib.XGBRegressor(n_estimators=3, max_depth=3, enable_categorical=True, max_cat_to_onehot=1,
                                 n_jobs=1).fit(frame, y)
        weights = model.get_booster().get_score(importance_type="weight")
        counts = [weights.get(name, 0) for name in frame.columns]
    else:
        model = lib.LGBMRegressor(n_estimators=3, num_leaves=6, min_child_samples=5, min_data_per_group=5,
                                  cat_smooth=1, n_jobs=1, verbose=-1).fit(frame, y)
        counts = model.booster_.feature_importance("split").tolist()
    trees = read_trees(model)
    assert split_counts(trees, 3).tolist() == counts
    flagged = np.concatenate([t.feature[t.categorical] for t in trees])
    assert flagged.size and (flagged == 2).all()


# -- the extension point -----------------------------------------------------------------------

class ToyModel:
    """A model of a library the built-in readers do not know: a stump on column 1."""


class ToyReader(TreeReader):
    name = "toy"
    description = "toy models"

    def accepts(self, model):
        return isinstance(model, ToyModel)

    def read(self, model):
        return [TreeNodes([1, -1, -1], [2, -1, -1], [1, -1, -1], [0.5, 0, 0])]


@pytest.fixture
def readers_hook():
    """The ``register_tree_readers`` specification, added as the featurevec plugin adds it."""
    from interp_featurevec import hookspecs

    class Specs:
        @interp.hookimpl
        def add_hookspecs(self, pluginmanager):
            pluginmanager.add_hookspecs(hookspecs)

    spec = getattr(getattr(interp.plugin_manager().hook, HOOK, None), "spec", None)
    if spec is not None:  # the featurevec plugin added it
        yield
        return
    with registered(Specs(), "tree-reader-specs"):
        yield


def plugin_with(*readers):
    class Plugin:
        @interp.hookimpl
        def register_tree_readers(self, register):
            for reader in readers:
                register(reader)
    return Plugin()


def test_a_plugin_adds_a_reader_for_a_library_featurevec_does_not_know(readers_hook):
    with registered(plugin_with(ToyReader(), *([] if _featurevec_registers() else builtin_readers())), "toys"):
        (tree,) = read_trees(ToyModel())
        assert tree.feature.tolist() == [1, -1, -1] and tree.leaf_id.tolist() == [-1, 1, 2]
        assert len(read_trees(DecisionTreeClassifier(max_depth=1).fit([[0.0], [1.0]], [0, 1]))) == 1


def _featurevec_registers():
    """True once the featurevec plugin registers the built-in readers through the hook."""
    return any(impl.plugin_name == "featurevec" for impl in getattr(interp.plugin_manager().hook, HOOK,
                                                                    None).get_hookimpls())


def test_a_plugin_reader_is_tried_before_the_built_in_ones(readers_hook, data):
    takeover = TreeReader("all-stumps", accepts=lambda model: True, read=ToyReader().read)
    model = DecisionTreeClassifier(max_depth=3).fit(data["X"], data["binary"])
    with registered(plugin_with(takeover), "takeover"):
        assert [t.n_nodes for t in read_trees(model)] == [3]


def test_a_reader_returning_a_broken_tree_is_named():
    cycle = TreeReader("cyclic", accepts=lambda model: True,
                       read=lambda model: [TreeNodes([-1, 2, -1], [-1, 1, -1], [-1, 0, -1])])
    with pytest.raises(interp.PluginError, match="tree reader 'cyclic' returned an invalid tree 0: some node"):
        read_trees(ToyModel(), [cycle])


def test_a_reader_needs_both_methods():
    with pytest.raises(interp.PluginError, match="needs accepts"):
        TreeReader("half", accepts=lambda model: True)


# -- bad input ---------------------------------------------------------------------------------

def test_an_unsupported_model_gets_one_line_naming_it_and_the_supported_kinds(data):
    model = LogisticRegression().fit(data["X"], data["binary"])
    with pytest.raises(interp.InputError) as err:
        read_trees(model)
    message = str(err.value)
    assert "\n" not in message and "sklearn.LogisticRegression" in message
    assert all(kind in message for kind in ("XGBoost", "LightGBM", "HistGradientBoosting", "tree_"))


@pytest.mark.parametrize("module, cls", [("sklearn.ensemble", "RandomForestClassifier"),
                                         ("sklearn.ensemble", "HistGradientBoostingRegressor"),
                                         ("sklearn.tree", "DecisionTreeRegressor"),
                                         ("xgboost", "XGBClassifier"), ("lightgbm", "LGBMRegressor")])
def test_an_unfitted_model_is_bad_input(module, cls):
    model = getattr(pytest.importorskip(module), cls)()
    with pytest.raises(interp.InputError, match=f"{cls} is not fitted"):
        read_trees(model)


def test_a_bagged_non_tree_is_bad_input(data):
    from sklearn.ensemble import BaggingClassifier

    model = BaggingClassifier(LogisticRegression(), n_estimators=2).fit(data["X"], data["binary"])
    with pytest.raises(interp.InputError, match="holds a LogisticRegression, not a tree"):
        read_trees(model)


def test_reachability_ignores_dead_nodes_and_a_reader_is_found_by_type():
    assert reachable(np.array([1, -1, -1, -1]), np.array([2, -1, -1, -1])).tolist() == [True, True, True, False]
    assert find_reader(DecisionTreeClassifier(), builtin_readers()).name == "sklearn"


def test_reading_imports_no_tree_library_until_given_its_model():
    code = textwrap.dedent("""
        import sys
        import interp_featurevec.readers
        print(",".join(m for m in ("sklearn", "xgboost", "lightgbm", "pandas") if m in sys.modules))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
