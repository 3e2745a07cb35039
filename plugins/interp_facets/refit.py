"""The scale refit: with the points of a model frozen, re-estimate only its scale and intercept.

The penalty shrinks the whole model, and with shrunk slopes the unpenalised intercept drifts
toward the base rate, so a score card's threshold lands in the wrong place.  Refitting ``y ~ a *
total + b`` without a penalty, where ``total = X u`` is the card's total, puts it back; the
points (and so the integrity) do not change, and the grid step becomes ``a * gamma``.
"""

from __future__ import annotations

import attrs
import numpy as np
from scipy.special import expit

from .datafits import DATAFITS

__all__ = ["refit_scale", "usable"]

#: Newton iterations of the logistic refit, and step halvings within one
N_NEWTON, N_HALVINGS = 30, 30


def refit_scale(S: np.ndarray, y: np.ndarray, loss: str, ridge: float = 1e-6,
                n_newton: int = N_NEWTON) -> tuple[np.ndarray, np.ndarray]:
    """Per column of the scores ``S`` (n, m): the unpenalised 1-D fit ``y ~ a * S[:, k] + b``.

    Logistic loss: damped Newton on the mean log-loss with a tiny ridge on ``a`` (so that
    separable scores stay finite); squared loss: closed form.  Returns (a, b), one value per
    column.
    """
    S = np.asarray(S, dtype=float)
    if S.ndim == 1:
        S = S[:, None]
    y = np.asarray(y, dtype=float)
    if loss == "squared":
        return _squared_refit(S, y, ridge)
    return _logistic_refit(S, y, ridge, n_newton)


def usable(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Where a refit ``(a, b)`` may replace the penalised fit's scale and intercept: a positive,
    finite scale (a flipped sign would reverse the card) and a finite intercept."""
    return (a > 0) & np.isfinite(a) & np.isfinite(b)


def _squared_refit(S, y, ridge):
    s_mean = S.mean(axis=0)
    Sc = S - s_mean
    var = np.mean(Sc * Sc, axis=0)
    a = np.where(var > 0, (Sc.T @ (y - y.mean())) / S.shape[0] / np.maximum(var + ridge, 1e-300), 0.0)
    return a, y.mean() - a * s_mean


def _logistic_refit(S, y, ridge, n_newton):
    """Damped Newton from (a, b) = (0, the log-odds), column by column but vectorised: the
    columns whose gradient has vanished are left alone."""
    m = S.shape[1]
    datafit = DATAFITS["logistic"]
    a = np.zeros(m)
    b = np.full(m, datafit.null_intercept(y))

    def objective(S_, a_, b_):
        return datafit.column_values(S_ * a_ + b_, y) + 0.5 * ridge * a_ * a_

    f = objective(S, a, b)
    y01 = (y + 1) / 2
    act = np.arange(m)  # the columns still moving
    for _ in range(n_newton):
        Sa, aa, ba, fa = S[:, act], a[act], b[act], f[act]
        step = _newton_direction(Sa, aa, ba, y01, ridge)
        da, db = step.da, step.db
        t = np.ones(act.size)
        f_new = objective(Sa, aa + da, ba + db)
        for _ in range(N_HALVINGS):  # halve the steps of the columns whose objective went up
            bad = np.flatnonzero(f_new > fa + 1e-15)
            if bad.size == 0:
                break
            t[bad] /= 2
            f_new[bad] = objective(Sa[:, bad], aa[bad] + t[bad] * da[bad], ba[bad] + t[bad] * db[bad])
        ok = f_new <= fa + 1e-15
        a[act] = np.where(ok, aa + t * da, aa)
        b[act] = np.where(ok, ba + t * db, ba)
        f[act] = np.where(ok, f_new, fa)
        act = act[(np.abs(step.ga) >= 1e-10) | (np.abs(step.gb) >= 1e-10)]
        if act.size == 0:
            break
    return a, b


@attrs.frozen(eq=False)
class _ColumnStep:
    """Per column: the Newton step (da, db) of its 2x2 problem and its gradient (ga, gb)."""

    da: np.ndarray
    db: np.ndarray
    ga: np.ndarray
    gb: np.ndarray


def _newton_direction(S, a, b, y01, ridge) -> _ColumnStep:
    """The Newton step of every column's 2x2 problem, and its gradient."""
    P = expit(S * a + b)
    R = P - y01[:, None]
    W = P * (1 - P)
    ga = (R * S).mean(axis=0) + ridge * a
    gb = R.mean(axis=0)
    haa = (W * S * S).mean(axis=0) + ridge
    hab = (W * S).mean(axis=0)
    hbb = W.mean(axis=0) + 1e-12
    det = haa * hbb - hab * hab
    det = np.where(det > 1e-300, det, 1e-300)
    return _ColumnStep(-(hbb * ga - hab * gb) / det, -(haa * gb - hab * ga) / det, ga, gb)
