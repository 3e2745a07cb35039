"""``meijerg`` and ``meijerg_grad``: which path computes each point.

Every point is first summed by the fast path (``strategy``; ``extrapolation`` for coincident
first-group poles).  For values, the points whose error estimate exceeds ``bounds.TOL``
(cancellation between the series of close poles, slow convergence near |z| = 1 for p == q) are
continued along the differential equation from an anchor (``continuation``).  Points still not
certified, or that a numerator Gamma at a pole leaves without a residue sum, are recomputed with
mpmath (``fallback``), one by one and only those.
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np

from .bounds import TOL
from .continuation import rescue
from .extrapolation import COINCIDENT, coincident_gap, extrapolated
from .fallback import mp_grad, mp_value
from .series import NumeratorPole, Parameters, common_side, side_gradient, sides
from .strategy import Estimate, adaptive


def estimate(par: Parameters, logw: np.ndarray, want_grad: bool) -> Estimate | None:
    """The fast path for one expansion at every point; None when none exists (all these points
    go to mpmath).  Values only: the points the residue series do not certify (near w = 1 for
    an alternating p == q function, or where close poles cancel) are continued along the
    differential equation (``continuation``)."""
    series = residue_estimate(par, logw, want_grad)
    return series if want_grad else rescue(par, logw, series)


def residue_estimate(par: Parameters, logw: np.ndarray, want_grad: bool) -> Estimate | None:
    """The residue series at every point (perturbed and extrapolated for coincident poles);
    None when no residue sum exists."""
    if coincident_gap(par.m, par.b) >= COINCIDENT:
        try:
            return adaptive(par, logw, want_grad)
        except NumeratorPole:
            pass  # (perturbing the first-group parameters may separate the poles)
    try:
        return extrapolated(par, logw, want_grad)
    except NumeratorPole:
        return None


@attrs.define(eq=False)
class Pointwise:
    """Per point (filled in place): value, gradient (None without), the fast path's relative
    error estimate (inf where it has none) and whether it extrapolated."""

    val: np.ndarray
    ga: np.ndarray | None
    gb: np.ndarray | None
    gz: np.ndarray | None
    rel: np.ndarray
    perturbed: np.ndarray

    @classmethod
    def empty(cls, N: int, p: int, q: int, want_grad: bool) -> Pointwise:
        return cls(np.full(N, np.nan), np.full((p, N), np.nan) if want_grad else None,
                   np.full((q, N), np.nan) if want_grad else None, np.full(N, np.nan) if want_grad else None,
                   np.full(N, np.inf), np.zeros(N, dtype=bool))

    def outputs(self, shape: tuple) -> Any:
        return _outputs(shape, self.val, self.ga, self.gb, self.gz)


def _outputs(shape: tuple, val: np.ndarray, ga=None, gb=None, gz=None) -> Any:
    """The public return value: G, or (G, dG/da, dG/db, dG/dz), in the shape of z."""
    if ga is None:
        return val.reshape(shape)
    return val.reshape(shape), ga.reshape((ga.shape[0],) + shape), gb.reshape((gb.shape[0],) + shape), \
        gz.reshape(shape)


@attrs.define(eq=False)
class Precomputed:
    """The fast path on one side for every point, computed before the general path: ``side``
    the parameters of that side's expansion."""

    direct: bool
    side: Parameters
    estimate: Estimate | None


def _check_arguments(par: Parameters, z: np.ndarray) -> None:
    if z.size and not z.min() > 0:  # (nan fails too)
        raise ValueError("meijerg: z must be > 0 (and finite)")
    if par.q == 0 and par.p == 0:
        raise ValueError("meijerg: p + q must be positive")


def _one_side(par: Parameters, z: np.ndarray, logz: np.ndarray, want_grad: bool) -> Precomputed | None:
    """The common case first: every point on one side of z = 1 (None if not, or if that side's
    residue sum is empty)."""
    direct = common_side(par.p, par.q, z)
    if direct is None:
        return None
    side = par if direct else par.mirrored()
    if side.m == 0:
        return None
    return Precomputed(direct, side, estimate(side, logz if direct else -logz, want_grad))


def _shortcut(pre: Precomputed | None, z: np.ndarray, shape: tuple, want_grad: bool) -> Any:
    """The public result when every point was accepted in one pass and the gradient is finite
    (None otherwise)."""
    if pre is None or pre.estimate is None or not pre.estimate.all_good:
        return None
    est = pre.estimate
    if not want_grad:
        return _outputs(shape, est.val)
    g = side_gradient(pre.direct, pre.side.p, est.grad, est.dlogw, z)
    if not (np.isfinite(g.a).all() and np.isfinite(g.b).all() and np.isfinite(g.z).all()):
        return None
    return _outputs(shape, est.val, g.a, g.b, g.z)


def _fast_path(par: Parameters, z: np.ndarray, logz: np.ndarray, want_grad: bool,
               pre: Precomputed | None) -> Pointwise:
    """Every point by its side's fast path (``pre``: that of one side, already computed)."""
    out = Pointwise.empty(z.size, par.p, par.q, want_grad)
    for sd in sides(par.p, par.q, z):
        sel = sd.points
        if not isinstance(sel, slice) and sel.size == 0:
            continue
        reuse = pre is not None and pre.direct == sd.direct  # the same points, in the same order
        side = pre.side if reuse else par if sd.direct else par.mirrored()
        if side.m == 0:  # empty residue sum: the function is identically zero on this side
            out.val[sel] = 0.0
            out.rel[sel] = 0.0
            if want_grad:
                out.ga[:, sel] = out.gb[:, sel] = 0.0
                out.gz[sel] = 0.0
            continue
        if reuse:
            est = pre.estimate
        else:
            est = estimate(side, logz[sel] if sd.direct else -logz[sel], want_grad)
        if est is None:
            continue  # all these points go to mpmath
        out.val[sel] = est.val
        out.rel[sel] = est.rel
        out.perturbed[sel] = est.perturbed
        if want_grad:
            g = side_gradient(sd.direct, side.p, est.grad, est.dlogw, z[sel])
            out.ga[:, sel], out.gb[:, sel], out.gz[sel] = g.a, g.b, g.z
    return out


def _rejected(out: Pointwise) -> np.ndarray:
    """Points the fast path does not vouch for: estimate not below TOL, or not finite."""
    bad = ~(out.rel < TOL)
    bad |= ~np.isfinite(out.val)
    if out.ga is not None:
        bad |= ~(np.isfinite(out.ga).all(axis=0) & np.isfinite(out.gb).all(axis=0) & np.isfinite(out.gz))
    return bad


def _fall_back(out: Pointwise, bad: np.ndarray, a_s, b_s, z: np.ndarray, max_fallback: int | None) -> None:
    """Recompute the rejected points with mpmath, or set them to NaN if there are more than
    ``max_fallback`` of them."""
    p = out.ga.shape[0] if out.ga is not None else 0
    a_l = [list(map(float, a_s[0])), list(map(float, a_s[1]))]
    b_l = [list(map(float, b_s[0])), list(map(float, b_s[1]))]
    bad_idx = np.nonzero(bad)[0]
    if max_fallback is not None and bad_idx.size > max_fallback:
        out.val[bad_idx] = np.nan  # too many slow points: say so rather than spend minutes
        if out.ga is not None:
            out.ga[:, bad_idx] = out.gb[:, bad_idx] = np.nan
            out.gz[bad_idx] = np.nan
        return
    for i in bad_idx:
        if out.ga is None:
            out.val[i] = mp_value(a_l, b_l, z[i])
            continue
        pg = mp_grad(a_l, b_l, z[i])
        out.val[i] = pg.val
        out.ga[:, i], out.gb[:, i], out.gz[i] = pg.grad[:p], pg.grad[p:-1], pg.grad[-1]


def _evaluate(a_s, b_s, z, want_grad: bool, return_info: bool, max_fallback: int | None):
    with np.errstate(all="ignore"):  # every estimate handles inf / nan explicitly
        par = Parameters.from_mpmath(a_s, b_s)
        z = np.asarray(z, dtype=float)
        shape = z.shape
        z = z.ravel()
        _check_arguments(par, z)
        logz = np.log(z)
        pre = None if return_info else _one_side(par, z, logz, want_grad)
        fast = _shortcut(pre, z, shape, want_grad)
        if fast is not None:
            return fast
        out = _fast_path(par, z, logz, want_grad, pre)
        bad = _rejected(out)
        if not return_info and not bad.any():  # the common case
            return out.outputs(shape)
        _fall_back(out, bad, a_s, b_s, z, max_fallback)
    if not return_info:
        return out.outputs(shape)
    info = dict(fallback=bad.reshape(shape), perturbed=out.perturbed.reshape(shape),
                rel_error=out.rel.reshape(shape))
    return (*out.outputs(shape), info) if want_grad else (out.outputs(shape), info)


def meijerg(a_s: Any, b_s: Any, z: Any, *, return_info: bool = False, max_fallback: int | None = None):
    """G^{m,n}_{p,q}(a_s; b_s | z) for an array of z > 0 (float64), mpmath's convention.

    Points the fast path cannot certify are recomputed with mpmath (30 digits); with
    ``max_fallback=k``, if more than k points need that, they are returned as NaN instead (the
    estimator uses this to keep an optimisation step cheap).

    With ``return_info=True`` also returns ``{"fallback": mask of points computed by mpmath,
    "perturbed": mask of points computed by perturb-and-extrapolate, "rel_error": the fast
    path's relative error estimate}``.
    """
    return _evaluate(a_s, b_s, z, False, return_info, max_fallback)


def meijerg_grad(a_s: Any, b_s: Any, z: Any, *, return_info: bool = False, max_fallback: int | None = None):
    """Value and analytic gradient: ``(G, dG/da (p, N), dG/db (q, N), dG/dz (N,))``.

    ``a`` and ``b`` are flattened in mpmath's order: a_1..a_p, b_1..b_q.
    """
    return _evaluate(a_s, b_s, z, True, return_info, max_fallback)
