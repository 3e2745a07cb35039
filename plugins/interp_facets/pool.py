"""A pool of near-optimal cards: the distinct cards whose objective (the training loss plus the
ridge on the card's weights, `.search.scale_ridge`) is within a tolerance of the best one's.

One card hides how many others fit the data nearly as well.  The card search already evaluates
them: the cards of every seed (one per gamma) and, at the last step of each, the cards one move
away (a row's points changed, a row swapped for another feature, two rows moved together).
`card_pool` keeps of each set of rows the best of them (as FasterRisk keeps one card per
support), polishes its points by a short search on those rows, refits every card's scale and
intercept exactly and keeps those within ``tol`` (relative) of the lowest objective, best first; so
the pool's cards differ in which features they use, not only in a point here or there.
`pool_table` is the table a person reads, and
`feature_shares` the share of those cards that use each feature: a feature on every
near-optimal card is robust, one on a few of them is a choice among equals, not a finding.
"""

from __future__ import annotations

import numbers

import attrs
import numpy as np
import pandas as pd

from interp import InputError

from .search import N_EXACT, Card, card_losses, delivered_fits, local_search
from .space import CardSpace, RowLimits
from .validation import MAX_POOL

__all__ = ["check_pool", "card_pool", "pool_table", "feature_shares", "card_terms"]


def check_pool(pool, pool_tol, limits: RowLimits) -> int:
    """The pool's size (0: no pool) if ``pool`` is None or an integer in [1, MAX_POOL] and
    ``pool_tol`` a number >= 0; a pool needs the card search (``max_rows`` or ``max_features``)."""
    if pool is None:
        return 0
    if isinstance(pool, bool) or not isinstance(pool, numbers.Integral) or not 1 <= pool <= MAX_POOL:
        raise InputError(f"pool must be an integer from 1 to {MAX_POOL:,} or None, got {pool!r}")
    if isinstance(pool_tol, bool) or not isinstance(pool_tol, numbers.Real) or not 0 <= pool_tol < np.inf:
        raise InputError(f"pool_tol must be a number >= 0 (relative loss gap), got {pool_tol!r}")
    if not limits.searches:
        raise InputError("pool needs the card search: set max_rows (or max_features)")
    return int(pool)


#: the most steps of the search that polishes each candidate card on its own rows
POLISH_STEPS = 20


def _canonical(U: np.ndarray, A: np.ndarray) -> np.ndarray:
    """Each card with a positive scale (flipped where its fitted scale is negative) and divided
    by the common factor of its points: one row per model."""
    U = np.where((A < 0)[:, None], -U, U)
    g = np.gcd.reduce(np.abs(U), axis=1)
    return U // np.maximum(g, 1)[:, None]


def _best_per_support(X, y, U: np.ndarray, loss: str, space: CardSpace,
                      ridge: float) -> tuple[np.ndarray, np.ndarray]:
    """The distinct non-empty cards of ``U`` in their canonical form, only the one of lowest
    objective of each set of rows (support), with their objectives, best first.  A card whose
    bounds fix its orientation (``space.oriented``) keeps it: one whose fitted scale is not
    positive is left out."""
    U = np.asarray(U, dtype=np.int64)
    U = U[U.any(axis=1)]
    fits = card_losses(X, y, U, loss, ridge)
    A, F = fits.scale, fits.objective
    if space.oriented:
        U, F, A = U[A > 0], F[A > 0], A[A > 0]
    U = _canonical(U, A)
    order = np.lexsort((np.abs(U).sum(axis=1), F))
    _, first = np.unique(U[order] != 0, axis=0, return_index=True)
    best = order[np.sort(first)]
    return U[best], F[best]


def _on_support(space: CardSpace, u: np.ndarray) -> CardSpace:
    """``space`` with every row off the card ``u`` held at 0."""
    on = u != 0
    return attrs.evolve(space, lower=np.where(on, space.lower, 0.0), upper=np.where(on, space.upper, 0.0))


def card_pool(X, y, candidates: np.ndarray, loss: str, space: CardSpace, size: int, tol: float,
              ridge: float = 0.0) -> list[Card]:
    """The near-optimal cards among ``candidates`` (rows of points): of each set of rows the
    best card, its points polished by a short search on those rows alone (a swapped-in row
    arrives with the others' points tuned for the row it replaced), then those within ``tol``
    (relative) of the lowest objective (training loss plus the ``ridge`` on the weights), best
    first (ties: fewest points in total), at most ``size``; each with its scale and intercept
    fitted on ``X, y`` exactly, without the ridge (`.search.delivered_fits`).  Distinct means
    distinct rows: cards that differ only in points are one card of the pool (the best)."""
    U, _ = _best_per_support(X, y, candidates, loss, space, ridge)
    polished = [local_search(X, y, u, loss, _on_support(space, u), max_steps=POLISH_STEPS, n_exact=N_EXACT,
                             ridge=ridge).points
                for u in U[: 2 * size]]
    U, _ = _best_per_support(X, y, np.array(polished).reshape(-1, X.shape[1]), loss, space, ridge)
    fits = card_losses(X, y, U, loss, ridge)
    F = fits.objective
    keep = np.flatnonzero(F <= F.min(initial=np.inf) * (1 + tol) + 1e-12)[:size]
    A, B = delivered_fits(X, y, U[keep], loss)
    return [Card(points=U[i], scale=float(a), intercept=float(b), loss=float(fits.loss[i]),
                 penalty=float(F[i] - fits.loss[i])) for i, a, b in zip(keep, A, B)]


def card_terms(points, names) -> str:
    """A card's rows as one line: ``age >= 50 +2, bmi >= 30 +1`` (largest |points| first)."""
    rows = sorted(((names[j], int(p)) for j, p in enumerate(points) if p), key=lambda r: -abs(r[1]))
    return ", ".join(f"{name} {p:+d}" for name, p in rows) or "(no row)"


def pool_table(cards: list[Card], X, y, names, loss: str, space: CardSpace) -> pd.DataFrame:
    """One row per card: its rows (``card``), counts of ``rows`` and ``features``, largest
    |points|, training ``loss``, ``objective`` (the loss plus the ridge on the card's weights:
    what the pool is ranked by) and, for a classifier, training ``accuracy`` and ``auc`` of its
    total (for a regressor, ``r2``)."""
    from sklearn.metrics import r2_score, roc_auc_score

    X = np.asarray(X, dtype=float)
    table = []
    for card in cards:
        total = X @ card.points
        score = card.scale * total + card.intercept
        row = dict(card=card_terms(card.points, names), rows=int(np.count_nonzero(card.points)),
                   features=space.counts(card.points)[1], max_points=int(np.abs(card.points).max()),
                   loss=card.loss, objective=card.objective)
        if loss == "logistic":
            row.update(accuracy=float(np.mean(np.where(score > 0, 1.0, -1.0) == y)),
                       auc=float(roc_auc_score(y > 0, total)) if np.unique(y).size == 2 else np.nan)
        else:
            row.update(r2=float(r2_score(y, score)))
        table.append(row)
    return pd.DataFrame(table)


def feature_shares(cards: list[Card], labels: np.ndarray) -> pd.Series:
    """Per feature (``labels``: the feature of every column), the share of ``cards`` with a row
    in it, largest first (ties in the features' order); features on no card are left out."""
    labels = np.asarray([str(label) for label in labels])
    features = list(dict.fromkeys(labels.tolist()))
    used = np.array([[np.any(c.points[labels == f] != 0) for f in features] for c in cards], dtype=float)
    shares = pd.Series(used.mean(axis=0) if cards else np.zeros(len(features)), index=features, name="share")
    shares = shares[shares > 0]
    return shares.iloc[np.argsort(-shares.to_numpy(), kind="stable")]
