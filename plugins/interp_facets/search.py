"""Cards with at most ``max_rows`` rows and points in [-max_points, max_points]: a local search
on the integer points, the scale and intercept re-fitted at every step.

The loss of an integer card ``u`` is ``F(u) = min_{a, b} loss(a X u + b, y)``: the card's points
are frozen and only its scale (the grid step) and threshold are fitted, as `.refit` does.
`local_search` walks from a start card to a card no single move improves, where a move is

* setting one coordinate to any value in [-M, M] (this adds a row, drops one or changes its
  points),
* a swap: one row out, another feature in at any non-zero value,
* a pair step: two rows of the card each moved by +-1 (a shift the single moves cannot make
  without a worse card in between, e.g. 2a + b -> 3a + 2b).

Every move of the neighbourhood is scored at once (vectorised) by the second-order model of
``F`` at the current card, with the scale and intercept re-optimised inside the model: with
``z = a s + b`` (``s = X u`` the totals), gradient ``g`` and curvature ``w`` of the loss in z,
a move ``ds`` changes F by about

    a g.ds + a^2 / 2 (ds' W ds - (Q' W ds)' (Q' W Q)^-1 (Q' W ds)),   Q = [s, 1],

the second term being the curvature left once (a, b) have moved too (a move that only rescales
the card, ``ds = t s``, is free, as it should be).  The best-ranked moves by that model are
then evaluated exactly (their scale and intercept re-fitted by a few Newton steps from the
current card's, all at once) and the best of them is taken if it lowers F; the search stops
when none does, so F never rises.  The first `N_EXACT` moves are tried first; only when
none of them improves are the next ones tried, as many as `EXACT_BUDGET` allows, which on
a small problem is every move (the result is then a true local optimum).

The quadratic model costs O(n d k) per step (the curvature between the card's rows and every
feature), not O(n d^2), and the exact evaluations O(n N_EXACT); so a step on 30 000 rows and
hundreds of features is a few BLAS calls.
"""

from __future__ import annotations

import numbers

import attrs
import numpy as np

from interp import InputError

from .datafits import get_datafit
from .problem import Objective, gram_matrix, step_metric
from .refit import refit_scale
from .solver import SolverOptions, WarmStart, solve

__all__ = ["RowLimits", "Card", "card_losses", "local_search", "capped_path", "search_grid", "feasible"]

#: moves scored exactly per step: as many as make at most EXACT_BUDGET (rows x moves) values, at
#: least N_EXACT (so a small problem's neighbourhood is scored exactly, move by move); the most
#: steps of one search
EXACT_BUDGET, N_EXACT, MAX_STEPS = 30_000, 24, 500
#: an exact improvement smaller than this (relative to the loss) does not count as one
REL_IMPROVEMENT = 1e-10
#: Newton steps of a moved card's (scale, intercept) fit, started at the current card's: for the
#: first-ranked moves, and for the others, tried when none of those improves (so that a move is
#: not missed for want of steps); the halvings of one step, and the ridge on the scale that keeps
#: separable totals finite (as in `.refit`)
N_REFIT, N_REFIT_ALL, N_HALVINGS, RIDGE = 3, 12, 5, 1e-6
#: the search stops once the loss is below this fraction of the intercept-only model's (a card
#: that separates the training rows: only its margin could still grow)
LOSS_FLOOR = 1e-4


def _check_limit(name: str, value) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        why = " (a card with no row possible)" if isinstance(value, numbers.Real) and value < 1 else ""
        raise InputError(f"{name} must be an integer >= 1 or None, got {value!r}{why}")
    return int(value)


@attrs.frozen
class RowLimits:
    """What a card may hold: at most ``max_rows`` non-zero rows, every |point| at most
    ``max_points`` (None: no limit); anything else is a one-line InputError."""

    max_rows: int | None = attrs.field(default=None, converter=lambda v: _check_limit("max_rows", v))
    max_points: int | None = attrs.field(default=None, converter=lambda v: _check_limit("max_points", v))

    @classmethod
    def checked(cls, max_rows, max_points, fit_intercept: bool) -> "RowLimits":
        """The limits of an estimator's parameters; a one-line InputError also when ``max_rows``
        is set without an intercept (the card search refits the threshold)."""
        limits = cls(max_rows, max_points)
        if limits.max_rows is not None and not fit_intercept:
            raise InputError("max_rows needs fit_intercept=True (the card search refits the threshold)")
        return limits


@attrs.frozen(eq=False)
class Card:
    """An integer card: ``points`` (d,), the fitted ``scale`` (its grid step) and ``intercept``,
    its training ``loss`` and the ``steps`` (accepted moves) the search made."""

    points: np.ndarray
    scale: float
    intercept: float
    loss: float
    steps: int = 0


@attrs.frozen(eq=False)
class Moves:
    """Candidate moves: coordinate ``j1`` changes by ``d1`` and ``j2`` by ``d2`` (``j2 = -1``:
    a single-coordinate move, ``d2 = 0``)."""

    j1: np.ndarray
    d1: np.ndarray
    j2: np.ndarray
    d2: np.ndarray

    @property
    def size(self) -> int:
        return self.j1.size


def card_losses(X, y, U, loss: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every row of ``U`` (cards, (m, d)): the re-fitted scale a, intercept b and loss
    ``loss(a X u + b, y)`` (see `.refit`)."""
    S = X @ np.atleast_2d(U).T
    a, b = refit_scale(S, y, loss, ridge=RIDGE)
    return a, b, get_datafit(loss).column_values(S * a + b, y)


def _objectives(S, y, A, B, datafit) -> np.ndarray:
    """What the search minimises, per column of the totals ``S``: the loss of ``A S + B`` plus
    the tiny ridge on the scale (`RIDGE`, as the refit has)."""
    return datafit.column_values(S * A + B, y) + 0.5 * RIDGE * A * A


def _warm_losses(S, y, a: float, b: float, loss: str, n_steps: int = N_REFIT):
    """(a, b, objective) per column of the totals ``S`` after at most ``n_steps`` damped Newton
    steps on (a, b) from the current card's (a, b); a column stops once a step no longer lowers
    its objective (`_objectives`).  Each value is that of a real (a, b), so it bounds the
    moved card's from above; the moves change the totals little, so a few steps from the
    current fit come close to the full refit."""
    datafit = get_datafit(loss)
    A, B = np.full(S.shape[1], a), np.full(S.shape[1], b)
    F = _objectives(S, y, A, B, datafit)
    act = np.arange(S.shape[1])  # the columns still moving
    for _ in range(n_steps):
        Sa = S[:, act]
        A_new, B_new, F_new = _newton_step(Sa, y, A[act], B[act], F[act], datafit)
        ok = F_new < F[act]
        moved = act[ok]
        A[moved], B[moved], F[moved] = A_new[ok], B_new[ok], F_new[ok]
        act = moved
        if act.size == 0:
            break
    return A, B, F


def _newton_step(S, y, A, B, F, datafit):
    """One Newton step on every column's (a, b), halved (up to `N_HALVINGS` times) where
    it does not lower the objective ``F``; returns the new (a, b, objective)."""
    G, W = datafit.gradient_and_curvature(S * A + B, y[:, None])
    W = W if W.ndim == 2 else W[:, None]
    WS = W * S
    ga, gb = (G * S).sum(axis=0) + RIDGE * A, G.sum(axis=0)
    haa, hab, hbb = (WS * S).sum(axis=0) + RIDGE, WS.sum(axis=0), W.sum(axis=0) + 1e-12
    det = np.maximum(haa * hbb - hab * hab, 1e-300)
    A_new, B_new = A - (hbb * ga - hab * gb) / det, B - (haa * gb - hab * ga) / det
    F_new = _objectives(S, y, A_new, B_new, datafit)
    for _ in range(N_HALVINGS):
        bad = np.flatnonzero(~(F_new < F))
        if bad.size == 0:
            break
        A_new[bad], B_new[bad] = (A[bad] + A_new[bad]) / 2, (B[bad] + B_new[bad]) / 2
        F_new[bad] = _objectives(S[:, bad], y, A_new[bad], B_new[bad], datafit)
    return A_new, B_new, F_new


def _value_moves(u, support, bound: int, room: bool) -> Moves:
    """Every single-coordinate move: coordinate j to any value in [-bound, bound] but its own;
    a zero coordinate only when the card has ``room`` for one more row."""
    d = u.size
    values = np.arange(-bound, bound + 1)
    J, V = np.meshgrid(np.arange(d), values, indexing="ij")
    keep = (V != u[:, None]) & (support[:, None] | (V == 0) | room)
    j = J[keep]
    return Moves(j, V[keep] - u[j], np.full(j.size, -1), np.zeros(j.size, dtype=np.int64))


def _swap_moves(u, support, bound: int) -> Moves:
    """Every swap: a row j out, a feature l off the card in at any non-zero value."""
    rows, free = np.flatnonzero(support), np.flatnonzero(~support)
    values = np.concatenate([np.arange(-bound, 0), np.arange(1, bound + 1)])
    R, L, V = np.meshgrid(rows, free, values, indexing="ij")
    R, L, V = R.ravel(), L.ravel(), V.ravel()
    return Moves(R, -u[R], L, V)


def _pair_moves(u, support, bound: int) -> Moves:
    """Every +-1 step of two rows of the card at once that keeps both rows non-zero and within
    [-bound, bound]."""
    rows = np.flatnonzero(support)
    i, k = np.triu_indices(rows.size, 1)
    steps = np.array([[1, 1], [1, -1], [-1, 1], [-1, -1]])
    A = np.repeat(rows[i], 4)
    B = np.repeat(rows[k], 4)
    dA, dB = np.tile(steps[:, 0], i.size), np.tile(steps[:, 1], i.size)
    ok = ((u[A] + dA) != 0) & ((u[B] + dB) != 0) & (np.abs(u[A] + dA) <= bound) & (np.abs(u[B] + dB) <= bound)
    return Moves(A[ok], dA[ok], B[ok], dB[ok])


def neighbourhood(u, max_rows: int, bound: int) -> Moves:
    """All the moves of the search from card ``u`` (see the module's docstring)."""
    support = u != 0
    room = int(support.sum()) < max_rows
    parts = [_value_moves(u, support, bound, room), _pair_moves(u, support, bound)]
    if not room:
        parts.append(_swap_moves(u, support, bound))
    return Moves(*(np.concatenate([getattr(p, f) for p in parts]) for f in ("j1", "d1", "j2", "d2")))


def predicted_changes(X, X2, y, s, a: float, b: float, moves: Moves, loss: str) -> np.ndarray:
    """The second-order model's change of F for every move (module docstring), O(n d k);
    ``X2 = X * X``, the same at every step of a search."""
    g, w = get_datafit(loss).gradient_and_curvature(a * s + b, y)
    c = X.T @ g  # (d,)
    Pw = np.stack([X.T @ (w * s), X.T @ w])  # Q' W x_j, (2, d)
    Wq = np.array([[w @ (s * s), w @ s], [w @ s, w.sum()]])
    Wq_inv = np.linalg.pinv(Wq)
    diag = X2.T @ w  # x_j' W x_j
    single = moves.j2 < 0
    j2 = np.where(single, moves.j1, moves.j2)
    d2 = np.where(single, 0, moves.d2)
    rows = np.unique(moves.j1[~single])
    cross = np.zeros(moves.size)
    if rows.size:  # x_j' W x_l for the rows j that pair moves take out or step
        H = (X[:, rows] * w[:, None]).T @ X  # (r, d)
        cross[~single] = H[np.searchsorted(rows, moves.j1[~single]), j2[~single]]
    d1 = moves.d1
    lin = a * (d1 * c[moves.j1] + d2 * c[j2])
    quad = d1 * d1 * diag[moves.j1] + d2 * d2 * diag[j2] + 2 * d1 * d2 * cross
    p = d1 * Pw[:, moves.j1] + d2 * Pw[:, j2]  # (2, m)
    reduced = quad - np.einsum("im,ij,jm->m", p, Wq_inv, p)
    return lin + 0.5 * a * a * np.maximum(reduced, 0.0)


def _moved_totals(X, s, moves: Moves, pick: np.ndarray) -> np.ndarray:
    """The totals ``X u`` after each of the moves ``pick``, one column each."""
    j1, d1, j2, d2 = moves.j1[pick], moves.d1[pick], moves.j2[pick], moves.d2[pick]
    S = s[:, None] + X[:, j1] * d1
    pair = j2 >= 0
    S[:, pair] += X[:, j2[pair]] * d2[pair]
    return S


def _best_move(X, y, s, card: Card, moves: Moves, order: np.ndarray, loss: str):
    """(move index, a, b, objective) of the best exactly evaluated move that lowers ``card``'s
    objective (``card.loss`` holds it here), or None.  The `N_EXACT` best-ranked moves
    are evaluated first; only when none of them improves is all of ``order`` evaluated, with
    more Newton steps (so a step usually costs N_EXACT evaluations, and the last one, which
    shows that nothing improves, all of them)."""
    goal = card.loss - REL_IMPROVEMENT * max(abs(card.loss), 1e-300)
    for pick, n_steps in ((order[:N_EXACT], N_REFIT), (order, N_REFIT_ALL)):
        A, B, F = _warm_losses(_moved_totals(X, s, moves, pick), y, card.scale, card.intercept, loss,
                               n_steps)
        best = int(np.argmin(F))
        if F[best] < goal:
            return int(pick[best]), float(A[best]), float(B[best]), float(F[best])
    return None


def local_search(X, y, u0, loss: str, max_rows: int | None = None, max_points: int | None = None,
                 max_steps: int = MAX_STEPS) -> Card:
    """From the integer card ``u0`` (its rows beyond ``max_rows``, the smallest first, dropped
    and its points clipped to ``max_points``), take the best improving move of the neighbourhood
    until none improves (module docstring); the training loss (with the refit's tiny ridge on
    the scale, which keeps separable totals finite) never rises.  When the
    neighbourhood is small enough to score every move exactly (`EXACT_BUDGET`) the result
    is a local optimum: no move lowers its loss.

    ``max_points=None`` lets the points grow one past the largest of the current card.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    u = feasible(u0, max_rows, max_points)
    k = X.shape[1] if max_rows is None else int(max_rows)
    n_exact = max(N_EXACT, EXACT_BUDGET // max(X.shape[0], 1))
    X2 = X * X
    a, b, f = _refit_objective(X, y, u, loss)
    floor = LOSS_FLOOR * card_losses(X, y, np.zeros_like(u), loss)[2][0]
    steps = 0
    while steps < max_steps and np.any(u) and f > floor:
        s = X @ u
        bound = int(max_points) if max_points is not None else int(np.abs(u).max()) + 1
        moves = neighbourhood(u, k, bound)
        if moves.size == 0:
            break
        order = np.argsort(predicted_changes(X, X2, y, s, a, b, moves, loss), kind="stable")[:n_exact]
        found = _best_move(X, y, s, Card(u, a, b, f), moves, order, loss)
        if found is None:
            break
        m, a, b, f = found
        u = u.copy()
        u[moves.j1[m]] += moves.d1[m]
        if moves.j2[m] >= 0:
            u[moves.j2[m]] += moves.d2[m]
        steps += 1
    refit = _refit_objective(X, y, u, loss)  # the full refit of the last card's scale
    if steps and refit[2] < f:
        a, b, f = refit
    return _oriented(Card(points=u, scale=a, intercept=b, loss=f - 0.5 * RIDGE * a * a, steps=steps))


def _refit_objective(X, y, u, loss: str) -> tuple[float, float, float]:
    """(a, b, objective) of card ``u`` with its scale and intercept fully re-fitted."""
    a, b, f = (float(v[0]) for v in card_losses(X, y, u, loss))
    return a, b, f + 0.5 * RIDGE * a * a


def feasible(u0, max_rows: int | None, max_points: int | None) -> np.ndarray:
    """``u0`` rounded to integers, clipped to ``max_points`` and cut to its ``max_rows`` rows of
    largest |points| (ties: the first feature)."""
    u = np.round(np.asarray(u0, dtype=float)).astype(np.int64)
    if max_points is not None:
        u = np.clip(u, -int(max_points), int(max_points))
    if max_rows is not None and np.count_nonzero(u) > max_rows:
        keep = np.argsort(-np.abs(u), kind="stable")[: int(max_rows)]
        cut = np.zeros_like(u)
        cut[keep] = u[keep]
        u = cut
    return u


def _oriented(card: Card) -> Card:
    """The same card with a positive scale (a negative one flips every point's sign)."""
    if card.scale >= 0:
        return card
    return attrs.evolve(card, points=-card.points, scale=-card.scale)


@attrs.frozen(eq=False)
class CappedPath:
    """A warm-started path (strengths ``lams``, strongest first) stopped after the first fit with
    more than ``max_rows`` rows: ``coefs`` (n_lams, d, grid units; zeros past the stop),
    ``intercepts``, ``n_iter`` and ``start``, the index of the search's seed: the weakest fit
    with at most ``max_rows`` rows, or when that is the null model the next one (whose smallest
    rows the search drops); -1 when every fit is null."""

    coefs: np.ndarray
    intercepts: np.ndarray
    n_iter: np.ndarray
    start: int


def capped_path(X, y, objective: Objective, lams, max_rows: int, options: SolverOptions,
                gram: tuple[np.ndarray, np.ndarray] | None = None) -> CappedPath:
    """The path of ``objective`` down ``lams`` (decreasing), stopped once a fit has more than
    ``max_rows`` rows: weaker fits would only add rows the card cannot keep.  ``gram``
    (`.problem.gram_matrix` of ``X``) may be given to reuse it across gammas."""
    lams = np.asarray(lams, dtype=float)
    X = np.asfortranarray(X, dtype=float)
    U, B = np.zeros((lams.size, X.shape[1])), np.zeros(lams.size)
    iters = np.zeros(lams.size, dtype=int)
    gram = gram_matrix(X) if gram is None else gram
    metric = step_metric(X, objective, options.precondition, gram)
    start, seed = WarmStart(), -1
    # with no more features than rows allowed, no fit can have too many: only the last matters
    first = lams.size - 1 if X.shape[1] <= max_rows else 0
    for i, lam in enumerate(lams[first:], start=first):
        res = solve(X, y, objective, float(lam), options, start, metric=metric, gram=gram)
        U[i], B[i], iters[i] = res.u, res.intercept, res.n_iter
        rows = np.count_nonzero(np.round(res.u))
        if rows > max_rows:
            seed = i if seed < 0 else seed
            break
        start = WarmStart.from_result(res)
        seed = i if rows else seed
    return CappedPath(coefs=U, intercepts=B, n_iter=iters, start=seed)


@attrs.frozen(eq=False)
class GridSearch:
    """`search_grid`'s outcome: per gamma its ``paths`` and searched ``cards`` (None where
    no fit had at most max_rows non-zero rows), and ``best``, the gamma whose card has the
    lowest training loss (-1: none)."""

    paths: list
    cards: list
    best: int


def search_grid(X, y, objective: Objective, gammas, lams, limits: RowLimits,
                options: SolverOptions) -> GridSearch:
    """For each gamma, the Facets path down ``lams[g]`` (`capped_path`), then
    `local_search` from its weakest card with at most ``max_rows`` rows; the best card
    is the one of lowest training loss (ties: fewest points in total, then the first gamma).

    Why the path: at grid step gamma it adds features in the order the penalty admits them,
    with integer points already in place, so it hands the search a card of the right scale
    (one point is worth gamma); the gammas play the part of FasterRisk's multipliers.
    """
    paths, cards = [], []
    X_paths = np.asfortranarray(X, dtype=float)  # the paths' copy and Gram matrix, made once
    gram = gram_matrix(X_paths)
    for g, gamma in enumerate(np.ravel(gammas)):
        at_gamma = attrs.evolve(objective, gamma=float(gamma))
        path = capped_path(X_paths, y, at_gamma, lams[g], limits.max_rows, options, gram)
        paths.append(path)
        card = None
        if path.start >= 0:
            card = local_search(X, y, path.coefs[path.start], objective.loss, limits.max_rows,
                                limits.max_points)
        cards.append(card)
    found = [g for g, c in enumerate(cards) if c is not None]
    best = min(found, key=lambda g: (cards[g].loss, np.abs(cards[g].points).sum(), g), default=-1)
    return GridSearch(paths=paths, cards=cards, best=best)
