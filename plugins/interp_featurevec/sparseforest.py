"""The batched histogram forest for sparse X (scipy CSC), touching only non-zero cells.

Same trees as ``HistForest`` (bootstrap rows, ``max_features`` candidates per node, best
binned split by Gini or squared error), but a candidate's histogram in a node is built from
the column's non-zero cells only: the zero cells' share is the node total minus the non-zero
counts, added to the bin that holds 0.  The work per level is (nodes x candidates x non-zeros
per column) instead of (nodes x candidates x rows), which makes 50,000 sparse features cheap.

Most (node, candidate) slots of a wide sparse X have no non-zero cell in their node: the
candidate is constant there and cannot split it, so only the slots with a cell are scored (the
others keep the score -inf they would get).  The cells still in a tree are carried from one
level to the next instead of being searched for again.  Both leave every tree as it was: the
same histograms are summed in the same order.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from .histforest import MAX_BINS, BinScores, Heaps, HistForest, LevelSplit


class _Alive(NamedTuple):
    """The (tree, row) cells still in a tree at a level, in (tree, row) order, with their node
    (t * L + j) and weight."""

    tree: np.ndarray
    row: np.ndarray
    node: np.ndarray
    weight: np.ndarray

    @classmethod
    def of(cls, node: np.ndarray, w: np.ndarray, L: int) -> "_Alive":
        tree, row = np.nonzero(node >= 0)
        return cls(tree=tree, row=row, node=tree * L + node[tree, row], weight=w[tree, row])

    def take(self, keep: np.ndarray, node: np.ndarray) -> "_Alive":
        """The cells at positions ``keep`` (order kept), now in nodes ``node``."""
        return _Alive(tree=self.tree[keep], row=self.row[keep], node=node, weight=self.weight[keep])


class _Cells(NamedTuple):
    """Non-zero cells of the candidate columns inside their node, in slot order: the
    (node, candidate) slot, the position in the CSC data, the row and the row's bootstrap weight
    in the tree."""

    slot: np.ndarray
    pos: np.ndarray
    row: np.ndarray
    weight: np.ndarray


class _Active(NamedTuple):
    """The slots that hold at least one non-zero cell (sorted) and every cell's index among them.

    A slot without one has its candidate constant (0) in the node: every threshold leaves one
    side empty, so its scores are all -inf and it is never scored.
    """

    slots: np.ndarray
    of_cell: np.ndarray

    @classmethod
    def of(cls, slot: np.ndarray) -> "_Active":
        if slot.size == 0:
            return cls(slots=slot, of_cell=slot)
        new = np.empty(slot.size, dtype=bool)
        new[0] = True
        np.not_equal(slot[1:], slot[:-1], out=new[1:])
        return cls(slots=slot[new], of_cell=np.cumsum(new) - 1)


def _accumulate_bins(hist: np.ndarray) -> np.ndarray:
    """Cumulative sums over the bins axis (-2), in place, one bin at a time (no copy)."""
    for b in range(1, hist.shape[-2]):
        hist[..., b, :] += hist[..., b - 1, :]
    return hist


def _ragged(starts: np.ndarray, lens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For groups g with (start, len): (group id, position start + i) for every element.

    Per-group values reach the elements as ``np.take(values, gid)``, several times faster than
    a second ``np.repeat``.
    """
    total = int(lens.sum())
    gid = np.repeat(np.arange(lens.shape[0]), lens)
    shift = starts - (np.cumsum(lens) - lens)
    pos = np.arange(total) + np.take(shift, gid)
    return gid, pos


def bin_sparse(X: sp.csc_matrix, max_bins: int = MAX_BINS):
    """Codes of the non-zero cells, the code of 0 per feature, and per-feature cut points."""
    n, d = X.shape
    indptr, data = X.indptr, X.data
    nnz = np.diff(indptr)
    codes = np.zeros(data.shape[0], dtype=np.uint8)
    zero_code = np.zeros(d, dtype=np.int64)
    cuts_all: list[np.ndarray] = [np.empty(0)] * d
    has = nnz > 0
    starts = indptr[:-1]
    vmin = np.zeros(d)
    vmax = np.zeros(d)
    vmin[has] = np.minimum.reduceat(data, starts[has])
    vmax[has] = np.maximum.reduceat(data, starts[has])
    simple = has & (vmin == vmax)  # one non-zero value: a single cut half way to 0
    for f in np.flatnonzero(simple):
        v = vmin[f]
        cuts_all[f] = np.array([v / 2.0])
        if v > 0:
            codes[indptr[f]:indptr[f + 1]] = 1
        else:
            zero_code[f] = 1
    qs = np.linspace(0.0, 1.0, max_bins + 1)[1:-1]
    for f in np.flatnonzero(has & ~simple):  # general columns: bin values and 0 together
        col = data[indptr[f]:indptr[f + 1]]
        full = np.concatenate([col, [0.0]]) if nnz[f] < n else col
        u = np.unique(full)
        if u.size <= max_bins:
            cuts = (u[:-1] + u[1:]) / 2.0
        else:
            zeros = n - nnz[f]
            sample = np.concatenate([col, np.zeros(min(zeros, 10 * col.size))])
            cuts = np.unique(np.quantile(sample, qs, method="lower"))
            cuts = cuts[cuts < u[-1]]
            nxt = u[np.minimum(np.searchsorted(u, cuts, side="right"), u.size - 1)]
            cuts = (cuts + nxt) / 2.0
        codes[indptr[f]:indptr[f + 1]] = np.searchsorted(cuts, col, side="left")
        zero_code[f] = int(np.searchsorted(cuts, 0.0, side="left"))
        cuts_all[f] = cuts
    return codes, zero_code, cuts_all


class SparseHistForest(HistForest):
    """``HistForest`` for a scipy sparse X."""

    def __init__(self, X, y, *, classification: bool, max_depth: int, max_features: int,
                 max_samples: int, max_bins: int = MAX_BINS):
        X = sp.csc_matrix(X, dtype=np.float64)
        X.sum_duplicates()
        X.eliminate_zeros()
        X.sort_indices()
        self._set_params(X.shape, y, classification, max_depth, max_features, max_samples)
        self.indptr = X.indptr.astype(np.int64)
        self.indices = X.indices.astype(np.int64)
        self.nnz = np.diff(self.indptr)
        self.nz_codes, self.zero_code, self.cuts = bin_sparse(X, max_bins)
        # node ids within a level (< 2**max_depth) as small integers: the per-cell lookups of a
        # row's node then read a (T, n) array that stays in cache
        self.node_dtype = np.int16 if self.max_depth <= 14 else np.int64
        self.B = int(max(1, max(c.size for c in self.cuts) + 1))
        width = self.B * (self.C if classification else 2)
        by_hist = 2_000_000 // max(1, (2 ** max(self.max_depth - 1, 0)) * self.k * width)
        by_rows = 4_000_000 // max(1, self.n_samples)
        self.batch = int(max(1, min(by_hist, by_rows, 4096)))

    def grow_batch(self, seed: int, T: int) -> Heaps:
        """T trees grown level by level from ``seed``, as ``HistForest.grow_batch``.

        ``w`` (T, n) counts how often each row was drawn into each tree's bootstrap and ``node``
        (T, n) is the node of the current level that holds it (-1: not in the tree); ``alive``
        lists the cells with ``node >= 0``, carried from level to level.
        """
        rng = np.random.default_rng(seed)
        n = self.n_samples
        heaps = self._empty_heaps(T)
        rows = rng.integers(0, n, (T, self.m))
        w = np.bincount((rows + (np.arange(T) * n)[:, None]).ravel(), minlength=T * n).reshape(T, n).astype(float)
        node = np.where(w > 0, 0, -1).astype(self.node_dtype)
        alive = _Alive.of(node, w, 1)
        for level in range(self.max_depth):
            L = 2**level
            if alive.tree.size == 0:
                break
            cand = self._candidates(rng, T * L).astype(np.int64)  # (TL, k)
            best = self._best_splits(node, w, alive, cand, L)
            split = self._record_level(heaps, level, best)
            node, alive = self._route(node, alive, split, best, L)
        return heaps

    def _cells(self, node, w, cand, L: int) -> _Cells:
        """The non-zero cells of every (node, candidate) slot: ragged expansion over the columns.

        A cell of slot (t * L + j, c) is in the slot when its row sits in node j of tree t; the
        tree's offset ``t * n`` and ``j`` are worked out once per slot and repeated per cell.
        """
        T, n = node.shape
        cols = cand.ravel()
        slot, pos = _ragged(self.indptr[cols], self.nnz[cols])
        tn = np.repeat(np.arange(T) * n, L * self.k)  # slots are ordered (tree, node, candidate)
        j = np.tile(np.repeat(np.arange(L, dtype=node.dtype), self.k), T)
        flat = np.take(tn, slot)
        flat += self.indices[pos]  # cell (tree, row) in the (T, n) arrays
        inside = np.flatnonzero(node.ravel()[flat] == np.take(j, slot))
        flat = flat[inside]
        pos = pos[inside]
        return _Cells(slot=slot[inside], pos=pos, row=self.indices[pos], weight=w.ravel()[flat])

    def _best_splits(self, node, w, alive: _Alive, cand, L: int) -> LevelSplit:
        """The best binned split of every node of a level among its candidates (first on ties).

        Histograms are laid out bins-major, (B, A) over the A active (node, candidate) slots
        (``_Active``: the others score -inf throughout, as they would if built); the zero cells
        of a slot are its node total minus its non-zero cells, added to the bin that holds 0.
        """
        TL, k = cand.shape
        cells = self._cells(node, w, cand, L)
        active = _Active.of(cells.slot)
        A = active.slots.size
        key = self.nz_codes[cells.pos].astype(np.int64) * A + active.of_cell
        zero_bin = self.zero_code[cand.ravel()[active.slots]]  # (A,)
        if self.classification:
            scores = self._gini_scores(cells, active, key, zero_bin, alive, TL)
        else:
            scores = self._variance_scores(cells, active, key, zero_bin, alive, TL)
        b_active = np.argmax(scores.score, axis=0)  # best bin of every active slot
        s_slot = np.full(TL * k, -np.inf)
        s_slot[active.slots] = scores.score[b_active, np.arange(A)]
        b_slot = np.zeros(TL * k, dtype=np.int64)
        b_slot[active.slots] = b_active
        s_slot = s_slot.reshape(TL, k)
        bc = np.argmax(s_slot, axis=1)  # best candidate (first on ties, as HistForest)
        ar = np.arange(TL)
        split = np.isfinite(s_slot[ar, bc]) & scores.impure & (scores.n_node >= 2)
        return LevelSplit(split=split, feature=cand[ar, bc], bin=b_slot.reshape(TL, k)[ar, bc])

    def _gini_scores(self, cells: _Cells, active: _Active, key, zero_bin, alive: _Alive, TL: int) -> BinScores:
        """Gini scores (B, A) of the active slots (the criterion of ``HistForest._gini_scores``)."""
        C, B, k = self.C, self.B, self.k
        A = active.slots.size
        size = B * A
        yc = self.ycode
        ar_a = np.arange(A)
        yc_cells = yc[cells.row]
        hist = np.bincount(yc_cells * size + key, weights=cells.weight, minlength=C * size).reshape(C, B, A)
        nz_tot = np.bincount(yc_cells * A + active.of_cell, weights=cells.weight, minlength=C * A).reshape(C, A)
        node_tot = np.bincount(yc[alive.row] * TL + alive.node, weights=alive.weight,
                               minlength=C * TL).reshape(C, TL)
        hist[:, zero_bin, ar_a] += node_tot[:, active.slots // k] - nz_tot
        left = _accumulate_bins(hist)
        right = left[:, -1:, :] - left
        nl, nr = left.sum(0), right.sum(0)
        sq_l = left[0] * left[0]
        sq_r = right[0] * right[0]
        for c in range(1, C):
            sq_l += left[c] * left[c]
            sq_r += right[c] * right[c]
        with np.errstate(divide="ignore", invalid="ignore"):
            sq_l /= nl
            sq_r /= nr
        score = sq_l + sq_r
        score[(nl <= 0.5) | (nr <= 0.5)] = -np.inf
        n_node = node_tot.sum(0)
        return BinScores(score=score, n_node=n_node, impure=node_tot.max(0) < n_node)

    def _variance_scores(self, cells: _Cells, active: _Active, key, zero_bin, alive: _Alive, TL: int) -> BinScores:
        """Squared-error scores (B, A) of the active slots (the criterion of ``HistForest._variance_scores``)."""
        B, k, yv = self.B, self.k, self.y
        A = active.slots.size
        ar_a = np.arange(A)
        y_cells = cells.weight * yv[cells.row]
        cnt = np.bincount(key, weights=cells.weight, minlength=B * A).reshape(B, A)
        sm = np.bincount(key, weights=y_cells, minlength=B * A).reshape(B, A)
        n_node = np.bincount(alive.node, weights=alive.weight, minlength=TL)
        s_node = np.bincount(alive.node, weights=alive.weight * yv[alive.row], minlength=TL)
        s2 = np.bincount(alive.node, weights=alive.weight * yv[alive.row] ** 2, minlength=TL)
        slot_node = active.slots // k
        cnt[zero_bin, ar_a] += n_node[slot_node] - np.bincount(active.of_cell, weights=cells.weight, minlength=A)
        sm[zero_bin, ar_a] += s_node[slot_node] - np.bincount(active.of_cell, weights=y_cells, minlength=A)
        nl, sl = _accumulate_bins(cnt), _accumulate_bins(sm)
        nr, sr = nl[-1:] - nl, sl[-1:] - sl
        with np.errstate(divide="ignore", invalid="ignore"):
            score = sl * sl / nl + sr * sr / nr
            var = s2 / n_node - (s_node / n_node) ** 2
        score[(nl <= 0.5) | (nr <= 0.5)] = -np.inf
        return BinScores(score=score, n_node=n_node, impure=var > self.var_tol)

    def _route(self, node, alive: _Alive, split, best: LevelSplit, L: int) -> tuple[np.ndarray, _Alive]:
        """Every row's node at the next level (-1 once its node stopped splitting), and the
        cells still alive there (those of ``alive`` in a node that split, order kept).

        A row of a splitting node first takes the side of a 0 value; its non-zero cells in the
        split feature then override that.
        """
        T, n = node.shape
        keep = np.flatnonzero(split[alive.node])
        tla = alive.node[keep]
        flat = alive.tree[keep] * n + alive.row[keep]
        go = np.zeros(T * n, dtype=np.int64)
        go[flat] = self.zero_code[best.feature[tla]] > best.bin[tla]
        sn = np.flatnonzero(split)
        gid, pos = _ragged(self.indptr[best.feature[sn]], self.nnz[best.feature[sn]])
        t_sn, j_sn = np.divmod(sn, L)
        flat_e = np.take(t_sn * n, gid)
        flat_e += self.indices[pos]
        here = np.flatnonzero(node.ravel()[flat_e] == np.take(j_sn, gid))
        go[flat_e[here]] = self.nz_codes[pos[here]] > best.bin[sn[gid[here]]]
        child = 2 * tla + go[flat]  # t * 2L + 2j + side
        new = np.full(T * n, -1, dtype=node.dtype)
        new[flat] = child - alive.tree[keep] * (2 * L)
        return new.reshape(T, n), alive.take(keep, child)
