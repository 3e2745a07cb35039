"""The Feature Vectors picture in matplotlib (never calls ``show``)."""

from __future__ import annotations

import numpy as np


def plot_feature_vectors(embedding, names, *, ax=None, top_k: int = 20, bootstrap=None, explained=None,
                         title: str | None = None):
    """Points at the feature vectors, coloured by angle, on a half disc of guide circles.

    The first axis points up and the second to the right (so, with the sign convention of the
    "svd" embedding, all points lie in the upper half disc); a point's distance from the origin
    is its importance, its direction its "meaning".  The ``top_k`` most important features are
    labelled.  ``bootstrap`` (n_boot, d, 2) adds a 2-standard-deviation ellipse per labelled
    feature from the resampled embeddings.  ``explained`` (the explained variance ratios, or
    None) goes into the title.  Returns the Figure.
    """
    import matplotlib

    if ax is None:
        from matplotlib.figure import Figure

        fig = Figure(figsize=(8, 5.2))
        ax = fig.add_subplot(111)
    else:
        fig = ax.figure
    Z = np.asarray(embedding, dtype=float)
    xs, ys = Z[:, 1], Z[:, 0]  # second axis horizontal, first axis vertical
    angles = np.degrees(np.arctan2(Z[:, 1], Z[:, 0]))
    norms = np.hypot(xs, ys)
    r_max = max(float(norms.max()) if norms.size else 1.0, 1e-12)
    _guides(ax, r_max)
    labelled = np.argsort(-norms, kind="stable")[: max(0, int(top_k))]
    if bootstrap is not None and len(bootstrap):
        _ellipses(ax, np.asarray(bootstrap, dtype=float), labelled, xs, ys)
    lim = max(5.0, float(np.abs(angles).max()) if angles.size else 5.0)
    sc = ax.scatter(xs, ys, c=angles, cmap=matplotlib.colormaps["rainbow"], vmin=-lim, vmax=lim, s=36,
                    edgecolors="k", linewidths=0.4, zorder=2)
    _labels(ax, names, labelled, xs, ys, r_max)
    _frame(ax, ys, r_max)
    fig.colorbar(sc, ax=ax, shrink=0.6, label="angle (degrees)")
    head = title or "Feature Vectors"
    if explained is not None:
        head += f"  (2-D explained variance {100 * float(np.sum(explained)):.1f}%)"
    ax.set_title(head, fontsize=10)
    return fig


def _guides(ax, r_max: float) -> None:
    """Dotted half circles at 20%, 40%, ... of the largest norm and the horizontal axis."""
    t = np.linspace(0, np.pi, 200)
    for frac in np.linspace(0.2, 1.0, 5):
        ax.plot(r_max * frac * np.cos(t), r_max * frac * np.sin(t), ls=":", lw=0.8, color="0.7", zorder=0)
    ax.axhline(0, color="0.8", lw=0.6, zorder=0)


def _ellipses(ax, reps: np.ndarray, labelled, xs, ys) -> None:
    """A 2-standard-deviation ellipse of the bootstrap replicates around each labelled point."""
    from matplotlib.patches import Ellipse

    for i in labelled:
        pts = np.column_stack([reps[:, i, 1], reps[:, i, 0]])
        if pts.shape[0] < 2:
            continue
        vals, vecs = np.linalg.eigh(np.cov(pts, rowvar=False))
        vals = np.clip(vals, 0, None)
        width, height = 4 * np.sqrt(vals[1]), 4 * np.sqrt(vals[0])
        angle = np.degrees(np.arctan2(vecs[1, 1], vecs[0, 1]))
        ax.add_patch(Ellipse((xs[i], ys[i]), width, height, angle=angle, fill=False,
                             lw=0.8, color="0.45", zorder=1))


def _labels(ax, names, labelled, xs, ys, r_max: float) -> None:
    """Name the labelled points, bottom up, nudging a label up until clear of those placed."""
    placed: dict[bool, list[float]] = {True: [], False: []}  # label heights used, per side
    for i in sorted(labelled, key=lambda k: (ys[k], xs[k])):
        left = bool(xs[i] < 0)  # labels of points left of the axis go to the left
        lx = xs[i] + (-0.03 if left else 0.03) * r_max
        ly = ys[i]
        while any(abs(py - ly) < 0.05 * r_max for py in placed[left]):
            ly += 0.055 * r_max
        placed[left].append(ly)
        moved = ly - ys[i] > 0.03 * r_max
        ax.annotate(str(names[i]), (xs[i], ys[i]), xytext=(lx, ly), textcoords="data", fontsize=8,
                    ha="right" if left else "left", va="center", zorder=3,
                    arrowprops=dict(arrowstyle="-", lw=0.4, color="0.5") if moved else None)


def _frame(ax, ys, r_max: float) -> None:
    """Equal axes around the half disc, without ticks or spines."""
    pad = 1.1 * r_max
    ax.set_xlim(-pad, pad)
    ax.set_ylim(min(-0.05 * r_max, float(ys.min()) - 0.05 * r_max if ys.size else 0), pad)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    for side in ("top", "right", "left", "bottom"):
        ax.spines[side].set_visible(False)
