"""Models that read fewer features: a fitted model's directions made sparse, rung by rung.

A pursuit term's direction v has a coefficient for every feature, so each ridge argument
u_k = v_k . x costs about 2d operations of the printed formula, and a model of 30 features
prints 60 operations per term before its functions.  Simplification (``simplify``) drops only
the coefficients the loss does not notice; ``sparser_models`` trades accuracy for brevity on
purpose, the way PySR's equation table does, and leaves the choice to held-out rows.

From a fitted model it walks down ``LADDER`` (features per term): at each rung m below the
model's own count, every term with more than m non-zero coefficients keeps its m largest (on
the min-max scaled features, so a coefficient measures the feature's effect over its range),
the others are pinned at 0, and the term is refitted (its parameters and the kept coefficients,
L-BFGS-B from the previous rung) against what the other terms leave; then the weights and the
intercept are re-solved.  Each rung starts from the one above, as a backward elimination does,
and is a model of its own: the estimator scores every rung on held-out rows and tabulates those
no other model beats on both complexity and held-out loss.  A closed form's snapped parameters
(``closed_forms.exact_parameters``) stay pinned, so ``exp(-u)`` does not become ``exp(-1.003 u)``.
"""

from __future__ import annotations

import numpy as np

from .model import Model, Rows, replaced_in_turn
from .terms import Term, fit_term

LADDER = (1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144)  # features per term at each rung (those above a
# model's own count are skipped; a model of more than 144 features starts at 144)

__all__ = ["LADDER", "sparser_models"]


def sparser_models(model: Model, fit: Rows, maxiter: int) -> list[Model]:
    """The models of ``LADDER``'s rungs below ``model``'s largest count of features per term,
    largest rung first, each refitted on ``fit`` from the one before (see the module
    docstring); the path stops at a rung no term of which can be refitted."""
    out: list[Model] = []
    most = max((int(np.count_nonzero(tm.v)) for tm in model.terms), default=0)
    current = model
    for m in sorted((r for r in LADDER if r < most), reverse=True):
        current = _rung(current, fit, m, maxiter)
        if current is None:
            break
        out.append(current)
    return out


def _rung(model: Model, fit: Rows, m: int, maxiter: int) -> Model | None:
    """``model`` with at most ``m`` features per term, each cut term refitted against the
    residual of the others (``model.replaced_in_turn``), then the weights and the intercept
    re-solved; None when a cut term cannot be refitted."""
    def cut(tm: Term, residual) -> Term | None:
        return tm if np.count_nonzero(tm.v) <= m else _cut(tm, fit.Xs, residual, m, maxiter)

    return replaced_in_turn(model, fit, cut)


def _cut(term: Term, Xs, residual, m: int, maxiter: int) -> Term | None:
    """``term`` keeping its ``m`` largest direction coefficients, refitted to ``residual``
    with the others pinned at 0 (and ``_kept_parameters`` pinned), or None."""
    keep = np.zeros(len(term.v), dtype=bool)
    keep[np.argsort(-np.abs(term.v), kind="stable")[:m]] = True
    v = np.where(keep, term.v, 0.0)
    fit = fit_term(term.ridge, Xs, residual, [(term.theta, v)], maxiter,
                   pinned=np.concatenate([_kept_parameters(term), ~keep]), **term.fit_kinds())
    return term.refitted(term.ridge, fit) if fit.ok else None


def _kept_parameters(term: Term) -> np.ndarray:
    """Which of the term's parameters a rung does not refit: a closed form's exact ones (its
    snaps) and a Meijer G's a and b (the function's shape: its rungs print as the same
    hypergeometric functions, expanded once, while the argument's scale and power refit)."""
    from .closed_forms import ClosedForm, exact_parameters

    if term.orders is not None:
        _, _, p, q = term.orders
        return np.arange(len(term.theta)) < p + q
    if isinstance(term.ridge_family, ClosedForm):
        return exact_parameters(term.ridge_family, term.theta)
    return np.zeros(len(term.theta), dtype=bool)
