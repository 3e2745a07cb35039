"""Symbolic Pursuit estimators: a closed-form model sum_k w_k g_k(ReLU(v_k . x')) of a black box.

x' is x min-max scaled to [0, 1] (folded into the expression), the ridge argument is
u_k = max(u_floor, v_k . x' / (||v_k|| sqrt(d))) and each g_k comes from a registered ridge
family (Meijer G configurations or custom families).  Fitting follows the paper's projection
pursuit with back-fitting (eq. 10-12):

1. a new term is fitted to the current residual for every family (in parallel through joblib),
   from several starting points (L-BFGS-B, analytic gradients; the weight w is eliminated in
   closed form, so the optimiser sees theta and v only); the best family wins;
2. the term is kept if new_loss / old_loss < ``ratio_tol``; each earlier term is then re-fitted
   against the residual without it (back-fitting), and all weights and the intercept are
   re-solved by least squares;
3. stop when the loss (MSE divided by the variance of the target) is below ``loss_tol``, when
   ``max_terms`` terms are in, or after ``patience`` consecutive rejected steps.

``SymbolicPursuitRegressor`` fits a real target (or, with ``link="logit"``, probabilities on the
logit scale); ``SymbolicPursuitClassifier`` is a binary classifier whose decision function is the
pursuit's sum on the logit scale, fitted to the 0/1 labels or to a black box's probabilities.
The ridge families are resolved from the registry in ``fit`` and kept on the fitted terms, so a
fitted model predicts and prints without the registry (and without its plugin).
"""

from __future__ import annotations

import logging
import math
import warnings

import numpy as np
from interp import InputError, RidgeFamily
from interp.preprocessing import binary_labels
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from .families import U_FLOOR, Ridge
from .terms import Candidate, Term, fit_term, projection

log = logging.getLogger("interp_symbolic")

__all__ = ["SymbolicPursuitRegressor", "SymbolicPursuitClassifier"]

PROBA_CLIP = 1e-6  # probabilities are clipped to [PROBA_CLIP, 1 - PROBA_CLIP] before the logit


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


class _SymbolicPursuit(BaseEstimator):
    """The pursuit shared by the regressor and the classifier (see the module docstring).

    Subclasses validate their target, turn it into a real target on the model's scale and
    call ``_pursue``; ``_logit_link`` says whether the model's sum is a logit (the expression and
    the probabilities then go through a sigmoid).  The ten parameters (more than eight: they are
    scikit-learn hyperparameters, stored as given) are documented on ``SymbolicPursuitRegressor``.
    """

    _logit_link = False

    def __init__(self, max_terms=3, loss_tol=1e-3, ratio_tol=0.9, patience=1, n_restarts=3,
                 maxiter=100, backfit=True, families=None, n_jobs=None, random_state=None):
        self.max_terms = max_terms
        self.loss_tol = loss_tol
        self.ratio_tol = ratio_tol
        self.patience = patience
        self.n_restarts = n_restarts
        self.maxiter = maxiter
        self.backfit = backfit
        self.families = families
        self.n_jobs = n_jobs
        self.random_state = random_state

    # ------------------------------------------------------------------ fitting
    def _check_params(self):
        if not (isinstance(self.max_terms, (int, np.integer)) and self.max_terms >= 1):
            raise InputError(f"max_terms must be a positive integer, got {self.max_terms!r}")
        if not (self.n_restarts >= 1 and self.maxiter >= 1):
            raise InputError("n_restarts and maxiter must be >= 1")

    def _validated(self, X, y, **checks):
        self._check_params()
        X, y = validate_data(self, X, y, dtype=np.float64, **checks)
        if X.shape[0] < 2:
            raise InputError(f"symbolic pursuit needs at least 2 rows, got n_samples = {X.shape[0]}")
        return X, y

    def _pursue(self, X, t):
        """Fit the terms to the real target ``t`` (on the model's scale) and set every learned
        attribute.  BLAS runs single-threaded: the problems are small, and multi-threading
        them only adds synchronisation."""
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1, user_api="blas"), np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            self.data_min_ = X.min(axis=0)
            rng_ = X.max(axis=0) - self.data_min_
            self.data_range_ = np.where(rng_ > 0, rng_, 1.0)
            Xs = self._scale(X)
            ridges = [Ridge(f) for f in _resolve_families(self.families)]
            self.families_ = [r.name for r in ridges]
            seed = self.random_state if self.random_state is not None else np.random.randint(2**31)
            terms = self._grow(ridges, Xs, t, seed)
            for tm in terms:
                lin = tm.linear(Xs)
                lo = max(U_FLOOR, float(lin.min()))
                tm.u_range = (lo, max(lo, float(lin.max())))
            self.terms_ = terms
            self.n_terms_ = len(terms)
            self._set_expression()
            self._importances(X)
        return self

    def _grow(self, ridges, Xs, t, seed):
        """The pursuit loop: add terms until ``max_terms``, ``loss_tol`` or ``patience`` stops it."""
        from interp.progress import Progress

        var = float(np.var(t))
        self.intercept_ = float(np.mean(t))
        scale = var if var > 0 else 1.0
        loss = float(np.mean((t - self.intercept_) ** 2)) / scale
        self.loss_history_ = [loss]
        self.family_log_ = []
        terms: list[Term] = []
        G = np.zeros((len(t), 0))
        rejected = step = 0
        bar = Progress("symbolic pursuit", total=self.max_terms)
        while len(terms) < self.max_terms and loss > self.loss_tol and rejected < self.patience:
            resid = t - self.intercept_ - (G @ np.array([tm.weight for tm in terms]) if terms else 0.0)
            best = self._best_candidate(ridges, Xs, resid, seed, step, scale)
            step += 1
            if best is None or not (best.loss / scale) / max(loss, 1e-300) < self.ratio_tol:
                rejected += 1
                continue
            rejected = 0
            terms.append(Term(ridges[self.families_.index(best.family)], best.theta, best.v, best.weight))
            G = self._design(terms, Xs)
            if self.backfit and len(terms) > 1:
                terms, G = self._backfit(terms, Xs, t, G)
            loss = self._refit_weights(terms, G, t) / scale
            self.loss_history_.append(loss)
            bar.update()
        bar.close()
        return terms

    def _best_candidate(self, ridges, Xs, resid, seed, step, scale) -> Candidate | None:
        """Every family's best new term for the residual at pursuit step ``step`` (from 0; logged
        in ``family_log_``); the best of them (ties: the earlier family), or None when every
        family failed."""
        cands = self._candidates(ridges, Xs, resid, seed, step)
        for c in cands:
            if not c.ok:
                log.info("step %d: family %s lost: %s", step + 1, c.family, c.reason)
        self.family_log_.append({c.family: (c.loss / scale if c.ok else c.reason) for c in cands})
        ok = [c for c in cands if c.ok]
        if not ok:
            return None
        return min(ok, key=lambda c: (c.loss, self.families_.index(c.family)))

    def _scale(self, X):
        return (X - self.data_min_) / self.data_range_

    def _starts(self, ridge, Xs, resid, rng):
        d = Xs.shape[1]
        v_ls, *_ = np.linalg.lstsq(Xs - Xs.mean(0), resid - resid.mean(), rcond=None)
        if not np.all(np.isfinite(v_ls)) or np.linalg.norm(v_ls) == 0:
            v_ls = np.ones(d)
        dirs = [np.abs(v_ls) + 1e-3, v_ls, np.ones(d)]
        starts = []
        for i in range(self.n_restarts):
            if i < len(dirs):
                v0 = dirs[i] / np.linalg.norm(dirs[i])
            else:
                v0 = np.abs(rng.standard_normal(d)) * np.sign(rng.standard_normal(d) + 0.5)
            th0 = ridge.init.copy()
            if i > 0 and ridge.orders is not None:
                m, n, p, q = ridge.orders
                th0[: p + q] += 0.1 * rng.standard_normal(p + q)
            starts.append((th0, v0))
        return starts

    def _candidates(self, ridges, Xs, resid, seed, step) -> list[Candidate]:
        jobs = []
        for fi, ridge in enumerate(ridges):
            rng = np.random.default_rng([int(seed) % (2**32), step, fi])
            for st in self._starts(ridge, Xs, resid, rng):
                jobs.append((fi, ridge, st))
        outs = Parallel(n_jobs=self.n_jobs)(
            delayed(fit_term)(ridge, Xs, resid, [st], self.maxiter) for fi, ridge, st in jobs
        )
        best: dict[int, Candidate] = {}
        for (fi, _, _), out in zip(jobs, outs):  # first-best in job order: independent of n_jobs
            if fi not in best or out.loss < best[fi].loss:
                best[fi] = out
        return [best[fi] for fi in sorted(best)]

    @staticmethod
    def _design(terms, Xs):
        cols = []
        for tm in terms:
            u, _ = projection(tm.v, Xs)
            cols.append(tm.ridge.value(tm.theta, u))
        return np.column_stack(cols) if cols else np.zeros((Xs.shape[0], 0))

    def _refit_weights(self, terms, G, t):
        A = np.column_stack([np.ones(len(t)), G])
        coef, *_ = np.linalg.lstsq(A, t, rcond=None)
        self.intercept_ = float(coef[0])
        for tm, w in zip(terms, coef[1:]):
            tm.weight = float(w)
        return float(np.mean((t - A @ coef) ** 2))

    def _backfit(self, terms, Xs, t, G):
        for li in range(len(terms) - 1):
            w = np.array([tm.weight for tm in terms])
            others = G @ w - G[:, li] * w[li]
            r = t - self.intercept_ - others
            gc = G[:, li] - G[:, li].mean()
            old = float(np.mean((r - r.mean() - w[li] * gc) ** 2))
            tm = terms[li]
            out = fit_term(tm.ridge, Xs, r, [(tm.theta, tm.v)], self.maxiter)
            if out.ok and out.loss < old:
                terms[li] = Term(tm.ridge, out.theta, out.v, out.weight)
                u, _ = projection(out.v, Xs)
                G[:, li] = tm.ridge.value(out.theta, u)
        return terms, G

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
            u, _ = tm.argument(Xs)
            out = out + tm.weight * tm.ridge.value(tm.theta, u)
        return out

    def _importances(self, X):
        """First- and second-order Taylor coefficients of the model's sum at the data mean."""
        x0 = X.mean(axis=0)
        self.taylor_point_ = x0
        d = X.shape[1]
        grad = np.zeros(d)
        hess = np.zeros((d, d))
        xs0 = self._scale(x0[None, :])
        for tm in self.terms_:
            u, inside = tm.argument(xs0)
            c = tm.v / (np.linalg.norm(tm.v) * math.sqrt(d)) / self.data_range_
            if not inside[0]:
                continue
            _, _, du = tm.ridge.value_and_grad(tm.theta, u, max_fallback=None)
            h = 1e-5 * max(u[0], 1e-2)
            _, _, dup = tm.ridge.value_and_grad(tm.theta, u + h, max_fallback=None)
            _, _, dum = tm.ridge.value_and_grad(tm.theta, u - h, max_fallback=None)
            g2 = (dup[0] - dum[0]) / (2 * h)
            grad += tm.weight * du[0] * c
            hess += tm.weight * g2 * np.outer(c, c)
        self.feature_importances_ = grad
        inter = hess.copy()
        inter[np.diag_indices(d)] /= 2.0
        self.interactions_ = inter

    # ---------------------------------------------------------------- rendering
    def to_latex(self) -> str:
        """The model's formula in LaTeX at full precision, every constant printable (see
        ``render.model_formula``: a classifier's is written with its link)."""
        from .render import model_formula

        check_is_fitted(self, "terms_")
        return model_formula(self, digits=None).latex_right

    def to_mathml(self) -> str:
        """The model's formula as presentation MathML, like :meth:`to_latex`."""
        from .render import model_formula

        check_is_fitted(self, "terms_")
        return model_formula(self, digits=None).mathml_right

    def numpy_function(self):
        """A numpy function f(X) compiled from ``expression_`` (columns in feature order)."""
        from .expression import lambdify_expression

        check_is_fitted(self, "terms_")
        return lambdify_expression(self)


class SymbolicPursuitRegressor(RegressorMixin, _SymbolicPursuit):
    """Symbolic Pursuit (Crabbe et al., NeurIPS 2020): a sum of Meijer G ridge functions.

    Parameters
    ----------
    max_terms : maximum number of terms K.
    loss_tol : stop once MSE / Var(y) is below this.
    ratio_tol : a new term is kept only if new_loss / old_loss < ratio_tol.
    patience : stop after this many consecutive rejected pursuit steps (each retry uses fresh
        random directions).
    n_restarts : starting points per family and term (the first from the family's initial
        parameters and the least-squares direction of the residual, the rest perturbed/random).
    maxiter : L-BFGS-B iterations per start.
    backfit : re-fit the earlier terms after each new term (eq. 12).
    families : names of registered ridge families to use (default: all registered).
    link : "identity" or "logit" (fit logit(y) for probabilities in [0, 1]; predictions
        through a sigmoid).
    n_jobs : joblib width over (family, start) jobs; the result does not depend on it.
    random_state : seed.
    """

    def __init__(self, max_terms=3, loss_tol=1e-3, ratio_tol=0.9, patience=1, n_restarts=3,
                 maxiter=100, backfit=True, families=None, link="identity", n_jobs=None,
                 random_state=None):
        super().__init__(max_terms=max_terms, loss_tol=loss_tol, ratio_tol=ratio_tol, patience=patience,
                         n_restarts=n_restarts, maxiter=maxiter, backfit=backfit, families=families,
                         n_jobs=n_jobs, random_state=random_state)
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
        return self._pursue(X, _log_odds(target))

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
