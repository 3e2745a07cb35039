"""The Feature Vectors picture in matplotlib (never calls ``show``).

Labels are placed so that they never overlap, however many features are labelled: once the
figure's layout is final, every label is measured (its box in pixels) and, most important
feature first, put at the first free spot beside its point (the side away from the vertical
axis first, then the other side, then further up or down with a leader line) that overlaps no
label placed before, no colorbar and, when possible, no other point.  A label that finds no
free spot is left out and the title says how many were; the ranking table of the explanation
lists every feature.
"""

from __future__ import annotations

import attrs
import numpy as np

LABEL_FONTSIZE = 8
LABEL_GAP = 4.0  # pixels between a point and its label (at the figure's dpi)
LABEL_PAD = 2.0  # pixels kept free around every label box
MARKER_SIZE = 36  # points**2 (scatter ``s``)


def plot_feature_vectors(embedding, names, *, ax=None, top_k: int = 20, bootstrap=None, explained=None,
                         title: str | None = None):
    """Points at the feature vectors, coloured by angle, on a half disc of guide circles.

    The first axis points up and the second to the right (so, with the sign convention of the
    "svd" embedding, all points lie in the upper half disc); a point's distance from the origin
    is its importance, its direction its "meaning".  A feature with a zero vector (on no path
    of the model) is not drawn, since it has no direction, and the title lists it as unused; the
    colours span the angles of the drawn points only.  The ``top_k`` most important features are
    labelled, without overlaps (see the module docstring).  ``bootstrap`` (n_boot, d, 2) adds a
    2-standard-deviation ellipse per labelled feature from the resampled embeddings.
    ``explained`` (the explained variance ratios, or None) goes into the title.  Returns the
    Figure.
    """
    import matplotlib
    from interp.plotting import figure, literal_text

    if ax is None:
        fig = figure(figsize=(8, 5.2))
        ax = fig.add_subplot(111)
    else:
        fig = ax.figure
    with literal_text():  # names are drawn as written, on a figure the caller gave too
        Z = np.asarray(embedding, dtype=float)
        used = np.hypot(Z[:, 0], Z[:, 1]) > 0  # a feature on no path has no vector: not drawn, listed
        idle = [str(names[i]) for i in np.flatnonzero(~used)]
        names = [names[i] for i in np.flatnonzero(used)]
        Z = Z[used]
        bootstrap = None if bootstrap is None or not len(bootstrap) else np.asarray(bootstrap, dtype=float)[:, used]
        xs, ys = Z[:, 1], Z[:, 0]  # second axis horizontal, first axis vertical
        angles = np.degrees(np.arctan2(Z[:, 1], Z[:, 0]))
        norms = np.hypot(xs, ys)
        r_max = max(float(norms.max()) if norms.size else 1.0, 1e-12)
        _guides(ax, r_max)
        labelled = np.argsort(-norms, kind="stable")[: max(0, int(top_k))]
        if bootstrap is not None and len(bootstrap):
            _ellipses(ax, np.asarray(bootstrap, dtype=float), labelled, xs, ys)
        lim = max(5.0, float(np.abs(angles).max()) if angles.size else 5.0)
        sc = ax.scatter(xs, ys, c=angles, cmap=matplotlib.colormaps["rainbow"], vmin=-lim, vmax=lim, s=MARKER_SIZE,
                        edgecolors="k", linewidths=0.4, zorder=2)
        _frame(ax, ys, r_max)
        cbar = fig.colorbar(sc, ax=ax, shrink=0.6, label="angle (degrees)")
        head = title or "Feature Vectors"
        if explained is not None:
            head += f"  (2-D explained variance {100 * float(np.sum(explained)):.1f}%)"
        left_out = place_labels(ax, [str(names[i]) for i in labelled], xs[labelled], ys[labelled],
                                points=np.column_stack([xs, ys]), avoid=[cbar.ax])
        if left_out:
            head += f"\n{left_out} of {len(labelled)} labels left out for lack of room (see the ranking table)"
        if idle:
            head += f"\nunused by the model (not drawn): {_listed(idle)}"
        ax.set_title(head, fontsize=10)
    return fig


def _listed(names: list[str], most: int = 6) -> str:
    """``a, b, c`` or ``a, b, c and 4 more``."""
    shown = ", ".join(names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


@attrs.frozen(eq=False)
class _Boxes:
    """Axis-aligned boxes in pixels, one row each: x0, y0, x1, y1."""

    xyxy: np.ndarray

    def hits(self, boxes: np.ndarray) -> np.ndarray:
        """For each row of ``boxes`` (m, 4): does it overlap any of these boxes?"""
        if self.xyxy.size == 0 or boxes.size == 0:
            return np.zeros(boxes.shape[0], dtype=bool)
        a, b = boxes[:, None, :], self.xyxy[None, :, :]
        return ((a[..., 0] < b[..., 2]) & (a[..., 2] > b[..., 0])
                & (a[..., 1] < b[..., 3]) & (a[..., 3] > b[..., 1])).any(axis=1)


def _renderer(fig):
    """A renderer that measures text as the Agg backend draws it at the figure's dpi."""
    get = getattr(fig.canvas, "get_renderer", None)
    if get is not None:
        return get()
    from matplotlib.backends.backend_agg import RendererAgg

    return RendererAgg(int(fig.bbox.width), int(fig.bbox.height), fig.dpi)


def _candidates(px: float, py: float, w: float, h: float, right_first: bool, reach: tuple[float, float]):
    """Boxes (m, 4) for a w x h label beside the point (px, py), nearest spots first, with the
    side (True: right of the point) of each.

    A label sits on either side of its point, shifted outwards by steps of w / 4 and up or down
    by steps of h / 2 up to ``reach`` (x, y) pixels; spots are ordered by their distance from
    the point, the preferred side first among equals.
    """
    dx = np.arange(0.0, reach[0], 0.25 * w)
    k = np.arange(1, int(reach[1] / (0.5 * h)) + 1) * (0.5 * h)
    dy = np.concatenate([[0.0], np.column_stack([k, -k]).ravel()])
    gx, gy = (a.ravel() for a in np.meshgrid(dx, dy))
    rows, sides, costs = [], [], []
    for right in (right_first, not right_first):
        x0 = px + LABEL_GAP + gx if right else px - LABEL_GAP - gx - w
        y0 = py + gy - h / 2
        rows.append(np.column_stack([x0, y0, x0 + w, y0 + h]))
        sides.append(np.full(gx.size, right))
        near_x = np.maximum(0.0, np.maximum(x0 - px, px - (x0 + w)))
        near_y = np.maximum(0.0, np.abs(gy) - h / 2)
        costs.append(np.hypot(near_x, near_y) + (0.0 if right == right_first else 1e-6))
    order = np.argsort(np.concatenate(costs), kind="stable")
    return np.concatenate(rows)[order], np.concatenate(sides)[order]


def _free_spot(boxes: np.ndarray, region, taken: _Boxes, markers: _Boxes) -> int | None:
    """The first of ``boxes`` inside ``region`` that keeps ``LABEL_PAD`` pixels from every box
    ``taken``, preferring the first that also covers none of ``markers``; None if none fits."""
    padded = boxes + np.array([-LABEL_PAD, -LABEL_PAD, LABEL_PAD, LABEL_PAD])
    ok = ((boxes[:, 0] >= region.x0) & (boxes[:, 2] <= region.x1)
          & (boxes[:, 1] >= region.y0) & (boxes[:, 3] <= region.y1) & ~taken.hits(padded))
    clear = ok & ~markers.hits(boxes)
    choice = np.flatnonzero(clear if clear.any() else ok)
    return int(choice[0]) if choice.size else None


def place_labels(ax, labels, lx, ly, *, points=None, avoid=()) -> int:
    """Write ``labels`` at the points (lx, ly) (data coordinates) of ``ax`` without overlaps.

    Call it when the layout of the figure is final (axes positions, limits, aspect).  Labels are
    placed in the order given; each goes to the first candidate spot (``_candidates``) inside
    the figure, no higher or lower than the axes, that overlaps no label already placed and no
    axes in ``avoid`` (with their tick labels), preferring spots that also leave ``points``
    (data coordinates, all the markers) uncovered; a label moved away from its point gets a
    thin leader line.  Returns how many labels found no spot (they are not drawn).
    """
    from matplotlib.collections import LineCollection
    from matplotlib.transforms import Bbox

    from interp.plotting import shown_text

    fig = ax.figure
    ax.apply_aspect()
    renderer = _renderer(fig)
    to_px = ax.transData
    radius = 0.5 * np.sqrt(MARKER_SIZE) * fig.dpi / 72.0
    pts = to_px.transform(np.asarray(points, dtype=float)) if points is not None else np.empty((0, 2))
    markers = _Boxes(np.column_stack([pts - radius, pts + radius]))
    blocked = [b.get_tightbbox(renderer).extents for b in avoid]
    # labels stay between the bottom and the top of the axes (clear of the title) and may use
    # the figure's width, except where the axes in ``avoid`` (the colorbar) are
    region = Bbox.from_extents(fig.bbox.x0, ax.bbox.y0, fig.bbox.x1, ax.bbox.y1)
    placed = []
    leaders = []
    left_out = 0
    for name, x, y in zip(labels, lx, ly):
        px, py = to_px.transform((x, y))
        text = ax.annotate(shown_text(name), (x, y), xytext=(x, y), textcoords="data", fontsize=LABEL_FONTSIZE,
                           va="center", zorder=3)  # .xy: the point it names
        bb = text.get_window_extent(renderer)
        boxes, sides = _candidates(px, py, bb.width, bb.height, right_first=px >= to_px.transform((0, 0))[0],
                                   reach=(0.5 * region.width, region.height))
        c = _free_spot(boxes, region, _Boxes(np.array(placed + blocked).reshape(-1, 4)), markers)
        if c is None:
            text.remove()
            left_out += 1
            continue
        box, right = boxes[c], bool(sides[c])
        anchor = (box[0] if right else box[2], (box[1] + box[3]) / 2)
        text.set_position(to_px.inverted().transform(anchor))
        text.set_horizontalalignment("left" if right else "right")
        placed.append(box)
        if abs(anchor[1] - py) > 0.5 * bb.height or abs(anchor[0] - px) > LABEL_GAP + 0.5:
            leaders.append(to_px.inverted().transform([(px, py), anchor]))
    if leaders:
        ax.add_collection(LineCollection(leaders, colors="0.5", linewidths=0.4, zorder=1), autolim=False)
    return left_out


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
