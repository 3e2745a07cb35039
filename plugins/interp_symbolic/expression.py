"""The fitted model as a sympy expression in the feature names, and a numpy function from it.

Each Meijer term is offered to ``sympy.hyperexpand`` (under a time limit, in the main thread
only); the closed form replaces ``meijerg`` only when it is real and matches the numeric
G-function to 1e-10 on the term's range of arguments.  No user text is ever parsed: symbols are
created with ``sympy.Symbol(name)``.
"""

from __future__ import annotations

import math
import signal
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import sympy as sp

from .families import U_FLOOR
from .meijer import meijerg

HYPEREXPAND_SECONDS = 3


class _Timeout(Exception):
    pass


@contextmanager
def _time_limit(seconds):
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGALRM"):
        raise _Timeout("no alarm outside the main thread")

    def handler(signum, frame):
        raise _Timeout()

    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _np_meijerg(a_s, b_s, z):
    z = np.asarray(z, dtype=float)
    a_s = [[float(v) for v in a_s[0]], [float(v) for v in a_s[1]]]
    b_s = [[float(v) for v in b_s[0]], [float(v) for v in b_s[1]]]
    return meijerg(a_s, b_s, z)


def feature_symbols(est):
    """One real sympy symbol per feature of a fitted estimator (its feature names, or x1..xd)."""
    names = getattr(est, "feature_names_in_", None)
    d = est.n_features_in_
    if names is None:
        names = [f"x{j + 1}" for j in range(d)]
    return [sp.Symbol(str(n), real=True) for n in names]


def _exact(v):
    """A parameter as a small-denominator Rational when it is one to 1e-13, else a Float."""
    fr = Fraction(v).limit_denominator(12)
    return sp.Rational(fr.numerator, fr.denominator) if abs(float(fr) - v) < 1e-13 else sp.Float(v)


def _closed_form(a_s, b_s, zlo, zhi):
    """hyperexpand of G(a; b | Z) as a function of a positive symbol Z, or None."""
    Z = sp.Symbol("Z", positive=True)
    ea = [[_exact(v) for v in grp] for grp in a_s]
    eb = [[_exact(v) for v in grp] for grp in b_s]
    try:
        with _time_limit(HYPEREXPAND_SECONDS):
            expr = sp.hyperexpand(sp.meijerg(ea, eb, Z))
            expr = sp.unpolarify(expr)
    except (_Timeout, Exception):  # noqa: BLE001 - keep the meijerg form
        return None, Z
    if expr.has(sp.meijerg) or expr.has(sp.I) or expr.has(sp.exp_polar) or expr.has(sp.hyper):
        return None, Z
    try:
        f = sp.lambdify([Z], expr, modules=["scipy", "numpy"])
        zs = np.geomspace(max(zlo, 1e-6), max(zhi, 2e-6), 9)
        with np.errstate(all="ignore"):
            got = np.asarray(f(zs), dtype=complex) * np.ones_like(zs)
        want = meijerg(a_s, b_s, zs)
        if np.max(np.abs(got.imag)) > 1e-12 * (1 + np.max(np.abs(want))):
            return None, Z
        if not np.all(np.abs(got.real - want) <= 1e-10 * (np.abs(want) + 1e-12)):
            return None, Z
    except Exception:  # noqa: BLE001
        return None, Z
    return expr, Z


@dataclass(frozen=True)
class SymbolicExpression:
    """The model as sympy: the whole ``expression``, each term's g(u) (``term_forms``),
    whether ``hyperexpand`` gave it a closed form (``closed``) and the sum before the link
    (``decision``: the logit of a classifier, ``expression`` itself without a link)."""

    expression: sp.Expr
    term_forms: tuple
    closed: tuple[bool, ...]
    decision: sp.Expr


def _ridge_argument(tm, xs, data_min, data_range):
    """The term's clipped ridge argument u in the original feature units."""
    c = tm.v / (np.linalg.norm(tm.v) * math.sqrt(len(xs))) / data_range
    c0 = -float(c @ data_min)
    lin = sp.Float(c0) + sum(sp.Float(float(cj)) * x for cj, x in zip(c, xs))
    lo, hi = tm.u_range if tm.u_range is not None else (U_FLOOR, None)
    u = sp.Max(sp.Float(lo), lin) if hi is None else sp.Min(sp.Float(hi), sp.Max(sp.Float(lo), lin))
    return u, lo, hi


def _term_form(tm, u, lo, hi):
    """g(u) of one term, and whether it is a closed form (a Meijer G that hyperexpand rewrote)."""
    if tm.orders is None:
        return sp.Function(tm.family)(u), False
    m, n, p, q = tm.orders
    th = tm.theta
    a_s = [[float(v) for v in th[:n]], [float(v) for v in th[n:p]]]
    b_s = [[float(v) for v in th[p:p + m]], [float(v) for v in th[p + m:p + q]]]
    s, r = float(th[p + q]), float(th[p + q + 1])
    zarg = sp.Float(s) * u ** sp.Float(r)
    cf, Z = _closed_form(a_s, b_s, s * lo**r, s * (hi if hi is not None else 1.0) ** r)
    if cf is not None:
        return cf.subs(Z, zarg), True
    return sp.meijerg(a_s, b_s, zarg), False


def build_expression(terms, xs, intercept, data_min, data_range, *, logit=False) -> SymbolicExpression:
    """intercept + sum_k w_k g_k(u_k) in the feature symbols ``xs`` (through a sigmoid when
    ``logit``), the min-max scaling (``data_min``, ``data_range``) folded in."""
    expr = sp.Float(intercept)
    forms, closed = [], []
    for tm in terms:
        g, is_closed = _term_form(tm, *_ridge_argument(tm, xs, data_min, data_range))
        forms.append(g)
        closed.append(is_closed)
        expr = expr + sp.Float(tm.weight) * g
    decision = expr
    if logit:
        expr = 1 / (1 + sp.exp(-expr))
    return SymbolicExpression(expression=expr, term_forms=tuple(forms), closed=tuple(closed), decision=decision)


def _custom_ridge_function(tm):
    """g(u) of a custom-family term as a numpy function, for lambdify."""
    return lambda u: tm.ridge.value(tm.theta, np.asarray(u, dtype=float))


def lambdify_expression(est):
    """numpy f(X) from ``est.expression_``; a custom family's g is the term's own fitted family."""
    xs = feature_symbols(est)
    mods = {"meijerg": _np_meijerg}
    for tm in est.terms_:
        if tm.orders is None:
            mods[tm.family] = _custom_ridge_function(tm)
    f = sp.lambdify(xs, est.expression_, modules=[mods, "scipy", "numpy"])

    def predict(X):
        X = np.asarray(X, dtype=float)
        with np.errstate(all="ignore"):
            out = f(*[X[:, j] for j in range(X.shape[1])])
        return np.real(np.asarray(out, dtype=complex)) * np.ones(X.shape[0])

    return predict
