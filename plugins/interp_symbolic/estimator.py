"""SymbolicPursuitRegressor: a closed-form model sum_k w_k g_k(ReLU(v_k . x')) of a black box.

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
3. stop when the loss (MSE divided by the variance of y) is below ``loss_tol``, when
   ``max_terms`` terms are in, or after ``patience`` consecutive rejected steps.
"""

from __future__ import annotations

import logging
import math
import warnings
from typing import Any

import numpy as np
from joblib import Parallel, delayed
from scipy.optimize import minimize
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .families import U_FLOOR, Ridge

log = logging.getLogger("interp_symbolic")

__all__ = ["SymbolicPursuitRegressor", "SymbolicPursuitClassifier", "Term"]

BIG = 1e30


class Term:
    """One fitted term w * g(u(v . x')) of the model."""

    def __init__(self, family: str, theta, v, weight: float, orders=None):
        self.family = family
        self.theta = np.asarray(theta, dtype=float)
        self.v = np.asarray(v, dtype=float)
        self.weight = float(weight)
        self.orders = orders
        self.closed_form = None  # sympy g(u) in the feature names, set with the expression
        self.u_range = None  # (lo, hi): u is clipped to the training range when predicting

    def as_dict(self) -> dict:
        d: dict[str, Any] = dict(family=self.family, theta=self.theta.tolist(), direction=self.v.tolist(),
                                 weight=self.weight,
                                 closed_form=None if self.closed_form is None else str(self.closed_form),
                                 u_range=None if self.u_range is None else list(self.u_range))
        if self.orders is not None:
            m, n, p, q = self.orders
            d.update(orders=list(self.orders), a=self.theta[:p].tolist(), b=self.theta[p:p + q].tolist(),
                     scale=float(self.theta[p + q]), power=float(self.theta[p + q + 1]))
        return d

    def __repr__(self) -> str:
        return f"Term({self.family}, w={self.weight:.4g})"


def _resolve_families(names):
    from interp import get_registry
    from interp.registry import resolve

    reg = get_registry().ridge_families
    if names is None:
        fams = list(reg.values())
    else:
        fams = [resolve("ridge_families", n) for n in names]
    if not fams:
        from interp import InputError

        raise InputError("no ridge families are registered")
    return fams


def _projection(v, Xs):
    """u = max(U_FLOOR, v.x / (||v|| sqrt(d))) and du/dv (N, d) (zero where floored)."""
    d = Xs.shape[1]
    nv = np.linalg.norm(v)
    if not np.isfinite(nv) or nv == 0:
        return None, None
    c = 1.0 / (nv * math.sqrt(d))
    t = Xs @ v * c
    live = t > U_FLOOR
    u = np.where(live, t, U_FLOOR)
    du_dv = (Xs * c - np.outer(t, v) / nv**2) * live[:, None]
    return u, du_dv


def _term_u(tm, Xs):
    """The ridge argument of a fitted term, clipped to its training range (no extrapolation)."""
    d = Xs.shape[1]
    lin = Xs @ tm.v / (np.linalg.norm(tm.v) * math.sqrt(d))
    lo, hi = tm.u_range if tm.u_range is not None else (U_FLOOR, np.inf)
    return np.clip(lin, lo, hi), (lin > lo) & (lin < hi)


def _term_objective(ridge: Ridge, Xs, r, P):
    """f(params) -> (loss, grad) for params = (theta, v); weight and offset eliminated."""
    n = len(r)
    r = r - r.mean()
    rr = float(r @ r) / n

    def f(params):
        theta, v = params[:P], params[P:]
        u, du_dv = _projection(v, Xs)
        if u is None:
            return BIG, np.zeros_like(params)
        try:
            with np.errstate(all="ignore"):
                g, dth, du = ridge.value_and_grad(theta, u)
        except Exception:  # noqa: BLE001 - a failing family loses, it never aborts the fit
            return BIG, np.zeros_like(params)
        gc = g - g.mean()
        gg = float(gc @ gc)
        if not (np.isfinite(gg) and np.all(np.isfinite(dth)) and np.all(np.isfinite(du))) or gg < 1e-300:
            return BIG, np.zeros_like(params)
        rg = float(r @ gc)
        w = rg / gg
        loss = rr - rg * w / n
        resid = r - w * gc
        coef = -2.0 * w / n * resid  # d loss / d g (envelope: dw drops out)
        grad = np.concatenate([dth @ coef, du_dv.T @ (coef * du)])
        if not np.all(np.isfinite(grad)):
            return BIG, np.zeros_like(params)
        return loss, grad

    return f


def _fit_term(ridge: Ridge, Xs, r, starts, maxiter):
    """Best (loss, theta, v, w) over the starting points; never raises."""
    P = len(ridge.init)
    f = _term_objective(ridge, Xs, r, P)
    best = (math.inf, None, None, "no finite evaluation")
    bounds = list(ridge.bounds) + [(None, None)] * Xs.shape[1]
    for theta0, v0 in starts:
        x0 = np.concatenate([theta0, v0])
        seen = {"loss": math.inf, "x": None}

        def fun(x):
            val, grad = f(x)
            if val < seen["loss"]:
                seen["loss"], seen["x"] = val, x.copy()
            return val, grad

        try:
            minimize(fun, x0, jac=True, method="L-BFGS-B", bounds=bounds,
                     options={"maxiter": maxiter, "ftol": 1e-12, "gtol": 1e-9})
        except Exception as exc:  # noqa: BLE001
            log.info("family %s: optimisation failed: %s", ridge.name, exc)
        if seen["x"] is not None and seen["loss"] < best[0]:
            best = (seen["loss"], seen["x"][:P], seen["x"][P:], "")
    loss, theta, v, why = best
    if theta is None or loss >= BIG / 2:
        return dict(family=ridge.name, loss=math.inf, reason=why or "evaluation failed")
    u, _ = _projection(v, Xs)
    g = ridge.value(theta, u, max_fallback=None)
    gc = g - g.mean()
    rc = r - r.mean()
    if not np.all(np.isfinite(g)) or float(gc @ gc) == 0:
        return dict(family=ridge.name, loss=math.inf, reason="non-finite values at the optimum")
    w = float(rc @ gc) / float(gc @ gc)
    loss = float(np.mean((rc - w * gc) ** 2))
    return dict(family=ridge.name, loss=loss, theta=theta, v=v, w=w, reason="")


class SymbolicPursuitRegressor(RegressorMixin, BaseEstimator):
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
    link : "identity" or "logit" (fit logit(y) for probability outputs; predictions through a
        sigmoid).
    n_jobs : joblib width over (family, start) jobs; the result does not depend on it.
    random_state : seed.
    """

    def __init__(self, max_terms=3, loss_tol=1e-3, ratio_tol=0.9, patience=1, n_restarts=3,
                 maxiter=100, backfit=True, families=None, link="identity", n_jobs=None,
                 random_state=None):
        self.max_terms = max_terms
        self.loss_tol = loss_tol
        self.ratio_tol = ratio_tol
        self.patience = patience
        self.n_restarts = n_restarts
        self.maxiter = maxiter
        self.backfit = backfit
        self.families = families
        self.link = link
        self.n_jobs = n_jobs
        self.random_state = random_state

    # ------------------------------------------------------------------ fitting
    def _check_params(self):
        from interp import InputError

        if not (isinstance(self.max_terms, (int, np.integer)) and self.max_terms >= 1):
            raise InputError(f"max_terms must be a positive integer, got {self.max_terms!r}")
        if self.link not in ("identity", "logit"):
            raise InputError(f"link must be 'identity' or 'logit', got {self.link!r}")
        if not (self.n_restarts >= 1 and self.maxiter >= 1):
            raise InputError("n_restarts and maxiter must be >= 1")

    def _target(self, y):
        if self.link == "logit":
            p = np.clip(y, 1e-6, 1 - 1e-6)
            return np.log(p / (1 - p))
        return y

    def fit(self, X, y):
        from threadpoolctl import threadpool_limits

        # the problems are small: multi-threaded BLAS only adds synchronisation (2x slower)
        with threadpool_limits(limits=1, user_api="blas"), np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return self._fit(X, y)

    def _fit(self, X, y):
        from interp import InputError

        self._check_params()
        X, y = validate_data(self, X, y, y_numeric=True, dtype=np.float64)
        y = np.asarray(y, dtype=float)
        if X.shape[0] < 2:
            raise InputError(f"symbolic pursuit needs at least 2 rows, got n_samples = {X.shape[0]}")
        if self.link == "logit" and (y.min() < 0 or y.max() > 1):
            raise InputError("link='logit' needs probabilities in [0, 1] as targets")
        t = self._target(y)
        self.data_min_ = X.min(axis=0)
        rng_ = X.max(axis=0) - self.data_min_
        self.data_range_ = np.where(rng_ > 0, rng_, 1.0)
        Xs = self._scale(X)
        ridges = [Ridge(f) for f in _resolve_families(self.families)]
        self.families_ = [r.name for r in ridges]
        seed = self.random_state if self.random_state is not None else np.random.randint(2**31)
        var = float(np.var(t))
        self.intercept_ = float(np.mean(t))
        terms: list[Term] = []
        G = np.zeros((len(t), 0))
        scale = var if var > 0 else 1.0
        loss = float(np.mean((t - self.intercept_) ** 2)) / scale
        self.loss_history_ = [loss]
        self.family_log_ = []
        rejected = 0
        step = 0
        from interp.progress import Progress

        bar = Progress("symbolic pursuit", total=self.max_terms)
        while len(terms) < self.max_terms and loss > self.loss_tol and rejected < self.patience:
            resid = t - self.intercept_ - (G @ np.array([tm.weight for tm in terms]) if terms else 0.0)
            cands = self._candidates(ridges, Xs, resid, seed, step)
            step += 1
            ok = [c for c in cands if np.isfinite(c["loss"])]
            for c in cands:
                if not np.isfinite(c["loss"]):
                    log.info("step %d: family %s lost: %s", step, c["family"], c["reason"])
            self.family_log_.append({c["family"]: (c["loss"] / scale if np.isfinite(c["loss"]) else c["reason"])
                                     for c in cands})
            if not ok:
                rejected += 1
                continue
            best = min(ok, key=lambda c: (c["loss"], self.families_.index(c["family"])))
            new_loss = best["loss"] / scale
            if not new_loss / max(loss, 1e-300) < self.ratio_tol:
                rejected += 1
                continue
            rejected = 0
            ridge = ridges[self.families_.index(best["family"])]
            terms.append(Term(best["family"], best["theta"], best["v"], best["w"], ridge.orders))
            G = self._design(terms, Xs, ridges)
            if self.backfit and len(terms) > 1:
                terms, G = self._backfit(terms, Xs, t, ridges, G)
            loss = self._refit_weights(terms, G, t) / scale
            self.loss_history_.append(loss)
            bar.update()
        bar.close()
        d = Xs.shape[1]
        for tm in terms:
            lin = Xs @ tm.v / (np.linalg.norm(tm.v) * math.sqrt(d))
            lo = max(U_FLOOR, float(lin.min()))
            tm.u_range = (lo, max(lo, float(lin.max())))
        self.terms_ = terms
        self.n_terms_ = len(terms)
        self.expression_ = None
        from .expression import build_expression

        try:
            self.expression_ = build_expression(self)
        except Exception as exc:  # noqa: BLE001 - the numeric model stays usable
            log.warning("could not build the sympy expression: %s", exc)
        self._importances(X)
        return self

    def _scale(self, X):
        return (X - self.data_min_) / self.data_range_

    def _starts(self, ridge, Xs, resid, rng):
        d = Xs.shape[1]
        A = np.column_stack([Xs - Xs.mean(0)])
        v_ls, *_ = np.linalg.lstsq(A, resid - resid.mean(), rcond=None)
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

    def _candidates(self, ridges, Xs, resid, seed, step):
        jobs = []
        for fi, ridge in enumerate(ridges):
            rng = np.random.default_rng([int(seed) % (2**32), step, fi])
            for st in self._starts(ridge, Xs, resid, rng):
                jobs.append((fi, ridge, st))
        outs = Parallel(n_jobs=self.n_jobs)(
            delayed(_fit_term)(ridge, Xs, resid, [st], self.maxiter) for fi, ridge, st in jobs
        )
        best: dict[int, dict] = {}
        for (fi, _, _), out in zip(jobs, outs):  # first-best in job order: independent of n_jobs
            if fi not in best or out["loss"] < best[fi]["loss"]:
                best[fi] = out
        return [best[fi] for fi in sorted(best)]

    def _design(self, terms, Xs, ridges=None):
        cols = []
        for tm in terms:
            ridge = self._ridge(tm.family, ridges)
            u, _ = _projection(tm.v, Xs)
            cols.append(ridge.value(tm.theta, u))
        return np.column_stack(cols) if cols else np.zeros((Xs.shape[0], 0))

    def _ridge(self, name, ridges=None):
        if ridges is not None:
            for r in ridges:
                if r.name == name:
                    return r
        from interp.registry import resolve

        return Ridge(resolve("ridge_families", name))

    def _refit_weights(self, terms, G, t):
        A = np.column_stack([np.ones(len(t)), G])
        coef, *_ = np.linalg.lstsq(A, t, rcond=None)
        self.intercept_ = float(coef[0])
        for tm, w in zip(terms, coef[1:]):
            tm.weight = float(w)
        return float(np.mean((t - A @ coef) ** 2))

    def _backfit(self, terms, Xs, t, ridges, G):
        for li in range(len(terms) - 1):
            w = np.array([tm.weight for tm in terms])
            others = G @ w - G[:, li] * w[li]
            r = t - self.intercept_ - others
            gc = G[:, li] - G[:, li].mean()
            old = float(np.mean((r - r.mean() - w[li] * gc) ** 2))
            tm = terms[li]
            ridge = self._ridge(tm.family, ridges)
            out = _fit_term(ridge, Xs, r, [(tm.theta, tm.v)], self.maxiter)
            if np.isfinite(out["loss"]) and out["loss"] < old:
                terms[li] = Term(tm.family, out["theta"], out["v"], out["w"], ridge.orders)
                u, _ = _projection(out["v"], Xs)
                G[:, li] = ridge.value(out["theta"], u)
        return terms, G

    # ---------------------------------------------------------------- predicting
    def _decision(self, X):
        check_is_fitted(self, "terms_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        Xs = self._scale(X)
        out = np.full(X.shape[0], self.intercept_)
        for tm in self.terms_:
            u, _ = _term_u(tm, Xs)
            out = out + tm.weight * self._ridge(tm.family).value(tm.theta, u)
        return out

    def predict(self, X):
        f = self._decision(X)
        if self.link == "logit":
            return 1.0 / (1.0 + np.exp(-f))
        return f

    def _importances(self, X):
        """First- and second-order Taylor coefficients of the model at the data mean."""
        x0 = X.mean(axis=0)
        self.taylor_point_ = x0
        d = X.shape[1]
        grad = np.zeros(d)
        hess = np.zeros((d, d))
        xs0 = self._scale(x0[None, :])
        for tm in self.terms_:
            ridge = self._ridge(tm.family)
            u, inside = _term_u(tm, xs0)
            c = tm.v / (np.linalg.norm(tm.v) * math.sqrt(d)) / self.data_range_
            if not inside[0]:
                continue
            _, _, du = ridge.value_and_grad(tm.theta, u, max_fallback=None)
            h = 1e-5 * max(u[0], 1e-2)
            _, _, dup = ridge.value_and_grad(tm.theta, u + h, max_fallback=None)
            _, _, dum = ridge.value_and_grad(tm.theta, u - h, max_fallback=None)
            g2 = (dup[0] - dum[0]) / (2 * h)
            grad += tm.weight * du[0] * c
            hess += tm.weight * g2 * np.outer(c, c)
        self.feature_importances_ = grad
        inter = hess.copy()
        inter[np.diag_indices(d)] /= 2.0
        self.interactions_ = inter

    # ---------------------------------------------------------------- rendering
    def to_latex(self) -> str:
        import sympy

        check_is_fitted(self, "terms_")
        return sympy.latex(self.expression_)

    def to_mathml(self) -> str:
        import sympy

        check_is_fitted(self, "terms_")
        return sympy.mathml(self.expression_, printer="presentation")

    def numpy_function(self):
        """A numpy function f(X) compiled from ``expression_`` (columns in feature order)."""
        from .expression import lambdify_expression

        check_is_fitted(self, "terms_")
        return lambdify_expression(self)


class SymbolicPursuitClassifier(SymbolicPursuitRegressor):
    """Symbolic pursuit for a probability-output black box: logit link, sigmoid predictions.

    ``fit(X, p)`` with p the black box's probability of the positive class; ``predict_proba``
    returns the two columns, ``predict`` the symbolic probability of the positive class.
    """

    def __init__(self, max_terms=3, loss_tol=1e-3, ratio_tol=0.9, patience=1, n_restarts=3,
                 maxiter=100, backfit=True, families=None, link="logit", n_jobs=None,
                 random_state=None):
        super().__init__(max_terms=max_terms, loss_tol=loss_tol, ratio_tol=ratio_tol, patience=patience,
                         n_restarts=n_restarts, maxiter=maxiter, backfit=backfit, families=families,
                         link=link, n_jobs=n_jobs, random_state=random_state)

    def predict_proba(self, X):
        p = self.predict(X)
        return np.column_stack([1 - p, p])
