"""The fitted model as a sympy expression in the feature names, a numpy function from it, and
each term's g(u) as a person reads it.

``expression_`` keeps what ``predict`` computes (each argument clipped to its range over the
training data's box with Min/Max, Meijer G as ``meijerg``, which ``numpy_function`` evaluates with our vectorised
G), so that it equals ``predict`` to 1e-8.  What is printed (``TermForm.shape``,
``readable_terms``) is g in its own argument u: a family's ``expression(theta, u)`` where it
has one (``closed_forms.ClosedForm``), a Meijer G that ``sympy.hyperexpand`` rewrote (under a
time limit, in the main thread only; kept only when it is real and matches the numeric G to
1e-10 on the term's range), else the hypergeometric functions Slater's theorem gives
(``hypergeometric``).  No user text is ever parsed: symbols are created with
``sympy.Symbol(name)``.
"""

from __future__ import annotations

import logging
import math
import re
import signal
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import sympy as sp

from .closed_forms import exact_number
from .families import U_FLOOR
from .hypergeometric import Z as HYPER_Z
from .hypergeometric import hypergeometric_form, parameter_key
from .meijer import meijerg

log = logging.getLogger("interp_symbolic")

HYPEREXPAND_SECONDS = 3
U = sp.Symbol("u", positive=True)  # one term's ridge argument, in each term's printed g(u)


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


def argument_symbol(k: int, xs) -> sp.Symbol:
    """The symbol of the k-th term's printed argument: ``u<k>``, unless a feature of ``xs`` is
    named like an argument (``u1``), then the first of ``v<k>``, ``w<k>``, ... (``uu<k>``, ...)
    that no feature's name can be read as, so a formula never reads a feature as an argument."""
    taken = {x.name for x in xs}
    for length in range(1, len(taken) + 2):
        for letter in "uvwtsr":
            stem = letter * length
            if not any(re.fullmatch(rf"{stem}_?\d+", name) for name in taken):
                return sp.Symbol(f"{stem}{k}", positive=True)
    raise AssertionError("unreachable: some stem is free")  # len(taken) + 1 lengths cannot all clash


def _closed_form(a_s, b_s, zlo, zhi):
    """hyperexpand of G(a; b | Z) as a function of a positive symbol Z where it is real and
    equals our meijerg on [zlo, zhi], or None.  The expansion is memoised on the parameters
    alone (a term left unchanged from one model size to the next, or only its direction or
    range changed, is expanded once; a time-out is not remembered); the check runs each time."""
    try:
        expr = _hyperexpanded(parameter_key(a_s), parameter_key(b_s))
    except _Timeout:
        return None, _CLOSED_Z
    if expr is None or not _matches_on(expr, a_s, b_s, zlo, zhi):
        return None, _CLOSED_Z
    return expr, _CLOSED_Z


_CLOSED_Z = sp.Symbol("Z", positive=True)  # the argument of ``_closed_form``'s expression


@lru_cache(maxsize=256)
def _hyperexpanded(a_s: tuple, b_s: tuple):
    """hyperexpand of G(a; b | Z) when it has no G, hypergeometric, imaginary or polar part left,
    else None; raises ``_Timeout`` (not cached) when hyperexpand ran out of time or cannot be
    timed (outside the main thread)."""
    Z = _CLOSED_Z
    ea = [[exact_number(v) for v in grp] for grp in a_s]
    eb = [[exact_number(v) for v in grp] for grp in b_s]
    try:
        with _time_limit(HYPEREXPAND_SECONDS):
            expr = sp.hyperexpand(sp.meijerg(ea, eb, Z))
            expr = sp.unpolarify(expr)
    except _Timeout:
        raise
    except Exception:  # noqa: BLE001 - keep the meijerg form
        return None
    if expr.has(sp.meijerg) or expr.has(sp.I) or expr.has(sp.exp_polar) or expr.has(sp.hyper):
        return None
    return expr


def _matches_on(expr, a_s, b_s, zlo, zhi) -> bool:
    """Whether ``expr`` (of ``_CLOSED_Z``) is real and equals our meijerg to 1e-10 at 9 points
    of [zlo, zhi]."""
    a_s, b_s = [list(g) for g in a_s], [list(g) for g in b_s]
    try:
        f = sp.lambdify([_CLOSED_Z], expr, modules=["scipy", "numpy"])
        zs = np.geomspace(max(zlo, 1e-6), max(zhi, 2e-6), 9)
        with np.errstate(all="ignore"):
            got = np.asarray(f(zs), dtype=complex) * np.ones_like(zs)
        want = meijerg(a_s, b_s, zs)
    except Exception:  # noqa: BLE001
        return False
    if np.max(np.abs(got.imag)) > 1e-12 * (1 + np.max(np.abs(want))):
        return False
    return bool(np.all(np.abs(got.real - want) <= 1e-10 * (np.abs(want) + 1e-12)))


@dataclass(frozen=True)
class SymbolicExpression:
    """The model as sympy: the whole ``expression``, each term's printed g(u) in ``U``
    (``term_forms``), whether each is a closed form (``closed``) and the sum before the link
    (``decision``: the logit of a classifier, ``expression`` itself without a link)."""

    expression: sp.Expr
    term_forms: tuple
    closed: tuple[bool, ...]
    decision: sp.Expr


@dataclass(frozen=True)
class TermForm:
    """One term's g(u) in the symbol ``U``: as printed (``shape``), as ``expression_`` and the
    numpy function evaluate it (``numeric``), and whether the printed form is an elementary or
    named closed form (``closed``; False for a hypergeometric sum or a G-function)."""

    shape: sp.Expr
    numeric: sp.Expr
    closed: bool


def direction(tm, data_min, data_range) -> tuple[np.ndarray, float]:
    """The printed numbers of a term's argument (its projection kind's ``printed``): (c, c_0)
    with slope . x' + shift = c . x + c_0 on the unscaled rows x (x' = (x - data_min) /
    data_range) for a linear term, the exponents and the logarithm of the constant for a
    monomial one.  A constant that is only the rounding of the shift and what the scaling
    moved cancelling (``tidy`` set it to 0) is 0."""
    return tm.projection.printed(tm.slope(), tm.shift, data_min, data_range)


def _numeric_symbols(kind, xs):
    """The feature symbols as a projection ``kind`` reads them: a monomial reads each of its
    columns floored at its training minimum (``MonomialProjection.features``)."""
    if kind.name != "monomial":
        return xs
    floors = np.exp(kind.log_min)
    return [sp.Max(sp.Float(float(f)), x, evaluate=False) if p else x for f, x, p in zip(floors, xs, kind.positive)]


def _clipped_argument(tm, xs, c, c0):
    """The term's ridge argument u (``c . x + c0``, or the monomial) in the feature symbols,
    clipped to its range."""
    lin = tm.projection.sympy_argument(c, c0, _numeric_symbols(tm.projection, xs))
    lo, hi = tm.u_range if tm.u_range is not None else (tm.projection.floor(), None)
    # unevaluated: the bounds are numbers and lin is not, so evaluating only asks sympy's
    # assumptions whether lin can exceed them, which they cannot tell (and which costs the most)
    floored = sp.Max(sp.Float(lo), lin, evaluate=False)
    return floored if hi is None else sp.Min(sp.Float(hi), floored, evaluate=False)


def _numeric_prefactor(tm, xs):
    """The term's prefactor in the feature symbols as the term evaluates it (1 without one)."""
    if tm.prefactor is None:
        return sp.Integer(1)
    return tm.prefactor.sympy(_numeric_symbols(tm.prefactor.kind, xs))


def _u_range(tm) -> tuple[float, float]:
    return tm.u_range if tm.u_range is not None else (max(tm.projection.floor(), U_FLOOR), 1.0)


def _equals_value(g, tm, modules) -> bool:
    """Whether ``g`` (of ``U``), lambdified with ``modules``, equals the term's family to 1e-8
    on its range of u."""
    lo, hi = _u_range(tm)
    us = np.linspace(lo, hi, 9)
    want = tm.ridge.value(tm.theta, us)
    try:
        f = sp.lambdify([U], g, modules=modules)
        with np.errstate(all="ignore"):
            got = np.array([complex(f(float(u))) for u in us])
    except Exception:  # noqa: BLE001 - a form these modules cannot evaluate
        return False
    scale = np.maximum(np.abs(want), 1e-6 * np.max(np.abs(want)))
    return bool(np.all(np.isfinite(got)) and np.all(np.abs(got - want) <= 1e-8 * scale))


def _custom_form(tm) -> TermForm:
    """A custom family's g: its own ``expression(theta, u)`` where it has one that matches its
    values (numpy evaluates it when numpy/scipy can, else through the family itself), else the
    family's name applied to u."""
    named = sp.Function(tm.family)(U)
    expression = getattr(tm.ridge_family, "expression", None)  # an optional method of a custom family
    if expression is None:
        return TermForm(named, named, False)
    try:
        g = sp.sympify(expression(tm.theta, U))
    except Exception as exc:  # noqa: BLE001 - the term still predicts and prints by name
        log.warning("family %s: expression() failed: %s", tm.family, exc)
        return TermForm(named, named, False)
    if _equals_value(g, tm, ["scipy", "numpy"]):
        return TermForm(g, g, True)
    if _equals_value(g, tm, "mpmath"):
        return TermForm(g, named, True)
    log.warning("family %s: expression() does not match value(); the term prints by name", tm.family)
    return TermForm(named, named, False)


def _meijer_form(tm) -> TermForm:
    """A Meijer term's g: hyperexpand's closed form where it is real and checked, else Slater's
    hypergeometric sum (or the G-function in its notation) on the term's range."""
    a_s, b_s, s, r = tm.ridge.split(tm.theta)
    s, r = float(s), float(r)
    lo, hi = _u_range(tm)
    zarg = sp.Float(s) * (U if r == 1.0 else U ** sp.Float(r))
    z_lo, z_hi = s * lo**r, s * hi**r
    cf, Z = _closed_form(a_s, b_s, z_lo, z_hi)
    if cf is not None:
        g = cf.subs(Z, zarg)
        return TermForm(g, g, True)
    shape = hypergeometric_form(a_s, b_s, max(z_lo, 1e-300), max(z_hi, z_lo, 1e-300)).xreplace({HYPER_Z: zarg})
    return TermForm(shape, sp.meijerg([[float(v) for v in g] for g in a_s], [[float(v) for v in g] for g in b_s],
                                      zarg), False)


def term_form(tm) -> TermForm:
    """g(u) of one fitted term (see ``TermForm``)."""
    return _custom_form(tm) if tm.orders is None else _meijer_form(tm)


def build_expression(terms, xs, intercept, data_min, data_range, *, logit=False) -> SymbolicExpression:
    """intercept + sum_k w_k g_k(u_k) in the feature symbols ``xs`` (through a sigmoid when
    ``logit``), the min-max scaling (``data_min``, ``data_range``) folded in."""
    expr = sp.Float(intercept)
    forms, closed = [], []
    for tm in terms:
        form = term_form(tm)
        u = _clipped_argument(tm, xs, *direction(tm, data_min, data_range))
        forms.append(form.shape)
        closed.append(form.closed)
        expr = expr + sp.Float(tm.weight) * _numeric_prefactor(tm, xs) * form.numeric.xreplace({U: u})
    decision = expr
    if logit:  # the logit kept whole (also through a pickle): sympy would fold exp(-intercept) into 8.8e+4342
        expr = 1 / (1 + sp.exp(-sp.UnevaluatedExpr(expr)))
    return SymbolicExpression(expression=expr, term_forms=tuple(forms), closed=tuple(closed), decision=decision)


def logit_of(probability: sp.Expr) -> sp.Expr:
    """f of a probability 1/(1 + exp(-f)) written in sympy (possibly with exp(-intercept)
    folded into a constant c: 1/(1 + c*exp(-g)) gives f = g - log c)."""
    return -sp.expand_log(sp.log(1 / probability - 1), force=True)


@dataclass(frozen=True)
class ReadableTerm:
    """One term as printed: ``weight * P(x) * shape(u)`` (P: the ``prefactor``, or 1) with u = ``coefficients`` . x + ``offset`` in
    the feature units (a linear ``projection``), or u = exp(``offset``) * prod x**``coefficients``
    (a monomial one), for u in ``domain``.  What ``shape`` only ever used as c*u, or as u**p
    on a monomial, is folded into u (``Fold``), so exp(-2*u) reads exp(-u) and u**2 of
    q/r reads u with u = q**2/r**2."""

    weight: float
    shape: sp.Expr
    coefficients: np.ndarray
    offset: float
    domain: tuple[float, float]
    projection: object = None
    fold: Fold | None = None  # how the printed u is made of the term's own (None: as fitted)
    prefactor: object = None  # the term's ``projections.Prefactor``, when it has one

    def factor(self, xs):
        """The prefactor in the feature symbols ``xs`` (small rational exponents as such; 1
        without one)."""
        return sp.Integer(1) if self.prefactor is None else self.prefactor.sympy(xs, exact=True)

    @property
    def monomial(self) -> bool:
        return getattr(self.projection, "name", "linear") == "monomial"

    def argument(self, xs, exact=True):
        """u in the feature symbols ``xs``, unclipped (``exact``: a monomial's exponents that are
        small rationals printed as such)."""
        from .projections import LINEAR

        return (self.projection or LINEAR).sympy_argument(self.coefficients, self.offset, xs, exact=exact)


@dataclass(frozen=True)
class Fold:
    """What the printer folds into a term's argument: the printed u is ``scale * u**power``
    (``power`` != 1 only for a monomial, whose exponents take it)."""

    scale: float = 1.0
    power: float = 1.0

    def numbers(self, kind, c, c0) -> tuple[np.ndarray, float]:
        """The printed argument's numbers from the term's own (``direction``)."""
        if kind.name == "monomial":
            return self.power * np.asarray(c), self.power * c0 + math.log(self.scale)
        return self.scale * np.asarray(c), self.scale * c0

    def unfolded(self, kind, c, c0) -> tuple[np.ndarray, float]:
        """The term's own numbers from printed ones: the inverse of ``numbers``."""
        if kind.name == "monomial":
            return np.asarray(c) / self.power, (c0 - math.log(self.scale)) / self.power
        return np.asarray(c) / self.scale, c0 / self.scale

    def domain(self, lo: float, hi: float) -> tuple[float, float]:
        ends = sorted((self.scale * lo**self.power, self.scale * hi**self.power))
        return ends[0], ends[1]


def _argument_scale(shape) -> float | None:
    """|c| when every occurrence of ``U`` in ``shape`` is a product c*U with the same |c| != 1."""
    nodes = list(sp.preorder_traversal(shape))
    scaled = [n for n in nodes if n.is_Mul and len(n.args) == 2 and U in n.args and n.args[0].is_Number]
    scales = {abs(float(n.args[0])) for n in scaled}
    if not scaled or len(scaled) != sum(1 for n in nodes if n == U) or len(scales) != 1 or scales == {1.0}:
        return None
    return scales.pop()


def _folded(tm, shape) -> tuple[sp.Expr, Fold]:
    """``shape`` with its argument's scale (or, for a monomial term, its power u**p) folded into
    u, and the ``Fold``.  A Slater sum of a Meijer term with r = 1 holds z^b_h = (s u)^b_h, which
    sympy splits, so it is rebuilt in u' = s u instead."""
    if tm.orders is not None:
        a_s, b_s, s, r = tm.ridge.split(tm.theta)
        s, r = float(s), float(r)
        if r == 1.0:
            lo, hi = _u_range(tm)
            form = hypergeometric_form(a_s, b_s, max(s * lo, 1e-300), max(s * hi, s * lo, 1e-300))
            if shape == form.xreplace({HYPER_Z: sp.Float(s) * U}):
                return form.xreplace({HYPER_Z: U}), Fold(scale=s)
    if tm.projection.name == "monomial" and shape.is_Pow and shape.base == U and shape.exp.is_Number:
        return U, Fold(power=float(shape.exp))
    scale = _argument_scale(shape)
    if scale is None:
        return shape, Fold()
    replace = {n: sp.sign(n.args[0]) * U for n in sp.preorder_traversal(shape)
               if n.is_Mul and len(n.args) == 2 and U in n.args}
    return shape.xreplace(replace), Fold(scale=scale)


def printed_fold(tm) -> Fold | None:
    """What the printer folds into a closed-form term's argument (``_folded``: w of exp(w u), p
    of a monomial's u**p), or None for a term that does not print as a closed form of its own
    (a Meijer G or a custom family without a matching ``expression``)."""
    from .closed_forms import ClosedForm

    if not isinstance(tm.ridge_family, ClosedForm):
        return None
    form = _custom_form(tm)
    return _folded(tm, form.shape)[1] if form.closed else None


def readable_terms(est) -> tuple[ReadableTerm, ...]:
    """The fitted terms of ``est`` as printed (see ``ReadableTerm``), from each term's stored
    ``closed_form`` (built again where a model lacks it)."""
    out = []
    for tm in est.terms_:
        shape = tm.closed_form if tm.closed_form is not None else term_form(tm).shape
        shape, fold = _folded(tm, shape)
        coefficients, offset = fold.numbers(tm.projection, *direction(tm, est.data_min_, est.data_range_))
        out.append(ReadableTerm(tm.weight, shape, coefficients, offset, fold.domain(*_u_range(tm)), tm.projection,
                                fold, tm.prefactor))
    return tuple(out)


def _custom_ridge_function(tm):
    """g(u) of a custom-family term as a numpy function, for lambdify."""
    return lambda u: tm.ridge.value(tm.theta, np.asarray(u, dtype=float))


def lambdify_expression(est):
    """numpy f(X) from ``est.expression_``.  A term printed as its family's name applied to u
    is evaluated by the term's own fitted family: each is renamed ``_ridge_k`` first, so that
    two terms of one family keep their own parameters and a family named like a numpy
    function (a closed form called "exp") never shadows it."""
    xs = feature_symbols(est)
    expr = est.expression_
    mods = {"meijerg": _np_meijerg}
    for k, tm in enumerate(est.terms_):
        if tm.orders is None:
            u = _clipped_argument(tm, xs, *direction(tm, est.data_min_, est.data_range_))
            expr = expr.xreplace({sp.Function(tm.family)(u): sp.Function(f"_ridge_{k}")(u)})
            mods[f"_ridge_{k}"] = _custom_ridge_function(tm)
    f = sp.lambdify(xs, expr, modules=[mods, "scipy", "numpy"])

    def predict(X):
        X = np.asarray(X, dtype=float)
        with np.errstate(all="ignore"):
            out = f(*[X[:, j] for j in range(X.shape[1])])
        return np.real(np.asarray(out, dtype=complex)) * np.ones(X.shape[0])

    return predict
