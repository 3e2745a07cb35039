"""One term of a symbolic pursuit model, and the fit of a new term to a residual.

A term is w * g(u) with u = max(U_FLOOR, v . x' / (||v|| sqrt(d))) on the min-max scaled rows x',
or, for a monomial term, u = exp(v . l' / (||v|| sqrt(d)) - 1) on the scaled logarithms l' of the
positive columns (``projections``: the term's ``projection`` says which); a term with a
``projections.Prefactor`` P is w * P(x) * g(u).
``fit_term`` fits (theta, v) of one ridge family (and P's exponents, when the term has one) by
L-BFGS-B from given starting points, with the weight w and the offset eliminated in closed form; it is what the estimators run in parallel
(through joblib, so also on a Dask cluster), and this module imports no more than it needs.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from interp import RidgeFamily
from scipy.optimize import minimize

from .families import Ridge
from .projections import LINEAR, direction_scale

log = logging.getLogger("interp_symbolic")

BIG = 1e30  # the loss of an evaluation that failed: every finite loss beats it
TURN_GRID = 257  # points of a term's range of u at which ``turning_points`` looks for g's turns
# a step of g smaller than this fraction of g's spread over the range has no direction (rounding,
# or a flat stretch of a step function): it neither makes nor breaks a turn
TURN_FLAT = 1e-6


class Term:
    """One fitted term w * g(u(v . x')) of the model.

    ``ridge`` evaluates the ridge family the term was fitted with (``ridge_family``, the
    ``interp.RidgeFamily`` resolved at fit time), so the term never needs the registry again.
    ``u_range`` (lo, hi) is the range of u over the training data's box (each feature between
    its training minimum and maximum: ``model.measure_ranges``), to which u is clipped when
    predicting, so only a row outside that box is ever clipped;
    ``closed_form`` is g(u) as a sympy expression in the feature names.  Both are set by the
    estimator at the end of ``fit``.  ``gain`` and ``shift`` (1 and 0 as fitted) make the
    argument ``gain * v.x' / (||v|| sqrt(d)) + shift``: ``tidy`` sets them so that the printed
    argument has round coefficients and no constant.  ``projection`` is the term's kind of
    argument (``projections``: ``LINEAR``, or a monomial of the positive columns); ``prefactor``
    (None, or a ``projections.Prefactor`` P) multiplies g: the term is w * P(x) * g(u).
    Eight parameters: the term's numbers and its two kinds of structure.
    """

    gain = 1.0  # class defaults: a term pickled before gain and shift existed reads as fitted
    shift = 0.0
    projection = LINEAR  # ... and one pickled before projection kinds existed is linear
    prefactor = None  # ... or before prefactors existed has none

    def __init__(self, ridge: Ridge, theta, v, weight: float, gain: float = 1.0, shift: float = 0.0,
                 projection=LINEAR, prefactor=None):
        self.ridge = ridge
        self.projection = projection
        self.prefactor = prefactor
        self.theta = np.asarray(theta, dtype=float)
        self.v = np.asarray(v, dtype=float)
        self.weight = float(weight)
        self.gain = float(gain)
        self.shift = float(shift)
        self.closed_form = None
        self.u_range = None

    def with_weight(self, weight: float) -> Term:
        """A new term with the same ridge function and argument and another ``weight``."""
        return Term(self.ridge, self.theta, self.v, weight, self.gain, self.shift, self.projection, self.prefactor)

    def refitted(self, ridge: Ridge, fit: Candidate) -> Term:
        """A new term of the same kinds with the ridge function ``ridge`` and the parameters,
        direction, weight and prefactor of ``fit`` (``fit_term`` of this term's kinds), as
        fitted (gain 1, shift 0)."""
        prefactor = None if fit.prefactor is None else self.prefactor.with_exponents(fit.prefactor)
        return Term(ridge, fit.theta, fit.v, fit.weight, projection=self.projection, prefactor=prefactor)

    def fit_kinds(self) -> dict:
        """The keyword arguments of ``fit_term`` and ``evaluate_term`` that refit a term of this
        term's kinds (its projection, and its prefactor, whose exponents the fit frees)."""
        return dict(kind=self.projection, prefactor=self.prefactor)

    @property
    def normalised(self) -> bool:
        """Whether the direction's norm is divided out (``projections.direction_scale``): for a
        linear term, and for a Meijer G one of any kind."""
        return _normalised(self.projection, self.ridge)

    @property
    def family(self) -> str:
        """The name of the ridge family."""
        return self.ridge.name

    @property
    def ridge_family(self) -> RidgeFamily:
        return self.ridge.family

    @property
    def orders(self) -> tuple[int, int, int, int] | None:
        """(m, n, p, q) of a Meijer family, None for a custom family."""
        return self.ridge.orders

    def slope(self) -> np.ndarray:
        """The argument's coefficients on the scaled features: gain * v / (||v|| sqrt(d))."""
        return self.gain * self.v * direction_scale(self.v, self.normalised)

    def linear(self, Xs):
        """slope . F + shift on scaled rows (F: the projection kind's features of them): the
        ridge argument before its transform and clip (v . F / (||v|| sqrt(d)) first, then
        scaled and moved: a term as fitted, gain 1 and shift 0, keeps the values it was fitted
        with to the last bit)."""
        F = self.projection.features(Xs)
        return F @ self.v * direction_scale(self.v, self.normalised) * self.gain + self.shift

    def unclipped(self, Xs):
        """The ridge argument u before its clip to ``u_range`` (after the kind's
        transform: the linear kind's floor, the monomial kind's exponential)."""
        return self.projection.transform(self.linear(Xs))[0]

    def argument(self, Xs):
        """The ridge argument u, clipped to ``u_range`` (its range over the training box), and where
        it lies strictly inside that range."""
        u = self.unclipped(Xs)
        lo, hi = self.u_range if self.u_range is not None else (self.projection.floor(), np.inf)
        return np.clip(u, lo, hi), (u > lo) & (u < hi)

    def values(self, Xs, clip=True) -> np.ndarray:
        """P(x) * g(u) on the scaled rows without the weight (P = 1 without a prefactor), u
        clipped to ``u_range`` (``argument``) or, with ``clip`` False, as fitted
        (``unclipped``)."""
        u = self.argument(Xs)[0] if clip else self.unclipped(Xs)
        g = self.ridge.value(self.theta, u)
        return g if self.prefactor is None else g * self.prefactor.values(Xs)

    @property
    def reads(self) -> np.ndarray:
        """Which features the term reads: a non-zero direction coefficient or prefactor exponent."""
        own = self.v != 0
        return own if self.prefactor is None else own | self.prefactor.reads

    def as_dict(self) -> dict:
        d: dict[str, Any] = dict(family=self.family, theta=self.theta.tolist(), direction=self.v.tolist(),
                                 weight=self.weight, gain=self.gain, shift=self.shift,
                                 closed_form=None if self.closed_form is None else str(self.closed_form),
                                 u_range=None if self.u_range is None else list(self.u_range),
                                 projection=self.projection.name,
                                 prefactor=None if self.prefactor is None else self.prefactor.exponents.tolist())
        if self.orders is not None:
            m, n, p, q = self.orders
            d.update(orders=list(self.orders), a=self.theta[:p].tolist(), b=self.theta[p:p + q].tolist(),
                     scale=float(self.theta[p + q]), power=float(self.theta[p + q + 1]))
        return d

    def turns(self, Xs) -> int:
        """How often g turns (``turning_points``) over the range of u on the rows ``Xs``."""
        return turning_points(self.ridge, self.theta, self.unclipped(Xs))

    def __repr__(self) -> str:
        return f"Term({self.family}, w={self.weight:.4g})"


def turning_points(ridge: Ridge, theta, u) -> int:
    """How many times g (``ridge`` at ``theta``) changes direction between the smallest and the
    largest value of ``u``, on ``TURN_GRID`` evenly spaced points: 0 for a monotone g, 1 for a
    single bump or dip, more for an oscillating one (a sine over two periods, a Bessel J)."""
    u = np.asarray(u, dtype=float)
    u = u[np.isfinite(u)]
    if len(u) == 0 or u.max() <= u.min():
        return 0
    with np.errstate(all="ignore"):
        g = np.asarray(ridge.value(np.asarray(theta, dtype=float), np.linspace(u.min(), u.max(), TURN_GRID)))
    if not np.all(np.isfinite(g)):
        return 0
    steps = np.diff(g)
    signs = np.sign(steps[np.abs(steps) > TURN_FLAT * max(np.ptp(g), 1e-300)])
    return int(np.count_nonzero(signs[1:] != signs[:-1]))


@dataclass(frozen=True)
class Candidate:
    """The best term one family reached from its starting points, or why it lost (infinite
    ``loss`` and a ``reason``)."""

    family: str
    loss: float
    theta: np.ndarray | None = None
    v: np.ndarray | None = None
    weight: float = math.nan
    reason: str = ""
    prefactor: np.ndarray | None = None  # the prefactor's exponents (features' units), when the term has one

    @property
    def ok(self) -> bool:
        return bool(np.isfinite(self.loss))


def _normalised(kind, ridge: Ridge) -> bool:
    """Whether a term of ``ridge`` on the projection ``kind`` has its direction's norm divided
    out: always on a normalised kind, and for a Meijer G on any (see ``projections``)."""
    return kind.normalised or ridge.orders is not None


def projection(v, F, kind=LINEAR, normalised=None):
    """u = kind.transform(c v.F) and du/dv (N, d) on the features ``F`` of the projection
    ``kind`` (c: ``direction_scale``, 1 / (||v|| sqrt(d)) when ``normalised``, by default the
    kind's own; the linear kind's floor: u = max(U_FLOOR, .), du/dv zero where floored);
    (None, None) for a zero direction."""
    nv = np.linalg.norm(v)
    if not np.isfinite(nv) or nv == 0:
        return None, None
    normalised = kind.normalised if normalised is None else normalised
    c = direction_scale(v, normalised)
    t = F @ v * c
    u, du_dt = kind.transform(t)
    dt_dv = F * c - np.outer(t, v) / nv**2 if normalised else F * c
    return u, dt_dv * du_dt[:, None]


def _term_objective(ridge: Ridge, F, r, P, kind, M=None):
    """f(params) -> (loss, grad) for params = (theta, v) on the features ``F`` of the projection
    ``kind``, or (theta, v, b) with a prefactor exp(M . b) on the scaled logarithms ``M`` (a
    constant factor changes no loss, so P's own is left out); weight and offset eliminated."""
    n = len(r)
    r = r - r.mean()
    rr = float(r @ r) / n
    d = F.shape[1]
    normalised = _normalised(kind, ridge)

    def f(params):
        theta, v = params[:P], params[P:P + d]
        u, du_dv = projection(v, F, kind, normalised)
        if u is None:
            return BIG, np.zeros_like(params)
        try:
            with np.errstate(all="ignore"):
                g, dth, du = ridge.value_and_grad(theta, u)
                if M is not None:
                    pre = np.exp(M @ params[P + d:])
                    g, dth, du = g * pre, dth * pre, du * pre
        except Exception:  # noqa: BLE001 - a failing family loses, it never aborts the fit
            return BIG, np.zeros_like(params)
        gc = g - g.mean()
        gg = float(gc @ gc)
        if not (np.isfinite(gg) and np.all(np.isfinite(dth)) and np.all(np.isfinite(du))) or gg < 1e-300:
            return BIG, np.zeros_like(params)
        rg = float(r @ gc)
        w = rg / gg
        loss = rr - rg * w / n
        resid = r - w * gc
        coef = -2.0 * w / n * resid  # d loss / d g (envelope: dw drops out)
        parts = [dth @ coef, du_dv.T @ (coef * du)] + ([] if M is None else [M.T @ (coef * g)])
        grad = np.concatenate(parts)
        if not np.all(np.isfinite(grad)):
            return BIG, np.zeros_like(params)
        return loss, grad

    return f


def _lowest_seen(f, name, x0, bounds, maxiter):
    """The lowest (loss, params) L-BFGS-B evaluated for ``f`` from ``x0``, or (inf, None)."""
    seen = {"loss": math.inf, "x": None}

    def fun(x):
        val, grad = f(x)
        if val < seen["loss"]:
            seen["loss"], seen["x"] = val, x.copy()
        return val, grad

    try:
        minimize(fun, x0, jac=True, method="L-BFGS-B", bounds=bounds,
                 options={"maxiter": maxiter, "ftol": 1e-12, "gtol": 1e-9})
    except Exception as exc:  # noqa: BLE001
        log.info("family %s: optimisation failed: %s", name, exc)
    return seen["loss"], seen["x"]


def _lowest_of(f, name, x0s, bounds_of, maxiter):
    """The lowest (loss, params) over the starts ``x0s`` (``bounds_of(x0)``: each one's bounds)."""
    best_loss, best_x = math.inf, None
    for x0 in x0s:
        loss, x = _lowest_seen(f, name, x0, bounds_of(x0), maxiter)
        if x is not None and loss < best_loss:
            best_loss, best_x = loss, x
    return best_loss, best_x


# a prefactor's exponents are bounded to this magnitude in the features' units (a power of 8 of a
# column spanning a factor of 5 already spans 390,625)
PREFACTOR_BOUND = 8.0


def fit_term(ridge: Ridge, Xs, r, starts, maxiter, pinned=None, kind=LINEAR, prefactor=None) -> Candidate:
    """The best term of ``ridge`` over the starting points (theta, v) on the scaled rows ``Xs``
    with the projection ``kind`` (and the ``prefactor``, when given, whose exponents are fitted
    from its own); never raises.

    ``pinned`` (optional boolean mask over the concatenated (theta, v)) holds those parameters
    at their starting values: a snapped parameter or a dropped direction coefficient stays put
    while the others are refitted.  Eight parameters: the fit's and the term's two kinds.
    """
    P = len(ridge.init)
    F = kind.features(Xs)
    M = None if prefactor is None else prefactor.kind.features(Xs)
    f = _term_objective(ridge, F, r, P, kind, M)
    tail = [] if prefactor is None else [prefactor.scaled()]
    x0s = [np.concatenate([theta0, v0, *tail]).astype(float) for theta0, v0 in starts]
    free = list(ridge.bounds) + [(None, None)] * Xs.shape[1]
    if prefactor is not None:
        span = PREFACTOR_BOUND * prefactor.kind.log_range * prefactor.kind.positive
        free += [(-s, s) for s in span]

    def bounds_of(x0):  # pinned parameters are bounded to their start's own values (a prefactor's are free)
        if pinned is None:
            return free
        pins = np.concatenate([pinned, np.zeros(len(free) - len(pinned), dtype=bool)])
        return [(float(v), float(v)) if pin else b for v, pin, b in zip(x0, pins, free)]

    loss, x = _lowest_of(f, ridge.name, x0s, bounds_of, maxiter)
    if x is None or loss >= BIG / 2:
        return Candidate(ridge.name, math.inf, reason="evaluation failed" if x is not None
                         else "no finite evaluation")
    d = Xs.shape[1]
    fitted = None if prefactor is None else prefactor.from_scaled(x[P + d:])
    return evaluate_term(ridge, x[:P], x[P:P + d], Xs, r, kind, fitted)


def evaluate_term(ridge: Ridge, theta, v, Xs, r, kind=LINEAR, prefactor=None) -> Candidate:
    """The term of ``ridge`` at (theta, v) (projection ``kind``, times ``prefactor`` when given)
    with its best weight for ``r`` (offset eliminated), and its loss; never raises (an infinite
    loss says why)."""
    normalised = _normalised(kind, ridge)
    u, _ = projection(v, kind.features(Xs), kind, normalised)
    if u is None:
        return Candidate(ridge.name, math.inf, reason="zero direction")
    if normalised and not kind.normalised:  # a Meijer G monomial: the norm-1 direction reads alike unnormalised
        v = np.asarray(v, dtype=float) / np.linalg.norm(v)
    try:
        g = ridge.value(theta, u, max_fallback=None)
        if prefactor is not None:
            g = g * prefactor.values(Xs)
    except Exception as exc:  # noqa: BLE001 - a failing family loses, it never aborts the fit
        return Candidate(ridge.name, math.inf, reason=f"evaluation failed: {exc}")
    gc = g - g.mean()
    rc = r - r.mean()
    if not np.all(np.isfinite(g)) or float(gc @ gc) == 0:
        return Candidate(ridge.name, math.inf, reason="non-finite values at the optimum")
    w = float(rc @ gc) / float(gc @ gc)
    loss = float(np.mean((rc - w * gc) ** 2))
    return Candidate(ridge.name, loss, theta=np.asarray(theta, dtype=float), v=np.asarray(v, dtype=float), weight=w,
                     prefactor=None if prefactor is None else prefactor.exponents)
