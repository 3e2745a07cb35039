"""Closed forms: small ridge families g(u) a fitted Meijer G term may be rewritten as.

Each of the paper's five Meijer G configurations contains, at special parameters, functions
Phi(w u^q) u^t with Phi an elementary or named special function (exp, sin, cos, sinh, cosh,
log(1 + .), arctan, arcsin, 1/(1 + .), Bessel J, Y, I, Gamma).  A ``ClosedForm`` is one such
sub-family with few parameters, written as an ``interp.RidgeFamily`` (``value``, ``gradient``,
``init_theta``) that also knows how to print itself (``expression``), where to start a fit
(``starts``), which simpler parameters to try (``snaps``) and its optimisation ``bounds``.

Closed forms are not ridge families the pursuit fits new terms with: they only rewrite a term
already fitted, so they have their own hook, ``register_closed_forms`` (``hookspecs``), which the
``symbolic`` plugin adds and uses to register the built-in forms (``builtin_closed_forms``).
``registered_closed_forms`` resolves every plugin's forms, simplest first.  ``fit_curve`` fits a
form to the values of a term at fixed arguments (variable projection: the term's weight and
offset are eliminated).  Every form is evaluated on u in (0, 1], where the ridge argument lies;
its bounds keep it finite there (no overflow, logarithms and arcsines inside their domains).

sympy and scipy are imported on first use, not with this module: listing the plugins builds the
catalogue of forms, and the forms name the functions they use (`Named`) rather than hold them.
"""

from __future__ import annotations

import importlib
import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np
from interp import RidgeFamily, plugin_manager, registry

from .families import bound_arrays

if TYPE_CHECKING:
    import sympy as sp

__all__ = ["ClosedForm", "Outer", "Named", "Scaled", "CurveFit", "builtin_closed_forms", "registered_closed_forms",
           "fit_curve", "exact_number", "HOOK"]

HOOK = "register_closed_forms"
STARTS_POINTS = 256  # starts() profiles its grid on at most this many arguments (quantiles of u)
N_STARTS = 3  # starts() returns this many polished local minima of the profiled grid ...
CANDIDATES = 8  # ... the best of this many, each polished by ...
POLISH_STEPS = 10  # ... this many damped Gauss-Newton steps
SNAP_RTOL = 0.05  # a parameter snaps to a rational within this fraction of max(1, |value|)
SNAP_DENOMINATORS = (1, 2, 3, 4)  # ... with one of these denominators (angles: multiples of pi / 4)
MAX_SNAPS = 6
EXACT_DENOMINATOR = 12  # expression() prints a parameter within 1e-12 of p/q (q <= 12) as p/q
EXACT_TOL = 1e-12


def exact_number(x: float, angle: bool = False) -> sp.Expr:
    """``x`` as a sympy number: the Rational p/q (q <= 12) it equals to 1e-12 (for an ``angle``,
    pi times one), else a Float, so that a snapped parameter prints exactly (sin(u + pi/2)
    is cos(u))."""
    import sympy as sp

    x = float(x)
    unit = math.pi if angle else 1.0
    fr = Fraction(x / unit).limit_denominator(EXACT_DENOMINATOR)
    if abs(float(fr) * unit - x) <= EXACT_TOL * max(1.0, abs(x)):
        number = sp.Rational(fr.numerator, fr.denominator)
        return number * sp.pi if angle else number
    return sp.Float(x)


def exact_parameters(form, theta) -> np.ndarray:
    """Which of ``theta`` print exactly (``exact_number`` finds a small rational, or pi times one
    for the form's ``angles``): the parameters a snap set, which a later refit keeps pinned."""
    import sympy as sp

    angles = getattr(form, "angles", ())
    return np.array([not isinstance(exact_number(x, angle=i in angles), sp.Float) for i, x in enumerate(theta)],
                    dtype=bool)


class ClosedForm(RidgeFamily):
    """A ridge family g(theta, u) with a printable closed form, for rewriting fitted terms.

    Besides ``RidgeFamily``'s ``value(theta, u)``, ``gradient(theta, u)`` (d/dtheta of shape
    (P, N), d/du of shape (N,)) and ``init_theta``, a subclass defines:

    - ``complexity`` (class attribute, int >= 1): the operations of its printed g(u); the
      simplification tries the forms simplest first;
    - ``expression(theta, u) -> sympy.Expr``: g at ``theta`` as a real sympy expression of the
      sympy symbol or expression ``u`` (elementary or a named special function);
    - ``bounds`` (optional): (lo, hi) per parameter, None for no bound; the optimiser keeps
      theta inside, so g must be finite for u in (0, 1] everywhere inside;
    - ``grid`` (optional): one sequence of values per parameter; the default ``starts`` profiles
      their product (see ``profile_starts``), or else starts at ``init_theta``;
    - ``starts(u, g) -> list of theta`` and ``snaps(theta) -> list of theta`` (optional:
      the defaults use ``grid``, and snap parameters to small rationals; ``angles`` lists the
      parameters that are angles, snapped to multiples of pi/4, and ``zero_snaps`` those that
      may snap to 0).
    """

    kind = "closed form"
    complexity: int = 0
    bounds: Any = None
    grid: Any = ()
    angles: tuple[int, ...] = ()
    zero_snaps: tuple[int, ...] = ()

    def __init__(self, name: str | None = None, *, description: str | None = None):
        if name is not None:
            self._set("name", name)
        try:
            self._set("bounds", _normalised_bounds(self.bounds, len(self.init_theta or ())))
            self._set("grid", tuple(tuple(float(v) for v in axis) for axis in self.grid))
        except (TypeError, ValueError) as err:
            self.fail(f"bounds must be (lo, hi) pairs and grid one sequence of numbers per parameter ({err})")
        super().__init__(name, description=description)

    def validate(self) -> None:
        super().validate()
        if self.orders is not None:
            self.fail("a closed form is a custom family (value and gradient), not a Meijer G configuration")
        P = len(self.init_theta)
        if not isinstance(self.complexity, int) or isinstance(self.complexity, bool) or self.complexity < 1:
            self.fail(f"complexity must be a positive int, got {self.complexity!r}")
        if not callable(getattr(self, "expression", None)):
            self.fail("a closed form needs expression(theta, u)")
        if len(self.bounds) != P:
            self.fail(f"bounds has {len(self.bounds)} pairs for {P} parameters")
        for i, (lo, hi) in enumerate(self.bounds):
            if lo is not None and hi is not None and not lo < hi:
                self.fail(f"bounds[{i}] = ({lo}, {hi}) is empty")
        if not inside_bounds(np.asarray(self.init_theta), self.bounds):
            self.fail(f"init_theta {self.init_theta} is outside the bounds {self.bounds}")
        if self.grid and len(self.grid) != P:
            self.fail(f"grid has {len(self.grid)} axes for {P} parameters")

    def starts(self, u, g) -> list[np.ndarray]:
        """Initial parameters for a fit of weight * g(theta, u) + offset to ``g``: the best local
        minima of the profiled loss over ``grid`` (or ``init_theta`` without a grid)."""
        if not self.grid:
            return [np.asarray(self.init_theta, dtype=float)]
        return profile_starts(self, u, g)

    def snaps(self, theta) -> list[np.ndarray]:
        """``theta`` with parameters snapped to nearby small rationals (see ``snap_options``),
        most aggressive first: more parameters snapped first, then smaller denominators."""
        theta = np.asarray(theta, dtype=float)
        options = [snap_options(x, angle=i in self.angles, zero=i in self.zero_snaps)
                   for i, x in enumerate(theta)]
        combos = []
        for choice in itertools.product(*[[None, *opts] for opts in options]):
            if all(c is None for c in choice):
                continue
            snapped = np.array([theta[i] if c is None else c[0] for i, c in enumerate(choice)])
            if inside_bounds(snapped, self.bounds):
                size = sum(c[1] for c in choice if c is not None)
                combos.append((-sum(c is not None for c in choice), size, snapped))
        combos.sort(key=lambda c: c[:2])
        return [snapped for _, _, snapped in combos[:MAX_SNAPS]]


def _normalised_bounds(bounds, P: int) -> tuple[tuple[float | None, float | None], ...]:
    if bounds is None:
        return ((None, None),) * P
    return tuple((None if lo is None else float(lo), None if hi is None else float(hi)) for lo, hi in bounds)


def inside_bounds(theta: np.ndarray, bounds) -> bool:
    """Whether ``theta`` is finite and within ``bounds`` ((lo, hi) pairs, None for no bound)."""
    return bool(np.all(np.isfinite(theta))) and all(
        (lo is None or x >= lo) and (hi is None or x <= hi) for x, (lo, hi) in zip(theta, bounds))


def snap_options(x: float, angle: bool = False, zero: bool = False) -> list[tuple[float, int]]:
    """(value, denominator) of the rationals p/q (q in ``SNAP_DENOMINATORS``; pi p/q for an
    angle) within ``SNAP_RTOL`` of ``x``, simplest first; 0 only when ``zero``."""
    unit = math.pi if angle else 1.0
    tol = SNAP_RTOL * max(1.0, abs(x) / unit)
    found: list[tuple[float, int]] = []
    for q in SNAP_DENOMINATORS:
        r = round(x / unit * q) / q
        if abs(x / unit - r) <= tol and (r != 0 or zero) and all(r * unit != v for v, _ in found):
            found.append((r * unit, q))
    return found


def _unexplained(g: np.ndarray, yc: np.ndarray, yy: float) -> float:
    """1 - corr(g, y)^2: the share of the centred values ``yc`` (``yy`` = yc . yc) that the best
    weight * g + offset leaves unexplained (inf when g is not finite or constant)."""
    gc = g - g.mean()
    gg = float(gc @ gc)
    if not (np.isfinite(gg) and gg > 1e-300 * yy):
        return math.inf
    return 1.0 - float(gc @ yc) ** 2 / (gg * yy)


def _quantile_sample(u: np.ndarray, g: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """At most ``size`` of the points (u, g), evenly spread over the order of u."""
    if u.size <= size:
        return u, g
    order = np.argsort(u, kind="stable")[np.linspace(0, u.size - 1, size).astype(int)]
    return u[order], g[order]


def _local_minima(loss: np.ndarray) -> np.ndarray:
    """Where a finite grid value is no larger than any of its neighbours (diagonals included,
    so that a valley across the axes holds few minima)."""
    padded = np.pad(loss, 1, constant_values=np.inf)
    minimum = np.isfinite(loss)
    for shift in itertools.product((0, 1, 2), repeat=loss.ndim):
        if shift != (1,) * loss.ndim:
            minimum &= loss <= padded[tuple(slice(s, s + n) for s, n in zip(shift, loss.shape))]
    return minimum


def profile_starts(form: ClosedForm, u, g, keep: int = N_STARTS) -> list[np.ndarray]:
    """Starts from the local minima, over the product of ``form.grid``, of the share of ``g``
    that weight * form(theta, u) + offset leaves unexplained (the weight and offset solved in
    closed form), on at most ``STARTS_POINTS`` quantiles of u; [init_theta] when g is constant.

    The best ``CANDIDATES`` minima are polished by a few damped Gauss-Newton steps and the
    ``keep`` best distinct results returned: on a coarse grid the point nearest the true parameters of a
    two-parameter form can score worse than points along a long valley of near-fits, which the
    polish resolves.
    """
    u, g = _quantile_sample(np.asarray(u, dtype=float), np.asarray(g, dtype=float), STARTS_POINTS)
    yc = g - g.mean()
    yy = float(yc @ yc)
    if not (np.isfinite(yy) and yy > 0):
        return [np.asarray(form.init_theta, dtype=float)]
    shape = tuple(len(axis) for axis in form.grid)
    points = np.array(list(itertools.product(*form.grid)), dtype=float)
    with np.errstate(all="ignore"):
        loss = np.array([_unexplained(np.asarray(form.value(th, u), dtype=float), yc, yy) for th in points])
    best = np.flatnonzero(_local_minima(loss.reshape(shape)).ravel())
    best = best[np.argsort(loss[best], kind="stable")][:CANDIDATES]
    polished = sorted((_damped_gauss_newton(form, u, yc, points[i], POLISH_STEPS) for i in best),
                      key=lambda p: p[0])
    starts: list[np.ndarray] = []
    for _, theta in polished:  # distinct ones: polishing often takes neighbours to one minimum
        if len(starts) < keep and all(not np.allclose(theta, s, rtol=0.1, atol=1e-2) for s in starts):
            starts.append(theta)
    return starts or [np.asarray(form.init_theta, dtype=float)]


# -- fitting a form at fixed arguments -------------------------------------------------------------

@dataclass(frozen=True)
class CurveFit:
    """The least-squares fit of weight * form(theta, u) + offset to values g: its parameters and
    its mean squared residual ``loss``."""

    theta: np.ndarray
    weight: float
    offset: float
    loss: float


def _projected(form: ClosedForm, u: np.ndarray, yc: np.ndarray):
    """(residual(theta), jacobian(theta)) of the variable-projection problem: the centred values
    ``yc`` minus their projection on the centred g(theta, u), and Kaufman's Jacobian of it (the
    derivative of g projected off span(1, g), times the weight).  The optimisers ask for both
    at one theta in turn, so g there is computed once (``last``)."""
    last: dict = {}

    def parts(theta):
        key = np.asarray(theta, dtype=float).tobytes()
        if last.get("key") != key:
            with np.errstate(all="ignore"):
                g = np.asarray(form.value(theta, u), dtype=float)
            gc = g - g.mean()
            gg = float(gc @ gc)
            ok = np.isfinite(gg) and gg > 1e-300
            last.update(key=key, parts=(gc, gg, (float(gc @ yc) / gg if ok else 0.0), ok))
        return last["parts"]

    def residual(theta):
        gc, _, w, ok = parts(theta)
        return yc - w * gc if ok else yc

    def jacobian(theta):
        gc, gg, w, ok = parts(theta)
        with np.errstate(all="ignore"):
            dth = np.asarray(form.gradient(theta, u)[0], dtype=float).reshape(len(theta), -1)
        if not (ok and np.all(np.isfinite(dth))):
            return np.zeros((len(yc), len(theta)))
        dc = dth - dth.mean(axis=1, keepdims=True)
        dc -= np.outer(dc @ gc / gg, gc)
        return -w * dc.T

    return residual, jacobian


def _least_squares_fit(form: ClosedForm, u: np.ndarray, yc: np.ndarray, theta0,
                       max_nfev: int) -> tuple[float, np.ndarray]:
    """(mean squared residual, theta) of a bounded variable-projection least-squares fit to the
    centred values ``yc`` from ``theta0``; (inf, theta0) when g is not finite there."""
    from scipy.optimize import least_squares

    residual, jacobian = _projected(form, u, yc)
    lo, hi = bound_arrays(form.bounds)
    x0 = np.clip(np.asarray(theta0, dtype=float), lo, hi)
    if not np.all(np.isfinite(residual(x0))):
        return math.inf, x0
    with np.errstate(all="ignore"):  # a degenerate point (constant g: zero Jacobian) gives NaN steps
        sol = least_squares(residual, x0, jac=jacobian, bounds=(lo, hi), method="trf", x_scale="jac",
                            xtol=1e-15, ftol=1e-15, gtol=None, max_nfev=max_nfev)
    loss = float(np.mean(sol.fun ** 2))
    return (loss, sol.x) if np.isfinite(loss) and np.all(np.isfinite(sol.x)) else (math.inf, x0)


def _damped_gauss_newton(form: ClosedForm, u: np.ndarray, yc: np.ndarray, theta0, steps: int):
    """(mean squared residual, theta) after ``steps`` Levenberg-Marquardt iterations of the
    variable-projection problem from ``theta0``, each step clipped to the bounds; (inf, theta0)
    when g is not finite there.  Much cheaper per call than ``least_squares`` (nothing to set
    up), which matters when many grid points are polished."""
    residual, jacobian = _projected(form, u, yc)
    lo, hi = bound_arrays(form.bounds)
    x = np.clip(np.asarray(theta0, dtype=float), lo, hi)
    r = residual(x)
    loss = float(r @ r)
    if not np.isfinite(loss):
        return math.inf, x
    damping = 1e-3
    for _ in range(steps):
        J = jacobian(x)
        A = J.T @ J
        scale = np.diag(A) + 1e-12 * max(float(np.max(np.diag(A))), 1e-300)
        step = np.linalg.lstsq(A + damping * np.diag(scale), -(J.T @ r), rcond=None)[0]
        trial = np.clip(x + step, lo, hi)
        r_trial = residual(trial)
        trial_loss = float(r_trial @ r_trial)
        if trial_loss < loss:  # False for NaN too
            x, r, loss, damping = trial, r_trial, trial_loss, max(damping / 3.0, 1e-9)
        else:
            damping *= 10.0
    return loss / len(yc), x


def fit_curve(form: ClosedForm, u, g, starts: Sequence | None = None, max_nfev: int = 200) -> CurveFit | None:
    """The best least-squares fit of weight * form(theta, u) + offset to ``g`` from ``starts``
    (default: ``form.starts(u, g)``), theta within the form's bounds; None when no start gives
    finite values.  Variable projection (Golub and Pereyra, with Kaufman's Jacobian): only theta
    is iterated, the weight and offset are solved exactly at each step."""
    u, g = np.asarray(u, dtype=float), np.asarray(g, dtype=float)
    yc = g - g.mean()
    starts = form.starts(u, g) if starts is None else starts
    fits = [_least_squares_fit(form, u, yc, theta0, max_nfev) for theta0 in starts]
    if not fits or min(loss for loss, _ in fits) == math.inf:
        return None
    loss, theta = min(fits, key=lambda fit: fit[0])
    gv = np.asarray(form.value(theta, u), dtype=float)
    gc = gv - gv.mean()
    weight = float(gc @ yc) / float(gc @ gc)
    return CurveFit(theta=theta, weight=weight, offset=float(g.mean() - weight * gv.mean()), loss=loss)


# -- the built-in forms ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Named:
    """The function ``name`` of the module ``module`` (``Named("scipy.special", "j0")``),
    imported when first called: the catalogue of forms is built without importing scipy or
    sympy, and a pickled form holds the two names (its unpickled copy is equal)."""

    module: str
    name: str

    def __call__(self, *args):
        return getattr(importlib.import_module(self.module), self.name)(*args)


def _sympy(name: str) -> Named:
    return Named("sympy", name)


def _special(name: str) -> Named:
    return Named("scipy.special", name)


@dataclass(frozen=True)
class Outer:
    """A function Phi of one real argument: numpy ``value`` and ``derivative`` (module-level
    functions, ufuncs or `Named`, so a fitted model pickles), and its sympy form ``sympy(x)``."""

    value: Callable[[np.ndarray], np.ndarray]
    derivative: Callable[[np.ndarray], np.ndarray]
    sympy: Callable[[sp.Expr], sp.Expr]


class Scaled(ClosedForm):
    """Phi(w u) for an outer function Phi (``Outer``), theta = (w,)."""

    def __init__(self, name: str, outer: Outer, bounds: tuple[float, float], grid: Sequence[float], *,
                 complexity: int = 2, description: str = ""):
        """``bounds`` of w keep Phi(w u) finite and real for u in (0, 1]; ``grid`` seeds starts;
        the fit starts at w = 1 when the bounds allow, else at their middle."""
        lo, hi = bounds
        self.outer = outer
        self.bounds = (bounds,)
        self.grid = (grid,)
        self.init_theta = (1.0 if lo < 1.0 < hi else (lo + hi) / 2,)
        self.complexity = complexity
        super().__init__(name, description=description)

    def value(self, theta, u):
        return self.outer.value(theta[0] * np.asarray(u, dtype=float))

    def gradient(self, theta, u):
        u = np.asarray(u, dtype=float)
        d = self.outer.derivative(theta[0] * u)
        return (d * u)[None, :], d * theta[0]

    def expression(self, theta, u):
        return self.outer.sympy(exact_number(theta[0]) * u)


def _neg_sin(x):
    return -np.sin(x)


def _d_arctan(x):
    return 1.0 / (1.0 + x * x)


def _d_arcsin(x):
    return 1.0 / np.sqrt(1.0 - x * x)


def _inverse1p(x):
    """1 / (1 + x): also the derivative of log(1 + x)."""
    return 1.0 / (1.0 + x)


def _d_inverse1p(x):
    return -1.0 / (1.0 + x) ** 2


def _neg_j1(x):
    from scipy import special

    return -special.j1(x)


def _neg_y1(x):
    from scipy import special

    return -special.y1(x)


def _d_j1(x):
    from scipy import special

    return special.j0(x) - special.j1(x) / x  # J1' = J0 - J1 / x (x > 0 on the bounds)


def _d_y1(x):
    from scipy import special

    return special.y0(x) - special.y1(x) / x


def _d_i1(x):
    from scipy import special

    return special.i0(x) - special.i1(x) / x


def _d_gamma(x):
    from scipy import special

    return special.gamma(x) * special.digamma(x)


def _sympy_log1p(x):
    import sympy as sp

    return sp.log(1 + x)


def _sympy_inverse1p(x):
    return 1 / (1 + x)


@dataclass(frozen=True)
class _SympyBessel:
    """x -> ``kind(order, x)`` (``kind``: sympy's besselj, bessely or besseli, as `Named`):
    picklable, and equal to its unpickled copy."""

    kind: Any
    order: int

    def __call__(self, x):
        return self.kind(self.order, x)


def _frequencies(w_max: float) -> np.ndarray:
    """A grid over (0, w_max]: geometric from 0.02 to 1.5, then even steps of 0.5 (the loss of an
    oscillating form has minima about pi apart in w, so every basin holds a grid point)."""
    return np.concatenate([np.geomspace(0.02, 1.5, 16), np.arange(2.0, w_max + 0.25, 0.5)])


# the bounds keep every form finite on (0, 1]: exp(30), cosh(30) and I0(30) are below 1e13,
# Gamma(12) is 4e7; w > -1 keeps 1 + w u > 0; |w| < 1 keeps arcsin real
_RATIONAL_W = (-0.99, 1e4)  # log(1 + w u) and 1/(1 + w u); large w is log(u) and 1/u
_RATIONAL_GRID = np.concatenate([[-0.99, -0.95, -0.85, -0.7, -0.5, -0.3, -0.1], np.geomspace(0.03, 1e4, 27)])
_EXP_W = (-30.0, 30.0)
_EXP_GRID = np.concatenate([-np.geomspace(0.05, 30, 16)[::-1], np.geomspace(0.05, 30, 16)])
_GROWTH_W = (0.01, 30.0)  # sinh, cosh, I: odd or even in w, so w > 0
_GROWTH_GRID = np.geomspace(0.05, 30, 24)
_WAVE_W = (0.01, 40.0)  # sin, cos, J, Y: a few periods over (0, 1]
_WAVE_GRID = _frequencies(40.0)

_SCALED = (  # (name, Phi, bounds of w, grid, complexity, printed)
    ("exp", Outer(np.exp, np.exp, _sympy("exp")), _EXP_W, _EXP_GRID, 2, "exp(w*u)"),
    ("sin", Outer(np.sin, np.cos, _sympy("sin")), _WAVE_W, _WAVE_GRID, 2, "sin(w*u)"),
    ("cos", Outer(np.cos, _neg_sin, _sympy("cos")), _WAVE_W, _WAVE_GRID, 2, "cos(w*u)"),
    ("sinh", Outer(np.sinh, np.cosh, _sympy("sinh")), _GROWTH_W, _GROWTH_GRID, 2, "sinh(w*u)"),
    ("cosh", Outer(np.cosh, np.sinh, _sympy("cosh")), _GROWTH_W, _GROWTH_GRID, 2, "cosh(w*u)"),
    ("arctan", Outer(np.arctan, _d_arctan, _sympy("atan")), (0.01, 1e3), np.geomspace(0.02, 1e3, 30), 2,
     "atan(w*u)"),
    ("arcsin", Outer(np.arcsin, _d_arcsin, _sympy("asin")), (0.01, 0.999), np.linspace(0.05, 0.999, 20), 2,
     "asin(w*u)"),
    ("gamma", Outer(_special("gamma"), _d_gamma, _sympy("gamma")), (0.05, 12.0), np.geomspace(0.05, 12.0, 25), 2,
     "gamma(w*u)"),
    ("bessel_j0", Outer(_special("j0"), _neg_j1, _SympyBessel(_sympy("besselj"), 0)), _WAVE_W, _WAVE_GRID, 2,
     "besselj(0, w*u)"),
    ("bessel_j1", Outer(_special("j1"), _d_j1, _SympyBessel(_sympy("besselj"), 1)), _WAVE_W, _WAVE_GRID, 2,
     "besselj(1, w*u)"),
    ("bessel_y0", Outer(_special("y0"), _neg_y1, _SympyBessel(_sympy("bessely"), 0)), _WAVE_W, _WAVE_GRID, 2,
     "bessely(0, w*u)"),
    ("bessel_y1", Outer(_special("y1"), _d_y1, _SympyBessel(_sympy("bessely"), 1)), _WAVE_W, _WAVE_GRID, 2,
     "bessely(1, w*u)"),
    ("bessel_i0", Outer(_special("i0"), _special("i1"), _SympyBessel(_sympy("besseli"), 0)), _GROWTH_W,
     _GROWTH_GRID, 2, "besseli(0, w*u)"),
    ("bessel_i1", Outer(_special("i1"), _d_i1, _SympyBessel(_sympy("besseli"), 1)), _GROWTH_W, _GROWTH_GRID, 2,
     "besseli(1, w*u)"),
    ("log1p", Outer(np.log1p, _inverse1p, _sympy_log1p), _RATIONAL_W, _RATIONAL_GRID, 3, "log(1 + w*u)"),
    ("inverse", Outer(_inverse1p, _d_inverse1p, _sympy_inverse1p), _RATIONAL_W, _RATIONAL_GRID, 3,
     "1/(1 + w*u)"),
)


class Power(ClosedForm):
    """u^t, theta = (t,): monomials, square roots, reciprocals."""

    name = "power"
    complexity = 1
    init_theta = (2.0,)
    bounds = ((-3.0, 4.0),)
    grid = (np.setdiff1d(np.arange(-3.0, 4.01, 0.25), [0.0]),)

    def value(self, theta, u):
        return np.asarray(u, dtype=float) ** theta[0]

    def gradient(self, theta, u):
        u = np.asarray(u, dtype=float)
        g = u ** theta[0]
        return (g * np.log(u))[None, :], theta[0] * u ** (theta[0] - 1.0)

    def expression(self, theta, u):
        return u ** exact_number(theta[0])


class Square(ClosedForm):
    """(u + c)^2, theta = (c,): with the weight and offset, any quadratic in u."""

    name = "square"
    complexity = 2
    init_theta = (-0.5,)
    bounds = ((-50.0, 50.0),)
    grid = (np.concatenate([[-50, -20, -10, -5], np.linspace(-3, 3, 25), [5, 10, 20, 50]]),)
    zero_snaps = (0,)

    def value(self, theta, u):
        return (np.asarray(u, dtype=float) + theta[0]) ** 2

    def gradient(self, theta, u):
        d = 2.0 * (np.asarray(u, dtype=float) + theta[0])
        return d[None, :], d

    def expression(self, theta, u):
        return (u + exact_number(theta[0])) ** 2


class SinPhase(ClosedForm):
    """sin(w u + p), theta = (w, p): a sine wave of any phase (cos is p = pi/2)."""

    name = "sin_phase"
    complexity = 3
    init_theta = (1.0, 0.5)
    bounds = (_WAVE_W, (-math.pi, math.pi))
    # with the weight's sign p and p + pi are one curve, so phases in [-pi/2, pi/2) suffice
    grid = (_WAVE_GRID, np.linspace(-math.pi / 2, math.pi / 2, 8, endpoint=False))
    angles = (1,)
    zero_snaps = (1,)

    def value(self, theta, u):
        return np.sin(theta[0] * np.asarray(u, dtype=float) + theta[1])

    def gradient(self, theta, u):
        u = np.asarray(u, dtype=float)
        c = np.cos(theta[0] * u + theta[1])
        return np.vstack([c * u, c]), c * theta[0]

    def expression(self, theta, u):
        import sympy as sp

        return sp.sin(exact_number(theta[0]) * u + exact_number(theta[1], angle=True))


class ExpPower(ClosedForm):
    """exp(w u^q), theta = (w, q): stretched exponentials and Gaussians (q = 2)."""

    name = "exp_power"
    complexity = 3
    init_theta = (-1.0, 2.0)
    bounds = (_EXP_W, (0.1, 4.0))
    grid = (_EXP_GRID, np.geomspace(0.1, 4.0, 14))

    def value(self, theta, u):
        return np.exp(theta[0] * np.asarray(u, dtype=float) ** theta[1])

    def gradient(self, theta, u):
        u = np.asarray(u, dtype=float)
        w, q = theta
        uq = u ** q
        g = np.exp(w * uq)
        return np.vstack([g * uq, g * w * uq * np.log(u)]), g * w * q * u ** (q - 1.0)

    def expression(self, theta, u):
        import sympy as sp

        return sp.exp(exact_number(theta[0]) * u ** exact_number(theta[1]))


class PowerExp(ClosedForm):
    """u^t exp(w u), theta = (t, w): gamma-density shapes such as u exp(-u)."""

    name = "power_exp"
    complexity = 4
    init_theta = (1.0, -1.0)
    bounds = ((-3.0, 4.0), _EXP_W)
    grid = (np.arange(-3.0, 4.01, 0.25), _EXP_GRID)
    zero_snaps = (0,)

    def value(self, theta, u):
        u = np.asarray(u, dtype=float)
        return u ** theta[0] * np.exp(theta[1] * u)

    def gradient(self, theta, u):
        u = np.asarray(u, dtype=float)
        t, w = theta
        g = u ** t * np.exp(w * u)
        return np.vstack([g * np.log(u), g * u]), g * (t / u + w)

    def expression(self, theta, u):
        import sympy as sp

        return u ** exact_number(theta[0]) * sp.exp(exact_number(theta[1]) * u)


class Binomial(ClosedForm):
    """(1 + w u)^t, theta = (w, t): square roots and powers of a shifted argument, such as
    sqrt(1 + a), which u^t misses once min-max scaling has moved the origin (1F0 = (1 + z)^-a)."""

    name = "binomial"
    complexity = 3
    init_theta = (1.0, 0.5)
    bounds = (_RATIONAL_W, (-3.0, 4.0))
    # t = 0 is a constant and t = 1 a line (which ``power`` prints more simply)
    grid = (_RATIONAL_GRID, (-3.0, -2.0, -1.5, -1.0, -0.5, 0.5, 1.5, 2.0, 3.0, 4.0))

    def value(self, theta, u):
        return (1.0 + theta[0] * np.asarray(u, dtype=float)) ** theta[1]

    def gradient(self, theta, u):
        u = np.asarray(u, dtype=float)
        w, t = theta
        base = 1.0 + w * u
        g = base ** t
        d = t * base ** (t - 1.0)
        return np.vstack([d * u, g * np.log(base)]), d * w

    def expression(self, theta, u):
        return (1 + exact_number(theta[0]) * u) ** exact_number(theta[1])


def builtin_closed_forms() -> tuple[ClosedForm, ...]:
    """The forms the ``symbolic`` plugin registers, simplest first."""
    scaled = [Scaled(name, outer, bounds, grid, complexity=complexity, description=printed)
              for name, outer, bounds, grid, complexity, printed in _SCALED]
    forms = (Power(), Square(), Binomial(), SinPhase(), ExpPower(), PowerExp(), *scaled)
    return tuple(sorted(forms, key=lambda f: (f.complexity, f.name)))


def registered_closed_forms() -> tuple[ClosedForm, ...]:
    """Every plugin's closed forms (``register_closed_forms``), simplest first (by complexity,
    then name); the built-in ones when no plugin adds the hook (the ``symbolic`` plugin is
    disabled).  A plugin that registers something else than a ``ClosedForm``, or a name another
    plugin registered, is reported and left out (``interp.registry.collect``: a warning, or a
    ``PluginError`` with ``INTERP_STRICT_PLUGINS=1``)."""
    caller = getattr(plugin_manager().hook, HOOK, None)
    if caller is None or not caller.has_spec():
        return builtin_closed_forms()
    forms = registry.collect(HOOK, ClosedForm, "closed form").values()
    return tuple(sorted(forms, key=lambda f: (f.complexity, f.name)))
