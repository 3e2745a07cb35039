"""The ``featurevec`` method: data set -> tree model -> ``FeatureVectors`` -> ``interp.Explanation``.

Which trees are explained:

* ``--model rf`` (the default): Feature Vectors grows its own random forest of shallow trees
  (``--depth``, default 3, or "cv") until it has ``--paths`` root-to-leaf paths;
* ``--model hgb | xgboost | lightgbm``: that library's gradient-boosted trees are trained on
  the data (``BOOSTED_ROUNDS`` rounds of depth ``--depth``, default ``BOOSTED_DEPTH``; the
  seed and ``--n-jobs`` passed on) and explained through ``FeatureVectors(estimator=model)``,
  which reads every tree of the model (``readers.read_trees``), so ``--paths`` does not apply;
* ``--model-file`` (with ``--trust-model-file``): the user's own fitted model, read the same way.

XGBoost and LightGBM are optional: each is imported only when chosen, and its absence is a
one-line InputError saying which extra to install.
"""

from __future__ import annotations

import importlib
import warnings
from pathlib import Path
from typing import Any

import attrs
import numpy as np

from interp import Explanation, Figure, InputError
from interp.plotting import check_figure_file
from interp.resources import ResourceError
from interp.studied import model_name

from . import render
from .estimator import DEPTH_GRID, EMPTY_MESSAGE, MAX_DEPTH, FeatureVectors, check_fit_memory
from .readers import available_readers, find_reader

RF_DEPTH = 3
#: the most paths the bootstrap replicates count in all (replicates x paths: each replicate counts
#: every path again), a few minutes on two cores
BOOTSTRAP_WORK = 10**8
BOOSTED_DEPTH = 6
#: the trees of the forest fitted to a model whose own trees cannot be read
SURROGATE_TREES = 100
BOOSTED_ROUNDS = 200
#: What ``--model`` trains besides "rf" (its choices are declared with the option in plugin.py):
#: the module and the classifier and regressor classes.
BOOSTED = {
    "hgb": ("sklearn.ensemble", "HistGradientBoostingClassifier", "HistGradientBoostingRegressor"),
    "xgboost": ("xgboost", "XGBClassifier", "XGBRegressor"),
    "lightgbm": ("lightgbm", "LGBMClassifier", "LGBMRegressor"),
}


@attrs.frozen
class Trees:
    """What Feature Vectors explains.

    ``kind`` is the ``--model`` choice ("file" for ``--model-file``), ``model`` the fitted tree
    model (None: Feature Vectors grows its own forest), ``label`` how the summary names it (None
    for the own forest) and ``depth`` the depth asked for (an int, or "cv" for the own forest).
    """

    kind: str
    model: Any
    label: str | None
    depth: int | str


def parse_depth(depth, default: int) -> int | str:
    """``--depth`` accepts an integer or "cv"; None (not given) is ``default``."""
    if depth is None:
        return default
    if isinstance(depth, int) and not isinstance(depth, bool):
        return depth
    text = str(depth).strip().lower()
    if text == "cv":
        return "cv"
    try:
        return int(text)
    except ValueError:
        raise InputError(f"--depth must be an integer or 'cv', got {depth!r}") from None


def _given_model(ctx):
    """The model given to explain (``interp.explain``, ``--model-file``), as the trees to read:
    the model itself, or the model a ``StudiedModel`` wraps when it reads interp's columns
    unchanged; None when none is given.  A model whose trees no reader reads is an
    InputError, unless it comes through ``interp.explain`` (a ``StudiedModel``), where the
    run grows a forest on its predictions instead (``choose_trees``).  Only the readers'
    ``accepts`` runs here: the trees are read once, by ``FeatureVectors.fit``."""
    model = getattr(ctx, "model", None)
    if model is None:
        return None
    inner = getattr(model, "model", None) if getattr(model, "same_columns", False) else None
    for candidate in (inner, model):
        if candidate is not None and _readable(candidate):
            return candidate
    if hasattr(model, "same_columns"):
        return model
    try:
        find_reader(model, available_readers())
    except InputError as err:
        raise InputError(f"--model-file: {err}") from None
    return model


def _readable(model) -> bool:
    try:
        find_reader(model, available_readers())
    except InputError:
        return False
    return True


def _library_class(kind: str, classification: bool):
    """The estimator class of ``--model kind``, importing its library only now."""
    module, classifier, regressor = BOOSTED[kind]
    try:
        lib = importlib.import_module(module)
    except ImportError:
        raise InputError(f"--model {kind} needs the {module} package: pip install \"interp[{kind}]\"") from None
    return getattr(lib, classifier if classification else regressor)


def boosted_model(kind: str, classification: bool, depth: int, seed, n_jobs):
    """An unfitted ``BOOSTED_ROUNDS``-round gradient-boosted model of ``kind`` with trees of
    depth <= ``depth`` (library defaults otherwise: learning rate 0.1, LightGBM's 31 leaves)."""
    cls = _library_class(kind, classification)
    params = {"max_depth": depth, "random_state": seed}
    if kind == "hgb":  # threads: OpenMP, no n_jobs
        return cls(max_iter=BOOSTED_ROUNDS, **params)
    if kind == "lightgbm":
        params["verbose"] = -1
    return cls(n_estimators=BOOSTED_ROUNDS, learning_rate=0.1, n_jobs=n_jobs, **params)


def train(kind: str, data, depth: int, ctx):
    """``boosted_model(kind, ...)`` fitted on ``data`` (class labels coded 0..K-1, as XGBoost needs)."""
    classification = data.task == "classification"
    y = np.unique(data.y, return_inverse=True)[1] if classification else np.asarray(data.y, dtype=np.float64)
    model = boosted_model(kind, classification, depth, ctx.seed, ctx.n_jobs)
    return model.fit(data.X, y)


def choose_trees(data, ctx, model: str | None, depth) -> Trees:
    """The trees to explain from ``--model``, ``--model-file`` and ``--depth``."""
    given = _given_model(ctx)
    if given is not None:
        if model is not None:
            raise InputError("--model trains a model and --model-file gives one; use one of them")
        if not _readable(given):
            return surrogate_forest(data, ctx, model_name(given.model), depth)
        return Trees("file", given, f"{model_name(given)}'s own trees", parse_depth(depth, RF_DEPTH))
    if model in (None, "rf"):
        return Trees("rf", None, None, parse_depth(depth, RF_DEPTH))
    chosen = parse_depth(depth, BOOSTED_DEPTH)
    if chosen == "cv" or not 2 <= chosen <= 12:
        raise InputError(f"--depth must be an integer in 2..12 for --model {model} (paths need 2 splits "
                         f"to co-occur; 'cv' tunes the rf forest only), got {depth!r}")
    fitted = train(model, data, chosen, ctx)
    return Trees(model, fitted, f"{type(fitted).__name__} ({BOOSTED_ROUNDS} rounds of depth <= {chosen}, "
                                f"trained here)", chosen)


def surrogate_forest(data, ctx, name: str, depth) -> Trees:
    """For a model whose trees no reader reads: a scikit-learn random forest of
    ``SURROGATE_TREES`` trees (depth ``--depth``, default ``BOOSTED_DEPTH``) fitted to the
    model's answers, which ``interp.explain`` gives as the target, so that the map reads trees
    that predict, and how closely they follow the model can be measured."""
    from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

    chosen = parse_depth(depth, BOOSTED_DEPTH)
    if chosen == "cv" or not 2 <= chosen <= 12:
        raise InputError(f"--depth must be an integer in 2..12 for a forest fitted to a model, got {depth!r}")
    cls = RandomForestClassifier if data.task == "classification" else RandomForestRegressor
    forest = cls(n_estimators=SURROGATE_TREES, max_depth=chosen, random_state=ctx.seed, n_jobs=ctx.n_jobs)
    forest.fit(data.frame(), data.y)
    return Trees("surrogate", forest, f"a random forest of {SURROGATE_TREES} trees of depth <= {chosen} fitted to "
                                      f"{name}'s answers (its own trees cannot be read)", chosen)


def _effects(trees: Trees, data):
    """What a larger value of each feature does to the output of the model explained
    (``render.effects``), on the data as the model was fitted on it (a DataFrame of its columns
    in its order when it knows their names), in the order of the data's features; a model
    trained here has the classes coded 0..K-1 (``train``)."""
    model = trees.model
    classes = data.classes if trees.kind in BOOSTED else None
    fitted_on = getattr(model, "feature_names_in_", None)
    if fitted_on is None:
        return render.effects(model, data.X, classes=classes)
    found = render.effects(model, data.frame()[list(fitted_on)], classes=classes)  # its columns, in its order
    if found is None:
        return None
    by_name = dict(zip(fitted_on, found.words))
    return attrs.evolve(found, words=tuple(by_name.get(name, "no change") for name in data.feature_names))


def _save(fig, plot: str) -> None:
    check_figure_file(plot, "--plot")
    try:
        fig.savefig(Path(plot), dpi=150, bbox_inches="tight")
    except OSError as err:
        raise InputError(f"cannot write --plot {plot!r}: {err.strerror or err}") from None


def _check_resources(data, ctx, paths: int, depth, model, bootstrap: int) -> None:
    """One-line ResourceErrors before any work: the memory of the forest grown to ``paths``
    paths (the rf forest; the trees of a model are its own) and of the replicates, and the
    work of ``bootstrap`` replicates, each of which counts every path again (at most
    :data:`BOOTSTRAP_WORK` paths in all)."""
    given = _given_model(ctx)
    own = model in (None, "rf") and (given is None or not _readable(given))
    levels = parse_depth(depth, RF_DEPTH) if own else 0
    levels = max(DEPTH_GRID) if levels == "cv" else min(levels, MAX_DEPTH)  # a bad depth: refused by the fit
    check_fit_memory(paths if own else 0, bootstrap, depth=levels, n_features=data.n_features,
                     advice={"n_paths": "lower --paths or --depth", "n_boot": "lower --bootstrap"})
    if own and bootstrap * paths > BOOTSTRAP_WORK:
        raise ResourceError(f"--bootstrap {bootstrap:,} re-counts the {paths:,} paths {bootstrap:,} times, "
                            f"{bootstrap * paths:.2g} paths in all, beyond the bound of {BOOTSTRAP_WORK:.0e}: at most "
                            f"{BOOTSTRAP_WORK // paths:,} replicates fit at this --paths")


def run(data, ctx, *, paths, window, depth, embedding, embedding_params, plot, top_k, bootstrap, model):
    """Fit Feature Vectors on the trees ``choose_trees`` picks and explain it.

    Eleven parameters because the method contract fixes them: the core calls
    ``run(data, ctx, **options)`` with one keyword per ``Option`` of ``FEATUREVEC_METHOD``
    (eight, and ``embedding_params``, the chosen embedding's parameters), where their defaults,
    bounds and choices are declared once and already checked and filled in; bundling them into
    a record here would only restate that declaration.  The core records them as the
    explanation's ``params``; the run adds the trees' kind and depth it resolved.
    """
    if data.n_features < 2:
        raise InputError(f"Feature Vectors needs at least 2 features; {data.name!r} has {data.n_features}")
    _check_resources(data, ctx, paths, depth, model, bootstrap)
    if plot:
        check_figure_file(plot, "--plot")
    trees = choose_trees(data, ctx, model, depth)
    est = FeatureVectors(n_paths=paths, window=window, max_depth=trees.depth, embedding=embedding,
                         embedding_params=embedding_params, estimator=trees.model, random_state=ctx.seed,
                         n_jobs=ctx.n_jobs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # no co-occurrence: an InputError below
        est.fit(data.frame(), data.y)
    if est.cooccurrence_.nnz == 0:
        raise InputError(EMPTY_MESSAGE)
    if bootstrap:
        est.bootstrap(bootstrap, random_state=ctx.seed)
    fig = est.plot(top_k=top_k)
    if plot:
        _save(fig, plot)
    names = list(data.feature_names)
    effect = _effects(trees, data)
    return Explanation(
        params={"model": trees.kind, "depth": trees.depth if trees.kind in (*BOOSTED, "surrogate") else est.max_depth_},
        metrics=render.metrics(est),
        payload=render.payload(est, names),
        sections=[render.summary(est, trees.label), Figure("featurevec", title="Feature Vectors"),
                  render.reading(effect, kept_model=trees.model is not None), render.ranking(est, names, effect)],
        figures={"featurevec": fig},
        estimator=est,
        **render.headline(est, names),
    )
