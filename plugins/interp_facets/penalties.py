"""Separable penalties with closed-form values, proximal operators and subgradient distances.

Every function works elementwise on numpy arrays (scalars are accepted too).  Conventions:

* ``value(w, **hyper)`` is ``sum_j omega(w_j)``;
* ``prox(w, mu, **hyper)`` is ``argmin_v (v - w)^2 / 2 + mu * omega(v)``, elementwise;
* ``subdiff_distance(w, grad, **hyper)`` is, per coordinate, the distance of ``-grad`` to the
  subdifferential ``d omega(w_j)``: zero exactly at a minimiser of ``loss + omega``.

The penalties are those of Belahcene et al. (ACML 2020): Facets
``omega(w) = sum_{i>=0} max(0, |w| - i)`` (eq. 3 gives the closed form), Strongly Convex Facets
``(1 - eps) Facets + eps (|w| + w^2 / 2)`` (eq. 14), and the usual L1, L2 (``w^2 / 2``) and
elastic net.  The grid scale gamma is applied on top of any of them by :func:`prox_scaled`
(eq. 16): ``prox_{mu Omega(. / gamma)}(w) = gamma * prox_{mu / gamma^2 Omega}(w / gamma)``.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from interp import InputError, Penalty

__all__ = [
    "facets_value",
    "prox_facets",
    "facets_subdiff_distance",
    "scf_value",
    "prox_scf",
    "scf_subdiff_distance",
    "prox_scaled",
    "value_scaled",
    "subdiff_distance_scaled",
    "PENALTIES",
]


def _arr(w) -> np.ndarray:
    return np.asarray(w, dtype=float)


def _check_mu(mu):
    """A scalar step, or an array of per-coordinate steps (diagonal metric), all >= 0."""
    if np.ndim(mu) == 0:
        mu = float(mu)
        if not mu >= 0:
            raise InputError(f"the proximal step must be >= 0, got {mu}")
        return mu
    mu = np.asarray(mu, dtype=float)
    if not np.all(mu >= 0):
        raise InputError("the proximal steps must be >= 0")
    return mu


def _check_eps(eps: float) -> float:
    eps = float(eps)
    if not 0 < eps < 1:
        raise InputError(f"eps must be in (0, 1), got {eps}")
    return eps


def _interval_distance(s: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Distance of s to the interval [lo, hi], elementwise."""
    return np.maximum(np.maximum(lo - s, s - hi), 0.0)


# --------------------------------------------------------------------------- Facets


def facets_elementwise(w) -> np.ndarray:
    """omega(w) per coordinate, eq. (3): k (k + 1) / 2 + (k + 1)(|w| - k), k = floor(|w|),
    evaluated as (k + 1)(|w| - k / 2) (fewer array operations, same value)."""
    a = np.abs(_arr(w))
    k = np.floor(a)
    return (k + 1.0) * (a - 0.5 * k)


def facets_value(w) -> float:
    """Facets penalty sum_j sum_{i>=0} max(0, |w_j| - i), by the closed form eq. (3)."""
    return float(facets_elementwise(w).sum())


def prox_facets(w, mu: float) -> np.ndarray:
    """Proximal operator of mu * Facets, eq. (12).

    ``|v| = q + (|w| - (1 + mu) q - mu)_+`` with ``q = floor(|w| / (1 + mu))``: plateaus of width
    ``mu`` at every integer, joined by slopes of 45 degrees.  On a plateau the result is an exact
    integer (as a float).
    """
    return _fast_prox_facets(_arr(w), _check_mu(mu))


def facets_subdiff_distance(w, grad) -> np.ndarray:
    """Distance of -grad to d omega(w) (eq. 2): {ceil|w|} off the integers, [k, k + 1] at k > 0,
    [-1, 1] at 0 (signs mirrored for w < 0)."""
    w = _arr(w)
    lo, hi = _facets_interval(np.abs(w))
    return _signed_distance(w, _arr(grad), lo, hi)


def _facets_interval(a):
    """d Facets at |w| = a for w > 0, as [lo, hi]: {ceil a} off the integers, [k, k + 1] at k."""
    k = np.floor(a)
    hi = k + 1.0
    return hi - (a == k), hi


def _signed_distance(w, g, lo, hi):
    """Distance of -g to the subdifferential [lo, hi] (given for w > 0; [-1, 1] at 0, mirrored
    for w < 0).  Every operation broadcasts, so a scalar w or g needs no copy."""
    zero = w == 0
    lo = np.where(zero, -1.0, lo)
    hi = np.where(zero, 1.0, hi)
    return _interval_distance(np.where(w < 0, g, -g), lo, hi)


# --------------------------------------------------------------------------- Strongly Convex Facets


def scf_value(w, eps: float = 0.01) -> float:
    """SCF_eps = (1 - eps) Facets + eps (|w| + w^2 / 2), eq. (14)."""
    eps = _check_eps(eps)
    a = np.abs(_arr(w))
    return (1 - eps) * float(facets_elementwise(a).sum()) + eps * float(np.vdot(a, 1.0 + 0.5 * a))


def prox_scf(w, mu: float, eps: float = 0.01) -> np.ndarray:
    """Proximal operator of mu * SCF_eps, eq. (15).

    ``|v| = floor(a) + min((1 + mu) / (1 + mu eps) (a - floor a), 1)``,
    ``a = ((|w| - mu) / (1 + mu))_+``: the plateaus (but the one at 0) shrink by ``mu eps`` and
    the slopes become ``1 / (1 + mu eps)``.
    """
    return _fast_prox_scf(_arr(w), _check_mu(mu), _check_eps(eps))


def scf_subdiff_distance(w, grad, eps: float = 0.01) -> np.ndarray:
    """Distance of -grad to d SCF_eps(w): (1 - eps) d Facets + eps (d|.| + w)."""
    eps = _check_eps(eps)
    w = _arr(w)
    a = np.abs(w)
    lo_f, hi_f = _facets_interval(a)  # for w > 0: (1 - eps) [lo_f, hi_f] + eps (1 + w)
    c = eps * (1.0 + a)
    return _signed_distance(w, _arr(grad), (1 - eps) * lo_f + c, (1 - eps) * hi_f + c)


# --------------------------------------------------------------------------- L1, L2, elastic net


def l1_value(w) -> float:
    return float(np.sum(np.abs(_arr(w))))


def prox_l1(w, mu: float) -> np.ndarray:
    return _fast_prox_l1(_arr(w), _check_mu(mu))


def l1_subdiff_distance(w, grad) -> np.ndarray:
    w, g = _arr(w), _arr(grad)
    s = np.sign(w)
    return np.where(w == 0, np.maximum(np.abs(g) - 1.0, 0.0), np.abs(g + s))


def l2_value(w) -> float:
    """Omega^L2 = sum w^2 / 2 (the paper's convention)."""
    w = _arr(w)
    return float(np.sum(w * w) / 2)


def prox_l2(w, mu: float) -> np.ndarray:
    mu = _check_mu(mu)
    return _arr(w) / (1.0 + mu)


def l2_subdiff_distance(w, grad) -> np.ndarray:
    w, g = _arr(w), _arr(grad)
    return np.abs(g + w)


def _check_ratio(l1_ratio: float) -> float:
    l1_ratio = float(l1_ratio)
    if not 0 <= l1_ratio <= 1:
        raise InputError(f"l1_ratio must be in [0, 1], got {l1_ratio}")
    return l1_ratio


def elasticnet_value(w, l1_ratio: float = 0.5) -> float:
    """l1_ratio |w| + (1 - l1_ratio) w^2 / 2."""
    r = _check_ratio(l1_ratio)
    w = _arr(w)
    return float(np.sum(r * np.abs(w) + (1 - r) * w * w / 2))


def prox_elasticnet(w, mu: float, l1_ratio: float = 0.5) -> np.ndarray:
    mu = _check_mu(mu)
    r = _check_ratio(l1_ratio)
    return prox_l1(w, mu * r) / (1.0 + mu * (1 - r))


def elasticnet_subdiff_distance(w, grad, l1_ratio: float = 0.5) -> np.ndarray:
    r = _check_ratio(l1_ratio)
    w, g = _arr(w), _arr(grad)
    s = np.sign(w)
    off = np.abs(g + (1 - r) * w + r * s)
    return np.where(w == 0, np.maximum(np.abs(g) - r, 0.0), off)


# --------------------------------------------------------------------------- the gamma scale


def prox_scaled(prox: Callable, w, mu: float, gamma: float, **hyper) -> np.ndarray:
    """prox of mu * Omega(. / gamma), eq. (16): gamma * prox_{mu / gamma^2 Omega}(w / gamma)."""
    gamma = float(gamma)
    if not gamma > 0:
        raise InputError(f"gamma must be > 0, got {gamma}")
    return gamma * np.asarray(prox(_arr(w) / gamma, mu / gamma**2, **hyper))


def value_scaled(value: Callable, w, gamma: float, **hyper) -> float:
    """Omega(w / gamma)."""
    return float(value(_arr(w) / float(gamma), **hyper))


def subdiff_distance_scaled(dist: Callable, w, grad, gamma: float, **hyper) -> np.ndarray:
    """Distance of -grad to d[Omega(. / gamma)](w) = (1 / gamma) d Omega(w / gamma)."""
    gamma = float(gamma)
    return np.asarray(dist(_arr(w) / gamma, _arr(grad) * gamma, **hyper)) / gamma


# The prox formulas without the public functions' input checks: the solvers call them directly,
# with as few array operations as the formulas allow (on small problems each operation's fixed
# cost dominates).


def _fast_prox_facets(w, step):
    a = np.abs(w)
    period = 1.0 + step
    q = np.floor(a / period)
    r = np.clip(a - period * q, 0.0, period)  # rounding can put it a hair outside the period
    return np.copysign(q + np.minimum(np.maximum(r - step, 0.0), 1.0), w)


def _fast_prox_scf(w, step, eps=0.01):
    grow = 1.0 + step
    a = np.maximum((np.abs(w) - step) / grow, 0.0)
    k = np.floor(a)
    return np.copysign(k + np.minimum(grow / (1.0 + step * eps) * (a - k), 1.0), w)


def _fast_prox_l1(w, step):
    return np.copysign(np.maximum(np.abs(w) - step, 0.0), w)


PENALTIES = (
    Penalty(
        "facets",
        lambda w: facets_value(w),
        _fast_prox_facets,
        lambda w, grad: facets_subdiff_distance(w, grad),
        description="Facets: sum_i max(0, |w| - i), the convex envelope of w^2 on the integers",
    ),
    Penalty(
        "scf",
        scf_value,
        _fast_prox_scf,
        scf_subdiff_distance,
        defaults={"eps": 0.01},
        description="Strongly Convex Facets: (1 - eps) Facets + eps (|w| + w^2 / 2)",
    ),
    Penalty("l1", l1_value, _fast_prox_l1, l1_subdiff_distance, description="Lasso: sum |w|"),
    Penalty("l2", l2_value, prox_l2, l2_subdiff_distance, description="Ridge: sum w^2 / 2"),
    Penalty(
        "elasticnet",
        elasticnet_value,
        prox_elasticnet,
        elasticnet_subdiff_distance,
        defaults={"l1_ratio": 0.5},
        description="Elastic net: l1_ratio |w| + (1 - l1_ratio) w^2 / 2",
    ),
)
