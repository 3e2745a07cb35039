"""What a person reads from a fitted ``FeatureVectors``: summary, ranking table, JSON payload.

The picture itself is drawn by ``plots.plot_feature_vectors``.
"""

from __future__ import annotations

import numpy as np

from interp import Table, Text

from .embedding import SIGN_CONVENTION, CooccurrenceSVD


def summary(est, model: str | None = None) -> Text:
    """Where the vectors come from (paths, trees, window, embedding; ``model`` names the model
    explained when Feature Vectors did not grow its own forest) and how much they explain."""
    depth = f" of depth {est.max_depth_}" if est.max_depth_ is not None else ""
    of = f" of {model}" if model else ""
    lines = [f"Feature Vectors{of}: {est.n_paths_} paths from {est.n_trees_} trees{depth}, window {est.window}, "
             f"embedding {est.embedder_.name}"]
    evr = est.explained_variance_ratio_
    if evr is None:
        lines.append(f"explained variance: not given by embedding {est.embedder_.name!r}")
    else:
        lines.append(f"explained variance (2-D): {100 * evr[0]:.1f}% + {100 * evr[1]:.1f}% "
                     f"= {100 * evr.sum():.1f}%")
    return Text("\n".join(lines))


def ranking(est, names) -> Table:
    """Features by decreasing importance, with their angles (degrees)."""
    rows = [(rank, names[i], float(est.importances_[i]), float(est.angles_[i]))
            for rank, i in enumerate(est.ranking(), 1)]
    return Table(("rank", "feature", "importance", "angle"), rows, formats=("", "", ".4f", ".1f"))


def metrics(est) -> dict:
    """The run's numbers: 2-D explained variance (when the embedding gives it), trees, paths."""
    out = {}
    if est.explained_variance_ratio_ is not None:
        out["explained_variance_2d"] = float(est.explained_variance_ratio_.sum())
    out["n_trees"] = est.n_trees_
    out["n_paths"] = est.n_paths_
    return out


def headline(est, names) -> dict:
    """The report's summary of a map: how many features the trees use, the longest vector and
    the two used features whose vectors point closest together."""
    used = [i for i in est.ranking() if est.importances_[i] > 0]
    if not used:
        return {"size": f"0 of {len(names)} features used", "finding": "the trees use no feature"}
    finding = f"most important: {names[used[0]]}"
    if len(used) >= 2:
        top = used[:10]
        angle = np.radians(np.asarray(est.angles_)[top])
        gap = np.abs(np.angle(np.exp(1j * (angle[:, None] - angle[None, :]))))
        gap[np.diag_indices(len(top))] = np.inf
        i, j = np.unravel_index(np.argmin(gap), gap.shape)
        finding += f"; closest pair: {names[top[i]]} and {names[top[j]]} ({np.degrees(gap[i, j]):.0f} degrees apart)"
    return {"size": f"{len(used)} of {len(names)} features used", "finding": finding}


def payload(est, names) -> dict:
    """Every feature's importance, angle and vector, and what the fit used (JSON values)."""
    out = {
        "features": [
            {"feature": names[i], "importance": float(est.importances_[i]), "angle": float(est.angles_[i]),
             "vector": [float(v) for v in est.embedding_[i]]}
            for i in est.ranking()
        ],
        "explained_variance_ratio": est.explained_variance_ratio_,
        "singular_values": est.singular_values_,
        "n_trees": est.n_trees_,
        "n_paths": est.n_paths_,
        "task": est.task_,
        "embedding": est.embedder_.name,
    }
    if isinstance(est.embedder_, CooccurrenceSVD):
        out["sign_convention"] = SIGN_CONVENTION
    spread = getattr(est, "bootstrap_embeddings_", None)
    if spread is not None:
        ang = np.degrees(np.arctan2(spread[:, :, 1], spread[:, :, 0]))
        out["bootstrap_angle_sd"] = {names[i]: float(ang[:, i].std()) for i in range(len(names))}
    return out


def vectors_frame(est):
    """Every feature's vector as a DataFrame, by decreasing length: ``name``, ``x`` and ``y``
    (the vector), ``length`` (its norm, the importance; the longest is 1) and ``angle`` (degrees,
    ``atan2(y, x)``)."""
    import pandas as pd

    names = est.feature_names()
    order = est.ranking()
    return pd.DataFrame({"name": [names[i] for i in order], "x": est.embedding_[order, 0],
                         "y": est.embedding_[order, 1], "length": est.importances_[order],
                         "angle": est.angles_[order]})


def estimator_display(est):
    """A fitted ``FeatureVectors`` in a notebook (``interp.display``): where the vectors come
    from, the features ranked by importance, and the map of the vectors."""
    from interp import Figure
    from interp.display import Display

    sections = [summary(est), ranking(est, est.feature_names()),
                Figure("map", title="Feature vectors: length = importance, angle = which features act together")]
    return Display(f"FeatureVectors of {est.n_features_in_} features", sections, {"map": est.plot()})
