"""Helpers for testing plugins: a registry of chosen plugins only, a plugin registered for a
block, and checks of a component's contract.

``plugins_only`` runs a block against the installed plugins it names and no others (a test
that expects "registered: headline" stays true when another package adds a renderer).

``registered`` registers a plugin object for the duration of a block:

    from interp.testing import registered

    def test_my_operator():
        with registered(MyPlugin(), "myplugin"):
            assert "maj" in interp.get_registry().kernel_operators

The ``check_*`` functions test what the consumers of each catalogue rely on but cannot verify
when a component is created: that a penalty's ``prox`` really is its proximal operator, that a
ridge family's ``gradient`` is the derivative of its ``value``, that a kernel operator's
``combine`` counts what its truth table says, and that an embedding returns one finite vector
per feature.  Each returns None when the component keeps its contract and otherwise raises
``ContractError`` (an ``AssertionError``, so pytest shows it as a failed test) with a message
naming the component and what is wrong; an exception the component's own code raises while it
is checked becomes a ``ContractError`` too, naming the call that raised.  Misusing a check (a
component of another type, a hyperparameter the penalty does not have) is a ``TypeError`` or
``ValueError``, as any function's bad arguments are:

    from interp.testing import check_penalty

    def test_my_penalty():
        check_penalty(MyPenalty())

Every check is deterministic (fixed points, fixed random seeds) and takes well under a second.
"""

from __future__ import annotations

import contextlib
import inspect
import itertools
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

import numpy as np

from .components import Component, EmbeddedFeatures, Embedding, KernelOperator, Penalty, RidgeFamily
from .hookcheck import without_addresses
from .registry import PluginInfo, Registry, isolated, register_plugin, unregister_plugin

__all__ = ["ContractError", "plugins_only", "registered", "check_stands_alone", "check_penalty", "check_ridge_family", "check_kernel_operator",
           "check_embedding"]


@contextlib.contextmanager
def plugins_only(*names: str) -> Iterator[Registry]:
    """Inside the block the registry holds only the installed plugins ``names`` (and what
    `registered` adds), whatever else is installed, so that a test's expectations (a listing,
    a catalogue) do not change when another package plugs into the same library.  Yields the
    registry; a name no installed plugin has is a ``ValueError``.  Use it as an autouse
    fixture to run every test of a module so:

        @pytest.fixture(autouse=True)
        def only_these_plugins():
            with plugins_only("my_plugin", "facets"):
                yield
    """
    with isolated(names) as registry:
        yield registry


@contextlib.contextmanager
def registered(plugin: object, name: str) -> Iterator[PluginInfo]:
    """Register ``plugin`` under ``name`` inside the block, unregister it afterwards."""
    info = register_plugin(plugin, name)
    try:
        yield info
    finally:
        unregister_plugin(name)


class ContractError(AssertionError):
    """A component does not do what its contract says; the message names it and the problem."""


def _fail(component: Component, message: str) -> None:
    origin = f" from plugin {component.plugin!r}" if component.plugin else ""
    raise ContractError(f"{component.kind} {component.name!r}{origin}: {message}")


@contextlib.contextmanager
def _calling(component: Component, call: str) -> Iterator[None]:
    """Turn an exception from ``component``'s code inside the block into a ``ContractError``
    that names the component and ``call`` (what was being done)."""
    try:
        yield
    except ContractError:
        raise
    except Exception as err:  # noqa: BLE001 - whatever the component raises is what we report
        _fail(component, f"{call} raised {_error(err)}")


def _error(err: BaseException) -> str:
    lines = without_addresses(str(err)).strip().splitlines()
    return f"{type(err).__name__}: {lines[0]}" if lines else type(err).__name__


def _require(component: Any, kind: type, check: str) -> None:
    if not isinstance(component, kind):
        raise TypeError(f"{check} takes an interp.{kind.__name__}, got {type(component).__name__}")


def _num(value: float) -> str:
    return f"{float(value):.10g}"


# -- penalties ------------------------------------------------------------------------------------
#: points w and steps of the prox checks: both signs, zero, integers (where Facets-type penalties
#: have kinks) and points between them
PENALTY_POINTS = (-3.7, -2.0, -1.2, -0.4, 0.0, 0.15, 0.5, 1.0, 1.6, 2.5, 4.3)
PENALTY_STEPS = (0.05, 0.3, 1.0, 2.5)
#: the prox output may differ from the brute-force minimiser by this much ...
PROX_XTOL = 1e-6
#: ... or else its objective may exceed the brute-force minimum by at most this (relative): that
#: accepts either minimiser where a non-convex penalty has two
PROX_FTOL = 1e-12
#: grid points of the brute-force minimisation (refined by bounded Brent around the best one)
PROX_GRID = 241
SUBDIFF_TOL = 1e-6
#: finite-difference step and tolerance of the one-sided derivatives of value
DERIVATIVE_STEP = 1e-7
DERIVATIVE_TOL = 1e-4
SUBDIFF_GRADIENTS = (-3.0, -0.5, 0.0, 0.7, 2.2)


class _PenaltyProbe:
    """A penalty with its hyperparameters resolved, evaluated at one point at a time.  It calls
    the penalty's own methods, not a ``BoundPenalty``'s, whose run-time checks would stop at the
    first problem with less to say than the checks here."""

    def __init__(self, penalty: Penalty, hyper: Mapping[str, Any]):
        with _calling(penalty, f"bind({', '.join(f'{k}={v!r}' for k, v in hyper.items())})"):
            self.penalty, self.bound = penalty, penalty.bind(**hyper)

    def omega(self, u: float) -> float:
        with _calling(self.penalty, f"value([{_num(u)}])"):
            return float(self.penalty.value(np.array([u]), **self.bound.hyper))

    def prox(self, w: Any, step: Any, how: str = "") -> Any:
        """``prox(w, step)`` with the resolved hyperparameters; an exception becomes a ContractError."""
        with _calling(self.penalty, f"prox of {np.size(w)} points{how}"):
            return self.penalty.prox(w, step, **self.bound.hyper)

    def subdiff(self, w: Any, grad: Any) -> np.ndarray:
        with _calling(self.penalty, f"subdiff_distance of {np.size(w)} points"):
            return np.asarray(self.penalty.subdiff_distance(w, grad, **self.bound.hyper), dtype=float)

    def prox1(self, w: float, step: float) -> float:
        with _calling(self.penalty, self.call(w, step)):
            out = np.asarray(self.penalty.prox(np.array([w]), step, **self.bound.hyper), dtype=float)
        if out.shape != (1,):
            _fail(self.penalty, f"prox of an array of shape (1,) returned shape {out.shape}")
        return float(out[0])

    def call(self, w: float, step: float) -> str:
        extra = "".join(f", {k}={v!r}" for k, v in self.bound.hyper.items())
        return f"prox({_num(w)}, step={_num(step)}{extra})"


def check_penalty(penalty: Penalty, hyper: Mapping[str, Any] | None = None) -> None:
    """Check ``penalty`` against the definition of a separable penalty and its prox, and
    against what it declares.

    With ``hyper`` (default: the penalty's ``defaults``, updated with ``hyper``; the penalty is
    checked as ``penalty.bind(**hyper)``, what the solvers call):

    - ``value`` is finite and >= 0 at every test point, and the value of a vector is the sum of
      its coordinates' values (the penalty is separable);
    - ``prox(w, step)`` is the argmin of ``(u - w)^2 / 2 + step * value(u)``, compared with a
      brute-force 1-D minimisation (a grid, then ``scipy.optimize.minimize_scalar``) for a
      range of ``w`` and steps;
    - ``prox`` works elementwise: a vector of points with one scalar step gives the one-point
      results coordinate by coordinate, and so do, when the penalty declares them, one step per
      coordinate (``per_coordinate_steps``) and a 2-D stack of points (``any_shape``);
    - ``subdiff_distance`` (if the penalty has one) is ~0 at the prox output, i.e. at
      ``u = prox(w, step)`` the distance of ``-(u - w) / step`` to the subdifferential is ~0, and
      elsewhere it is the distance of ``-grad`` to the interval between the one-sided
      derivatives of ``value``.
    """
    _require(penalty, Penalty, "check_penalty")
    unknown = sorted(set(hyper or {}) - set(penalty.defaults))
    if unknown:
        raise ValueError(f"penalty {penalty.name!r} has no hyperparameter {unknown[0]!r} (its defaults name: "
                         f"{', '.join(penalty.defaults) or 'none'})")
    with _calling(penalty, "the check"):
        probe = _PenaltyProbe(penalty, hyper or {})
        _check_penalty_value(probe)
        w, steps = (np.array(v) for v in zip(*itertools.product(PENALTY_POINTS, PENALTY_STEPS)))
        proxed = np.array([_check_prox_point(probe, wi, si) for wi, si in zip(w, steps)])
        _check_prox_elementwise(probe, w, steps, proxed)
        if penalty.provides("subdiff_distance"):
            _check_subdiff_at_prox(probe, w, steps, proxed)
            _check_subdiff_against_derivatives(probe)


def _check_penalty_value(probe: _PenaltyProbe) -> None:
    values = []
    for w in PENALTY_POINTS:
        v = probe.omega(w)
        if not np.isfinite(v) or v < 0:
            _fail(probe.penalty, f"value([{_num(w)}]) = {v}, not a finite number >= 0")
        values.append(v)
    with _calling(probe.penalty, f"value of {len(PENALTY_POINTS)} points"):
        total = float(probe.penalty.value(np.array(PENALTY_POINTS), **probe.bound.hyper))
    if not np.isclose(total, sum(values), rtol=1e-10, atol=1e-12):
        _fail(probe.penalty, f"value of the {len(values)} test points together is {_num(total)} but the sum "
                             f"of their values is {_num(sum(values))}: a penalty is a sum over coordinates")


def _brute_prox(probe: _PenaltyProbe, w: float, step: float) -> tuple[float, float]:
    """(minimiser, minimum) of h(u) = (u - w)^2 / 2 + step * omega(u) by brute force.

    Since omega >= 0, h(u) <= h(w) bounds |u - w| by sqrt(2 step omega(w)): a grid over that
    interval, then bounded Brent around the best grid point.
    """
    from scipy.optimize import minimize_scalar

    def h(u: float) -> float:
        return (u - w) ** 2 / 2 + step * probe.omega(u)

    radius = np.sqrt(2 * step * probe.omega(w)) + 1e-3
    grid = np.linspace(w - radius, w + radius, PROX_GRID)
    values = np.array([h(u) for u in grid])
    i = int(np.argmin(values))
    dx = grid[1] - grid[0]
    res = minimize_scalar(h, bounds=(grid[i] - dx, grid[i] + dx), method="bounded",
                          options={"xatol": 1e-13, "maxiter": 500})
    return (float(res.x), float(res.fun)) if res.fun < values[i] else (float(grid[i]), float(values[i]))


def _check_prox_point(probe: _PenaltyProbe, w: float, step: float) -> float:
    u = probe.prox1(w, step)
    if not np.isfinite(u):
        _fail(probe.penalty, f"{probe.call(w, step)} = {u}")
    best, minimum = _brute_prox(probe, w, step)
    objective = (u - w) ** 2 / 2 + step * probe.omega(u)
    if abs(u - best) > PROX_XTOL and objective > minimum + PROX_FTOL * (1 + abs(minimum)):
        _fail(probe.penalty, f"{probe.call(w, step)} = {_num(u)} but the minimiser is {_num(best)} "
                             f"(objective {_num(objective)} > {_num(minimum)})")
    return u


def _check_prox_elementwise(probe: _PenaltyProbe, w: np.ndarray, steps: np.ndarray, proxed: np.ndarray) -> None:
    """The scalar steps always; one step per coordinate and a 2-D stack where declared."""
    declares = probe.penalty
    for step in PENALTY_STEPS:
        at = steps == step
        got = probe.prox(w[at], step, f" with the scalar step {_num(step)}")
        _same_per_coordinate(probe, f"with the scalar step {_num(step)}", w[at], got, proxed[at], steps[at])
    if declares.per_coordinate_steps:
        got = _declared(probe, "per_coordinate_steps", "take one step per coordinate",
                        lambda: probe.penalty.prox(w, steps, **probe.bound.hyper))
        _same_per_coordinate(probe, "with one step per coordinate", w, got, proxed, steps)
    if declares.any_shape:  # the points by step, as the per-coordinate steps allow, else one step
        at = steps == PENALTY_STEPS[0]
        stack, step = ((w.reshape(-1, len(PENALTY_STEPS)), steps.reshape(-1, len(PENALTY_STEPS)))
                       if declares.per_coordinate_steps else (np.stack([w[at], w[at]]), PENALTY_STEPS[0]))
        want = proxed.reshape(stack.shape) if declares.per_coordinate_steps else np.stack([proxed[at], proxed[at]])
        got = _declared(probe, "any_shape", "take a 2-D stack of points", lambda: probe.penalty.prox(stack, step, **probe.bound.hyper))
        _same_per_coordinate(probe, "stacked in 2-D", stack, got, want, np.broadcast_to(step, stack.shape))


def _declared(probe: _PenaltyProbe, declaration: str, what: str, call: Callable[[], Any]) -> Any:
    """``call()``, or a ContractError saying that the prox does not do what ``declaration`` says."""
    try:
        return call()
    except Exception as err:  # noqa: BLE001 - whatever it raises is what we report
        _fail(probe.penalty, f"declares {declaration} but prox does not {what} ({type(err).__name__}: {err}); "
                             f"set {declaration} = False if it is not meant to")


def _same_per_coordinate(probe: _PenaltyProbe, how: str, w: np.ndarray, got: Any, want: np.ndarray,
                         steps: np.ndarray) -> None:
    got = np.asarray(got, dtype=float)
    if got.shape != w.shape:
        _fail(probe.penalty, f"prox of {w.size} points {how} returned shape {got.shape}, not {w.shape}")
    got, want, w, steps = got.ravel(), np.ravel(want), w.ravel(), np.ravel(steps)
    bad = np.flatnonzero(~np.isclose(got, want, rtol=1e-12, atol=1e-12))
    if bad.size:
        i = bad[0]
        _fail(probe.penalty, f"prox of {w.size} points {how} gives {_num(got[i])} at coordinate {i}, but "
                             f"{probe.call(w[i], steps[i])} = {_num(want[i])}")


def _check_subdiff_at_prox(probe: _PenaltyProbe, w: np.ndarray, steps: np.ndarray, proxed: np.ndarray) -> None:
    grad = (proxed - w) / steps
    dist = probe.subdiff(proxed, grad)
    if dist.shape != w.shape:
        _fail(probe.penalty, f"subdiff_distance of {w.size} points returned shape {dist.shape}, not {w.shape}")
    bad = np.flatnonzero(~(np.abs(dist) <= SUBDIFF_TOL))
    if bad.size:
        i = bad[0]
        _fail(probe.penalty, f"subdiff_distance is {_num(dist[i])}, not 0, at u = {probe.call(w[i], steps[i])} "
                             f"= {_num(proxed[i])} with grad = (u - w) / step = {_num(grad[i])}")


def _check_subdiff_against_derivatives(probe: _PenaltyProbe) -> None:
    """The distance of -grad to [min, max] of value's one-sided derivatives (the Clarke
    subdifferential of a piecewise-smooth 1-D function)."""
    h = DERIVATIVE_STEP
    for w in PENALTY_POINTS:
        left = (probe.omega(w) - probe.omega(w - h)) / h
        right = (probe.omega(w + h) - probe.omega(w)) / h
        lo, hi = min(left, right), max(left, right)
        for g in SUBDIFF_GRADIENTS:
            want = max(lo + g, -g - hi, 0.0)
            got = float(probe.subdiff(np.array([w]), np.array([g])).ravel()[0])
            if not abs(got - want) <= DERIVATIVE_TOL * (1 + abs(g)):
                _fail(probe.penalty, f"subdiff_distance([{_num(w)}], grad=[{_num(g)}]) = {got:.6g} but value's "
                                     f"one-sided derivatives [{lo:.6g}, {hi:.6g}] put -grad at distance {want:.6g}")


# -- ridge families -------------------------------------------------------------------------------
#: where Symbolic Pursuit evaluates ridge functions: the ReLU of a projection, floored above 0
RIDGE_POINTS = (0.05, 0.3, 0.7, 1.0, 1.4, 2.2)
FD_STEP = 1e-6
FD_RTOL = 1e-4


def check_ridge_family(family: RidgeFamily, z: Any = None, thetas: Any = None, with_expression: bool = True) -> None:
    """Check a ridge family.

    A Meijer G configuration: the orders satisfy 0 <= m <= q, 0 <= n <= p, q >= 1, ``init_a``
    has p values and ``init_b`` q, all finite.  A custom family: ``value(theta, z)`` is finite of
    shape (N,), and ``gradient(theta, z)`` returns (d/dtheta of shape (len(theta), N), d/dz of
    shape (N,)) equal to central finite differences of ``value`` in theta and in z, at
    ``init_theta`` and two points near it (or at each parameter vector of ``thetas``: a family
    with bounds passes points inside them), for ``z`` (default: positive points, as Symbolic
    Pursuit evaluates a family at the ReLU of a projection).  When the family has
    ``expression(theta, u)``, it is a sympy expression of the symbol ``u`` alone that, evaluated
    by numpy and scipy (or by mpmath), equals ``value`` to 1e-8 at the same points: what
    Symbolic Pursuit requires before it prints a term with it (``with_expression=False`` leaves
    that to a caller that checks it its own way).
    """
    _require(family, RidgeFamily, "check_ridge_family")
    with _calling(family, "the check"):
        if family.orders is not None:
            _check_meijer_family(family)
            return
        z = np.asarray(RIDGE_POINTS if z is None else z, dtype=float)
        if thetas is None:
            theta0 = np.asarray(family.init_theta, dtype=float)
            rng = np.random.default_rng(0)
            thetas = (theta0, *(theta0 + 0.1 * rng.standard_normal(theta0.shape) for _ in range(2)))
        for theta in thetas:
            _check_family_gradient(family, np.asarray(theta, dtype=float), z)
            if with_expression and family.provides("expression"):
                _check_family_expression(family, np.asarray(theta, dtype=float), z)


def _check_meijer_family(family: RidgeFamily) -> None:
    orders = family.orders
    if len(orders) != 4:
        _fail(family, f"orders must be (m, n, p, q), got {orders}")
    m, n, p, q = orders
    if not (0 <= m <= q and 0 <= n <= p and q >= 1):
        _fail(family, f"orders (m, n, p, q) = {orders} need 0 <= m <= q, 0 <= n <= p and q >= 1")
    for field, size, letter in (("init_a", p, "p"), ("init_b", q, "q")):
        values = getattr(family, field)
        if len(values) != size:
            _fail(family, f"{field} has {len(values)} values, {letter} = {size} needed")
    start = [*family.init_a, *family.init_b, family.init_scale, family.init_power]
    if not np.all(np.isfinite(start)):
        _fail(family, f"initial parameters (a, b, scale, power) = {start} are not all finite")


def _family_value(family: RidgeFamily, theta: np.ndarray, z: np.ndarray) -> np.ndarray:
    with _calling(family, f"value(theta={_vec(theta)}, z)"):
        v = np.asarray(family.value(theta, z), dtype=float)
    if v.shape != z.shape or not np.all(np.isfinite(v)):
        _fail(family, f"value(theta={_vec(theta)}, z) for {z.size} points z returned "
                      f"{'shape ' + str(v.shape) if v.shape != z.shape else 'non-finite values'}")
    return v


def _vec(values: np.ndarray) -> str:
    return "(" + ", ".join(f"{v:.6g}" for v in values) + ")"


def _check_family_gradient(family: RidgeFamily, theta: np.ndarray, z: np.ndarray) -> None:
    v = _family_value(family, theta, z)
    with _calling(family, f"gradient(theta={_vec(theta)}, z)"):
        out = family.gradient(theta, z)
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        _fail(family, "gradient(theta, z) must return the pair (d/dtheta, d/dz)")
    dth, dz = (np.asarray(part, dtype=float) for part in out)
    if dth.shape != (theta.size, z.size) or dz.shape != z.shape:
        _fail(family, f"gradient(theta, z) returned shapes {dth.shape} and {dz.shape}, not "
                      f"({theta.size}, {z.size}) and ({z.size},)")
    scale = 1.0 + float(np.max(np.abs(v)))
    for i in range(theta.size):
        e = np.zeros_like(theta)
        e[i] = FD_STEP * max(1.0, abs(theta[i]))
        fd = (_family_value(family, theta + e, z) - _family_value(family, theta - e, z)) / (2 * e[i])
        _compare_derivative(family, f"d value / d theta[{i}]", theta, z, dth[i], fd, scale)
    ez = FD_STEP * np.maximum(1.0, np.abs(z))
    fd = (_family_value(family, theta, z + ez) - _family_value(family, theta, z - ez)) / (2 * ez)
    _compare_derivative(family, "d value / d z", theta, z, dz, fd, scale)


def _compare_derivative(family, what: str, theta, z, got: np.ndarray, fd: np.ndarray, scale: float) -> None:
    bad = np.flatnonzero(~(np.abs(got - fd) <= FD_RTOL * (np.abs(fd) + scale)))
    if bad.size:
        j = bad[0]
        _fail(family, f"{what} at theta={_vec(theta)}, z={_num(z[j])} is {_num(got[j])} by gradient() but "
                      f"{_num(fd[j])} by central differences of value()")


#: how closely a family's ``expression`` must equal its ``value`` (Symbolic Pursuit's test)
EXPRESSION_RTOL = 1e-8


def _check_family_expression(family: RidgeFamily, theta: np.ndarray, z: np.ndarray) -> None:
    """``expression(theta, u)`` is a sympy expression of ``u`` that equals ``value`` at ``z``."""
    import sympy as sp

    u = sp.Symbol("u", positive=True)
    call = f"expression(theta={_vec(theta)}, u)"
    with _calling(family, call):
        expr = sp.sympify(family.expression(theta, u))
    if not isinstance(expr, sp.Expr) or expr.free_symbols - {u}:
        _fail(family, f"{call} = {expr} is not a sympy expression of u alone")
    want = _family_value(family, theta, z)
    got = None
    for modules in (["scipy", "numpy"], "mpmath"):
        got = _evaluated(expr, u, z, modules)
        if got is not None and _agrees(got, want):
            return
    where = "" if got is None else _first_difference(got, want, z)
    _fail(family, f"{call} = {expr} does not equal value() to {EXPRESSION_RTOL:g}{where} (neither numpy/scipy nor "
                  "mpmath evaluate it so); Symbolic Pursuit would print the term by the family's name")


def _evaluated(expr: Any, u: Any, z: np.ndarray, modules: Any) -> np.ndarray | None:
    """``expr`` at each point of ``z`` through ``sympy.lambdify`` with ``modules`` (complex),
    or None when those modules cannot evaluate it."""
    import sympy as sp

    try:
        f = sp.lambdify([u], expr, modules=modules)
        with np.errstate(all="ignore"):
            return np.array([complex(f(float(point))) for point in z])
    except Exception:  # noqa: BLE001 - a form these modules cannot evaluate
        return None


def _agrees(got: np.ndarray, want: np.ndarray) -> bool:
    scale = np.maximum(np.abs(want), 1e-6 * np.max(np.abs(want)))
    return bool(np.all(np.isfinite(got)) and np.all(np.abs(got - want) <= EXPRESSION_RTOL * scale))


def _first_difference(got: np.ndarray, want: np.ndarray, z: np.ndarray) -> str:
    scale = np.maximum(np.abs(want), 1e-6 * np.max(np.abs(want)))
    bad = np.flatnonzero(~(np.abs(got - want) <= EXPRESSION_RTOL * scale))
    j = bad[0] if bad.size else 0
    return f": at u={_num(z[j])} it is {complex(got[j]):.10g}, value() is {_num(want[j])}"


# -- kernel operators -----------------------------------------------------------------------------
KERNEL_ROWS = (5, 4)  # rows of the random X and Z


def check_kernel_operator(op: KernelOperator) -> None:
    """Check ``op.combine`` against brute-force enumeration of the operator's feature space.

    Operand j of ``op(x_1, ..., x_k)`` is a literal over its own small random binary data
    (X_j, Z_j with n_j features, rows of all zeros and all ones included), so the operands'
    joint-state blocks ``[[n-p-q+s, q-s], [p-s, s]]`` (s = X_j Z_j^T, p and q the rows' counts
    of ones) differ.  ``op.combine(blocks)`` must give, for every pair of rows and all four
    joint states (u, v), the number of the n_1 * ... * n_k features (one per choice of a column
    in each operand) that are u on the row of X and v on the row of Z, evaluated with the
    truth table.  A closed form overriding ``combine`` must agree with that count.
    """
    _require(op, KernelOperator, "check_kernel_operator")
    with _calling(op, "the check"):
        _check_combine(op)


def _check_combine(op: KernelOperator) -> None:
    rng = np.random.default_rng(0)
    k = op.arity
    widths = [2 + j % 2 if k <= 4 else 2 for j in range(k)]
    Xs, Zs = [], []
    for n in widths:
        X = (rng.random((KERNEL_ROWS[0], n)) < 0.5).astype(np.int64)
        Z = (rng.random((KERNEL_ROWS[1], n)) < 0.5).astype(np.int64)
        X[0], Z[0] = 0, 1  # the extreme counts p = 0 and q = n
        Xs.append(X)
        Zs.append(Z)
    with _calling(op, f"combine() of {k} operands' joint-state counts"):
        got = op.combine([_joint_blocks(X, Z) for X, Z in zip(Xs, Zs)])
    want = _enumerated_counts(op, Xs, Zs)
    shape = (KERNEL_ROWS[0], KERNEL_ROWS[1])
    try:
        if len(got) != 2 or any(len(row) != 2 for row in got):
            raise ValueError(f"got {len(got)} rows")
        got = [[np.broadcast_to(np.asarray(got[u][v], dtype=float), shape) for v in (0, 1)] for u in (0, 1)]
    except (TypeError, ValueError) as err:
        _fail(op, f"combine() must return the 2 x 2 counts out[u][v] (u, v in 0, 1), each broadcasting to "
                  f"{shape}: {err}")
    for u, v in itertools.product((0, 1), repeat=2):
        bad = np.argwhere(~(np.abs(got[u][v] - want[u][v]) <= 1e-9 * (1 + np.abs(want[u][v]))))
        if bad.size:
            i, j = bad[0]
            _fail(op, f"combine() gives the joint-state count out[{u}][{v}] = {_num(got[u][v][i, j])} for X row {i} "
                      f"and Z row {j}, but enumerating the {int(np.prod(widths))} features of "
                      f"{op.name}({', '.join(f'x{t + 1}' for t in range(k))}) gives {int(want[u][v][i, j])}")


def _joint_blocks(X: np.ndarray, Z: np.ndarray) -> list[list[np.ndarray]]:
    """``blocks[a][b]``: how many features are a on a row of X and b on a row of Z."""
    s = X @ Z.T
    p, q = X.sum(1)[:, None], Z.sum(1)[None, :]
    n = X.shape[1]
    return [[n - p - q + s, q - s], [p - s, s]]


def _enumerated_counts(op: KernelOperator, Xs: list, Zs: list) -> list[list[np.ndarray]]:
    """The joint-state counts by evaluating the truth table on every feature of the product space."""
    k = op.arity
    table = np.array(op.truth_table)

    def features(Ms: list) -> np.ndarray:  # (rows, n_1 * ... * n_k): one column per feature
        columns = np.meshgrid(*(np.arange(M.shape[1]) for M in Ms), indexing="ij")
        rows = sum(M[:, c.ravel()] << (k - 1 - j) for j, (M, c) in enumerate(zip(Ms, columns)))
        return table[rows]

    fx, fz = features(Xs), features(Zs)
    return [[(fx == u).astype(np.int64) @ (fz == v).astype(np.int64).T for v in (0, 1)] for u in (0, 1)]


# -- embeddings -----------------------------------------------------------------------------------
EMBEDDING_FEATURES = 9
#: what Feature Vectors needs: an angle and a point in the picture per feature
EMBEDDING_DIMS = 2


def check_embedding(embedding: Embedding, hyper: Mapping[str, Any] | None = None,
                    n_dims: int | None = EMBEDDING_DIMS) -> None:
    """Check ``embedding.embed`` on what Feature Vectors gives it and against what it needs.

    ``embed`` is called with a random symmetric non-negative 9 x 9 ``scipy.sparse.csr_matrix``
    of float64 counts, as Feature Vectors calls it with its co-occurrence matrix, and with the
    parameters ``hyper`` (the embedding's ``defaults`` updated with ``hyper``), and must
    return an ``EmbeddedFeatures`` or an array of shape (n_features, ``n_dims``) (default 2:
    Feature Vectors draws each feature as a point and reads its angle; None accepts any
    k >= 1) with finite values, and, when given, ``explained_variance_ratio`` /
    ``singular_values`` of k finite values each; it leaves the matrix unchanged and returns the
    same vectors when called again.
    """
    _require(embedding, Embedding, "check_embedding")
    import scipy.sparse as sp

    hyper = embedding.resolve_hyper(hyper)
    rng = np.random.default_rng(0)
    d = EMBEDDING_FEATURES
    A = rng.integers(0, 6, (d, d)) * (rng.random((d, d)) < 0.6)
    matrix = sp.csr_matrix((A + A.T).astype(np.float64))
    what = f"a scipy.sparse CSR {d} x {d} matrix"
    with _calling(embedding, "the check"):
        first = _embed_checked(embedding, hyper, matrix, what, n_dims)
        again = _embed_checked(embedding, hyper, matrix.copy(), what, n_dims)
    if not np.array_equal(first, again):
        _fail(embedding, f"embed() of the same matrix twice gives different vectors (not deterministic)")


def _embed_checked(embedding: Embedding, hyper: Mapping[str, Any], matrix: Any, what: str,
                   n_dims: int | None) -> np.ndarray:
    original = matrix.copy()
    with _calling(embedding, f"embed() on {what}"):
        out = embedding.embed(matrix, **hyper)
    if (matrix != original).nnz:
        _fail(embedding, f"embed() changed its input ({what})")
    record = out if isinstance(out, EmbeddedFeatures) else EmbeddedFeatures(vectors=out)
    try:
        vectors = np.asarray(record.vectors, dtype=float)
    except (TypeError, ValueError) as err:
        _fail(embedding, f"embed() on {what} returned {type(out).__name__}, not vectors: {err}")
    d = matrix.shape[0]
    k = "k with k >= 1" if n_dims is None else str(n_dims)
    if vectors.ndim != 2 or vectors.shape[0] != d or vectors.shape[1] < 1 or vectors.shape[1] != (n_dims or vectors.shape[1]):
        _fail(embedding, f"embed() on {what} returned shape {vectors.shape}, not ({d}, {k})"
                         + (" (Feature Vectors needs 2-D vectors)" if n_dims == EMBEDDING_DIMS else ""))
    if not np.all(np.isfinite(vectors)):
        _fail(embedding, f"embed() on {what} returned non-finite values (NaN or inf)")
    for field in ("explained_variance_ratio", "singular_values"):
        values = getattr(record, field)
        if values is not None:
            values = np.asarray(values, dtype=float)
            if values.shape != (vectors.shape[1],) or not np.all(np.isfinite(values)):
                _fail(embedding, f"{field} on {what} must be {vectors.shape[1]} finite values (one per "
                                 f"dimension), got {values!r}")
    return vectors


_STANDALONE_SCRIPT = """
import json, sys
import joblib, matplotlib
matplotlib.use("Agg")
import interp
loaded = [info.name for info in interp.get_registry().plugins if info.status == "loaded"]
clash = sorted(set(loaded) & set(sys.argv[2].split(",")))
assert not clash, f"plugins {clash} should be disabled"
print(json.dumps({name}(*joblib.load(sys.argv[1]))))
"""


def check_stands_alone(describe: Callable[..., Any], *objects: Any, disabled: Sequence[str]) -> None:
    """Check that fitted ``objects`` show the same in a process where ``disabled`` plugins are off.

    ``describe(*objects)`` returns what a person sees of them (predictions, printed formula,
    plot labels ...) as JSON values; it must be a module-level function that imports what it
    needs, because its source is run again in a fresh interpreter with
    ``INTERP_DISABLE_PLUGINS`` set, on the objects unpickled with joblib.  A model that kept the
    components it resolved at fit gives the same description; one that reaches back into the
    registry fails there.  Raises ``ContractError`` naming the first difference.
    """
    import joblib

    here = json.loads(json.dumps(describe(*objects)))
    code = textwrap.dedent(inspect.getsource(describe)) + _STANDALONE_SCRIPT.replace("{name}", describe.__name__)
    env = {**os.environ, "INTERP_DISABLE_PLUGINS": ",".join(disabled)}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "objects.joblib"
        joblib.dump(objects, path)
        proc = subprocess.run([sys.executable, "-c", code, str(path), ",".join(disabled)], env=env,
                              capture_output=True, text=True)
    if proc.returncode != 0:
        last = proc.stderr.strip().splitlines()[-1:] or ["(no output)"]
        raise ContractError(f"without plugins {', '.join(disabled)}: {describe.__name__} failed: {last[0]}")
    there = json.loads(proc.stdout)
    if there != here:
        keys = sorted(set(here) | set(there)) if isinstance(here, dict) and isinstance(there, dict) else []
        differ = [k for k in keys if here.get(k) != there.get(k)]
        what = f" in {differ[0]!r}" if differ else ""
        raise ContractError(f"without plugins {', '.join(disabled)}: {describe.__name__} differs{what}")
