"""What a person reads from a fitted ``FeatureVectors``: summary, ranking table, JSON payload.

The picture itself is drawn by ``plots.plot_feature_vectors``.
"""

from __future__ import annotations

import attrs
import numpy as np

from interp import Table, Text
from interp.preprocessing import class_name

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


def reading(effect: "Effects | None" = None, kept_model: bool = False) -> Text:
    """How a person reads the map, under it: what length and angle mean, and where the table
    says what a larger value does to the output (``effect``, `effects`); without it, why not
    (``kept_model``: there was a model, but no one output to ask)."""
    text = ("How to read the map: each feature the model uses is a point. Its length (distance from the centre) "
            "is its importance, how often it lies on the model's tree paths (the longest is 1). Its angle places "
            "it among the others: features at close angles lie close together on the same paths (the model uses "
            "them together), features far apart in angle are used apart. Neither says whether a larger value "
            "raises or lowers the model's output: ")
    if effect is not None:
        text += (f"the table's last column does, for {effect.output} (the mean over the data when the feature "
                 f"moves from its 25th to its 75th percentile).")
    elif kept_model:
        text += "not shown, as the model gives no one output to ask (no predict, or more than two classes)."
    else:
        text += ("not shown, as the forest grown here keeps only its paths (explain a fitted model, --model "
                 "or --model-file, to see it).")
    return Text(text)


def unused(est) -> np.ndarray:
    """The indices of the features on none of the model's paths (a zero vector: no length, no
    angle), in column order."""
    return np.flatnonzero(~(np.linalg.norm(est.embedding_, axis=1) > 0))


def ranking(est, names, effect: "Effects | None" = None) -> Table:
    """The features the model uses, by decreasing importance, with their angles (degrees) and,
    given ``effect`` (`effects`), what a larger value does to the model's output; then the
    unused ones, marked so."""
    idle = set(unused(est).tolist())
    said = (lambda i: (effect.words[i],)) if effect is not None else (lambda i: ())
    rows = [(rank, names[i], float(est.importances_[i]), float(est.angles_[i]), *said(i))
            for rank, i in enumerate((i for i in est.ranking() if i not in idle), 1)]
    rows += [("", names[i], 0.0, "unused", *("unused",) * (effect is not None)) for i in sorted(idle)]
    columns = ("rank", "feature", "importance", "angle") + ((f"larger value: {effect.output}",) if effect else ())
    return Table(columns, rows, formats=("", "", ".4f", ".1f", "")[:len(columns)])


@attrs.frozen
class Effects:
    """What a larger value of each feature does to the model's ``output`` ("P(yes)", "the
    prediction"): ``words[j]`` is "raises", "lowers" or "no change"."""

    output: str
    words: tuple[str, ...]


def effects(model, X, classes=None, max_rows: int = 500) -> Effects | None:
    """What moving each feature from its 25th to its 75th percentile (every other feature as in
    the first ``max_rows`` rows of ``X``) does to the model's mean output: ``predict`` of a
    regressor, the probability of the second class of a binary classifier (named from
    ``classes``, default the model's ``classes_``).  None when the model gives no one output
    to follow (no model, none it can ask, or more than two classes).  One prediction of
    2 x n_features x ``max_rows`` rows."""
    known = getattr(model, "classes_", None)
    answers = hasattr(model, "predict_proba") if known is not None else hasattr(model, "predict")
    if model is None or not answers or (known is not None and len(known) != 2):
        return None
    if known is not None:
        output, label = (lambda Z: model.predict_proba(Z)[:, 1]), f"P({class_name((known if classes is None else classes)[1])})"
    else:
        output, label = model.predict, "the prediction"
    rows = X.iloc[:max_rows] if hasattr(X, "iloc") else np.asarray(X)[:max_rows]
    values = np.asarray(rows, dtype=float)
    n, d = values.shape
    quartiles = np.percentile(values, [25, 75], axis=0)  # (2, d)
    moved = np.tile(values, (2 * d, 1))  # block 2j + i: feature j at quartile i, the rest as they are
    for j in range(d):
        for i in (0, 1):
            moved[(2 * j + i) * n:(2 * j + i + 1) * n, j] = quartiles[i, j]
    if hasattr(rows, "iloc"):  # a model fitted on named columns is asked with them
        moved = type(rows)(moved, columns=rows.columns)
    means = np.asarray(output(moved), dtype=float).reshape(d, 2, n).mean(axis=2)  # one call: one model overhead
    words = ["raises" if hi > lo else "lowers" if hi < lo else "no change" for lo, hi in means]
    return Effects(label, tuple(words))


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

    sections = [summary(est), Figure("map", title="Feature vectors: length = importance, angle = which features act "
                                                 "together"),
                reading(kept_model=est.estimator is not None), ranking(est, est.feature_names())]
    return Display(f"FeatureVectors of {est.n_features_in_} features", sections, {"map": est.plot()})
