"""The ``featurevec`` method: data set -> ``FeatureVectors`` -> ``interp.Explanation``."""

from __future__ import annotations

import warnings
from pathlib import Path

from interp import Explanation, Figure, InputError

from . import render
from .estimator import EMPTY_MESSAGE, FeatureVectors
from .paths import ensemble_trees


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


def _given_model(ctx):
    """The ensemble of ``interp run --model-file``, checked to have trees (None when not given)."""
    model = getattr(ctx, "model", None)
    if model is not None:
        try:
            ensemble_trees(model)
        except TypeError as err:
            raise InputError(f"--model-file: {err}") from None
    return model


def _save(fig, plot: str) -> None:
    target = Path(plot)
    if target.parent and not target.parent.exists():
        raise InputError(f"--plot folder {str(target.parent)!r} does not exist")
    fig.savefig(target, dpi=150, bbox_inches="tight")


def run(data, ctx, *, paths, window, depth, embedding, plot, top_k, bootstrap):
    """Fit Feature Vectors on ``data`` (or on the trees of ``--model-file``) and explain it.

    One keyword per option of ``FEATUREVEC_METHOD`` (the method contract), where their
    defaults and bounds are declared once; the core has already checked and filled them in.
    """
    if data.n_features < 2:
        raise InputError(f"Feature Vectors needs at least 2 features; {data.name!r} has {data.n_features}")
    est = FeatureVectors(n_paths=paths, window=window, max_depth=parse_depth(depth), embedding=embedding,
                         estimator=_given_model(ctx), random_state=ctx.seed, n_jobs=ctx.n_jobs)
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
    return Explanation(
        params={"paths": paths, "window": window, "depth": est.max_depth_, "embedding": est.embedder_.name,
                "top_k": top_k, "bootstrap": bootstrap, "seed": ctx.seed},
        metrics=render.metrics(est),
        payload=render.payload(est, names),
        sections=[render.summary(est), render.ranking(est, names), Figure("featurevec", title="Feature Vectors")],
        figures={"featurevec": fig},
        estimator=est,
    )
