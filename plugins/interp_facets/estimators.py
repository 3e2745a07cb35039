"""scikit-learn estimators: FacetsRegressor and FacetsClassifier (their CV versions are in .cv)."""

from __future__ import annotations

import warnings

import numpy as np
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from interp import InputError
from interp.preprocessing import BinaryLabels, binary_labels

from interp.blas import single_threaded_blas
from .export import CardExports
from .problem import Objective, SolveResult
from .refit import refit_scale, usable
from .search import Card, delivered, local_search
from .space import RowLimits, space_of
from .snap import GRID_ATOL, grid_decision, integrity_rows, on_grid, snap_to_grid
from .solver import SolverOptions, WarmStart, solve
from .validation import (check_fit_memory, check_max_iter, check_positive, check_snap_tol, check_solver,
                         check_card_ridge, resolve_penalty)

__all__ = ["FacetsRegressor", "FacetsClassifier", "integrity", "binary_target"]


def integrity(u: np.ndarray, atol: float = GRID_ATOL) -> tuple[float, float]:
    """(fraction of coordinates of u on the integers, same among the non-zero ones).

    The second value is nan when every coordinate is zero (see `.snap.integrity_rows`).
    """
    whole, nonzero = integrity_rows(np.ravel(u), atol)
    return float(whole[0]), float(nonzero[0])


def binary_target(estimator, y) -> BinaryLabels:
    """``y`` as -1/+1 (the second of the sorted classes is +1), or the InputError scikit-learn's
    checks expect from a binary-only classifier."""
    check_classification_targets(y)
    classes = np.unique(y)
    if classes.size != 2:
        raise InputError(
            f"Only binary classification is supported: {type(estimator).__name__} needs a binary "
            f"target; got {classes.size} class{'es' if classes.size != 1 else ''} "
            f"({', '.join(map(str, classes[:5]))})"
        )
    return binary_labels(y, signed=True)


class _FacetsBase(BaseEstimator):
    """Shared fitting code. ``_loss`` is "squared" or "logistic".

    ``__init__`` takes one keyword per scikit-learn parameter (``get_params``), hence its length.
    """

    _loss = "squared"
    # the defaults, for a model pickled before these parameters existed
    max_features = monotone = point_bounds = groups = None
    card_ridge = 0.0

    def __init__(self, lam=0.01, gamma=1.0, *, penalty="scf", eps=0.01, penalty_params=None,
                 solver="newton", tol=1e-4, max_iter=2000, fit_intercept=True, refit_scale=True,
                 snap_tol=1e-4, warm_start=False, max_points=5, max_rows=None, max_features=None,
                 monotone=None, point_bounds=None, groups=None, card_ridge=0.0):
        """One keyword per hyperparameter, stored as given: scikit-learn's estimator contract
        (``get_params``, ``set_params`` and ``clone`` read them back by name, and checks wait
        for ``fit``), so they cannot be grouped into a record."""
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
        self.max_points = max_points
        self.max_rows = max_rows
        self.max_features = max_features
        self.monotone = monotone
        self.point_bounds = point_bounds
        self.groups = groups
        self.card_ridge = card_ridge

    def _fit(self, X, y_num, coef_init=None, intercept_init=None, card: Card | None = None) -> None:
        """Check the parameters, resolve the penalty, solve, snap, refit the scale (or, with
        ``max_rows``, search the card: see `.search`; ``card``, a search's outcome on these
        rows, skips it), store."""
        lam = check_positive("lam", self.lam)
        gamma = check_positive("gamma", self.gamma)
        tol = check_positive("tol", self.tol)
        snap_tol = check_snap_tol(self.snap_tol)
        limits = RowLimits.checked(self.max_rows, self.max_points, self.fit_intercept, self.max_features)
        space = space_of(self, X, y_num, limits)
        ridge = check_card_ridge(self.card_ridge)
        objective = Objective(self._loss, *resolve_penalty(self.penalty, self.eps, self.penalty_params),
                              gamma=gamma, fit_intercept=bool(self.fit_intercept),
                              max_points=limits.max_points, bounds=space.solver_box)
        options = SolverOptions(check_solver(self.solver), tol, check_max_iter(self.max_iter))
        check_fit_memory(*X.shape, advice={"n_features": "select features", "n_rows": "subsample the rows"})
        start = self._start(X, gamma, coef_init, intercept_init)
        with single_threaded_blas():
            res = solve(X, y_num, objective, lam, options, start)
        if not res.converged:
            warnings.warn(
                f"{type(self).__name__} did not converge in max_iter={options.max_iter} iterations "
                f"(criterion {res.criterion:.3g} > tol {tol:g}); raise max_iter or tol",
                ConvergenceWarning,
                stacklevel=3,
            )
        self._store(X, y_num, res, objective, lam, snap_tol)
        self.search_steps_ = 0
        if limits.searches:
            if card is None and np.any(self.points_):
                card = local_search(X, y_num, self.coef_grid_, self._loss, space, ridge=ridge)
            if card is not None:
                self._store_card(delivered(card, X, y_num, self._loss), objective.gamma)

    def _start(self, X, gamma, coef_init, intercept_init) -> WarmStart | None:
        """Where the solver starts: ``coef_init`` / ``intercept_init`` when given (in the model's
        units), else with ``warm_start`` the previous fit's minimiser, else None (the default)."""
        if coef_init is not None:
            u = np.ravel(np.asarray(coef_init, dtype=float))
            if u.size != X.shape[1]:
                raise InputError(f"coef_init has {u.size} values for {X.shape[1]} features")
            b = 0.0 if intercept_init is None else float(np.ravel(intercept_init)[0])
            return WarmStart(u / gamma, b)
        if self.warm_start and hasattr(self, "coef_grid_") and np.size(self.coef_grid_) == X.shape[1]:
            return WarmStart(np.ravel(self.coef_grid_), float(self.intercept_raw_))
        return None

    def _store(self, X, y_num, res: SolveResult, objective: Objective, lam: float, snap_tol: float) -> None:
        U, gap = snap_to_grid(X, y_num, res.u, res.intercept, objective, lam, snap_tol)
        self.data_min_, self.data_max_ = X.min(axis=0), X.max(axis=0)  # the totals a card can give
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
        self.penalty_ = objective.penalty
        self.penalty_params_ = dict(objective.hyper)
        scale, intercept = 1.0, res.intercept
        if self.refit_scale and self.fit_intercept and np.any(u != 0):
            a, b = refit_scale(X @ u, y_num, self._loss)
            if usable(a, b)[0]:
                scale, intercept = float(a[0] / objective.gamma), float(b[0])
        self.scale_ = scale
        self.gamma_ = objective.gamma * scale
        self._set_coef(self.gamma_ * u, intercept)

    def _store_card(self, card: Card, gamma: float) -> None:
        """The searched card replaces the penalised fit's points, scale and intercept (the
        penalised minimiser stays in ``coef_grid_``)."""
        self.points_ = np.asarray(card.points, dtype=np.int64)
        self.integrity_, self.integrity_nonzero_ = integrity(self.points_)
        self.scale_ = card.scale / gamma
        self.gamma_ = card.scale
        self.search_steps_ = card.steps
        self._set_coef(card.scale * self.points_.astype(float), card.intercept)

    @property
    def is_integral_(self) -> bool:
        check_is_fitted(self, "coef_")
        return self.integrity_ == 1.0


class FacetsRegressor(CardExports, RegressorMixin, _FacetsBase):
    """Least squares with a Facets-type penalty: ``sum (y - X w - b)^2 / (2 n) + lam Omega(w / gamma)``.

    The card's exports (``predict_score``, ``card_frame``, ``risk_frame``, ``to_python``,
    ``to_sql``) and its notebook display come from `.export.CardExports`.

    Parameters
    ----------
    lam : float > 0
        Penalty strength lambda.
    gamma : float > 0
        Grid step: the penalty favours coefficients in ``gamma * Z``.
    penalty : str
        Any penalty registered through ``register_penalties`` (``scf``, ``facets``, ``l1``,
        ``l2``, ``elasticnet``, or a third-party one), looked up when ``fit`` runs (and kept as
        ``penalty_``).
    eps : float in (0, 1)
        The ``eps`` of Strongly Convex Facets (used by penalties that take ``eps``).
    penalty_params : dict or None
        Other hyperparameters of the penalty (e.g. ``{"l1_ratio": 0.3}`` for elasticnet).
    solver : "newton", "fista" or "ista"
        ``newton`` (the default): proximal gradient steps that put coefficients on the
        penalty's plateaus, each followed by a Newton step on the coefficients off them (far
        fewer iterations than FISTA on ill-conditioned data); ``fista``: proximal gradient with
        restarted Nesterov momentum; ``ista``: plain proximal gradient (the paper's).  All three
        return prox outputs and stop on the same subgradient test, so they give the same
        minimiser (and the same integrity) up to ``tol``.
    tol, max_iter : float > 0, int >= 1
        Stopping test (subgradient distance / lam, per coefficient; for a nearly unpenalised
        coefficient, / a tenth of its gradient at the intercept-only model) and iteration cap.
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
    warm_start : bool
        Start each ``fit`` from the previous fit's penalised minimiser (``coef_grid_``,
        ``intercept_raw_``), e.g. after ``set_params(lam=...)``.
    max_points : int >= 1 or None
        Every point within [-max_points, max_points] (default 5): a box constraint the solver
        keeps (its prox is the penalty's prox clipped to the box).  None: no bound.
    max_rows : int >= 1 or None
        At most this many non-zero points (default None: no limit).  The penalised fit's card
        (its smallest rows dropped past ``max_rows``) is then improved by an integer local search
        on the training loss, the scale and intercept re-fitted at every move (see
        `.search`); ``search_steps_`` counts its moves.  Needs ``fit_intercept``.
    max_features : int >= 1 or None
        At most this many features on the card (default None: no limit), a feature being a
        group of rows (``groups``): a card may give an age three bands for one feature of its
        budget.  Like ``max_rows``, it makes the fit a card search.
    monotone : dict or sequence or None
        Directions a feature's points must keep: ``{"age": +1}`` (a larger age never lowers the
        score: every row of the feature, or the column so named, has points >= 0), ``-1`` (<=
        0), ``0`` (free); or one entry per column.  A key names a group of ``groups`` or a
        column.  ``card_features(...).monotone({...})`` gives the per-column form for a card's
        design, leaving out the rows that do not rise with the value ("is missing", text levels).
        ``DataDirections(groups, rises)`` (``card_features(...).data_directions()``) reads each
        feature's direction from the training rows at fit: the sign of its association with the
        target (see `.space`).
    point_bounds : dict or sequence or None
        ``{"age >= 50": (0, 3)}``: the points a row (a column name) or every row of a feature
        (a group) may take, within ``max_points``; each pair must hold 0.
    groups : sequence or None
        One label per column; columns with one label are one feature for ``max_features`` and
        for the keys of ``monotone`` and ``point_bounds`` (``card_features(...).groups``: the
        original column of each readable row).  None: every column is its own feature.
    card_ridge : float >= 0
        The card search's ridge on the card's weights (its points times its scale): it
        minimises the mean training loss plus ``card_ridge / (2 n)`` times their squared norm,
        so a card that fits the training rows a little better only by much larger weights loses
        to a plainer one (a Gaussian prior of variance ``1 / card_ridge`` on each row's weight;
        1 is the strength of scikit-learn's ``LogisticRegression(C=1)``).  Default 0: the
        training loss alone, as FasterRisk.  Only the choice of points feels it: the delivered
        scale and intercept are the unpenalised fit of the card's totals.

    Attributes
    ----------
    coef_, intercept_ : ndarray, float
        The model on the features' scale.
    points_ : ndarray of int
        ``coef_ / gamma_`` rounded: the card's points.
    gamma_, scale_ : float
        The grid step of ``coef_`` (``gamma * scale_``) and the scale the refit found.
    integrity_, integrity_nonzero_ : float
        The fraction of coefficients on the gamma-grid, zeros included, and the same among the
        non-zero ones.
    n_iter_, converged_, objective_ : int, bool, float
        The solver's iterations, whether it met ``tol``, and the penalised objective.
    coef_grid_, intercept_raw_ : ndarray, float
        The penalised minimiser in grid units, before the scale refit.
    n_snapped_, snap_gap_ : int, float
        Coefficients moved by the snap (0 if none) and its relative objective increase (0 when
        the minimiser was integral, nan when the snap was refused).
    penalty_, penalty_params_ : interp.Penalty, dict
        The penalty resolved from the registry at fit time, and its hyperparameters: the
        fitted model never looks it up again, so it works, pickled, where the plugin that
        registered it is not loaded.
    data_min_, data_max_ : ndarray
        Each column's training range: the totals the card can give.
    """

    _loss = "squared"

    def fit(self, X, y, coef_init=None, intercept_init=None):
        """Fit; ``coef_init`` and ``intercept_init`` (as ``coef_`` and ``intercept_``, before any
        scale refit) start the solver there instead of at zero."""
        self._fit(*self._validate(X, y), coef_init, intercept_init)
        return self

    def _validate(self, X, y):
        """(X, y as numbers) checked, the input's shape and names recorded."""
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        return X, np.asarray(y, dtype=float)

    def _set_coef(self, coef, intercept):
        self.coef_ = coef
        self.intercept_ = float(intercept)

    def predict(self, X):
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return X @ self.coef_ + self.intercept_


class FacetsClassifier(CardExports, ClassifierMixin, _FacetsBase):
    """Binary logistic regression with a Facets-type penalty.

    Minimises ``mean log(1 + exp(-y (X w + b))) + lam Omega(w / gamma)`` with ``y`` in {-1, +1}
    (the second class of ``classes_`` is +1).  Parameters and attributes as for
    `FacetsRegressor`; ``coef_`` has shape (1, n_features) and ``intercept_`` (1,), as in
    scikit-learn's linear classifiers.  A target with more than two classes is an InputError.
    """

    _loss = "logistic"

    def fit(self, X, y, coef_init=None, intercept_init=None):
        """Fit; ``coef_init`` and ``intercept_init`` start the solver there (see
        `FacetsRegressor.fit`)."""
        self._fit(*self._validate(X, y), coef_init, intercept_init)
        return self

    def _validate(self, X, y):
        """(X, y as -1/+1) checked, the input's shape, names and ``classes_`` recorded."""
        X, y = validate_data(self, X, y, dtype=np.float64)
        labels = binary_target(self, y)
        self.classes_ = labels.classes
        return X, labels.values

    def _set_coef(self, coef, intercept):
        self.coef_ = coef.reshape(1, -1)
        self.intercept_ = np.array([float(intercept)])

    def decision_function(self, X):
        """The linear model's value on each row, as its score card decides (`snap.grid_decision`)."""
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return grid_decision(X, self.coef_[0], self.intercept_[0], self.gamma_)

    def predict(self, X):
        scores = self.decision_function(X)
        return self.classes_[(scores > 0).astype(int)]

    def predict_proba(self, X):
        p = expit(self.decision_function(X))
        return np.column_stack([1 - p, p])

    def predict_log_proba(self, X):
        return np.log(self.predict_proba(X))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

