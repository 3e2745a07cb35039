"""Root-to-leaf paths ("sentences") of tree ensembles and their co-occurrence counts.

Everything here works on the flat arrays of fitted trees (``children_left``, ``children_right``,
``feature``, as scikit-learn's ``tree_`` holds them and ``readers.read_trees`` returns them): the
nodes of all trees are stacked into one array and paths are walked upwards one depth level at a
time for all leaves at once, so the cost is a handful of numpy operations per depth level, never
a Python loop per node.

Co-occurrence rule (the one this package uses everywhere): a sentence ``s`` of length ``L`` is
the list of features split on from the root down to a leaf.  For every pair of positions
``p != q`` with ``|p - q| <= window`` the count ``M[s[p], s[q]]`` goes up by one.  Each unordered
pair of positions therefore adds 1 to ``M[i, j]`` and 1 to ``M[j, i]``; when the same feature
sits at both positions (``i == j``) both additions land on the diagonal, so ``M[i, i]`` goes up
by 2.  ``M`` is symmetric, ``M = C + C.T`` where ``C`` counts the ordered pairs (earlier,
later).  Sentences shorter than ``window + 1`` simply count all their pairs; a sentence of length
0 or 1 has none.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np
import scipy.sparse as sp

__all__ = ["tree_arrays", "extract_paths", "cooccurrence", "sentences"]


def tree_arrays(trees: Iterable) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Stack the trees' (children_left, children_right, feature) with global node ids.

    Leaves have children -1 and feature -1 (scikit-learn marks leaf features with -2).  The
    fourth array gives the tree index of every node.
    """
    lefts, rights, feats, owners = [], [], [], []
    offset = 0
    for tree in trees:  # one loop per tree, over arrays
        left = np.asarray(tree.children_left if hasattr(tree, "children_left") else tree[0])
        right = np.asarray(tree.children_right if hasattr(tree, "children_right") else tree[1])
        feat = np.asarray(tree.feature if hasattr(tree, "feature") else tree[2])
        leaf = left < 0
        lefts.append(np.where(leaf, -1, left + offset))
        rights.append(np.where(leaf, -1, right + offset))
        feats.append(np.where(leaf, -1, feat))
        owners.append(np.full(left.shape[0], len(owners), dtype=np.int64))
        offset += left.shape[0]
    if not lefts:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty, empty, empty
    return (
        np.concatenate(lefts).astype(np.int64),
        np.concatenate(rights).astype(np.int64),
        np.concatenate(feats).astype(np.int64),
        np.concatenate(owners),
    )


def extract_paths(left: np.ndarray, right: np.ndarray, feature: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All root-to-leaf paths of a stacked forest.

    Returns ``(P, lengths, leaves)``: ``P`` (n_leaves x max_length) holds the features split on
    along each path from the root (column 0) down, padded with -1; ``lengths`` the path lengths
    (number of splits above the leaf); ``leaves`` the global node id of each path's leaf, in
    increasing order.
    """
    left = np.asarray(left, dtype=np.int64)
    right = np.asarray(right, dtype=np.int64)
    feature = np.asarray(feature, dtype=np.int64)
    n_nodes = left.shape[0]
    parent = np.full(n_nodes, -1, dtype=np.int64)
    internal = np.flatnonzero(left >= 0)
    parent[left[internal]] = internal
    parent[right[internal]] = internal
    leaves = np.flatnonzero(left < 0)
    # Depth of each leaf: climb one level per iteration for all leaves at once.
    depth = np.zeros(leaves.shape[0], dtype=np.int64)
    cur = leaves.copy()
    ancestors = []
    while True:
        up = parent[np.maximum(cur, 0)]
        up[cur < 0] = -1
        if not (up >= 0).any():
            break
        ancestors.append(up)
        depth += up >= 0
        cur = up
    max_len = len(ancestors)
    P = np.full((leaves.shape[0], max_len), -1, dtype=np.int64)
    rows = np.arange(leaves.shape[0])
    for k, anc in enumerate(ancestors):  # k-th ancestor sits at position depth - 1 - k
        ok = anc >= 0
        P[rows[ok], depth[ok] - 1 - k] = feature[anc[ok]]
    return P, depth, leaves


def sentences(P: np.ndarray, lengths: np.ndarray) -> list[list[int]]:
    """The paths as Python lists (for display and tests)."""
    return [list(map(int, row[:n])) for row, n in zip(P, lengths)]


def cooccurrence(P: np.ndarray, n_features: int, window: int = 3, weights: np.ndarray | None = None) -> sp.csr_matrix:
    """Sparse symmetric co-occurrence counts of the padded paths ``P`` (see module docstring).

    ``weights`` (one per path, default 1) multiplies each path's contribution; bootstrap
    resampling of trees uses it.
    """
    P = np.asarray(P, dtype=np.int64)
    if window < 1:
        raise ValueError("window must be >= 1")
    n_paths, max_len = P.shape if P.ndim == 2 else (0, 0)
    rows, cols, vals = [], [], []
    for offset in range(1, min(window, max_len - 1) + 1):  # loop over distances, arrays inside
        a = P[:, :-offset]
        b = P[:, offset:]
        ok = (a >= 0) & (b >= 0)
        rows.append(a[ok])
        cols.append(b[ok])
        if weights is not None:
            vals.append(np.broadcast_to(np.asarray(weights, dtype=float)[:, None], a.shape)[ok])
    if rows:
        r = np.concatenate(rows)
        c = np.concatenate(cols)
        v = np.concatenate(vals) if weights is not None else np.ones(r.shape[0])
    else:
        r = c = np.empty(0, dtype=np.int64)
        v = np.empty(0)
    C = sp.coo_matrix((v, (r, c)), shape=(n_features, n_features)).tocsr()
    M = (C + C.T).tocsr()
    M.sum_duplicates()
    M.eliminate_zeros()
    return M


def brute_force_cooccurrence(paths: Sequence[Sequence[int]], n_features: int, window: int) -> np.ndarray:
    """Pure-Python reference of the counting rule (dense; for tests and documentation)."""
    M = np.zeros((n_features, n_features))
    for s in paths:
        for p in range(len(s)):
            for q in range(len(s)):
                if p != q and abs(p - q) <= window:
                    M[s[p], s[q]] += 1
    return M
