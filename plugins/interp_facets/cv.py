"""Grid search over (beta = lam / gamma^2, gamma) with warm-started paths and K-fold CV."""

from __future__ import annotations

import numbers
import warnings

import attrs
import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.model_selection import KFold, StratifiedKFold, train_test_split
from sklearn.utils.validation import check_is_fitted, validate_data

from interp import InputError, progress

from interp.blas import single_threaded_blas
from .estimators import FacetsClassifier, FacetsRegressor, binary_target
from .export import CardExports
from .path import fit_path
from .penalties import L2
from .problem import Objective, null_threshold
from .refit import refit_scale, usable
from .pool import card_pool, check_pool, feature_shares, pool_table
from .search import GridSearch, local_search, search_grid
from .space import CardSpace, DataDirections, RowLimits, group_labels, space_of
from .snap import integrity_rows, snap_to_grid
from .solver import SolverOptions, solve
from .validation import (MAX_CV_ROWS, check_eps, check_fit_memory, check_max_cv_rows, check_max_iter,
                         check_positive, check_snap_tol, check_solver, check_card_ridge, resolve_penalty)

__all__ = ["FacetsClassifierCV", "FacetsRegressorCV", "IntegrityWarning", "reference_magnitude", "grid_load"]

#: the default grid (gammas, betas) without and with ``max_rows``: with it, each gamma's path
#: only seeds the card search (and stops at max_rows rows), so a few points suffice
GRID, ROWS_GRID = (24, 100), (3, 12)


def grid_load(gammas, betas, *, max_rows, folds: int, n_jobs) -> tuple[int, int]:
    """(grid points, paths run at once) of a search whose grid is given as counts (None:
    :data:`GRID`, or :data:`ROWS_GRID` with ``max_rows``, any truthy value: a card search) or
    as arrays of values: the card search runs its paths one at a time, the CV grid ``n_jobs``
    of its (fold, gamma) paths at once."""
    def size(given, default: int) -> int:
        if given is None:
            return default
        return int(given) if isinstance(given, numbers.Integral) else int(np.size(given))

    default = ROWS_GRID if max_rows else GRID
    ng, nb = size(gammas, default[0]), size(betas, default[1])
    return ng * nb, 1 if max_rows else min(effective_n_jobs(n_jobs), (folds + 1) * ng)


class IntegrityWarning(UserWarning):
    """No grid point gave a fully integral model; the most integral one was chosen."""


def reference_magnitude(X, y_num, loss: str, fit_intercept: bool = True) -> float:
    """max |w| of a lightly ridge-penalised fit (lam = 1e-3): the scale of useful coefficients.

    The default gamma grid runs from this / 30 (scores up to about 30 points) to this (at most
    about one point per feature).
    """
    res = solve(X, y_num, Objective(loss, L2, fit_intercept=fit_intercept), 1e-3,
                SolverOptions("newton", tol=1e-3, max_iter=2000))
    m = float(np.max(np.abs(res.u), initial=0.0))
    return m if m > 0 and np.isfinite(m) else 1.0


@attrs.frozen(eq=False)
class PathTask:
    """What one path task returns: the snapped ``coefs`` (n_betas, d) in grid units, the
    ``intercepts``, ``n_iter`` and ``converged`` per fit, ``strict`` (integral before any snap)
    and, for a CV fold, the test ``scores`` (None on the whole data)."""

    coefs: np.ndarray
    intercepts: np.ndarray
    n_iter: np.ndarray
    converged: np.ndarray
    strict: np.ndarray
    scores: np.ndarray | None


def path_task(X, y_num, split, objective: Objective, lams, options: SolverOptions, snap_tol: float,
              scorer) -> PathTask:
    """One warm-started path on a training set (the whole data when ``split`` is None), its
    models snapped to the grid (see .snap) and, for a CV fold, scored on the test part by
    ``scorer(X_test, y_test, U, B, gamma, X_train, y_train)``."""
    X = np.ascontiguousarray(X)  # the layout decides how BLAS sums: the same wherever the task runs
    train = None if split is None else split[0]
    Xt, yt = (X, y_num) if train is None else (X[train], y_num[train])
    with warnings.catch_warnings(), single_threaded_blas():
        warnings.simplefilter("ignore")
        path = fit_path(Xt, yt, objective, lams, options)
        U, gap = snap_to_grid(Xt, yt, path.coefs, path.intercepts, objective, lams, snap_tol)
        scores = None
        if split is not None:
            scores = scorer(X[split[1]], y_num[split[1]], U, path.intercepts, objective.gamma, Xt, yt)
    return PathTask(U, path.intercepts, path.n_iter, path.converged, gap == 0, scores)


@attrs.define(eq=False)
class GridTally:
    """The path tasks' outputs gathered over the (gamma, beta) grid.

    Arrays indexed by ``[k, g, b]`` have one row ``k`` per CV fold and a last one (``k ==
    n_folds``) for the whole data; the others are the whole data's.
    """

    n_folds: int
    scores: np.ndarray  # (n_folds, ng, nb) test scores
    integrity: np.ndarray  # fraction of coefficients on the grid
    strict: np.ndarray  # integral before any snap
    integrity_nonzero: np.ndarray  # (ng, nb)
    max_abs: np.ndarray
    l1: np.ndarray
    nonzeros: np.ndarray
    coefs: np.ndarray  # (ng, nb, d) in the model's units
    intercepts: np.ndarray  # (ng, nb)
    n_iter: np.ndarray  # (ng, nb)
    converged: np.ndarray  # (ng, nb)

    @classmethod
    def empty(cls, n_folds: int, ng: int, nb: int, d: int) -> "GridTally":
        per_fit = (n_folds + 1, ng, nb)
        return cls(n_folds=n_folds, scores=np.zeros((n_folds, ng, nb)), integrity=np.zeros(per_fit),
                   strict=np.zeros(per_fit, dtype=bool), integrity_nonzero=np.full((ng, nb), np.nan),
                   max_abs=np.zeros(per_fit), l1=np.zeros(per_fit), nonzeros=np.zeros(per_fit, dtype=int),
                   coefs=np.zeros((ng, nb, d)), intercepts=np.zeros((ng, nb)),
                   n_iter=np.zeros((ng, nb), dtype=int), converged=np.ones((ng, nb), dtype=bool))

    def add(self, k: int, g: int, gamma: float, task: PathTask) -> None:
        """Record the path of fold ``k`` (the whole data when ``k == n_folds``) at gamma index ``g``."""
        whole, nonzero = integrity_rows(task.coefs)
        W = gamma * task.coefs
        self.strict[k, g] = task.strict
        self.integrity[k, g] = whole
        self.max_abs[k, g] = np.max(np.abs(W), axis=1, initial=0.0)
        self.l1[k, g] = np.sum(np.abs(W), axis=1)
        self.nonzeros[k, g] = np.sum(W != 0, axis=1)
        if k < self.n_folds:
            self.scores[k, g] = task.scores
            return
        self.coefs[g], self.intercepts[g] = W, task.intercepts
        self.n_iter[g], self.converged[g] = task.n_iter, task.converged
        self.integrity_nonzero[g] = nonzero

    def cv_results(self, gammas: np.ndarray, betas: np.ndarray) -> dict:
        """``cv_results_``: one entry per grid point (gamma-major), as scikit-learn's searches."""
        G, Bt = np.meshgrid(gammas, betas, indexing="ij")
        full = self.n_folds
        null = self.nonzeros[full] == 0
        fully = (self.integrity[:full].min(axis=0) == 1.0) & (self.integrity[full] == 1.0) & ~null
        res = {
            "param_gamma": G.ravel(),
            "param_beta": Bt.ravel(),
            "param_lam": (Bt * G**2).ravel(),
            "param_alpha": (Bt * G).ravel(),
        }
        for k in range(self.n_folds):
            res[f"split{k}_test_score"] = self.scores[k].ravel()
        res["mean_test_score"] = self.scores.mean(axis=0).ravel()
        res["std_test_score"] = self.scores.std(axis=0).ravel()
        order = np.argsort(-res["mean_test_score"], kind="stable")
        rank = np.empty(order.size, dtype=int)
        rank[order] = np.arange(1, order.size + 1)
        res["rank_test_score"] = rank
        res["mean_integrity"] = self.integrity[:full].mean(axis=0).ravel()
        res["integrity"] = self.integrity[full].ravel()
        res["integrity_nonzero"] = self.integrity_nonzero.ravel()
        res["max_abs"] = self.max_abs[full].ravel()
        res["l1"] = self.l1[full].ravel()
        res["nonzeros"] = self.nonzeros[full].ravel()
        res["mean_max_abs"] = self.max_abs[:full].mean(axis=0).ravel()
        res["mean_l1"] = self.l1[:full].mean(axis=0).ravel()
        res["mean_nonzeros"] = self.nonzeros[:full].mean(axis=0).ravel()
        res["null"] = null.ravel()
        res["fully_integral"] = fully.ravel()
        res["fully_integral_strict"] = (self.strict.all(axis=0) & ~null).ravel()
        res["n_iter"] = self.n_iter.ravel()
        res["converged"] = self.converged.ravel()
        return res


class _FacetsCVBase(BaseEstimator):
    """Shared grid search.  ``__init__`` takes one keyword per scikit-learn parameter."""

    _loss = "squared"
    _estimator_class = FacetsRegressor
    # the defaults, for a model pickled before these parameters existed
    max_features = monotone = point_bounds = groups = pool = None
    pool_tol = 0.05
    card_ridge = 0.0

    def __init__(self, gammas=None, betas=None, cv=5, *, gamma_range=None, beta_decades=5.0,
                 penalty="scf", eps=0.01, penalty_params=None, solver="newton", tol=1e-4,
                 max_iter=2000, fit_intercept=True, refit_scale=True, snap_tol=1e-4, n_jobs=None,
                 random_state=0, max_cv_rows=MAX_CV_ROWS, max_points=5, max_rows=None, max_features=None,
                 monotone=None, point_bounds=None, groups=None, pool=None, pool_tol=0.05, card_ridge=0.0):
        """One keyword per hyperparameter, stored as given: scikit-learn's estimator contract
        (``get_params``, ``set_params`` and ``clone`` read them back by name, and checks wait
        for ``fit``), so they cannot be grouped into a record."""
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
        self.max_cv_rows = max_cv_rows
        self.max_points = max_points
        self.max_rows = max_rows
        self.max_features = max_features
        self.monotone = monotone
        self.point_bounds = point_bounds
        self.groups = groups
        self.pool = pool
        self.pool_tol = pool_tol
        self.card_ridge = card_ridge

    # ------------------------------------------------------------------ grid
    def _grid(self, X, y_num, limits: RowLimits):
        """(gammas, betas, strongest first).  Counts (None: `GRID`, or `ROWS_GRID`
        with ``max_rows``) make geometric grids: gamma from m / 30 (m / max_points with
        ``max_rows``: the card's largest point is then about max_points) to m, the largest
        coefficient of a lightly ridge-penalised fit."""
        n_gammas, n_betas = ROWS_GRID if limits.searches else GRID
        n_gammas = n_gammas if self.gammas is None else self.gammas
        n_betas = n_betas if self.betas is None else self.betas
        if isinstance(n_gammas, numbers.Integral):
            if self.gamma_range is None:
                m = reference_magnitude(X, y_num, self._loss, self.fit_intercept)
                top_points = limits.max_points if limits.searches and limits.max_points else 30.0
                lo, hi = m / top_points, m
            else:
                lo, hi = (check_positive("gamma_range", g) for g in self.gamma_range)
            gammas = np.geomspace(lo, hi, int(n_gammas))
        else:
            gammas = np.array([check_positive("gamma", g) for g in np.ravel(n_gammas)])
        if isinstance(n_betas, numbers.Integral):
            c = null_threshold(X, y_num, self._loss, self.fit_intercept)
            top = max(c, 1e-12) / gammas.min()
            betas = top * np.logspace(0, -float(self.beta_decades), int(n_betas))
        else:
            betas = np.array([check_positive("beta", b) for b in np.ravel(n_betas)])
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
            ok = usable(a, b) & np.any(U != 0, axis=1)
            A = np.where(ok, a, A)
            B = np.where(ok, b, B)
        Z = A[:, None] * (U @ X.T) + B[:, None]  # (n_beta, n_test)
        if self._loss == "logistic":
            return np.mean(np.where(Z > 0, 1.0, -1.0) == y_num[None, :], axis=1)
        ss_res = np.sum((y_num[None, :] - Z) ** 2, axis=1)
        ss_tot = np.sum((y_num - y_num.mean()) ** 2)
        return 1 - ss_res / ss_tot if ss_tot > 0 else -ss_res

    # ------------------------------------------------------------------ fit
    def _settings(self, limits: RowLimits, space: CardSpace) -> tuple[Objective, SolverOptions, float]:
        """The checked parameters: the objective (gamma 1; each path sets its own; the box of
        ``limits.max_points`` and of ``space``), the solver options and the snap tolerance."""
        tol = check_positive("tol", self.tol)
        solver = check_solver(self.solver)
        max_iter = check_max_iter(self.max_iter)
        snap_tol = check_snap_tol(self.snap_tol)
        if self.eps is not None:
            check_eps(self.eps)
        objective = Objective(self._loss, *resolve_penalty(self.penalty, self.eps, self.penalty_params),
                              fit_intercept=self.fit_intercept, max_points=limits.max_points,
                              bounds=space.solver_box)
        return objective, SolverOptions(solver, tol, max_iter), snap_tol

    def _cv_rows(self, y_orig) -> np.ndarray | None:
        """The rows the grid runs on: None (all of them) up to ``max_cv_rows`` rows, else that
        many drawn with ``random_state``, stratified by class for a classifier, in data order.

        An explicit list of splits names rows of the whole data, so it is never subsampled.
        """
        folds = int(self.cv) if isinstance(self.cv, numbers.Integral) else 2
        limit = check_max_cv_rows(self.max_cv_rows, folds)
        explicit = not isinstance(self.cv, numbers.Integral) and not hasattr(self.cv, "split")
        if limit is None or explicit or len(y_orig) <= limit:
            return None
        stratify = y_orig if self._loss == "logistic" else None
        if stratify is not None:
            classes, counts = np.unique(stratify, return_counts=True)
            if counts.min() < 2:
                raise InputError(f"class {classes[counts.argmin()]} has a single row, too few to draw the "
                                 f"grid's {limit} rows by class; give it more rows or use all rows "
                                 "(max_cv_rows=None, --max-cv-rows 0)")
        rows, _ = train_test_split(np.arange(len(y_orig)), train_size=limit, stratify=stratify,
                                   random_state=self.random_state)
        return np.sort(rows)

    def _search(self, X, y_num, y_orig):
        """The grid on at most ``max_cv_rows`` rows (see `_cv_rows`), then the chosen point
        refitted on every row, warm-started from the grid's solution.  ``cv_sample_`` holds the
        indices of the rows the grid ran on (None: all), ``cv_rows_`` their number and
        ``subsampled_`` whether they were fewer than all."""
        # bad limits, names or bounds, and a grid beyond the memory budget, before any work
        limits = RowLimits.checked(self.max_rows, self.max_points, self.fit_intercept, self.max_features)
        space = space_of(self, X, y_num, limits)
        pool = check_pool(self.pool, self.pool_tol, limits)
        ridge = check_card_ridge(self.card_ridge)
        folds = int(self.cv) if isinstance(self.cv, numbers.Integral) else 5  # (a splitter: its scores are small)
        points, workers = grid_load(self.gammas, self.betas, max_rows=limits.searches, folds=folds,
                                    n_jobs=self.n_jobs)
        check_fit_memory(*X.shape, points, workers=workers, folds=folds,
                         advice={"n_features": "select features", "n_rows": "subsample the rows",
                                 "grid_points": "fewer gammas or betas"})
        rows = self._cv_rows(y_orig)
        grid_rows = slice(None) if rows is None else rows
        self.cv_sample_ = rows
        self.subsampled_ = rows is not None
        self.cv_rows_ = int(X.shape[0] if rows is None else rows.size)
        if limits.searches:
            found = self._search_rows(X[grid_rows], y_num[grid_rows], limits, space, pool, ridge)
            self._refit_rows(X, y_orig, found, space, ridge)
            if pool:
                self._keep_pool(X, y_num, found, space, pool, ridge)
            return
        self._fit_cv(X[grid_rows], y_num[grid_rows], y_orig[grid_rows], limits, space)
        self._refit(X, y_orig)

    def _search_rows(self, X, y_num, limits: RowLimits, space: CardSpace, pool: int, ridge: float) -> GridSearch:
        """With ``max_rows``: each gamma's Facets path seeds an integer card search (see
        `.search.search_grid`); the card of lowest objective wins.  No CV: the grid
        is a handful of paths, each stopped at max_rows rows, and the choice among their cards
        is by what the search minimises (as FasterRisk chooses among its multipliers by loss).
        ``search_results_`` holds, per gamma, the seed's beta and rows and the searched card's
        loss, objective, rows, largest point and moves."""
        objective, options, _ = self._settings(limits, space)
        gammas, betas = self._grid(X, y_num, limits)
        with warnings.catch_warnings(), single_threaded_blas():
            warnings.simplefilter("ignore")
            found = search_grid(X, y_num, objective, gammas, gammas[:, None] ** 2 * betas[None, :],
                                space, options, near=2 * pool, ridge=ridge)
        self.gammas_, self.betas_ = gammas, betas
        self.coefs_path_ = np.stack([p.coefs * g for p, g in zip(found.paths, gammas)])
        self.intercepts_path_ = np.stack([p.intercepts for p in found.paths])
        self.search_results_ = _search_results(found, gammas, betas)
        return found

    def _refit_rows(self, X, y, found: GridSearch, space: CardSpace, ridge: float) -> None:
        """The delivered model: ``FacetsClassifier(max_rows=...)`` at the chosen (gamma, beta),
        started from its path's fit, with the grid's card (searched again on every row when the
        grid ran on a subsample)."""
        g = max(found.best, 0)
        b = max(found.paths[g].start, 0)
        self.best_index_ = int(g * self.betas_.size + b)
        self.best_gamma_, self.best_beta_ = float(self.gammas_[g]), float(self.betas_[b])
        self.best_lam_ = self.best_beta_ * self.best_gamma_**2
        est = self._best_estimator()
        X, y_num = est._validate(X, y)
        card = None if found.best < 0 else found.cards[g]
        if card is not None and self.subsampled_:  # the grid's card, searched again on every row
            card = local_search(X, y_num, card.points, self._loss, space, ridge=ridge)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est._fit(X, y_num, self.coefs_path_[g, b], self.intercepts_path_[g, b], card=card)
        self._adopt(est)
        self.n_iter_ = int(sum(p.n_iter.sum() for p in found.paths) + est.n_iter_)

    def _best_estimator(self):
        """An unfitted estimator at the chosen point, with this search's settings."""
        return self._estimator_class(
            lam=self.best_lam_, gamma=self.best_gamma_, penalty=self.penalty, eps=self.eps,
            penalty_params=self.penalty_params, solver=self.solver, tol=self.tol,
            max_iter=self.max_iter, fit_intercept=self.fit_intercept, refit_scale=self.refit_scale,
            snap_tol=self.snap_tol, max_points=self.max_points, max_rows=self.max_rows,
            max_features=self.max_features, monotone=self.monotone, point_bounds=self.point_bounds,
            groups=self.groups, card_ridge=self.card_ridge,
        )

    def _keep_pool(self, X, y_num, found: GridSearch, space: CardSpace, size: int, ridge: float) -> None:
        """``pool_`` (the near-optimal cards, best first: see `.pool`), ``cards_`` (their
        table), ``feature_share_`` (per feature, the share of them using it); the best becomes
        the model (``select_card(0)``)."""
        searched = [c for c in found.cards if c is not None]
        candidates = [self.points_[None, :]] + [c.points[None, :] for c in searched]
        candidates += [c.near for c in searched if c.near is not None and c.near.size]
        self.pool_ = card_pool(X, y_num, np.vstack(candidates), self._loss, space, size, float(self.pool_tol),
                               ridge)
        names = getattr(self, "feature_names_in_", None)
        names = [f"x{j}" for j in range(X.shape[1])] if names is None else [str(n) for n in names]
        labels = np.array(names) if self.groups is None else group_labels(self.groups, X.shape[1])
        self.cards_ = pool_table(self.pool_, X, y_num, names, self._loss, space)
        self.feature_share_ = feature_shares(self.pool_, labels)
        self.select_card(0)

    def select_card(self, i: int):
        """Make card ``i`` of the pool (``cards_``, best first) the model: ``predict``,
        ``score``, ``predict_proba`` and the card's points, scale and intercept (``points_``,
        ``gamma_``, ``intercept_``, ``coef_``, here and in ``best_estimator_``) are then its.
        Returns self."""
        check_is_fitted(self, "pool_")
        if isinstance(i, bool) or not isinstance(i, numbers.Integral) or not -len(self.pool_) <= i < len(self.pool_):
            raise InputError(f"select_card takes a card number from 0 to {len(self.pool_) - 1}, got {i!r}")
        est = self.best_estimator_
        est._store_card(self.pool_[int(i)], float(est.gamma))
        self._adopt(est)
        self.selected_card_ = int(i) % len(self.pool_)
        return self

    def _adopt(self, est) -> None:
        """``est`` becomes ``best_estimator_``, its card this search's."""
        self.best_estimator_ = est
        for name in ("coef_", "intercept_", "points_", "integrity_", "integrity_nonzero_", "gamma_",
                     "scale_", "penalty_", "penalty_params_", "data_min_", "data_max_"):
            setattr(self, name, getattr(est, name))

    def _fit_cv(self, X, y_num, y_orig, limits: RowLimits, space: CardSpace):
        """One path per (fold or whole data, gamma), run through joblib; gathered in a
        `GridTally`, from which ``cv_results_`` and the chosen point come."""
        objective, options, snap_tol = self._settings(limits, space)
        gammas, betas = self._grid(X, y_num, limits)
        splitter = self._splitter()
        splits = list(splitter.split(X, y_orig) if hasattr(splitter, "split") else splitter)
        n_folds = len(splits)
        tasks = [(k, g) for k in range(n_folds + 1) for g in range(gammas.size)]
        per_fold = [self._fold_objective(objective, X, y_num, limits, train) for train, _ in splits] + [objective]
        jobs = (
            delayed(path_task)(X, y_num, None if k == n_folds else splits[k],
                               attrs.evolve(per_fold[k], gamma=gammas[g]), betas * gammas[g] ** 2, options,
                               snap_tol, self._score)
            for k, g in tasks
        )
        outputs = Parallel(n_jobs=self.n_jobs, return_as="generator")(jobs)
        tally = GridTally.empty(n_folds, gammas.size, betas.size, X.shape[1])
        for i, task in enumerate(progress.track(outputs, "facets grid", total=len(tasks))):
            k, g = tasks[i]
            tally.add(k, g, gammas[g], task)
        self.cv_results_ = tally.cv_results(gammas, betas)
        self.gammas_, self.betas_ = gammas, betas
        self.coefs_path_, self.intercepts_path_ = tally.coefs, tally.intercepts
        self._select()

    def _fold_objective(self, objective: Objective, X, y_num, limits: RowLimits, train) -> Objective:
        """``objective`` for a fold trained on the rows ``train``: with directions read from the
        data (`DataDirections`), its bounds are read from those rows alone, so that the fold's
        score never sees directions its test rows helped to choose; otherwise unchanged."""
        if not isinstance(self.monotone, DataDirections):
            return objective
        return attrs.evolve(objective, bounds=space_of(self, X[train], y_num[train], limits).solver_box)

    def _select(self) -> None:
        """The chosen grid point: among the fully integral ones (else, with an IntegrityWarning,
        the most integral non-null ones on the whole data), the best CV score; ties (within
        1e-12) go to the fewest points in total, then to the strongest beta."""
        res = self.cv_results_
        score, fully, null = res["mean_test_score"], res["fully_integral"], res["null"]
        self.selected_integral_ = bool(fully.any())
        if self.selected_integral_:
            cand = np.flatnonzero(fully)
        else:
            integ_full = res["integrity"].copy()
            integ_full[null] = -1.0
            best_int = integ_full.max()
            cand = np.flatnonzero(integ_full == best_int)
            warnings.warn(
                "no grid point gave a non-null model integral on every CV fold and on the full "
                f"data; choosing the most integral one on the full data (integrity "
                f"{max(best_int, 0):.3f}); widen the grid (larger gamma or beta)",
                IntegrityWarning,
                stacklevel=4,
            )
        best_score = score[cand].max()
        tied = cand[score[cand] >= best_score - 1e-12]
        points_l1 = res["l1"] / res["param_gamma"]
        best = int(tied[np.lexsort((-res["param_beta"][tied], points_l1[tied]))[0]])
        self.best_index_ = best
        self.best_score_ = float(score[best])
        self.best_gamma_ = float(res["param_gamma"][best])
        self.best_beta_ = float(res["param_beta"][best])
        self.best_lam_ = float(res["param_lam"][best])
        self.n_integral_ = int(fully.sum())
        self.n_null_ = int(null.sum())

    def _refit(self, X, y):
        """The delivered model: the chosen point refitted on the whole data, starting from its
        path's solution (the same fixed point, reached in a handful of iterations)."""
        g, b = np.unravel_index(self.best_index_, (self.gammas_.size, self.betas_.size))
        est = self._best_estimator()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X, y, coef_init=self.coefs_path_[g, b], intercept_init=self.intercepts_path_[g, b])
        self._adopt(est)
        # iterations of the warm-started chain that led to the chosen point, plus the refit
        order = np.argsort(-self.betas_, kind="stable")
        upto = order[: int(np.flatnonzero(order == b)[0]) + 1]
        self.n_iter_ = int(self.cv_results_["n_iter"].reshape(self.gammas_.size, -1)[g, upto].sum()
                           + est.n_iter_)

    def heatmap(self, key: str = "mean_test_score") -> np.ndarray:
        """A cv_results_ column reshaped to (n_gammas, n_betas)."""
        check_is_fitted(self, "cv_results_")
        return np.asarray(self.cv_results_[key]).reshape(self.gammas_.size, self.betas_.size)


def _search_results(found: GridSearch, gammas, betas) -> dict:
    """``search_results_``: one entry per gamma (nan / -1 where its path gave no card)."""
    cards = found.cards

    def per_card(get, missing):
        return np.array([missing if c is None else get(c) for c in cards])

    starts = np.array([p.start for p in found.paths])
    return {
        "param_gamma": np.asarray(gammas, dtype=float),
        "start_beta": np.where(starts >= 0, betas[np.maximum(starts, 0)], np.nan),
        "start_rows": np.array([np.count_nonzero(np.round(p.coefs[max(p.start, 0)])) for p in found.paths]),
        "loss": per_card(lambda c: c.loss, np.nan),
        "objective": per_card(lambda c: c.objective, np.nan),
        "rows": per_card(lambda c: np.count_nonzero(c.points), -1),
        "max_points": per_card(lambda c: np.abs(c.points).max(), -1),
        "steps": per_card(lambda c: c.steps, -1),
        "chosen": np.arange(len(cards)) == found.best,
    }


class FacetsClassifierCV(CardExports, ClassifierMixin, _FacetsCVBase):
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

    ``gammas``/``betas``: counts (None: 24 and 100; geometric grids: gamma over ``gamma_range``,
    by default from m / 30 to m with m the largest coefficient of a lightly ridge-penalised fit; beta over
    ``beta_decades`` decades below the null threshold at the smallest gamma) or explicit arrays.
    Attributes: ``cv_results_`` (per grid point: CV scores, integrity, magnitude max|w| and L1,
    nonzeros, ...), ``best_*_``, ``best_estimator_``, ``coefs_path_`` (n_gammas, n_betas, d),
    ``n_integral_``, ``n_null_``, and ``coef_``/``intercept_``/``integrity_`` of the best model.

    Above ``max_cv_rows`` rows (default `.validation.MAX_CV_ROWS`; None: never), the grid
    (its CV and its whole-data paths) runs on a stratified subsample of that many rows drawn with
    ``random_state``, and only the chosen point is fitted on every row, warm-started from the
    subsample's solution; ``subsampled_``, ``cv_rows_`` and ``cv_sample_`` say so.

    ``max_points`` (default 5) bounds every point (the solver's box); ``max_rows`` (default None)
    caps the card's rows: the grid is then a few paths (``gammas`` and ``betas`` default to 3
    and 12), each seeding an integer local search, and the card of lowest objective wins (the
    training loss plus ``card_ridge``'s penalty on the card's weights: see FacetsClassifier and
    `.search`; no CV, so there is no ``cv_results_`` but ``search_results_``).
    ``max_features``, ``monotone``, ``point_bounds``, ``groups`` and ``card_ridge`` are
    FacetsClassifier's (see `.space`).

    ``pool`` (None, or N >= 1, with the card search) keeps up to N near-optimal cards, whose
    objective is within ``pool_tol`` (default 0.05, relative) of the best card's, of each
    set of rows the best (see `.pool`): ``pool_`` (the cards, best first), ``cards_`` (their
    table: rows, loss, objective, training accuracy and AUC), ``feature_share_`` (per feature, or per
    group with ``groups``, the share of those cards that use it) and ``select_card(i)``, which
    makes card i the model (``selected_card_`` says which one is).  The model is then card 0,
    the best after the pool's polish: possibly a card of lower objective than the search's own.
    """

    _loss = "logistic"
    _estimator_class = FacetsClassifier

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64)
        labels = binary_target(self, y)
        self.classes_ = labels.classes
        self._search(X, labels.values, y)
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


class FacetsRegressorCV(CardExports, RegressorMixin, _FacetsCVBase):
    """FacetsRegressor with (beta, gamma) chosen by K-fold CV R^2 (see FacetsClassifierCV)."""

    _loss = "squared"
    _estimator_class = FacetsRegressor

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        y = np.asarray(y, dtype=float)
        self._search(X, y, y)
        return self

    def _refit(self, X, y):
        super()._refit(X, y)
        self.intercept_ = float(np.ravel(self.intercept_)[0])

    def predict(self, X):
        check_is_fitted(self, "best_estimator_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self.best_estimator_.predict(X)
