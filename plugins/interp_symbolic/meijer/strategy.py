"""How many terms: an adaptive series length per group of points.

Each evaluation first tries the shortest cap of ``K_SCHEDULE`` the largest argument needs; the
points whose estimate is not yet accepted are recomputed with the next, longer cap (only those
points).  For p == q the number of terms grows like 1 / (1 - w), so the points are grouped by w
first (``groups``) when a group saves enough terms to pay for its own pass; otherwise one K
serves all points.  Within one evaluation the coefficients of the longest cap so far are reused.
"""

from __future__ import annotations

import attrs
import numpy as np

from .bounds import TAIL_LOG, TERMS_LOG, accept, stuck
from .logspace import sum_log
from .scaled import ScaleTooWide, sum_scaled
from .series import Parameters, SeriesResult

K_SCHEDULE = (48, 120, 300, 600, 1000, 1600, 2500, 4000)  # caps; each level picks K <= cap from w_max
GROUP_SAVE = 1e6  # point-terms a separate group of points must save to pay for its own pass
GROUP_MIN_POINTS = 32  # fewer points are never grouped
GROUP_MIN_SIZE = 64  # a smaller group joins the next one
GROUP_MAX_BAND = 12  # w in [1 - 2^-j, 1 - 2^-(j+1)), j <= GROUP_MAX_BAND (w = 1 in the last)
MIN_LOG_DISTANCE = 1e-12  # -log w_max floor when estimating a group's series length


@attrs.define(eq=False)
class Estimate:
    """Value (N,), gradient (P, N) w.r.t. the expansion's (a, b) and d/dlog w (None without
    gradient), relative error estimate per point (inf: not computed, NaN value);
    ``all_good``: every point accepted in one pass; ``perturbed``: extrapolated."""

    val: np.ndarray
    grad: np.ndarray | None
    dlogw: np.ndarray | None
    rel: np.ndarray
    all_good: bool = False
    perturbed: bool = False


def groups(logw: np.ndarray, peq: bool) -> list:
    """Index groups of points that share one series length: for p == q, points grouped by w in
    [1 - 2^-j, 1 - 2^-(j+1)) (w < 0.75 together), largest w first, where a group saves more than
    GROUP_SAVE point-terms against joining the previous one (``benchmarks/symbolic_meijerg.py``
    prints what a pass costs); ``[None]``: all points together."""
    N = logw.shape[0]
    if not peq or N < GROUP_MIN_POINTS:
        return [None]
    lw_max = float(logw.max())
    if lw_max < 0 and N * TAIL_LOG / -lw_max < GROUP_SAVE:  # no group could save enough
        return [None]
    j = np.floor(-np.log2(-np.expm1(np.minimum(logw, 0.0))))
    j = np.clip(j, 1.0, float(GROUP_MAX_BAND))
    lo, hi = int(j.min()), int(j.max())
    if lo == hi:
        return [None]
    order = np.argsort(-j, kind="stable")
    counts = np.bincount(j.astype(int), minlength=hi + 1)[::-1]
    found = []
    need = []  # about how many terms each group needs: e^-TAIL_LOG ~ w_max^K
    for g in np.split(order, np.cumsum(counts[counts > 0])[:-1]):
        kg = TAIL_LOG / max(-float(logw[g].max()), MIN_LOG_DISTANCE)
        if found and (found[-1].size < GROUP_MIN_SIZE or g.size * (need[-1] - kg) < GROUP_SAVE):
            found[-1] = np.concatenate([found[-1], g])
        else:
            found.append(g)
            need.append(kg)
    return [None] if len(found) == 1 else found


def start_level(lw_max: float, peq: bool) -> int:
    """First entry of K_SCHEDULE to try: for p == q, about TERMS_LOG / -log w terms are needed."""
    if not peq or lw_max >= 0:
        return 0
    need = TERMS_LOG / -lw_max
    for li, K in enumerate(K_SCHEDULE):
        if K >= need:
            return li
    return len(K_SCHEDULE) - 1


@attrs.define
class _Collected:
    """The accepted points so far (NaN / inf where none yet)."""

    val: np.ndarray
    grad: np.ndarray | None
    dlogw: np.ndarray | None
    rel: np.ndarray

    @classmethod
    def empty(cls, N: int, P: int, want_grad: bool) -> _Collected:
        return cls(np.full(N, np.nan), np.full((P, N), np.nan) if want_grad else None,
                   np.full(N, np.nan) if want_grad else None, np.full(N, np.inf))

    def keep(self, todo: np.ndarray, out: SeriesResult, rel: np.ndarray, good: np.ndarray) -> None:
        idx = todo[good]
        self.val[idx] = out.val[good]
        self.rel[idx] = rel[good]
        if self.grad is not None:
            self.grad[:, idx] = out.grad[:, good]
            self.dlogw[idx] = out.dlogw[good]


def adaptive(par: Parameters, logw: np.ndarray, want_grad: bool) -> Estimate:
    """Every point with the shortest series of K_SCHEDULE that its group needs (see the module
    docstring).  Raises ``NumeratorPole``.  Call with numpy floating-point errors ignored."""
    N = logw.shape[0]
    peq = par.p == par.q
    res = None
    cache: dict = {}
    for grp in groups(logw, peq):
        todo = grp  # None: all points
        lw0 = logw if grp is None else logw[grp]
        start = start_level(float(lw0.max()), peq) if peq else 0
        for K in K_SCHEDULE[start:]:
            lw = logw if todo is None else logw[todo]
            try:
                out = sum_scaled(par, lw, K, want_grad, cache)
            except ScaleTooWide:  # the points span too many magnitudes for one scale
                out = sum_log(par, lw, K, want_grad)
            acc = accept(out)
            if todo is None and acc.all_good:  # the common case: done in one pass
                return Estimate(out.val, out.grad, out.dlogw, acc.rel, all_good=True)
            if res is None:
                res = _Collected.empty(N, par.p + par.q, want_grad)
            if todo is None:
                todo = np.arange(N)
            res.keep(todo, out, acc.rel, acc.good)
            # (no series used its whole cap: a longer one is the same sum)
            hopeless = stuck(out, acc) if out.capped else np.ones(todo.size, dtype=bool)
            res.rel[todo[hopeless]] = acc.rel[hopeless]
            todo = todo[~acc.good & ~hopeless]
            if todo.size == 0:
                break
    return Estimate(res.val, res.grad, res.dlogw, res.rel)
