"""Constants as a printed formula can show them: rounded, a vanishing one dropped, a huge one
folded as exp(log |c|); shared by the formula (``render``) and the plots' titles (``plots``)."""

from __future__ import annotations

from dataclasses import dataclass

import sympy

SHOWN_DIGITS = 4  # significant digits of the numbers in the displayed formula
TINY = 1e-300  # a nonzero constant below this in magnitude is printed as 0 (its term dropped)
HUGE = 1e300  # a constant above this in magnitude is printed as exp(log |c|)


class FoldedConstant(sympy.UnevaluatedExpr):
    """exp(L) for a constant too large to print: kept unevaluated (sympy would fold it back
    into one Float), positive and real so that Min/Max still accept it."""

    is_extended_real = is_real = is_positive = is_extended_positive = is_finite = True
    is_comparable = False

    def _mathml_presentation(self, printer):
        return printer._print(self.args[0])


@dataclass(frozen=True)
class Printable:
    """An expression whose every constant is printable, and how many tiny ones it dropped."""

    expression: object
    dropped: int


def printable(expr, digits=SHOWN_DIGITS) -> Printable:
    """``expr`` with each float rounded to ``digits`` significant digits (None: kept), a
    nonzero one below ``TINY`` in magnitude set to 0 (its term vanishes) and one above ``HUGE``
    written as +-exp(log |c|)."""
    subs, dropped = {}, 0
    for c in expr.atoms(sympy.Float):
        v = abs(c)
        if c.is_zero:
            continue
        if v < TINY:
            subs[c], dropped = sympy.Integer(0), dropped + 1
        elif v > HUGE:
            log_c = sympy.Float(float(sympy.log(v)), digits or 15)
            subs[c] = int(sympy.sign(c)) * FoldedConstant(sympy.exp(log_c, evaluate=False))
        elif digits is not None:
            subs[c] = sympy.Float(c, digits)
    return Printable(expr.xreplace(subs), dropped)


def without_unit(expr):
    """c*rest as rest (or -rest) when the coefficient c prints as 1 (or -1): 1*a reads a."""
    coefficient, rest = expr.as_coeff_Mul()
    if isinstance(coefficient, sympy.Float) and abs(float(str(coefficient))) == 1 and rest != 1:
        return rest if coefficient > 0 else -rest
    return expr
