"""scikit-learn estimators: FacetsRegressor, FacetsClassifier and their grid-search CV versions."""

from __future__ import annotations

import functools
import numbers
import warnings

import numpy as np
from threadpoolctl import ThreadpoolController
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

import interp
from interp import InputError

from .snap import GRID_ATOL, on_grid, snap_to_grid
from .solver import (SolveResult, check_solver, curvature_matrix, gram_matrix, metric_and_bound, refit_scale,
                     solve)

__all__ = ["FacetsRegressor", "FacetsClassifier", "integrity", "resolve_penalty"]


def single_threaded_blas():
    """The solver does many small matrix-vector products: BLAS threads only add overhead (and
    thrash when the machine is busy), so each fit runs with one BLAS thread; parallelism comes
    from joblib over the grid instead."""
    return _blas_controller().limit(limits=1, user_api="blas")


@functools.cache
def _blas_controller() -> ThreadpoolController:
    """Made once per process: it scans the loaded libraries (about 3 ms)."""
    return ThreadpoolController()


def integrity(u: np.ndarray, atol: float = GRID_ATOL) -> tuple[float, float]:
    """(fraction of coordinates of u on the integers, same among the non-zero ones).

    The second value is nan when every coordinate is zero.
    """
    u = np.asarray(u, dtype=float).ravel()
    if u.size == 0:
        return 1.0, float("nan")
    on = on_grid(u, atol)
    nz = np.round(u) != 0
    nz |= ~on
    frac_nz = float(on[nz].mean()) if nz.any() else float("nan")
    return float(on.mean()), frac_nz


def resolve_penalty(name: str, eps: float | None = None, penalty_params: dict | None = None):
    """Look a penalty up by name in the registry (at fit time) and build its hyperparameters."""
    if not isinstance(name, str):
        raise InputError(f"penalty must be a registered penalty name, got {name!r}")
    penalties = interp.get_registry().penalties
    if name not in penalties:
        known = ", ".join(sorted(penalties)) or "none"
        raise InputError(f"unknown penalty {name!r}; registered: {known}")
    pen = penalties[name]
    hyper = dict(pen.defaults)
    if "eps" in hyper and eps is not None:
        eps = _check_eps(eps)
        hyper["eps"] = eps
    for key, value in (penalty_params or {}).items():
        if key not in hyper:
            allowed = ", ".join(sorted(hyper)) or "none"
            raise InputError(f"penalty {name!r} has no parameter {key!r} (it takes: {allowed})")
        hyper[key] = float(value)
    if "eps" in hyper:
        _check_eps(hyper["eps"])
    return pen, hyper


def _check_positive(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputError(f"{name} must be a positive number, got {value!r}")
    value = float(value)
    if not (value > 0 and np.isfinite(value)):
        raise InputError(f"{name} must be > 0, got {value}")
    return value


def _check_eps(eps) -> float:
    if isinstance(eps, bool) or not isinstance(eps, numbers.Real) or not 0 < float(eps) < 1:
        raise InputError(f"eps must be in (0, 1), got {eps!r}")
    return float(eps)


def _check_snap_tol(snap_tol) -> float:
    if isinstance(snap_tol, bool) or not isinstance(snap_tol, numbers.Real) or not 0 <= snap_tol < 1:
        raise InputError(f"snap_tol must be a number in [0, 1), got {snap_tol!r}")
    return float(snap_tol)


def _check_max_iter(max_iter) -> int:
    if isinstance(max_iter, bool) or not isinstance(max_iter, numbers.Integral) or max_iter < 1:
        raise InputError(f"max_iter must be a positive integer, got {max_iter!r}")
    return int(max_iter)


class _FacetsBase(BaseEstimator):
    """Shared fitting code. ``_loss`` is "squared" or "logistic"."""

    _loss = "squared"

    def __init__(self, lam=0.01, gamma=1.0, *, penalty="scf", eps=0.01, penalty_params=None,
                 solver="newton", tol=1e-4, max_iter=2000, fit_intercept=True, refit_scale=True,
                 snap_tol=1e-4, warm_start=False):
        self.lam = lam
        self.gamma = gamma
        self.penalty = penalty
        self.eps = eps
        self.penalty_params = penalty_params
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.fit_intercept = fit_intercept
        self.refit_scale = refit_scale
        self.snap_tol = snap_tol
        self.warm_start = warm_start

    def _check_params(self):
        lam = _check_positive("lam", self.lam)
        gamma = _check_positive("gamma", self.gamma)
        tol = _check_positive("tol", self.tol)
        _check_snap_tol(self.snap_tol)
        pen, hyper = resolve_penalty(self.penalty, self.eps, self.penalty_params)
        return lam, gamma, tol, pen, hyper

    def _solve(self, X, y_num):
        lam, gamma, tol, pen, hyper = self._check_params()
        solver = check_solver(self.solver)
        max_iter = _check_max_iter(self.max_iter)
        u0, b0 = None, 0.0
        if self.warm_start and hasattr(self, "coef_grid_") and np.size(self.coef_grid_) == X.shape[1]:
            u0 = np.ravel(self.coef_grid_)
            b0 = float(self.intercept_raw_)
        with single_threaded_blas():
            res = solve(X, y_num, loss=self._loss, penalty=pen, lam=lam, gamma=gamma, hyper=hyper,
                        solver=solver, tol=tol, max_iter=max_iter,
                        fit_intercept=bool(self.fit_intercept), u0=u0, b0=b0)
        if not res.converged:
            warnings.warn(
                f"{type(self).__name__} did not converge in max_iter={max_iter} iterations "
                f"(criterion {res.criterion:.3g} > tol {tol:g}); raise max_iter or tol",
                ConvergenceWarning,
                stacklevel=3,
            )
        self._store(res, lam, gamma, pen, hyper, X, y_num)
        return res

    def _store(self, res: SolveResult, lam: float, gamma: float, pen, hyper: dict, X, y_num) -> None:
        U, gap = snap_to_grid(X, y_num, res.u, res.intercept, loss=self._loss, penalty=pen,
                              hyper=hyper, lams=lam, gamma=gamma, tol=float(self.snap_tol))
        u = U[0]
        off = ~on_grid(res.u)
        self.n_snapped_ = int(off.sum()) if off.any() and np.isfinite(gap[0]) else 0
        self.snap_gap_ = float(gap[0])
        self.coef_grid_ = u.copy()
        self.intercept_raw_ = res.intercept
        self.points_ = np.round(u).astype(np.int64)
        self.integrity_, self.integrity_nonzero_ = integrity(u)
        self.n_iter_ = res.n_iter
        self.converged_ = res.converged
        self.objective_ = res.objective
        self.penalty_params_ = dict(hyper)
        scale, intercept = 1.0, res.intercept
        if self.refit_scale and self.fit_intercept and np.any(u != 0):
            a, b = refit_scale(X @ u, y_num, self._loss)
            if a[0] > 0 and np.isfinite(a[0]) and np.isfinite(b[0]):
                scale, intercept = float(a[0] / gamma), float(b[0])
        self.scale_ = scale
        self.gamma_ = gamma * scale
        self._set_coef(self.gamma_ * u, intercept)

    @property
    def is_integral_(self) -> bool:
        check_is_fitted(self, "coef_")
        return self.integrity_ == 1.0


class FacetsRegressor(RegressorMixin, _FacetsBase):
    """Least squares with a Facets-type penalty: ``sum (y - X w - b)^2 / (2 n) + lam Omega(w / gamma)``.

    Parameters
    ----------
    lam : float > 0
        Penalty strength lambda.
    gamma : float > 0
        Grid step: the penalty favours coefficients in ``gamma * Z``.
    penalty : str
        Any penalty registered through ``register_penalties`` (``scf``, ``facets``, ``l1``,
        ``l2``, ``elasticnet``, or a third-party one), looked up when ``fit`` runs.
    eps : float in (0, 1)
        The ``eps`` of Strongly Convex Facets (used by penalties that take ``eps``).
    penalty_params : dict or None
        Other hyperparameters of the penalty (e.g. ``{"l1_ratio": 0.3}`` for elasticnet).
    solver : "newton", "fista" or "ista"
        ``newton`` (the default): proximal gradient steps that put coefficients on the
        penalty's plateaus, each followed by a Newton step on the coefficients off them (10x
        fewer iterations than FISTA on ill-conditioned data); ``fista``: proximal gradient with
        restarted Nesterov momentum; ``ista``: plain proximal gradient (the paper's).  All three
        return prox outputs and stop on the same subgradient test, so they give the same
        minimiser (and the same integrity) up to ``tol``.
    tol, max_iter : stopping test (subgradient distance / lam, per coefficient; for a nearly
        unpenalised coefficient, / a tenth of its gradient at the intercept-only model) and
        iteration cap.
    refit_scale : bool
        After the penalised fit, freeze the points ``u = w / gamma`` and re-estimate only the
        scale and intercept by an unpenalised 1-D fit of the loss on the total ``X u`` (the
        penalty shrinks the whole model, which pulls the intercept, hence the score card's
        threshold, towards the base rate).  Points and integrity are unchanged; ``gamma_``
        becomes ``gamma * scale_``.  False gives the paper's plain minimiser.
    snap_tol : float in [0, 1)
        When the minimiser is not fully integral, round all its coefficients to the grid if
        that raises the penalised objective by at most this fraction (default 1e-4: 0.01%).
        A model whose last coefficients sit just past a plateau's edge (1.003 points) then
        becomes integral at no real cost.  0 keeps the strict minimiser.

    Attributes
    ----------
    coef_, intercept_, points_ (coef_ / gamma_ rounded), gamma_ (the grid step of coef_),
    scale_, integrity_ (fraction of coefficients on the gamma-grid, zeros included),
    integrity_nonzero_ (same among non-zero coefficients), n_iter_, converged_, objective_
    (of the penalised problem), coef_grid_ / intercept_raw_ (the penalised minimiser in grid
    units, before the scale refit), n_snapped_ (coefficients moved by the snap, 0 if none)
    and snap_gap_ (its relative objective increase; 0 when the minimiser was integral, nan
    when the snap was refused).
    """

    _loss = "squared"

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        self._solve(X, np.asarray(y, dtype=float))
        return self

    def _set_coef(self, coef, intercept):
        self.coef_ = coef
        self.intercept_ = float(intercept)

    def predict(self, X):
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return X @ self.coef_ + self.intercept_


class FacetsClassifier(ClassifierMixin, _FacetsBase):
    """Binary logistic regression with a Facets-type penalty.

    Minimises ``mean log(1 + exp(-y (X w + b))) + lam Omega(w / gamma)`` with ``y`` in {-1, +1}
    (the second class of ``classes_`` is +1).  Parameters and attributes as for
    :class:`FacetsRegressor`; ``coef_`` has shape (1, n_features) and ``intercept_`` (1,), as in
    scikit-learn's linear classifiers.  A target with more than two classes is an InputError.
    """

    _loss = "logistic"

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        classes = np.unique(y)
        if classes.size != 2:
            raise InputError(
                f"Only binary classification is supported: FacetsClassifier needs a binary target; got {classes.size} class"
                f"{'es' if classes.size != 1 else ''} ({', '.join(map(str, classes[:5]))})"
            )
        self.classes_ = classes
        y_num = np.where(y == classes[1], 1.0, -1.0)
        self._solve(X, y_num)
        return self

    def _set_coef(self, coef, intercept):
        self.coef_ = coef.reshape(1, -1)
        self.intercept_ = np.array([float(intercept)])

    def decision_function(self, X):
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return X @ self.coef_[0] + self.intercept_[0]

    def predict(self, X):
        scores = self.decision_function(X)
        return self.classes_[(scores > 0).astype(int)]

    def predict_proba(self, X):
        from scipy.special import expit

        p = expit(self.decision_function(X))
        return np.column_stack([1 - p, p])

    def predict_log_proba(self, X):
        return np.log(self.predict_proba(X))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


def fit_path(X, y_num, *, loss, penalty, hyper, gamma, lams, solver="newton", tol=1e-4,
             max_iter=2000, fit_intercept=True, gram=None, precondition=True):
    """Warm-started fits along decreasing ``lams`` at one ``gamma``.

    Returns (U of shape (len(lams), d) in grid units, intercepts, n_iters, converged).
    """
    lams = np.asarray(lams, dtype=float)
    X = np.asfortranarray(X, dtype=float)
    U = np.zeros((lams.size, X.shape[1]))
    B = np.zeros(lams.size)
    iters = np.zeros(lams.size, dtype=int)
    conv = np.zeros(lams.size, dtype=bool)
    if gram is None:
        gram = gram_matrix(X)
    u, b, L = None, 0.0, None
    with single_threaded_blas():
        metric = metric_and_bound(curvature_matrix(X, gamma, loss, fit_intercept, gram), precondition)
        for i in np.argsort(-lams, kind="stable"):
            res = solve(X, y_num, loss=loss, penalty=penalty, lam=float(lams[i]), gamma=gamma,
                        hyper=hyper, solver=solver, tol=tol, max_iter=max_iter,
                        fit_intercept=fit_intercept, u0=u, b0=b, lipschitz=L, metric=metric, gram=gram)
            u, b, L = res.u, res.intercept, res.lipschitz
            U[i], B[i], iters[i], conv[i] = res.u, res.intercept, res.n_iter, res.converged
    return U, B, iters, conv
