"""A random forest of shallow trees grown level by level for many trees at once (numpy only).

Feature Vectors needs ~100,000 root-to-leaf paths, i.e. ~12,500 depth-3 trees.  Fitted one by
one through scikit-learn, their cost is almost all per-tree Python overhead (measured in
docs/methods/featurevec.md).  Here a whole batch of trees grows together: at each depth level
one ``np.bincount`` builds the class (or target-sum) histograms of every node x candidate
feature x bin of every tree in the batch, a cumulative sum turns them into the scores of every
threshold, and an ``argmax`` picks each node's split.  The cost is a few numpy passes over
(trees x samples x candidates) per level; no Python loop runs per tree or per node.

The trees are random-forest trees: each tree sees a bootstrap sample (``max_samples`` rows drawn
with replacement), each node draws ``max_features`` distinct candidate features and takes the
best split among them by the Gini criterion (classification) or squared error (regression),
with scikit-learn's stopping rules (a node splits when it has >= 2 samples, is impure and has a
valid split; ``min_samples_leaf`` = 1).  Two differences from scikit-learn: thresholds are
chosen among at most ``max_bins`` quantile cut points per feature (exact when a feature has
at most ``max_bins`` distinct values); and when none of a node's candidates can split it (all
constant in the node) the node becomes a leaf instead of drawing more candidates.

Reproducibility: batch ``b`` gets its own seed, drawn in order from the master generator, and
batch sizes depend on the data and parameters only, so threads (``n_jobs``) never change the
forest.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np
from joblib import Parallel, delayed

MAX_BINS = 32


class Heaps(NamedTuple):
    """Trees in heap order (node h has children 2h + 1 and 2h + 2), one row per tree (T, H).

    ``feature`` is the feature split on (-1 at a leaf), ``threshold`` the cut value (go left
    when ``x <= threshold``; NaN at a leaf), ``exists`` whether the node is in the tree.
    """

    feature: np.ndarray
    threshold: np.ndarray
    exists: np.ndarray


class LevelSplit(NamedTuple):
    """The split chosen at every node of one level (nodes ordered t * L + j).

    ``split``: whether the node splits; ``feature``: on which feature; ``bin``: at which bin
    (a sample goes right when its bin code is larger).
    """

    split: np.ndarray
    feature: np.ndarray
    bin: np.ndarray


class BinScores(NamedTuple):
    """The scores of every (node, bin) threshold of one candidate (-inf where a side would be
    empty) and the node totals read off the same histogram: samples per node and impurity."""

    score: np.ndarray
    n_node: np.ndarray
    impure: np.ndarray


def bin_features(X: np.ndarray, max_bins: int = MAX_BINS) -> tuple[np.ndarray, list[np.ndarray]]:
    """Codes (n x d, uint8) and per-feature cut points: ``x <= cuts[b]`` iff ``code <= b``."""
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    codes = np.empty((n, d), dtype=np.uint8)
    cuts_all = []
    qs = np.linspace(0.0, 1.0, max_bins + 1)[1:-1]
    for f in range(d):  # one pass per feature over a column
        col = X[:, f]
        u = np.unique(col)
        if u.size <= max_bins:
            cuts = (u[:-1] + u[1:]) / 2.0
        else:
            cuts = np.unique(np.quantile(col, qs, method="lower"))
            cuts = cuts[cuts < u[-1]]
            # put each cut half way to the next distinct value (as scikit-learn thresholds)
            nxt = u[np.minimum(np.searchsorted(u, cuts, side="right"), u.size - 1)]
            cuts = (cuts + nxt) / 2.0
        codes[:, f] = np.searchsorted(cuts, col, side="left")
        cuts_all.append(cuts)
    return codes, cuts_all


class HistForest:
    """Grows batches of trees; ``grow`` returns heap-ordered node arrays for all trees."""

    def __init__(self, X, y, *, classification: bool, max_depth: int, max_features: int,
                 max_samples: int, max_bins: int = MAX_BINS):
        self._set_params(X.shape, y, classification, max_depth, max_features, max_samples)
        self.codes, self.cuts = bin_features(X, max_bins)
        self.B = int(max(1, max(c.size for c in self.cuts) + 1))
        self.codes_flat = self.codes.ravel()
        width = self.B * (self.C if classification else 2)
        by_hist = 1_000_000 // max(1, (2 ** max(self.max_depth - 1, 0)) * width)
        by_entries = 1_000_000 // max(1, self.m)
        self.batch = int(max(1, min(by_hist, by_entries, 8192)))

    def _set_params(self, shape, y, classification, max_depth, max_features, max_samples) -> None:
        """Sizes and encoded targets, set in one place for the dense and sparse growers."""
        self.classification = classification
        self.max_depth = int(max_depth)
        self.n_samples, self.n_features = shape
        self.k = int(min(max_features, self.n_features))
        self.m = int(max_samples)
        if classification:
            self.classes, ycode = np.unique(y, return_inverse=True)
            self.C = int(self.classes.size)
            self.y = None
            self.ycode = ycode.astype(np.int64)
        else:
            self.classes, self.C = None, 1
            self.y = np.asarray(y, dtype=np.float64)
            scale = float(np.abs(self.y).max()) or 1.0
            self.var_tol = 1e-12 * scale * scale

    # -- candidate features ------------------------------------------------------------------
    def _candidates(self, rng, n_nodes: int) -> np.ndarray:
        d, k = self.n_features, self.k
        if k >= d:
            base = np.broadcast_to(np.arange(d), (n_nodes, d))
            return np.ascontiguousarray(base)
        if d <= 512:
            keys = rng.random((n_nodes, d))
            return np.argpartition(keys, k - 1, axis=1)[:, :k]
        # many features: draw k distinct features per node by rejection of repeats
        dtype = np.int32 if d < 2**31 else np.int64
        cand = rng.integers(0, d, (n_nodes, k), dtype=dtype)
        rows = np.arange(n_nodes)
        for _ in range(64):  # redraw the (few) nodes that drew a feature twice
            s = np.sort(cand[rows], axis=1)
            dup = (s[:, 1:] == s[:, :-1]).any(axis=1)
            if not dup.any():
                break
            rows = rows[dup]
            cand[rows] = rng.integers(0, d, (rows.size, k), dtype=dtype)
        return cand

    # -- one batch ---------------------------------------------------------------------------
    def grow_batch(self, seed: int, T: int) -> Heaps:
        """T trees grown level by level from ``seed``: (feature, threshold, exists) heaps."""
        rng = np.random.default_rng(seed)
        heaps = self._empty_heaps(T)
        rows = rng.integers(0, self.n_samples, T * self.m).astype(np.int64)
        tn = np.repeat(np.arange(T, dtype=np.int64), self.m)  # t * L + node within the level
        for level in range(self.max_depth):
            if rows.size == 0:
                break
            cand = self._candidates(rng, T * 2**level).astype(np.int64)  # (TL, k)
            best = self._best_splits(rows, tn, cand)
            split = self._record_level(heaps, level, best)
            # route samples; samples of nodes that did not split are done
            keep = split[tn]
            rows, tn = rows[keep], tn[keep]
            go_right = self.codes_flat[rows * self.n_features + best.feature[tn]] > best.bin[tn]
            tn = 2 * tn + go_right  # node id within the next level: t * 2L + 2j + side
        return heaps

    def _best_splits(self, rows, tn, cand) -> LevelSplit:
        """The best binned split of every node of a level among its candidates (first on ties).

        ``rows`` are the bootstrap rows still in the trees and ``tn`` their nodes; one 1-D
        histogram pass per candidate slot (k = ceil(sqrt(d)) of them).  A node splits when a
        valid split exists, it is impure and it holds at least 2 samples.
        """
        TL = cand.shape[0]
        base = tn * self.B
        if self.classification:
            base += self.ycode[rows] * (TL * self.B)
            scores = functools.partial(self._gini_scores, TL=TL)
        else:
            yv = self.y[rows]
            s2 = np.bincount(tn, weights=yv * yv, minlength=TL)
            scores = functools.partial(self._variance_scores, yv=yv, s2=s2, TL=TL)
        rd = rows * self.n_features
        best_score = np.full(TL, -np.inf)
        best_c = np.zeros(TL, dtype=np.int64)
        best_b = np.zeros(TL, dtype=np.int64)
        ar = np.arange(TL)
        node = None
        for c in range(self.k):
            slot = scores(self.codes_flat[rd + cand[:, c][tn]] + base)
            node = node if node is not None else slot  # node totals: from the first slot
            b = np.argmax(slot.score, axis=1)
            sc = slot.score[ar, b]
            better = sc > best_score
            best_score[better] = sc[better]
            best_c[better] = c
            best_b[better] = b[better]
        split = np.isfinite(best_score) & node.impure & (node.n_node >= 2)
        return LevelSplit(split=split, feature=cand[ar, best_c], bin=best_b)

    def _gini_scores(self, key, TL: int) -> BinScores:
        """Gini scores (TL, B) of one candidate slot from the (class, node, bin) keys of the rows.

        The score of a threshold is ``sum_c nl_c**2 / nl + sum_c nr_c**2 / nr``, the part of
        the weighted Gini impurity decrease that depends on the split (higher is better).
        """
        C, B = self.C, self.B
        left = np.cumsum(np.bincount(key, minlength=C * TL * B).reshape(C, TL, B), axis=2, dtype=np.float64)
        total = left[:, :, -1:]
        right = total - left
        nl = left.sum(0)
        nr = right.sum(0)
        with np.errstate(divide="ignore", invalid="ignore"):
            score = np.einsum("cjb,cjb->jb", left, left) / nl
            score += np.einsum("cjb,cjb->jb", right, right) / nr
        score[(nl == 0) | (nr == 0)] = -np.inf
        node_tot = total[:, :, 0]  # (C, TL)
        n_node = node_tot.sum(0)
        return BinScores(score=score, n_node=n_node, impure=node_tot.max(0) < n_node)

    def _variance_scores(self, key, yv, s2, TL: int) -> BinScores:
        """Squared-error scores (TL, B) of one candidate slot from the (node, bin) keys of the rows.

        The score of a threshold is ``sl**2 / nl + sr**2 / nr`` (sums of y on each side), the
        part of the squared-error decrease that depends on the split (higher is better).
        """
        width = TL * self.B
        nl = np.cumsum(np.bincount(key, minlength=width).reshape(TL, self.B), axis=1, dtype=np.float64)
        sl = np.cumsum(np.bincount(key, weights=yv, minlength=width).reshape(TL, self.B), axis=1)
        nr = nl[:, -1:] - nl
        sr = sl[:, -1:] - sl
        with np.errstate(divide="ignore", invalid="ignore"):
            score = sl * sl / nl + sr * sr / nr
        score[(nl == 0) | (nr == 0)] = -np.inf
        n_node = nl[:, -1]
        s_node = sl[:, -1]
        with np.errstate(divide="ignore", invalid="ignore"):
            var = s2 / n_node - (s_node / n_node) ** 2
        return BinScores(score=score, n_node=n_node, impure=var > self.var_tol)

    def _empty_heaps(self, T: int) -> Heaps:
        """Empty (feature, threshold, exists) heaps of T root-only trees, one copy for both growers."""
        H = 2 ** (self.max_depth + 1) - 1
        exists = np.zeros((T, H), dtype=bool)
        exists[:, 0] = True
        return Heaps(feature=np.full((T, H), -1, dtype=np.int64), threshold=np.full((T, H), np.nan), exists=exists)

    def _record_level(self, heaps: Heaps, level: int, best: LevelSplit) -> np.ndarray:
        """Write a level's splits into the heaps (one copy for both growers); returns the split kept."""
        T, L = heaps.feature.shape[0], 2**level
        heap = (2**level - 1) + np.arange(L)
        split = best.split & heaps.exists[:, heap].ravel()
        heaps.feature[:, heap] = np.where(split, best.feature, -1).reshape(T, L)
        thr = np.full(T * L, np.nan)
        ids = np.flatnonzero(split)
        thr[ids] = self._cut_values(best.feature[ids], best.bin[ids])
        heaps.threshold[:, heap] = thr.reshape(T, L)
        child = (2 ** (level + 1) - 1) + 2 * np.arange(L)
        sp_tl = split.reshape(T, L)
        heaps.exists[:, child] = sp_tl
        heaps.exists[:, child + 1] = sp_tl
        return split

    def _cut_values(self, feats: np.ndarray, bins: np.ndarray) -> np.ndarray:
        if not hasattr(self, "_cut_table"):
            table = np.full((self.n_features, self.B), np.nan)
            for f, c in enumerate(self.cuts):
                table[f, : c.size] = c
            self._cut_table = table
        return self._cut_table[feats, bins]

    # -- whole forest ------------------------------------------------------------------------
    def grow(self, n_paths: int, rng: np.random.Generator, n_jobs=None, progress=None) -> Heaps:
        """Grow batches until the trees have >= n_paths leaves; returns their heaps stacked."""
        feats, thrs, exs = [], [], []
        leaves = n_trees = 0
        need = math.ceil(n_paths / 2 ** self.max_depth)
        parallel = Parallel(n_jobs=n_jobs, prefer="threads")
        while leaves < n_paths:
            total = max(1, need)
            sizes = [self.batch] * (total // self.batch) + ([total % self.batch] if total % self.batch else [])
            seeds = rng.integers(0, 2**63 - 1, size=len(sizes))
            if len(sizes) == 1 or n_jobs in (None, 1):
                out = [self.grow_batch(s, t) for s, t in zip(seeds, sizes)]
            else:
                out = parallel(delayed(self.grow_batch)(s, t) for s, t in zip(seeds, sizes))
            for f, t, e in out:
                feats.append(f)
                thrs.append(t)
                exs.append(e)
                leaves += int((e & (f < 0)).sum())
                n_trees += f.shape[0]
            if progress is not None:
                progress(min(leaves, n_paths))
            per_tree = max(leaves / n_trees, 1.0)
            need = math.ceil((n_paths - leaves) / per_tree * 1.02)
        return Heaps(feature=np.concatenate(feats), threshold=np.concatenate(thrs), exists=np.concatenate(exs))


def heap_to_children(feature: np.ndarray, exists: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Heap-ordered (T, H) trees -> stacked (children_left, children_right, feature, tree) arrays."""
    T, H = feature.shape
    ex = exists.ravel()
    gid = np.cumsum(ex) - 1
    feat = feature.ravel()
    h = np.tile(np.arange(H), T)
    base = np.repeat(np.arange(T) * H, H)
    split = ex & (feat >= 0)
    left = np.full(T * H, -1, dtype=np.int64)
    right = np.full(T * H, -1, dtype=np.int64)
    left[split] = gid[base[split] + 2 * h[split] + 1]
    right[split] = gid[base[split] + 2 * h[split] + 2]
    return left[ex], right[ex], np.where(split, feat, -1)[ex], np.repeat(np.arange(T), H)[ex]
