"""Each feature's contribution to a symbolic pursuit model's sum on each row, exact to rounding.

The model's sum is f(x) = b + sum_k T_k(x), each term T_k = w_k P_k(x) g_k(u_k(x)) (P_k = 1
without a prefactor), where u_k depends on x only through one linear statistic
l_k = s_k . F_k(x) + c_k of the term's features F_k (the min-max scaled rows for a linear
argument, the scaled logarithms of the positive columns for a monomial one: ``projections``).
Contributions are taken against a baseline row x0 (the training mean), so that on every row
f(x) = f(x0) + sum_j phi_j(x):

* a term without a prefactor gives its change T(x) - T(x0) to the features in proportion to
  s_j (F_j(x) - F_j(x0)): its integrated gradients along the straight path from F(x0) to F(x),
  which that proportion gives exactly, since T depends on F through l alone
  (IG_j = s_j dF_j * integral of H'(l) = s_j dF_j * dH / dl).  For a linear argument
  dF_j is in proportion to x_j - x0_j; for a monomial, to log x_j - log x0_j (the path is
  straight in the logarithms).  Where l barely moves (|dl| at most ``STILL`` times
  sum_j |s_j dF_j|), dH / dl is its limit H'(l(x0));
* a term with a prefactor first shares its change between its two factors by their Shapley
  values, (P - P0) (g + g0) / 2 to P and (g - g0) (P + P0) / 2 to g (their sum is
  P g - P0 g0), then each factor's share between the features by the rule above (P is
  exp(e . log x), a function of its own linear statistic of the logarithms).

A feature no term reads gets exactly 0.  u is clipped as ``predict`` clips it, so the
contributions add up to what ``predict`` (the classifier's ``decision_function``) returns.
"""

from __future__ import annotations

import numpy as np

from .terms import Term

# below this fraction of sum_j |s_j dF_j|, a term's statistic has not moved: its change is split by
# the derivative at the baseline (the change itself is then second order, below 1e-17 of the term)
STILL = 1e-9

__all__ = ["contributions", "term_contributions"]


def contributions(terms, Xs, x0s) -> np.ndarray:
    """(n_rows, n_features): each feature's part of sum_k T_k(x) - T_k(x0) on the scaled rows
    ``Xs``, the baseline ``x0s`` a scaled row of shape (1, n_features)."""
    out = np.zeros(Xs.shape)
    for tm in terms:
        out += term_contributions(tm, Xs, x0s)
    return out


def term_contributions(tm: Term, Xs, x0s) -> np.ndarray:
    """One term's part of ``contributions``: its change from ``x0s`` split between the features
    (see the module docstring)."""
    a = tm.slope() * (tm.projection.features(Xs) - tm.projection.features(x0s))
    g, g0 = (tm.ridge.value(tm.theta, tm.argument(rows)[0]) for rows in (Xs, x0s))
    slope0 = _derivative(tm, x0s)
    if tm.prefactor is None:
        return tm.weight * _split(g - g0, a, slope0)
    pre = tm.prefactor
    P, P0 = pre.values(Xs), pre.values(x0s)
    b = pre.exponents * (pre.kind.logs(Xs) - pre.kind.logs(x0s))
    mean_g, mean_P = (g + g0) / 2, (P + P0) / 2
    return tm.weight * (_split((P - P0) * mean_g, b, P0 * mean_g) + _split((g - g0) * mean_P, a, slope0 * mean_P))


def _derivative(tm: Term, x0s) -> float:
    """dg/dl at the baseline: g'(u) du/dl, 0 where u is clipped there."""
    u, du_dl = tm.projection.transform(tm.linear(x0s))
    clipped, inside = tm.argument(x0s)
    if not inside[0]:
        return 0.0
    _, _, dg_du = tm.ridge.value_and_grad(tm.theta, clipped, max_fallback=None)
    return float(dg_du[0] * du_dl[0])


def _split(change, parts, limit) -> np.ndarray:
    """``change`` (one number per row) split in proportion to the rows of ``parts`` (n, d)
    (where they sum to almost nothing next to their size: ``limit``, the change per unit of
    their sum there, times them)."""
    total = parts.sum(axis=1)
    moved = np.abs(total) > STILL * np.abs(parts).sum(axis=1)
    ratio = np.where(moved, change / np.where(moved, total, 1.0), limit)
    return ratio[:, None] * parts
