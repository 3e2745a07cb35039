"""The batched histogram forest for sparse X (scipy CSC), touching only non-zero cells.

Same trees as ``HistForest`` (bootstrap rows, ``max_features`` candidates per node, best
binned split by Gini or squared error), but a candidate's histogram in a node is built from
the column's non-zero cells only: the zero cells' share is the node total minus the non-zero
counts, added to the bin that holds 0.  The work per level is (nodes x candidates x non-zeros
per column) instead of (nodes x candidates x rows), which makes 50,000 sparse features cheap.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .histforest import MAX_BINS, HistForest


def _ragged(starts: np.ndarray, lens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For groups g with (start, len): (group id, position start + i) for every element."""
    total = int(lens.sum())
    gid = np.repeat(np.arange(lens.shape[0]), lens)
    shift = starts - (np.cumsum(lens) - lens)
    pos = np.arange(total) + shift[gid]
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
        self.B = int(max(1, max(c.size for c in self.cuts) + 1))
        width = self.B * (self.C if classification else 2)
        by_hist = 2_000_000 // max(1, (2 ** max(self.max_depth - 1, 0)) * self.k * width)
        by_rows = 4_000_000 // max(1, self.n_samples)
        self.batch = int(max(1, min(by_hist, by_rows, 4096)))

    def grow_batch(self, seed: int, T: int):
        rng = np.random.default_rng(seed)
        D, k, B, C, n = self.max_depth, self.k, self.B, self.C, self.n_samples
        feature, threshold, exists = self._empty_heaps(T)
        rows = rng.integers(0, n, (T, self.m))
        w = np.zeros((T, n))
        np.add.at(w, (np.repeat(np.arange(T), self.m), rows.ravel()), 1.0)
        node = np.where(w > 0, 0, -1)  # (T, n): node within the level, -1 = not in the tree
        yc = self.ycode if self.classification else None
        for level in range(D):
            L = 2**level
            TL = T * L
            alive_t, alive_r = np.nonzero(node >= 0)
            if alive_t.size == 0:
                break
            node_flat = node.ravel()
            w_flat = w.ravel()
            tl_alive = alive_t * L + node[alive_t, alive_r]
            wa = w[alive_t, alive_r]
            cand = self._candidates(rng, TL).astype(np.int64)  # (TL, k)
            # non-zero cells of every (node, candidate): ragged expansion over the columns
            f_flat = cand.ravel()
            slot_id, pos = _ragged(self.indptr[f_flat], self.nnz[f_flat])
            r_e = self.indices[pos]
            tl_e = slot_id // k
            t_e = tl_e // L
            flat = t_e * n + r_e  # cell (tree, row) in the (T, n) arrays
            here = node_flat[flat] == tl_e - t_e * L
            slot_id, pos, r_e, flat = slot_id[here], pos[here], r_e[here], flat[here]
            w_e = w_flat[flat]
            S = TL * k
            key = self.nz_codes[pos].astype(np.int64) * S + slot_id  # bins-major layout (B, S)
            zc = self.zero_code[cand.ravel()]  # (S,)
            ar_s = np.arange(S)
            if self.classification:
                size = B * S
                hist = np.bincount(yc[r_e] * size + key, weights=w_e, minlength=C * size).reshape(C, B, S)
                nz_tot = np.bincount(yc[r_e] * S + slot_id, weights=w_e, minlength=C * S).reshape(C, S)
                node_tot = np.bincount(yc[alive_r] * TL + tl_alive, weights=wa, minlength=C * TL).reshape(C, TL)
                hist[:, zc, ar_s] += np.repeat(node_tot, k, axis=1) - nz_tot
                left = hist
                for b in range(1, B):  # cumulative sum over the (few) bins, row by row
                    left[:, b] += left[:, b - 1]
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
                n_node = node_tot.sum(0)
                impure = node_tot.max(0) < n_node
            else:
                yv = self.y
                cnt = np.bincount(key, weights=w_e, minlength=B * S).reshape(B, S)
                sm = np.bincount(key, weights=w_e * yv[r_e], minlength=B * S).reshape(B, S)
                n_node = np.bincount(tl_alive, weights=wa, minlength=TL)
                s_node = np.bincount(tl_alive, weights=wa * yv[alive_r], minlength=TL)
                s2 = np.bincount(tl_alive, weights=wa * yv[alive_r] ** 2, minlength=TL)
                cnt[zc, ar_s] += np.repeat(n_node, k) - np.bincount(slot_id, weights=w_e, minlength=S)
                sm[zc, ar_s] += np.repeat(s_node, k) - np.bincount(slot_id, weights=w_e * yv[r_e], minlength=S)
                nl, sl = cnt, sm
                for b in range(1, B):
                    nl[b] += nl[b - 1]
                    sl[b] += sl[b - 1]
                nr, sr = nl[-1:] - nl, sl[-1:] - sl
                with np.errstate(divide="ignore", invalid="ignore"):
                    score = sl * sl / nl + sr * sr / nr
                    var = s2 / n_node - (s_node / n_node) ** 2
                impure = var > self.var_tol
            score[(nl <= 0.5) | (nr <= 0.5)] = -np.inf
            b_slot = np.argmax(score, axis=0)  # best bin of every (node, candidate)
            s_slot = score[b_slot, ar_s].reshape(TL, k)
            bc = np.argmax(s_slot, axis=1)  # best candidate (first on ties, as HistForest)
            ar = np.arange(TL)
            split = np.isfinite(s_slot[ar, bc]) & impure & (n_node >= 2)
            bb = b_slot.reshape(TL, k)[ar, bc]
            fstar = cand[ar, bc]
            split = self._record_level(feature, threshold, exists, level, split, fstar, bb)
            # route: every alive row first takes the side of a 0 value, non-zeros then override
            go = np.zeros_like(node)
            keep = split[tl_alive]
            at, ar_r, tla = alive_t[keep], alive_r[keep], tl_alive[keep]
            go[at, ar_r] = self.zero_code[fstar[tla]] > bb[tla]
            sn = np.flatnonzero(split)
            gid, pos = _ragged(self.indptr[fstar[sn]], self.nnz[fstar[sn]])
            r_e = self.indices[pos]
            tl_e = sn[gid]
            t_e, j_e = np.divmod(tl_e, L)
            here = node[t_e, r_e] == j_e
            go[t_e[here], r_e[here]] = self.nz_codes[pos[here]] > bb[tl_e[here]]
            new = np.full_like(node, -1)
            new[at, ar_r] = 2 * node[at, ar_r] + go[at, ar_r]
            node = new
        return feature, threshold, exists
