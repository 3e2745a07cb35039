"""interp hooks: the ``featurevec`` method and the ``featurevec`` embedding."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from interp import Embedding, Explanation, InputError, Method, Option, hookimpl


def parse_depth(depth) -> int | str:
    """``--depth`` accepts an integer or "cv"."""
    if isinstance(depth, int) and not isinstance(depth, bool):
        return depth
    text = str(depth).strip().lower()
    if text == "cv":
        return "cv"
    try:
        return int(text)
    except ValueError:
        raise InputError(f"--depth must be an integer or 'cv', got {depth!r}") from None


def render_table(est, names) -> str:
    evr = est.explained_variance_ratio_
    lines = [
        f"Feature Vectors: {est.n_paths_} paths from {est.n_trees_} trees"
        + (f" of depth {est.max_depth_}" if est.max_depth_ is not None else "")
        + f", window {est.window}",
        f"explained variance (2-D): {100 * evr[0]:.1f}% + {100 * evr[1]:.1f}% = {100 * evr.sum():.1f}%",
        "",
    ]
    width = max([len("feature")] + [len(n) for n in names])
    lines.append(f"{'rank':>4}  {'feature':<{width}}  {'importance':>10}  {'angle':>7}")
    for rank, i in enumerate(est.ranking(), 1):
        lines.append(f"{rank:>4}  {names[i]:<{width}}  {est.importances_[i]:>10.4f}  {est.angles_[i]:>7.1f}")
    return "\n".join(lines)


def _run(data, ctx, *, paths=100_000, window=3, depth="3", plot=None, top_k=20, bootstrap=0):
    from .estimator import FeatureVectors

    if paths is None or paths < 1:
        raise InputError(f"--paths must be >= 1, got {paths}")
    if window is None or window < 1:
        raise InputError(f"--window must be >= 1, got {window}")
    if data.n_features < 2:
        raise InputError(f"Feature Vectors needs at least 2 features; {data.name!r} has {data.n_features}")
    if bootstrap is None or bootstrap < 0:
        raise InputError(f"--bootstrap must be >= 0, got {bootstrap}")
    model = getattr(ctx, "model", None)  # interp run --model-file: explain that ensemble's trees
    if model is not None:
        from .paths import ensemble_trees

        try:
            ensemble_trees(model)
        except TypeError as err:
            raise InputError(f"--model-file: {err}") from None
    est = FeatureVectors(n_paths=int(paths), window=int(window), max_depth=parse_depth(depth),
                         estimator=model, random_state=ctx.seed, n_jobs=ctx.n_jobs)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        est.fit(data.frame(), data.y)
    if est.cooccurrence_.nnz == 0:
        from .estimator import EMPTY_MESSAGE

        raise InputError(EMPTY_MESSAGE)
    names = list(data.feature_names)
    if bootstrap:
        est.bootstrap(int(bootstrap), random_state=ctx.seed)
    fig = est.plot(top_k=int(top_k))
    if plot:
        target = Path(plot)
        if target.parent and not target.parent.exists():
            raise InputError(f"--plot folder {str(target.parent)!r} does not exist")
        fig.savefig(target, dpi=150, bbox_inches="tight")
    ranked = [
        {
            "feature": names[i],
            "importance": float(est.importances_[i]),
            "angle": float(est.angles_[i]),
            "vector": [float(v) for v in est.embedding_[i]],
        }
        for i in est.ranking()
    ]
    payload = {
        "features": ranked,
        "explained_variance_ratio": est.explained_variance_ratio_,
        "singular_values": est.singular_values_,
        "n_trees": est.n_trees_,
        "n_paths": est.n_paths_,
        "task": est.task_,
        "sign_convention": "axis 1 sums positive; axis 2 largest-magnitude entry positive",
    }
    if bootstrap:
        spread = est.bootstrap_embeddings_
        ang = np.degrees(np.arctan2(spread[:, :, 1], spread[:, :, 0]))
        payload["bootstrap_angle_sd"] = {names[i]: float(ang[:, i].std()) for i in range(len(names))}
    return Explanation(
        params={"paths": int(paths), "window": int(window), "depth": est.max_depth_,
                "top_k": int(top_k), "bootstrap": int(bootstrap), "seed": ctx.seed},
        metrics={"explained_variance_2d": float(est.explained_variance_ratio_.sum()),
                 "n_trees": est.n_trees_, "n_paths": est.n_paths_},
        payload=payload,
        text=render_table(est, names),
        figures={"featurevec": fig},
        estimator=est,
    )


def _embed(model, X, y=None, *, window=3, n_paths=100_000, max_depth=3, random_state=None, n_jobs=None):
    """Embedding hook: (n_features, 2) Feature Vectors of ``model``'s trees, or of a new forest
    trained on (X, y) when ``model`` is None."""
    from .estimator import FeatureVectors

    est = FeatureVectors(n_paths=n_paths, window=window, max_depth=max_depth, estimator=model,
                         random_state=random_state, n_jobs=n_jobs)
    return est.fit(X, y).embedding_


class FeatureVectorsPlugin:
    """The built-in ``featurevec`` plugin (hooks as methods, so a downstream plugin can subclass it)."""

    @hookimpl
    def register_embeddings(self, register):
        register(Embedding(
            name="featurevec",
            embed=_embed,
            description="2-D truncated SVD of the co-occurrence of features on tree root-to-leaf paths",
        ))

    @hookimpl
    def register_methods(self, register):
        register(FEATUREVEC_METHOD)


FEATUREVEC_METHOD = Method(
    name="featurevec",
    summary="Feature Vectors: feature importance and semantics from tree-path co-occurrence",
    run=_run,
    task="any",
    options=(
        Option("paths", int, 100_000, "root-to-leaf paths to collect (trees are added until reached)"),
        Option("window", int, 3, "positions at distance <= window on a path co-occur"),
        Option("depth", str, "3", "tree depth, or 'cv' to choose it by cross-validation"),
        Option("plot", str, None, "write the Feature Vectors picture to this PNG file"),
        Option("top_k", int, 20, "label this many most important features in the plot"),
        Option("bootstrap", int, 0, "resample the trees this many times for uncertainty ellipses"),
    ),
)
