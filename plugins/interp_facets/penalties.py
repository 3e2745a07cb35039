"""Separable penalties with closed-form values, proximal operators and subgradient distances.

Every method works elementwise on numpy arrays (scalars are accepted too).  Conventions:

* ``value(w, **hyper)`` is ``sum_j omega(w_j)``;
* ``prox(w, mu, **hyper)`` is ``argmin_v (v - w)^2 / 2 + mu * omega(v)``, elementwise;
* ``subdiff_distance(w, grad, **hyper)`` is, per coordinate, the distance of ``-grad`` to the
  subdifferential ``d omega(w_j)``: zero exactly at a minimiser of ``loss + omega``.

The penalties are those of Belahcene et al. (ACML 2020): Facets
``omega(w) = sum_{i>=0} max(0, |w| - i)`` (eq. 3 gives the closed form), Strongly Convex Facets
``(1 - eps) Facets + eps (|w| + w^2 / 2)`` (eq. 14), and the usual L1, L2 (``w^2 / 2``) and
elastic net.  The grid scale gamma is applied on top of any of them by `prox_scaled`
(eq. 16): ``prox_{mu Omega(. / gamma)}(w) = gamma * prox_{mu / gamma^2 Omega}(w / gamma)``.

Each penalty is a subclass of ``interp.Penalty`` with the three as methods (as skglm's penalty
classes), registered as an instance; the solvers use it bound to its hyperparameters
(``SCF.bind(eps=0.05)``, checked once by ``check_hyper``).  Every built-in prox takes one step
per coordinate and arrays of any shape, and declares so (``per_coordinate_steps``,
``any_shape``).  The module's functions (``prox_facets``, ``scf_value``, ...) are the same
formulas with their inputs checked.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from interp import InputError, Penalty

from .validation import check_eps

__all__ = [
    "FacetsPenalty",
    "SCFPenalty",
    "L1Penalty",
    "L2Penalty",
    "ElasticNetPenalty",
    "PENALTIES",
    "facets_value",
    "prox_facets",
    "facets_subdiff_distance",
    "scf_value",
    "prox_scf",
    "scf_subdiff_distance",
    "prox_scaled",
    "subdiff_distance_scaled",
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


def _check_ratio(l1_ratio: float) -> float:
    l1_ratio = float(l1_ratio)
    if not 0 <= l1_ratio <= 1:
        raise InputError(f"l1_ratio must be in [0, 1], got {l1_ratio}")
    return l1_ratio


def _interval_distance(s: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Distance of s to the interval [lo, hi], elementwise."""
    return np.maximum(np.maximum(lo - s, s - hi), 0.0)


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


def facets_elementwise(w) -> np.ndarray:
    """omega(w) per coordinate, eq. (3): k (k + 1) / 2 + (k + 1)(|w| - k), k = floor(|w|),
    evaluated as (k + 1)(|w| - k / 2) (fewer array operations, same value)."""
    a = np.abs(_arr(w))
    k = np.floor(a)
    return (k + 1.0) * (a - 0.5 * k)


# --------------------------------------------------------------------------- the penalties
# The ``prox`` methods of Facets, SCF and L1 take no input checks: the solvers call them in
# their inner loops, with as few array operations as the formulas allow (on small problems each
# operation's fixed cost dominates).  The public prox_facets and prox_scf add the checks.


class _Elementwise(Penalty):
    """The built-ins' declarations: every method works elementwise, on any shape, with one
    step per coordinate."""

    per_coordinate_steps = True
    any_shape = True


class FacetsPenalty(_Elementwise):
    """Facets: sum_i max(0, |w| - i), the convex envelope of w^2 on the integers"""

    name = "facets"

    def value(self, w) -> float:
        """By the closed form eq. (3)."""
        return float(facets_elementwise(w).sum())

    def prox(self, w, step) -> np.ndarray:
        """Eq. (12): ``|v| = q + (|w| - (1 + mu) q - mu)_+`` with ``q = floor(|w| / (1 + mu))``:
        plateaus of width ``mu`` at every integer, joined by slopes of 45 degrees.  On a
        plateau the result is an exact integer (as a float)."""
        a = np.abs(w)
        period = 1.0 + step
        q = np.floor(a / period)
        r = np.clip(a - period * q, 0.0, period)  # rounding can put it a hair outside the period
        return np.copysign(q + np.minimum(np.maximum(r - step, 0.0), 1.0), w)

    def subdiff_distance(self, w, grad) -> np.ndarray:
        """d omega(w) (eq. 2) is {ceil|w|} off the integers, [k, k + 1] at k > 0, [-1, 1] at 0
        (signs mirrored for w < 0)."""
        w = _arr(w)
        lo, hi = _facets_interval(np.abs(w))
        return _signed_distance(w, _arr(grad), lo, hi)


class SCFPenalty(_Elementwise):
    """Strongly Convex Facets: (1 - eps) Facets + eps (|w| + w^2 / 2)"""

    name = "scf"
    defaults = {"eps": 0.01}

    def check_hyper(self, hyper):
        return {**hyper, "eps": check_eps(hyper["eps"])}

    def value(self, w, eps: float = 0.01) -> float:
        """Eq. (14)."""
        eps = check_eps(eps)
        a = np.abs(_arr(w))
        return (1 - eps) * float(facets_elementwise(a).sum()) + eps * float(np.vdot(a, 1.0 + 0.5 * a))

    def prox(self, w, step, eps: float = 0.01) -> np.ndarray:
        """Eq. (15): ``|v| = floor(a) + min((1 + mu) / (1 + mu eps) (a - floor a), 1)``, ``a =
        ((|w| - mu) / (1 + mu))_+``: the plateaus (but the one at 0) shrink by ``mu eps`` and
        the slopes become ``1 / (1 + mu eps)``."""
        grow = 1.0 + step
        a = np.maximum((np.abs(w) - step) / grow, 0.0)
        k = np.floor(a)
        return np.copysign(k + np.minimum(grow / (1.0 + step * eps) * (a - k), 1.0), w)

    def subdiff_distance(self, w, grad, eps: float = 0.01) -> np.ndarray:
        """d SCF_eps(w) = (1 - eps) d Facets + eps (d|.| + w)."""
        eps = check_eps(eps)
        w = _arr(w)
        a = np.abs(w)
        lo_f, hi_f = _facets_interval(a)  # for w > 0: (1 - eps) [lo_f, hi_f] + eps (1 + w)
        c = eps * (1.0 + a)
        return _signed_distance(w, _arr(grad), (1 - eps) * lo_f + c, (1 - eps) * hi_f + c)


class L1Penalty(_Elementwise):
    """Lasso: sum |w|"""

    name = "l1"

    def value(self, w) -> float:
        return float(np.sum(np.abs(_arr(w))))

    def prox(self, w, step) -> np.ndarray:
        return np.copysign(np.maximum(np.abs(w) - step, 0.0), w)

    def subdiff_distance(self, w, grad) -> np.ndarray:
        w, g = _arr(w), _arr(grad)
        s = np.sign(w)
        return np.where(w == 0, np.maximum(np.abs(g) - 1.0, 0.0), np.abs(g + s))


class L2Penalty(_Elementwise):
    """Ridge: sum w^2 / 2"""

    name = "l2"

    def value(self, w) -> float:
        """The paper's convention: sum w^2 / 2."""
        w = _arr(w)
        return float(np.sum(w * w) / 2)

    def prox(self, w, step) -> np.ndarray:
        return _arr(w) / (1.0 + _check_mu(step))

    def subdiff_distance(self, w, grad) -> np.ndarray:
        return np.abs(_arr(grad) + _arr(w))


class ElasticNetPenalty(_Elementwise):
    """Elastic net: l1_ratio |w| + (1 - l1_ratio) w^2 / 2"""

    name = "elasticnet"
    defaults = {"l1_ratio": 0.5}

    def check_hyper(self, hyper):
        return {**hyper, "l1_ratio": _check_ratio(hyper["l1_ratio"])}

    def value(self, w, l1_ratio: float = 0.5) -> float:
        r = _check_ratio(l1_ratio)
        w = _arr(w)
        return float(np.sum(r * np.abs(w) + (1 - r) * w * w / 2))

    def prox(self, w, step, l1_ratio: float = 0.5) -> np.ndarray:
        mu = _check_mu(step)
        r = _check_ratio(l1_ratio)
        return prox_l1(w, mu * r) / (1.0 + mu * (1 - r))

    def subdiff_distance(self, w, grad, l1_ratio: float = 0.5) -> np.ndarray:
        r = _check_ratio(l1_ratio)
        w, g = _arr(w), _arr(grad)
        s = np.sign(w)
        off = np.abs(g + (1 - r) * w + r * s)
        return np.where(w == 0, np.maximum(np.abs(g) - r, 0.0), off)


FACETS, SCF, L1, L2, ELASTICNET = (FacetsPenalty(), SCFPenalty(), L1Penalty(), L2Penalty(),
                                   ElasticNetPenalty())

#: the built-in penalties, registered by `.plugin.FacetsPlugin`
PENALTIES = (FACETS, SCF, L1, L2, ELASTICNET)


# --------------------------------------------------------------------------- public functions
# The proxes with their inputs checked (a list, a scalar, a negative step), and the values and
# subgradient distances under the names the solvers' tests and the docs use.

facets_value, facets_subdiff_distance = FACETS.value, FACETS.subdiff_distance
scf_value, scf_subdiff_distance = SCF.value, SCF.subdiff_distance
l1_value, l1_subdiff_distance = L1.value, L1.subdiff_distance


def prox_facets(w, mu: float) -> np.ndarray:
    """Proximal operator of mu * Facets, eq. (12) (see `FacetsPenalty.prox`)."""
    return FACETS.prox(_arr(w), _check_mu(mu))


def prox_scf(w, mu: float, eps: float = 0.01) -> np.ndarray:
    """Proximal operator of mu * SCF_eps, eq. (15) (see `SCFPenalty.prox`)."""
    return SCF.prox(_arr(w), _check_mu(mu), check_eps(eps))


def prox_l1(w, mu: float) -> np.ndarray:
    """Soft thresholding: proximal operator of mu * L1."""
    return L1.prox(_arr(w), _check_mu(mu))


# --------------------------------------------------------------------------- the gamma scale


def prox_scaled(prox: Callable, w, mu: float, gamma: float, **hyper) -> np.ndarray:
    """prox of mu * Omega(. / gamma), eq. (16): gamma * prox_{mu / gamma^2 Omega}(w / gamma)."""
    gamma = float(gamma)
    if not gamma > 0:
        raise InputError(f"gamma must be > 0, got {gamma}")
    return gamma * np.asarray(prox(_arr(w) / gamma, mu / gamma**2, **hyper))


def subdiff_distance_scaled(dist: Callable, w, grad, gamma: float, **hyper) -> np.ndarray:
    """Distance of -grad to d[Omega(. / gamma)](w) = (1 / gamma) d Omega(w / gamma)."""
    gamma = float(gamma)
    return np.asarray(dist(_arr(w) / gamma, _arr(grad) * gamma, **hyper)) / gamma
