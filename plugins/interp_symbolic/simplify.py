"""A fitted Meijer G term rewritten as a closed form, where the loss allows (issue 16).

``simplify_term`` takes one term of a fitted model and the residual it explains (the target
minus the intercept and the other terms) and tries the closed forms (``closed_forms.ClosedForm``:
exp, powers, log(1 + .), ...), simplest first:

1. each form is fitted at fixed u to the term's values g on the data (``closed_forms.fit_curve``,
   from the form's ``starts``: cheap, no direction), and scored on the residual there;
2. the promising ones (within the budget there, or the few closest to it) seed a joint refit of
   (theta, direction v) (``terms.fit_term``; the weight and the offset are eliminated in closed
   form), simplest first, best first within a complexity;
3. the first form whose residual loss is within the budget (the Meijer term's loss plus ``tol``
   times the larger of that loss and ``RESOLUTION`` of the residual's variance) and whose
   values vary over the data (see ``CANCEL``) wins; when the Meijer term turns over the data
   (``terms.Term.turns``: rises and falls), a monotone form comes first, within the budget
   widened by the margin a turning term must win by (``model.kind_margin``); its ``snaps`` (parameters rounded to small
   rationals, most aggressive first) are tried next, and the first one still within that budget
   is kept (the snapped parameters pinned, the others and the direction refitted);
4. direction coefficients below ``DROP`` of the largest (on the min-max scaled features, so a
   coefficient measures the feature's effect over its range, whatever its units) are set to 0
   and the rest refitted, if the budget allows.

A term no form fits within the budget stays the Meijer term it was (only step 4 is tried on it,
without a refit: a Meijer refit would cost more than the whole simplification).  Only Meijer
terms are offered: a custom family is the user's own choice of g and is kept as it is.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .families import Ridge
from .model import kind_margin
from .terms import Candidate, Term, evaluate_term, fit_term, projection, turning_points

SHAPE_POINTS = 128  # the fit at fixed u uses at most this many of the rows (evenly spaced in row order)
SHAPE_NFEV = 40  # ... and this many least-squares evaluations per start: the joint refit polishes
SCREEN = 3.0  # a form outside the budget at fixed u is refitted jointly only within this many budgets
MAX_REFITS = 4  # ... and only this many such forms per term
EXACT = 1e-10  # losses this small relative to the residual's variance count as exact fits
# the loss increase allowed is tol times the larger of the Meijer term's loss and this fraction of
# the residual's variance: two fits that both leave less than 1e-4 of the variance unexplained
# differ in digits the printed formula does not show (a Meijer term fits a*exp(-a) a little better
# than u*exp(w u) only because min-max scaling shifts its argument), so relative closeness there
# is measured at that resolution, not at the Meijer term's own
RESOLUTION = 1e-4
DROP = 1e-3  # direction coefficients below this fraction of the largest are dropped if the loss allows
# a term whose values vary by less than this fraction of their magnitude over the data is a constant
# plus a small correction (cos(0.007 u + pi), exp(1e-4 u), sin(u) at its peak): its weight and the
# intercept cancel in large opposite numbers (-1e+4 + 1.001e+4*sin(u1)), and at the 4 significant
# digits a formula prints, whose rounding moves w*g by up to 5e-4 of its size, less than 1e-2 of
# variation loses a twentieth of the term's effect; so it is not offered as a readable form
CANCEL = 1e-2

__all__ = ["Simplified", "loss_budget", "nearest_closed_form", "simplify_term", "varies"]


def loss_budget(loss: float, var: float, tol: float) -> float:
    """The loss a rewrite may reach: ``loss`` plus ``tol`` times the larger of it and
    ``RESOLUTION`` of the target's variance ``var``, plus ``EXACT`` of it (see the constants)."""
    return loss + tol * max(loss, RESOLUTION * var) + EXACT * var


@dataclass(frozen=True)
class Simplified:
    """The term ``simplify_term`` returns, its residual loss (MSE with the best weight and
    offset) and the loss of the Meijer term it replaces (``meijer_loss``, on the same residual)."""

    term: Term
    loss: float
    meijer_loss: float


@dataclass(frozen=True)
class _Fitted:
    """A candidate term of one ridge family, and which of its theta are pinned by a snap."""

    ridge: Ridge
    fit: Candidate
    pinned: np.ndarray
    term: Term  # the term it rewrites, whose kinds it keeps (``Term.fit_kinds``)

    def kinds(self) -> dict:
        """The ``fit_term`` keywords of the candidate's kinds: the term's projection, and its
        prefactor at the candidate's exponents."""
        return self.term.refitted(self.ridge, self.fit).fit_kinds()


def simplify_term(term: Term, Xs, residual, forms, tol: float, maxiter: int = 100,
                  curves: dict | None = None) -> Simplified:
    """``term`` as the simplest closed form of ``forms`` whose loss on ``residual`` is within
    the budget of the term's own (see the module docstring), or the term itself.

    ``Xs``: the min-max scaled rows; ``residual``: what the term explains, on those rows;
    ``maxiter``: L-BFGS-B iterations of each joint refit; ``curves``: a dict in which the
    forms' fits at fixed u are kept (keyed by form and term), so that offering the same term
    again against another residual (a second pass) does not refit them.  The budget is the
    Meijer term's loss plus ``tol`` times the larger of that loss and ``RESOLUTION`` of the residual's
    variance (plus ``EXACT`` of it), so an essentially exact Meijer term does not forbid an
    essentially exact closed form over digits nobody reads.
    """
    base = evaluate_term(term.ridge, term.theta, term.v, Xs, residual, **term.fit_kinds())
    meijer_loss = base.loss if base.ok else np.inf
    if term.orders is None or not base.ok:
        return Simplified(term, meijer_loss, meijer_loss)
    budget = loss_budget(base.loss, float(np.var(residual)), tol)
    found = _closed_form(term, Xs, residual, forms, budget, maxiter, {} if curves is None else curves)
    if found is None:
        kept = _Fitted(term.ridge, base, np.zeros(len(term.theta), dtype=bool), term)
        found = _without_tiny(kept, Xs, residual, budget, maxiter=None)
    else:
        found = _polished(found, Xs, residual, budget, maxiter)
    return Simplified(term.refitted(found.ridge, found.fit), found.fit.loss, meijer_loss)


def nearest_closed_form(term: Term, Xs, residual, forms, tol: float, maxiter: int = 100,
                        curves: dict | None = None) -> Term | None:
    """The closed form of ``forms`` nearest a Meijer ``term`` on ``residual``, whatever the loss
    it costs: the form closest to the term's values at fixed u (``_screen``; ``curves`` as for
    ``simplify_term``), refitted jointly with the direction, then snapped and its tiny
    coefficients dropped within ``tol`` of that refit's own loss; None when no form fits or
    the term is not a Meijer G.  ``simplify_term`` keeps a Meijer term no form matches within
    the budget; this is the readable model's term instead, for a row of its own."""
    if term.orders is None:
        return None
    u = _unfloored(term, Xs)
    shape = term.ridge.value(term.theta, u)
    screened = [c for c in (_screen(form, term, Xs, residual, u, shape, {} if curves is None else curves)
                            for form in forms) if c is not None]
    if not screened:
        return None
    closest = min(screened, key=lambda c: (c.loss, c.ridge.family.complexity))
    closest = _calmest(screened, closest, term.turns(Xs), u, len(residual))
    fit = fit_term(closest.ridge, Xs, residual, [(closest.theta, term.v)], maxiter, **term.fit_kinds())
    found = _Fitted(closest.ridge, fit, np.zeros(len(fit.theta), dtype=bool), term)
    if not (fit.ok and _varies(found, Xs)):
        return None
    budget = loss_budget(fit.loss, float(np.var(residual)), tol)
    return term.refitted(closest.ridge, _polished(found, Xs, residual, budget, maxiter).fit)


def _calmest(screened, closest, turns: int, u, n_rows: int):
    """Of the ``screened`` forms, the closest that turns over ``u`` no more than the term does
    (``turns``); for a term that turns, a monotone one first, when its loss is within the
    margin a turning one must win by of the ``closest``'s (``_calm_budget``).  ``closest``
    itself when none qualifies."""
    def turning(c) -> int:
        return turning_points(c.ridge, c.theta, u)

    candidates = [c for c in screened if turning(c) <= turns]
    if turns:
        monotone = [c for c in candidates if turning(c) == 0 and c.loss <= _calm_budget(closest.loss, n_rows)]
        candidates = monotone or candidates
    return min(candidates, key=lambda c: (c.loss, c.ridge.family.complexity)) if candidates else closest


@dataclass(frozen=True)
class _Screened:
    """A form fitted at fixed u: its loss on the residual there, and its parameters."""

    loss: float
    ridge: Ridge
    theta: np.ndarray


def _closed_form(term, Xs, residual, forms, budget, maxiter, curves) -> _Fitted | None:
    """The simplest form whose joint refit is within ``budget``, or None.

    Every form is fitted at fixed u first to the term's values (``_screen``, cached in
    ``curves``) and the promising ones are refitted jointly, simplest first and, within a
    complexity, in the order of their loss at fixed u.  A form already within the budget at
    fixed u stays within it (the refit only lowers the loss); of those outside it but within
    ``SCREEN`` budgets, only the ``MAX_REFITS`` closest over all complexities are refitted (a
    form far off at fixed u is rarely rescued by turning the direction, and the joint refits
    are what simplification costs).  Choosing those gambles
    by their loss, not by their simplicity, keeps a close complex form (u^t exp(w u) for
    a*exp(-b) + 0.5*c) from losing its refit to simpler forms that are further off.
    """
    u = _unfloored(term, Xs)
    shape = term.ridge.value(term.theta, u)  # the weight and offset are eliminated in the fits
    everything = [c for c in (_screen(form, term, Xs, residual, u, shape, curves) for form in forms) if c is not None]
    turns = term.turns(Xs)
    if turns:
        calm = _calm_budget(budget, len(residual))
        monotone = [c for c in everything if turning_points(c.ridge, c.theta, u) == 0]
        found = _first_within(monotone, term, Xs, residual, calm, maxiter, max_turns=0)
        if found is not None:
            return found
    return _first_within(everything, term, Xs, residual, budget, maxiter, max_turns=turns)


def _calm_budget(budget: float, n_rows: int) -> float:
    """The loss a monotone form may reach in place of a term that turns: ``budget`` divided by
    the margin a turning term must win by on ``n_rows`` rows (``model.kind_margin``)."""
    return budget / kind_margin(n_rows)


def _first_within(screened, term, Xs, residual, budget, maxiter, max_turns) -> _Fitted | None:
    """Of the ``screened`` forms, the simplest whose joint refit is within ``budget``, varies
    over the data and turns there at most ``max_turns`` times (a rewrite never makes a term
    rise and fall more than it did); None when none is (see ``_closed_form``)."""
    screened = [c for c in screened if c.loss <= SCREEN * budget]
    gambles = sorted((c for c in screened if c.loss > budget), key=lambda c: c.loss)[:MAX_REFITS]
    tried = [c for c in screened if c.loss <= budget or any(c is g for g in gambles)]
    for c in sorted(tried, key=lambda c: (c.ridge.family.complexity, c.loss)):
        fit = fit_term(c.ridge, Xs, residual, [(c.theta, term.v)], maxiter, **term.fit_kinds())
        found = _Fitted(c.ridge, fit, np.zeros(len(c.theta), dtype=bool), term)
        if fit.ok and fit.loss <= budget and _varies(found, Xs) and _turns(found, Xs) <= max_turns:
            return found
    return None


def _screen(form, term, Xs, residual, u, shape, curves) -> _Screened | None:
    """``form`` fitted at fixed u to the term's values ``shape`` (``closed_forms.fit_curve`` on
    at most ``SHAPE_POINTS`` rows; kept in ``curves``) and its loss on ``residual`` there, or
    None if it fails."""
    from .closed_forms import fit_curve

    key = (form.name, term.family, term.projection.name, term.theta.tobytes(), term.v.tobytes())
    if key not in curves:
        rows = np.unique(np.linspace(0, len(u) - 1, SHAPE_POINTS).astype(int))
        try:
            curves[key] = fit_curve(form, u[rows], shape[rows], max_nfev=SHAPE_NFEV)
        except Exception:  # noqa: BLE001 - a form that cannot be fitted loses, it never aborts the fit
            curves[key] = None
    curve = curves[key]
    if curve is None:
        return None
    ridge = Ridge(form)
    at_u = evaluate_term(ridge, curve.theta, term.v, Xs, residual, **term.fit_kinds())
    return _Screened(at_u.loss, ridge, curve.theta) if at_u.ok else None


def _unfloored(term: Term, Xs) -> np.ndarray:
    """The term's argument u on the rows as its fit sees it (its kind's transform, no clip)."""
    return projection(term.v, term.projection.features(Xs), term.projection, term.normalised)[0]


def _turns(found: _Fitted, Xs) -> int:
    """How often the fitted form's g turns over its u on the data (``terms.turning_points``)."""
    return found.term.refitted(found.ridge, found.fit).turns(Xs)


def _varies(found: _Fitted, Xs) -> bool:
    """Whether the fitted form's values on the data vary (``varies``)."""
    return varies(found.term.refitted(found.ridge, found.fit).values(Xs, clip=False))


def varies(g) -> bool:
    """Whether a term's values ``g`` on the rows vary by at least ``CANCEL`` of their size: else
    its weight and the intercept cancel in large numbers."""
    return bool(np.ptp(g) >= CANCEL * np.max(np.abs(g)))


def _snapped(found: _Fitted, Xs, residual, budget, maxiter) -> _Fitted:
    """The first of the form's ``snaps`` (most aggressive first) still within ``budget`` once
    the other parameters and the direction are refitted around it, or ``found`` unchanged."""
    fit = found.fit
    try:
        snaps = [np.asarray(s, dtype=float) for s in found.ridge.family.snaps(fit.theta)]
    except Exception:  # noqa: BLE001 - a form that cannot snap keeps its fitted parameters
        return found
    for theta in snaps:
        pinned = theta != fit.theta
        if theta.shape != fit.theta.shape or not pinned.any():
            continue
        mask = np.concatenate([pinned, np.zeros(len(fit.v), dtype=bool)])
        refit = fit_term(found.ridge, Xs, residual, [(theta, fit.v)], maxiter, pinned=mask, **found.kinds())
        if refit.ok and refit.loss <= budget:
            return _Fitted(found.ridge, refit, pinned, found.term)
    return found


def _polished(found: _Fitted, Xs, residual, budget, maxiter) -> _Fitted:
    """``found`` snapped (``_snapped``), then without its tiny coefficients (``_without_tiny``),
    each step kept only within ``budget``."""
    return _without_tiny(_snapped(found, Xs, residual, budget, maxiter), Xs, residual, budget, maxiter)


def _without_tiny(found: _Fitted, Xs, residual, budget, maxiter) -> _Fitted:
    """``found`` with its direction coefficients below ``DROP`` of the largest set to 0 (and,
    when ``maxiter`` is given, the rest refitted, snapped parameters still pinned) if the loss
    stays within ``budget``; else ``found`` unchanged."""
    fit = found.fit
    size = np.abs(fit.v)
    tiny = (size > 0) & (size < DROP * size.max())
    if not tiny.any():
        return found
    v = np.where(tiny, 0.0, fit.v)
    if maxiter is None:
        out = evaluate_term(found.ridge, fit.theta, v, Xs, residual, **found.kinds())
    else:
        mask = np.concatenate([found.pinned, v == 0])
        out = fit_term(found.ridge, Xs, residual, [(fit.theta, v)], maxiter, pinned=mask, **found.kinds())
    return _Fitted(found.ridge, out, found.pinned, found.term) if out.ok and out.loss <= budget else found
