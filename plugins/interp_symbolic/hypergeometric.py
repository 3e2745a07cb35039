"""A Meijer G-function with real parameters written as the hypergeometric functions it is.

Slater's theorem: when the first-group poles b_1..b_m are simple (no two differ by an integer),

    G^{m,n}_{p,q}(a; b | z) = sum_{h <= m} C_h z^{b_h}
        pF_{q-1}(1 + b_h - a_1..a_p; 1 + b_h - b_j (j != h); (-1)^{p-m-n} z),

    C_h = prod_{j <= m, j != h} Gamma(b_j - b_h) prod_{j <= n} Gamma(1 + b_h - a_j)
          / (prod_{j > m} Gamma(1 + b_h - b_j) prod_{j > n} Gamma(a_j - b_h)),

which converges for every z when p < q and for |z| < 1 when p == q.  For p > q (and p == q
with |z| > 1) the same sum is taken of G^{n,m}_{q,p}(1 - b; 1 - a | 1/z), the expansion in 1/z.
Every C_h is real for real parameters, so the printed formula never holds ``I`` or
``exp_polar``.  ``hypergeometric_form`` builds that sum in sympy (``sympy.hyper``; 0F0 and 1F0
written as the exponential and the power they are) and keeps it only where it equals our
``meijerg`` to ``CHECK_RTOL`` on the term's range of z; otherwise (poles closer than the check
allows, or a range across |z| = 1 for p == q) the term stays a G-function, printed in the usual
G^{m,n}_{p,q} notation with its real parameters.

``TextPrinter``, ``LatexPrinter`` and ``MathMLPrinter`` write ``hyper`` as ``1F2(a; b1, b2; z)``
/ ``{}_1F_2(a; b_1, b_2; z)``, ``meijerg`` as ``G^{m,n}_{p,q}(a | b | z)``, floats without
trailing zeros, and the sum they are given in the order of its terms.
"""

from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass
from functools import lru_cache

import mpmath
import numpy as np
import sympy as sp
from sympy.printing.conventions import split_super_sub
from sympy.printing.latex import LatexPrinter as _SympyLatex
from sympy.printing.latex import translate
from sympy.printing.mathml import MathMLPresentationPrinter
from sympy.printing.str import StrPrinter

from interp.terminal import visible

from .meijer import meijerg
from .meijer.series import Parameters, common_side

Z = sp.Symbol("z", positive=True)  # the G-function's argument in ``hypergeometric_form``
CHECK_RTOL = 1e-8  # the Slater sum must equal our meijerg to this relative error on the range
CHECK_POINTS = 9  # points of that check, geometrically spaced over the range of z
SAME = 1e-12  # an upper and a lower parameter this close cancel (pFq -> p-1 F q-1)
WORKING_DPS = 30  # mpmath digits of the coefficients and of the check


@dataclass(frozen=True)
class Pole:
    """One term of Slater's sum: ``coefficient * w**power * hyper(upper, lower, sign * w)``
    with w = z (direct) or 1/z (reciprocal)."""

    coefficient: float
    power: float
    upper: tuple[float, ...]
    lower: tuple[float, ...]


@dataclass(frozen=True)
class SlaterSum:
    """Slater's sum of a G-function: its poles, the sign of the pFq's argument, and whether
    the sum is in w = 1/z (``reciprocal``)."""

    poles: tuple[Pole, ...]
    sign: int
    reciprocal: bool


def _is_nonpositive_integer(x: float) -> bool:
    return x <= 0 and float(x).is_integer()


def _sign(k: int) -> int:
    return -1 if k % 2 else 1


def _number(v: float) -> sp.Expr:
    """A float as sympy: an Integer when it is one (so 1*z**1 prints as z), else a Float."""
    return sp.Integer(int(v)) if float(v).is_integer() else sp.Float(v)


def _coefficient(bh, a1, a2, b1, b2, h) -> float:
    """C_h of Slater's sum (see the module docstring), computed at ``WORKING_DPS`` digits."""
    with mpmath.workdps(WORKING_DPS):
        bh = mpmath.mpf(bh)
        c = mpmath.mpf(1)
        for bj in (bj for j, bj in enumerate(b1) if j != h):
            c *= mpmath.gamma(bj - bh)
        for aj in a1:
            c *= mpmath.gamma(1 + bh - aj)
        for bj in b2:
            c *= mpmath.rgamma(1 + bh - bj)
        for aj in a2:
            c *= mpmath.rgamma(aj - bh)
        return float(c)


def _poles(a1, a2, b1, b2) -> tuple[Pole, ...] | None:
    """Slater's direct sum over the poles b_h (h <= m), or None when two first-group poles
    differ by an integer (coincident: the sum holds logarithms), a lower parameter is a
    non-positive integer (the pFq is undefined) or a coefficient is not finite."""
    a, b = (*a1, *a2), (*b1, *b2)
    if any(float(bj - bh).is_integer() for h, bh in enumerate(b1) for bj in b1[h + 1:]):
        return None
    out = []
    for h, bh in enumerate(b1):
        others = [bj for j, bj in enumerate(b) if j != h]
        if any(_is_nonpositive_integer(1 + bh - v) for v in (*others, *a1)):
            return None
        try:
            coefficient = _coefficient(bh, a1, a2, b1, b2, h)
        except (ValueError, ZeroDivisionError):
            return None
        if not math.isfinite(coefficient):
            return None
        if coefficient != 0.0:
            out.append(Pole(coefficient, float(bh), tuple(1 + bh - aj for aj in a),
                            tuple(1 + bh - bj for bj in others)))
    return tuple(out)


def slater_sum(a_s, b_s, z_lo: float, z_hi: float) -> SlaterSum | None:
    """The Slater sum that converges on [z_lo, z_hi] (mpmath's argument convention:
    ``a_s = [[a_1..a_n], [a_{n+1}..a_p]]``, ``b_s = [[b_1..b_m], [b_{m+1}..b_q]]``), or None:
    the expansion our ``meijerg`` would sum at every point of the range (``series.common_side``),
    in 1/z that of the mirrored parameters (``Parameters.mirrored``)."""
    par = Parameters.from_mpmath(a_s, b_s)
    direct = common_side(par.p, par.q, np.array([z_lo, z_hi]))
    if direct is None:
        return None
    side = par if direct else par.mirrored()
    a, b = side.a.tolist(), side.b.tolist()
    poles = _poles(a[:side.n], a[side.n:], b[:side.m], b[side.m:])
    return None if poles is None else SlaterSum(poles, _sign(side.p - side.m - side.n), not direct)


def named_hypergeometric(upper, lower, x):
    """pFq(upper; lower; x) with equal upper and lower parameters cancelled, written as the
    exponential (0F0), the power (1F0) or the constant 1 (an upper parameter 0) it then is."""
    upper, lower = list(upper), list(lower)
    for b in list(lower):
        match = next((a for a in upper if abs(a - b) <= SAME * (1 + abs(b))), None)
        if match is not None:
            upper.remove(match)
            lower.remove(b)
    if any(a == 0 for a in upper):
        return sp.Integer(1)
    if not upper and not lower:
        return sp.exp(x)
    if len(upper) == 1 and not lower:
        return (1 - x) ** _number(-upper[0])
    return sp.hyper([_number(a) for a in upper], [_number(b) for b in lower], x)


def slater_expression(series: SlaterSum) -> sp.Expr:
    """The Slater sum as a sympy expression of ``Z``."""
    w = 1 / Z if series.reciprocal else Z
    terms = [_number(pole.coefficient) * w ** _number(pole.power)
             * named_hypergeometric(pole.upper, pole.lower, series.sign * w) for pole in series.poles]
    return sp.Add(*terms)


def _matches_meijerg(expr, a_s, b_s, z_lo: float, z_hi: float) -> bool:
    """Whether ``expr`` (of ``Z``), evaluated with mpmath, equals our meijerg to ``CHECK_RTOL``
    at ``CHECK_POINTS`` points of [z_lo, z_hi] (mpmath's meijerg where ours gives NaN)."""
    zs = np.geomspace(z_lo, z_hi, CHECK_POINTS) if z_hi > z_lo else np.array([z_lo])
    want = np.asarray(meijerg(a_s, b_s, zs), dtype=float)
    f = sp.lambdify([Z], expr, modules="mpmath")
    with mpmath.workdps(WORKING_DPS):
        for i in np.flatnonzero(~np.isfinite(want)):
            want[i] = float(mpmath.re(mpmath.meijerg(a_s, b_s, float(zs[i]))))
        try:
            got = np.array([complex(f(mpmath.mpf(float(z)))) for z in zs])
        except (ValueError, ZeroDivisionError, OverflowError, mpmath.libmp.NoConvergence):
            return False
    if not (np.all(np.isfinite(want)) and np.all(np.isfinite(got))):
        return False
    scale = np.maximum(np.abs(want), 1e-6 * np.max(np.abs(want)))
    return bool(np.all(np.abs(got - want) <= CHECK_RTOL * scale))


@lru_cache(maxsize=256)
def _cached_form(a_s: tuple, b_s: tuple, z_lo: float, z_hi: float) -> sp.Expr:
    series = slater_sum(a_s, b_s, z_lo, z_hi)
    if series is not None:
        expr = slater_expression(series)
        if _matches_meijerg(expr, [list(g) for g in a_s], [list(g) for g in b_s], z_lo, z_hi):
            return expr
    return sp.meijerg([[_number(v) for v in g] for g in a_s], [[_number(v) for v in g] for g in b_s], Z)


def hypergeometric_form(a_s, b_s, z_lo: float, z_hi: float) -> sp.Expr:
    """G(a; b | Z) on [z_lo, z_hi] (0 < z_lo <= z_hi) as Slater's sum of named hypergeometric
    functions of ``Z`` where that sum is checked against our meijerg, else the G-function
    itself with its real parameters (memoised: a model prints its terms several times).
    Parameters for which G is undefined (some a_j - b_h, j <= n, h <= m, a positive integer)
    raise ValueError, as ``sympy.meijerg`` does."""
    return _cached_form(parameter_key(a_s), parameter_key(b_s), float(z_lo), float(z_hi))


def parameter_key(groups) -> tuple:
    """G's parameter groups as nested tuples of floats: hashable, for a memoised function."""
    return tuple(tuple(float(v) for v in g) for g in groups)


# ------------------------------------------------------------------------------ printers
def trim_float(text: str) -> str:
    """A printed float without trailing zeros in its mantissa: 2.000 -> 2, 3.690e-5 -> 3.69e-5."""
    mantissa, e, exponent = text.partition("e")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return mantissa + e + exponent


class _GivenOrder:
    """A printer mixin: the sum printed (``doprint``'s argument) keeps the order its terms were
    given in (an unevaluated ``Add``: intercept first, terms in model order); every sum inside
    it is in sympy's usual order (u - 0.08, not -0.08 + u)."""

    def doprint(self, expr):
        self._given = expr
        return super().doprint(expr)

    def _as_ordered_terms(self, expr, order=None):
        if expr is getattr(self, "_given", None):
            return list(expr.args)
        return super()._as_ordered_terms(expr, order=order)


class TextPrinter(_GivenOrder, StrPrinter):
    """sympy's text, with pFq and G named as a statistician writes them."""

    def _print_Float(self, expr):
        return trim_float(super()._print_Float(expr))

    def _print_hyper(self, expr):
        up, low = (", ".join(self._print(v) for v in group) for group in (expr.ap, expr.bq))
        return f"{len(expr.ap)}F{len(expr.bq)}({up}; {low}; {self._print(expr.argument)})"

    def _print_meijerg(self, expr):
        an, ao, bm, bo = (", ".join(self._print(v) for v in g) for g in (expr.an, expr.aother, expr.bm, expr.bother))
        orders = f"G^{{{len(expr.bm)},{len(expr.an)}}}_{{{len(expr.ap)},{len(expr.bq)}}}"
        return f"{orders}({f'{an}; {ao}'.strip()} | {f'{bm}; {bo}'.strip()} | {self._print(expr.argument)})"


# a symbol sympy's printers may write their own way: letters, then a number, which they set as a
# subscript (u1 and x_1 as u_1 and x_1); any other name is set as written, as text: an underscore
# before letters is part of a column's name (mean_texture), never a subscript
PLAIN_NAME = re.compile(r"[A-Za-z]+(_?[0-9]+)?")


def sympy_keeps(name: str) -> bool:
    """Whether sympy prints the parts of ``name`` as written: it sets trailing digits and ``_x``
    as a subscript, but also reads ``beta`` as a Greek letter and ``pricebar``, ``xnorm`` or
    ``xdot`` as an accent; a name it would turn into another symbol is printed as text."""
    base, supers, subs = split_super_sub(name)
    return all(translate(part) == part for part in (base, *supers, *subs))
LATEX_TEXT_ESCAPES = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#",
                      "%": r"\%", "_": r"\_", "^": r"\textasciicircum{}", "~": r"\textasciitilde{}"}


def latex_text(name: str) -> str:
    """``name`` as LaTeX text, ``\\text{...}``, every character LaTeX treats specially escaped
    (a control character, a line break among them, first made a visible escape: a blank line
    would end the ``\\text`` group)."""
    return r"\text{" + "".join(LATEX_TEXT_ESCAPES.get(ch, ch) for ch in visible(name, one_line=True)) + "}"


class LatexPrinter(_GivenOrder, _SympyLatex):
    """sympy's LaTeX, with pFq written {}_pF_q(a; b; z), and a feature name that is not letters
    then a number (``PLAIN_NAME``) or that sympy would turn into another symbol (``sympy_keeps``)
    set as escaped text: a column named ``a%b`` or ``x & y`` would otherwise end the formula's
    line or break its alignment, ``mean_texture`` would read as mean with the subscript texture
    and ``beta`` as a Greek letter."""

    def _print_Symbol(self, expr, style="plain"):
        if PLAIN_NAME.fullmatch(expr.name) and sympy_keeps(expr.name):
            return super()._print_Symbol(expr, style=style)
        return latex_text(expr.name)

    def _print_Float(self, expr):
        mantissa, times, power = super()._print_Float(expr).partition(r" \cdot ")
        return trim_float(mantissa) + times + power

    def _print_hyper(self, expr, exp=None):
        up, low = (", ".join(self._print(v) for v in group) for group in (expr.ap, expr.bq))
        out = rf"{{}}_{{{len(expr.ap)}}}F_{{{len(expr.bq)}}}\left({up}; {low}; {self._print(expr.argument)}\right)"
        return rf"\left({out}\right)^{{{exp}}}" if exp is not None else out



class MathMLPrinter(_GivenOrder, MathMLPresentationPrinter):
    """sympy's presentation MathML, with pFq and G in their usual notation, and a variable
    whose name is not letters then a number (``PLAIN_NAME``: a column name such as ``mean_texture``
    or ``a<b``), or that sympy would turn into another symbol (``sympy_keeps``), shown as
    written, escaped: sympy writes a name's text unescaped, and an underscore as a subscript."""

    def _print_Symbol(self, sym, style="plain"):
        if PLAIN_NAME.fullmatch(sym.name) and sympy_keeps(sym.name):
            return super()._print_Symbol(sym, style)
        return self._element("mi", text=html.escape(sym.name, quote=False))

    def _print_Float(self, expr):
        mn = super()._print_Float(expr)
        if mn.childNodes and mn.childNodes[0].nodeType == mn.TEXT_NODE:
            mn.childNodes[0].data = trim_float(mn.childNodes[0].data)
        return mn

    def _element(self, tag, *children, text=None):
        el = self.dom.createElement(tag)
        if text is not None:
            el.appendChild(self.dom.createTextNode(text))
        for child in children:
            el.appendChild(child)
        return el

    def _list(self, *groups):
        """The values of ``groups`` separated by commas, the groups by semicolons / bars."""
        row = self._element("mrow")
        for i, (sep, group) in enumerate(groups):
            if i:
                row.appendChild(self._element("mo", text=sep))
            for j, v in enumerate(group):
                if j:
                    row.appendChild(self._element("mo", text=","))
                row.appendChild(self._print(v))
        return row

    def _pair(self, i, j):
        return self._element("mrow", self._element("mn", text=str(i)), self._element("mo", text=","),
                             self._element("mn", text=str(j)))

    def _applied(self, name, body):
        fenced = self._element("mrow", self._element("mo", text="("), body, self._element("mo", text=")"))
        return self._element("mrow", name, fenced)

    def _print_hyper(self, expr):
        name = self._element("mmultiscripts", self._element("mi", text="F"),
                             self._element("mn", text=str(len(expr.bq))), self._element("none"),
                             self._element("mprescripts"), self._element("mn", text=str(len(expr.ap))),
                             self._element("none"))
        return self._applied(name, self._list(("", expr.ap), (";", expr.bq), (";", [expr.argument])))

    def _print_meijerg(self, expr):
        name = self._element("msubsup", self._element("mi", text="G"), self._pair(len(expr.ap), len(expr.bq)),
                             self._pair(len(expr.bm), len(expr.an)))
        body = self._list(("", expr.an), (";", expr.aother), ("|", expr.bm), (";", expr.bother),
                          ("|", [expr.argument]))
        return self._applied(name, body)
