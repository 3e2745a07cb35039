"""Grid search over (beta = lam / gamma^2, gamma) with warm-started paths and K-fold CV."""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from interp import InputError, progress

from .estimators import (
    FacetsClassifier,
    FacetsRegressor,
    _check_eps,
    _check_max_iter,
    _check_positive,
    _check_snap_tol,
    fit_path,
    resolve_penalty,
    single_threaded_blas,
)
from .snap import on_grid, snap_to_grid
from .solver import check_solver, null_threshold, refit_scale, solve

__all__ = ["FacetsClassifierCV", "FacetsRegressorCV", "IntegrityWarning"]


class IntegrityWarning(UserWarning):
    """No grid point gave a fully integral model; the most integral one was chosen."""


def reference_magnitude(X, y_num, loss: str, fit_intercept: bool = True) -> float:
    """max |w| of a lightly ridge-penalised fit (lam = 1e-3): the scale of useful coefficients.

    The default gamma grid runs from this / 30 (scores up to about 30 points) to this (at most
    about one point per feature).
    """
    pen, hyper = resolve_penalty("l2")
    res = solve(X, y_num, loss=loss, penalty=pen, lam=1e-3, gamma=1.0, hyper=hyper,
                solver="newton", tol=1e-3, max_iter=2000, fit_intercept=fit_intercept)
    m = float(np.max(np.abs(res.u), initial=0.0))
    return m if m > 0 and np.isfinite(m) else 1.0


def _path_task(X, y_num, split, scorer, loss, pen, hyper, gamma, lams, solver, tol, max_iter,
               fit_intercept, snap_tol):
    """One warm-started path on a training set (the whole data when ``split`` is None), its
    models snapped to the grid (see .snap) and, for a CV fold, scored on the test part."""
    train = None if split is None else split[0]
    Xt, yt = (X, y_num) if train is None else (X[train], y_num[train])
    with warnings.catch_warnings(), single_threaded_blas():
        warnings.simplefilter("ignore")
        U, B, iters, conv = fit_path(Xt, yt, loss=loss, penalty=pen, hyper=hyper, gamma=gamma,
                                     lams=lams, solver=solver, tol=tol, max_iter=max_iter,
                                     fit_intercept=fit_intercept)
        U, gap = snap_to_grid(Xt, yt, U, B, loss=loss, penalty=pen, hyper=hyper, lams=lams,
                              gamma=gamma, tol=snap_tol)
        scores = None if split is None else scorer(X[split[1]], y_num[split[1]], U, B, gamma, Xt, yt)
    return U, B, iters, conv, gap == 0, scores


class _FacetsCVBase(BaseEstimator):
    _loss = "squared"
    _estimator_class = FacetsRegressor

    def __init__(self, gammas=24, betas=100, cv=5, *, gamma_range=None, beta_decades=5.0,
                 penalty="scf", eps=0.01, penalty_params=None, solver="newton", tol=1e-4,
                 max_iter=2000, fit_intercept=True, refit_scale=True, snap_tol=1e-4, n_jobs=None,
                 random_state=0):
        self.gammas = gammas
        self.betas = betas
        self.cv = cv
        self.gamma_range = gamma_range
        self.beta_decades = beta_decades
        self.penalty = penalty
        self.eps = eps
        self.penalty_params = penalty_params
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.fit_intercept = fit_intercept
        self.refit_scale = refit_scale
        self.snap_tol = snap_tol
        self.n_jobs = n_jobs
        self.random_state = random_state

    # ------------------------------------------------------------------ grid
    def _grid(self, X, y_num):
        if isinstance(self.gammas, numbers.Integral):
            if self.gamma_range is None:
                m = reference_magnitude(X, y_num, self._loss, self.fit_intercept)
                lo, hi = m / 30.0, m
            else:
                lo, hi = (_check_positive("gamma_range", g) for g in self.gamma_range)
            gammas = np.geomspace(lo, hi, int(self.gammas))
        else:
            gammas = np.array([_check_positive("gamma", g) for g in np.ravel(self.gammas)])
        if isinstance(self.betas, numbers.Integral):
            c = null_threshold(X, y_num, self._loss, self.fit_intercept)
            top = max(c, 1e-12) / gammas.min()
            betas = top * np.logspace(0, -float(self.beta_decades), int(self.betas))
        else:
            betas = np.array([_check_positive("beta", b) for b in np.ravel(self.betas)])
        if gammas.size == 0 or betas.size == 0:
            raise InputError("the (beta, gamma) grid is empty")
        return gammas, np.sort(betas)[::-1]

    def _splitter(self):
        if isinstance(self.cv, numbers.Integral):
            if self.cv < 2:
                raise InputError(f"cv must be at least 2 folds, got {self.cv}")
            if self._loss == "logistic":
                return StratifiedKFold(int(self.cv), shuffle=True, random_state=self.random_state)
            return KFold(int(self.cv), shuffle=True, random_state=self.random_state)
        return self.cv

    def _score(self, X, y_num, U, B, gamma, X_train=None, y_train=None):
        A = np.full(U.shape[0], gamma)
        if self.refit_scale and self.fit_intercept and X_train is not None:
            a, b = refit_scale(X_train @ U.T, y_train, self._loss)
            ok = (a > 0) & np.isfinite(a) & np.isfinite(b) & np.any(U != 0, axis=1)
            A = np.where(ok, a, A)
            B = np.where(ok, b, B)
        Z = A[:, None] * (U @ X.T) + B[:, None]  # (n_beta, n_test)
        if self._loss == "logistic":
            return np.mean(np.where(Z > 0, 1.0, -1.0) == y_num[None, :], axis=1)
        ss_res = np.sum((y_num[None, :] - Z) ** 2, axis=1)
        ss_tot = np.sum((y_num - y_num.mean()) ** 2)
        return 1 - ss_res / ss_tot if ss_tot > 0 else -ss_res

    # ------------------------------------------------------------------ fit
    def _fit_cv(self, X, y_num, y_orig):
        _check_positive("tol", self.tol)
        check_solver(self.solver)
        _check_max_iter(self.max_iter)
        snap_tol = _check_snap_tol(self.snap_tol)
        if self.eps is not None:
            _check_eps(self.eps)
        pen, hyper = resolve_penalty(self.penalty, self.eps, self.penalty_params)
        gammas, betas = self._grid(X, y_num)
        splitter = self._splitter()
        splits = list(splitter.split(X, y_orig) if hasattr(splitter, "split") else splitter)
        n_folds, ng, nb, d = len(splits), gammas.size, betas.size, X.shape[1]
        tasks = [(k, g) for k in range(n_folds + 1) for g in range(ng)]
        jobs = (
            delayed(_path_task)(X, y_num, None if k == n_folds else splits[k], self._score, self._loss,
                                pen, hyper, gammas[g], betas * gammas[g] ** 2, self.solver, self.tol,
                                self.max_iter, self.fit_intercept, snap_tol)
            for k, g in tasks
        )
        outputs = Parallel(n_jobs=self.n_jobs, return_as="generator")(jobs)
        scores = np.zeros((n_folds, ng, nb))
        integ = np.zeros((n_folds + 1, ng, nb))
        strict = np.zeros((n_folds + 1, ng, nb), dtype=bool)  # integral before any snap
        integ_nz = np.full((ng, nb), np.nan)
        max_abs = np.zeros((n_folds + 1, ng, nb))
        l1 = np.zeros((n_folds + 1, ng, nb))
        nnz = np.zeros((n_folds + 1, ng, nb), dtype=int)
        coefs = np.zeros((ng, nb, d))
        inters = np.zeros((ng, nb))
        iters = np.zeros((ng, nb), dtype=int)
        converged = np.ones((ng, nb), dtype=bool)
        track = progress.track(outputs, "facets grid", total=len(tasks))
        for i, (U, B, it, conv, exact, fold_scores) in enumerate(track):
            k, g = tasks[i]
            strict[k, g] = exact
            on = on_grid(U)
            W = gammas[g] * U
            integ[k, g] = on.mean(axis=1) if d else 1.0
            max_abs[k, g] = np.max(np.abs(W), axis=1, initial=0.0)
            l1[k, g] = np.sum(np.abs(W), axis=1)
            nnz[k, g] = np.sum(W != 0, axis=1)
            if k == n_folds:
                coefs[g], inters[g], iters[g], converged[g] = W, B, it, conv
                nz = (W != 0) | ~on
                with np.errstate(invalid="ignore"):
                    integ_nz[g] = np.where(nz.any(axis=1), (on & nz).sum(axis=1) / nz.sum(axis=1), np.nan)
            else:
                scores[k, g] = fold_scores
        self._store_cv(gammas, betas, scores, integ, strict, integ_nz, max_abs, l1, nnz, coefs, inters,
                       iters, converged, n_folds)

    def _store_cv(self, gammas, betas, scores, integ, strict, integ_nz, max_abs, l1, nnz, coefs, inters,
                  iters, converged, n_folds):
        G, Bt = np.meshgrid(gammas, betas, indexing="ij")
        mean_score = scores.mean(axis=0)
        full = n_folds
        null = nnz[full] == 0
        fully = (integ[:full].min(axis=0) == 1.0) & (integ[full] == 1.0) & ~null
        res = {
            "param_gamma": G.ravel(),
            "param_beta": Bt.ravel(),
            "param_lam": (Bt * G**2).ravel(),
            "param_alpha": (Bt * G).ravel(),
        }
        for k in range(n_folds):
            res[f"split{k}_test_score"] = scores[k].ravel()
        res["mean_test_score"] = mean_score.ravel()
        res["std_test_score"] = scores.std(axis=0).ravel()
        order = np.argsort(-res["mean_test_score"], kind="stable")
        rank = np.empty(order.size, dtype=int)
        rank[order] = np.arange(1, order.size + 1)
        res["rank_test_score"] = rank
        res["mean_integrity"] = integ[:full].mean(axis=0).ravel()
        res["integrity"] = integ[full].ravel()
        res["integrity_nonzero"] = integ_nz.ravel()
        res["max_abs"] = max_abs[full].ravel()
        res["l1"] = l1[full].ravel()
        res["nonzeros"] = nnz[full].ravel()
        res["mean_max_abs"] = max_abs[:full].mean(axis=0).ravel()
        res["mean_l1"] = l1[:full].mean(axis=0).ravel()
        res["mean_nonzeros"] = nnz[:full].mean(axis=0).ravel()
        res["null"] = null.ravel()
        res["fully_integral"] = fully.ravel()
        res["fully_integral_strict"] = (strict.all(axis=0) & ~null).ravel()
        res["n_iter"] = iters.ravel()
        res["converged"] = converged.ravel()
        self.cv_results_ = res
        self.gammas_, self.betas_ = gammas, betas
        self.coefs_path_, self.intercepts_path_ = coefs, inters

        score = res["mean_test_score"]
        points_l1 = res["l1"] / res["param_gamma"]
        if fully.any():
            cand = np.flatnonzero(fully.ravel())
            self.selected_integral_ = True
        else:
            integ_full = res["integrity"].copy()
            integ_full[null.ravel()] = -1.0
            best_int = integ_full.max()
            cand = np.flatnonzero(integ_full == best_int)
            self.selected_integral_ = False
            warnings.warn(
                "no grid point gave a non-null model integral on every CV fold and on the full "
                f"data; choosing the most integral one on the full data (integrity "
                f"{max(best_int, 0):.3f}); widen the grid (larger gamma or beta)",
                IntegrityWarning,
                stacklevel=3,
            )
        # best CV score; ties (within 1e-12) -> fewest points in total, then strongest beta
        best_score = score[cand].max()
        tied = cand[score[cand] >= best_score - 1e-12]
        key = np.lexsort((-res["param_beta"][tied], points_l1[tied]))
        best = int(tied[key[0]])
        self.best_index_ = best
        self.best_score_ = float(score[best])
        self.best_gamma_ = float(res["param_gamma"][best])
        self.best_beta_ = float(res["param_beta"][best])
        self.best_lam_ = float(res["param_lam"][best])
        self.n_integral_ = int(fully.sum())
        self.n_null_ = int(null.sum())

    def _refit(self, X, y):
        g, b = np.unravel_index(self.best_index_, (self.gammas_.size, self.betas_.size))
        est = self._estimator_class(
            lam=self.best_lam_, gamma=self.best_gamma_, penalty=self.penalty, eps=self.eps,
            penalty_params=self.penalty_params, solver=self.solver, tol=self.tol,
            max_iter=self.max_iter, fit_intercept=self.fit_intercept, refit_scale=self.refit_scale,
            snap_tol=self.snap_tol, warm_start=True,
        )
        # warm start from the path's solution: same fixed point, a handful of iterations
        est.coef_grid_ = self.coefs_path_[g, b] / self.best_gamma_
        est.intercept_raw_ = float(self.intercepts_path_[g, b])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X, y)
        est.warm_start = False
        self.best_estimator_ = est
        self.coef_ = est.coef_
        self.intercept_ = est.intercept_
        self.points_ = est.points_
        self.integrity_ = est.integrity_
        self.integrity_nonzero_ = est.integrity_nonzero_
        # iterations of the warm-started chain that led to the chosen point, plus the refit
        order = np.argsort(-self.betas_, kind="stable")
        upto = order[: int(np.flatnonzero(order == b)[0]) + 1]
        self.n_iter_ = int(self.cv_results_["n_iter"].reshape(self.gammas_.size, -1)[g, upto].sum()
                           + est.n_iter_)
        self.gamma_ = est.gamma_
        self.scale_ = est.scale_

    def heatmap(self, key: str = "mean_test_score") -> np.ndarray:
        """A cv_results_ column reshaped to (n_gammas, n_betas)."""
        check_is_fitted(self, "cv_results_")
        return np.asarray(self.cv_results_[key]).reshape(self.gammas_.size, self.betas_.size)


class FacetsClassifierCV(ClassifierMixin, _FacetsCVBase):
    """FacetsClassifier with (beta = lam / gamma^2, gamma) chosen by K-fold CV accuracy.

    For each fold and each gamma, one warm-started path runs from the strongest beta (null model)
    down; the same paths on the whole data give the delivered models.  Among the grid points whose
    models are fully integral (every fold and the full-data fit, zeros included) and not null, the
    best mean CV accuracy wins (ties: fewest points in total, then the strongest beta).  When no
    point is fully integral an ``IntegrityWarning`` is raised and the most integral point is used.

    Each path model is first snapped to the grid when that raises its objective by at most
    ``snap_tol`` (default 1e-4; 0 for the strict test; see FacetsClassifier), then, with
    ``refit_scale`` (default), its scale and intercept are re-fitted on the training fold with
    its points frozen, before it is scored.

    ``gammas``/``betas``: counts (geometric grids: gamma over ``gamma_range``, by default from
    m / 30 to m with m the largest coefficient of a lightly ridge-penalised fit; beta over
    ``beta_decades`` decades below the null threshold at the smallest gamma) or explicit arrays.
    Attributes: ``cv_results_`` (per grid point: CV scores, integrity, magnitude max|w| and L1,
    nonzeros, ...), ``best_*_``, ``best_estimator_``, ``coefs_path_`` (n_gammas, n_betas, d),
    ``n_integral_``, ``n_null_``, and ``coef_``/``intercept_``/``integrity_`` of the best model.
    """

    _loss = "logistic"
    _estimator_class = FacetsClassifier

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        classes = np.unique(y)
        if classes.size != 2:
            raise InputError(
                "Only binary classification is supported: FacetsClassifierCV needs a binary "
                f"target; got {classes.size} classes"
            )
        self.classes_ = classes
        y_num = np.where(y == classes[1], 1.0, -1.0)
        self._fit_cv(X, y_num, y)
        self._refit(X, y)
        return self

    def decision_function(self, X):
        check_is_fitted(self, "best_estimator_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self.best_estimator_.decision_function(X)

    def predict(self, X):
        scores = self.decision_function(X)
        return self.classes_[(scores > 0).astype(int)]

    def predict_proba(self, X):
        check_is_fitted(self, "best_estimator_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self.best_estimator_.predict_proba(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


class FacetsRegressorCV(RegressorMixin, _FacetsCVBase):
    """FacetsRegressor with (beta, gamma) chosen by K-fold CV R^2 (see FacetsClassifierCV)."""

    _loss = "squared"
    _estimator_class = FacetsRegressor

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        y = np.asarray(y, dtype=float)
        self._fit_cv(X, y, y)
        self._refit(X, y)
        return self

    def _refit(self, X, y):
        super()._refit(X, y)
        self.intercept_ = float(np.ravel(self.intercept_)[0])

    def predict(self, X):
        check_is_fitted(self, "best_estimator_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self.best_estimator_.predict(X)
