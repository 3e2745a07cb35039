"""A fitted model of one size (its terms and intercept) and the least-squares algebra on it.

The estimator grows, simplifies, sparsifies and scores models of every size; all of them go
through these few functions: the terms' values on rows (``design``), the weights and intercept
re-solved by least squares (``solved``), the mean squared error (``mse``) and the argument
ranges predictions clip to (``measure_ranges``: over the data's box).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .terms import Term

# a pursuit step's monomial term (or one with a prefactor) replaces the simpler kind's, and a term
# that turns over the data (a sine, a Bessel function) a monotone one, only when its held-out loss
# is lower by this many relative standard errors of a mean square over the n held-out rows,
# sqrt(2 / n) each (``kind_margin``): a gain within the noise of those rows does not pay for d more
# exponents to read, or for a curve that rises and falls, and an exact law wins by orders of magnitude
MARGIN_ERRORS = 3.0


def kind_margin(n_rows: int) -> float:
    """The factor a richer kind's held-out loss must be below the simpler kind's, measured on
    ``n_rows`` rows: exp(-MARGIN_ERRORS sqrt(2 / n)), sqrt(2 / n) being the relative standard
    error of a mean of n squared Gaussian errors (0.59 on 66 rows, 0.78 on 300)."""
    return math.exp(-MARGIN_ERRORS * math.sqrt(2.0 / max(int(n_rows), 1)))


@dataclass(frozen=True)
class Model:
    """A model of one size: its terms (each carrying its weight) and its intercept."""

    terms: tuple[Term, ...]
    intercept: float

    @property
    def n_features(self) -> int:
        """How many features the model reads: those with a non-zero coefficient in some term."""
        if not self.terms:
            return 0
        return int(np.count_nonzero(np.any([tm.reads for tm in self.terms], axis=0)))


@dataclass(frozen=True)
class Rows:
    """Min-max scaled rows ``Xs`` and the target ``t`` on them."""

    Xs: np.ndarray
    t: np.ndarray


def design(terms, Xs) -> np.ndarray:
    """The terms' values g_k(u_k) (times their prefactors) on the scaled rows, one column per
    term, u clipped to each term's ``u_range`` when it is set, as ``predict`` does."""
    cols = [tm.values(Xs) for tm in terms]
    return np.column_stack(cols) if cols else np.zeros((Xs.shape[0], 0))


def solved(terms, G, t) -> Model:
    """The terms with their weights and the intercept re-solved by least squares on ``t``
    (``G``: the terms' values, ``design``); new Term objects, the given ones are untouched."""
    coef = least_squares(np.column_stack([np.ones(len(t)), G]), t)
    return Model(tuple(tm.with_weight(w) for tm, w in zip(terms, coef[1:])), float(coef[0]))


def least_squares(A, t) -> np.ndarray:
    """argmin ||A x - t||, the columns of ``A`` scaled to unit norm before the solve: lstsq's
    cutoff is relative to the largest singular value, so one term whose values reach 1e20 would
    otherwise zero the weights of all the others (and leave its own at 1e-21)."""
    norms = np.linalg.norm(A, axis=0)
    norms = np.where(np.isfinite(norms) & (norms > 0), norms, 1.0)
    scaled, *_ = np.linalg.lstsq(A / norms, t, rcond=None)
    return scaled / norms


def replaced_in_turn(model: Model, fit: Rows, replace: Callable[[Term, np.ndarray], Term | None]) -> Model | None:
    """``model`` with each term given in turn to ``replace(term, residual)``, the residual what
    the intercept and the other terms leave of the target on ``fit`` (the earlier terms already
    replaced, the weights as they stand), then the weights and intercept re-solved; a term
    ``replace`` returns as it is stays; None when it returns None for one."""
    terms = list(model.terms)
    G = design(terms, fit.Xs)
    w = np.array([tm.weight for tm in terms])
    for k, tm in enumerate(terms):
        residual = fit.t - model.intercept - (G @ w - G[:, k] * w[k])
        new = replace(tm, residual)
        if new is None:
            return None
        if new is not tm:
            terms[k] = new
            G[:, k] = design([new], fit.Xs)[:, 0]
            w[k] = new.weight
    return solved(terms, G, fit.t)


def mse(model: Model, G, t) -> float:
    """The model's mean squared error on ``t`` (``G``: its terms' values on those rows)."""
    w = np.array([tm.weight for tm in model.terms])
    return float(np.mean((t - model.intercept - G @ w) ** 2))


def measure_ranges(terms, Xs) -> None:
    """Set each term's ``u_range`` to the range its argument takes over the box of the rows
    ``Xs`` (each feature between its smallest and largest value there): a row inside that box
    is never clipped, however far its u lies from the u of the rows themselves (those rarely
    fill the box); a row outside it has u clipped at the box's bounds."""
    lo, hi = Xs.min(axis=0), Xs.max(axis=0)
    for tm in terms:
        tm.u_range = box_range(tm, lo, hi)


def box_range(tm: Term, lo, hi) -> tuple[float, float]:
    """The smallest and largest argument of ``tm`` over the box of scaled rows from ``lo`` to
    ``hi``: at its two corners that take each feature at the end where the argument is lowest
    and highest (it is monotone in each feature: linear in the scaled features or in their
    logarithms, then a non-decreasing transform)."""
    up = tm.slope() >= 0
    u = tm.unclipped(np.vstack([np.where(up, lo, hi), np.where(up, hi, lo)]))
    return float(u[0]), max(float(u[0]), float(u[1]))
