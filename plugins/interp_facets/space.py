"""Where a card may live: the points each row may take, how many rows and how many features.

A card is an integer vector ``u`` (one point per column of the design).  What a user knows about
the problem narrows the cards a fit may return:

* **bounds per row**: ``lower_j <= u_j <= upper_j``.  The box ``|u_j| <= max_points`` is the
  symmetric case; a **monotone** feature (``monotone={"age": +1}``: a larger age never lowers
  the score) puts ``lower_j = 0`` on each of its rows (``-1``: ``upper_j = 0``), which on the
  card's columns (``age >= 40``, ``age >= 50``, the per-unit ``age (30-83)``, each rising with
  age) is exactly "the total never falls as age grows"; ``point_bounds={"age >= 50": (0, 3)}``
  sets a row's (or a feature's rows') bounds directly.  Every bound holds 0, so any row may stay
  off the card.
* **directions from the data**: ``monotone=DataDirections(groups, rises)`` (what
  ``card_features(...).data_directions()`` gives, and ``interp run --method facets`` uses by
  default) makes every ordered feature monotone the way its own association with the target goes
  on the rows the estimator is fitted on: a card never gives a row points against what that row's
  feature shows alone (a risk factor never lowers the risk), and never zig-zags along a column
  (``+1 per year`` beside ``years >= 8: -5``).  Resolved at each fit, so a cross-validation
  fold takes its directions from its own training rows.
* **rows and features**: at most ``max_rows`` non-zero rows, and at most ``max_features``
  *features*, a feature being a group of rows (``groups``: the thresholds and the per-unit row of
  one original column), so a card can say "age: 3 bands" for one feature of its budget.

`CardSpace` holds all of it per column, resolved once at fit from the estimator's
parameters (`resolve_space`), for the solver (its per-coordinate box) and the card search
(which moves it may make: `CardSpace.admits`).
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence

import attrs
import numpy as np

from interp import InputError

__all__ = ["RowLimits", "CardSpace", "DataDirections", "resolve_space", "space_of", "group_labels"]


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
    ``max_points``, at most ``max_features`` features (groups of rows) (None: no limit);
    anything else is a one-line InputError."""

    max_rows: int | None = attrs.field(default=None, converter=lambda v: _check_limit("max_rows", v))
    max_points: int | None = attrs.field(default=None, converter=lambda v: _check_limit("max_points", v))
    max_features: int | None = attrs.field(default=None,
                                           converter=lambda v: _check_limit("max_features", v))

    @property
    def searches(self) -> bool:
        """Whether a card search picks the rows (a limit on rows or on features)."""
        return self.max_rows is not None or self.max_features is not None

    @classmethod
    def checked(cls, max_rows, max_points, fit_intercept: bool, max_features=None) -> "RowLimits":
        """The limits of an estimator's parameters; a one-line InputError also when a search is
        asked for without an intercept (the card search refits the threshold)."""
        limits = cls(max_rows, max_points, max_features)
        if limits.searches and not fit_intercept:
            which = "max_rows" if limits.max_rows is not None else "max_features"
            raise InputError(f"{which} needs fit_intercept=True (the card search refits the threshold)")
        return limits


@attrs.frozen(eq=False)
class CardSpace:
    """The cards a fit may return: ``lower <= u <= upper`` per column (floats, infinite where
    unbounded, ``lower <= 0 <= upper``), at most ``max_rows`` non-zero rows and at most
    ``max_features`` distinct ``groups`` (integer codes, one per column) among them."""

    lower: np.ndarray
    upper: np.ndarray
    max_rows: int
    groups: np.ndarray
    max_features: int

    @classmethod
    def box(cls, d: int, max_rows: int | None = None, max_points: int | None = None) -> "CardSpace":
        """Every |point| at most ``max_points``, at most ``max_rows`` rows, each column its own
        feature."""
        bound = np.inf if max_points is None else float(max_points)
        return cls(np.full(d, -bound), np.full(d, bound), d if max_rows is None else int(max_rows),
                   np.arange(d), d)

    @property
    def oriented(self) -> bool:
        """Whether the bounds fix the card's orientation: a card and its negative (the same
        classifier with a negative scale) are not both allowed, so the scale must stay positive."""
        return not np.array_equal(self.lower, -self.upper)

    @property
    def solver_box(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(lower, upper) for the solver's box, or None when no column is bounded."""
        if np.all(np.isinf(self.lower)) and np.all(np.isinf(self.upper)):
            return None
        return self.lower, self.upper

    def integer_bounds(self, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Integer bounds for the moves from card ``u``: an unbounded side is one past the
        largest |point| of ``u`` (so points grow one step at a time)."""
        grow = float(np.abs(u).max(initial=0) + 1)
        lo = np.where(np.isinf(self.lower), -grow, np.ceil(self.lower))
        hi = np.where(np.isinf(self.upper), grow, np.floor(self.upper))
        return lo.astype(np.int64), hi.astype(np.int64)

    def counts(self, u: np.ndarray) -> tuple[int, int]:
        """(rows, features) of card ``u``."""
        on = u != 0
        return int(on.sum()), int(np.unique(self.groups[on]).size)

    def full(self, u: np.ndarray) -> bool:
        """Whether card ``u`` has no room for a row of a new feature."""
        rows, features = self.counts(u)
        return rows >= self.max_rows or features >= self.max_features

    def feasible(self, u0) -> np.ndarray:
        """``u0`` rounded, clipped to the bounds and cut to the rows and features allowed: rows of
        largest |points| first (ties: the first column)."""
        u = np.clip(np.round(np.asarray(u0, dtype=float)), np.ceil(self.lower), np.floor(self.upper))
        u = u.astype(np.int64)
        kept = np.zeros_like(u)
        groups: set[int] = set()
        for j in np.argsort(-np.abs(u), kind="stable"):
            if u[j] == 0 or np.count_nonzero(kept) >= self.max_rows:
                break
            if self.groups[j] in groups or len(groups) < self.max_features:
                groups.add(int(self.groups[j]))
                kept[j] = u[j]
        return kept

    def admits(self, u: np.ndarray, j1, v1, j2, v2) -> np.ndarray:
        """Which moves keep the card within its rows and features: coordinate ``j1`` to value
        ``v1`` and, where ``j2 >= 0``, ``j2`` to ``v2`` (the bounds are the moves' own)."""
        pair = j2 >= 0
        j2 = np.where(pair, j2, j1)
        on = u != 0
        change1 = (v1 != 0).astype(int) - on[j1]
        change2 = np.where(pair, (v2 != 0).astype(int) - on[j2], 0)
        rows, _ = self.counts(u)
        ok = rows + change1 + change2 <= self.max_rows
        count = np.bincount(self.groups[on], minlength=self.groups.max(initial=0) + 1)
        g1, g2 = self.groups[j1], self.groups[j2]
        same = g1 == g2
        after1 = count[g1] + change1 + np.where(same, change2, 0)
        after2 = count[g2] + change2
        features = int((count > 0).sum())
        delta = (after1 > 0).astype(int) - (count[g1] > 0)
        delta += np.where(pair & ~same, (after2 > 0).astype(int) - (count[g2] > 0), 0)
        return ok & (features + delta <= self.max_features)


def _columns_of(key, names: list[str], labels: np.ndarray, what: str) -> np.ndarray:
    """The columns a key of ``monotone`` or ``point_bounds`` names: every column of the group
    labelled ``key``, else the column named ``key``."""
    key = str(key)
    in_group = np.flatnonzero(labels == key)
    if in_group.size:
        return in_group
    if key in names:
        return np.array([names.index(key)])
    shown = ", ".join(sorted(set(map(str, labels)))[:8])
    raise InputError(f"{what} names {key!r}, which is no column or feature of the data (features: {shown})")


def _per_column(spec, d: int, names: list[str], labels: np.ndarray, what: str) -> list[tuple[np.ndarray, object]]:
    """``spec`` (a mapping of column or feature names, or a sequence with one entry per
    column) as (columns, value) pairs."""
    if isinstance(spec, Mapping):
        return [(_columns_of(k, names, labels, what), v) for k, v in spec.items()]
    if isinstance(spec, (str, bytes)) or not isinstance(spec, (Sequence, np.ndarray)):
        raise InputError(f"{what} must be a dict of names or one entry per column, got {type(spec).__name__}")
    if len(spec) != d:
        raise InputError(f"{what} has {len(spec)} entries for {d} columns")
    return [(np.array([j]), v) for j, v in enumerate(spec) if v is not None]


def _direction(value, what: str) -> int:
    if isinstance(value, bool) or value not in (-1, 0, 1):
        raise InputError(f"{what} takes +1 (rising), -1 (falling) or 0 (free), got {value!r}")
    return int(value)


def _bound_pair(value, what: str) -> tuple[float, float]:
    try:
        lo, hi = (float(v) for v in value)
    except (TypeError, ValueError):
        raise InputError(f"{what} takes (lowest, highest) points, got {value!r}") from None
    if not (lo <= 0 <= hi) or np.isnan(lo) or np.isnan(hi):
        raise InputError(f"{what} bounds must hold 0 (a row may stay off the card): got ({lo:g}, {hi:g})")
    return lo, hi


def group_labels(groups, d: int) -> np.ndarray:
    """The feature label of every column (``groups``, one per column; None: each column is its
    own feature, labelled by its index)."""
    if groups is None:
        return np.array([str(j) for j in range(d)])
    labels = np.array([str(g) for g in groups])
    if labels.shape != (d,):
        raise InputError(f"groups has {labels.size} labels for {d} columns")
    return labels


def resolve_space(d: int, names, limits: RowLimits, *, monotone=None, point_bounds=None,
                  groups=None) -> CardSpace:
    """The `CardSpace` of an estimator's parameters for ``d`` columns named ``names``.

    ``groups``: one label per column (columns with one label count as one feature); ``monotone``
    and ``point_bounds``: mappings whose keys name a feature (every column of that group) or a
    column, or sequences with one entry per column.  Unknown names, bad directions and bounds
    that exclude 0 are one-line InputErrors.
    """
    names = [str(n) for n in names]
    labels = group_labels(groups, d)
    box = np.inf if limits.max_points is None else float(limits.max_points)
    lower, upper = np.full(d, -box), np.full(d, box)
    for cols, value in _per_column({} if monotone is None else monotone, d, names, labels, "monotone"):
        direction = _direction(value, "monotone")
        if direction > 0:
            lower[cols] = np.maximum(lower[cols], 0.0)
        elif direction < 0:
            upper[cols] = np.minimum(upper[cols], 0.0)
    for cols, value in _per_column({} if point_bounds is None else point_bounds, d, names, labels,
                                   "point_bounds"):
        lo, hi = _bound_pair(value, "point_bounds")
        lower[cols] = np.maximum(lower[cols], lo)
        upper[cols] = np.minimum(upper[cols], hi)
    _, codes = np.unique(labels, return_inverse=True)
    n_features = int(codes.max(initial=-1)) + 1
    return CardSpace(lower, upper, d if limits.max_rows is None else limits.max_rows, codes.astype(np.int64),
                     n_features if limits.max_features is None else limits.max_features)


@attrs.frozen
class DataDirections:
    """``monotone``'s value for directions read from the training rows: per feature (the columns
    sharing a label of ``groups``; None: each column its own), the sign of the correlation
    between the target and the sum of the feature's columns that rise with its value (``rises``,
    one flag per column; None: all), on the rows where its other columns (``x is missing``) are
    0.  A feature with no rising column (a text column's levels), or whose sum does not vary or
    does not correlate, stays free; its other columns always do.

    The sum of a column's rising rows (its thresholds and per-unit count) grows with the
    column's value, so its sign is that of a monotone association.  ``card_features(...)
    .data_directions()`` makes one for a card's design.
    """

    groups: tuple[str, ...] | None = attrs.field(default=None, converter=attrs.converters.optional(tuple))
    rises: tuple[bool, ...] | None = attrs.field(default=None, converter=attrs.converters.optional(tuple))

    @property
    def orders_any(self) -> bool:
        """Whether some column rises with its feature's value (a design of text levels only
        leaves every column free)."""
        return self.rises is None or any(self.rises)

    def of(self, X, y) -> np.ndarray:
        """One direction per column of ``X`` (+1, -1; 0: free), from the target ``y``.

        A feature with no other column (most of them: 0/1 columns, numbers never missing) is
        read from one pass over ``X``: the covariance of a sum of columns with ``y`` is the sum
        of theirs.  Only a feature with other columns loops, over its present rows."""
        X = np.asarray(X, dtype=float)
        d = X.shape[1]
        rises = np.ones(d, dtype=bool) if self.rises is None else np.asarray(self.rises, dtype=bool)
        if rises.shape != (d,):
            raise InputError(f"DataDirections has {rises.size} rises flags for {d} columns")
        _, codes = np.unique(group_labels(self.groups, d), return_inverse=True)
        y = np.asarray(y, dtype=float)
        with_others = np.bincount(codes[~rises], minlength=codes.max(initial=-1) + 1) > 0
        per_feature = _summed_signs(X, y, codes, rises & ~with_others[codes], with_others.size)
        for g in np.flatnonzero(with_others):
            cols = codes == g
            if (cols & rises).any():
                present = ~X[:, cols & ~rises].any(axis=1)
                per_feature[g] = _association_sign(X[:, cols & rises].sum(axis=1)[present], y[present])
        return np.where(rises, per_feature[codes], 0)


def _summed_signs(X, y, codes, columns, n_features: int) -> np.ndarray:
    """Per feature, the sign of the covariance of ``y`` with the sum of its ``columns`` (a
    mask), over all rows; 0 for a feature without such columns, or whose covariance is within
    rounding (1e-12) of 0 relative to the sum of its columns' standard deviations times
    ``y``'s (a bound on the product of the two, exact for a single column)."""
    n = X.shape[0]
    dy = y - y.mean()
    cov = X.T @ dy  # = (X - mean).T @ dy, since dy sums to 0
    spread = np.sqrt(np.maximum(np.einsum("ij,ij->j", X, X) - X.sum(axis=0) ** 2 / max(n, 1), 0.0))
    cov_f = np.bincount(codes[columns], weights=cov[columns], minlength=n_features)
    bound = np.bincount(codes[columns], weights=spread[columns], minlength=n_features) * np.sqrt(dy @ dy)
    return np.where((bound > 0) & (np.abs(cov_f) > 1e-12 * bound), np.sign(cov_f), 0).astype(np.int64)


def _association_sign(x: np.ndarray, y: np.ndarray) -> int:
    """The sign of the correlation of ``x`` and ``y`` (0 with fewer than two rows, when either
    is constant, or when they do not correlate beyond rounding)."""
    if x.size < 2:
        return 0
    dx, dy = x - x.mean(), y - y.mean()
    cov, scale = float(dx @ dy), float(np.sqrt((dx @ dx) * (dy @ dy)))
    return int(np.sign(cov)) if scale > 0 and abs(cov) > 1e-12 * scale else 0


def space_of(estimator, X, y, limits: RowLimits) -> CardSpace:
    """The `CardSpace` of a Facets estimator's parameters (``monotone``, ``point_bounds``,
    ``groups``) for the columns of ``X``, named by ``feature_names_in_`` (else ``x0``, ``x1``,
    ...); a `DataDirections` ``monotone`` reads its directions from ``X`` and the target ``y``."""
    d = X.shape[1]
    names = getattr(estimator, "feature_names_in_", None)
    names = [f"x{j}" for j in range(d)] if names is None else list(names)
    monotone = estimator.monotone
    if isinstance(monotone, DataDirections):
        monotone = monotone.of(X, y)
    return resolve_space(d, names, limits, monotone=monotone, point_bounds=estimator.point_bounds,
                         groups=estimator.groups)
