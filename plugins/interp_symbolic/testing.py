"""Checking a closed form's contract: ``check_closed_form(form)``.

What ``ClosedForm`` validation on creation cannot see, checked at random parameters inside the
form's bounds and arguments u in (0, 1] (where Symbolic Pursuit evaluates a ridge function):

- ``value`` is real and finite, of shape (N,);
- ``gradient`` equals central finite differences of ``value`` in theta and in u;
- ``expression(theta, u)`` is a sympy expression in ``u`` alone, without ``meijerg``, ``I`` or
  ``exp_polar``, and evaluated with numpy and scipy (``sympy.lambdify``) it is real and equals
  ``value``;
- ``snaps(theta)`` returns parameter vectors inside the bounds;
- ``starts(u, g)`` does too, and from them a least-squares fit (``closed_forms.fit_curve``)
  recovers the form's own curves weight * g(theta, u) + offset on ``RECOVERY_POINTS`` to
  ``RECOVERY_RTOL``, for random theta in the bounds (``sample_theta``).

It raises ``interp.testing.ContractError`` (an ``AssertionError``) with one line naming the form
and the problem, like the checks of ``interp.testing``; every draw is seeded, so a check is
deterministic.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp
from interp.testing import ContractError, check_ridge_family

from .closed_forms import ClosedForm, fit_curve, inside_bounds

__all__ = ["check_closed_form", "sample_theta", "CHECK_POINTS", "RECOVERY_POINTS", "RECOVERY_RTOL"]

#: arguments of the value, gradient and expression checks: (0, 1], dense near 0
CHECK_POINTS = (0.001, 0.01, 0.05, 0.13, 0.3, 0.5, 0.71, 0.9, 1.0)
#: arguments of the recovery check: 200 points in [0.05, 1]
RECOVERY_POINTS = np.linspace(0.05, 1.0, 200)
RECOVERY_RTOL = 1e-6  # root mean squared error of the recovered curve / standard deviation of the true one
EXPRESSION_RTOL = 1e-8
N_THETAS = 3  # random parameter vectors per check
N_RECOVERIES = 2
MARGIN = 0.01  # parameters are drawn this fraction of the bounds' width inside them


def _fail(form: ClosedForm, message: str) -> None:
    origin = f" from plugin {form.plugin!r}" if form.plugin else ""
    raise ContractError(f"closed form {form.name!r}{origin}: {message}")


def _vec(values) -> str:
    return "(" + ", ".join(f"{float(v):.6g}" for v in values) + ")"


def sample_theta(form: ClosedForm, rng: np.random.Generator) -> np.ndarray:
    """Random parameters inside the form's bounds: uniform in asinh(theta) (so log-uniform over a
    wide positive range, uniform near 0), ``MARGIN`` inside each bound; an unbounded side extends
    2 beyond ``init_theta``."""
    theta = []
    for x0, (lo, hi) in zip(form.init_theta, form.bounds):
        lo = x0 - 2.0 if lo is None else lo
        hi = x0 + 2.0 if hi is None else hi
        pad = MARGIN * (hi - lo)
        a, b = np.arcsinh(lo + pad), np.arcsinh(hi - pad)
        theta.append(float(np.sinh(rng.uniform(a, b))))
    return np.array(theta)


def _inside(form: ClosedForm, theta) -> bool:
    theta = np.asarray(theta, dtype=float)
    return theta.shape == (len(form.init_theta),) and inside_bounds(theta, form.bounds)


def _check_expression(form: ClosedForm, theta: np.ndarray, u: np.ndarray) -> None:
    symbol = sp.Symbol("u", positive=True)
    expr = form.expression(theta, symbol)
    if not isinstance(expr, sp.Expr):
        _fail(form, f"expression(theta={_vec(theta)}, u) returned a {type(expr).__name__}, not a sympy expression")
    if expr.free_symbols - {symbol}:
        _fail(form, f"expression(theta={_vec(theta)}, u) = {expr} has symbols other than u")
    if expr.has(sp.meijerg) or expr.has(sp.I) or expr.has(sp.exp_polar):
        _fail(form, f"expression(theta={_vec(theta)}, u) = {expr} is not a real closed form")
    with np.errstate(all="ignore"):
        got = np.asarray(sp.lambdify([symbol], expr, modules=["scipy", "numpy"])(u), dtype=complex) * np.ones_like(u)
    want = np.asarray(form.value(theta, u), dtype=float)
    scale = float(np.max(np.abs(want)))
    err = np.abs(got - want)
    if not np.all(err <= EXPRESSION_RTOL * (np.abs(want) + scale)):
        j = int(np.nanargmax(np.where(np.isfinite(err), err, np.inf)))
        _fail(form, f"expression(theta={_vec(theta)}, u) = {expr} is {complex(got[j]):.10g} at u={u[j]:.6g} "
                    f"but value() is {want[j]:.10g}")


def _check_list(form: ClosedForm, what: str, got) -> None:
    """``got`` (what ``starts`` or ``snaps`` returned) is a list of parameter vectors inside the bounds."""
    if not isinstance(got, (list, tuple)):
        _fail(form, f"{what} returned a {type(got).__name__}, not a list of parameter vectors")
    for theta in got:
        if not _inside(form, theta):
            _fail(form, f"{what} gave {theta}, not {len(form.init_theta)} finite parameters within the bounds")


def _check_recovery(form: ClosedForm, theta: np.ndarray) -> None:
    u = RECOVERY_POINTS
    g = 2.5 * np.asarray(form.value(theta, u), dtype=float) - 0.7
    starts = form.starts(u, g)
    _check_list(form, f"starts(u, g) for g at theta={_vec(theta)}", starts)
    fit = fit_curve(form, u, g, starts=starts)
    rel = math.inf if fit is None else math.sqrt(fit.loss) / float(np.std(g))
    if not rel <= RECOVERY_RTOL:
        found = "nothing" if fit is None else f"theta={_vec(fit.theta)}"
        _fail(form, f"a least-squares fit from starts() to its own curve at theta={_vec(theta)} reached {found}, "
                    f"relative error {rel:.2g} > {RECOVERY_RTOL:g}")


def check_closed_form(form: ClosedForm, seed: int = 0, recover: bool = True) -> None:
    """Check ``form`` against the ``ClosedForm`` contract (see the module docstring); with
    ``recover``, also that its ``starts`` lead a least-squares fit to its own curves."""
    if not isinstance(form, ClosedForm):
        raise TypeError("check_closed_form takes an interp_symbolic.closed_forms.ClosedForm, "
                        f"got {type(form).__name__}")
    rng = np.random.default_rng(seed)
    u = np.array(CHECK_POINTS)
    for theta in [np.asarray(form.init_theta, dtype=float)] + [sample_theta(form, rng) for _ in range(N_THETAS)]:
        _check_gradient(form, theta, u)
        _check_expression(form, theta, u)
        _check_list(form, f"snaps(theta={_vec(theta)})", form.snaps(theta))
    if recover:
        for _ in range(N_RECOVERIES):
            _check_recovery(form, sample_theta(form, rng))


def _check_gradient(form: ClosedForm, theta: np.ndarray, u: np.ndarray) -> None:
    """``value`` real, and ``interp.testing``'s check of a custom ridge family's value and
    gradient against central differences, at ``theta`` itself (``check_ridge_family`` would
    perturb it by default, possibly out of the bounds)."""
    if np.iscomplexobj(form.value(theta, u)):
        _fail(form, f"value(theta={_vec(theta)}, u) is complex")
    check_ridge_family(form, u, thetas=[theta], with_expression=False)  # _check_expression checks it
