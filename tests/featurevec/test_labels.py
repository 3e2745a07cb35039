"""The picture stays readable with 50 features: label boxes never overlap."""

import itertools

import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from sklearn.datasets import make_classification

from interp_featurevec import FeatureVectors
from interp_featurevec.plots import plot_feature_vectors

NAMES = [f"feature number {i}" for i in range(50)]


@pytest.fixture(scope="module")
def fifty():
    X, y = make_classification(n_samples=600, n_features=50, n_informative=12, n_redundant=10, random_state=0)
    return FeatureVectors(n_paths=20_000, random_state=0).fit(pd.DataFrame(X, columns=NAMES), y)


def _rendered(fig, dpi=None):
    """Each label's box, the axes', the title's and the colorbar's, in pixels as Agg draws them
    (at ``dpi`` when given)."""
    if dpi is not None:
        fig.set_dpi(dpi)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    ax, colorbar = fig.axes
    others = [ax.title.get_window_extent(renderer), colorbar.get_tightbbox(renderer)]
    return [t.get_window_extent(renderer) for t in ax.texts], ax.get_window_extent(renderer), others


def _overlapping(boxes, others=()):
    """Index pairs of overlapping boxes (``others``: against those, index -1)."""
    def overlap(a, b):
        return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1

    pairs = [(i, j) for i, j in itertools.combinations(range(len(boxes)), 2) if overlap(boxes[i], boxes[j])]
    return pairs + [(i, -1) for i, b in enumerate(boxes) for o in others if overlap(b, o)]


def _assert_readable(fig, dpi=None):
    """No two labels overlap, none covers the title or the colorbar, all inside the figure and
    no higher or lower than the axes."""
    boxes, frame, others = _rendered(fig, dpi)
    assert _overlapping(boxes, others) == []
    whole = fig.bbox
    for box in boxes:
        assert whole.x0 <= box.x0 and box.x1 <= whole.x1 and frame.y0 - 1 <= box.y0 and box.y1 <= frame.y1 + 1
    return boxes


def test_the_overlap_check_sees_overlaps():
    from matplotlib.transforms import Bbox

    a, b, c = Bbox([[0, 0], [10, 5]]), Bbox([[9, 4], [20, 8]]), Bbox([[10, 0], [15, 5]])
    assert _overlapping([a, b, c]) == [(0, 1), (1, 2)]  # touching edges (a, c) do not overlap


@pytest.mark.parametrize("top_k", [20, 50])
def test_fifty_features_labels_do_not_overlap(fifty, top_k):
    fig = fifty.plot(top_k=top_k)
    boxes = _assert_readable(fig)
    ax = fig.axes[0]
    drawn = [t.get_text() for t in ax.texts]
    wanted = [NAMES[i] for i in fifty.ranking()[:top_k]]
    assert drawn == [name for name in wanted if name in drawn]  # most important first
    assert len(boxes) == top_k or f"{top_k - len(boxes)} of {top_k} labels left out" in ax.get_title()
    assert len(boxes) >= 20


def test_crowded_points_keep_labels_apart_at_another_dpi():
    rng = np.random.default_rng(0)
    Z = np.column_stack([0.5 + 0.05 * rng.random(50), 0.1 * rng.random(50)])  # 49 points on top of each other
    Z[0] = [1.0, 0.0]
    fig = plot_feature_vectors(Z, NAMES, top_k=50)
    first = _assert_readable(fig)
    assert len(first) >= 30
    _assert_readable(fig, dpi=150)  # as the CLI saves it


def test_labels_left_out_when_there_is_no_room():
    Z = np.column_stack([np.linspace(1.0, 0.9, 50), np.zeros(50)])
    names = [f"a long feature name that takes room in the picture {i}" for i in range(50)]
    fig = plot_feature_vectors(Z, names, top_k=50)
    boxes = _assert_readable(fig)
    title = fig.axes[0].get_title()
    assert 0 < len(boxes) < 50
    assert f"{50 - len(boxes)} of 50 labels left out for lack of room (see the ranking table)" in title
