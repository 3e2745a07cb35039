"""Round numbers in the printed formula where the loss allows: the last step of simplification.

A fitted model prints digits its fit does not need.  exp(-(2a + c)/2) is fitted, and printed,
as ``f(x) = -0.0002111 + 0.9949*exp(-u1)`` with ``u1 = 0.9996*a + 0.4998*c - 0.005221``: the
constant in u1 is the min-max scaling's origin (the pursuit's argument has no constant of its
own), the rest is what least squares makes of a fit that is exact to 1e-10.  Two steps put
round numbers in their place, each kept only while the model's loss stays within the budget
simplification allows (``simplify.loss_budget``: ``simplify_tol`` of the loss, or of 1e-4 of
the target's variance for a fit that exact):

* ``tidy_arguments`` (on the training rows): each closed-form term's printed argument, divided
  by its largest coefficient (a scale-free g such as u^t takes the factor into its weight) or
  not, its coefficients rounded to 1, 2 or 3 significant digits of the largest (a coefficient
  smaller than that rounds to 0 and its feature leaves the term) and its constant set to 0 or
  rounded alike, the term's ``gain`` and ``shift`` set to print exactly those numbers, the
  weights re-solved; the roundest candidate within the budget wins.  A Meijer G term keeps its argument:
  its printed form (a hypergeometric sum) is not made readable by round coefficients.
  A monomial term's printed exponents (a power u**p folded in) are rounded to whole numbers,
  then halves, thirds and quarters instead, with the constant 1 or rounded to 1 to 3 digits;
  then a term's prefactor's exponents alike (its constant is the weight's).  A monomial
  term that is a power of u times a prefactor is first written as the one monomial it is.
* ``round_weights`` (on every row, after the last solve): the intercept (to 0 first) and each
  weight rounded to 1, 2 or 3 significant digits in turn, the constants not yet rounded
  re-solved after each.

With both, the example prints ``f(x) = exp(-u1)`` with ``u1 = a + 0.5*c``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .model import Model, Rows, design, least_squares, mse, solved
from .projections import direction_scale
from .simplify import loss_budget
from .terms import Term

DIGITS = (1, 2, 3)  # significant digits tried, fewest first (the formula prints 4)
EXPONENT_DENOMINATORS = (1, 2, 3, 4)  # a monomial's exponents are tried as multiples of 1/q, whole first
NEAR = 0.02  # ... and a prefactor's exponents within this of such a multiple alone

__all__ = ["DIGITS", "Scaling", "quantum", "round_weights", "tidy_arguments"]


@dataclass(frozen=True)
class Scaling:
    """The min-max scaling of the features (x' = (x - data_min) / data_range): the printed
    argument is in the features' own units."""

    data_min: np.ndarray
    data_range: np.ndarray


def quantum(reference: float, digits: int) -> float:
    """The unit of the ``digits``-th significant digit of ``reference`` (> 0)."""
    return 10.0 ** (math.floor(math.log10(reference)) - digits + 1)


def tidy_arguments(model: Model, fit: Rows, tol: float, scaling: Scaling) -> Model:
    """``model`` with each closed-form term's printed argument as round as the budget allows
    (see the module docstring), term by term against one budget from the model's own loss on
    ``fit``; the weights and intercept re-solved there."""
    terms = list(model.terms)
    G = design(terms, fit.Xs)
    budget = loss_budget(mse(solved(terms, G, fit.t), G, fit.t), float(np.var(fit.t)), tol)
    for k in range(len(terms)):
        for rounder in (lambda tm: _merged_power(tm, scaling), lambda tm: _rounder_arguments(tm, scaling),
                        _rounder_prefactors):
            for candidate in rounder(terms[k]):
                column = design([candidate], fit.Xs)[:, 0]
                if not np.all(np.isfinite(column)):
                    continue
                trial_G = G.copy()
                trial_G[:, k] = column
                trial = terms[:k] + [candidate] + terms[k + 1:]
                if mse(solved(trial, trial_G, fit.t), trial_G, fit.t) <= budget:
                    terms, G = trial, trial_G
                    break
    return solved(terms, G, fit.t)


def _merged_power(tm: Term, scaling: Scaling) -> list[Term]:
    """A monomial term ``P(x) * u**p`` with a prefactor P as the one monomial it is, u**1 with
    the exponents p*a + b (a: u's, b: P's) and the constant C**p, without a prefactor; none
    for another term."""
    from .closed_forms import Power
    from .expression import direction

    if tm.prefactor is None or tm.projection.name != "monomial" or not isinstance(tm.ridge_family, Power):
        return []
    p = float(tm.theta[0])
    a, c0 = direction(tm, scaling.data_min, scaling.data_range)
    single = Term(tm.ridge, [1.0], tm.v, tm.weight, projection=tm.projection)
    return [_with_printed_argument(single, p * a + tm.prefactor.exponents, p * c0, scaling)]


def _rounder_prefactors(tm: Term) -> list[Term]:
    """``tm`` with its prefactor's exponents rounded to multiples of 1/q
    (``EXPONENT_DENOMINATORS``, whole numbers first), all of them, then only those already
    within ``NEAR`` of one (an exponent of 1.00003 beside one of 1.206); none without a
    prefactor."""
    if tm.prefactor is None:
        return []
    exponents = tm.prefactor.exponents
    options = []
    for q in EXPONENT_DENOMINATORS:
        rounded = np.round(exponents * q) / q
        options += [rounded, np.where(np.abs(rounded - exponents) <= NEAR, rounded, exponents)]
    out, seen = [], {tuple(exponents)}
    for option in options:
        if tuple(option) not in seen:
            seen.add(tuple(option))
            out.append(Term(tm.ridge, tm.theta, tm.v, tm.weight, tm.gain, tm.shift, tm.projection,
                            tm.prefactor.with_exponents(option)))
    return out


def _rounder_arguments(tm: Term, scaling: Scaling) -> list[Term]:
    """``tm`` with its printed argument rounded, roundest first (see the module docstring); none
    for a term that is not a closed form."""
    from .expression import direction, printed_fold

    fold = printed_fold(tm)
    if fold is None:
        return []
    printed, constant = fold.numbers(tm.projection, *direction(tm, scaling.data_min, scaling.data_range))
    top = float(np.max(np.abs(printed)))
    if not (top > 0 and np.isfinite(top) and np.isfinite(constant)):
        return []
    rounder = _monomial_options if tm.projection.name == "monomial" else _linear_options
    out, seen = [], {(tuple(printed), constant)}
    for coefficients, offset in rounder(printed, constant, top):
        key = (tuple(coefficients), offset)
        if key not in seen:
            seen.add(key)
            out.append(_with_printed_argument(tm, *fold.unfolded(tm.projection, coefficients, offset), scaling))
    return out


def _linear_options(printed, constant, top) -> list[tuple[np.ndarray, float]]:
    """A linear argument's coefficients rounded to ``DIGITS`` of the largest, or of 1 after
    dividing by the largest (a scale-free g such as u^t absorbs it), each with no constant or
    the constant rounded alike; then the coefficients as they are without a constant."""
    options = []
    for digits in DIGITS:
        for unit in (top, 1.0):  # the largest coefficient 1 first: a scale-free g (u^t) absorbs it
            q = quantum(top / unit, digits)
            rounded = np.round(printed / unit / q) * q
            options += [(rounded, 0.0), (rounded, float(np.round(constant / unit / q) * q))]
    options.append((printed, 0.0))
    return options


def _monomial_options(printed, constant, top) -> list[tuple[np.ndarray, float]]:
    """A monomial's exponents rounded to multiples of 1/q (``EXPONENT_DENOMINATORS``), each with
    the constant 1 (log 0) or rounded to ``DIGITS`` significant digits; then the exponents as
    they are with the constant 1."""
    options = []
    for q in EXPONENT_DENOMINATORS:
        rounded = np.round(printed * q) / q
        options.append((rounded, 0.0))
        options += [(rounded, math.log(round(math.exp(constant) / quantum(math.exp(constant), d)) *
                                       quantum(math.exp(constant), d)))
                    for d in DIGITS if math.exp(constant) > 0]
    options.append((printed, 0.0))
    return options


def _with_printed_argument(tm: Term, c: np.ndarray, c0: float, scaling: Scaling) -> Term:
    """``tm`` with the argument whose own numbers (``direction``) are c and c0 (its gain and
    shift set, its direction along the slope in its kind's scaled features)."""
    slope, shift = tm.projection.fitted(c, c0, scaling.data_min, scaling.data_range)
    return Term(tm.ridge, tm.theta, slope, tm.weight, gain=1.0 / direction_scale(slope, tm.normalised),
                shift=shift, projection=tm.projection, prefactor=tm.prefactor)


def round_weights(model: Model, G: np.ndarray, t: np.ndarray, tol: float) -> Model:
    """``model`` (solved on ``t``; ``G`` its terms' values) with its intercept, then each
    weight, rounded to the fewest of ``DIGITS`` significant digits (the intercept first to 0,
    its digits counted on the target's standard deviation when that is larger) that keep the
    loss within the budget, the constants not yet rounded re-solved after each."""
    budget = loss_budget(mse(model, G, t), float(np.var(t)), tol)
    A = np.column_stack([np.ones(len(t)), G])
    values = np.array([model.intercept] + [tm.weight for tm in model.terms])
    fixed = np.zeros(len(values), dtype=bool)
    for i in range(len(values)):
        reference = max(abs(values[i]), float(np.std(t))) if i == 0 else abs(values[i])
        if not (reference > 0 and np.isfinite(reference)):
            fixed[i] = True
            continue
        tries = ([0.0] if i == 0 else []) + [round(values[i] / quantum(reference, d)) * quantum(reference, d)
                                             for d in DIGITS]
        fixed[i] = True
        for value in tries:
            trial = _resolved(A, t, values, fixed, i, value)
            if trial is not None and float(np.mean((t - A @ trial) ** 2)) <= budget:
                values = trial
                break
    return Model(tuple(tm.with_weight(w) for tm, w in zip(model.terms, values[1:])), float(values[0]))


def _resolved(A, t, values, fixed, i, value) -> np.ndarray | None:
    """``values`` with entry ``i`` set to ``value`` and the entries not ``fixed`` re-solved
    (``model.least_squares``); None if not finite."""
    out = values.copy()
    out[i] = value
    free = ~fixed
    if free.any():
        out[free] = least_squares(A[:, free], t - A[:, fixed] @ out[fixed])
    return out if np.all(np.isfinite(out)) else None
