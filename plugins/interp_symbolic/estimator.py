"""Symbolic Pursuit estimators: a closed-form model sum_k w_k g_k(ReLU(v_k . x')) of a black box.

x' is x min-max scaled to [0, 1] (folded into the expression), the ridge argument is
u_k = max(u_floor, v_k . x' / (||v_k|| sqrt(d))) and each g_k comes from a registered ridge
family (Meijer G configurations or custom families).  Fitting follows the paper's projection
pursuit with back-fitting (eq. 10-12):

1. a new term is fitted to the current residual for every kind of term (linear; with positive
   columns, monomial and monomial with a monomial prefactor: ``projections``) and every family
   (in parallel through joblib), from several starting points (L-BFGS-B, analytic gradients;
   the weight w is eliminated in closed form, so the optimiser sees theta and v only), on a
   subsample of the rows first; the best family of each kind is refitted on every row, and a
   richer kind replaces the linear one only when it predicts the held-out rows better by a
   clear margin (``_by_margin``; a linear term whose floor falls inside the data is refitted
   without it unless the floor earns its place: ``_unfloored``);
2. the term is kept if new_loss / old_loss < ``ratio_tol``; each earlier term is then re-fitted
   against the residual without it (back-fitting), and all weights and the intercept are
   re-solved by least squares;
3. stop when the loss (MSE divided by the variance of the target) is below ``loss_tol``, when
   ``max_terms`` terms are in, or after ``patience`` consecutive rejected steps;
4. the model after each accepted step (sizes 1..K) is simplified term by term
   (``simplify.simplify_term``: closed forms, snapped parameters, dropped coefficients), its
   weights and intercept re-solved (and the terms still Meijer offered once more, against the
   residual the rewritten ones leave; a rewrite is refused if the model then predicts the
   held-out rows far worse), and scored on held-out rows (``validation_fraction``, u clipped to
   its range over the training rows' box as ``predict`` clips it);
5. a simplified model whose terms are not all closed forms gets a variant with each Meijer
   term replaced by its nearest closed form whatever the loss (``_closed_variant``); each
   model is made sparser rung by rung (``sparsify.sparser_models``: at most 89,
   55, ..., 2, 1 features per term, each rung refitted); every model's printed arguments get
   round coefficients and no constant where the loss allows (``tidy.tidy_arguments``), and the
   rungs no other model beats on both complexity and held-out loss join the table
   (``equations_``); ``model_selection`` picks the row ``predict`` uses, refitted on every row
   (its weights and intercept rounded where the loss allows: ``tidy.round_weights``).

``SymbolicPursuitRegressor`` fits a real target; ``SymbolicPursuitClassifier`` is a binary
classifier whose decision function is the pursuit's sum on the logit scale, fitted to the 0/1 labels or to a black box's probabilities.
The ridge families are resolved from the registry in ``fit`` and kept on the fitted terms, so a
fitted model predicts and prints without the registry (and without its plugin).
"""

from __future__ import annotations

import copy
import logging
import math
import numbers
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from interp import InputError, RidgeFamily
from interp.blas import single_threaded_blas
from interp.display import ExplainedEstimator
from interp.preprocessing import binary_labels
from interp.resources import ResourceError, check_sizes
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from .closed_forms import Power
from .contributions import contributions
from .families import U_FLOOR, Ridge
from .projections import LINEAR, MONOMIAL_GAIN, UNFLOORED, Prefactor, monomial_projection
from .model import Model, Rows, design, kind_margin, measure_ranges, mse, replaced_in_turn, solved
from .simplify import RESOLUTION, nearest_closed_form, simplify_term, varies
from .sparsify import sparser_models
from .terms import Candidate, Term, evaluate_term, fit_term
from .tidy import Scaling, round_weights, tidy_arguments

log = logging.getLogger("interp_symbolic")

__all__ = ["SymbolicPursuitRegressor", "SymbolicPursuitClassifier"]

PROBA_CLIP = 1e-6  # probabilities are clipped to [PROBA_CLIP, 1 - PROBA_CLIP] before the logit
SELECTIONS = ("score", "best", "simplest")  # the named values of model_selection (or a number of terms)
# model_selection="score" (PySR's rule): the row of the highest score among those whose held-out loss is
# within this factor of the lowest (``_by_score``), all of them no further above the lowest than
# SIMPLEST_TOL of the held-out target's variance (a factor alone lets a poor fit lose much: 1 term at a
# held-out R^2 of 0.730 was chosen over 3 at 0.811)
SCORE_LOSS_FACTOR = 1.5
# ... and of those, the rows with a standalone Python form first when one is within that factor of the
# lowest loss or within this fraction of the held-out target's variance (a held-out R^2 within 0.001 of
# the best, the threshold of an accurate fit): an exact law's Meijer term (R^2 0.999996) is not given up
# for a closed form at 0.996
EXPORT_TOL = 1e-3
# ... the losses floored at this fraction of the target's variance first: below it a fit is exact to
# double precision, and two exact rows differ only in rounding
EXACT_LOSS = 1e-14
# a logarithm whose linear fit leaves at most this fraction of its spread is a product of powers
# (``log_structure``): what is left is rounding
LOG_EXACT = 1e-20
# ... and among those rows, the ones without these functions first, when there are any
NOT_ELEMENTARY = ("besselj", "bessely", "besseli", "besselk", "gamma", "hyper", "meijerg")
# model_selection="simplest": the fewest terms whose held-out loss exceeds the best by at most this
# fraction of the held-out target's variance (a held-out R^2 within 0.01 of the best)
SIMPLEST_TOL = 0.01
HOLDOUT_STREAM = 0x5EED  # the held-out rows' random stream, apart from the pursuit's starting points
SCREEN_STREAM = 0x5C4EE  # ... and each pursuit step's subsample of rows (``_screened``)
# a pursuit step fits every (kind, family, start) on at most this many training rows first, then
# refits the best family of each kind on all of them from there
SCREEN_ROWS = 300
# a rewrite of a term is refused when the held-out loss grows by more than this fraction (``_holds``):
# the held-out rows are fewer than the training rows (a quarter at validation_fraction=0.2) and their
# loss differences noisier,
# so this check is for rewrites that generalise far worse, not for the 1% the training budget resolves
HOLDOUT_TOL = 0.1
SIMPLIFY_PASSES = 2  # passes of the simplification over a model's terms (see ``_simplified``)
#: what a fit holds at once, in float64 arrays: d x d matrices (the Hessian of the importances,
#: an outer product, ``interactions_`` and the ranking of its pairs; six in all, which also
#: covers the formulas' symbolic objects, one coefficient per feature and term: the peak on 37
#: rows x 10,000 features was 4.9 GB); n x d copies of the rows (the scaled rows, a training and a
#: held-out part, the design of each size); and per starting point of a pursuit step (families x
#: ``n_restarts``), its direction and fitted term, d numbers each
DENSE_COPIES, ROW_COPIES, START_COPIES = 6, 6, 2
EQUATION_COLUMNS = ("n_terms", "n_features", "complexity", "train_loss", "test_loss", "r2", "score", "formula",
                    "latex", "sympy")


def _resolve_families(names) -> list[RidgeFamily]:
    from interp import get_registry
    from interp.registry import resolve

    if names is None:
        fams = list(get_registry().ridge_families.values())
    else:
        fams = [resolve("ridge_families", n) for n in names]
    if not fams:
        raise InputError("no ridge families are registered")
    return fams


def _sigmoid(f):
    return 1.0 / (1.0 + np.exp(-f))


def _log_odds(p):
    p = np.clip(p, PROBA_CLIP, 1 - PROBA_CLIP)
    return np.log(p / (1 - p))


def _is_int(v) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)  # numpy integers are Integral


def _is_real(v) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)  # numpy floats are Real, np.bool_ is not


@dataclass(frozen=True)
class Holdout:
    """The rows the pursuit fits on (``train``) and those it selects the model size on (``test``,
    possibly empty)."""

    train: np.ndarray
    test: np.ndarray


@dataclass(frozen=True)
class TermKind:
    """What a new term may be made of: its projection kind (``projections``) and, for a
    monomial times a monomial prefactor, the ``Prefactor`` it starts from (exponents 0)."""

    name: str
    projection: object
    prefactor: Prefactor | None = None

    def fit_kinds(self) -> dict:
        """The ``fit_term`` keywords of a term of this kind (``Term.fit_kinds``)."""
        return dict(kind=self.projection, prefactor=self.prefactor)

    def term(self, ridge: Ridge, fit: Candidate) -> Term:
        """The term ``fit`` (of ``ridge``, fitted with ``fit_kinds``) describes."""
        return Term(ridge, fit.theta, fit.v, fit.weight, projection=self.projection,
                    prefactor=self.prefactor).refitted(ridge, fit)


@dataclass(frozen=True)
class PursuitStep:
    """One step of the pursuit: its ``index`` (from 0), the fit's ``seed``, the target's
    variance ``scale`` on the training rows and, at the first step, the ``LogStructure`` of
    the target, or of its magnitude when it changes sign (None after the first step: a
    residual's logarithm says little about a law, since the intercept is its largest part
    once a term fits; or when the target reaches 0)."""

    index: int
    seed: int
    scale: float
    shape: LogStructure | None = None


@dataclass(frozen=True)
class LogStructure:
    """What the logarithm of a one-signed residual shows on the scaled logarithms F of the
    positive columns (``log_structure``): its linear ``trend`` (a product of powers's own
    exponents), the direction of its strongest ``bend`` (unit norm: log g(a . F) bends only
    along a) and whether the trend alone fits the logarithm to rounding (``exact``: the
    residual is the product of powers exp(c + trend . F)).  ``one_signed`` False: the
    structure is that of the residual's magnitude, the residual changing sign (a prefactor
    times a g that crosses 0, such as p*cos(theta)/r**2): it says where a prefactor's
    exponents start, not where a monomial's do."""

    trend: np.ndarray
    bend: np.ndarray
    exact: bool = False
    one_signed: bool = True


def log_structure(F, unexplained, both_signs=False) -> LogStructure | None:
    """The ``LogStructure`` of ``unexplained`` (what the terms so far leave of the target) on
    the features ``F`` of the monomial kind: a least-squares fit of log|unexplained| in F;
    when it leaves no more than ``LOG_EXACT`` of the logarithm's spread, the product of
    powers it is (``exact``, the bend along the trend); otherwise a quadratic fit, its linear
    part the trend and the leading eigenvector of its quadratic part the bend (a law
    P(x) * g(u(x)) has log P + log g(u), whose second derivatives in log x all lie along u's
    exponents), its sign fixed (the largest component positive: an eigenvector's sign is the
    LAPACK build's choice).  The exact case comes first because the quadratic part of a
    product of powers is rounding, whose eigenvectors differ from one BLAS build to the next.
    With ``both_signs``, a residual that changes sign gets the structure of its magnitude
    (never exact, ``one_signed`` False: log|g| of a g that crosses 0 bends along u's
    exponents, and P's are its trend elsewhere).  None when ``unexplained`` changes sign
    (without ``both_signs``) or reaches 0, or when there are fewer than three rows per
    coefficient of the quadratic fit."""
    read = np.flatnonzero(np.any(F != 0, axis=0))
    k = len(read)
    one_signed = bool(np.all(unexplained > 0) or np.all(unexplained < 0))
    if not (one_signed or both_signs and np.all(unexplained != 0)) or len(unexplained) < 3 * (k + 1) * (k + 2) // 2:
        return None
    logs = np.log(np.abs(unexplained))
    centred = F[:, read] - 0.5
    linear = np.column_stack([np.ones(len(F)), centred])
    coef, *_ = np.linalg.lstsq(linear, logs, rcond=None)
    if not np.all(np.isfinite(coef)):
        return None
    trend = np.zeros(F.shape[1])
    trend[read] = coef[1:]
    if one_signed and np.sum((logs - linear @ coef) ** 2) <= LOG_EXACT * np.sum((logs - logs.mean()) ** 2):
        norm = np.linalg.norm(trend)
        return LogStructure(trend, trend / norm, exact=True) if norm > 0 else None
    upper = np.triu_indices(k)
    A = np.column_stack([linear, (centred[:, :, None] * centred[:, None, :])[:, upper[0], upper[1]]])
    coef, *_ = np.linalg.lstsq(A, logs, rcond=None)
    if not np.all(np.isfinite(coef)):
        return None
    half = np.zeros((k, k))
    half[upper] = coef[1 + k:]
    values, vectors = np.linalg.eigh(half + half.T)
    lead = vectors[:, np.argmax(np.abs(values))]
    trend, bend = np.zeros(F.shape[1]), np.zeros(F.shape[1])
    trend[read], bend[read] = coef[1:1 + k], lead * np.sign(lead[np.argmax(np.abs(lead))])
    return LogStructure(trend, bend, one_signed=one_signed) if np.linalg.norm(trend) > 0 else None


def power_law(kind: TermKind, trend, fit: Rows) -> Candidate:
    """The term of ``kind`` (a monomial one) that is the product of powers exp(trend . F) on the
    scaled logarithms F (``LogStructure.exact``), with its best weight for ``fit.t``: the
    ``power`` closed form u^t of the unit direction along the trend, t = ||trend|| sqrt(d) / K
    (u = exp(K (l - 1)), l = v . F / sqrt(d); a larger t than the form's bound lengthens the
    direction instead).  What the logarithm shows exactly needs no fit (a Meijer G reaches
    u^t only at the special parameters where its gradient is singular), and it prints as what
    simplification would make of it."""
    ridge = Ridge(Power())
    t = float(np.linalg.norm(trend)) * math.sqrt(len(trend)) / MONOMIAL_GAIN
    power = min(t, ridge.bounds[0][1])
    return evaluate_term(ridge, [power], trend / np.linalg.norm(trend) * (t / power), fit.Xs, fit.t,
                         kind.projection)


@dataclass(frozen=True)
class _NewTerm:
    """A pursuit step's best new term of one projection kind, its loss on the training residual
    (with the best weight and offset) and on the held-out residual (``_held_out_loss``)."""

    term: Term
    loss: float
    held_loss: float


def _held_out_loss(term: Term, fit: Rows, held: Rows) -> float:
    """The mean squared error ``term`` leaves of the held-out residual ``held.t``, with the
    offset that eliminated it on the training residual ``fit.t``; its training loss when no
    row is held out."""
    g = term.values(fit.Xs, clip=False)
    offset = float(np.mean(fit.t) - term.weight * np.mean(g))
    on = held if len(held.t) else fit
    pred = offset + term.weight * term.values(on.Xs, clip=False)
    loss = float(np.mean((on.t - pred) ** 2))
    return loss if np.isfinite(loss) else math.inf


def _by_margin(best: list[_NewTerm], scale: float, n_rows: int) -> _NewTerm:
    """Of the best new term of each kind (simplest kind first), the one a pursuit step keeps: a
    kind replaces the simpler one kept so far only when its loss on the ``n_rows`` held-out rows
    is below ``kind_margin(n_rows)`` times that one's (losses floored at ``EXACT_LOSS`` of
    ``scale``: below it two exact terms tie, and the simpler stays)."""
    margin = kind_margin(n_rows)
    kept = best[0]
    for b in best[1:]:
        if max(b.held_loss, EXACT_LOSS * scale) < margin * max(kept.held_loss, EXACT_LOSS * scale):
            kept = b
    return kept


def fit_memory(n_rows: int, n_features: int, n_starts: int) -> float:
    """The bytes a fit on ``n_rows`` x ``n_features`` with ``n_starts`` starting points per step
    allocates at its peak: an upper bound of its large arrays (see :data:`DENSE_COPIES`)."""
    d = n_features
    return 8.0 * (DENSE_COPIES * d * d + ROW_COPIES * n_rows * d + START_COPIES * n_starts * (d + 16))


def check_fit_memory(n_rows: int, n_features: int, n_starts: int, what: str = "",
                     advice: dict | None = None) -> None:
    """A one-line ``ResourceError`` before any work when :func:`fit_memory` exceeds the memory
    budget (``interp.resources``), saying how many rows, features or starting points fit;
    ``advice`` (by size: ``n_rows``, ``n_features``, ``n_starts``) says how to get there."""
    check_sizes(fit_memory, {"n_rows": n_rows, "n_features": n_features, "n_starts": n_starts},
                what or f"symbolic pursuit on {n_rows:,} rows x {n_features:,} features",
                {"n_rows": "rows", "n_features": "features", "n_starts": "starting points per step"},
                advice or {"n_rows": "subsample the rows", "n_features": "select features",
                           "n_starts": "lower n_restarts"})


#: the most optimiser work a fit may plan, in row-iterations: terms x starting points per step x
#: L-BFGS-B iterations per start x fitted rows (an iteration evaluates a term and its gradient on
#: every row; the defaults on diabetes plan 4.5e6 and took 12 s of CPU).  Each option at its
#: maximum with the others at their defaults plans at most 1.35e9, within the bound; options
#: that are large together are refused before the work
MAX_FIT_WORK = 2e9


def fit_work(max_terms: int, n_starts: int, maxiter: int, n_rows: int) -> float:
    """The row-iterations a fit of up to ``max_terms`` terms plans: at most ``maxiter`` L-BFGS-B
    iterations from each of ``n_starts`` starting points per term, each on ``n_rows`` rows."""
    return float(max_terms) * float(n_starts) * float(maxiter) * float(n_rows)


def check_fit_work(max_terms: int, n_starts: int, maxiter: int, n_rows: int, flags: str) -> None:
    """A one-line ``ResourceError`` before any work when :func:`fit_work` exceeds
    :data:`MAX_FIT_WORK`, saying how many iterations would fit; ``flags`` names the options
    that set the sizes (``--max-terms, --n-restarts, --maxiter or --max-fit-rows``)."""
    work = fit_work(max_terms, n_starts, maxiter, n_rows)
    if work <= MAX_FIT_WORK:
        return
    fitting = int(MAX_FIT_WORK // fit_work(max_terms, n_starts, 1, n_rows))
    raise ResourceError(f"symbolic would run up to {max_terms:,} terms x {n_starts:,} starting points x {maxiter:,} "
                        f"iterations on {n_rows:,} rows, {work:.2g} row-iterations, beyond the bound of "
                        f"{MAX_FIT_WORK:.0e}: lower {flags}"
                        + (f" (at these other sizes, at most {fitting:,} iterations)" if fitting else ""))


def starts_per_step(families, n_restarts, monomials=True) -> int:
    """The most starting points a pursuit step fits: one per (kind, family, restart), with three
    kinds of term (linear, monomial, monomial with a prefactor) when ``monomials`` is on."""
    return (3 if monomials else 1) * len(_resolve_families(families)) * int(n_restarts)


def _fit_term_task(ridge, Xs, r, starts, maxiter, **kinds) -> Candidate:
    """One joblib task of a pursuit step: ``fit_term`` on one BLAS thread (a worker process or a
    Dask worker does not inherit the caller's limit) and on row-major rows (numpy copies an
    operand that arrives unaligned to row-major before a product, and the order decides how
    BLAS sums), so that its numbers do not depend on where it runs.  ``kinds``: ``fit_term``'s
    projection kind and prefactor (``Term.fit_kinds``)."""
    with single_threaded_blas():
        return fit_term(ridge, np.ascontiguousarray(Xs), np.ascontiguousarray(r), starts, maxiter, **kinds)


def _end_progress(bar, n_terms: int, max_terms: int, converged: bool) -> None:
    """Close the pursuit's progress ``bar``: full at ``max_terms`` terms; when the pursuit
    stopped before, ended early with why (it converged, or a further term gained too little),
    which is how a good fit ends, not an interrupted one."""
    if n_terms < max_terms:
        count = f"{n_terms} term{'' if n_terms == 1 else 's'}"
        bar.stop(f"converged at {count}" if converged else f"stopped at {count}: a further term gained too little")
    bar.close()


def _holdout(n, fraction, seed, strata=None) -> Holdout:
    """A random ``fraction`` of the ``n`` rows held out (drawn within each value of ``strata``
    when given, every stratum keeping a training row); none when fewer than 2 rows would remain
    to fit on."""
    rng = np.random.default_rng([int(seed) % (2**32), HOLDOUT_STREAM])
    groups = [np.arange(n)] if strata is None else [np.flatnonzero(strata == c) for c in np.unique(strata)]
    test = np.sort(np.concatenate([rng.permutation(g)[:min(round(fraction * len(g)), len(g) - 1)]
                                   for g in groups])).astype(int)
    if n - len(test) < 2:
        test = test[:0]
    return Holdout(train=np.setdiff1d(np.arange(n), test), test=test)


def _simplified(model: Model, fit: Rows, check: Rows | None, forms, tol, maxiter, curves: dict) -> Model:
    """``model`` after simplification passes (``_simplify_pass``) on the rows ``fit``, its
    weights and intercept re-solved after each: a second pass offers the terms still Meijer
    again, since a rewrite of a later term and the re-solved weights change the residual they
    face.  A rewrite is kept only if the model predicts the held-out rows ``check`` (when
    given) nearly as well (``_holds``).  ``curves``: the forms' fits at fixed u, shared by the
    passes and ``_closed_variant`` (``simplify_term``)."""
    for _ in range(SIMPLIFY_PASSES):
        meijer = [tm.orders is not None for tm in model.terms]
        if not any(meijer):
            break
        model = _simplify_pass(model, fit, check, forms, tol, maxiter, meijer, curves)
        if [tm.orders is not None for tm in model.terms] == meijer:
            break  # nothing was rewritten: another pass would offer the same terms the same residuals
    return model


def _simplify_pass(model: Model, fit: Rows, check, forms, tol, maxiter, offered, curves) -> Model:
    """Each term of ``model`` with ``offered`` True given to ``simplify_term`` in turn, against
    the residual of the others on ``fit`` (the earlier ones already simplified), the rewrite
    kept if ``_holds`` on ``check``; then the weights and intercept re-solved.  Eight
    parameters: ``_simplified``'s and the pass's own two."""
    terms = list(model.terms)
    G = design(terms, fit.Xs)
    w = np.array([tm.weight for tm in terms])
    for k, tm in enumerate(terms):
        if not offered[k]:
            continue
        residual = fit.t - model.intercept - (G @ w - G[:, k] * w[k])
        new = simplify_term(tm, fit.Xs, residual, forms, tol, maxiter, curves).term
        trial, Gt = terms[:k] + [new] + terms[k + 1:], G.copy()
        Gt[:, k] = design([new], fit.Xs)[:, 0]
        if check is None or _holds(solved(terms, G, fit.t), solved(trial, Gt, fit.t), fit, check, tol):
            terms, G = trial, Gt
            w[k] = new.weight
    return solved(terms, G, fit.t)


def _holds(old: Model, new: Model, fit: Rows, check: Rows, tol) -> bool:
    """Whether ``new`` (a rewrite of ``old``, both solved on ``fit``) predicts the held-out rows
    ``check`` nearly as well: within the old loss plus ``HOLDOUT_TOL`` (or ``tol``, if larger)
    times the larger of it and ``RESOLUTION`` of the target's variance.  A rewrite that fits
    the training rows as well can still generalise far worse (a power u^-2.5 fitted to a step
    near the ReLU floor), which only held-out rows show.  Both models are scored as
    ``predict`` would, u clipped to its range on ``fit``."""
    if not len(check.t):
        return True
    losses = []
    for model in (old, new):
        measure_ranges(model.terms, fit.Xs)
        losses.append(mse(model, design(model.terms, check.Xs), check.t))
    before, after = losses
    return bool(after <= before + max(tol, HOLDOUT_TOL) * max(before, RESOLUTION * float(np.var(check.t))))


def _closed_variant(model: Model, fit: Rows, forms, tol, maxiter, curves: dict) -> Model | None:
    """``model`` with each term still a Meijer G replaced by its nearest closed form
    (``simplify.nearest_closed_form``, in term order, against what the others leave on ``fit``:
    ``model.replaced_in_turn``),
    the weights and intercept re-solved: the model of this size that prints without
    hypergeometric functions, at whatever loss that costs (held-out rows decide); None when
    no term is a Meijer G, or one has no closed form."""
    if all(tm.orders is None for tm in model.terms):
        return None

    def nearest(tm: Term, residual) -> Term | None:
        return tm if tm.orders is None else nearest_closed_form(tm, fit.Xs, residual, forms, tol, maxiter, curves)

    return replaced_in_turn(model, fit, nearest)


def _with_rungs(model: Model, fit: Rows, tol, maxiter, scaling: Scaling) -> list[Model]:
    """``model`` and its sparser rungs (``sparsify.sparser_models``), each with round printed
    arguments where the loss allows (``tidy.tidy_arguments``), on the rows ``fit``."""
    return [tidy_arguments(m, fit, tol, scaling) for m in (model, *sparser_models(model, fit, maxiter))]


def _refitted(model: Model, Xs, t, tol=None) -> Model:
    """``model`` with its weights and intercept refitted on every row (and rounded within
    ``tol``, when given: ``tidy.round_weights``), and each term's argument range ``u_range``
    (to which predictions clip u) measured on them.  The terms' values are taken unclipped
    (the ReLU floor only): on these rows that is what clipping to their own range gives, which
    is what ``predict`` does, whatever ranges ``model``'s terms were measured on before."""
    G = design([tm.with_weight(tm.weight) for tm in model.terms], Xs)
    final = solved(model.terms, G, t)
    if tol is not None:
        final = round_weights(final, G, t, tol)
    measure_ranges(final.terms, Xs)
    return final


def _selection_losses(records) -> np.ndarray:
    """The losses models are compared by, from rows of ``equations_`` (a DataFrame or a list of
    records): held out, or training when no row was held out (infinite where missing)."""
    table = pd.DataFrame(records, columns=["train_loss", "test_loss"])
    losses = table["test_loss"].to_numpy(dtype=float)
    if not np.any(np.isfinite(losses)):
        losses = table["train_loss"].to_numpy(dtype=float)
    return np.where(np.isfinite(losses), losses, np.inf)


def _complexities(records) -> np.ndarray:
    """The rows' complexities as floats (infinite where sympy could not build the formula)."""
    values = pd.DataFrame(records, columns=["complexity"])["complexity"]
    return np.array([math.inf if pd.isna(c) else float(c) for c in values])


def _undominated(costs, losses, own) -> np.ndarray:
    """Which models to keep: the pursuit's ``own`` model of each size, and every other one no
    model beats, with at most its every cost (``costs``: one row per model) and at most its
    loss, one of them strictly less, or all of them equal and the model earlier (a rung that
    rounding made the same as another is kept once)."""
    at_most = np.all(costs[None, :, :] <= costs[:, None, :], axis=2) & (losses[None, :] <= losses[:, None])
    strictly = np.any(costs[None, :, :] < costs[:, None, :], axis=2) | (losses[None, :] < losses[:, None])
    earlier = np.tri(len(losses), k=-1, dtype=bool)  # [i, j]: j < i
    return own | ~np.any(at_most & (strictly | earlier), axis=1)


def scores(table, scale) -> np.ndarray:
    """Each row's score (PySR's): the drop of log held-out loss per unit of complexity from the
    lowest-loss row that is strictly less complex (0 for a row with none; the losses floored at
    ``EXACT_LOSS`` of ``scale``, the target's variance)."""
    losses = np.log(np.maximum(_selection_losses(table), EXACT_LOSS * scale))
    sizes = _complexities(table)
    out = np.zeros(len(losses))
    for i in range(len(losses)):
        simpler = np.flatnonzero(sizes < sizes[i])
        if len(simpler) and np.isfinite(sizes[i]):
            j = simpler[np.argmin(losses[simpler])]
            out[i] = (losses[j] - losses[i]) / (sizes[i] - sizes[j])
    return out


def _elementary(table) -> np.ndarray:
    """Which rows print with elementary functions only (no Bessel, Gamma, hypergeometric or G)."""
    import sympy as sp

    names = set(NOT_ELEMENTARY)
    return np.array([expr is not None and not any(type(f).__name__ in names or f.func.__name__ in names
                                                  for f in sp.preorder_traversal(expr) if isinstance(f, sp.Function))
                     for expr in table["sympy"]])


def _standalone(table) -> np.ndarray:
    """Which rows have a standalone numpy/scipy form (``to_python``: no Meijer G, no custom
    family)."""
    from .export import has_standalone_form

    return np.array([expr is not None and has_standalone_form(expr) for expr in table["sympy"]])


def cancelling(terms, Xs) -> bool:
    """Whether a term of ``terms`` is a near-constant on the rows ``Xs`` (``simplify.varies``):
    its weight and the intercept would print as large numbers that cancel."""
    return any(not varies(tm.values(Xs)) for tm in terms)


def _by_score(table, scale, n_rows, readable=None) -> int:
    """model_selection="score": of the ``readable`` rows when there are any (None: all; a row
    with a ``cancelling`` term is not), those whose held-out loss is at most ``SIMPLEST_TOL``
    of ``scale`` (the held-out target's variance) above their lowest (a held-out R^2 within 0.01
    of the best, which a factor of the loss does not bound when the best fit is poor), and of
    those the ones with a standalone Python form when there are any within the factor below of
    the lowest loss or within ``EXPORT_TOL`` of ``scale`` above it (``_standalone``: so that
    ``to_python`` exports the default unless that costs an accurate fit; when no row is an
    accurate fit, only the exporting rows are considered from the start); of those the
    elementary ones (``_elementary``) whose held-out loss is within ``SCORE_LOSS_FACTOR`` of
    their lowest, or within the factor a richer kind of term must beat (``kind_margin`` of the
    ``n_rows`` held-out rows) if that is larger: a Bessel or Gamma term earns its place only by
    the rule a richer term does; when there are none, all the rows within
    ``SCORE_LOSS_FACTOR``.  Of those, the highest score (``scores``; ties: the less complex).
    Losses are floored at ``EXACT_LOSS`` of ``scale``."""
    losses = np.maximum(_selection_losses(table), EXACT_LOSS * scale)
    rows = readable if readable is not None and readable.any() else np.ones(len(losses), dtype=bool)
    exportable = rows & _standalone(table)
    if losses[rows].min() > EXPORT_TOL * scale and exportable.any():  # no accurate fit to keep: always export
        rows = exportable
    best = losses[rows].min()
    near = rows & (losses <= best + SIMPLEST_TOL * scale)
    room = max(SCORE_LOSS_FACTOR, 1.0 / kind_margin(n_rows))
    standalone = near & _standalone(table) & (losses <= max(room * best, best + EXPORT_TOL * scale))
    pool = standalone if standalone.any() else near
    lowest = losses[pool].min()
    elementary = pool & _elementary(table) & (losses <= room * lowest)
    rows = np.flatnonzero(elementary if elementary.any() else pool & (losses <= SCORE_LOSS_FACTOR * lowest))
    score, sizes = table["score"].to_numpy(dtype=float), _complexities(table)
    return int(min(rows, key=lambda i: (-score[i], sizes[i])))


def _select(table, choice, scale, n_rows, readable=None) -> int:
    """The row of ``table`` (``equations_``) that ``model_selection`` = ``choice`` picks: "score"
    (``_by_score``, ``n_rows`` the held-out rows the losses are measured on, ``readable`` the
    rows without a cancelling term); "best", the lowest loss (``_selection_losses``);
    "simplest", the least complex row within
    ``SIMPLEST_TOL`` of ``scale`` (the variance the losses are compared against) of the best
    (ties: the lower loss); a number of terms, the lowest loss among the rows of that size (of
    the largest size below it when the pursuit stopped earlier)."""
    if choice == "score":
        return _by_score(table, scale, n_rows, readable)
    losses = _selection_losses(table)
    best = int(np.argmin(losses))
    if choice == "best":
        return best
    if choice == "simplest":
        close = np.flatnonzero(losses <= losses[best] + SIMPLEST_TOL * scale)
        sizes = _complexities(table)
        return int(min(close, key=lambda i: (sizes[i], losses[i])))
    sizes = table["n_terms"].to_numpy()
    if choice > sizes.max():
        warnings.warn(f"model_selection = {choice} terms, but the pursuit stopped at {sizes.max()}: "
                      f"using {sizes.max()}", UserWarning, stacklevel=5)
    size = sizes[sizes <= choice].max()
    rows = np.flatnonzero(sizes == size)
    return int(rows[np.argmin(losses[rows])])


class _SymbolicPursuit(ExplainedEstimator, BaseEstimator):
    """The pursuit shared by the regressor and the classifier (see the module docstring).

    Subclasses validate their target, turn it into a real target on the model's scale and
    call ``_pursue``; ``_logit_link`` says whether the model's sum is a logit (the expression and
    the probabilities then go through a sigmoid).  The fifteen parameters (more than eight: they
    are scikit-learn hyperparameters, stored as given) are documented on
    ``SymbolicPursuitRegressor``.
    """

    _logit_link = False

    def __init__(self, max_terms=3, loss_tol=1e-4, ratio_tol=0.9, patience=1, n_restarts=3,
                 maxiter=100, backfit=True, families=None, monomials=True, simplify=True, simplify_tol=0.01,
                 model_selection="score", validation_fraction=0.2, n_jobs=None, random_state=None):
        self.max_terms = max_terms
        self.loss_tol = loss_tol
        self.ratio_tol = ratio_tol
        self.patience = patience
        self.n_restarts = n_restarts
        self.maxiter = maxiter
        self.backfit = backfit
        self.families = families
        self.monomials = monomials
        self.simplify = simplify
        self.simplify_tol = simplify_tol
        self.model_selection = model_selection
        self.validation_fraction = validation_fraction
        self.n_jobs = n_jobs
        self.random_state = random_state

    # ------------------------------------------------------------------ fitting
    def __setstate__(self, state):
        """A model pickled before monomial terms existed has none: its ``monomials`` is False;
        one pickled before contributions existed gets its ``baseline_row_`` from the point of
        its Taylor coefficients (the same training mean) and its ``baseline_`` from it."""
        state.setdefault("monomials", False)
        if "taylor_point_" in state and "baseline_row_" not in state:
            state["baseline_row_"] = state.pop("taylor_point_")
        super().__setstate__(state)
        if hasattr(self, "baseline_row_") and not hasattr(self, "baseline_"):
            self.baseline_ = self._baseline()
        self._logits_in_table()

    def _logits_in_table(self):
        """A logit model pickled when ``equations_`` held each row's probability holds its logit
        instead (``expression.logit_of``), as a model fitted now does."""
        table = getattr(self, "equations_", None)
        if not self._logit_link or table is None or getattr(self, "expression_", None) is None:
            return
        if table["sympy"].iloc[self.selected_] != self.expression_:
            return  # the table holds the logits already
        from .expression import logit_of

        self.equations_ = table.assign(sympy=[self.decision_expression_ if i == self.selected_
                                              else None if e is None else logit_of(e)
                                              for i, e in enumerate(table["sympy"])])

    def _check_params(self):
        if not (_is_int(self.max_terms) and self.max_terms >= 1):
            raise InputError(f"max_terms must be a positive integer, got {self.max_terms!r}")
        if not (_is_int(self.n_restarts) and _is_int(self.maxiter) and self.n_restarts >= 1 and self.maxiter >= 1):
            raise InputError(f"n_restarts and maxiter must be integers >= 1, got {self.n_restarts!r} and "
                             f"{self.maxiter!r}")
        if not isinstance(self.simplify, (bool, np.bool_)):
            raise InputError(f"simplify must be True or False, got {self.simplify!r}")
        if not isinstance(self.monomials, (bool, np.bool_)):
            raise InputError(f"monomials must be True or False, got {self.monomials!r}")
        if not (_is_real(self.simplify_tol) and 0 <= self.simplify_tol < math.inf):
            raise InputError(f"simplify_tol must be a finite number >= 0, got {self.simplify_tol!r}")
        if not (_is_real(self.validation_fraction) and 0 <= self.validation_fraction < 1):
            raise InputError(f"validation_fraction must be in [0, 1), got {self.validation_fraction!r}")
        choice = self.model_selection
        if _is_int(choice):
            if not 1 <= choice <= self.max_terms:
                raise InputError(f"model_selection = {choice} terms must be between 1 and max_terms "
                                 f"({self.max_terms})")
        elif not (isinstance(choice, str) and choice in SELECTIONS):
            raise InputError(f"model_selection must be 'score', 'best', 'simplest' or a number of terms, "
                             f"got {choice!r}")

    def _validated(self, X, y, **checks):
        self._check_params()
        X, y = validate_data(self, X, y, dtype=np.float64, **checks)
        if X.shape[0] < 2:
            raise InputError(f"symbolic pursuit needs at least 2 rows, got n_samples = {X.shape[0]}")
        check_fit_memory(*X.shape, starts_per_step(self.families, self.n_restarts, self.monomials))
        return X, y

    def _pursue(self, X, t, strata=None):
        """Fit the models of every size to the real target ``t`` (on the model's scale) on the
        training part of the rows (``strata``: labels to stratify the held-out part by),
        simplify them, tabulate them in ``equations_`` and keep the one ``model_selection``
        chooses, its weights refitted on every row.  BLAS runs single-threaded: the problems
        are small, and multi-threading them only adds synchronisation."""
        with single_threaded_blas(), np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            self.data_min_ = X.min(axis=0)
            rng_ = X.max(axis=0) - self.data_min_
            self.data_range_ = np.where(rng_ > 0, rng_, 1.0)
            Xs = self._scale(X)
            ridges = [Ridge(f) for f in _resolve_families(self.families)]
            self.families_ = [r.name for r in ridges]
            seed = self.random_state if self.random_state is not None else np.random.randint(2**31)
            rows = _holdout(len(t), self.validation_fraction, seed, strata)
            kinds = self._projection_kinds(X)  # on every row, like the min-max scaling: no row is floored
            models = self._grow(ridges, kinds, Rows(Xs[rows.train], t[rows.train]), Rows(Xs[rows.test], t[rows.test]),
                                seed)
            if self.simplify:
                from .closed_forms import registered_closed_forms

                forms = registered_closed_forms()
                fit, check = Rows(Xs[rows.train], t[rows.train]), Rows(Xs[rows.test], t[rows.test])
                candidates = self._table_candidates(models, fit, check, forms)
            else:
                candidates = [(m, True) for m in models]
            self._tabulate(candidates, Xs, t, rows)
            self._importances(X)
        return self

    def _table_candidates(self, models, fit: Rows, check: Rows, forms) -> list[tuple[Model, bool]]:
        """The rows ``equations_`` is chosen from, each with whether it is the pursuit's own
        model of its size: per size, the simplified model (``_simplified``, own) and its
        closed-form variant (``_closed_variant``), each followed by its sparser rungs, all with
        round printed arguments (``_with_rungs``)."""
        scaling = Scaling(self.data_min_, self.data_range_)
        out = []
        for model in models:
            curves: dict = {}
            simple = _simplified(model, fit, check, forms, self.simplify_tol, self.maxiter, curves)
            closed = _closed_variant(simple, fit, forms, self.simplify_tol, self.maxiter, curves)
            for start, own in ((simple, True), (closed, False)):
                if start is not None:
                    ladder = _with_rungs(start, fit, self.simplify_tol, self.maxiter, scaling)
                    out += [(m, own and i == 0) for i, m in enumerate(ladder)]
        return out

    def _projection_kinds(self, X) -> list[TermKind]:
        """The kinds a new term may take (``TermKind``): linear; when ``monomials`` is on and
        some column is strictly positive on the rows ``X`` (all of them, held out or not, as
        the min-max scaling: a held-out row is never floored), a monomial, and a monomial
        prefactor times a function of a monomial.  ``monomial_features_`` says which columns a
        monomial may read."""
        monomial = monomial_projection(X, self.data_min_, self.data_range_) if self.monomials else None
        self.monomial_features_ = np.zeros(X.shape[1], dtype=bool) if monomial is None else monomial.positive
        kinds = [TermKind("linear", LINEAR)]
        if monomial is not None:
            kinds += [TermKind("monomial", monomial),
                      TermKind("monomial prefactor", monomial, Prefactor(monomial, np.zeros(X.shape[1])))]
        return kinds

    def _grow(self, ridges, kinds, fit: Rows, check: Rows, seed) -> list[Model]:
        """The pursuit loop on the rows ``fit``: add terms until ``max_terms``, ``loss_tol`` or
        ``patience`` stops it (``check``: the held-out rows that choose each term's projection
        kind).  Returns the model after each accepted step (after back-fitting), or the
        intercept-only model when no term was accepted."""
        from interp.progress import Progress

        Xs, t = fit.Xs, fit.t
        var = float(np.var(t))
        intercept = float(np.mean(t))
        scale = var if var > 0 else 1.0
        loss = float(np.mean((t - intercept) ** 2)) / scale
        self.loss_history_ = [loss]
        self.family_log_ = []
        terms: list[Term] = []
        models: list[Model] = []
        G = np.zeros((len(t), 0))
        rejected = step = 0
        bar = Progress("symbolic pursuit", total=self.max_terms)
        while len(terms) < self.max_terms and loss > self.loss_tol and rejected < self.patience:
            resid = t - intercept - (G @ np.array([tm.weight for tm in terms]) if terms else 0.0)
            held = Rows(check.Xs, check.t - intercept - (design(terms, check.Xs) @ np.array([tm.weight for tm in terms])
                                                         if terms else 0.0))
            shape = (log_structure(kinds[1].projection.features(Xs), t, both_signs=True)
                     if step == 0 and len(kinds) > 1 else None)
            best = self._best_term(ridges, kinds, PursuitStep(step, seed, scale, shape), Rows(Xs, resid), held)
            step += 1
            if best is None or not (best.loss / scale) / max(loss, 1e-300) < self.ratio_tol:
                rejected += 1
                continue
            rejected = 0
            terms.append(best.term)
            G = design(terms, Xs)
            if self.backfit and len(terms) > 1:
                terms, G = self._backfit(terms, Xs, t - intercept, G)
            model = solved(terms, G, t)
            intercept, terms = model.intercept, list(model.terms)
            loss = mse(model, G, t) / scale
            models.append(model)
            self.loss_history_.append(loss)
            bar.update()
        _end_progress(bar, len(terms), self.max_terms, converged=loss <= self.loss_tol)
        return models or [Model((), intercept)]

    def _best_term(self, ridges, kinds, step: PursuitStep, fit: Rows, held: Rows) -> _NewTerm | None:
        """The new term at pursuit step ``step`` for the residual ``fit.t``: every
        (kind, family) screened on a subsample (``_screened``; their losses on every training
        row logged in ``family_log_``, a kind other than linear as "family (kind)"), the best
        family of each kind (ties: the earlier family) refitted on every training row from
        there (``_polished``), and when its g turns over the data (``Term.turns``: rises and
        falls, a sine, a Bessel function) the best family whose g is monotone there too, which
        is kept unless the turning one has a clearly lower loss on the held-out residual
        ``held`` (``_by_margin``); of the kinds, the simplest unless a richer one has a clearly
        lower held-out loss by the same rule (on the training residual when no row is held
        out).  None when every family failed."""
        screened = self._screened(ridges, kinds, step, fit)
        logged, chosen, calm = {}, [], []
        for kind, of_kind in zip(kinds, screened):
            for c in of_kind:
                if not c.ok:
                    log.info("step %d: family %s (%s) lost: %s", step.index + 1, c.family, kind.name, c.reason)
                key = c.family if kind.projection is LINEAR and kind.prefactor is None else f"{c.family} ({kind.name})"
                logged[key] = c.loss / step.scale if c.ok else c.reason
            ok = [c for c in of_kind if c.ok]
            if ok:
                chosen.append((kind, min(ok, key=self._family_order)))
                monotone = [c for c in ok if self._turns(ridges, kind, c, fit) == 0]
                if monotone and self._turns(ridges, kind, chosen[-1][1], fit):
                    calm.append((kind, min(monotone, key=self._family_order)))
        best = {}
        polished = self._polished(ridges, chosen + calm, fit)
        new_terms = [self._new_term(ridges, kind, c, out, fit, held, monotone=i >= len(chosen))
                     for i, ((kind, c), out) in enumerate(zip(chosen + calm, polished))]
        for (kind, _), new in zip(chosen, new_terms):
            best[kind.name] = new
        for (kind, _), new in zip(calm, new_terms[len(chosen):]):
            # a term that turns (rises and falls over the data) earns its place against the best
            # monotone one of its kind by the margin a richer kind must win by
            best[kind.name] = _by_margin([new, best[kind.name]], step.scale, len(held.t) or len(fit.t))
        if step.shape is not None and step.shape.exact and self.simplify:
            self._add_power_law(best, kinds, step, fit, held, logged)
        self.family_log_.append(logged)
        ordered = [best[kind.name] for kind in kinds if kind.name in best]  # the simplest kind first
        for kind in kinds:
            if kind.name in best:
                log.info("step %d: best %s term, held-out loss %.4g", step.index + 1, kind.name,
                         best[kind.name].held_loss / step.scale)
        return _by_margin(ordered, step.scale, len(held.t) or len(fit.t)) if ordered else None

    def _family_order(self, c: Candidate) -> tuple:
        """How a step ranks the candidates of one kind: by loss, ties to the earlier family."""
        return c.loss, self.families_.index(c.family)

    def _turns(self, ridges, kind: TermKind, c: Candidate, fit: Rows) -> int:
        """How often the screened candidate ``c``'s g turns over its u on the rows ``fit``."""
        return kind.term(ridges[self.families_.index(c.family)], c).turns(fit.Xs)

    def _new_term(self, ridges, kind: TermKind, c: Candidate, out: Candidate, fit: Rows, held: Rows,
                  monotone=False) -> _NewTerm:
        """The screened candidate ``c`` refitted on every training row (``out``, kept when it
        lowered the loss and, for a ``monotone`` one, did not make it turn), its held-out loss
        measured and its floor checked (``_unfloored``)."""
        ridge = ridges[self.families_.index(c.family)]
        if not (out.ok and out.loss <= c.loss and not (monotone and kind.term(ridge, out).turns(fit.Xs))):
            out = c
        term = kind.term(ridge, out)
        return self._unfloored(_NewTerm(term, out.loss, _held_out_loss(term, fit, held)), fit, held)

    @staticmethod
    def _add_power_law(best: dict, kinds, step: PursuitStep, fit: Rows, held: Rows, logged: dict) -> None:
        """Offer the product of powers a target's logarithm is exactly (``power_law``) as the
        monomial kind's term in ``best`` (by kind name), where it predicts the training rows
        at least as well as the kind's fitted one; logged as "power (monomial)"."""
        kind = next(k for k in kinds if k.projection is not LINEAR and k.prefactor is None)
        c = power_law(kind, step.shape.trend, fit)
        logged[f"{c.family} ({kind.name})"] = c.loss / step.scale if c.ok else c.reason
        if c.ok and (kind.name not in best or c.loss <= best[kind.name].loss):
            term = kind.term(Ridge(Power()), c)
            best[kind.name] = _NewTerm(term, c.loss, _held_out_loss(term, fit, held))

    def _scale(self, X):
        return (X - self.data_min_) / self.data_range_

    def _starts(self, ridge, kind: TermKind, F, resid, rng, shape: LogStructure | None):
        """``n_restarts`` starting points (theta, v, prefactor) of ``ridge`` on the features
        ``F`` of ``kind``: the least-squares direction of the residual (made positive, then as
        it is), all ones, then random directions; a column of F that is all 0 (one a monomial
        term does not read) gets 0, where its gradient keeps it.  At the first step (``shape``,
        ``log_structure``), the directions the target's logarithm shows come first: a
        prefactor's along its trend less its part along the bend, with u's direction along the
        bend and against it (a Meijer G's shape at its start is monotone one way); for a target
        of one sign, a monomial's along the trend (the trend of a magnitude whose sign changes
        is no monomial's)."""
        d = F.shape[1]
        read = np.any(F != 0, axis=0).astype(float)
        v_ls, *_ = np.linalg.lstsq(F - F.mean(0), resid - resid.mean(), rcond=None)
        if not np.all(np.isfinite(v_ls)) or np.linalg.norm(v_ls) == 0:
            v_ls = read.copy()
        own = kind.prefactor  # the kind's own start: no prefactor, or one of exponents 0
        dirs = [((np.abs(v_ls) + 1e-3) * read, own), (v_ls * read, own), (read, own)]
        if shape is not None and kind.prefactor is not None:
            rest = kind.prefactor.from_scaled(shape.trend - (shape.trend @ shape.bend) * shape.bend)
            dirs = [(shape.bend, rest), (-shape.bend, rest), (shape.trend, own)] + dirs
        elif shape is not None and shape.one_signed and kind.projection is not LINEAR:
            dirs = [(shape.trend, own)] + dirs
        starts = []
        for i in range(self.n_restarts):
            if i < len(dirs):
                v0, prefactor = dirs[i][0] / np.linalg.norm(dirs[i][0]), dirs[i][1]
            else:
                v0 = np.abs(rng.standard_normal(d)) * np.sign(rng.standard_normal(d) + 0.5) * read
                prefactor = own
            th0 = ridge.init.copy()
            if i > 0 and ridge.orders is not None:
                m, n, p, q = ridge.orders
                th0[: p + q] += 0.1 * rng.standard_normal(p + q)
            starts.append((th0, v0, prefactor))
        return starts

    def _unfloored(self, new: _NewTerm, fit: Rows, held: Rows) -> _NewTerm:
        """``new``, or, when it is a linear term whose floor falls inside the training rows' range
        of its argument, the same family refitted from it with an argument that is never floored
        there (``projections.UNFLOORED``), unless the floor earns its place: the floored term
        predicts the held-out residual better by more than ``HOLDOUT_TOL``.  A floor inside
        the data cuts g in two, and the other half of the data then needs a term of its own."""
        tm = new.term
        if tm.projection is not LINEAR or tm.prefactor is not None or not np.any(tm.linear(fit.Xs) < U_FLOOR):
            return new
        out = fit_term(tm.ridge, fit.Xs, fit.t, [(tm.theta, tm.v)], self.maxiter, kind=UNFLOORED)
        if not out.ok:
            return new
        term = Term(tm.ridge, out.theta, out.v, out.weight, projection=UNFLOORED)
        refit = _NewTerm(term, out.loss, _held_out_loss(term, fit, held))
        return refit if refit.held_loss <= (1 + HOLDOUT_TOL) * new.held_loss else new

    def _screened(self, ridges, kinds, step: PursuitStep, fit: Rows) -> list[list[Candidate]]:
        """Per kind, every family's best term for the residual ``fit.t`` from its starting
        points (``_starts``), fitted on at most ``SCREEN_ROWS`` of the training rows (drawn
        at random for the step) and then evaluated on all of them: a ridge function's
        evaluations cost in proportion to the rows, and a few hundred rows of a law tell its
        basin as well as all of them.  The prefactor kind is fitted only at the first step of a
        target that does not reach 0 (``PursuitStep.shape``: its starts come from the
        logarithm, of the magnitude when the target changes sign; the others would repeat the
        monomial kind's).  The (kind, family, start) jobs run through
        joblib."""
        rng = np.random.default_rng([int(step.seed) % (2**32), step.index, SCREEN_STREAM])
        sub = np.sort(rng.permutation(len(fit.t))[:SCREEN_ROWS])
        Xsub, tsub = fit.Xs[sub], fit.t[sub]
        shape = step.shape
        jobs = []
        for ki, kind in enumerate(kinds):
            if kind.prefactor is not None and shape is None:
                continue  # without a logarithm to start from, its starts would be the monomial kind's
            F = kind.projection.features(Xsub)
            for fi, ridge in enumerate(ridges):
                stream = [int(step.seed) % (2**32), step.index, fi] + ([ki] if ki else [])  # the linear kind's as before
                for theta0, v0, prefactor in self._starts(ridge, kind, F, tsub, np.random.default_rng(stream), shape):
                    jobs.append((ki, fi, ridge, theta0, v0, prefactor))
        outs = Parallel(n_jobs=self.n_jobs)(
            delayed(_fit_term_task)(ridge, Xsub, tsub, [(theta0, v0)], self.maxiter, kind=kinds[ki].projection,
                              prefactor=prefactor)
            for ki, fi, ridge, theta0, v0, prefactor in jobs
        )
        best: dict[tuple[int, int], Candidate] = {}
        for (ki, fi, *_), out in zip(jobs, outs):  # first-best in job order: independent of n_jobs
            if (ki, fi) not in best or out.loss < best[ki, fi].loss:
                best[ki, fi] = out
        return [[self._on_rows(ridges[fi], kinds[ki], best[ki, fi], fit) for fi in range(len(ridges)) if (ki, fi) in best]
                for ki in range(len(kinds))]

    @staticmethod
    def _on_rows(ridge, kind: TermKind, c: Candidate, fit: Rows) -> Candidate:
        """The screened term ``c`` evaluated on the rows ``fit`` (its weight and loss there)."""
        if not c.ok:
            return c
        prefactor = None if c.prefactor is None else kind.prefactor.with_exponents(c.prefactor)
        return evaluate_term(ridge, c.theta, c.v, fit.Xs, fit.t, kind.projection, prefactor)

    def _polished(self, ridges, chosen, fit: Rows) -> list[Candidate]:
        """Each (kind, screened candidate) of ``chosen`` refitted on every row of ``fit`` from
        where the screen left it (through joblib)."""
        terms = [kind.term(ridges[self.families_.index(c.family)], c) for kind, c in chosen]
        return Parallel(n_jobs=self.n_jobs)(
            delayed(_fit_term_task)(tm.ridge, fit.Xs, fit.t, [(tm.theta, tm.v)], self.maxiter, **tm.fit_kinds())
            for tm in terms)

    def _backfit(self, terms, Xs, t, G):
        """Re-fit each earlier term to ``t`` (the target less the intercept) without it (eq. 12)."""
        for li in range(len(terms) - 1):
            w = np.array([tm.weight for tm in terms])
            others = G @ w - G[:, li] * w[li]
            r = t - others
            gc = G[:, li] - G[:, li].mean()
            old = float(np.mean((r - r.mean() - w[li] * gc) ** 2))
            tm = terms[li]
            out = fit_term(tm.ridge, Xs, r, [(tm.theta, tm.v)], self.maxiter, **tm.fit_kinds())
            if out.ok and out.loss < old:
                terms[li] = tm.refitted(tm.ridge, out)
                G[:, li] = terms[li].values(Xs, clip=False)
        return terms, G

    def _tabulate(self, candidates, Xs, t, rows: Holdout):
        """``equations_`` (see ``SymbolicPursuitRegressor``), ``selected_`` and the chosen model's
        ``terms_``, ``intercept_``, ``n_terms_`` and expressions.

        ``candidates``: (model, whether it is the pursuit's own model of its size)
        (``_table_candidates``).  The own models are always tabulated (one with a
        ``cancelling`` term is chosen by "score" only when every row has one); another model
        is, unless it has a cancelling term or another beats it: one with at most its terms,
        features and Meijer terms and at most its
        loss is dropped before its formula is built (the formulas are what tabulating costs),
        then one at most as complex with at most its loss.  Rows are ordered by size, the own
        model first, then by decreasing complexity.  The losses of a row are those of its model
        fitted on the training rows; its formula is that of the model with the weights and
        intercept refitted on every row, which is what ``predict`` uses when the row is selected.
        """
        for m, _ in candidates:  # held-out rows are scored the way predict clips them: to the training box
            measure_ranges(m.terms, Xs[rows.train])
        candidates = [(m, own) for m, own in candidates if own or not cancelling(m.terms, Xs[rows.train])]
        records = [self._scores(m, Xs, t, rows) for m, _ in candidates]
        own = np.array([o for _, o in candidates])
        sizes = np.array([[r["n_terms"], r["n_features"], sum(tm.orders is not None for tm in m.terms)]
                          for r, (m, _) in zip(records, candidates)], dtype=float)
        kept = np.flatnonzero(_undominated(sizes, _selection_losses(records), own))
        tol = self.simplify_tol if self.simplify else None
        views = [self._view(_refitted(candidates[i][0], Xs, t, tol)) for i in kept]
        records = [self._with_formula(records[i], view) for i, view in zip(kept, views)]
        complexity = _complexities(records)
        keep = np.flatnonzero(_undominated(complexity[:, None], _selection_losses(records), own[kept]))
        order = sorted(keep, key=lambda i: (records[i]["n_terms"], not own[kept[i]], -complexity[i]))
        self.equations_ = pd.DataFrame([records[i] for i in order], columns=list(EQUATION_COLUMNS))
        self.equations_["complexity"] = self.equations_["complexity"].astype("Int64")
        views = [views[i] for i in order]
        on = rows.test if len(rows.test) else rows.train
        scale = float(np.var(t[on])) or 1.0
        self.equations_["score"] = scores(self.equations_, scale)
        readable = np.array([not cancelling(view.terms_, Xs) for view in views])
        self.selected_ = _select(self.equations_, self.model_selection, scale, len(on), readable)
        chosen = views[self.selected_]
        for attr in ("terms_", "intercept_", "n_terms_", "expression_", "decision_expression_", "closed_forms_"):
            setattr(self, attr, getattr(chosen, attr))

    def _view(self, model: Model):
        """A shallow copy of the estimator holding ``model`` (its terms, intercept and
        expressions): what ``render.model_formula`` prints for one row of ``equations_``."""
        view = copy.copy(self)
        view.terms_, view.intercept_, view.n_terms_ = list(model.terms), model.intercept, len(model.terms)
        view._set_expression()
        return view

    @staticmethod
    def _scores(model: Model, Xs, t, rows: Holdout) -> dict:
        """The numbers of one row of ``equations_`` (its ``EQUATION_COLUMNS``, the formula's
        still None): the model's size and features, its training and held-out loss and R^2 (of
        ``model``, fitted on the training rows)."""
        train_loss, test_loss = [mse(model, design(model.terms, Xs[idx]), t[idx]) if len(idx) else math.nan
                                 for idx in (rows.train, rows.test)]
        var = float(np.var(t[rows.test])) if len(rows.test) else 0.0
        return dict(n_terms=len(model.terms), n_features=model.n_features, complexity=None, train_loss=train_loss,
                    test_loss=test_loss, r2=1.0 - test_loss / var if var > 0 else math.nan, score=math.nan,
                    formula=None, latex=None, sympy=None)

    @staticmethod
    def _with_formula(record: dict, view) -> dict:
        """``record`` (``_scores``) with ``view``'s complexity and formula as text, LaTeX and
        sympy (left None when sympy could not build the expression)."""
        from .render import SHOWN_DIGITS, formula_complexity, model_formula

        if view.expression_ is None:
            return record
        shown = model_formula(view, SHOWN_DIGITS)
        return {**record, "complexity": formula_complexity(view), "formula": shown.text, "latex": shown.latex,
                "sympy": view.decision_expression_}

    def _set_expression(self):
        """``expression_``, ``decision_expression_`` (the sum before the link), ``closed_forms_``
        and each term's ``closed_form`` from the fitted terms (the expressions None, and no
        closed forms, if sympy cannot build them)."""
        from .expression import build_expression, feature_symbols

        self.expression_ = self.decision_expression_ = None
        self.closed_forms_ = [False] * len(self.terms_)
        try:
            built = build_expression(self.terms_, feature_symbols(self), self.intercept_, self.data_min_,
                                     self.data_range_, logit=self._logit_link)
        except Exception as exc:  # noqa: BLE001 - the numeric model stays usable
            log.warning("could not build the sympy expression: %s", exc)
            return
        for tm, form in zip(self.terms_, built.term_forms):
            tm.closed_form = form
        self.expression_ = built.expression
        self.decision_expression_ = built.decision
        self.closed_forms_ = list(built.closed)

    # ---------------------------------------------------------------- predicting
    def _decision(self, X):
        """The model's sum (on the logit scale when ``_logit_link``) at the rows of ``X``."""
        check_is_fitted(self, "terms_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        Xs = self._scale(X)
        out = np.full(X.shape[0], self.intercept_)
        for tm in self.terms_:
            out = out + tm.weight * tm.values(Xs)
        return out

    def _importances(self, X):
        """``baseline_row_`` (the training mean) and ``baseline_`` (the model's sum there), the
        importances (``feature_importances_``: each feature's mean absolute contribution on
        the training rows, ``contributions``) and ``interactions_`` (the second-order Taylor
        coefficients of the sum at the baseline row)."""
        x0 = X.mean(axis=0)
        self.baseline_row_ = x0
        xs0 = self._scale(x0[None, :])
        self.baseline_ = self._baseline()
        self.feature_importances_ = np.mean(np.abs(contributions(self.terms_, self._scale(X), xs0)), axis=0)
        d = X.shape[1]
        hess = np.zeros((d, d))
        for tm in self.terms_:
            self._add_term_hessian(tm, x0, xs0, hess)
        inter = hess.copy()
        inter[np.diag_indices(d)] /= 2.0
        self.interactions_ = inter

    def _baseline(self) -> float:
        """The model's sum at ``baseline_row_``."""
        xs0 = self._scale(self.baseline_row_[None, :])
        return float(self.intercept_ + sum(tm.weight * tm.values(xs0)[0] for tm in self.terms_))

    def for_rows(self, X) -> list:
        """Why each row of ``X`` gets its value: the terms' changes from the baseline row and
        each feature's share (``interp.local.RowExplanation``; ``rows.formula_rows``)."""
        from .rows import formula_rows

        return formula_rows(self, X)

    def contributions(self, X):
        """Each feature's contribution to the formula's output on each row of ``X``: an
        (n_rows, n_features) array (a DataFrame with the feature names and ``X``'s index when
        ``X`` is one) whose rows add up, with ``baseline_`` (the output at ``baseline_row_``,
        the training mean), to the model's sum: ``decision_function`` for the classifier,
        ``predict`` for the regressor (its logit under ``link="logit"``), to rounding.

        Within a term, its change from the baseline row is split by integrated gradients
        along its argument, which a term of one linear statistic makes exact: in proportion to
        c_j (x_j - x0_j) for a linear argument c . x + c0, to a_j (log x_j - log x0_j) for a
        monomial one C prod x_j**a_j; a term w P(x) g(u) with a prefactor first shares its
        change between P and g by their Shapley values, (P - P0)(g + g0)/2 and
        (g - g0)(P + P0)/2, each then split the same way (``contributions`` module).  A
        feature the formula does not read gets 0."""
        check_is_fitted(self, "terms_")
        rows = validate_data(self, X, reset=False, dtype=np.float64)
        out = contributions(self.terms_, self._scale(rows), self._scale(self.baseline_row_[None, :]))
        if isinstance(X, pd.DataFrame):
            return pd.DataFrame(out, index=X.index, columns=list(X.columns))
        return out

    def _add_term_hessian(self, tm: Term, x0, xs0, hess) -> None:
        """Add the Hessian of w * P(x) * g(u(x)) (P = 1 without a prefactor) at the point
        ``x0`` (``xs0``: it scaled) into ``hess`` in place (one d x d temporary at a time: the
        interactions of a model on many features), g'' by central differences; g's part is
        zero where u is clipped (g is then constant)."""
        from .expression import direction

        w = tm.weight
        u, inside = tm.argument(xs0)
        g, _, du = tm.ridge.value_and_grad(tm.theta, u, max_fallback=None)
        p, p_grad, p_curvature = (1.0, None, None) if tm.prefactor is None else tm.prefactor.derivatives(x0)
        g_grad = None
        if inside[0]:
            _, du_dx, u_curvature = tm.projection.derivatives(*direction(tm, self.data_min_, self.data_range_), x0)
            h = 1e-5 * max(u[0], 1e-2)
            _, _, dup = tm.ridge.value_and_grad(tm.theta, u + h, max_fallback=None)
            _, _, dum = tm.ridge.value_and_grad(tm.theta, u - h, max_fallback=None)
            g2 = (dup[0] - dum[0]) / (2 * h)
            g_grad = du[0] * du_dx
            hess += np.outer((w * p * g2) * du_dx, du_dx)
            u_curvature.add_to(hess, w * p * du[0])
        if tm.prefactor is None:
            return
        p_curvature.add_to(hess, w * g[0])
        if g_grad is not None:
            mixed = np.outer(w * g_grad, p_grad)
            hess += mixed
            hess += mixed.T

    # ---------------------------------------------------------------- rendering
    def to_latex(self) -> str:
        """The model's formula in LaTeX at full precision, every constant printable (see
        ``render.model_formula``: a classifier's is written with its link)."""
        from .render import model_formula

        check_is_fitted(self, "terms_")
        return model_formula(self, digits=None).latex_right

    def to_mathml(self) -> str:
        """The model's formula as presentation MathML, like `to_latex`."""
        from .render import model_formula

        check_is_fitted(self, "terms_")
        return model_formula(self, digits=None).mathml_right

    def numpy_function(self):
        """A numpy function f(X) compiled from ``expression_`` (columns in feature order)."""
        from .expression import lambdify_expression

        check_is_fitted(self, "terms_")
        return lambdify_expression(self)

    # ---------------------------------------------------------------- exports (``export``)
    def sympy(self, index=None):
        """The sympy expression of row ``index`` of ``equations_`` (None: the model ``predict``
        uses) at full precision: the model's sum as ``predict`` computes it, a classifier's
        (or a logit link's) the logit f, whose probability is 1/(1 + exp(-f))."""
        from .export import row_expression

        return row_expression(self, index)

    def latex(self, index=None) -> str:
        """Row ``index``'s formula in LaTeX as ``equations_`` prints it (4 significant digits)."""
        from .export import row_latex

        return row_latex(self, index)

    def latex_table(self) -> str:
        """The models by size as a LaTeX tabular, the selected row marked."""
        from .export import latex_table

        return latex_table(self)

    def to_python(self, index=None) -> str:
        """The source of a standalone module (numpy, scipy.special where needed, no interp)
        whose ``predict(X)`` is row ``index``'s model (None: the model ``predict`` uses); a
        classifier's computes the logit f, then the probability of ``classes_[1]``, 1/(1 +
        exp(-f)).  A term with no numpy/scipy form is refused, named."""
        from .export import python_source

        return python_source(self, index)

    def _display(self):
        from .render import estimator_display

        return estimator_display(self)


class SymbolicPursuitRegressor(RegressorMixin, _SymbolicPursuit):
    """Symbolic Pursuit (Crabbe et al., NeurIPS 2020): a sum of Meijer G ridge functions.

    Parameters
    ----------
    max_terms
        Maximum number of terms K.
    loss_tol
        Stop once MSE / Var(y) on the training rows is below this (1e-4: a tenth of what a
        held-out R^2 of 0.999 allows, so that a law the pursuit can write exactly is not left at
        the edge of that threshold, as 1e-3 left it).
    ratio_tol
        A new term is kept only if new_loss / old_loss < ratio_tol.
    patience
        Stop after this many consecutive rejected pursuit steps (each retry uses fresh
        random directions).
    n_restarts
        Starting points per family and term (the first from the family's initial
        parameters and the least-squares direction of the residual, the rest perturbed/random).
    maxiter
        L-BFGS-B iterations per start.
    backfit
        Re-fit the earlier terms after each new term (eq. 12).
    families
        Names of registered ridge families to use (default: all registered).
    monomials
        Let a term's argument be a monomial of the strictly positive columns,
        u = C * x1**a1 * ... (``projections.MonomialProjection``), besides a linear combination,
        and let such a term carry a monomial prefactor (w * P(x) * g(u)); each new term takes
        the kind whose best term predicts the held-out rows best.
    simplify
        Rewrite each Meijer term as the simplest registered closed form (exp, powers,
        log(1 + .), ...; ``closed_forms.registered_closed_forms``) whose loss allows it, snap its
        parameters to small rationals and drop negligible direction coefficients
        (``simplify.simplify_term``).
        With simplify, each model is also offered in closed forms only (each remaining Meijer
        term as its nearest closed form) and with fewer features per term
        (``sparsify.sparser_models``): those are rows of ``equations_`` too; and the numbers
        printed are rounded where the loss allows (``tidy``).
    simplify_tol
        Relative loss increase allowed for each of those rewrites.
    model_selection
        Which row of ``equations_`` ``predict`` uses: "score" (PySR's rule, ``_by_score``:
        among the rows ``to_python`` exports, those printed with elementary functions only whose
        held-out loss is within 1.5 times the lowest (or the wider margin a richer kind of term
        must win by), else all those within 1.5 times, and either way with a held-out R^2 within
        0.01 of the best, the highest ``score``), "best" (lowest held-out
        loss), "simplest" (the least complex row whose held-out loss is within ``SIMPLEST_TOL`` =
        0.01 of the held-out target's variance of the best, i.e. a held-out R^2 within 0.01 of
        the best) or a number of terms (the best row of that size, at most ``max_terms``; when the
        pursuit stopped earlier, of its largest size, with a warning).
    validation_fraction
        Fraction of the rows held out (at random, from ``random_state``;
        stratified by class for the classifier) to select the model size on; the chosen model's
        weights and intercept are then refitted on every row.  With 0 (or too few rows to hold
        one out) the sizes are compared on their training loss.
    link
        "identity" or "logit" (fit logit(y) for probabilities in [0, 1]; predictions
        through a sigmoid).
    n_jobs
        Joblib width over (family, start) jobs; the result does not depend on it.
    random_state
        Seed.

    Attributes
    ----------
    equations_
        Pandas DataFrame, like PySR's table of equations: the pursuit's model of each
        size 1..K (a single row of 0 terms when no term was accepted), each followed by its
        closed-form variant and sparser rungs that no row beats on both complexity and held-out
        loss, by decreasing complexity. Columns:
        ``n_terms``; ``n_features``, the features the model reads; ``complexity``, the
        operations (``render.operations``: sympy's ``count_ops``, a square root one) of the
        printed formula (``render.formula_complexity``: the sum and each argument's
        definition; not the link, not the domains); ``train_loss``
        and ``test_loss``, the mean squared error on the model's scale (the logit for a logit
        link) on the training and the held-out rows (NaN without held-out rows); ``r2``,
        held out; ``formula`` and ``latex`` (``render.model_formula``, 4 significant digits) and
        ``sympy`` (the expression of the model's sum, the logit under a logit link) of the model
        refitted on every row.  Simplification can
        raise a larger model's training loss above a smaller one's: the loss of the pursuit
        itself never increases (``loss_history_``).
    selected_
        The index of the row of ``equations_`` ``predict`` uses (``model_selection``).
    terms_, intercept_, n_terms_, expression_, decision_expression_, closed_forms_
        The selected model (``expression_`` what ``predict`` returns, ``decision_expression_``
        the sum: the logit under a logit link, whose sigmoid ``expression_`` is).
    loss_history_, family_log_
        The pursuit's loss (MSE / Var) after each accepted term and
        every family's loss at each step, on the training rows.
    """

    def __init__(self, max_terms=3, loss_tol=1e-4, ratio_tol=0.9, patience=1, n_restarts=3,
                 maxiter=100, backfit=True, families=None, monomials=True, simplify=True, simplify_tol=0.01,
                 model_selection="score", validation_fraction=0.2, link="identity", n_jobs=None,
                 random_state=None):
        super().__init__(max_terms=max_terms, loss_tol=loss_tol, ratio_tol=ratio_tol, patience=patience,
                         n_restarts=n_restarts, maxiter=maxiter, backfit=backfit, families=families,
                         monomials=monomials, simplify=simplify, simplify_tol=simplify_tol, model_selection=model_selection,
                         validation_fraction=validation_fraction, n_jobs=n_jobs, random_state=random_state)
        self.link = link

    @property
    def _logit_link(self) -> bool:
        return self.link == "logit"

    def _check_params(self):
        super()._check_params()
        if self.link not in ("identity", "logit"):
            raise InputError(f"link must be 'identity' or 'logit', got {self.link!r}")

    def fit(self, X, y):
        X, y = self._validated(X, y, y_numeric=True)
        y = np.asarray(y, dtype=float)
        if not self._logit_link:
            return self._pursue(X, y)
        if y.min() < 0 or y.max() > 1:
            raise InputError("link='logit' needs probabilities in [0, 1] as targets")
        return self._pursue(X, _log_odds(y))

    def predict(self, X):
        f = self._decision(X)
        return _sigmoid(f) if self._logit_link else f


class SymbolicPursuitClassifier(ClassifierMixin, _SymbolicPursuit):
    """Symbolic pursuit for two classes: the model's sum is the logit of the positive class.

    ``fit(X, y)`` fits the logit of the 0/1 labels (``classes_[1]``, the larger label, is
    positive; probabilities clipped to [1e-6, 1 - 1e-6]); ``fit(X, y, proba=p)`` fits the logit
    of ``p`` instead, for instance a black box's probabilities of ``classes_[1]``, which is how
    ``explain_blackbox`` mimics a classifier.  ``decision_function`` is the sum,
    ``predict_proba`` its sigmoid, ``predict`` the positive class where the sum is above 0.
    The parameters are those of ``SymbolicPursuitRegressor`` (without ``link``).
    """

    _logit_link = True

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def fit(self, X, y, proba=None):
        """Fit to the labels ``y``, or to ``proba`` (probabilities of ``classes_[1]``) when given."""
        X, y = self._validated(X, y)
        kind = type_of_target(y, input_name="y")
        if kind not in ("binary", "multiclass"):
            raise InputError(f"Unknown label type: {kind} (symbolic pursuit classifies two classes)")
        if kind != "binary":
            raise InputError(f"Only binary classification is supported. The target has "
                             f"{np.unique(y).size} classes.")
        labels = binary_labels(y)
        self.classes_ = labels.classes
        target = labels.values if proba is None else _checked_proba(proba, len(y))
        return self._pursue(X, _log_odds(target), strata=labels.values)

    def decision_function(self, X):
        """The model's sum: the logit of the probability of ``classes_[1]``."""
        return self._decision(X)

    def predict_proba(self, X):
        p = _sigmoid(self._decision(X))
        return np.column_stack([1 - p, p])

    def predict(self, X):
        positive = self.decision_function(X) > 0
        return self.classes_[positive.astype(int)]


def _checked_proba(proba, n):
    p = np.asarray(proba, dtype=float)
    if p.shape != (n,):
        raise InputError(f"proba must hold one probability per row ({n}), got shape {p.shape}")
    if not np.all(np.isfinite(p)) or p.min() < 0 or p.max() > 1:
        raise InputError("proba must hold probabilities in [0, 1]")
    return p
