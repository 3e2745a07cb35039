"""Cards in a `.space.CardSpace` (points within per-row bounds, at most ``max_rows`` rows
and ``max_features`` features): a local search on the integer points, the scale and intercept
re-fitted at every step.  Every move stays in the space; when its bounds fix the card's
orientation (a monotone feature), a move whose refitted scale turns negative is not taken.

The objective of an integer card ``u`` is ``F(u) = min_{a, b} loss(a X u + b, y) + r/2 |a u|^2``:
the card's points are frozen and only its scale (the grid step) and threshold are fitted, as
`.refit` does; the ridge ``r`` on the card's weights ``a u`` (`scale_ridge`: ``ridge / n``, a
Gaussian prior on each row's weight in logits) makes a card that fits the training rows only
slightly better by much larger weights lose to one that generalises; ``ridge = 0`` leaves the
training loss alone, as FasterRisk minimises it.
`local_search` walks from a start card to a card no single move improves, where a move is

* setting one coordinate to any value in [-M, M] (this adds a row, drops one or changes its
  points),
* a swap: one row out, another feature in at any non-zero value,
* a pair step: two rows of the card each moved by +-1 (a shift the single moves cannot make
  without a worse card in between, e.g. 2a + b -> 3a + 2b),
* a refining move: ``c u + d e_j`` (c = 2, 3, ... while the points stay in bounds, d = +-1),
  the card's ratios made finer on one row; its totals are ``s + (d / c) x_j`` up to the factor
  c, which the refitted scale absorbs, so it is scored as a fractional single move.

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

import attrs
import numpy as np

from .datafits import get_datafit
from .problem import Objective, gram_matrix, step_metric
from .refit import refit_scale
from .solver import SolverOptions, WarmStart, solve
from .space import CardSpace, RowLimits

__all__ = ["RowLimits", "CardSpace", "Card", "CardFits", "card_losses", "scale_ridge", "delivered",
           "delivered_fits", "local_search", "capped_path", "search_grid", "neighbourhood"]

#: moves scored exactly per step: as many as make at most EXACT_BUDGET (rows x moves) values, at
#: least N_EXACT (so a small problem's neighbourhood is scored exactly, move by move); the most
#: steps of one search
EXACT_BUDGET, N_EXACT, MAX_STEPS = 30_000, 24, 500
#: an exact improvement smaller than this (relative to the loss) does not count as one
REL_IMPROVEMENT = 1e-10
#: Newton steps of a moved card's (scale, intercept) fit, started at the current card's: for the
#: first-ranked moves, and for the others, tried when none of those improves (so that a move is
#: not missed for want of steps); the halvings of one step, and the least ridge on the card's
#: weights, which keeps separable totals finite (as in `.refit`; see `scale_ridge`)
N_REFIT, N_REFIT_ALL, N_HALVINGS, RIDGE = 3, 12, 5, 1e-6
#: the search stops once the loss is below this fraction of the intercept-only model's (a card
#: that separates the training rows: only its margin could still grow)
LOSS_FLOOR = 1e-4


@attrs.frozen(eq=False)
class Card:
    """An integer card: ``points`` (d,), the fitted ``scale`` (its grid step) and ``intercept``,
    its training ``loss``, the ridge's ``penalty`` on its weights (``objective``, their sum, is
    what the search minimised: `scale_ridge`), the ``steps`` (accepted moves) the search made
    and, when the search was asked to keep them, ``near``: the cards one move away that it
    evaluated last (rows of points, best first), the candidates of a pool of near-optimal
    cards."""

    points: np.ndarray
    scale: float
    intercept: float
    loss: float
    steps: int = 0
    near: np.ndarray | None = None
    penalty: float = 0.0

    @property
    def objective(self) -> float:
        return self.loss + self.penalty


@attrs.frozen(eq=False)
class Moves:
    """Candidate moves: coordinate ``j1`` changes by ``d1`` and ``j2`` by ``d2`` (``j2 = -1``:
    a single-coordinate move, ``d2 = 0``), then the card is multiplied by ``times`` (1, or c
    for a refining move ``c u + d e_j``: there ``d1 = d / c``, so that the totals ``s + d1 x_j``
    are the new card's up to the factor c, which its refitted scale absorbs)."""

    j1: np.ndarray
    d1: np.ndarray
    j2: np.ndarray
    d2: np.ndarray
    times: np.ndarray

    @classmethod
    def of(cls, j1, d1, j2=None, d2=None, times=1) -> "Moves":
        """Moves from arrays; a missing ``j2`` is -1 (single-coordinate moves)."""
        j1 = np.asarray(j1, dtype=np.int64)
        j2 = np.full(j1.size, -1) if j2 is None else np.asarray(j2, dtype=np.int64)
        d2 = np.zeros(j1.size) if d2 is None else np.asarray(d2, dtype=float)
        return cls(j1, np.asarray(d1, dtype=float), j2, d2, np.broadcast_to(times, j1.shape).astype(np.int64))

    @classmethod
    def joined(cls, parts) -> "Moves":
        return cls(*(np.concatenate([getattr(p, f) for p in parts]) for f in ("j1", "d1", "j2", "d2", "times")))

    @property
    def size(self) -> int:
        return self.j1.size

    def take(self, keep) -> "Moves":
        return Moves(self.j1[keep], self.d1[keep], self.j2[keep], self.d2[keep], self.times[keep])

    def cards(self, u: np.ndarray, pick) -> np.ndarray:
        """The cards (rows of integer points) the moves ``pick`` lead to from ``u``."""
        pick = np.asarray(pick)
        times = self.times[pick]
        U = times[:, None] * np.tile(u, (pick.size, 1))
        rows = np.arange(pick.size)
        U[rows, self.j1[pick]] += np.round(times * self.d1[pick]).astype(np.int64)
        pair = self.j2[pick] >= 0
        U[rows[pair], self.j2[pick][pair]] += np.round(times * self.d2[pick]).astype(np.int64)[pair]
        return U


def scale_ridge(n_rows: int, ridge: float) -> float:
    """The ridge on the norm ``a |u|`` of a card's weights (its points times its scale) in the
    search's objective, in units of the mean loss: ``ridge / n_rows`` (``ridge / 2 |a u|^2`` on
    the summed loss, a Gaussian prior of variance ``1 / ridge`` on each row's weight), plus
    the least ridge `RIDGE` that keeps separable totals finite.  On the norm, not on ``a``:
    a card and its multiples (the same model) pay the same."""
    return RIDGE + float(ridge) / max(int(n_rows), 1)


@attrs.frozen(eq=False)
class CardFits:
    """Per card: the re-fitted ``scale`` and ``intercept``, the training ``loss`` there and the
    ``objective`` (the loss plus the ridge on the card's weights, `scale_ridge`)."""

    scale: np.ndarray
    intercept: np.ndarray
    loss: np.ndarray
    objective: np.ndarray


def card_losses(X, y, U, loss: str, ridge: float = 0.0) -> CardFits:
    """For every row of ``U`` (cards, (m, d)): the scale a and intercept b minimising
    ``loss(a X u + b, y)`` plus the ``ridge`` on the weights ``a u`` (`scale_ridge`; see
    `.refit`)."""
    return _fits(X, y, U, loss, scale_ridge(np.shape(X)[0], ridge))


def _fits(X, y, U, loss: str, r: float) -> CardFits:
    """`card_losses` with the ridge ``r`` on the weights' norm (`scale_ridge`'s value)."""
    U = np.atleast_2d(U)
    norms = _norms(U)
    S = (X @ U.T) / norms
    a, b = refit_scale(S, y, loss, ridge=r)
    values = get_datafit(loss).column_values(S * a + b, y)
    return CardFits(scale=a / norms, intercept=b, loss=values, objective=values + 0.5 * r * a * a)


def delivered_fits(X, y, U, loss: str) -> tuple[np.ndarray, np.ndarray]:
    """The scale and intercept each card (row of ``U``) delivers as a model: `.refit`'s fit of
    its totals (maximum likelihood, with only the tiny ridge on the scale that the risk table's
    fit has too), so that the model predicts the risks its table shows; the search's ridge
    only chose the points."""
    return refit_scale(np.asarray(X, dtype=float) @ np.atleast_2d(U).T, y, loss)


def delivered(card: Card, X, y, loss: str) -> Card:
    """``card`` with the scale and intercept it delivers (`delivered_fits`)."""
    a, b = delivered_fits(X, y, card.points, loss)
    return attrs.evolve(card, scale=float(a[0]), intercept=float(b[0]))


def _norms(U) -> np.ndarray:
    """|u| of each card (row of ``U``); 1 for the empty card, whose scale is free."""
    norms = np.sqrt(np.einsum("ij,ij->i", U, U, dtype=float))
    return np.where(norms > 0, norms, 1.0)


def _objectives(S, y, A, B, datafit, r: float) -> np.ndarray:
    """What the search minimises, per column of the totals ``S`` (each divided by its card's
    norm, so that ``A`` is the norm of the weights): the loss of ``A S + B`` plus the ridge
    ``r`` on ``A`` (`scale_ridge`)."""
    return datafit.column_values(S * A + B, y) + 0.5 * r * A * A


def _warm_losses(S, y, a, b: float, loss: str, r: float, n_steps: int = N_REFIT, positive: bool = False):
    """(a, b, objective) per column of the totals ``S`` (divided by their cards' norms) after
    at most ``n_steps`` damped Newton steps on (a, b) from ``(a, b)`` (``a`` per column: the
    current card's weights' norm); a column stops once a step no longer lowers its objective
    (`_objectives`, with the ridge ``r``).  Each value is that of a real (a, b), so it bounds the
    moved card's from above; the moves change the totals little, so a few steps from the
    current fit come close to the full refit.  With ``positive`` (a card whose orientation its
    bounds fix), a column whose scale ends at or below 0 gets an infinite objective: with a >= 0
    imposed its best is the intercept-only model, never an improvement."""
    datafit = get_datafit(loss)
    A, B = np.broadcast_to(np.asarray(a, dtype=float), S.shape[1]).copy(), np.full(S.shape[1], b)
    F = _objectives(S, y, A, B, datafit, r)
    act = np.arange(S.shape[1])  # the columns still moving
    for _ in range(n_steps):
        Sa = S[:, act]
        A_new, B_new, F_new = _newton_step(Sa, y, A[act], B[act], F[act], datafit, r)
        ok = F_new < F[act]
        moved = act[ok]
        A[moved], B[moved], F[moved] = A_new[ok], B_new[ok], F_new[ok]
        act = moved
        if act.size == 0:
            break
    if positive:
        F[A <= 0] = np.inf
    return A, B, F


def _newton_step(S, y, A, B, F, datafit, r: float):
    """One Newton step on every column's (a, b), halved (up to `N_HALVINGS` times) where
    it does not lower the objective ``F`` (with the ridge ``r`` on a); returns the new (a, b,
    objective)."""
    G, W = datafit.gradient_and_curvature(S * A + B, y[:, None])
    W = W if W.ndim == 2 else W[:, None]
    WS = W * S
    ga, gb = (G * S).sum(axis=0) + r * A, G.sum(axis=0)
    haa, hab, hbb = (WS * S).sum(axis=0) + r, WS.sum(axis=0), W.sum(axis=0) + 1e-12
    det = np.maximum(haa * hbb - hab * hab, 1e-300)
    A_new, B_new = A - (hbb * ga - hab * gb) / det, B - (haa * gb - hab * ga) / det
    F_new = _objectives(S, y, A_new, B_new, datafit, r)
    for _ in range(N_HALVINGS):
        bad = np.flatnonzero(~(F_new < F))
        if bad.size == 0:
            break
        A_new[bad], B_new[bad] = (A[bad] + A_new[bad]) / 2, (B[bad] + B_new[bad]) / 2
        F_new[bad] = _objectives(S[:, bad], y, A_new[bad], B_new[bad], datafit, r)
    return A_new, B_new, F_new


def _value_moves(u, lo, hi) -> Moves:
    """Every single-coordinate move: coordinate j to any value in [lo_j, hi_j] but its own."""
    values = np.arange(lo.min(initial=0), hi.max(initial=0) + 1)
    J, V = np.meshgrid(np.arange(u.size), values, indexing="ij")
    keep = (V != u[:, None]) & (V >= lo[:, None]) & (V <= hi[:, None])
    j = J[keep]
    return Moves.of(j, V[keep] - u[j])


def _swap_moves(u, support, lo, hi) -> Moves:
    """Every swap: a row j out, a feature l off the card in at any non-zero value in its bounds."""
    rows, free = np.flatnonzero(support), np.flatnonzero(~support)
    values = np.arange(lo.min(initial=0), hi.max(initial=0) + 1)
    R, L, V = (g.ravel() for g in np.meshgrid(rows, free, values[values != 0], indexing="ij"))
    keep = (V >= lo[L]) & (V <= hi[L])
    return Moves.of(R[keep], -u[R[keep]], L[keep], V[keep])


def _pair_moves(u, support, lo, hi) -> Moves:
    """Every +-1 step of two rows of the card at once that keeps both rows non-zero and within
    their bounds."""
    rows = np.flatnonzero(support)
    i, k = np.triu_indices(rows.size, 1)
    steps = np.array([[1, 1], [1, -1], [-1, 1], [-1, -1]])
    A = np.repeat(rows[i], 4)
    B = np.repeat(rows[k], 4)
    dA, dB = np.tile(steps[:, 0], i.size), np.tile(steps[:, 1], i.size)
    vA, vB = u[A] + dA, u[B] + dB
    ok = (vA != 0) & (vB != 0) & (vA >= lo[A]) & (vA <= hi[A]) & (vB >= lo[B]) & (vB <= hi[B])
    return Moves.of(A[ok], dA[ok], B[ok], dB[ok])


def _refining_moves(u, lo, hi) -> Moves:
    """Every ``c u + d e_j`` (c = 2, 3, ... while ``c u`` stays within the bounds, d = +-1): the
    card's ratios made finer by half a point, a third, ... on one row (a row off the card
    enters with that fraction).  From ``1 1 1`` no single move reaches ``3 2 2``; a refining
    move does, in one step."""
    parts, c = [Moves.of([], [])], 2
    while u.any() and np.all(c * u >= lo) and np.all(c * u <= hi):  # the bounds are finite
        for d in (-1, 1):
            j = np.flatnonzero((c * u + d >= lo) & (c * u + d <= hi))
            parts.append(Moves.of(j, np.full(j.size, d / c), times=c))
        c += 1
    return Moves.joined(parts)


def neighbourhood(u, space: CardSpace) -> Moves:
    """All the moves of the search from card ``u`` that stay in ``space`` (see the module's
    docstring); swaps only once the card has no room for a row of a new feature.  A move to a
    multiple of ``u`` (``2u``, ``-u``: the same model once the scale re-fits) is left out: only
    the tiny ridge on the scale would tell it apart."""
    support = u != 0
    lo, hi = space.integer_bounds(u)
    parts = [_value_moves(u, lo, hi), _pair_moves(u, support, lo, hi), _refining_moves(u, lo, hi)]
    if space.full(u):
        parts.append(_swap_moves(u, support, lo, hi))
    moves = Moves.joined(parts)
    j2 = np.maximum(moves.j2, 0)
    keep = space.admits(u, moves.j1, u[moves.j1] + moves.d1, moves.j2, u[j2] + moves.d2)
    if np.count_nonzero(u) <= 2:  # a move changes at most two points: only then can it scale u
        V = moves.cards(u, np.arange(moves.size))
        dot = V @ u
        keep &= ~((dot * dot == (V * V).sum(axis=1) * (u @ u)) & V.any(axis=1))
    return moves.take(keep)


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


def _moved_norms(u, moves: Moves) -> np.ndarray:
    """|v| for each move, v = u + d1 e_j1 + d2 e_j2 the card whose totals the move gives
    (`_moved_totals`: a refining move's card up to its factor c); 1 for the empty card, as
    `_norms`."""
    j1, d1, j2, d2 = moves.j1, moves.d1, moves.j2, moves.d2
    u = u.astype(float)
    q = u @ u + (2 * u[j1] + d1) * d1 + np.where(j2 >= 0, (2 * u[np.maximum(j2, 0)] + d2) * d2, 0.0)
    norms = np.sqrt(np.maximum(q, 0.0))
    return np.where(norms > 1e-12, norms, 1.0)


def _moved_totals(X, s, moves: Moves, pick: np.ndarray) -> np.ndarray:
    """The totals ``X u`` after each of the moves ``pick``, one column each."""
    j1, d1, j2, d2 = moves.j1[pick], moves.d1[pick], moves.j2[pick], moves.d2[pick]
    S = s[:, None] + X[:, j1] * d1
    pair = j2 >= 0
    S[:, pair] += X[:, j2[pair]] * d2[pair]
    return S


@attrs.frozen(eq=False)
class _Evaluated:
    """Moves evaluated exactly: their indices ``pick``, and per move the fitted scale ``A``,
    intercept ``B`` and objective ``F``."""

    pick: np.ndarray
    A: np.ndarray
    B: np.ndarray
    F: np.ndarray


@attrs.define(eq=False)
class _Walk:
    """One local search in progress: the data (``X``, ``X2 = X * X``, ``y``, ``loss``), the
    ridge ``r`` on the weights' norm (`scale_ridge`), the ``space`` it moves in, how many moves
    it scores exactly per step (``n_exact``), the loss at which it stops (``floor``), and its
    card ``u`` with scale ``a``, intercept ``b`` and objective ``f``; ``near`` keeps that many
    of the last step's evaluated cards."""

    X: np.ndarray
    X2: np.ndarray
    y: np.ndarray
    loss: str
    r: float
    space: CardSpace
    n_exact: int
    floor: float
    u: np.ndarray
    a: float
    b: float
    f: float
    steps: int = 0
    keep_near: int = 0
    near: np.ndarray | None = None

    def step(self) -> bool:
        """Take the best improving move; False when none improves (the last evaluated cards are
        then kept in ``near``)."""
        moves = neighbourhood(self.u, self.space)
        if moves.size == 0:
            return False
        s = self.X @ self.u
        norms = _moved_norms(self.u, moves)
        ranked = predicted_changes(self.X, self.X2, self.y, s, self.a, self.b, moves, self.loss)
        ranked += 0.5 * self.r * self.a**2 * (norms**2 - self.u @ self.u)
        order = np.argsort(ranked, kind="stable")[: self.n_exact]
        best, done = self._best_move(s, moves, norms, order)
        if best is None:
            if self.keep_near:
                ok = np.flatnonzero(np.isfinite(done.F))
                first = ok[np.argsort(done.F[ok], kind="stable")][: self.keep_near]
                self.near = moves.cards(self.u, done.pick[first])
            return False
        self.u = moves.cards(self.u, done.pick[best : best + 1])[0]
        c = float(moves.times[done.pick[best]])  # a refining move: the real card's scale is A / c
        self.a, self.b = float(done.A[best]) / c, float(done.B[best])
        self.f = float(done.F[best])  # the weights a u are the moved totals' ones: the same ridge
        self.steps += 1
        return True

    def _best_move(self, s: np.ndarray, moves: Moves, norms: np.ndarray,
                   order: np.ndarray) -> tuple[int | None, _Evaluated]:
        """The index of the best exactly evaluated move (of ``moves`` from the card, whose totals
        are ``s``; ``norms``: `_moved_norms`) that lowers the objective, or None, and the moves
        of the last round evaluated (their scales those of the moved cards' totals,
        `_moved_totals`).  The
        `N_EXACT` best-ranked moves (``order``) are evaluated first; only when none of them
        improves is all of ``order`` evaluated, with more Newton steps (so a step usually costs
        N_EXACT evaluations, and the last one, which shows that nothing improves, all of them)."""
        goal = self.f - REL_IMPROVEMENT * max(abs(self.f), 1e-300)
        norm = float(_norms(self.u[None, :])[0])
        for pick, n_steps in ((order[:N_EXACT], N_REFIT), (order, N_REFIT_ALL)):
            A, B, F = _warm_losses(_moved_totals(self.X, s, moves, pick) / norms[pick], self.y, self.a * norm,
                                   self.b, self.loss, self.r, n_steps, self.space.oriented)
            done = _Evaluated(pick, A / norms[pick], B, F)
            best = int(np.argmin(done.F))
            if done.F[best] < goal:
                return best, done
        return None, done

    def run(self, max_steps: int) -> None:
        """Steps until no move improves; then, when every point shares a factor g > 1, the card
        divided by g (the same model, its scale times g) and steps again from there (once per
        divided card, so the walk ends)."""
        divided: set[bytes] = set()
        while self.steps < max_steps and np.any(self.u) and self.f > self.floor:
            if self.step():
                continue
            g = int(np.gcd.reduce(np.abs(self.u)))
            if g <= 1 or (self.u // g).tobytes() in divided:
                return
            self.u = self.u // g
            divided.add(self.u.tobytes())
            self.a, self.b, self.f = _refit_objective(self.X, self.y, self.u, self.loss, self.r)


def local_search(X, y, u0, loss: str, space: CardSpace, max_steps: int = MAX_STEPS, near: int = 0,
                 n_exact: int | None = None, ridge: float = 0.0) -> Card:
    """From the integer card ``u0`` (made feasible first: `CardSpace.feasible`), take the
    best improving move of the neighbourhood until none improves (module docstring); the
    objective, the training loss plus the ``ridge`` on the card's weights (`scale_ridge`),
    never rises.  When the neighbourhood is small enough to score every move exactly
    (`EXACT_BUDGET`) the result is a local optimum: no move lowers its objective.  A card whose
    points share a factor is divided by it (the same model).  ``near`` > 0 keeps that many of
    the cards one move away evaluated at the last step (`Card.near`).  ``n_exact`` caps the
    moves scored exactly per step (default: `EXACT_BUDGET` values, at least `N_EXACT`
    moves): a smaller cap is a cheaper, less thorough search.

    Unbounded points (``space`` without ``max_points``) grow one past the largest of the card.

    Why nine parameters: the data, the start and its space, then keyword options that callers
    set one at a time (a pool's polish ``max_steps`` and ``n_exact``, the grid ``near``, the
    estimators ``ridge``); a record of them would only rename them.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    u = space.feasible(u0)
    r = scale_ridge(X.shape[0], ridge)
    a, b, f = _refit_objective(X, y, u, loss, r)
    if space.oriented and not a > 0:
        u, (a, b, f) = _best_single_row(X, y, space, loss, r)
    floor = LOSS_FLOOR * card_losses(X, y, np.zeros_like(u), loss).loss[0]
    if n_exact is None:
        n_exact = max(N_EXACT, EXACT_BUDGET // max(X.shape[0], 1), near)
    walk = _Walk(X, X * X, y, loss, r, space, n_exact, floor, u, a, b, f, keep_near=near)
    walk.run(max_steps)
    a, b, f = walk.a, walk.b, walk.f
    refit = _refit_objective(X, y, walk.u, loss, r)  # the full refit of the last card's scale
    if walk.steps and refit[2] < f and (refit[0] > 0 or not space.oriented):
        a, b, f = refit
    penalty = 0.5 * r * a * a * float(walk.u @ walk.u)
    card = Card(points=walk.u, scale=a, intercept=b, loss=f - penalty, steps=walk.steps, near=walk.near,
                penalty=penalty)
    return card if space.oriented else _oriented(card)


def _best_single_row(X, y, space: CardSpace, loss: str, r: float):
    """The one-row card of lowest objective with a positive scale (the start of a search whose
    bounds fix the orientation when the given start has none), with its (a, b, objective); the
    empty card when no row has one."""
    lo, hi = space.integer_bounds(np.zeros(X.shape[1], dtype=np.int64))
    moves = _value_moves(np.zeros(X.shape[1], dtype=np.int64), lo, hi)
    U = moves.cards(np.zeros(X.shape[1], dtype=np.int64), np.arange(moves.size))
    fits = _fits(X, y, U, loss, r)
    F = np.where(fits.scale > 0, fits.objective, np.inf)
    if not U.size or not np.isfinite(F).any():
        return np.zeros(X.shape[1], dtype=np.int64), _refit_objective(X, y, np.zeros(X.shape[1]), loss, r)
    best = int(np.argmin(F))
    return U[best], (float(fits.scale[best]), float(fits.intercept[best]), float(F[best]))


def _refit_objective(X, y, u, loss: str, r: float) -> tuple[float, float, float]:
    """(a, b, objective) of card ``u`` with its scale and intercept fully re-fitted (``r``: the
    ridge on its weights' norm, `scale_ridge`)."""
    fits = _fits(X, y, u, loss, r)
    return float(fits.scale[0]), float(fits.intercept[0]), float(fits.objective[0])


def _oriented(card: Card) -> Card:
    """The same card with a positive scale (a negative one flips every point's sign, and the
    near cards' with it)."""
    if card.scale >= 0:
        return card
    near = None if card.near is None else -card.near
    return attrs.evolve(card, points=-card.points, scale=-card.scale, near=near)


@attrs.frozen(eq=False)
class CappedPath:
    """A warm-started path (strengths ``lams``, strongest first) stopped after the first fit
    with more rows or features than the card allows: ``coefs`` (n_lams, d, grid units; zeros
    past the stop), ``intercepts``, ``n_iter`` and ``start``, the index of the search's seed: the
    weakest fit within the limits, or when that is the null model the next one (whose smallest
    rows the search drops); -1 when every fit is null."""

    coefs: np.ndarray
    intercepts: np.ndarray
    n_iter: np.ndarray
    start: int


def capped_path(X, y, objective: Objective, lams, space: CardSpace, options: SolverOptions,
                gram: tuple[np.ndarray, np.ndarray] | None = None) -> CappedPath:
    """The path of ``objective`` down ``lams`` (decreasing), stopped once a fit has more rows
    or features than ``space`` allows: weaker fits would only add rows the card cannot keep.
    ``gram`` (`.problem.gram_matrix` of ``X``) may be given to reuse it across gammas."""
    lams = np.asarray(lams, dtype=float)
    X = np.asfortranarray(X, dtype=float)
    U, B = np.zeros((lams.size, X.shape[1])), np.zeros(lams.size)
    iters = np.zeros(lams.size, dtype=int)
    gram = gram_matrix(X) if gram is None else gram
    metric = step_metric(X, objective, options.precondition, gram)
    start, seed = WarmStart(), -1
    # with no more features than rows allowed, no fit can have too many: only the last matters
    first = lams.size - 1 if X.shape[1] <= min(space.max_rows, space.max_features) else 0
    for i, lam in enumerate(lams[first:], start=first):
        res = solve(X, y, objective, float(lam), options, start, metric=metric, gram=gram)
        U[i], B[i], iters[i] = res.u, res.intercept, res.n_iter
        rows, features = space.counts(np.round(res.u))
        if rows > space.max_rows or features > space.max_features:
            seed = i if seed < 0 else seed
            break
        start = WarmStart.from_result(res)
        seed = i if rows else seed
        if rows and objective.loss == "logistic" and _separates(X @ np.round(res.u), y):
            break  # its card separates the rows: weaker fits only widen the margin
    return CappedPath(coefs=U, intercepts=B, n_iter=iters, start=seed)


def _separates(totals: np.ndarray, y: np.ndarray) -> bool:
    """Whether the totals of a card put every positive row above every negative one (or below:
    the scale's sign flips it)."""
    pos, neg = totals[y > 0], totals[y <= 0]
    return bool(pos.size and neg.size and (pos.min() > neg.max() or pos.max() < neg.min()))


@attrs.frozen(eq=False)
class GridSearch:
    """`search_grid`'s outcome: per gamma its ``paths`` and searched ``cards`` (None where
    no fit was within the limits), and ``best``, the gamma whose card has the lowest objective
    (-1: none)."""

    paths: list
    cards: list
    best: int


def search_grid(X, y, objective: Objective, gammas, lams, space: CardSpace, options: SolverOptions,
                near: int = 0, ridge: float = 0.0) -> GridSearch:
    """For each gamma, the Facets path down ``lams[g]`` (`capped_path`), then
    `local_search` (with the ``ridge`` on the card's weights) from its weakest card within the
    limits; the best card is the one of lowest objective (training loss plus that ridge; ties:
    fewest points in total, then the first gamma).  ``near`` > 0 keeps that many cards one move
    away from each searched card (`Card.near`).

    Why the path: at grid step gamma it adds features in the order the penalty admits them,
    with integer points already in place, so it hands the search a card of the right scale
    (one point is worth gamma); the gammas play the part of FasterRisk's multipliers.

    Why nine parameters: the data, the objective and its grid (``gammas`` and their strengths
    ``lams``), the space and the solver's options, which the CV estimator resolves separately,
    and its two keyword options.
    """
    paths, cards = [], []
    X_paths = np.asfortranarray(X, dtype=float)  # the paths' copy and Gram matrix, made once
    gram = gram_matrix(X_paths)
    for g, gamma in enumerate(np.ravel(gammas)):
        at_gamma = attrs.evolve(objective, gamma=float(gamma))
        path = capped_path(X_paths, y, at_gamma, lams[g], space, options, gram)
        paths.append(path)
        card = None
        if path.start >= 0:
            card = local_search(X, y, path.coefs[path.start], objective.loss, space, near=near, ridge=ridge)
        cards.append(card)
    found = [g for g, c in enumerate(cards) if c is not None]
    best = min(found, key=lambda g: (cards[g].objective, np.abs(cards[g].points).sum(), g), default=-1)
    return GridSearch(paths=paths, cards=cards, best=best)
